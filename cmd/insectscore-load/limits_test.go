//go:build linux

package main

import "testing"

// TestLocalDSN: the notify load runs against a PostgreSQL on this machine
// only.
func TestLocalDSN(t *testing.T) {
	for dsn, ok := range map[string]bool{
		"postgres://postgres@127.0.0.1:5432/test?sslmode=disable": true,
		"postgres://postgres@localhost/test":                      true,
		"postgres://postgres@[::1]:5432/test":                     true,
		"host=/var/run/postgresql dbname=test":                    true,
		"postgres://postgres@db.example.org/test":                 false,
		"postgres://postgres@10.0.0.5:5432/test":                  false,
		"host=192.168.1.2 dbname=test":                            false,
		"host=127.0.0.1,10.0.0.5 dbname=test":                     false,
	} {
		if err := localDSN(dsn); (err == nil) != ok {
			t.Errorf("localDSN(%q) = %v, want allowed %v", dsn, err, ok)
		}
	}
}

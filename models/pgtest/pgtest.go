// Package pgtest gives a test a PostgreSQL schema of its own, so that
// tests of several packages can run against one database at once without
// sharing tables.
package pgtest

import (
	"context"
	"crypto/rand"
	"net/url"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Schema creates a schema with a random name, dropped when the test ends,
// and returns the DSN base with its search_path set to it.
func Schema(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	schema := "insectscore_test_" + strings.ToLower(rand.Text())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	return withParam(t, base, "search_path", schema)
}

// Named returns dsn with its sessions' application_name set to name, so
// that a test can end them all (pg_terminate_backend) and no others.
func Named(t testing.TB, dsn, name string) string {
	t.Helper()
	return withParam(t, dsn, "application_name", name)
}

func withParam(t testing.TB, dsn, key, value string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

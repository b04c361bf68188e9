// Package sqlitetest holds an insectscore SQLite file's write lock as
// another program would (sqlite3, a backup, a second insectscore), for
// the tests of what the server does meanwhile.
package sqlitetest

import (
	"context"
	"database/sql"
	"sync"
	"testing"

	_ "github.com/mattn/go-sqlite3" // the "sqlite3" driver
)

// HoldWriteLock takes the write lock of the SQLite file at path, an
// insectscore database, from a connection of its own, with a write
// pending in it, until release is called or the test ends.
func HoldWriteLock(t testing.TB, path string) (release func()) {
	t.Helper()
	ctx := context.Background()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		t.Fatal(err)
	}
	var once sync.Once
	release = func() {
		once.Do(func() {
			conn.ExecContext(ctx, "ROLLBACK")
			conn.Close()
			db.Close()
		})
	}
	t.Cleanup(release)
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "UPDATE groups SET name = name"); err != nil {
		t.Fatal(err)
	}
	return release
}

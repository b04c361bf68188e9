package models

import (
	"errors"
	"fmt"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/mattn/go-sqlite3"
)

// TestFullDiskIsUnavailable: the drivers' words for a disk with no room
// (SQLite's SQLITE_FULL, an I/O error of ENOSPC, PostgreSQL's disk_full)
// are ErrUnavailable and ErrDiskFull, which the API answers 503; other
// errors of the same classes are not. The API test TestDiskFull fills a
// real disk.
func TestFullDiskIsUnavailable(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		full bool
	}{
		{"SQLITE_FULL", sqlite3.Error{Code: sqlite3.ErrFull}, true},
		{"an I/O error of ENOSPC", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.ENOSPC}, true},
		{"an I/O error of EIO", sqlite3.Error{Code: sqlite3.ErrIoErr, SystemErrno: syscall.EIO}, false},
		{"PostgreSQL's disk_full", fmt.Errorf("commit: %w", &pgconn.PgError{Code: "53100"}), true},
		{"PostgreSQL's out_of_memory", &pgconn.PgError{Code: "53200"}, false},
	} {
		err := translate(tt.err)
		if got := errors.Is(err, ErrDiskFull); got != tt.full || (tt.full && !errors.Is(err, ErrUnavailable)) {
			t.Errorf("%s: %v; want disk full %v", tt.name, err, tt.full)
		}
	}
}

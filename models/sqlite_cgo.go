//go:build cgo

package models

import (
	"errors"
	"syscall"

	"github.com/mattn/go-sqlite3"
)

// sqliteError reads the SQLite driver's own error in err, if it is one:
// its words, and whether it means busy, read-only or a full disk.
func sqliteError(err error) (cause string, kind unavailableKind, ok bool) {
	var se sqlite3.Error
	if !errors.As(err, &se) {
		return "", errOtherKind, false
	}
	switch se.Code {
	case sqlite3.ErrReadonly:
		kind = errReadOnlyKind
	case sqlite3.ErrBusy, sqlite3.ErrLocked:
		kind = errBusyKind
	case sqlite3.ErrFull:
		kind = errFullKind
	case sqlite3.ErrIoErr:
		// A write(2) or fallocate(2) refused for want of space.
		if errors.Is(se.SystemErrno, syscall.ENOSPC) || errors.Is(se.SystemErrno, syscall.EDQUOT) {
			kind = errFullKind
		}
	}
	return se.Error(), kind, true
}

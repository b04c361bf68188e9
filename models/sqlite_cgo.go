//go:build cgo

package models

import (
	"errors"

	"github.com/mattn/go-sqlite3"
)

// sqliteError reads the SQLite driver's own error in err, if it is one:
// its words, and whether it means busy or read-only.
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
	}
	return se.Error(), kind, true
}

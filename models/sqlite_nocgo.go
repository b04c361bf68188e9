//go:build !cgo

package models

// sqliteError: without cgo the SQLite driver opens nothing (the server
// then serves PostgreSQL only), so no error is its.
func sqliteError(error) (cause string, kind unavailableKind, ok bool) {
	return "", errOtherKind, false
}

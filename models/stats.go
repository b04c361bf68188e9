package models

import "database/sql"

// PoolStats reports the store's connection pools by name: "write", and
// "read" when reads have a pool of their own (a SQLite file). The wait
// counts say how often and how long callers waited for a connection; on
// SQLite the write pool is the one writer connection, so its wait is the
// time requests spent queued behind other writes. The metrics endpoint
// exports them.
func (s *Store) PoolStats() map[string]sql.DBStats {
	out := map[string]sql.DBStats{}
	if db, err := s.db.DB(); err == nil {
		out["write"] = db.Stats()
	}
	if s.rdb != nil && s.rdb != s.db {
		if db, err := s.rdb.DB(); err == nil {
			out["read"] = db.Stats()
		}
	}
	return out
}

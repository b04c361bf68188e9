// Package models is insectscore's storage: the GORM models, the Store whose
// methods are named for what the application wants done (FindTableByCode,
// SaveBoard, FinishTable, Leaderboard), the versioned schema migrations, and
// the brokers that carry live updates.
//
// One SQLite file is the default so a self-hosted server needs no setup; a
// postgres:// DSN runs the same schema on PostgreSQL so several replicas can
// share it. Callers never see GORM: they get plain domain structs and the
// store's own errors (ErrNotFound, ErrConflict, ErrFinished, *VersionError).
//
// History belongs to a group (the default one until people make their
// own), so one server can keep several circles of players apart. A play is
// written once with a row per player, and each group's leaderboards are
// aggregates brought up to date in the same transaction, so that reading a
// leaderboard costs the same after a thousand plays as after a hundred
// thousand. Ratings depend on the order of plays: anything that changes
// the past (a play logged late, an edit, a delete, a merge) rebuilds that
// game's aggregates from the plays, in finish order.
package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Errors the store returns in place of driver errors, so that the API maps
// storage outcomes to HTTP statuses through one table without knowing GORM.
var (
	// ErrNotFound means no table, seat, move, group, player or play
	// matches; a player or play of another group counts as none.
	ErrNotFound = errors.New("models: not found")
	// ErrConflict means the change collides with existing data: a seat
	// already claimed, a name already seated.
	ErrConflict = errors.New("models: conflict")
	// ErrFinished means the table is finished and refuses changes; its
	// result is history now.
	ErrFinished = errors.New("models: table is finished")
	// ErrTableFull means the table already has as many seats as its game
	// allows. The store checks it in the same transaction that adds the
	// seat, so two players joining at once cannot overfill a table.
	ErrTableFull = errors.New("models: table is full")
)

// VersionError is returned when a caller's If-Match version is stale, so
// the client can be told which version to reload.
type VersionError struct {
	Current int
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("models: table changed; it is at version %d", e.Current)
}

// Store is the application's storage. It is safe for concurrent use.
type Store struct {
	// Now is the clock; tests replace it to get fixed timestamps.
	Now func() time.Time
	// Rand is the source of table codes, tokens and play ids. It must be
	// cryptographically secure outside tests: tokens are bearer secrets.
	Rand io.Reader

	db *gorm.DB
}

// slowQuery is the duration above which a statement is logged as slow.
const slowQuery = 200 * time.Millisecond

// Open connects to the database named by dsn and brings its schema up to
// date. A dsn starting with postgres:// or postgresql:// is PostgreSQL;
// anything else is a SQLite file path (created, with its directory, if
// missing) or ":memory:". A SQLite path may carry extra go-sqlite3
// parameters after "?".
func Open(ctx context.Context, dsn string, log *slog.Logger) (*Store, error) {
	return open(ctx, dsn, log, migrations)
}

func open(ctx context.Context, dsn string, log *slog.Logger, list []migration) (*Store, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Store{Now: time.Now, Rand: rand.Reader}

	var dialector gorm.Dialector
	isSQLite := !isPostgres(dsn)
	if isSQLite {
		d, err := sqliteDSN(dsn)
		if err != nil {
			return nil, err
		}
		dialector = sqlite.Open(d)
	} else {
		dialector = postgres.Open(dsn)
	}
	db, err := gorm.Open(dialector, &gorm.Config{
		Logger: quietLogger{logger.NewSlogLogger(log, logger.Config{
			SlowThreshold:             slowQuery,
			IgnoreRecordNotFoundError: true,
			// Keep tokens' hashes, names and boards out of the logs.
			ParameterizedQueries: true,
			LogLevel:             logger.Warn,
		})},
		// Driver errors become gorm.ErrDuplicatedKey and friends, which
		// the store maps to its own errors.
		TranslateError: true,
		// Every multi-statement write opens its own transaction.
		SkipDefaultTransaction: true,
		NowFunc:                func() time.Time { return s.now() },
	})
	if err != nil {
		return nil, fmt.Errorf("models: open %s: %w", redact(dsn), err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	if isSQLite {
		// One connection is the one writer SQLite allows: writers queue in
		// database/sql instead of failing with SQLITE_BUSY, and ":memory:"
		// stays one database.
		sqlDB.SetMaxOpenConns(1)
		sqlDB.SetMaxIdleConns(1)
		sqlDB.SetConnMaxLifetime(0)
		sqlDB.SetConnMaxIdleTime(0)
	} else {
		// Bounded so several replicas fit in PostgreSQL's default
		// max_connections of 100.
		sqlDB.SetMaxOpenConns(10)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	s.db = db
	if err := migrate(ctx, db, list, s.now, log); err != nil {
		sqlDB.Close()
		return nil, err
	}
	return s, nil
}

// Close releases the database. With SQLite it also checkpoints the WAL into
// the main file.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// sqliteDSN adds the connection pragmas to a SQLite path. They live in the
// DSN rather than in one-off PRAGMA statements so that go-sqlite3 applies
// them to every connection it opens, including a reconnect.
func sqliteDSN(dsn string) (string, error) {
	if dsn == "" {
		return "", errors.New("models: empty database path")
	}
	path, _, _ := strings.Cut(dsn, "?")
	if path != ":memory:" && !strings.HasPrefix(path, "file:") {
		// A fresh install needs no setup: SQLite creates the file, and we
		// create its directory.
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "", fmt.Errorf("models: create database directory: %w", err)
		}
	}
	pragmas := []string{
		// Wait up to 5 s for a lock held by another process (a backup, a
		// CLI subcommand) instead of failing; go-sqlite3 sets it before
		// any other pragma, so the others can wait too.
		"_busy_timeout=5000",
		// WAL: readers and the writer do not block each other, and a
		// commit is one append instead of a rewrite of the journal.
		"_journal_mode=WAL",
		// SQLite ships with foreign keys off; the seat and move cascades
		// and the references to tables depend on them.
		"_foreign_keys=on",
		// NORMAL is durable against crashes in WAL mode (only the last
		// commits can roll back on power loss) with far fewer fsyncs.
		"_synchronous=NORMAL",
		// BEGIN IMMEDIATE takes the write lock up front, so a transaction
		// that reads and then writes never fails mid-way with SQLITE_BUSY,
		// which busy_timeout cannot retry.
		"_txlock=immediate",
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + strings.Join(pragmas, "&"), nil
}

// redact drops a PostgreSQL password from a DSN before it reaches a log or
// an error message.
func redact(dsn string) string {
	if !isPostgres(dsn) {
		return dsn
	}
	scheme, rest, _ := strings.Cut(dsn, "://")
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		if user, _, ok := strings.Cut(rest[:at], ":"); ok {
			return scheme + "://" + user + ":xxxxx" + rest[at:]
		}
	}
	return dsn
}

// quietLogger keeps expected outcomes out of the error log: a unique
// violation is a conflict the caller handles, and a cancelled context is a
// client that went away. Slow statements are still reported.
type quietLogger struct {
	logger.Interface
}

func (l quietLogger) LogMode(level logger.LogLevel) logger.Interface {
	return quietLogger{l.Interface.LogMode(level)}
}

// ParamsFilter passes on the wrapped logger's filter, which keeps the
// values out of logged SQL; embedding alone would hide it from GORM.
func (l quietLogger) ParamsFilter(ctx context.Context, sql string, params ...any) (string, []any) {
	if f, ok := l.Interface.(gorm.ParamsFilter); ok {
		return f.ParamsFilter(ctx, sql, params...)
	}
	return sql, params
}

func (l quietLogger) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	if errors.Is(err, gorm.ErrDuplicatedKey) || errors.Is(err, context.Canceled) {
		err = nil
	}
	l.Interface.Trace(ctx, begin, fc, err)
}

// now is the store's clock in UTC, cut to microseconds: what PostgreSQL
// keeps, so a time reads back the same from either database.
func (s *Store) now() time.Time {
	return s.Now().UTC().Truncate(time.Microsecond)
}

// isPostgres reports whether the store runs on PostgreSQL.
func (s *Store) isPostgres() bool {
	return s.db.Dialector.Name() == "postgres"
}

// read runs fn in a transaction that sees one consistent snapshot, so a
// table and its seats are read at the same version.
func (s *Store) read(ctx context.Context, fn func(tx *gorm.DB) error) error {
	var opts *sql.TxOptions
	if s.isPostgres() {
		opts = &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return translate(s.db.WithContext(ctx).Transaction(fn, opts))
}

// translate turns GORM's errors into the store's own.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gorm.ErrRecordNotFound):
		return ErrNotFound
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return ErrConflict
	}
	return err
}

// Package models is insectscore's storage and the owner of every change:
// the GORM models, the Store whose methods are named for what the
// application wants done (PutBoard, AddMove, Finish, RecordPlay,
// Leaderboard), each change one transaction that authorises, checks the
// rules, writes, keeps the figures and the idempotent answer
// (changes.go), and the versioned schema migrations.
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
// the past (a play logged late, an edit, a delete, a merge) has that
// game's aggregates rebuilt from the changed play on, in finish order, by
// a worker in the background (rebuild.go).
package models

import (
	"context"
	"crypto/rand"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// Errors the store returns in place of driver errors, so that the API maps
// storage outcomes to HTTP statuses through one table without knowing GORM.
var (
	// ErrNotFound means no table, seat, group, player or play
	// matches; a player or play of another group counts as none.
	ErrNotFound = errors.New("models: not found")
	// ErrConflict means the change collides with existing data: a seat
	// already claimed, a name already seated.
	ErrConflict = errors.New("models: conflict")
	// ErrFinished means the table is finished and refuses changes; its
	// result is history now.
	ErrFinished = errors.New("models: table is finished")
	// ErrUnavailable means the database cannot serve the request now: its
	// write lock is held elsewhere for longer than the busy timeout (a
	// backup, a one-shot command, sqlite3), it is read-only, or PostgreSQL
	// refuses connections. Trying again later may succeed; nothing was
	// changed.
	ErrUnavailable = errors.New("models: the database is unavailable")
	// ErrReadOnly means the database cannot be written: the SQLite file or
	// its directory is read-only, or PostgreSQL is a standby. Open refuses
	// such a database; a database that turns read-only later makes every
	// write an ErrUnavailable that also matches ErrReadOnly.
	ErrReadOnly = errors.New("models: the database is read-only")
	// ErrDiskFull means a write found no room on the database's disk:
	// nothing of it was saved. Every write is an ErrUnavailable that also
	// matches ErrDiskFull, and Ready says so, until a write succeeds.
	ErrDiskFull = errors.New("models: the database's disk is full")
	// ErrUnreachable means PostgreSQL cannot be reached: it refuses
	// connections, is shutting down or starting (a restart), or the
	// connection broke. Every such error is an ErrUnavailable too.
	ErrUnreachable = errors.New("models: the database cannot be reached")
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

	// db is the writer: on SQLite its one connection is the one writer
	// SQLite allows, and its transactions take the write lock at BEGIN.
	db *gorm.DB
	// rdb serves reads. On a SQLite file it is a pool of its own whose
	// transactions are deferred and read-only, so in WAL mode a read
	// never waits for the write lock, held here or by another process.
	// Elsewhere it is db.
	rdb *gorm.DB
	// importBatchDone, when set, is called after each batch an import
	// commits: tests look at the store half-way through an import.
	importBatchDone func()
	// rb is the worker that brings leaderboards up to date after a change
	// to the past; nil until Open starts it.
	rb *rebuilder
	// rebuildSize, when set, replaces rebuildPlays and recomputePlays:
	// tests make rebuilds take many steps and recomputes many pages.
	rebuildSize int
	// walkSize is how many plays the worker's next walk step takes,
	// following how long the last one held the writer (walkStepSize);
	// zero before the first. Only the worker touches it.
	walkSize int
	// rebuildStepDone, when set, is called after each step of a rebuild
	// commits, with the worker's context: tests stop a rebuild half-way.
	rebuildStepDone func(ctx context.Context)
	// AfterChange, when set, runs after each change commits: the crash
	// tests kill the server there, between a change and its answer.
	AfterChange func()
	// walRestartAt, when set, replaces the constant: tests make the WAL
	// start again sooner.
	walRestartAt atomic.Int64
	// diskFullAt is when the last write found the database's disk full
	// (Unix nanoseconds), zero once a write succeeds.
	diskFullAt atomic.Int64
	// stopCheckpoints ends the checkpoint goroutine of a SQLite file and
	// waits for it; nil elsewhere.
	stopCheckpoints func()
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
	db, err := gorm.Open(dialector, s.gormConfig(log))
	if err != nil {
		return nil, openError(dsn, err)
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
		sqlDB.SetMaxOpenConns(PostgresPool)
		// As many kept idle as may be open: database/sql keeps 2 by
		// default, so a burst's connections were closed as it ebbed and
		// opened again by the next, each a new PostgreSQL backend that
		// prepared every statement again (issue 26). Idle ones close
		// after a while of nothing.
		sqlDB.SetMaxIdleConns(PostgresPool)
		sqlDB.SetConnMaxIdleTime(5 * time.Minute)
	}
	s.db, s.rdb = db, db
	if err := migrate(ctx, db, list, s.now, log); err != nil {
		sqlDB.Close()
		return nil, openError(dsn, err)
	}
	// A database that cannot be written would start and then fail every
	// write: refuse it now, with a message that says why.
	if err := s.writable(ctx); err != nil {
		sqlDB.Close()
		return nil, openError(dsn, err)
	}
	if isSQLite && !sqliteMemory(dsn) {
		if s.rdb, err = gorm.Open(sqlite.Open(sqliteReadDSN(dsn)), s.gormConfig(log)); err != nil {
			sqlDB.Close()
			return nil, openError(dsn, err)
		}
		readDB, err := s.rdb.DB()
		if err != nil {
			sqlDB.Close()
			return nil, err
		}
		readDB.SetMaxOpenConns(readConns)
		readDB.SetMaxIdleConns(readConns)
		readDB.SetConnMaxIdleTime(5 * time.Minute)
		if err := s.startCheckpoints(ctx, dsn); err != nil {
			s.Close()
			return nil, openError(dsn, err)
		}
	}
	// An import cut short by a stop leaves its group hidden until its
	// lease runs out; a start clears what such imports wrote. (Tests of
	// old schemas open with fewer migrations.)
	if len(list) < len(migrations) {
		return s, nil
	}
	if err := s.sweepImports(ctx); err != nil {
		s.Close()
		return nil, openError(dsn, err)
	}
	s.startRebuilds(log)
	return s, nil
}

// checkpointEvery is how often the WAL of a SQLite file is copied back
// into the database file, and its size looked at: a steady load of board
// writes adds up to 50 MB a second to it.
const checkpointEvery = 250 * time.Millisecond

// Bounds of a SQLite file's WAL. A PASSIVE checkpoint copies the WAL back
// but never waits for readers, and the WAL starts again from its
// beginning only when no reader still uses it: under a steady load of
// reads it grows without end (616 MB in 40 s of board writes). So once it
// holds walRestartAt, the writer's own connection runs a TRUNCATE
// checkpoint between two writes: the PASSIVE ones have copied the WAL
// already, so it waits only for the readers of older snapshots (reads
// take milliseconds; walWait at most, walTries times a tick), then
// empties it. journal_size_limit cuts a WAL left larger back at its next
// restart.
// PostgresPool is the connections a Store opens at most on PostgreSQL,
// bounded so that four replicas, each with its broker's two connections,
// fit in PostgreSQL's default max_connections of 100. Board writes over
// TCP wait for a connection less with 20 than with 10 (12–21 % more
// writes/s, issue 26); with 32, on two cores, PostgreSQL spent more and
// wrote less.
const PostgresPool = 20

const (
	walRestartAt = 16 << 20
	walLimit     = 64 << 20
	walWait      = 100 // ms
	walTries     = 4
)

// emptyWAL runs a TRUNCATE checkpoint on the writer's own connection: it
// waits its turn behind the writes, then for the readers of older
// snapshots, walWait at most (not the busy timeout, which is for another
// program's lock), so no write waits longer for it. It reports whether
// the WAL is empty; one that ran out of time is left as it was.
func (s *Store) emptyWAL() bool {
	var busy, frames, copied int64
	err := s.db.Connection(func(c *gorm.DB) error {
		var was int
		if err := c.Raw("PRAGMA busy_timeout").Scan(&was).Error; err != nil {
			return err
		}
		if err := c.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", walWait)).Error; err != nil {
			return err
		}
		err := c.Raw("PRAGMA wal_checkpoint(TRUNCATE)").Row().Scan(&busy, &frames, &copied)
		if rerr := c.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", was)).Error; err == nil {
			err = rerr
		}
		return err
	})
	return err == nil && busy == 0
}

// startCheckpoints moves WAL checkpoints off the request path: the writer
// no longer checkpoints when it commits (wal_autocheckpoint=0), and a
// connection of its own runs a PASSIVE checkpoint every checkpointEvery,
// which neither waits for nor blocks the writer, so its fsyncs stall no
// write; past walRestartAt the writer empties the WAL. Should the
// writer's connection ever be replaced, the new one checkpoints as SQLite
// does by default. Close stops it.
func (s *Store) startCheckpoints(ctx context.Context, dsn string) error {
	if err := s.db.WithContext(ctx).Exec("PRAGMA wal_autocheckpoint = 0").Error; err != nil {
		return err
	}
	if err := s.db.WithContext(ctx).Exec(fmt.Sprintf("PRAGMA journal_size_limit = %d", walLimit)).Error; err != nil {
		return err
	}
	db, err := sql.Open("sqlite3", withParams(dsn, append(busyTimeout(dsn), "_txlock=deferred")))
	if err != nil {
		return err
	}
	cp, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return err
	}
	var pageSize int64
	err = cp.QueryRowContext(ctx, "PRAGMA page_size").Scan(&pageSize)
	if err == nil {
		_, err = cp.ExecContext(ctx, fmt.Sprintf("PRAGMA journal_size_limit = %d", walLimit))
	}
	if err != nil {
		cp.Close()
		db.Close()
		return err
	}
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer db.Close()
		defer cp.Close()
		tick := time.NewTicker(checkpointEvery)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				// Busy or not, the next tick tries again.
				var busy, frames, copied int64
				err := cp.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &frames, &copied)
				restartAt := s.walRestartAt.Load()
				if restartAt == 0 {
					restartAt = walRestartAt
				}
				// Past the restart size, the WAL is emptied; a try that
				// finds a reader in the way is made again shortly, with
				// the writes going on in between.
				for try := 0; err == nil && frames*(pageSize+24) >= restartAt && try < walTries && !s.emptyWAL(); try++ {
					select {
					case <-stop:
						return
					case <-time.After(checkpointEvery / walTries):
					}
				}
			}
		}
	}()
	s.stopCheckpoints = func() {
		close(stop)
		<-done
	}
	return nil
}

// readConns is how many reads run at once on a SQLite file. Readers do not
// block each other in WAL mode; a few cover a server of a couple of cores.
const readConns = 4

func (s *Store) gormConfig(log *slog.Logger) *gorm.Config {
	return &gorm.Config{
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
	}
}

// openError says in words why a database could not be opened: a
// read-only database or one locked by another program is the operator's
// to fix, and the message says how.
func openError(dsn string, err error) error {
	switch unavailable(err) {
	case errReadOnlyKind:
		return fmt.Errorf("%w: %s cannot be written (%s); insectscore needs to write the SQLite file and its directory, or a PostgreSQL primary",
			ErrReadOnly, redact(dsn), driverCause(err))
	case errBusyKind, errGoneKind:
		return fmt.Errorf("%w: %s is locked by another program or refuses connections (%s); try again when it is free",
			ErrUnavailable, redact(dsn), driverCause(err))
	}
	if strings.HasPrefix(err.Error(), "models: ") {
		return err
	}
	return fmt.Errorf("models: open %s: %w", redact(dsn), err)
}

// driverCause is the database's own words for err.
func driverCause(err error) string {
	if cause, _, ok := sqliteError(err); ok {
		return cause
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// Ready reports whether the database answers and can be written: a read,
// then a write in a transaction that is rolled back. It waits at most the
// busy timeout for a write lock held elsewhere; then it is ErrUnavailable.
//
// A write that found the disk full makes Ready ErrDiskFull (the probe's
// write, rolled back, needs no room) until a write succeeds again, or
// for diskFullHold if none is tried: a replica taken out of a load
// balancer's rotation then gets a write now and then to try.
func (s *Store) Ready(ctx context.Context) error {
	if err := s.rdb.WithContext(ctx).Exec("SELECT 1").Error; err != nil {
		return translate(err)
	}
	if at := s.diskFullAt.Load(); at != 0 && s.now().Sub(time.Unix(0, at)) < diskFullHold {
		return fmt.Errorf("%w: %w: the last write found no room", ErrUnavailable, ErrDiskFull)
	}
	return s.writable(ctx)
}

// diskFullHold is how long a write that found the disk full keeps Ready
// from saying ready, unless a write succeeds before.
const diskFullHold = 30 * time.Second

// wrote translates the outcome of a write, and keeps when the last write
// found the disk full (Ready).
func (s *Store) wrote(err error) error {
	err = translate(err)
	switch {
	case err == nil:
		s.diskFullAt.Store(0)
	case errors.Is(err, ErrDiskFull):
		s.diskFullAt.Store(s.now().UnixNano())
	}
	return err
}

// errProbe rolls back writable's transaction.
var errProbe = errors.New("models: probe")

// writable begins a write transaction and writes nothing in it: an update
// of no row still needs the write lock on SQLite (BEGIN IMMEDIATE takes it)
// and a writable transaction on PostgreSQL.
func (s *Store) writable(ctx context.Context) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec("UPDATE schema_migrations SET name = name WHERE id < 0").Error; err != nil {
			return err
		}
		return errProbe
	})
	if errors.Is(err, errProbe) {
		return nil
	}
	return translate(err)
}

// Close releases the database. With SQLite it also checkpoints the WAL into
// the main file.
func (s *Store) Close() error {
	s.stopRebuilds()
	if s.stopCheckpoints != nil {
		s.stopCheckpoints()
		s.stopCheckpoints = nil
	}
	if s.rdb != s.db {
		if readDB, err := s.rdb.DB(); err == nil {
			readDB.Close()
		}
	}
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
// them to every connection it opens, including a reconnect. A path may
// carry its own _busy_timeout (milliseconds), which then replaces ours.
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
		// which busy_timeout cannot retry. Reads go through a pool of
		// their own (sqliteReadDSN) and never take it.
		"_txlock=immediate",
	}
	return withParams(dsn, append(busyTimeout(dsn), pragmas...)), nil
}

// sqliteReadDSN is the DSN of the read pool: deferred transactions, which
// in WAL mode read a snapshot without the write lock, and query_only, so
// a write sent there by mistake fails instead of taking the lock.
func sqliteReadDSN(dsn string) string {
	return withParams(dsn, append(busyTimeout(dsn), "_txlock=deferred", "_query_only=true"))
}

// busyTimeout is the busy_timeout pragma unless the DSN sets its own: wait
// up to 5 s for a lock held by another process (a backup, a CLI
// subcommand) before the request answers 503. go-sqlite3 sets it before
// any other pragma, so the others can wait too.
func busyTimeout(dsn string) []string {
	if _, query, _ := strings.Cut(dsn, "?"); strings.Contains("&"+query, "&_busy_timeout=") || strings.Contains("&"+query, "&_timeout=") {
		return nil
	}
	return []string{"_busy_timeout=5000"}
}

func withParams(dsn string, params []string) string {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + strings.Join(params, "&")
}

// sqliteMemory reports whether dsn is an in-memory database, which exists
// only on its one connection: it has no read pool.
func sqliteMemory(dsn string) bool {
	path, query, _ := strings.Cut(dsn, "?")
	return path == ":memory:" || strings.HasPrefix(path, "file::memory:") || strings.Contains("&"+query, "&mode=memory")
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
	return translate(s.rdb.WithContext(ctx).Transaction(fn, opts))
}

// translate turns GORM's and the drivers' errors into the store's own.
func translate(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrUnavailable):
		return err
	case errors.Is(err, gorm.ErrRecordNotFound):
		return ErrNotFound
	case errors.Is(err, gorm.ErrDuplicatedKey):
		return ErrConflict
	}
	switch unavailable(err) {
	case errReadOnlyKind:
		return fmt.Errorf("%w: %w: %w", ErrUnavailable, ErrReadOnly, err)
	case errFullKind:
		return fmt.Errorf("%w: %w: %w", ErrUnavailable, ErrDiskFull, err)
	case errBusyKind:
		return fmt.Errorf("%w: %w", ErrUnavailable, err)
	case errGoneKind:
		return fmt.Errorf("%w: %w: %w", ErrUnavailable, ErrUnreachable, err)
	}
	return err
}

type unavailableKind int

const (
	errOtherKind unavailableKind = iota
	errBusyKind
	errReadOnlyKind
	errFullKind
	errGoneKind
)

// unavailable sorts the driver errors that mean "not now" from the rest:
// a lock held elsewhere past the busy timeout, a read-only database, a
// full disk, a PostgreSQL that refuses connections or is shutting down,
// or a connection to it that broke (a restart ends every session: a
// statement in a transaction then fails with driver.ErrBadConn, which
// database/sql cannot retry).
func unavailable(err error) unavailableKind {
	if _, kind, ok := sqliteError(err); ok {
		return kind
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "25006": // read_only_sql_transaction: a standby
			return errReadOnlyKind
		case pe.Code == "53100": // disk_full
			return errFullKind
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03", // shutting down, starting up
			strings.HasPrefix(pe.Code, "08"): // connection exception
			return errGoneKind
		case pe.Code == "55P03", // lock_not_available
			strings.HasPrefix(pe.Code, "53"): // insufficient resources: too many connections, disk full
			return errBusyKind
		}
		return errOtherKind
	}
	var (
		ce *pgconn.ConnectError
		oe *net.OpError
	)
	if errors.As(err, &ce) || errors.Is(err, driver.ErrBadConn) || errors.Is(err, pgconn.ErrConnClosed) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &oe) {
		return errGoneKind
	}
	return errOtherKind
}

package models

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"insectscore/models/pgtest"
	"insectscore/models/sqlitetest"
)

// TestLockedDatabase: while another connection holds SQLite's write lock,
// reads answer at once, and writes and Ready give up after the busy timeout
// with ErrUnavailable, not a driver error. Once the lock is gone, writes
// work again.
func TestLockedDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locked.db")
	const busy = 500 * time.Millisecond
	s := openStore(t, path+"?_busy_timeout=500")
	tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insectarium", Names: []string{"Ana", "Ben"}})
	if err != nil {
		t.Fatal(err)
	}
	logPlay(t, s, DefaultGroup, handHistory[0])
	putBoard := func() error {
		_, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: json.RawMessage(`{}`)}, nil)
		return err
	}
	release := sqlitetest.HoldWriteLock(t, path)

	reads := map[string]func() error{
		"FindTableByCode": func() error { _, err := s.FindTableByCode(ctx, tbl.Code); return err },
		"Authorize":       func() error { _, err := s.Authorize(ctx, tbl.Code, "nobody"); return err },
		"FindGroup":       func() error { _, err := s.FindGroup(ctx, DefaultGroup); return err },
		"ListPlays":       func() error { _, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup}); return err },
		"Leaderboard":     func() error { _, err := s.Leaderboard(ctx, DefaultGroup, "insecta"); return err },
		"ExportGroup":     func() error { _, err := s.ExportGroup(ctx, DefaultGroup); return err },
	}
	for name, read := range reads {
		t.Run("read "+name, func(t *testing.T) {
			began := time.Now()
			if err := read(); err != nil {
				t.Fatalf("err = %v", err)
			}
			if took := time.Since(began); took > busy/2 {
				t.Errorf("took %v: the read waited for the write lock", took)
			}
		})
	}
	writes := map[string]func() error{
		"PutBoard":    putBoard,
		"CreateGroup": func() error { _, err := s.CreateGroup(ctx, "Club"); return err },
		"LogPlay": func() error {
			lp, res := handHistory[1].logged()
			_, err := s.LogPlay(ctx, DefaultGroup, lp, res)
			return err
		},
		"Ready": func() error { return s.Ready(ctx) },
	}
	for name, write := range writes {
		t.Run("write "+name, func(t *testing.T) {
			began := time.Now()
			err := write()
			took := time.Since(began)
			if !errors.Is(err, ErrUnavailable) || errors.Is(err, ErrReadOnly) {
				t.Fatalf("err = %v, want ErrUnavailable (locked, not read-only)", err)
			}
			if took < busy*8/10 || took > 10*busy {
				t.Errorf("gave up after %v, want about the busy timeout of %v", took, busy)
			}
		})
	}
	release()
	if err := s.Ready(ctx); err != nil {
		t.Errorf("Ready after the lock went: %v", err)
	}
	if err := putBoard(); err != nil {
		t.Errorf("PutBoard after the lock went: %v", err)
	}
}

// TestReadOnlyDatabase: a database that cannot be written is refused at
// Open with a message saying so. The tests run as root, whom file modes do
// not stop, so SQLite is opened read-only by its URI; PostgreSQL by
// making every transaction read-only, as on a standby.
func TestReadOnlyDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro.db")
	openStore(t, path).Close()
	dsns := map[string]string{"sqlite": "file:" + path + "?mode=ro"}
	if os.Getuid() != 0 {
		dir := filepath.Join(t.TempDir(), "ro")
		openStore(t, filepath.Join(dir, "x.db")).Close()
		os.Chmod(filepath.Join(dir, "x.db"), 0o444)
		os.Chmod(dir, 0o555)
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		dsns["sqlite file mode"] = filepath.Join(dir, "x.db")
	}
	if base := os.Getenv("INSECTSCORE_TEST_POSTGRES"); base != "" {
		dsn := pgtest.Schema(t, base)
		openStore(t, dsn).Close()
		dsns["postgres"] = withPGOption(t, dsn, "-c default_transaction_read_only=on")
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			s, err := Open(context.Background(), dsn, nil)
			if err == nil {
				s.Close()
				t.Fatal("Open = nil error, want the database refused")
			}
			if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), "cannot be written") {
				t.Errorf("Open: err = %v, want ErrReadOnly saying it cannot be written", err)
			}
		})
	}
}

// TestPostgresLockTimeout: on PostgreSQL a lock_timeout is the busy
// timeout; a write that waits past it for a row another session holds is
// ErrUnavailable.
func TestPostgresLockTimeout(t *testing.T) {
	base := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if base == "" {
		t.Skip("INSECTSCORE_TEST_POSTGRES is not set")
	}
	dsn := pgtest.Schema(t, base)
	holder := openStore(t, dsn)
	s := openStore(t, withPGOption(t, dsn, "-c lock_timeout=300"))
	tx := holder.db.Begin()
	defer tx.Rollback()
	if err := lockGroup(tx, DefaultGroup); err != nil {
		t.Fatal(err)
	}
	lp, res := handHistory[0].logged()
	if _, err := s.LogPlay(ctx, DefaultGroup, lp, res); !errors.Is(err, ErrUnavailable) {
		t.Errorf("LogPlay while the group is locked: err = %v, want ErrUnavailable", err)
	}
	if _, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup}); err != nil {
		t.Errorf("ListPlays while the group is locked: %v", err)
	}
}

func withPGOption(t *testing.T, dsn, option string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("options", strings.TrimSpace(q.Get("options")+" "+option))
	u.RawQuery = q.Encode()
	return u.String()
}

// TestUnreachableErrors: what a PostgreSQL restart does to the store's
// connections (a session ended by the server, a statement on a connection
// that broke inside a transaction, a server that is starting or refuses
// connections) is ErrUnavailable and ErrUnreachable, which the API answers
// 503 with Retry-After; before, driver.ErrBadConn was a 500. A lock not
// available is ErrUnavailable but not unreachable, and other errors stay
// as they are.
func TestUnreachableErrors(t *testing.T) {
	tests := []struct {
		name                     string
		err                      error
		unavailable, unreachable bool
	}{
		{"session ended", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, true, true},
		{"starting up", &pgconn.PgError{Code: "57P03", Message: "the database system is starting up"}, true, true},
		{"connection exception", &pgconn.PgError{Code: "08006"}, true, true},
		{"broken in a transaction", fmt.Errorf("commit: %w", driver.ErrBadConn), true, true},
		{"connection closed", pgconn.ErrConnClosed, true, true},
		{"refused", &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true, true},
		{"cut off", fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true, true},
		{"lock not available", &pgconn.PgError{Code: "55P03"}, true, false},
		{"a constraint", &pgconn.PgError{Code: "23503"}, false, false},
		{"other", errors.New("something else"), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := translate(tt.err)
			if got := errors.Is(err, ErrUnavailable); got != tt.unavailable {
				t.Errorf("ErrUnavailable = %v, want %v (%v)", got, tt.unavailable, err)
			}
			if got := errors.Is(err, ErrUnreachable); got != tt.unreachable {
				t.Errorf("ErrUnreachable = %v, want %v (%v)", got, tt.unreachable, err)
			}
		})
	}
}

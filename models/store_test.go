package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"insectscore/models/pgtest"
)

// The store tests run on a SQLite file in a temporary directory and, when
// INSECTSCORE_TEST_POSTGRES holds a DSN, on PostgreSQL too, each test in a
// schema of its own that is dropped afterwards:
//
//	INSECTSCORE_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' go test ./models/

// backend makes fresh, empty databases of one kind.
type backend struct {
	name string
	dsn  func(t testing.TB) string
}

func backends() []backend {
	bs := []backend{{"sqlite", func(t testing.TB) string {
		return filepath.Join(t.TempDir(), "insectscore.db")
	}}}
	if base := os.Getenv("INSECTSCORE_TEST_POSTGRES"); base != "" {
		bs = append(bs, backend{"postgres", func(t testing.TB) string { return pgtest.Schema(t, base) }})
	}
	return bs
}

// eachBackend runs fn once per backend with the DSN of an empty database.
func eachBackend(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Helper()
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { fn(t, b.dsn(t)) })
	}
}

// eachStore runs fn once per backend with a store on an empty database.
func eachStore(t *testing.T, fn func(t *testing.T, s *Store)) {
	t.Helper()
	eachBackend(t, func(t *testing.T, dsn string) { fn(t, openStore(t, dsn)) })
}

func testLogger(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelWarn}))
}

func openStore(t testing.TB, dsn string) *Store {
	t.Helper()
	return openList(t, dsn, migrations)
}

func openList(t testing.TB, dsn string, list []migration) *Store {
	t.Helper()
	s, err := open(context.Background(), dsn, testLogger(t), list)
	if err != nil {
		t.Fatalf("open %s: %v", redact(dsn), err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestOpenCreatesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "new", "dir", "insectscore.db")
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("before Open: stat = %v, want not exist", err)
	}
	s := openStore(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("after Open: %v", err)
	}
	v, err := schemaVersion(s.db)
	if got, want := v, len(migrations); err != nil || got != want {
		t.Errorf("schema version = %d, %v; want %d", got, err, want)
	}
}

func TestSQLitePragmas(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "p.db"))
	tests := []struct {
		pragma string
		want   string
	}{
		{"journal_mode", "wal"},
		{"busy_timeout", "5000"},
		{"foreign_keys", "1"},
		{"synchronous", "1"}, // NORMAL
	}
	for _, tt := range tests {
		t.Run(tt.pragma, func(t *testing.T) {
			var got string
			if err := s.db.Raw("PRAGMA " + tt.pragma).Scan(&got).Error; err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("PRAGMA %s = %q, want %q", tt.pragma, got, tt.want)
			}
		})
	}
	sqlDB, _ := s.db.DB()
	if got, want := sqlDB.Stats().MaxOpenConnections, 1; got != want {
		t.Errorf("MaxOpenConnections = %d, want %d", got, want)
	}
}

// TestSQLiteImmediateTransactions shows two things another process sees:
// a transaction holds the write lock from BEGIN, even before it writes
// (_txlock=immediate), and a writer waits for it rather than failing with
// SQLITE_BUSY (busy_timeout). In WAL mode a deferred transaction that has
// only read would not block the writer at all.
func TestSQLiteImmediateTransactions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i.db")
	a := openStore(t, path)
	b := openStore(t, path) // another process on the same file
	tbl, host, err := a.CreateTable(context.Background(), NewTable{Game: "insecta", Names: []string{"Ana"}})
	if err != nil {
		t.Fatal(err)
	}
	tx := a.db.Begin()
	var n int64
	if err := tx.Table("tables").Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := b.PutBoard(context.Background(), BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: json.RawMessage(`{}`)}, nil)
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("the writer did not wait for a reading transaction (err %v)", err)
	case <-time.After(200 * time.Millisecond):
	}
	if err := tx.Commit().Error; err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Errorf("the waiting writer failed: %v", err)
	}
}

func TestSQLiteDSN(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, in, wantPrefix string
	}{
		{"path", filepath.Join(dir, "a.db"), filepath.Join(dir, "a.db") + "?_busy_timeout=5000&"},
		{"memory", ":memory:", ":memory:?_busy_timeout=5000&"},
		{"own parameters", filepath.Join(dir, "b.db") + "?_cache_size=-2000", filepath.Join(dir, "b.db") + "?_cache_size=-2000&_busy_timeout=5000&"},
		{"own busy timeout", filepath.Join(dir, "c.db") + "?_busy_timeout=100", filepath.Join(dir, "c.db") + "?_busy_timeout=100&_journal_mode=WAL&"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := sqliteDSN(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < len(tt.wantPrefix) || got[:len(tt.wantPrefix)] != tt.wantPrefix {
				t.Errorf("sqliteDSN(%q) = %q, want prefix %q", tt.in, got, tt.wantPrefix)
			}
		})
	}
	if _, err := sqliteDSN(""); err == nil {
		t.Error("sqliteDSN(\"\") = nil error, want one")
	}
}

func TestMemoryDatabase(t *testing.T) {
	s := openStore(t, ":memory:")
	tbl, _, err := s.CreateTable(context.Background(), NewTable{Game: "insecta", Names: []string{"Ana"}})
	if err != nil {
		t.Fatal(err)
	}
	// A second statement on the pool must see the same in-memory database.
	got, err := s.FindTableByCode(context.Background(), tbl.Code)
	if err != nil {
		t.Fatal(err)
	}
	if got.Code != tbl.Code {
		t.Errorf("code = %q, want %q", got.Code, tbl.Code)
	}
}

// TestLogging checks what reaches the log: an expected conflict is not an
// error worth logging, and a failing statement is logged without its
// values, which may be token hashes, names or boards.
func TestLogging(t *testing.T) {
	var buf bytes.Buffer
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "l.db"), slog.New(slog.NewTextHandler(&buf, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	buf.Reset()
	// Two groups drawn with one id collide in the groups' primary key: a
	// failing statement the store expects.
	s.Rand = bytes.NewReader(bytes.Repeat([]byte{7}, 2*groupIDBytes))
	if _, err := s.CreateGroup(context.Background(), "One"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateGroup(context.Background(), "Two"); !errors.Is(err, ErrConflict) {
		t.Fatalf("CreateGroup = %v, want ErrConflict", err)
	}
	if buf.Len() != 0 {
		t.Errorf("a conflict was logged: %s", buf.String())
	}
	const secret = "secret-value-1234"
	s.db.Exec("INSERT INTO seats (table_id, seat, name, name_key, claimed, updated_at) VALUES (?, 0, ?, 'x', FALSE, ?)", 999999, secret, time.Now())
	if !strings.Contains(buf.String(), "level=ERROR") || !strings.Contains(buf.String(), "INSERT INTO seats") {
		t.Errorf("a failed statement was not logged: %q", buf.String())
	}
	if strings.Contains(buf.String(), secret) {
		t.Errorf("the log holds a statement's value: %s", buf.String())
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://u:secret@db:5432/x", "postgres://u:xxxxx@db:5432/x"},
		{"postgresql://u@db/x", "postgresql://u@db/x"},
		{"./insectscore.db", "./insectscore.db"},
	}
	for _, tt := range tests {
		if got := redact(tt.in); got != tt.want {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestReopen is a restart: everything written survives closing and
// opening the same database.
func TestReopen(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		s := openStore(t, dsn)
		created, host, err := s.CreateTable(ctx, NewTable{Game: "insektenhotel", Names: []string{"Ana", "Ben"}, Boards: hotelBoards})
		if err != nil {
			t.Fatal(err)
		}
		drawAll(t, s, created.Code, host, hotelDraws...)
		open, openHost, err := s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Dan"}, Variants: map[string]int{"oneFragment": 1}})
		if err != nil {
			t.Fatal(err)
		}
		joined, _, err := s.JoinTable(ctx, open.Code, "Cleo", nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: open.Code, Token: joined.Token, Seat: 1, Board: json.RawMessage(`{"supply":2}`)}, nil); err != nil {
			t.Fatal(err)
		}
		finished, _, err := s.Finish(ctx, created.Code, host, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantFinished, _ := s.FindTableByCode(ctx, created.Code)
		wantOpen, _ := s.FindTableByCode(ctx, open.Code)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}

		s = openStore(t, dsn)
		gotFinished, err := s.FindTableByCode(ctx, created.Code)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotFinished, wantFinished) {
			t.Errorf("finished table after reopen:\n got %+v\nwant %+v", gotFinished, wantFinished)
		}
		if gotFinished.PlayID != finished.PlayID || gotFinished.Status != StatusFinished {
			t.Errorf("after reopen: play %q status %q, want %q finished", gotFinished.PlayID, gotFinished.Status, finished.PlayID)
		}
		gotOpen, err := s.FindTableByCode(ctx, open.Code)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotOpen, wantOpen) {
			t.Errorf("open table after reopen:\n got %+v\nwant %+v", gotOpen, wantOpen)
		}
		st, err := s.ReadTable(ctx, created.Code)
		if err != nil || len(st.Moves) != len(hotelDraws) {
			t.Errorf("moves after reopen = %+v, %v; want %d", st.Moves, err, len(hotelDraws))
		}
		for _, c := range []struct {
			code, token string
			want        Role
		}{
			{created.Code, host, Role{Host: true, Seat: -1}},
			{open.Code, openHost, Role{Host: true, Seat: -1}},
			{open.Code, joined.Token, Role{Seat: 1}},
		} {
			if got, err := s.Authorize(ctx, c.code, c.token); err != nil || got != c.want {
				t.Errorf("Authorize after reopen = %+v, %v; want %+v", got, err, c.want)
			}
		}
	})
}

// TestForeignKeys shows the schema's references are enforced, which on
// SQLite depends on the foreign_keys pragma.
func TestForeignKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		tbl, host := hotelTable(t, s)
		drawAll(t, s, tbl.Code, host, hotelDraws...)
		if _, _, err := s.Finish(ctx, tbl.Code, host, false, nil); err != nil {
			t.Fatal(err)
		}
		quiet := s.db.Session(&gorm.Session{Logger: logger.Discard})
		err := quiet.Exec("INSERT INTO seats (table_id, seat, name, name_key, claimed, updated_at) VALUES (?, 0, 'x', 'x', FALSE, ?)", 999999, time.Now()).Error
		if !errors.Is(err, gorm.ErrForeignKeyViolated) {
			t.Errorf("seat of a missing table: err = %v, want a foreign key violation", err)
		}
		if err := s.db.Exec("DELETE FROM tables WHERE code = ?", tbl.Code).Error; err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"seats", "moves"} {
			var n int64
			s.db.Table(table).Count(&n)
			if n != 0 {
				t.Errorf("%s left after deleting their table: %d, want 0 (ON DELETE CASCADE)", table, n)
			}
		}
		var plays []playRow
		s.db.Find(&plays)
		if len(plays) != 1 || plays[0].TableID != nil {
			t.Errorf("plays after deleting the table = %+v, want one with no table (ON DELETE SET NULL)", plays)
		}
	})
}

// TestPostgresKeepsItsConnections: a burst of concurrent requests opens
// connections, and the pool keeps them for the next burst instead of
// closing all but two (database/sql's default), which made every burst
// start new PostgreSQL backends that prepared their statements again.
func TestPostgresKeepsItsConnections(t *testing.T) {
	base := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if base == "" {
		t.Skip("INSECTSCORE_TEST_POSTGRES is not set; CI sets it")
	}
	s := openStore(t, pgtest.Schema(t, base))
	ctx := context.Background()
	burst := func() {
		var wg sync.WaitGroup
		for range 12 {
			wg.Go(func() {
				// Held a while, so that the burst needs 12 at once.
				if err := s.db.WithContext(ctx).Exec("SELECT pg_sleep(0.05)").Error; err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
	}
	burst()
	burst()
	st := s.PoolStats()["write"]
	if st.MaxIdleClosed != 0 || st.OpenConnections < 12 {
		t.Errorf("after two bursts of 12: %d connections open, %d closed as idle beyond the limit; want ≥ 12 kept, 0 closed",
			st.OpenConnections, st.MaxIdleClosed)
	}
}

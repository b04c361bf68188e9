package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"insectscore/models"
	"insectscore/models/pgtest"
	"insectscore/scoring"
)

// testServer is the real server run by a test: serve on a free port.
type testServer struct {
	base string
	done chan error
	log  *syncBuffer
}

// startServer runs insectscore serve with args on a free port of
// 127.0.0.1 and waits until it answers.
func startServer(t *testing.T, args ...string) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := &testServer{base: "http://" + addr, done: make(chan error, 1), log: &syncBuffer{}}
	args = append([]string{"serve", "-addr", addr}, args...)
	go func() {
		s.done <- run(args, func(string) string { return "" }, io.Discard, s.log)
	}()
	waitHealthy(t, s.base, s.done)
	return s
}

// stop sends the process SIGTERM, as an init system would, and returns
// what serve returned.
func (s *testServer) stop(t *testing.T, within time.Duration) error {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.done:
		return err
	case <-time.After(within):
		t.Fatalf("the server did not stop within %s of SIGTERM; its log:\n%s", within, s.log)
		return nil
	}
}

// logPlay logs a finished Insektenhotel play through the API and returns
// its id once the server has acknowledged it.
func logPlay(base string, i int) (string, error) {
	body := fmt.Sprintf(`{"game":"insektenhotel","finishedAt":"2026-03-01T20:%02d:%02dZ","players":[
		{"name":"Ana","board":{"hotel":"blue","floors":[{"species":"bee","guests":2},{"species":"ant","guests":2},{"species":"fly","guests":2}]}},
		{"name":"Ben","board":{"hotel":"red","floors":[{"species":"bee","guests":1},{"species":"ladybird","guests":2},{"species":"earwig","guests":0}]}}]}`, i/60, i%60)
	resp, err := http.Post(base+"/api/v1/plays", "application/json", strings.NewReader(body))
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("POST /api/v1/plays: %d %s", resp.StatusCode, b)
	}
	var play struct{ ID string }
	if err := json.Unmarshal(b, &play); err != nil || play.ID == "" {
		return "", fmt.Errorf("POST /api/v1/plays answered %s", b)
	}
	return play.ID, nil
}

// playIDs opens a SQLite file as it is (no migrations) and reads its
// plays' ids and how many player rows they have.
func playIDs(t *testing.T, path string) (ids map[string]bool, playerRows int, err error) {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT id FROM plays")
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	ids = map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, 0, err
		}
		ids[id] = true
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM play_players").Scan(&playerRows); err != nil {
		return nil, 0, err
	}
	return ids, playerRows, rows.Err()
}

func schemaVersionOf(t *testing.T, path string) int {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v int
	if err := db.QueryRow("SELECT MAX(id) FROM schema_migrations").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func integrityCheck(t *testing.T, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
		return err.Error()
	}
	return res
}

// TestBackupWhileServing backs up the database of a running server that
// keeps recording plays: the copy holds every play acknowledged before the
// backup began, although they are still in the WAL, where a copy of the
// database file alone misses them, and it is a consistent snapshot.
func TestBackupWhileServing(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "live.db")
	srv := startServer(t, "-db", db, "-log-level", "error")

	var mu sync.Mutex
	var acked []string
	for i := range 20 {
		id, err := logPlay(srv.base, i)
		if err != nil {
			t.Fatal(err)
		}
		acked = append(acked, id)
	}

	// The server keeps its connection open, so nothing checkpoints the WAL
	// (below 1000 pages): the plays are in live.db-wal, not in live.db.
	plain := filepath.Join(dir, "plain-copy.db")
	data, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plain, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if ids, _, _ := playIDs(t, plain); len(ids) >= len(acked) {
		t.Fatalf("a copy of the file alone has all %d plays: the test shows nothing about the WAL", len(ids))
	}

	// Keep recording plays before, during and after the backup, one every
	// 100 ms: a play is logged in a few milliseconds, and a writer going
	// flat out would reach the server's limit of 60 new plays a minute.
	stop, written := make(chan struct{}), make(chan struct{}, 100)
	writerDone := make(chan error, 1)
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 20; ; i++ {
			select {
			case <-stop:
				writerDone <- nil
				return
			case <-tick.C:
			}
			id, err := logPlay(srv.base, i)
			if err != nil {
				writerDone <- err
				return
			}
			mu.Lock()
			acked = append(acked, id)
			mu.Unlock()
			written <- struct{}{}
		}
	}()
	for range 3 {
		<-written
	}
	mu.Lock()
	before := append([]string(nil), acked...)
	mu.Unlock()
	out := filepath.Join(dir, "backups", "nightly.db")
	if err := os.Mkdir(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, err := runCmd(t, "backup", "-db", db, out)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		<-written
	}
	close(stop)
	if err := <-writerDone; err != nil {
		t.Fatalf("recording plays during the backup: %v", err)
	}

	if got := integrityCheck(t, out); got != "ok" {
		t.Errorf("integrity_check of the backup: %s", got)
	}
	ids, playerRows, err := playIDs(t, out)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range before {
		if !ids[id] {
			t.Errorf("play %s, acknowledged before the backup began, is not in the backup", id)
		}
	}
	all := map[string]bool{}
	for _, id := range acked {
		all[id] = true
	}
	for id := range ids {
		if !all[id] {
			t.Errorf("the backup has play %s, which the server never acknowledged", id)
		}
	}
	if playerRows != 2*len(ids) {
		t.Errorf("the backup has %d plays and %d player rows, want 2 per play: not one snapshot", len(ids), playerRows)
	}
	if len(ids) >= len(acked) {
		t.Logf("the backup has all %d plays: the writes after it were quick", len(ids))
	}
	want := fmt.Sprintf("backed up %s to %s in ", db, out)
	if !strings.HasPrefix(stdout, want) || !strings.Contains(stdout, fmt.Sprintf("schema version %d, 1 group, %d plays; integrity check ok", schemaVersionOf(t, db), len(ids))) {
		t.Errorf("backup says %q", stdout)
	}
	if st, err := os.Stat(out); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the backup is %v (%v): it holds every group's invite, so it is the owner's only", st.Mode().Perm(), err)
	}
	if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 1 {
		t.Errorf("the backup directory holds %d files, want the backup alone", len(entries))
	}

	// The same file again: refused, and left as it was, unless -force.
	if _, err := runCmd(t, "backup", "-db", db, out); err == nil || !strings.Contains(err.Error(), out+" exists: name another file, or add -force") {
		t.Errorf("a second backup to the same file: %v, want a refusal naming -force", err)
	}
	if again, _, err := playIDs(t, out); err != nil || len(again) != len(ids) {
		t.Errorf("the refused backup changed the file: %d plays (%v), want %d", len(again), err, len(ids))
	}
	if _, err := runCmd(t, "backup", "-force", "-db", db, out); err != nil {
		t.Fatalf("backup -force: %v", err)
	}
	if again, _, err := playIDs(t, out); err != nil || len(again) != len(acked) {
		t.Errorf("after backup -force the file has %d plays (%v), want all %d", len(again), err, len(acked))
	}

	if err := srv.stop(t, 8*time.Second); err != nil {
		t.Errorf("serve returned %v after SIGTERM", err)
	}
}

func TestBackupRefusals(t *testing.T) {
	path, _ := history(t)
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"PostgreSQL", []string{"backup", "-db", "postgres://scores:secret@db.internal/scores", filepath.Join(dir, "x.db")},
			"backup copies a SQLite database, and postgres://scores:xxxxx@db.internal/scores is PostgreSQL: use pg_dump"},
		{"onto the database", []string{"backup", "-force", "-db", path, path}, "is the database itself"},
		{"no database", []string{"backup", "-db", filepath.Join(dir, "none.db"), filepath.Join(dir, "x.db")}, "there is no database at"},
		{"no file", []string{"backup", "-db", path}, "takes 1 argument"},
		{"a directory that is not there", []string{"backup", "-db", path, filepath.Join(dir, "nodir", "x.db")}, "create the backup file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCmd(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("failed backups left %d files behind", len(entries))
	}
}

// TestGroupsCommand lists the groups of a database on each back end.
func TestGroupsCommand(t *testing.T) {
	backends := map[string]func(t *testing.T) string{
		"sqlite": func(t *testing.T) string { return filepath.Join(t.TempDir(), "groups.db") },
		"postgres": func(t *testing.T) string {
			base := os.Getenv("INSECTSCORE_TEST_POSTGRES")
			if base == "" {
				t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
			}
			return pgtest.Schema(t, base)
		},
	}
	for name, dsn := range backends {
		t.Run(name, func(t *testing.T) {
			dsn := dsn(t)
			ctx := context.Background()
			store, err := models.Open(ctx, dsn, nil)
			if err != nil {
				t.Fatal(err)
			}
			// Made after the default group, one after the other.
			store.Now = tickingClock()
			friday, err := store.CreateGroup(ctx, "Friday club")
			if err != nil {
				t.Fatal(err)
			}
			zoe, err := store.CreateGroup(ctx, "Zoë's Käfer")
			if err != nil {
				t.Fatal(err)
			}
			for group, n := range map[string]int{friday.ID: 2, models.DefaultGroup: 1} {
				for range n {
					logHotelPlay(t, store, group)
				}
			}
			store.Close()

			out, err := runCmd(t, "groups", "-db", dsn)
			if err != nil {
				t.Fatal(err)
			}
			w := len(friday.ID)
			want := fmt.Sprintf("%-*s  NAME         PLAYS\n", w, "ID") +
				fmt.Sprintf("%-*s  Our group        1\n", w, "default") +
				fmt.Sprintf("%-*s  Friday club      2\n", w, friday.ID) +
				fmt.Sprintf("%-*s  Zoë's Käfer      0\n", w, zoe.ID)
			if out != want {
				t.Errorf("groups printed\n%s\nwant\n%s", out, want)
			}
		})
	}
	if _, err := runCmd(t, "groups", "-db", filepath.Join(t.TempDir(), "typo.db")); err == nil || !strings.Contains(err.Error(), "there is no database at") {
		t.Errorf("groups on a file that is not there: %v, want a refusal", err)
	}
}

// logHotelPlay records a finished Insektenhotel play of Ana and Ben.
func logHotelPlay(t *testing.T, store *models.Store, group string) {
	t.Helper()
	board := func(hotel string, guests int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"hotel":%q,"floors":[{"species":"bee","guests":2},{"species":"ant","guests":2},{"species":"fly","guests":%d}]}`, hotel, guests))
	}
	players := []scoring.PlayerInput{{Name: "Ana", Board: board("blue", 2)}, {Name: "Ben", Board: board("red", 1)}}
	game, _ := scoring.Lookup("insektenhotel")
	res, err := scoring.Score(game, scoring.Request{Players: players})
	if err != nil {
		t.Fatal(err)
	}
	lp := models.LoggedPlay{Game: "insektenhotel", FinishedAt: time.Date(2026, 3, 1, 21, 0, 0, 0, time.UTC),
		Players: []models.LoggedPlayer{{Name: "Ana", Board: players[0].Board}, {Name: "Ben", Board: players[1].Board}}}
	if _, err := store.LogPlay(context.Background(), group, lp, res); err != nil {
		t.Fatal(err)
	}
}

// TestGroupsCommandQuotes: a name that would reorder or hide the list in a
// terminal, here with a right-to-left override, is shown quoted, its
// escapes in plain sight, in a column as wide as the quoted name.
func TestGroupsCommandQuotes(t *testing.T) {
	db := filepath.Join(t.TempDir(), "groups.db")
	ctx := context.Background()
	store, err := models.Open(ctx, db, nil)
	if err != nil {
		t.Fatal(err)
	}
	store.Now = tickingClock()
	g, err := store.CreateGroup(ctx, "\u202Ebulc yadirF")
	if err != nil {
		t.Fatal(err)
	}
	store.Close()

	out, err := runCmd(t, "groups", "-db", db)
	if err != nil {
		t.Fatal(err)
	}
	w := len(g.ID)
	want := fmt.Sprintf("%-*s  NAME                 PLAYS\n", w, "ID") +
		fmt.Sprintf("%-*s  Our group                0\n", w, "default") +
		fmt.Sprintf("%-*s  \"\\u202ebulc yadirF\"      0\n", w, g.ID)
	if out != want {
		t.Errorf("groups printed\n%s\nwant\n%s", out, want)
	}
}

func TestPrintable(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"letters", "Zoë's Käfer", "Zoë's Käfer"},
		{"right-to-left letters", "نادي الجمعة", "نادي الجمعة"},
		{"a combining mark", "Zoe\u0308", "Zoe\u0308"},
		{"a no-break space", "Friday\u00a0club", "Friday\u00a0club"},
		{"an escape", "red\x1b[31m", `"red\x1b[31m"`},
		{"a new line", "two\nlines", `"two\nlines"`},
		{"a tab", "tab\there", `"tab\there"`},
		{"a line separator", "two\u2028lines", `"two\u2028lines"`},
		{"a right-to-left override", "\u202Ebulc yadirF", `"\u202ebulc yadirF"`},
		{"an isolate", "a\u2067b\u2069c", `"a\u2067b\u2069c"`},
		{"a left-to-right mark", "club\u200e", `"club\u200e"`},
		{"an Arabic letter mark", "club\u061c", `"club\u061c"`},
		{"a zero-width space", "Fri\u200bday", `"Fri\u200bday"`},
		{"a byte order mark", "\ufeffclub", `"\ufeffclub"`},
		{"invalid UTF-8", "club\xff", `"club\xff"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := printable(tt.in); got != tt.want {
				t.Errorf("printable(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

// tickingClock is a clock an hour ahead that moves a minute each time it
// is read, so that groups made one after the other sort in that order. The
// store's rebuild worker reads it too.
func tickingClock() func() time.Time {
	var mu sync.Mutex
	at := time.Now().Add(time.Hour)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		at = at.Add(time.Minute)
		return at
	}
}

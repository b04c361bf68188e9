package pwa_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"insectscore/models/sqlitetest"
)

// TestBrowserOutboxWaitsOutABusyDatabase: while another program holds
// the SQLite file's write lock (a backup, sqlite3), a seat's board write
// is answered 503 with Retry-After, as a replica's is while PostgreSQL
// restarts. The phone keeps the edit, says what happened instead of
// "Something went wrong", and its outbox tries again after the
// Retry-After: once the lock goes, the edit lands by itself and the host
// sees it.
func TestBrowserOutboxWaitsOutABusyDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	srv := serveApp(t, path+"?_busy_timeout=300", "127.0.0.1:0")
	host, phone := twoPhones(t, srv.base)
	code := host.startTable("insectarium", "Ana", "Ben")
	phone.joinAs(code, 1)

	release := sqlitetest.HoldWriteLock(t, path)
	phone.step("/players/1/board/supply", 2)
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	// The server answered, busy: the phone says so.
	waitForUpTo(t, 10*time.Second, "the phone to tell why the edit waits", func() bool {
		return strings.Contains(phone.textNow(`[data-testid=save-state]`), "the server says the database is busy")
	})
	said := phone.textNow(`[data-testid=save-state]`)
	if strings.Contains(said, "Something went wrong") {
		t.Errorf("while the database is busy the phone says %q", said)
	}
	time.Sleep(2 * time.Second) // a few tries, each refused
	if got := seatBoard(t, srv.base, code, 1)["supply"]; got != nil {
		t.Fatalf("Ben's supply is %v while the database is locked", got)
	}
	release()
	freed := time.Now()
	waitForUpTo(t, 20*time.Second, "Ben's edit to reach the server once the lock is gone", func() bool {
		return seatBoard(t, srv.base, code, 1)["supply"] == 2.0
	})
	t.Logf("while locked the phone said %q; saved %s after the lock went", said, time.Since(freed).Round(100*time.Millisecond))
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	host.waitTextNow(`[data-testid=seat-total-1]`, "1")
	phone.checkConsole()
	host.checkConsole()
}

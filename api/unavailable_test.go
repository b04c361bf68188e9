package api

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/models/sqlitetest"
)

// TestLockedDatabaseAPI: while another program holds SQLite's write lock
// (sqlite3, a one-shot command, a backup), reads answer at once, writes
// answer 503 with Retry-After once the busy timeout has passed, /readyz
// says 503 and /healthz stays 200. When the lock goes, all is well again.
func TestLockedDatabaseAPI(t *testing.T) {
	path := filepath.Join(t.TempDir(), "insectscore.db")
	const busy = 500 * time.Millisecond
	store, err := models.Open(context.Background(), path+"?_busy_timeout=500", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	app, _ := newTestAppWith(t, Config{Store: store})
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	full, part := hotelJSON("blue", "bee:2", "ant:2", "fly:2"), hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")
	logTestPlay(t, app, "default", playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", full}, seat{"Ben", part}))
	mustReady(t, app, 200)

	release := sqlitetest.HoldWriteLock(t, path)

	reads := []scenario{
		{name: "a table", method: "GET", path: "/api/v1/tables/" + tbl.Code, status: 200},
		{name: "the plays", method: "GET", path: "/api/v1/plays", status: 200},
		{name: "a leaderboard", method: "GET", path: "/api/v1/leaderboards/insektenhotel", status: 200},
		{name: "the group", method: "GET", path: "/api/v1/groups/default", status: 200},
		{name: "liveness", method: "GET", path: "/healthz", status: 200},
	}
	for _, sc := range reads {
		began := time.Now()
		runScenarios(t, app, []scenario{sc})
		if took := time.Since(began); took > busy/2 {
			t.Errorf("%s took %v while the database was locked: reads must not wait for the write lock", sc.name, took)
		}
	}
	unavailable := func(t *testing.T, r response) {
		p := decodeJSON[problem](t, r)
		if p.Type != "/api/problems/unavailable" || r.header.Get("Retry-After") == "" {
			t.Errorf("type %q, Retry-After %q; want the unavailable problem with Retry-After", p.Type, r.header.Get("Retry-After"))
		}
	}
	writes := []scenario{
		{name: "a board", method: "PUT", path: boardPath(tbl.Code, 0), body: full, header: bearer(tbl.HostToken), status: 503, check: unavailable},
		{name: "a logged play", method: "POST", path: "/api/v1/plays", status: 503, check: unavailable,
			body: playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", full}, seat{"Ben", part})},
		{name: "a group", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, status: 503, check: unavailable},
		{name: "a write with an Idempotency-Key", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`,
			header: map[string]string{"Idempotency-Key": "k1"}, status: 503, check: unavailable},
	}
	for _, sc := range writes {
		began := time.Now()
		runScenarios(t, app, []scenario{sc})
		if took := time.Since(began); took < busy*8/10 {
			t.Errorf("%s gave up after %v, before the busy timeout of %v", sc.name, took, busy)
		}
	}
	r := mustReady(t, app, 503)
	unavailable(t, r)

	release()
	mustReady(t, app, 200)
	mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Club"}`, map[string]string{"Idempotency-Key": "k1"}, 201)
}

// TestReady: /readyz is 200 on both databases once they answer and take
// writes, and answers JSON the OpenAPI document describes.
func TestReady(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newTestAppWith(t, Config{Store: store})
		r := mustReady(t, app, 200)
		checkJSON(t, r.body, map[string]any{"": map[string]any{"status": "ready"}})
		if got := r.header.Get("Cache-Control"); got != "no-store" {
			t.Errorf("Cache-Control %q, want no-store", got)
		}
	})
}

// mustReady calls GET /readyz, checks the answer against the OpenAPI
// document and wants status.
func mustReady(t *testing.T, app *fiber.App, status int) response {
	t.Helper()
	r := mustCall(t, app, "GET", "/readyz", "", nil, status)
	checkOpenAPI(t, "GET", "/readyz", r)
	return r
}

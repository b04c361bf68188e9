package api

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/models/pgtest"
)

// Tests whose subject is what the database keeps run on a fresh SQLite
// and, when INSECTSCORE_TEST_POSTGRES holds a DSN, on PostgreSQL too, in a
// schema of their own that is dropped afterwards:
//
//	INSECTSCORE_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' go test ./api/

// eachBackend runs fn once per database with an empty store.
func eachBackend(t *testing.T, fn func(t *testing.T, store *models.Store)) {
	t.Helper()
	t.Run("sqlite", func(t *testing.T) { fn(t, openTestStore(t, ":memory:")) })
	if base := os.Getenv("INSECTSCORE_TEST_POSTGRES"); base != "" {
		t.Run("postgres", func(t *testing.T) { fn(t, openTestStore(t, pgtest.Schema(t, base))) })
	}
}

func openTestStore(t *testing.T, dsn string) *models.Store {
	t.Helper()
	store, err := models.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return store
}

// newClockApp is the app on store with a clock the test moves; the app
// and the store share it.
func newClockApp(t *testing.T, store *models.Store, cfg Config) (*fiber.App, *testClock) {
	t.Helper()
	clk := &testClock{now: day(20, 19, 0)}
	cfg.Store, cfg.Now, store.Now = store, clk.Now, clk.Now
	app, _ := newTestAppWith(t, cfg)
	return app, clk
}

// Advance moves the clock on by d.
func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

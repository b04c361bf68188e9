package api

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"insectscore/models"
)

// TestDiskFull fills the disk under a real SQLite file (a small tmpfs of
// its own): every write refused for want of room is a 503 with
// Retry-After, never a 500; reads go on; /readyz is not ready while
// writes fail, and ready again once one succeeds; every play that was
// acknowledged is there after a restart. Mounting needs root, which CI
// has (INSECTSCORE_REQUIRE_TOOLS makes a refused mount fail the test).
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=4m"); err != nil {
		if os.Getenv("INSECTSCORE_REQUIRE_TOOLS") != "" {
			t.Fatalf("cannot mount a tmpfs for a disk that fills: %v", err)
		}
		t.Skipf("cannot mount a tmpfs (run as root): %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	path := filepath.Join(dir, "insectscore.db")
	store, err := models.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { store.Close() }()
	app, clk := newClockApp(t, store, Config{})
	acked, refused := 0, 0
	for ; acked < 5; acked++ {
		mustCall(t, app, "POST", "/api/v1/plays", hotelPlay, nil, 201)
	}
	filler := fill(t, dir)
	for i := range 200 {
		// Half with an Idempotency-Key, whose claim is a write too.
		var key map[string]string
		if i%2 == 0 {
			key = withKey(nil, fmt.Sprint("play-", i))
		}
		r := call(t, app, "POST", "/api/v1/plays", hotelPlay, key)
		switch r.status {
		case 201:
			acked++
			continue
		case 503:
		default:
			t.Fatalf("play %d on a full disk: %d %s; want 201 or 503", i, r.status, r.body)
		}
		refused++
		both(detailHas("disk is full"), hasHeader("Retry-After"))(t, r)
		if refused == 3 {
			break
		}
	}
	if refused == 0 {
		t.Fatalf("%d plays fit on a full 4 MiB disk; the disk never filled", acked)
	}
	t.Logf("%d plays acknowledged before the first refusal", acked)
	runScenarios(t, app, []scenario{
		{name: "reads go on", method: "GET", path: "/api/v1/plays?limit=1", status: 200},
		{name: "not ready while writes fail", method: "GET", path: "/readyz", status: 503,
			check: both(detailHas("disk is full"), hasHeader("Retry-After"))},
		{name: "still not ready", method: "GET", path: "/readyz", status: 503},
	})
	// With no write tried for diskFullHold, /readyz says ready again (a
	// replica out of rotation gets a write to try), until one fails.
	clk.Advance(31 * time.Second)
	mustCall(t, app, "GET", "/readyz", "", nil, 200)
	mustCall(t, app, "POST", "/api/v1/plays", hotelPlay, withKey(nil, "play-again"), 503)
	mustCall(t, app, "GET", "/readyz", "", nil, 503)

	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	mustCall(t, app, "POST", "/api/v1/plays", hotelPlay, withKey(nil, "play-after"), 201)
	acked++
	mustCall(t, app, "GET", "/readyz", "", nil, 200)

	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	if store, err = models.Open(context.Background(), path, nil); err != nil {
		t.Fatal(err)
	}
	app, _ = newTestAppWith(t, Config{Store: store})
	countPlays(acked)(t, mustCall(t, app, "GET", fmt.Sprintf("/api/v1/plays?limit=%d", acked+10), "", nil, 200))
}

// fill writes a file into dir until its disk is full, and returns its path.
func fill(t *testing.T, dir string) string {
	t.Helper()
	name := filepath.Join(dir, "filler")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 4096)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return name
		}
	}
}

// hasHeader checks that a response has the header.
func hasHeader(name string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		t.Helper()
		if r.header.Get(name) == "" {
			t.Errorf("no %s header", name)
		}
	}
}

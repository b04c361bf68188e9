package api

import (
	"bytes"
	"context"
	"crypto/sha256"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/pwa/precompress"
)

// These tests are about a start of the server, so each runs in a process
// of its own (the test binary run again for that one test): the app's
// files are prepared once a process, and in this one other tests have
// done it already.

// freshProcess runs the calling test again in a new process and reports
// false; in that process it reports true, and the test does its work.
func freshProcess(t *testing.T) bool {
	t.Helper()
	if os.Getenv("INSECTSCORE_FRESH_PROCESS") == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), "INSECTSCORE_FRESH_PROCESS="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: "+t.Name())) {
		t.Fatalf("%s in a process of its own: %v\n%s", t.Name(), err, out)
	}
	t.Logf("in a process of its own:\n%s", out)
	return false
}

// startApp opens a store on a new SQLite file and the app on it, as the
// server starts.
func startApp(t *testing.T) *fiber.App {
	t.Helper()
	store, err := models.Open(context.Background(), filepath.Join(t.TempDir(), "insectscore.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	app, err := New(Config{Store: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// TestFirstAnswerIsCompressed: the very first requests after a start get
// the app's files compressed, the engine's 3.96 MB as its 0.82 MB of
// brotli (it went out whole for the first seconds while the server
// compressed its files in the background).
func TestFirstAnswerIsCompressed(t *testing.T) {
	if !freshProcess(t) {
		return
	}
	app := startApp(t)
	a, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := os.ReadFile("../pwa/assets/engine/engine.wasm")
	if err != nil {
		t.Fatal(err)
	}
	brName, _ := precompress.Names("engine/engine.wasm", sha256.Sum256(wasm))
	want, err := os.ReadFile("../pwa/compressed/" + brName)
	if err != nil {
		t.Fatal(err)
	}
	// The pages are compressed when first asked for: eight phones that
	// ask at once all get the one brotli form.
	pages := make([]response, 8)
	var wg sync.WaitGroup
	for i := range pages {
		wg.Go(func() { pages[i] = call(t, app, "GET", "/", "", map[string]string{"Accept-Encoding": "br"}) })
	}
	wg.Wait()
	for _, r := range pages {
		if got := r.header.Get("Content-Encoding"); r.status != 200 || got != "br" || !bytes.Equal(r.body, pages[0].body) {
			t.Fatalf("eight first GET / at once: %d, Content-Encoding %q, %d bytes (the first: %d); want 200 br, the same bytes",
				r.status, got, len(r.body), len(pages[0].body))
		}
	}
	for _, path := range []string{"/assets/" + a.version + "/engine/engine.wasm", "/sw.js"} {
		r := call(t, app, "GET", path, "", map[string]string{"Accept-Encoding": "gzip, deflate, br, zstd"})
		if got := r.header.Get("Content-Encoding"); r.status != 200 || got != "br" {
			t.Fatalf("the first GET %s = %d, Content-Encoding %q, %d bytes; want 200 br", path, r.status, got, len(r.body))
		}
		t.Logf("GET %s: %s, %d bytes", path, r.header.Get("Content-Encoding"), len(r.body))
		if strings.HasSuffix(path, ".wasm") && !bytes.Equal(r.body, want) {
			t.Errorf("GET %s sent %d bytes, not the %d of the brotli form made by go generate", path, len(r.body), len(want))
		}
	}
}

// heapAfterNew bounds the heap the app holds once started, with nothing
// served yet. It was 41 MB while the server compressed its files in the
// background (brotli's tables: 70 MB for the engine, 33 MB at the default
// window for even a small file), and 85 MB of heap, 110–130 MB resident,
// stayed after; with the files read into the heap it would be 8 MB. It is
// about 0.6 MB now: the files and their forms stay in the binary, and the
// heap holds only the pages the server writes and their forms.
const heapAfterNew = 4 << 20

// TestHeapAfterNew: the heap in use after New, once collected, stays
// under heapAfterNew: nothing large is made at start-up, and the embedded
// files are not copied into the heap.
func TestHeapAfterNew(t *testing.T) {
	if !freshProcess(t) {
		return
	}
	store, err := models.Open(context.Background(), filepath.Join(t.TempDir(), "insectscore.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	app, err := New(Config{Store: store, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(app)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("heap in use: %d B before New, %d B after (%d B held by the app)", before.HeapAlloc, after.HeapAlloc, held)
	if held > heapAfterNew {
		t.Errorf("the app holds %d B of heap after New, over %d B", held, heapAfterNew)
	}
}

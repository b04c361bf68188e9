package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"insectscore/models"
)

// TestMain runs insectscore's main instead of the tests when a test starts
// this binary as a child with INSECTSCORE_TEST_MAIN=1, so that tests see
// the real exit code and standard error. INSECTSCORE_TEST_DRAIN shortens
// the drain; INSECTSCORE_TEST_CRASH=after-change kills the server as soon
// as a change commits.
func TestMain(m *testing.M) {
	if os.Getenv("INSECTSCORE_TEST_MAIN") == "1" {
		if d, err := time.ParseDuration(os.Getenv("INSECTSCORE_TEST_DRAIN")); err == nil {
			drainTimeout = d
		}
		if os.Getenv("INSECTSCORE_TEST_CRASH") == "after-change" {
			// The process dies as a power cut would, right after a
			// change commits: before anything else it would write.
			serving = func(s *models.Store) {
				s.AfterChange = func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
			}
		}
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is insectscore run as a process by a test.
type child struct {
	cmd    *exec.Cmd
	stderr *syncBuffer
}

// startMain starts insectscore with args and env (KEY=value) in dir, with
// no other INSECTSCORE_ setting from the test's environment.
func startMain(t *testing.T, dir string, env []string, args ...string) *child {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return startMainWith(t, exe, dir, nil, env, args...)
}

// startMainWith is startMain for the binary exe, run with attr (nil: as
// the test runs).
func startMainWith(t *testing.T, exe, dir string, attr *syscall.SysProcAttr, env []string, args ...string) *child {
	t.Helper()
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = attr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "INSECTSCORE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(append(cmd.Env, "INSECTSCORE_TEST_MAIN=1"), env...)
	c := &child{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stderr = c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return c
}

// wait waits for the child to exit and returns its exit code.
func (c *child) wait(t *testing.T, within time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(within):
		c.cmd.Process.Kill()
		t.Fatalf("insectscore %q did not exit within %s; it wrote:\n%s", c.cmd.Args[1:], within, c.stderr)
		return -1
	}
}

// syncBuffer is a log the server writes while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// listenAddr waits for the child's "listening" line and returns the
// address it names.
func (c *child) listenAddr(t *testing.T) string {
	t.Helper()
	// Generous: a server built with the race detector, on a machine
	// running the other packages' tests, starts in seconds, not in the
	// tenth of a second it takes alone.
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := listening.FindStringSubmatch(c.stderr.String()); m != nil {
			return m[1]
		}
		if c.cmd.ProcessState != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("insectscore logged no listening address; it wrote:\n%s", c.stderr)
	return ""
}

// unwritable makes path (a file or directory) unwritable for this process
// and undoes it when the test ends. Root writes through file modes, so as
// root it marks the path immutable; the test is skipped if that fails.
func unwritable(t *testing.T, path string) {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, st.Mode().Perm()&^0o222); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, st.Mode().Perm()) })
	if !writable(path, st.IsDir()) {
		return
	}
	if out, err := exec.Command("chattr", "+i", path).CombinedOutput(); err != nil {
		t.Skipf("cannot make %s unwritable as root: chattr +i: %v %s", path, err, out)
	}
	t.Cleanup(func() { exec.Command("chattr", "-i", path).Run() })
	if writable(path, st.IsDir()) {
		t.Skipf("%s stays writable", path)
	}
}

func writable(path string, dir bool) bool {
	if dir {
		f, err := os.CreateTemp(path, "probe-*")
		if err != nil {
			return false
		}
		f.Close()
		os.Remove(f.Name())
		return true
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// TestStartRefusals starts insectscore with settings it must refuse, and
// expects exit code 1 with a message that says what is wrong, before any
// "listening".
func TestStartRefusals(t *testing.T) {
	dir := t.TempDir()

	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "readonly.db")
	store, err := models.Open(context.Background(), readOnly, nil)
	if err != nil {
		t.Fatal(err)
	}
	store.Close()

	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()

	type refusal struct {
		name  string
		env   []string
		args  []string
		want  string
		setup func(t *testing.T)
	}
	tests := []refusal{
		{name: "a MySQL URL", args: serveArgs("-db", "mysql://root:secret@localhost/scores"),
			want: `insectscore: database "mysql://root:xxxxx@localhost/scores" (-db, INSECTSCORE_DB): insectscore stores in a SQLite file, given by its path like ./insectscore.db, or in PostgreSQL, given by a postgres:// or postgresql:// URL`},
		{name: "a sqlite URL from the environment", env: []string{"INSECTSCORE_DB=sqlite:///var/lib/insectscore.db"}, args: serveArgs(),
			want: `database "sqlite:///var/lib/insectscore.db" (-db, INSECTSCORE_DB)`},
		{name: "a one-shot command takes the same check", args: []string{"export", "-db", "mysql://localhost/scores"},
			want: `database "mysql://localhost/scores"`},
		{name: "a base URL without a scheme", env: []string{"INSECTSCORE_BASE_URL=scores.example"}, args: serveArgs(),
			want: `insectscore: base URL "scores.example" (-base-url, INSECTSCORE_BASE_URL): it must start with https:// or http://`},
		{name: "a base URL with a path", args: serveArgs("-base-url", "https://scores.example/app"),
			want: "it must not have a path, query or fragment"},
		{name: "a directory it cannot write", args: serveArgs("-db", filepath.Join(locked, "insectscore.db")),
			setup: func(t *testing.T) { unwritable(t, locked) },
			want:  "insectscore: the database's directory " + locked + " is not writable"},
		{name: "a directory it cannot create", args: serveArgs("-db", filepath.Join(locked, "data", "insectscore.db")),
			setup: func(t *testing.T) { unwritable(t, locked) },
			want:  "insectscore: cannot create the database's directory " + filepath.Join(locked, "data")},
		{name: "a read-only database", args: serveArgs("-db", readOnly),
			setup: func(t *testing.T) { unwritable(t, readOnly) },
			want:  "insectscore: the database " + readOnly + " is read-only"},
		{name: "an address in use", args: serveArgs("-addr", taken.Addr().String(), "-db", filepath.Join(dir, "inuse.db")),
			want: "insectscore: listen on " + taken.Addr().String() + " (-addr, INSECTSCORE_ADDR): listen tcp " + taken.Addr().String() + ": bind: address already in use"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.setup != nil {
				tt.setup(t)
			}
			cwd := t.TempDir()
			c := startMain(t, cwd, tt.env, tt.args...)
			if code := c.wait(t, 10*time.Second); code != 1 {
				t.Errorf("exit code %d, want 1", code)
			}
			got := c.stderr.String()
			if !strings.Contains(got, tt.want) {
				t.Errorf("it wrote\n%s\nwant it to say\n%s", got, tt.want)
			}
			if strings.Contains(got, "msg=listening") {
				t.Errorf("it logged listening before it failed:\n%s", got)
			}
			if entries, _ := os.ReadDir(cwd); len(entries) != 0 {
				t.Errorf("it left %d files in the working directory (a directory named mysql:?)", len(entries))
			}
		})
	}
}

// serveArgs are the arguments of a server on a free port, which would
// run should a refusal fail.
func serveArgs(args ...string) []string {
	return append([]string{"-addr", "127.0.0.1:0"}, args...)
}

func TestCheckBaseURL(t *testing.T) {
	tests := []struct {
		base string
		want string // "" when accepted
	}{
		{"", ""},
		{"https://scores.example", ""},
		{"http://192.168.1.20:8080", ""},
		{"http://[::1]:8080", ""},
		{"scores.example", "it must start with https:// or http://"},
		{"ftp://scores.example", "it must start with https:// or http://"},
		{"https://", "it has no host"},
		{"http://:8080", "it has no host"},
		{"https:scores.example", "it has no host"},
		{"https://ana:secret@scores.example", `"https://ana:xxxxx@scores.example" (-base-url, INSECTSCORE_BASE_URL): it must not hold a user name or password`},
		{"https://scores.example/app", "it must not have a path, query or fragment"},
		{"https://scores.example?x=1", "it must not have a path, query or fragment"},
		{"https://scores.example?", "it must not have a path, query or fragment"},
		{"https://scores.example#top", "it must not have a path, query or fragment"},
		{"https://scores.example#", "it must not have a path, query or fragment"},
		{"https://scores example", "it is not a URL"},
	}
	for _, tt := range tests {
		err := checkBaseURL(tt.base)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q refused: %v", tt.base, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q: %v, want an error saying %q", tt.base, err, tt.want)
		}
	}
	// A trailing slash is the origin still.
	if cfg, err := parseConfig([]string{"-base-url", "https://scores.example/"}, func(string) string { return "" }, nil); err != nil || cfg.BaseURL != "https://scores.example" {
		t.Errorf("https://scores.example/: %+v, %v", cfg, err)
	}
}

func TestCheckDB(t *testing.T) {
	for _, dsn := range []string{"./insectscore.db", "/var/lib/insectscore/scores.db", "scores.db?_cache_size=-8000", ":memory:",
		"postgres://scores@db.internal/scores", "postgresql://scores@db.internal/scores?sslmode=require", "data/with:colon.db"} {
		if err := checkDB(dsn); err != nil {
			t.Errorf("%q refused: %v", dsn, err)
		}
	}
	for _, dsn := range []string{"mysql://localhost/scores", "sqlite:///x.db", "file:///x.db", "Postgres://localhost/scores", "redis://cache"} {
		if err := checkDB(dsn); err == nil {
			t.Errorf("%q accepted", dsn)
		}
	}
}

// TestListeningAfterBind: the address logged is the one bound, so with
// port 0 the log names the port the system chose, and it answers there.
func TestListeningAfterBind(t *testing.T) {
	c := startMain(t, t.TempDir(), nil, "-addr", "127.0.0.1:0", "-db", "scores.db")
	addr := c.listenAddr(t)
	if strings.HasSuffix(addr, ":0") {
		t.Fatalf("it logged listening on %s, not the bound port", addr)
	}
	resp, err := http.Get("http://" + addr + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /healthz on the logged address: %v %v", resp, err)
	}
	resp.Body.Close()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.wait(t, 10*time.Second); code != 0 {
		t.Errorf("exit code %d after SIGTERM, want 0; it wrote:\n%s", code, c.stderr)
	}
}

// TestDrainTooLong stops a server while a request has not finished
// arriving (it would hold the drain until the read timeout) and two event
// streams are open: past the drain timeout it logs how many streams it
// closed and exits 0.
func TestDrainTooLong(t *testing.T) {
	c := startMain(t, t.TempDir(), []string{"INSECTSCORE_TEST_DRAIN=500ms"}, "-addr", "127.0.0.1:0", "-db", "scores.db")
	base := "http://" + c.listenAddr(t)
	resp, err := http.Post(base+"/api/v1/tables", "application/json", strings.NewReader(`{"game":"insecta","players":["Ana","Ben"]}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create table: %v %v", resp, err)
	}
	loc := resp.Header.Get("Location")
	resp.Body.Close()
	for range 2 {
		stream, err := http.Get(base + loc + "/events")
		if err != nil {
			t.Fatal(err)
		}
		defer stream.Body.Close()
		lines := bufio.NewScanner(stream.Body)
		for lines.Scan() && !strings.HasPrefix(lines.Text(), "event: table") {
		}
	}
	slow, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	if _, err := slow.Write([]byte("GET /healthz HTTP/1.1\r\nHost: x\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // the server has read it

	start := time.Now()
	c.cmd.Process.Signal(syscall.SIGTERM)
	if code := c.wait(t, 10*time.Second); code != 0 {
		t.Errorf("exit code %d, want 0", code)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("it took %s to stop, not the drain's 500ms", took)
	}
	log := c.stderr.String()
	for _, want := range []string{
		`msg="shutting down" streams=2`,
		`level=WARN msg="shutdown: the drain took longer than 500ms; closing the connections still open" streams=2`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %s:\n%s", want, log)
		}
	}
	if bytes.Contains([]byte(log), []byte("level=ERROR")) {
		t.Errorf("the log has errors:\n%s", log)
	}
}

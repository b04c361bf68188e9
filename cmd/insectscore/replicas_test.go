package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"insectscore/models/pgtest"
)

// TestServeReplicasOnPostgres runs two servers on one PostgreSQL database,
// as replicas behind a load balancer would: a board saved through one
// reaches a live stream open on the other.
func TestServeReplicasOnPostgres(t *testing.T) {
	base := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if base == "" {
		t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
	}
	dsn := pgtest.Schema(t, base)
	done := make(chan error, 2)
	var urls [2]string
	for i := range urls {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		urls[i] = "http://" + addr
		go func() {
			done <- run([]string{"serve", "-addr", addr, "-db", dsn, "-log-level", "error"}, func(string) string { return "" }, io.Discard, io.Discard)
		}()
		waitHealthy(t, urls[i], done)
	}

	resp, err := http.Post(urls[0]+"/api/v1/tables", "application/json", strings.NewReader(`{"game":"insektenhotel","players":["Ana","Ben"]}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create table on replica 1: %v %v", resp, err)
	}
	var created struct{ Code, HostToken string }
	decode(t, resp, &created)
	stream, err := http.Get(urls[1] + "/api/v1/tables/" + created.Code + "/events")
	if err != nil || stream.StatusCode != 200 {
		t.Fatalf("events on replica 2: %v %v", stream, err)
	}
	defer stream.Body.Close()
	versions := make(chan string, 8)
	go func() {
		lines := bufio.NewScanner(stream.Body)
		for lines.Scan() {
			if id, ok := strings.CutPrefix(lines.Text(), "id: "); ok {
				// An event id is the version, a dot and a hash of the table.
				version, _, _ := strings.Cut(id, ".")
				versions <- version
			}
		}
		close(versions)
	}()
	if v := <-versions; v != "1" {
		t.Fatalf("first event on replica 2 has id %s, want 1", v)
	}

	req, _ := http.NewRequest("PUT", urls[0]+"/api/v1/tables/"+created.Code+"/seats/0/board",
		strings.NewReader(`{"hotel":"blue","floors":[{"species":"bee","guests":1}]}`))
	req.Header.Set("Authorization", "Bearer "+created.HostToken)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 200 {
		t.Fatalf("PUT on replica 1: %v %v", resp, err)
	}
	select {
	case v := <-versions:
		if v != "2" {
			t.Fatalf("replica 2 streamed version %s, want 2", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a board saved on replica 1 did not reach a stream on replica 2 within 5 s")
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for range urls {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("a replica returned %v after SIGTERM", err)
			}
		case <-time.After(8 * time.Second):
			t.Fatal("a replica did not shut down within 8 s")
		}
	}
}

func decode(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}

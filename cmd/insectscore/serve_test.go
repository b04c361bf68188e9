package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServeShutsDownGracefully runs the real server on a new SQLite file,
// holds a live event stream open, sends the process SIGTERM, and expects the
// server to close the stream and return cleanly.
func TestServeShutsDownGracefully(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := filepath.Join(t.TempDir(), "fresh.db")
	done := make(chan error, 1)
	go func() {
		done <- run([]string{"serve", "-addr", addr, "-db", db, "-log-level", "error"}, func(string) string { return "" }, io.Discard, io.Discard)
	}()
	base := "http://" + addr
	waitHealthy(t, base, done)
	if _, err := os.Stat(db); err != nil {
		t.Fatalf("the database file was not created on first start: %v", err)
	}

	resp, err := http.Post(base+"/api/v1/tables", "application/json", strings.NewReader(`{"game":"insecta","players":["Ana","Ben"]}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create table: %v %v", resp, err)
	}
	loc := resp.Header.Get("Location")
	resp.Body.Close()
	stream, err := http.Get(base + loc + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Body.Close()
	lines := bufio.NewScanner(stream.Body)
	for lines.Scan() && !strings.HasPrefix(lines.Text(), "event: table") {
	}

	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v after SIGTERM, want nil", err)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("the server did not shut down within 8 s of SIGTERM")
	}
	for lines.Scan() {
	}
	if _, err := http.Get(base + "/healthz"); err == nil {
		t.Error("the server still answers after shutting down")
	}
}

func waitHealthy(t *testing.T, base string, done <-chan error) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-done:
			t.Fatalf("serve stopped early: %v", err)
		default:
		}
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("the server did not become healthy within 10 s")
}

// Package pgtest gives a test a PostgreSQL schema of its own, so that
// tests of several packages can run against one database at once without
// sharing tables.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// Schema creates a schema with a random name, dropped when the test ends,
// and returns the DSN base with its search_path set to it.
func Schema(t testing.TB, base string) string {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to PostgreSQL: %v", err)
	}
	schema := "insectscore_test_" + strings.ToLower(rand.Text())
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
		conn.Close(ctx)
	})
	return withParam(t, base, "search_path", schema)
}

// Named returns dsn with its sessions' application_name set to name, so
// that a test can end them all (pg_terminate_backend) and no others.
func Named(t testing.TB, dsn, name string) string {
	t.Helper()
	return withParam(t, dsn, "application_name", name)
}

func withParam(t testing.TB, dsn, key, value string) string {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// Counts are what a Proxy counted.
type Counts struct {
	// Turns are the client's turns: each time it sends after
	// PostgreSQL's ReadyForQuery, over all connections. That is the round
	// trips, however the bytes of one are split or batched.
	Turns int64
	// Conns are the connections the client opened.
	Conns int64
}

// Proxy puts a proxy between the client of the DSN it returns and dsn's
// PostgreSQL, which counts what goes through it. The proxy ends with the
// test.
func Proxy(t testing.TB, dsn string) (string, func() Counts) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	target := u.Host
	var turns, conns atomic.Int64
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			client, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			server, err := net.Dial("tcp", target)
			if err != nil {
				client.Close()
				continue
			}
			// ready: PostgreSQL said ReadyForQuery last on this
			// connection, so what the client sends next is a new turn
			// (not the rest of a batch PostgreSQL began to answer).
			var ready atomic.Bool
			ready.Store(true)
			var from messages
			pipe := func(dst, src net.Conn, fromClient bool) {
				defer dst.Close()
				defer src.Close()
				buf := make([]byte, 64<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						if fromClient && ready.Swap(false) {
							turns.Add(1)
						} else if !fromClient && from.readyIn(buf[:n]) {
							ready.Store(true)
						}
						if _, err := dst.Write(buf[:n]); err != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}
			wg.Go(func() { pipe(server, client, true) })
			wg.Go(func() { pipe(client, server, false) })
		}
	})
	u.Host = ln.Addr().String()
	return u.String(), func() Counts { return Counts{Turns: turns.Load(), Conns: conns.Load()} }
}

// messages follows PostgreSQL's messages to a client (a type byte, a
// length that counts itself, the body) across reads.
type messages struct {
	head [5]byte
	got  int // bytes of head read
	skip int // bytes of the body left
}

// readyIn reads b and says whether a ReadyForQuery ('Z') began in it.
func (m *messages) readyIn(b []byte) bool {
	ready := false
	for len(b) > 0 {
		if m.skip > 0 {
			n := min(m.skip, len(b))
			m.skip, b = m.skip-n, b[n:]
			continue
		}
		n := copy(m.head[m.got:], b)
		m.got, b = m.got+n, b[n:]
		if m.got == len(m.head) {
			m.got = 0
			m.skip = int(binary.BigEndian.Uint32(m.head[1:])) - 4
			ready = ready || m.head[0] == 'Z'
		}
	}
	return ready
}

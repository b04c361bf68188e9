package live

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// eventWait bounds every wait for a stream in these tests.
const eventWait = 5 * time.Second

// TestStreamOverPipe: a stream whose connection is no socket (here an
// in-memory pipe) gets every change through its own goroutine.
func TestStreamOverPipe(t *testing.T) {
	broker := NewMemoryBroker()
	t.Cleanup(broker.Close)
	hs := NewHubs(broker)
	st := hs.Join("ABC234", StreamOptions{Heartbeat: time.Hour, WriteWait: eventWait})
	st.Begin(1, []byte(`{"version":1}`), eventID(1, []byte(`{"version":1}`)))
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	done := make(chan struct{})
	go func() {
		defer close(done)
		st.Run(server, []byte("HTTP/1.1 200 OK\r\n\r\n"))
	}()
	rd := bytes.NewBuffer(nil)
	buf := make([]byte, 4096)
	// next reads up to the next blank line.
	next := func() string {
		t.Helper()
		for {
			if block, rest, ok := bytes.Cut(rd.Bytes(), []byte("\n\n")); ok {
				rd = bytes.NewBuffer(append([]byte(nil), rest...))
				return string(block)
			}
			_ = client.SetReadDeadline(time.Now().Add(eventWait))
			k, err := client.Read(buf)
			if err != nil {
				t.Fatal(err)
			}
			rd.Write(buf[:k])
		}
	}
	if b := next(); b != "HTTP/1.1 200 OK\r\n\r\nretry: 2000" {
		t.Fatalf("first block %q", b)
	}
	broker.Publish("ABC234", Event{Version: 1, Data: []byte(`{"version":1}`)}) // the client has it
	broker.Publish("ABC234", Event{Version: 2, Data: []byte(`{"version":2}`)})
	if b := next(); b != "id: "+eventID(2, []byte(`{"version":2}`))+"\nevent: table\ndata: {\"version\":2}" {
		t.Fatalf("block %q, want the table at 2", b)
	}
	broker.Close()
	select {
	case <-done:
	case <-time.After(eventWait):
		t.Fatal("the stream did not end when the broker closed")
	}
	if _, ok := hs.m["ABC234"]; ok {
		t.Error("the hub of a table with no stream left is kept")
	}
}

// handedBackConn is a connection that fails every write, and records
// whether anything touched it once it was handed back (released).
type handedBackConn struct {
	net.Conn
	mu       sync.Mutex
	released bool
	touched  bool
}

func (c *handedBackConn) Write([]byte) (int, error) { return 0, io.ErrClosedPipe }

func (c *handedBackConn) SetWriteDeadline(time.Time) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released {
		c.touched = true
	}
	return nil
}

// TestStreamLeavesItsConnection: once a stream's goroutine has returned,
// the connection is fasthttp's again (closed, its wrapper given to another
// connection), so ending the stream, as a hub whose broker closes does,
// and delivering to it touch it no more. This once crashed the race
// detector's run: a nil connection inside a released hijacked wrapper.
func TestStreamLeavesItsConnection(t *testing.T) {
	server, client := net.Pipe()
	t.Cleanup(func() { server.Close(); client.Close() })
	conn := &handedBackConn{Conn: server}
	st := newStream(StreamOptions{Heartbeat: time.Hour, WriteWait: eventWait})
	st.run(conn, []byte("HTTP/1.1 200 OK\r\n\r\n")) // the first write fails: the client is gone
	conn.mu.Lock()
	conn.released = true
	conn.mu.Unlock()
	st.end()
	st.deliver(&Event{Version: 1, Data: []byte(`{"version":1}`)})
	conn.mu.Lock()
	defer conn.mu.Unlock()
	if conn.touched {
		t.Error("ending a stream whose goroutine returned set a deadline on the connection handed back")
	}
}

// TestStreamBegin: a stream sends the table first unless the client
// resumed with the id of exactly that table JSON.
func TestStreamBegin(t *testing.T) {
	table := []byte(`{"code":"ABC234","version":4,"sync":"unsent"}`)
	for _, tt := range []struct {
		name, lastID string
		first        bool
	}{
		{"a new client", "", true},
		{"the id of this table", eventID(4, table), false},
		{"the table before a sync change", eventID(4, []byte(`{"code":"ABC234","version":4,"sync":"saved"}`)), true},
		{"another table at the version", eventID(4, []byte(`{"code":"XYZ789","version":4,"sync":"unsent"}`)), true},
		{"this table's JSON at another version", eventID(3, table), true},
		{"a bare version", "4", true},
		{"a version ahead", "99", true},
		{"garbled", "yesterday", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := newStream(StreamOptions{})
			st.Begin(4, table, tt.lastID)
			want := []byte(nil)
			if tt.first {
				want = Event{Version: 4, Data: table}.Frame()
			}
			if !bytes.Equal(st.first, want) {
				t.Errorf("first frame %q, want %q", st.first, want)
			}
			if st.last != 4 || !bytes.Equal(st.sent, table) {
				t.Errorf("the stream holds version %d %s, want 4 and the table", st.last, st.sent)
			}
		})
	}
}

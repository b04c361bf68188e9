package live

import (
	"bytes"
	"net"
	"sync"
	"time"
)

// DefaultHeartbeat is how often an idle stream gets a comment line, so
// proxies keep it open and a dead client is noticed by the failed write.
const DefaultHeartbeat = 15 * time.Second

// DefaultWriteWait is how long one write to a stream may wait for a
// client that reads nothing: past it the stream is closed, and the
// client, once it reads again, reconnects with Last-Event-ID and gets the
// table whole.
const DefaultWriteWait = 30 * time.Second

// streamSendBuffer is the socket send buffer of a stream (the kernel
// doubles it): room for a dozen whole tables. A stream needs only the
// newest table, so more would only hold memory for a client that is not
// reading (Linux grows a socket's buffer to megabytes by itself), and
// make it take longer to notice.
const streamSendBuffer = 64 << 10

// StreamOptions say how a stream writes to its client.
type StreamOptions struct {
	// Heartbeat is how often an idle stream gets a comment line; zero
	// means DefaultHeartbeat.
	Heartbeat time.Duration
	// WriteWait bounds a write to a client that reads nothing; zero
	// means DefaultWriteWait.
	WriteWait time.Duration
	// Deltas says the client applies "delta" events.
	Deltas bool
	// Lang is the language of the stream's tables, "" for the language
	// of the events themselves (Recent.Event's data).
	Lang string
	// Release, if set, is called once the stream is over, to give back
	// its place among the open streams.
	Release func()
}

// Stream is one open event stream: a client following one table.
//
// Its table's hub writes each change's frame to the socket in one write
// that never waits (fanout.go); the stream's own goroutine, in Run, writes
// the response head, the heartbeats, and what a full socket did not take,
// so a client that reads slowly holds up only its own stream.
type Stream struct {
	release func()
	every   time.Duration
	// wait bounds a write to a client that reads nothing.
	wait time.Duration
	// deltas says the client applies "delta" events.
	deltas bool
	// lang is the language of the stream's tables, "" for the events'.
	lang string
	// first is the frame of the table as read at the start, if the
	// client does not have it yet.
	first []byte
	hubs  *Hubs
	hub   *hub
	// wake tells the stream's goroutine there is work for it.
	wake chan struct{}

	mu sync.Mutex
	// conn is the connection once the stream runs; fd is its socket's
	// descriptor, which the hub writes to without waiting, or -1 when it
	// is no socket or this system has no such write (rawwrite_*.go).
	conn net.Conn
	fd   int
	// busy says the stream's goroutine has the connection: the hub
	// leaves the change in pending for it.
	busy    bool
	pending *Event
	// rest is what the socket did not take of the hub's last write.
	rest []byte
	// gone says the stream is over: the client left or the server stops.
	gone bool
	// last is the version the client has (once rest is written), and
	// sent its table JSON: a change at the same version (a phone's sync
	// state) differs from it.
	last int
	sent []byte
}

// newStream returns a stream that o describes, not yet in a hub.
func newStream(o StreamOptions) *Stream {
	st := &Stream{release: o.Release, every: o.Heartbeat, wait: o.WriteWait, deltas: o.Deltas, lang: o.Lang,
		// Until run starts, changes wait for the stream's goroutine.
		busy: true, wake: make(chan struct{}, 1), last: -1, fd: -1}
	if st.release == nil {
		st.release = func() {}
	}
	if st.every <= 0 {
		st.every = DefaultHeartbeat
	}
	if st.wait <= 0 {
		st.wait = DefaultWriteWait
	}
	return st
}

// Begin tells the stream the table as the client is to have it first:
// its JSON at version, in the stream's language. Changes up to it are
// skipped, but for one at the same version with other JSON. The table
// itself is sent first unless the client resumed with its event id: the
// client's Last-Event-ID, "" for a client that did not resume. An id
// names one table JSON (eventID), so one of an earlier state at the same
// version, of the table in another language or of another table gets the
// table at once, and so does an id that is a bare version (the ids before
// they named the JSON). lastEventID is not kept.
func (st *Stream) Begin(version int, table []byte, lastEventID string) {
	st.mu.Lock()
	st.last, st.sent = version, table
	st.mu.Unlock()
	if id := eventID(version, table); id != lastEventID {
		st.first = appendFrame(id, "table", table)
	}
}

// Run writes the response head and the stream's events to conn until the
// client goes or the broker closes; then the stream leaves its hub and is
// released. conn must stay open until Run returns (the hub writes to its
// socket's descriptor), and is not touched after.
func (st *Stream) Run(conn net.Conn, head []byte) {
	defer st.hubs.leave(st)
	st.run(conn, head)
}

// Close ends a stream that will not Run (the table could not be read, or
// the request was a HEAD): it leaves its hub and is released.
func (st *Stream) Close() {
	st.hubs.leave(st)
	st.release()
}

// run writes the response head and the stream's events to conn until the
// client goes or the broker closes.
func (st *Stream) run(conn net.Conn, head []byte) {
	defer st.release()
	defer st.detach()
	const retry = "retry: 2000\n\n"
	out := make([]byte, 0, len(head)+len(retry)+len(st.first))
	out = append(append(append(out, head...), retry...), st.first...)
	st.first = nil
	st.attach(conn)
	if !st.write(conn, out) {
		st.end()
		return
	}
	tick := time.NewTicker(st.every)
	defer tick.Stop()
	beat := false
	for {
		st.mu.Lock()
		if st.gone {
			st.mu.Unlock()
			return
		}
		out := st.rest
		st.rest = nil
		if out == nil && st.pending != nil {
			ev := *st.pending
			st.pending = nil
			if st.newer(&ev) {
				out = st.frame(&ev)
				st.last, st.sent = ev.Version, ev.Data
			}
		}
		if out == nil && beat {
			out, beat = heartbeatFrame, false
		}
		// With nothing to write, the hub writes the next change itself.
		st.busy = out != nil || st.fd < 0
		st.mu.Unlock()
		if out != nil {
			if !st.write(conn, out) {
				st.end() // the client is gone, or read nothing for st.wait
				return
			}
			continue
		}
		select {
		case <-st.wake:
		case <-tick.C:
			beat = true
		}
	}
}

// attach lets the hub write to the stream's socket directly, when it is
// one.
func (st *Stream) attach(conn net.Conn) {
	st.mu.Lock()
	st.conn = conn
	st.mu.Unlock()
	if u, ok := conn.(interface{ UnsafeConn() net.Conn }); ok {
		conn = u.UnsafeConn()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(streamSendBuffer)
	}
	fd := socketFD(conn)
	st.mu.Lock()
	st.fd = fd
	st.mu.Unlock()
}

// detach takes the socket back from the hub before the stream's goroutine
// returns: fasthttp then closes the connection and hands its wrapper to
// another, so an end or a delivery after it must not touch either.
func (st *Stream) detach() {
	st.mu.Lock()
	st.gone, st.conn, st.fd = true, nil, -1
	st.mu.Unlock()
}

// write writes b to conn from the stream's goroutine, waiting at most
// st.wait.
func (st *Stream) write(conn net.Conn, b []byte) bool {
	if conn.SetWriteDeadline(time.Now().Add(st.wait)) != nil {
		return false
	}
	if _, err := conn.Write(b); err != nil {
		return false
	}
	// No deadline for the hub's writes, which never wait.
	return conn.SetWriteDeadline(time.Time{}) == nil
}

// deliver is the hub handing a change to the stream: written at once if
// the socket takes it, else left to the stream's goroutine.
func (st *Stream) deliver(ev *Event) {
	st.mu.Lock()
	switch {
	case st.gone:
	case st.busy:
		if st.pending == nil || ev.Version >= st.pending.Version {
			st.pending = ev
		}
		st.mu.Unlock()
		st.signal()
		return
	case st.newer(ev):
		frame := st.frame(ev)
		n, err := tryWrite(st.fd, frame)
		st.last, st.sent = ev.Version, ev.Data
		switch {
		case err != nil:
			st.gone = true
		case n < len(frame):
			st.busy, st.rest = true, frame[n:]
		default:
			st.mu.Unlock()
			return
		}
		st.mu.Unlock()
		st.signal()
		return
	}
	st.mu.Unlock()
}

// end stops the stream: its goroutine returns, and a write it is blocked
// in gives up.
func (st *Stream) end() {
	st.mu.Lock()
	st.gone = true
	if st.conn != nil {
		_ = st.conn.SetWriteDeadline(time.Now())
	}
	st.mu.Unlock()
	st.signal()
}

func (st *Stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// newer says whether ev is news to the client.
func (st *Stream) newer(ev *Event) bool {
	return ev.Version > st.last || ev.Version == st.last && !bytes.Equal(ev.Data, st.sent)
}

// frame is what the stream sends of ev: its delta when the client asked
// for deltas and has exactly the table the delta starts from, else the
// whole table. The first stream to ask works the delta out.
func (st *Stream) frame(ev *Event) []byte {
	if st.deltas && ev.Delta != nil && bytes.Equal(ev.Delta.Base, st.sent) {
		if frame := ev.Delta.Frame(); frame != nil {
			return frame
		}
	}
	return ev.Frame()
}

// inLanguage is ev as a stream in lang gets it: ev itself for "", or when
// ev has no variant in lang.
func inLanguage(ev *Event, lang string) *Event {
	if lang == "" || ev.Variants == nil {
		return ev
	}
	if lev := ev.Variants.Get(lang); lev != nil {
		return lev
	}
	return ev
}

var heartbeatFrame = []byte(": heartbeat\n\n")

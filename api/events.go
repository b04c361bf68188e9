package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// Broker carries table updates to the event streams. The in-process
// models.MemoryBroker serves one server; a PostgreSQL LISTEN/NOTIFY broker
// will serve several replicas.
type Broker interface {
	Subscribe(code string) *models.Subscription
	Publish(code string, ev models.Event)
}

// sourcedBroker is a Broker that hears of changes made by other replicas
// and needs this server to rebuild a table's event (models.PGBroker).
type sourcedBroker interface {
	SetSource(func(ctx context.Context, code string) (models.Event, error))
}

// tableEvent builds the live event of a table as it is now.
func (s *server) tableEvent(ctx context.Context, code string) (models.Event, error) {
	st, err := s.store.ReadTable(ctx, code)
	if err != nil {
		return models.Event{}, err
	}
	return s.event(code, view(st, s.cfg.Now()))
}

// event builds the live event of the table v of code (recentTables.event)
// with its variants in the other languages: each is built, once, when a
// stream in that language first needs it, so a change costs the streams
// in English nothing more, and the others one build per language.
func (s *server) event(code string, v tableView) (models.Event, error) {
	ev, err := s.recent.event(code, v)
	if err != nil {
		return ev, err
	}
	ev.Variants = models.NewVariants(func(lang string) (models.Event, bool) {
		cat := catalogFor(lang)
		if cat == nil {
			return models.Event{}, false
		}
		// Its own line of recent tables, for deltas between the
		// tables in that language.
		lev, err := s.recent.event(code+"\x00"+lang, v.in(cat))
		return lev, err == nil
	})
	return ev, nil
}

// inLanguage is ev as a stream in lang gets it: ev itself in English.
func inLanguage(ev *models.Event, lang string) *models.Event {
	if lang == "" || ev.Variants == nil {
		return ev
	}
	if lev := ev.Variants.Get(lang); lev != nil {
		return lev
	}
	return ev
}

// heartbeat is how often an idle stream gets a comment line, so proxies keep
// it open and a dead client is noticed by the failed write.
const heartbeat = 15 * time.Second

// streamWriteWait is how long one write to a stream may wait for a client
// that reads nothing: past it the stream is closed, and the client, once
// it reads again, reconnects with Last-Event-ID and gets the table whole.
const streamWriteWait = 30 * time.Second

// streamSendBuffer is the socket send buffer of a stream (the kernel
// doubles it): room for a dozen whole tables. A stream needs only the
// newest table, so more would only hold memory for a client that is not
// reading (Linux grows a socket's buffer to megabytes by itself), and
// make it take longer to notice.
const streamSendBuffer = 64 << 10

// tableEvents answers GET /api/v1/tables/{code}/events: a Server-Sent Events
// stream with an event "table" carrying the table JSON on every change. The
// event id is the table version; a client that resumes with Last-Event-ID
// gets the current table at once only if it changed since. A change that
// leaves the version alone, a seat's sync state, comes as another event
// with the same id. With ?deltas=1 a change much smaller than the table
// comes as an event "delta" instead (delta.go). Open streams are capped
// per client address and in total (Config.MaxStreamsPerClient,
// MaxStreams): beyond, 429.
//
// The stream takes the connection over once the handler returns. The
// table's hub writes each change's frame to the socket in one write
// (fanout.go); the stream's own goroutine writes the response head, the
// heartbeats, and what a full socket did not take, so a client that reads
// slowly holds up only its own stream.
func (s *server) tableEvents(c *fiber.Ctx) error {
	release, err := s.streams.acquire(c, s.clientIP(c))
	if err != nil {
		return err
	}
	deltas, _ := strconv.ParseBool(c.Query("deltas"))
	lang := langOf(c)
	st := &stream{release: release, every: s.cfg.Heartbeat, wait: s.cfg.StreamWriteWait, deltas: deltas,
		// Until run starts, changes wait for the stream's goroutine.
		busy: true, wake: make(chan struct{}, 1), last: -1}
	if lang != "en" {
		st.lang = lang
	}
	if st.every <= 0 {
		st.every = heartbeat
	}
	if st.wait <= 0 {
		st.wait = streamWriteWait
	}
	// Subscribe before reading the table, so a change saved in between is
	// not lost; an event the stream has already covered is skipped below.
	code := strings.ToUpper(c.Params("code"))
	s.hubs.join(code, st)
	ts, err := s.store.ReadTable(c.UserContext(), code)
	if err != nil {
		s.hubs.leave(st)
		release()
		return err
	}
	v := view(ts, s.cfg.Now())
	first, err := json.Marshal(v.in(catalogFor(lang)))
	if err != nil {
		s.hubs.leave(st)
		release()
		return err
	}
	last, err := strconv.Atoi(c.Get("Last-Event-ID"))
	if err != nil {
		last = -1
	}
	st.mu.Lock()
	// The client has the table as read: skip up to it.
	st.last, st.sent = v.Version, first
	st.mu.Unlock()
	if v.Version > last {
		st.first = models.Event{Version: v.Version, Data: first}.Frame()
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set("X-Accel-Buffering", "no")
	if c.Method() == fiber.MethodHead {
		s.hubs.leave(st)
		release()
		return nil
	}
	// The body runs until the connection closes: no length, no chunks.
	ctx := c.Context()
	ctx.Response.Header.SetConnectionClose()
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		// The request's context lives until this returns.
		defer s.hubs.leave(st)
		st.run(conn, ctx.Response.Header.Header())
	})
	return nil
}

// stream is one open event stream.
type stream struct {
	release func()
	every   time.Duration
	// wait bounds a write to a client that reads nothing.
	wait time.Duration
	// deltas says the client applies "delta" events.
	deltas bool
	// lang is the language of the stream's tables, "" for English.
	lang string
	// first is the frame of the table as read at the start, if the
	// client does not have it yet.
	first []byte
	hub   *hub
	// wake tells the stream's goroutine there is work for it.
	wake chan struct{}

	mu sync.Mutex
	// conn is the connection once the stream runs; raw writes to it
	// without waiting, unless it is no socket.
	conn net.Conn
	raw  syscall.RawConn
	// busy says the stream's goroutine has the connection: the hub
	// leaves the change in pending for it.
	busy    bool
	pending *models.Event
	// rest is what the socket did not take of the hub's last write.
	rest []byte
	// gone says the stream is over: the client left or the server stops.
	gone bool
	// last is the version the client has (once rest is written), and
	// sent its table JSON: a change at the same version (a phone's sync
	// state) differs from it.
	last int
	sent []byte
	// wbuf, wn and werr are the hub's write in progress (rawWrite).
	wbuf    []byte
	wn      int
	werr    error
	writeFn func(fd uintptr) bool
}

// run writes the response head and the stream's events to conn until the
// client goes or the broker closes.
func (st *stream) run(conn net.Conn, head []byte) {
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
			if st.newer(ev) {
				out = st.frame(ev)
				st.last, st.sent = ev.Version, ev.Data
			}
		}
		if out == nil && beat {
			out, beat = heartbeatFrame, false
		}
		// With nothing to write, the hub writes the next change itself.
		st.busy = out != nil || st.raw == nil
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
func (st *stream) attach(conn net.Conn) {
	st.mu.Lock()
	st.conn = conn
	st.mu.Unlock()
	if u, ok := conn.(interface{ UnsafeConn() net.Conn }); ok {
		conn = u.UnsafeConn()
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(streamSendBuffer)
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	st.mu.Lock()
	st.raw, st.writeFn = raw, st.rawWrite
	st.mu.Unlock()
}

// detach takes the socket back from the hub before the stream's goroutine
// returns: fasthttp then closes the connection and hands its wrapper to
// another, so an end or a delivery after it must not touch either.
func (st *stream) detach() {
	st.mu.Lock()
	st.gone, st.conn, st.raw, st.writeFn = true, nil, nil, nil
	st.mu.Unlock()
}

// write writes b to conn from the stream's goroutine, waiting at most
// st.wait.
func (st *stream) write(conn net.Conn, b []byte) bool {
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
func (st *stream) deliver(ev *models.Event) {
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
	case st.newer(*ev):
		frame := st.frame(*ev)
		n, err := st.tryWrite(frame)
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
func (st *stream) end() {
	st.mu.Lock()
	st.gone = true
	if st.conn != nil {
		_ = st.conn.SetWriteDeadline(time.Now())
	}
	st.mu.Unlock()
	st.signal()
}

func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// newer says whether ev is news to the client.
func (st *stream) newer(ev models.Event) bool {
	return ev.Version > st.last || ev.Version == st.last && !bytes.Equal(ev.Data, st.sent)
}

// tryWrite writes b to the socket as far as it takes it without waiting.
func (st *stream) tryWrite(b []byte) (int, error) {
	st.wbuf, st.wn, st.werr = b, 0, nil
	err := st.raw.Write(st.writeFn)
	n, werr := st.wn, st.werr
	st.wbuf, st.werr = nil, nil
	if err == nil {
		err = werr
	}
	return n, err
}

// rawWrite is tryWrite's one pass over the socket: done when it took
// everything, was full (EAGAIN) or failed.
func (st *stream) rawWrite(fd uintptr) bool {
	for st.wn < len(st.wbuf) {
		n, err := syscall.Write(int(fd), st.wbuf[st.wn:])
		if n > 0 {
			st.wn += n
		}
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return true
		case err != nil:
			st.werr = err
			return true
		case n <= 0:
			return true
		}
	}
	return true
}

// frame is what the stream sends of ev: its delta when the client asked
// for deltas and has exactly the table the delta starts from, else the
// whole table. The first stream to ask works the delta out.
func (st *stream) frame(ev models.Event) []byte {
	if st.deltas && ev.Delta != nil && bytes.Equal(ev.Delta.Base, st.sent) {
		if frame := ev.Delta.Frame(); frame != nil {
			return frame
		}
	}
	return ev.Frame()
}

var heartbeatFrame = []byte(": heartbeat\n\n")

package api

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"
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
	_, v, err := s.loadView(ctx, code)
	if err != nil {
		return models.Event{}, err
	}
	return s.recent.event(code, v)
}

// heartbeat is how often an idle stream gets a comment line, so proxies keep
// it open and a dead client is noticed by the failed write.
const heartbeat = 15 * time.Second

// streamWriteWait is how long one write to a stream may wait for a client
// that reads nothing: past it the stream is closed, and the client, once
// it reads again, reconnects with Last-Event-ID and gets the table whole.
const streamWriteWait = 30 * time.Second

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
// The stream takes the connection over once the handler returns: the
// response head and then each frame go to the socket in one write each,
// from the stream's own goroutine, so a client that reads slowly holds up
// only its own stream.
func (s *server) tableEvents(c *fiber.Ctx) error {
	release, err := s.streams.acquire(c, s.clientIP(c))
	if err != nil {
		return err
	}
	// Subscribe before reading the table, so a change saved in between is
	// not lost; an event the stream has already covered is skipped below.
	code := strings.ToUpper(c.Params("code"))
	sub := s.broker.Subscribe(code)
	t, v, err := s.loadView(c.UserContext(), code)
	if err != nil {
		sub.Close()
		release()
		return err
	}
	first, err := json.Marshal(v)
	if err != nil {
		sub.Close()
		release()
		return err
	}
	last, err := strconv.Atoi(c.Get("Last-Event-ID"))
	if err != nil {
		last = -1
	}
	deltas, _ := strconv.ParseBool(c.Query("deltas"))
	st := &stream{sub: sub, release: release, every: s.cfg.Heartbeat, deltas: deltas,
		// The client has the table as read: skip up to it.
		last: t.Version, sent: first}
	if st.every <= 0 {
		st.every = heartbeat
	}
	if t.Version > last {
		st.first = models.Event{Version: t.Version, Data: first}.Frame()
	}
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set("X-Accel-Buffering", "no")
	if c.Method() == fiber.MethodHead {
		sub.Close()
		release()
		return nil
	}
	// The body runs until the connection closes: no length, no chunks.
	ctx := c.Context()
	ctx.Response.Header.SetConnectionClose()
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		// The request's context lives until this returns.
		st.run(conn, ctx.Response.Header.Header())
	})
	return nil
}

// stream is one open event stream.
type stream struct {
	sub     *models.Subscription
	release func()
	every   time.Duration
	// deltas says the client applies "delta" events.
	deltas bool
	// first is the frame of the table as read at the start, if the
	// client does not have it yet.
	first []byte
	// last is the version the client has, and sent its table JSON: a
	// change at the same version (a phone's sync state) differs from it.
	last int
	sent []byte
}

// run writes the response head and the stream's events to conn until the
// client goes or the broker closes.
func (st *stream) run(conn net.Conn, head []byte) {
	defer st.release()
	defer st.sub.Close()
	const retry = "retry: 2000\n\n"
	out := make([]byte, 0, len(head)+len(retry)+len(st.first))
	out = append(append(append(out, head...), retry...), st.first...)
	if !write(conn, out) {
		return
	}
	st.first = nil
	tick := time.NewTicker(st.every)
	defer tick.Stop()
	for {
		select {
		case _, open := <-st.sub.C:
			if !open {
				return // shutting down
			}
			if ev, ok := st.sub.Latest(); ok && (ev.Version > st.last || ev.Version == st.last && !bytes.Equal(ev.Data, st.sent)) {
				if !write(conn, st.frame(ev)) {
					return // the client is gone
				}
				st.last, st.sent = ev.Version, ev.Data
			}
		case <-tick.C:
			if !write(conn, heartbeatFrame) {
				return
			}
		}
	}
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

// write writes b to conn in one write, waiting at most streamWriteWait.
func write(conn net.Conn, b []byte) bool {
	if conn.SetWriteDeadline(time.Now().Add(streamWriteWait)) != nil {
		return false
	}
	_, err := conn.Write(b)
	return err == nil
}

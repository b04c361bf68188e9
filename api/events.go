package api

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

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
	data, err := json.Marshal(v)
	return models.Event{Version: v.Version, Data: data}, err
}

// heartbeat is how often an idle stream gets a comment line, so proxies keep
// it open and a dead client is noticed by the failed write.
const heartbeat = 15 * time.Second

// tableEvents answers GET /api/v1/tables/{code}/events: a Server-Sent Events
// stream with an event "table" carrying the table JSON on every change. The
// event id is the table version; a client that resumes with Last-Event-ID
// gets the current table at once only if it changed since. A change that
// leaves the version alone, a seat's sync state, comes as another event
// with the same id. Open streams are capped per client address and in
// total (Config.MaxStreamsPerClient, MaxStreams): beyond, 429.
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
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set("X-Accel-Buffering", "no")
	every := s.cfg.Heartbeat
	if every <= 0 {
		every = heartbeat
	}
	c.Context().SetBodyStreamWriter(fasthttp.StreamWriter(func(w *bufio.Writer) {
		defer release()
		defer sub.Close()
		_, _ = w.WriteString("retry: 2000\n\n")
		if t.Version > last {
			writeEvent(w, models.Event{Version: t.Version, Data: first})
		}
		last = t.Version // the client has the table as read: skip up to it
		sent := first    // a change at the same version differs from this
		if w.Flush() != nil {
			return
		}
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case _, open := <-sub.C:
				if !open {
					return // shutting down
				}
				// A change that leaves the version alone (a phone's
				// sync state) comes at the same version, with new data.
				if ev, ok := sub.Latest(); ok && (ev.Version > last || ev.Version == last && !bytes.Equal(ev.Data, sent)) {
					writeEvent(w, ev)
					last, sent = ev.Version, ev.Data
				}
			case <-tick.C:
				_, _ = w.WriteString(": heartbeat\n\n")
			}
			if w.Flush() != nil {
				return // the client is gone
			}
		}
	}))
	return nil
}

// writeEvent writes the event's frame in one write: a frame larger than
// the buffer goes straight through once the buffer is empty, instead of
// being copied through it in pieces.
func writeEvent(w *bufio.Writer, ev models.Event) {
	frame := ev.Frame()
	if w.Buffered() > 0 && len(frame) > w.Available() && w.Flush() != nil {
		return
	}
	_, _ = w.Write(frame)
}

package api

import (
	"context"
	"encoding/json"
	"net"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"insectscore/api/live"
)

// sourcedBroker is a live.Broker that hears of changes made by other
// replicas and needs this server to rebuild a table's event
// (live.PGBroker).
type sourcedBroker interface {
	SetSource(func(ctx context.Context, code string) (live.Event, error))
}

// tableEvent builds the live event of a table as it is now.
func (s *server) tableEvent(ctx context.Context, code string) (live.Event, error) {
	st, err := s.store.ReadTable(ctx, code)
	if err != nil {
		return live.Event{}, err
	}
	return s.event(code, view(st, s.cfg.Now()))
}

// event builds the live event of the table v of code in English, with
// its delta from the table's last event and its variants in the other
// languages (live.Recent.Event): the table in another language is made
// only when a stream in it first needs it.
func (s *server) event(code string, v tableView) (live.Event, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return live.Event{}, err
	}
	return s.recent.Event(code, v.Version, data, func(lang string) ([]byte, bool) {
		cat := catalogFor(lang)
		if cat == nil {
			return nil, false
		}
		ldata, err := json.Marshal(v.in(cat))
		return ldata, err == nil
	}), nil
}

// tableEvents answers GET /api/v1/tables/{code}/events: a Server-Sent Events
// stream with an event "table" carrying the table JSON on every change. The
// event id names the table JSON the client then holds, in the stream's
// language: the table version, a dot and a hash of the JSON
// (live.Event.ID). A change that leaves the version alone, a seat's sync
// state, comes as another event at the same version, with another id. A
// client that resumes with Last-Event-ID gets the current table at once
// unless that id is the current table's: an id from before a sync change,
// from another table or in another language is not. With ?deltas=1 a
// change much smaller than the table comes as an event "delta" instead,
// with the id of the table it leads to (live/delta.go). Open streams are
// capped per client address and in total (Config.MaxStreamsPerClient,
// MaxStreams): beyond, 429.
//
// The stream takes the connection over once the handler returns, and the
// table's hub writes its changes (live.Stream).
func (s *server) tableEvents(c *fiber.Ctx) error {
	release, err := s.streams.acquire(c, s.clientIP(c))
	if err != nil {
		return err
	}
	deltas, _ := strconv.ParseBool(c.Query("deltas"))
	lang := langOf(c)
	o := live.StreamOptions{Heartbeat: s.cfg.Heartbeat, WriteWait: s.cfg.StreamWriteWait, Deltas: deltas, Release: release}
	if lang != "en" {
		o.Lang = lang
	}
	// Subscribe before reading the table, so a change saved in between is
	// not lost; an event the stream has already covered is skipped.
	code := strings.ToUpper(c.Params("code"))
	st := s.hubs.Join(code, o)
	ts, err := s.store.ReadTable(c.UserContext(), code)
	if err != nil {
		st.Close()
		return err
	}
	v := view(ts, s.cfg.Now())
	first, err := json.Marshal(v.in(catalogFor(lang)))
	if err != nil {
		st.Close()
		return err
	}
	st.Begin(v.Version, first, c.Get("Last-Event-ID"))
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set("X-Accel-Buffering", "no")
	if c.Method() == fiber.MethodHead {
		st.Close()
		return nil
	}
	// The body runs until the connection closes: no length, no chunks.
	ctx := c.Context()
	ctx.Response.Header.SetConnectionClose()
	ctx.HijackSetNoResponse(true)
	ctx.Hijack(func(conn net.Conn) {
		// The request's context lives until this returns.
		st.Run(conn, ctx.Response.Header.Header())
	})
	return nil
}

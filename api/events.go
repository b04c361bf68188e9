package api

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"insectscore/api/live"
	"insectscore/scoring"
)

// sourcedBroker is a live.Broker that hears of changes made by other
// replicas and needs this server to rebuild a table's event
// (live.PGBroker).
type sourcedBroker interface {
	SetSource(live.Source)
}

// tableEvent builds the live event of a table changed on another
// replica: from told, the event as that replica told it (toldView), or,
// when told is nil, cannot be read or is of a version built here before,
// from the table as it is now.
func (s *server) tableEvent(ctx context.Context, code string, told []byte) (ev live.Event, read bool, err error) {
	if told != nil {
		v, data, err := fromTold(told)
		switch last, seen := s.recent.Version(code); {
		case err != nil || v.Code != code:
			s.log.Warn("live update: cannot read what another replica told; reading the table", "code", code, "err", err)
		case !seen || v.Version > last:
			return s.eventOf(code, v, data), false, nil
		}
		// A version this replica has built already: a change that
		// leaves the version alone (a seat's sync state) may have been
		// made since, here or on a third replica, and what was told
		// would take it back. The table as it stands is right.
	}
	st, err := s.store.ReadTable(ctx, code)
	if err != nil {
		return live.Event{}, true, err
	}
	ev, err = s.event(code, view(st, s.cfg.Now()))
	return ev, true, err
}

// event builds the live event of the table v of code in English, with
// its delta from the table's last event and its variants in the other
// languages (live.Recent.Event): the table in another language is made
// only when a stream in it first needs it.
func (s *server) event(code string, v tableView) (live.Event, error) {
	data, err := marshalJSON(v)
	if err != nil {
		return live.Event{}, err
	}
	return s.eventOf(code, v, data), nil
}

// eventOf is event for v whose JSON is data.
func (s *server) eventOf(code string, v tableView, data []byte) live.Event {
	ev := s.recent.Event(code, v.Version, data, func(lang string) ([]byte, bool) {
		cat := catalogFor(lang)
		if cat == nil {
			return nil, false
		}
		ldata, err := marshalJSON(v.in(cat))
		return ldata, err == nil
	})
	if v.tracked == nil {
		// A tracked table's log is its tracker's to write in each
		// language: the other replicas read the table.
		ev.Told = func() []byte { return told(v, data) }
	}
	return ev
}

// toldView is a table's event as one replica tells the others, so that
// they need not read and score the table again: its JSON as the streams
// get it (in English), and the messages that JSON holds only in English,
// by key, for the streams in other languages.
type toldView struct {
	Data     json.RawMessage         `json:"d,omitempty"`
	Messages *scoring.ResultMessages `json:"m,omitempty"`
	Errors   []scoring.Message       `json:"e,omitempty"`
}

// told is v's toldView, data being v's JSON, compressed (DEFLATE, then
// base64, as a notification is text): a full table of four Insecta boards
// is 10.6 KB of JSON and about 3 KB told, within NOTIFY's 8000 bytes.
// Nil if it cannot be written.
func told(v tableView, data []byte) []byte {
	var t toldView
	if v.Standings != nil {
		if m := v.Standings.Messages(); !m.IsZero() {
			t.Messages = &m
		}
	}
	if len(v.Errors) > 0 {
		t.Errors = make([]scoring.Message, len(v.Errors))
		for i, fe := range v.Errors {
			t.Errors[i] = fe.Message()
		}
	}
	// data goes in as it is: encoding it again as a json.RawMessage
	// would scan and copy the whole table once more.
	rest, err := marshalJSON(t)
	if err != nil {
		return nil
	}
	var buf bytes.Buffer
	enc := base64.NewEncoder(base64.StdEncoding, &buf)
	zw := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(zw)
	zw.Reset(enc)
	zw.Write([]byte(`{"d":`))
	zw.Write(data)
	if len(rest) > len("{}") {
		zw.Write([]byte{','})
		zw.Write(rest[1:])
	} else {
		zw.Write([]byte{'}'})
	}
	if zw.Close() != nil || enc.Close() != nil {
		return nil
	}
	return buf.Bytes()
}

// inflaters keeps DEFLATE readers for fromTold.
var inflaters sync.Pool

// deflaters keeps DEFLATE writers for told: each is a megabyte of state.
var deflaters = sync.Pool{New: func() any {
	zw, _ := flate.NewWriter(nil, flate.BestSpeed) // a valid level: no error
	return zw
}}

// maxTold bounds a told table read back, against a notification that
// would inflate without end: ten times the largest table's JSON.
const maxTold = 1 << 20

// fromTold reads a toldView back: the table and its JSON as told.
func fromTold(b []byte) (tableView, []byte, error) {
	src := base64.NewDecoder(base64.StdEncoding, bytes.NewReader(b))
	zr, _ := inflaters.Get().(io.ReadCloser)
	if zr == nil {
		zr = flate.NewReader(src)
	} else if err := zr.(flate.Resetter).Reset(src, nil); err != nil {
		return tableView{}, nil, err
	}
	defer inflaters.Put(zr)
	var t toldView
	if err := json.NewDecoder(io.LimitReader(zr, maxTold)).Decode(&t); err != nil {
		return tableView{}, nil, err
	}
	var v tableView
	if err := json.Unmarshal(t.Data, &v); err != nil {
		return tableView{}, nil, err
	}
	if v.Standings != nil && t.Messages != nil {
		v.Standings.SetMessages(*t.Messages)
	}
	if len(t.Errors) == len(v.Errors) {
		for i, fe := range v.Errors {
			if !t.Errors[i].IsZero() {
				v.Errors[i] = scoring.FieldErrorOf(fe.Pointer, t.Errors[i])
				v.Errors[i].Pointers = fe.Pointers
			}
		}
	}
	return v, t.Data, nil
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
	first, err := marshalJSON(v.in(catalogFor(lang)))
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

// Package live carries a table's changes to the phones that follow it:
// the brokers that hand a change on (within one process, or across
// replicas through PostgreSQL LISTEN/NOTIFY), the hubs that share one
// subscription among the streams of a table, the streams that write
// Server-Sent Events to each client, the deltas that send a small change
// instead of the whole table, and the table in each client's language.
//
// It knows tables only as JSON: api builds a change's JSON (and its JSON
// in another language, when a stream asks) and hands it here, so the
// transport can change without touching the handlers, and the handlers
// without touching the transport.
package live

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
)

// Broker carries table updates to the hubs of the event streams. The
// in-process MemoryBroker serves one server; PGBroker serves several
// replicas that share one PostgreSQL database.
type Broker interface {
	Subscribe(code string) *Subscription
	Publish(code string, ev Event)
}

// Event is one live update of a table: its version and its JSON.
type Event struct {
	Version int
	Data    []byte
	// id is ID, worked out once by Recent.Event.
	id string
	// Delta, when set, is what changed since an earlier event of the
	// table: a stream whose client has exactly that event's table may
	// send it instead of the whole table.
	Delta *Delta
	// Variants, when set, builds the event again for the streams that
	// want it another way (the table in another language), once for
	// each way some stream wants.
	Variants *Variants
	// Told, when set, is the event as the other replicas can rebuild it
	// without reading the table (PGBroker sends it in the notification
	// when it fits); nil when they must read it.
	Told func() []byte
	// frame is Frame, built once by Publish and shared by every
	// subscriber, so a thousand streams do not each format the table.
	frame []byte
}

// Variants are the other forms of an event, each built the first time a
// stream asks for it and then shared by every stream that wants it.
type Variants struct {
	mu    sync.Mutex
	m     map[string]*Event
	build func(kind string) (Event, bool)
}

// NewVariants returns the variants build makes of an event: the event of
// a kind, or false when there is none (the stream then takes the event
// itself).
func NewVariants(build func(kind string) (Event, bool)) *Variants {
	return &Variants{m: map[string]*Event{}, build: build}
}

// Get returns the event of kind with its frame, built once; nil when
// there is none.
func (v *Variants) Get(kind string) *Event {
	v.mu.Lock()
	defer v.mu.Unlock()
	if e, ok := v.m[kind]; ok {
		return e
	}
	var e *Event
	if ev, ok := v.build(kind); ok {
		ev.frame = ev.Frame()
		e = &ev
	}
	v.m[kind] = e
	return e
}

// Frame returns the event as an event stream sends it: a Server-Sent
// Events "table" event whose id is ID and whose data is the JSON (one
// line: JSON from encoding/json holds no raw newline).
func (ev Event) Frame() []byte {
	if ev.frame != nil {
		return ev.frame
	}
	return appendFrame(ev.ID(), "table", ev.Data)
}

// ID returns the event id of the event: the version, a dot and a hash of
// the table JSON (eventID).
func (ev Event) ID() string {
	if ev.id != "" {
		return ev.id
	}
	return eventID(ev.Version, ev.Data)
}

// eventID is the event id of the table JSON data at version: the
// version, a dot and 16 hex digits of the data's SHA-256. It names the
// table JSON a client holds, not only its version: a change that leaves
// the version alone (a seat's sync state) has an id of its own, and so
// does the same table in another language, or another table at the same
// version (the JSON holds the table's code). A client that resumes with
// it (Last-Event-ID) is sent the table at once unless it is exactly the
// table it has. The version in front keeps ids readable in a log.
func eventID(version int, data []byte) string {
	sum := sha256.Sum256(data)
	id := make([]byte, 0, 20+1+16)
	id = strconv.AppendInt(id, int64(version), 10)
	id = append(id, '.')
	return string(hex.AppendEncode(id, sum[:8]))
}

// Delta is what changed between two events of a table. It is worked out
// when a stream first asks for it, once for every stream: a table that no
// stream follows with deltas never pays for it.
type Delta struct {
	// Base is the Data of the event the delta starts from.
	Base []byte
	// id is the id of the event the delta leads to.
	id    string
	once  sync.Once
	build func() []byte
	frame []byte
}

// NewDelta returns the delta from the event whose Data is base to the
// event to; build works out its JSON, or nil when the whole table is as
// good.
func NewDelta(base []byte, to Event, build func() []byte) *Delta {
	return &Delta{Base: base, id: to.ID(), build: build}
}

// Frame returns the delta as an event stream sends it: a "delta" event
// whose id is that of the event it leads to, since the client then holds
// that event's table, and resumes with its id; nil when there is no delta
// worth sending.
func (d *Delta) Frame() []byte {
	d.once.Do(func() {
		if data := d.build(); data != nil {
			d.frame = appendFrame(d.id, "delta", data)
		}
		d.build = nil
	})
	return d.frame
}

func appendFrame(id, name string, data []byte) []byte {
	frame := make([]byte, 0, len(data)+len(id)+30)
	frame = append(frame, "id: "...)
	frame = append(frame, id...)
	frame = append(frame, "\nevent: "...)
	frame = append(frame, name...)
	frame = append(frame, "\ndata: "...)
	frame = append(frame, data...)
	return append(frame, "\n\n"...)
}

// MemoryBroker fans table updates out to the subscribers of one process.
// A subscriber that falls behind only ever needs the newest state, so each
// subscription holds at most one pending event and a newer one replaces it.
// An event at the same version counts as newer: it carries a change that
// leaves the version alone (what a seat's phone reports of its unsent
// edits), published after the one it replaces.
type MemoryBroker struct {
	mu     sync.Mutex
	subs   map[string]map[*Subscription]struct{}
	closed bool
}

// Subscription receives the updates of one table until Close.
type Subscription struct {
	// C is signalled when Latest has a newer event; it is closed when the
	// broker shuts down.
	C      chan struct{}
	mu     sync.Mutex
	latest *Event
	code   string
	b      *MemoryBroker
}

// NewMemoryBroker returns an empty in-process broker.
func NewMemoryBroker() *MemoryBroker {
	return &MemoryBroker{subs: map[string]map[*Subscription]struct{}{}}
}

// Subscribe starts receiving the updates of the table with code.
func (b *MemoryBroker) Subscribe(code string) *Subscription {
	s := &Subscription{C: make(chan struct{}, 1), code: code, b: b}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		close(s.C)
		return s
	}
	if b.subs[code] == nil {
		b.subs[code] = map[*Subscription]struct{}{}
	}
	b.subs[code][s] = struct{}{}
	return s
}

// Publish hands ev to every subscriber of the table with code. It never
// blocks on a slow subscriber.
func (b *MemoryBroker) Publish(code string, ev Event) {
	ev.frame = ev.Frame()
	b.mu.Lock()
	defer b.mu.Unlock()
	for s := range b.subs[code] {
		s.offer(ev)
	}
}

// Close ends every subscription, so open event streams finish and the
// server can shut down.
func (b *MemoryBroker) Close() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return
	}
	b.closed = true
	for _, set := range b.subs {
		for s := range set {
			close(s.C)
		}
	}
	b.subs = nil
}

func (s *Subscription) offer(ev Event) {
	s.mu.Lock()
	if s.latest == nil || ev.Version >= s.latest.Version {
		s.latest = &ev
	}
	s.mu.Unlock()
	select {
	case s.C <- struct{}{}:
	default: // already signalled; Latest will return the newest event
	}
}

// Latest returns the newest event not yet taken, if any.
func (s *Subscription) Latest() (Event, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.latest == nil {
		return Event{}, false
	}
	ev := *s.latest
	s.latest = nil
	return ev, true
}

// Close stops the subscription.
func (s *Subscription) Close() {
	s.b.mu.Lock()
	defer s.b.mu.Unlock()
	if set := s.b.subs[s.code]; set != nil {
		delete(set, s)
		if len(set) == 0 {
			delete(s.b.subs, s.code)
		}
	}
}

// Subscribers returns how many subscriptions are open: the live event
// streams this process serves.
func (b *MemoryBroker) Subscribers() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, set := range b.subs {
		n += len(set)
	}
	return n
}

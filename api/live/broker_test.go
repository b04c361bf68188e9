package live

import (
	"regexp"
	"testing"
	"time"
)

func TestMemoryBroker(t *testing.T) {
	b := NewMemoryBroker()
	sub := b.Subscribe("ABC234")
	other := b.Subscribe("XYZ789")
	b.Publish("ABC234", Event{Version: 1, Data: []byte("one")})
	b.Publish("ABC234", Event{Version: 2, Data: []byte("two")})
	b.Publish("ABC234", Event{Version: 1, Data: []byte("stale")})
	select {
	case <-sub.C:
	case <-time.After(time.Second):
		t.Fatal("no signal")
	}
	got, ok := sub.Latest()
	if !ok || got.Version != 2 || string(got.Data) != "two" {
		t.Fatalf("Latest = %+v %v, want version 2 (newest wins, stale ignored)", got, ok)
	}
	if _, ok := sub.Latest(); ok {
		t.Error("Latest returned the same event twice")
	}
	// A change that leaves the version alone replaces the pending event.
	b.Publish("ABC234", Event{Version: 3, Data: []byte("three")})
	b.Publish("ABC234", Event{Version: 3, Data: []byte("three, synced")})
	if got, ok := sub.Latest(); !ok || string(got.Data) != "three, synced" {
		t.Fatalf("Latest = %+v %v, want the later event at version 3", got, ok)
	}
	if _, ok := other.Latest(); ok {
		t.Error("an event leaked to another table")
	}
	sub.Close()
	b.Publish("ABC234", Event{Version: 4})
	if _, ok := sub.Latest(); ok {
		t.Error("a closed subscription still receives")
	}
	b.Close()
	if _, open := <-other.C; open {
		t.Error("Close did not end the subscription")
	}
	late := b.Subscribe("ABC234")
	if _, open := <-late.C; open {
		t.Error("subscribing to a closed broker gives an open channel")
	}
}

// TestEventID: an event id is the version, a dot and 16 hex digits that
// name the table JSON: one for the same JSON, another for other JSON at
// the same version (a seat's sync state, another language, another
// table).
func TestEventID(t *testing.T) {
	abc := []byte(`{"code":"ABC234","version":3,"sync":"saved"}`)
	id := Event{Version: 3, Data: abc}.ID()
	if !regexp.MustCompile(`^3\.[0-9a-f]{16}$`).MatchString(id) {
		t.Fatalf("ID() = %q, want 3.<16 hex digits>", id)
	}
	if again := (Event{Version: 3, Data: []byte(string(abc))}).ID(); again != id {
		t.Errorf("the same JSON has ids %q and %q", id, again)
	}
	if recent := NewRecent().Event("ABC234", 3, abc, nil); recent.ID() != id {
		t.Errorf("Recent.Event's id %q, want %q", recent.ID(), id)
	}
	for name, data := range map[string]string{
		"a sync change":  `{"code":"ABC234","version":3,"sync":"unsent"}`,
		"another table":  `{"code":"XYZ789","version":3,"sync":"saved"}`,
		"another format": `{"code": "ABC234", "version": 3, "sync": "saved"}`,
	} {
		if other := (Event{Version: 3, Data: []byte(data)}).ID(); other == id {
			t.Errorf("%s: the id %q of other JSON", name, other)
		}
	}
}

// TestEventFrame: the frame is the Server-Sent Events block a stream
// sends, and Publish builds it once for every subscriber.
func TestEventFrame(t *testing.T) {
	ev := Event{Version: 12, Data: []byte(`{"code": "ABC234"}`)}
	want := "id: " + eventID(12, ev.Data) + "\nevent: table\ndata: {\"code\": \"ABC234\"}\n\n"
	if got := string(ev.Frame()); got != want {
		t.Errorf("Frame() = %q, want %q", got, want)
	}
	b := NewMemoryBroker()
	defer b.Close()
	one, two := b.Subscribe("ABC234"), b.Subscribe("ABC234")
	b.Publish("ABC234", ev)
	a, _ := one.Latest()
	c, _ := two.Latest()
	if got := string(a.Frame()); got != want {
		t.Errorf("published Frame() = %q, want %q", got, want)
	}
	if &a.Frame()[0] != &c.Frame()[0] {
		t.Error("each subscriber has its own copy of the frame, want one shared")
	}
}

// TestDeltaFrame: a delta is worked out once, when a stream first asks,
// and framed as a "delta" event with the id of the table it leads to;
// none worth sending gives no frame.
func TestDeltaFrame(t *testing.T) {
	built := 0
	to := Event{Version: 2, Data: []byte(`{"version":2}`)}
	d := NewDelta([]byte(`{"version":1}`), to, func() []byte { built++; return []byte(`{"from":1}`) })
	if built != 0 {
		t.Fatal("the delta was built before anyone asked")
	}
	want := "id: " + to.ID() + "\nevent: delta\ndata: {\"from\":1}\n\n"
	for range 3 {
		if got := string(d.Frame()); got != want {
			t.Errorf("Frame() = %q, want %q", got, want)
		}
	}
	if built != 1 {
		t.Errorf("built %d times, want once", built)
	}
	if f := NewDelta(nil, Event{Version: 3}, func() []byte { return nil }).Frame(); f != nil {
		t.Errorf("a delta not worth sending framed as %q", f)
	}
}

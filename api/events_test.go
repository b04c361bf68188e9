package api

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/api/live"
	"insectscore/models"
)

// Live updates over a real listener: the stream is read with net/http the
// way a browser's EventSource reads it.

// eventWait bounds every wait for a block of the stream, so a missing event
// fails the test instead of hanging it.
const eventWait = 5 * time.Second

// sseBlock is one block of an event stream: the fields up to a blank line.
type sseBlock struct {
	id, event, data, retry, comment string
}

// eventIDPattern is an event id: the table version, a dot and a hash of
// the table JSON the client then holds.
var eventIDPattern = regexp.MustCompile(`^[0-9]+\.[0-9a-f]{16}$`)

// idVersion is the table version an event id names: what comes before
// its dot.
func idVersion(id string) string {
	v, _, _ := strings.Cut(id, ".")
	return v
}

// serveLive runs a new app with its own broker on a real listener. The
// broker is closed before the server shuts down, as main does, so open
// streams end and the shutdown does not wait for them.
func serveLive(t *testing.T, cfg Config) (*fiber.App, string) {
	t.Helper()
	broker, ok := cfg.Broker.(interface{ Close() })
	if cfg.Broker == nil {
		b := live.NewMemoryBroker()
		cfg.Broker, broker, ok = b, b, true
	}
	app, _ := newTestAppWith(t, cfg)
	base := serve(t, app)
	if ok {
		t.Cleanup(broker.Close)
	}
	return app, base
}

// httpCall sends one request over the network, checks the answer against
// the OpenAPI document, and returns it.
func httpCall(t testing.TB, method, rawURL, body string, header map[string]string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), eventWait)
	defer cancel()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, rd)
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := response{status: resp.StatusCode, header: resp.Header, body: b}
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	checkOpenAPI(t, method, u.Path, r)
	return r
}

// mustHTTP is httpCall that wants status.
func mustHTTP(t testing.TB, method, rawURL, body string, header map[string]string, status int) response {
	t.Helper()
	r := httpCall(t, method, rawURL, body, header)
	if r.status != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, rawURL, r.status, status, r.body)
	}
	return r
}

// openEvents opens a table's event stream, resuming after lastID unless it
// is empty, and delivers its blocks until the test ends.
func openEvents(t *testing.T, base, code, lastID string) <-chan sseBlock {
	t.Helper()
	return openEventsAt(t, base+"/api/v1/tables/"+code+"/events", lastID)
}

// openEventsAt is openEvents of the stream at url.
func openEventsAt(t *testing.T, url, lastID string, header ...map[string]string) <-chan sseBlock {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	req, err := http.NewRequestWithContext(ctx, "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	for _, h := range header {
		for k, v := range h {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("GET events: status %d: %s", resp.StatusCode, b)
	}
	wantHeader := map[string]string{"Content-Type": "text/event-stream", "Cache-Control": "no-store", "Content-Language": "en"}
	if len(header) > 0 && header[0]["Accept-Language"] != "" {
		wantHeader["Content-Language"] = negotiate(header[0]["Accept-Language"])
	}
	for k, want := range wantHeader {
		if got := resp.Header.Get(k); got != want {
			t.Errorf("events %s = %q, want %q", k, got, want)
		}
	}
	ch := make(chan sseBlock)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		var b sseBlock
		for sc.Scan() {
			line := sc.Text()
			if line == "" {
				select {
				case ch <- b:
				case <-ctx.Done():
					return
				}
				b = sseBlock{}
				continue
			}
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "":
				b.comment = value
			case "id":
				b.id = value
				if !eventIDPattern.MatchString(value) {
					t.Errorf("event id %q, want <version>.<16 hex digits>", value)
				}
			case "event":
				b.event = value
			case "data":
				if b.data != "" {
					b.data += "\n"
				}
				b.data += value
			case "retry":
				b.retry = value
			default:
				t.Errorf("unknown event stream field in %q", line)
			}
		}
	}()
	return ch
}

// nextBlock waits for the stream's next block.
func nextBlock(t *testing.T, ch <-chan sseBlock) sseBlock {
	t.Helper()
	select {
	case b, ok := <-ch:
		if !ok {
			t.Fatal("the event stream ended")
		}
		return b
	case <-time.After(eventWait):
		t.Fatalf("no event within %s", eventWait)
	}
	return sseBlock{}
}

// nextTable waits for the stream's next table event, passing over
// heartbeats, and returns its id with the table it carries, whose version
// the id names.
func nextTable(t *testing.T, ch <-chan sseBlock) (string, tableView) {
	t.Helper()
	for {
		b := nextBlock(t, ch)
		if b.event == "" && b.data == "" {
			continue
		}
		if b.event != "table" {
			t.Fatalf("event %q, want table", b.event)
		}
		var v tableView
		if err := json.Unmarshal([]byte(b.data), &v); err != nil {
			t.Fatalf("event data is not a table: %v: %s", err, b.data)
		}
		if idVersion(b.id) != strconv.Itoa(v.Version) {
			t.Errorf("event id %s for the table at version %d", b.id, v.Version)
		}
		return b.id, v
	}
}

// wantRetry reads the block every stream opens with: the reconnect delay.
// Once it has come, the stream is subscribed to the table's changes.
func wantRetry(t *testing.T, ch <-chan sseBlock) {
	t.Helper()
	if b := nextBlock(t, ch); b.retry != "2000" || b.event != "" {
		t.Fatalf("first block %+v, want retry: 2000", b)
	}
}

// sameJSON wants two JSON texts to hold the same value.
func sameJSON(t *testing.T, what string, got, want []byte) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("%s: %v: %s", what, err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: want: %v: %s", what, err, want)
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	if string(gb) != string(wb) {
		t.Errorf("%s = %s, want %s", what, gb, wb)
	}
}

// TestEventsFollowChanges: an open stream gets the table at once, then
// every change: a board, a join and the finish.
func TestEventsFollowChanges(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insektenhotel", "players": ["Ana", "Ben"]}`, nil, 201))
	host := bearer(ct.HostToken)
	events := openEvents(t, base, ct.Code, "")
	wantRetry(t, events)

	id, v := nextTable(t, events)
	if idVersion(id) != "1" || v.Version != 1 || v.Code != ct.Code || v.Status != "open" || len(v.Seats) != 2 {
		t.Fatalf("first event id %s: %+v, want the table at version 1", id, v)
	}

	board := hotelJSON("blue", "bee:2", "ant:1", "fly:0")
	saved := decodeJSON[struct{ Version int }](t, mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), board, host, 200))
	id, v = nextTable(t, events)
	if idVersion(id) != "2" || v.Version != 2 || saved.Version != 2 {
		t.Fatalf("after the PUT: event id %s, version %d, PUT answered %d; want 2", id, v.Version, saved.Version)
	}
	sameJSON(t, "seat 0's board", v.Seats[0].Board, []byte(board))
	if v.Standings == nil || v.Standings.Results[0].Total != 3 {
		t.Errorf("standings %+v, want Ana at 3 guests", v.Standings)
	}

	mustHTTP(t, "POST", base+"/api/v1/tables/"+ct.Code+"/seats", `{"name": "Cleo"}`, nil, 201)
	id, v = nextTable(t, events)
	if idVersion(id) != "3" || len(v.Seats) != 3 || v.Seats[2].Name != "Cleo" {
		t.Fatalf("after the join: event id %s, seats %+v", id, v.Seats)
	}

	mustHTTP(t, "POST", base+"/api/v1/tables/"+ct.Code+"/seats/1/claim", "", nil, 200)
	if id, v = nextTable(t, events); idVersion(id) != "4" || !v.Seats[1].Claimed {
		t.Fatalf("after the claim: event id %s, seats %+v", id, v.Seats)
	}

	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), hotelJSON("blue", "bee:2", "ant:2", "fly:2"), host, 200)
	if id, _ = nextTable(t, events); idVersion(id) != "5" {
		t.Fatalf("after the second PUT: event id %s, want 5", id)
	}
	mustHTTP(t, "POST", base+"/api/v1/tables/"+ct.Code+"/finish", "", host, 200)
	id, v = nextTable(t, events)
	if idVersion(id) != "6" || v.Status != "finished" || v.Standings == nil || len(v.Standings.Winners) != 1 {
		t.Fatalf("after finishing: event id %s: %+v", id, v)
	}
}

// TestEventsResume: a stream resumed with the Last-Event-ID of the current
// table gets no table at once, only the next change; any other id gets
// the table at once: one of an older version, one ahead of the table (say,
// from before a restore), a bare version (an id from before ids named the
// table JSON) and an unreadable one.
func TestEventsResume(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana", "Ben"]}`, nil, 201))
	host := bearer(ct.HostToken)
	first := openEvents(t, base, ct.Code, "")
	wantRetry(t, first)
	old, _ := nextTable(t, first)
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), `{"track": 3}`, host, 200) // version 2
	now, _ := nextTable(t, first)
	if idVersion(old) != "1" || idVersion(now) != "2" {
		t.Fatalf("event ids %s and %s, want versions 1 and 2", old, now)
	}

	current := openEvents(t, base, ct.Code, now)
	wantRetry(t, current)
	others := map[string]<-chan sseBlock{
		"behind":       openEvents(t, base, ct.Code, old),
		"ahead":        openEvents(t, base, ct.Code, "99"+now[1:]),
		"bare version": openEvents(t, base, ct.Code, "2"),
		"garbled":      openEvents(t, base, ct.Code, "yesterday"),
	}
	for name, ch := range others {
		wantRetry(t, ch)
		if id, v := nextTable(t, ch); id != now || v.Version != 2 {
			t.Fatalf("%s: event id %s version %d, want the current table at once, id %s", name, id, v.Version, now)
		}
	}

	// The next table event of the up-to-date stream must be the next
	// change: had the stream sent the table at once, it would be version 2.
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 1), `{"track": 5}`, host, 200) // version 3
	others["current"] = current
	for name, ch := range others {
		id, v := nextTable(t, ch)
		if idVersion(id) != "3" || v.Version != 3 {
			t.Errorf("%s stream: event id %s version %d, want 3", name, id, v.Version)
			continue
		}
		sameJSON(t, name+" stream: seat 1's board", v.Seats[1].Board, []byte(`{"track": 5}`))
	}
}

// TestEventsResumeAfterSyncChange: a seat's sync state changes the table
// but not its version; the event id changes with it. A host's screen that
// resumes with the id it had before the change gets the table at once,
// rather than keep showing "saved" while the server says "unsent"; one
// that resumes with the id after it gets no table twice.
func TestEventsResumeAfterSyncChange(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana", "Ben"]}`, nil, 201))
	host := bearer(ct.HostToken)
	events := openEvents(t, base, ct.Code, "")
	wantRetry(t, events)
	saved, v := nextTable(t, events)
	if v.Seats[1].Sync.State != models.SyncSaved {
		t.Fatalf("Ben %+v, want saved", v.Seats[1].Sync)
	}
	mustHTTP(t, "PUT", base+syncPath(ct.Code, 1), `{"unsent": 1, "unsentSeconds": 3}`, host, 200)
	unsent, v := nextTable(t, events)
	if idVersion(unsent) != "1" || v.Seats[1].Sync.State != models.SyncUnsent {
		t.Fatalf("after the report: event id %s, Ben %+v; want version 1, unsent", unsent, v.Seats[1].Sync)
	}
	if unsent == saved {
		t.Errorf("the event id %s before the sync change and after it, want another", saved)
	}

	stale := openEvents(t, base, ct.Code, saved)
	current := openEvents(t, base, ct.Code, unsent)
	wantRetry(t, stale)
	wantRetry(t, current)
	if id, v := nextTable(t, stale); id != unsent || v.Seats[1].Sync.State != models.SyncUnsent {
		t.Fatalf("resumed from before the sync change: event id %s, Ben %+v; want the table at once, id %s, unsent", id, v.Seats[1].Sync, unsent)
	}
	// The next table event of the up-to-date stream must be the next
	// change, not the table it has.
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), `{"track": 3}`, host, 200) // version 2
	for name, ch := range map[string]<-chan sseBlock{"open": events, "resumed from before": stale, "resumed": current} {
		if id, v := nextTable(t, ch); idVersion(id) != "2" || v.Seats[1].Sync.State != models.SyncUnsent {
			t.Errorf("%s: event id %s, Ben %+v; want the board at 2, Ben unsent", name, id, v.Seats[1].Sync)
		}
	}
}

// TestEventsResumeFromAnotherTable: an event id names one table JSON.
// A Last-Event-ID taken from another table's stream at the same version
// does not hold back this table's first event, nor does one from this
// table's stream in another language (the stream sends its own JSON).
func TestEventsResumeFromAnotherTable(t *testing.T) {
	_, base := serveLive(t, Config{})
	a := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables", `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`, nil, 201))
	b := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables", `{"game": "insektenhotel", "players": ["Cleo", "Dev"]}`, nil, 201))
	for _, ct := range []createdTable{a, b} { // both at version 2, with standings to translate
		mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), hotelJSON("blue", "bee:2", "ant:1", "fly:0"), bearer(ct.HostToken), 200)
	}
	url := base + "/api/v1/tables/" + b.Code + "/events"
	en := map[string]string{"Accept-Language": "en"}
	de := map[string]string{"Accept-Language": "de"}
	// first reads the id of a new stream's first table.
	first := func(url string, h map[string]string) string {
		t.Helper()
		ch := openEventsAt(t, url, "", h)
		wantRetry(t, ch)
		id, _ := nextTable(t, ch)
		return id
	}
	ofA, ofB, ofBde := first(base+"/api/v1/tables/"+a.Code+"/events", en), first(url, en), first(url, de)
	if idVersion(ofA) != "2" || idVersion(ofB) != "2" || ofA == ofB || ofBde == ofB {
		t.Errorf("event ids: table A %s, table B %s, B in German %s; want three ids at version 2", ofA, ofB, ofBde)
	}

	label := func(v tableView) string { return v.Standings.Results[0].Breakdown[0].Label }
	type resumed struct {
		ch    <-chan sseBlock
		label string
		first string // the id of the table sent at once, "" for none
	}
	streams := map[string]resumed{
		"with table A's id":         {openEventsAt(t, url, ofA, en), "Guests", ofB},
		"in German with English id": {openEventsAt(t, url, ofB, de), "Gäste", ofBde},
		"in English with German id": {openEventsAt(t, url, ofBde, en), "Guests", ofB},
		"with its own id":           {openEventsAt(t, url, ofB, en), "Guests", ""},
		"in German with its own id": {openEventsAt(t, url, ofBde, de), "Gäste", ""},
	}
	for name, st := range streams {
		wantRetry(t, st.ch)
		if st.first == "" {
			continue
		}
		if id, v := nextTable(t, st.ch); id != st.first || v.Code != b.Code || label(v) != st.label {
			t.Fatalf("resumed %s: event id %s of table %s, label %q; want table %s at once, id %s, %q", name, id, v.Code, label(v), b.Code, st.first, st.label)
		}
	}
	// The streams resumed with their own id get the next change first.
	mustHTTP(t, "PUT", base+boardPath(b.Code, 1), hotelJSON("green", "bee:1", "ant:1", "fly:1"), bearer(b.HostToken), 200)
	for name, st := range streams {
		if id, v := nextTable(t, st.ch); idVersion(id) != "3" || v.Code != b.Code || label(v) != st.label {
			t.Errorf("resumed %s: event id %s of table %s, label %q; want table %s at 3, %q", name, id, v.Code, label(v), b.Code, st.label)
		}
	}
}

// TestEventsDeltaIDs: a "delta" event's id is that of the whole table it
// leads to, so a stream resumed after a delta, also one of a sync change,
// is known to hold that table: it gets no table at once and goes on with
// deltas; one resumed with the id from before the sync change gets the
// whole table.
func TestEventsDeltaIDs(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct, host, board := fullInsectaTable(t, base)
	events := base + "/api/v1/tables/" + ct.Code + "/events"
	whole, deltas := openEventsAt(t, events, ""), openEventsAt(t, events+"?deltas=1", "")
	wantRetry(t, whole)
	wantRetry(t, deltas)
	nextTable(t, whole)
	if ev := nextEvent(t, deltas); ev.event != "table" {
		t.Fatalf("first event %q, want the table", ev.event)
	}
	// want reads the delta stream's next event: name, at id.
	want := func(ch <-chan sseBlock, what, name, id string) sseBlock {
		t.Helper()
		ev := nextEvent(t, ch)
		if ev.event != name || ev.id != id {
			t.Fatalf("%s: event %q id %s, want %q id %s", what, ev.event, ev.id, name, id)
		}
		return ev
	}

	mustHTTP(t, "PUT", base+boardPath(ct.Code, 2), board(2, 17), host, 200)
	saved, _ := nextTable(t, whole)
	want(deltas, "a board saved", "delta", saved)
	mustHTTP(t, "PUT", base+syncPath(ct.Code, 1), `{"unsent": 3, "unsentSeconds": 4}`, host, 200)
	synced, _ := nextTable(t, whole)
	if idVersion(synced) != idVersion(saved) || synced == saved {
		t.Errorf("the sync change's event id %s, the board's %s; want another id at the same version", synced, saved)
	}
	want(deltas, "a phone's sync state", "delta", synced)

	resumed := openEventsAt(t, events+"?deltas=1", synced)
	stale := openEventsAt(t, events+"?deltas=1", saved)
	wantRetry(t, resumed)
	wantRetry(t, stale)
	want(stale, "resumed from before the sync change", "table", synced)
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), board(0, 21), host, 200)
	next, _ := nextTable(t, whole)
	for name, ch := range map[string]<-chan sseBlock{"open": deltas, "resumed": resumed, "resumed from before": stale} {
		ev := want(ch, name+": another board", "delta", next)
		var d struct{ From, Version int }
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil || strconv.Itoa(d.Version) != idVersion(next) {
			t.Errorf("%s: delta %s, want one to version %s", name, ev.data, idVersion(next))
		}
	}
}

// TestEventsHeartbeat: an idle stream gets comment lines.
func TestEventsHeartbeat(t *testing.T) {
	_, base := serveLive(t, Config{Heartbeat: 50 * time.Millisecond})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana"]}`, nil, 201))
	events := openEvents(t, base, ct.Code, "")
	wantRetry(t, events)
	if id, _ := nextTable(t, events); idVersion(id) != "1" {
		t.Fatalf("first event id %s, want 1", id)
	}
	for range 2 {
		if b := nextBlock(t, events); b.comment != "heartbeat" || b.event != "" || b.data != "" {
			t.Fatalf("block %+v, want a heartbeat comment", b)
		}
	}
}

// TestEventsUnknownTable: a stream of no table is a 404 problem.
func TestEventsUnknownTable(t *testing.T) {
	_, base := serveLive(t, Config{})
	r := mustHTTP(t, "GET", base+"/api/v1/tables/ZZZZZZ/events", "", nil, 404)
	if ct := r.header.Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type %q", ct)
	}
}

// slippingBroker is the real in-process broker with one change slipped in
// just before the first subscription: the moment when a stream has read
// the table but is not yet listening, if it does those in that order.
type slippingBroker struct {
	*live.MemoryBroker
	once   sync.Once
	mu     sync.Mutex
	change func()
}

func (b *slippingBroker) Subscribe(code string) *live.Subscription {
	b.once.Do(func() {
		b.mu.Lock()
		change := b.change
		b.mu.Unlock()
		change()
	})
	return b.MemoryBroker.Subscribe(code)
}

// TestEventsChangeWhileOpening: a change saved while a stream is opening
// reaches it; it must not show the table as it was until the next change.
func TestEventsChangeWhileOpening(t *testing.T) {
	broker := &slippingBroker{MemoryBroker: live.NewMemoryBroker()}
	_, base := serveLive(t, Config{Broker: broker})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana"]}`, nil, 201))
	slipped := make(chan int, 1)
	broker.mu.Lock()
	broker.change = func() {
		// This runs in the server: report the status rather than fail here.
		req, _ := http.NewRequest("PUT", base+boardPath(ct.Code, 0), strings.NewReader(`{"track": 7}`))
		req.Header.Set("Authorization", "Bearer "+ct.HostToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			slipped <- 0
			return
		}
		resp.Body.Close()
		slipped <- resp.StatusCode
	}
	broker.mu.Unlock()

	events := openEvents(t, base, ct.Code, "")
	if status := <-slipped; status != 200 {
		t.Fatalf("the slipped-in PUT answered %d", status)
	}
	wantRetry(t, events)
	id, v := nextTable(t, events)
	if idVersion(id) == "1" {
		// The stream read the table before the PUT; the PUT's event must follow.
		id, v = nextTable(t, events)
	}
	if idVersion(id) != "2" || v.Version != 2 {
		t.Fatalf("event id %s version %d, want the table after the PUT at 2", id, v.Version)
	}
	sameJSON(t, "seat 0's board", v.Seats[0].Board, []byte(`{"track": 7}`))
	// And only once: the next table event is the next change.
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), `{"track": 8}`, bearer(ct.HostToken), 200)
	if id, _ := nextTable(t, events); idVersion(id) != "3" {
		t.Fatalf("event id %s after the second PUT, want 3", id)
	}
}

// TestEventsSurviveOtherRequests: a stream keeps its table while the server
// answers requests for other tables. Fiber reuses request buffers, so a
// stream that kept a code sliced from its own request would end up
// listening to whatever table a later request named.
func TestEventsSurviveOtherRequests(t *testing.T) {
	_, base := serveLive(t, Config{})
	a := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables", `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`, nil, 201))
	b := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables", `{"game": "insektenhotel", "players": ["Cleo", "Dev"]}`, nil, 201))
	events := openEvents(t, base, a.Code, "")
	wantRetry(t, events)
	if id, _ := nextTable(t, events); idVersion(id) != "1" {
		t.Fatalf("first event id %s, want 1", id)
	}
	for range 20 {
		mustHTTP(t, "GET", base+"/api/v1/tables/"+b.Code, "", nil, 200)
	}
	mustHTTP(t, "PUT", base+boardPath(a.Code, 0), hotelJSON("blue", "bee:1"), bearer(a.HostToken), 200)
	if id, v := nextTable(t, events); idVersion(id) != "2" || v.Code != a.Code {
		t.Fatalf("after the PUT: event id %s for table %s, want 2 for %s", id, v.Code, a.Code)
	}
}

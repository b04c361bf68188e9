package api

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"insectscore/api/live"
	"insectscore/models/pgtest"
)

// applyDelta applies a delta event's data to a table JSON as the app's
// live.js does, and fails the test if it does not start from that table
// or an operation does not fit it.
func applyDelta(t *testing.T, table []byte, delta string) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal(table, &doc); err != nil {
		t.Fatal(err)
	}
	var d struct {
		From, Version int
		Patch         []struct {
			Op, Path string
			Value    any
		}
	}
	if err := json.Unmarshal([]byte(delta), &d); err != nil {
		t.Fatalf("delta is not JSON: %v: %s", err, delta)
	}
	if v := doc.(map[string]any)["version"]; v != float64(d.From) {
		t.Fatalf("delta from version %d, the table is at %v", d.From, v)
	}
	for _, op := range d.Patch {
		keys := strings.Split(op.Path, "/")[1:]
		for i, k := range keys {
			keys[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(k)
		}
		if len(keys) == 0 {
			t.Fatalf("an operation on the whole table: %+v", op)
		}
		var parent any = doc
		var setParent func(any) // to grow or shrink an array in place
		for _, k := range keys[:len(keys)-1] {
			switch p := parent.(type) {
			case map[string]any:
				pp, kk := p, k
				parent, setParent = p[k], func(v any) { pp[kk] = v }
			case []any:
				i, err := strconv.Atoi(k)
				if err != nil || i < 0 || i >= len(p) {
					t.Fatalf("%s: no element %q", op.Path, k)
				}
				pp, ii := p, i
				parent, setParent = p[i], func(v any) { pp[ii] = v }
			default:
				t.Fatalf("%s: %q is not in an object or array", op.Path, k)
			}
		}
		last := keys[len(keys)-1]
		switch p := parent.(type) {
		case map[string]any:
			switch op.Op {
			case "add", "replace":
				if _, ok := p[last]; op.Op == "replace" && !ok {
					t.Fatalf("replace %s: no such field", op.Path)
				}
				p[last] = op.Value
			case "remove":
				delete(p, last)
			default:
				t.Fatalf("operation %q", op.Op)
			}
		case []any:
			i, err := strconv.Atoi(last)
			if err != nil || i < 0 || i > len(p) || i == len(p) && op.Op != "add" {
				t.Fatalf("%s %s: no element %q of %d", op.Op, op.Path, last, len(p))
			}
			switch op.Op {
			case "add":
				p = append(p[:i], append([]any{op.Value}, p[i:]...)...)
			case "replace":
				p[i] = op.Value
			case "remove":
				p = append(p[:i], p[i+1:]...)
			default:
				t.Fatalf("operation %q", op.Op)
			}
			setParent(p)
		default:
			t.Fatalf("%s: the parent is not an object or array", op.Path)
		}
	}
	if v := doc.(map[string]any)["version"]; v != float64(d.Version) {
		t.Errorf("the patched table is at version %v, the delta says %d", v, d.Version)
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestTableDeltaFollowsEveryChange: through the changes a table goes
// through (joins, claims, boards, a phone's sync state, moves and their
// undo, the finish), the delta from each table JSON to the next, applied
// to the first, gives the second.
func TestTableDeltaFollowsEveryChange(t *testing.T) {
	app := newTestApp(t)
	ct := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana"]}`)
	host := bearer(ct.HostToken)
	get := func() []byte { return mustCall(t, app, "GET", "/api/v1/tables/"+ct.Code, "", nil, 200).body }
	changes := []struct {
		name, method, path, body string
		status                   int
	}{
		{"a join", "POST", "/api/v1/tables/" + ct.Code + "/seats", `{"name": "Ben"}`, 201},
		{"a claim", "POST", "/api/v1/tables/" + ct.Code + "/seats/0/claim", "", 200},
		{"a board", "PUT", boardPath(ct.Code, 0), hotelJSON("blue", "bee:0", "ant:0", "fly:0"), 200},
		{"another board", "PUT", boardPath(ct.Code, 1), hotelJSON("red", "bee:0", "ladybird:0", "earwig:0"), 200},
		{"a phone's unsent edits", "PUT", "/api/v1/tables/" + ct.Code + "/seats/1/sync", `{"unsent": 2, "unsentSeconds": 5}`, 200},
		{"the first move", "POST", "/api/v1/tables/" + ct.Code + "/moves", `{"type": "draw", "card": "bee"}`, 201},
		{"a second move", "POST", "/api/v1/tables/" + ct.Code + "/moves", `{"type": "draw", "card": "honey"}`, 201},
		{"an undo", "DELETE", "/api/v1/tables/" + ct.Code + "/moves/last", "", 200},
		{"the last undo", "DELETE", "/api/v1/tables/" + ct.Code + "/moves/last", "", 200},
		{"a full hotel", "PUT", boardPath(ct.Code, 0), hotelJSON("blue", "bee:2", "ant:2", "fly:2"), 200},
		{"the phone sent its edits", "PUT", "/api/v1/tables/" + ct.Code + "/seats/1/sync", `{"unsent": 0}`, 200},
		{"the finish", "POST", "/api/v1/tables/" + ct.Code + "/finish", "", 200},
	}
	before := get()
	for _, ch := range changes {
		mustCall(t, app, ch.method, ch.path, ch.body, host, ch.status)
		after := get()
		var bv, av struct{ Version int }
		json.Unmarshal(before, &bv)
		json.Unmarshal(after, &av)
		d, err := live.DeltaData(bv.Version, before, av.Version, after)
		if err != nil {
			t.Fatalf("%s: %v", ch.name, err)
		}
		sameJSON(t, ch.name+": the table the delta makes", applyDelta(t, before, string(d)), after)
		before = after
	}
}

// TestTableDeltaSmall: a board saved on a big table is a delta of what
// changed in that board and in the standings, a fraction of the table.
func TestTableDeltaSmall(t *testing.T) {
	app := newTestApp(t)
	ct := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben", "Cleo", "Dan"]}`)
	host := bearer(ct.HostToken)
	board := exampleInsectaBoard(t)
	for seat := range 4 {
		mustCall(t, app, "PUT", boardPath(ct.Code, seat), board(seat, 10), host, 200)
	}
	before := mustCall(t, app, "GET", "/api/v1/tables/"+ct.Code, "", nil, 200).body
	mustCall(t, app, "PUT", boardPath(ct.Code, 2), board(2, 17), host, 200)
	after := mustCall(t, app, "GET", "/api/v1/tables/"+ct.Code, "", nil, 200).body
	d, err := live.DeltaData(5, before, 6, after)
	if err != nil {
		t.Fatal(err)
	}
	sameJSON(t, "the table the delta makes", applyDelta(t, before, string(d)), after)
	var got struct{ Patch []struct{ Path string } }
	json.Unmarshal(d, &got)
	for _, op := range got.Patch {
		if strings.HasPrefix(op.Path, "/seats/") && !strings.HasPrefix(op.Path, "/seats/2/") {
			t.Errorf("the delta changes %s, of a seat whose board stayed", op.Path)
		}
	}
	if 4*len(d) > len(after) {
		t.Errorf("a delta of %d bytes for a table of %d, want at most a quarter", len(d), len(after))
	}
	t.Logf("a board saved on a four-player Insecta table: table %d bytes, delta %d: %s", len(after), len(d), d)
}

// fullInsectaTable starts a four-player Insecta table on the server at base
// and saves the rulebook example's board, with track 10, at every seat.
// It returns the table, the host's header and the board maker.
func fullInsectaTable(t testing.TB, base string) (createdTable, map[string]string, func(seat, track int) string) {
	t.Helper()
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana", "Ben", "Cleo", "Dan"]}`, nil, 201))
	host := bearer(ct.HostToken)
	board := exampleInsectaBoard(t)
	for seat := range 4 {
		mustHTTP(t, "PUT", base+boardPath(ct.Code, seat), board(seat, 10), host, 200)
	}
	return ct, host, board
}

// exampleInsectaBoard returns the rulebook example's larger board with the
// researcher of a seat and the scoring track at a given value, as a JSON
// body.
func exampleInsectaBoard(t testing.TB) func(seat, track int) string {
	t.Helper()
	var example struct {
		Players []struct{ Board map[string]any }
	}
	raw, err := os.ReadFile("testdata/insecta-example.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &example); err != nil {
		t.Fatal(err)
	}
	return func(seat, track int) string {
		m := example.Players[0].Board
		// Each player draws their own researcher.
		m["researcher"] = []string{"mary-kingsley", "maria-sibylla-merian", "louise-caroline-daumont", "ida-laura-pfeiffer"}[seat%4]
		m["track"] = track
		out, _ := json.Marshal(m)
		return string(out)
	}
}

// nextEvent waits for the stream's next event, passing over heartbeats.
func nextEvent(t *testing.T, ch <-chan sseBlock) sseBlock {
	t.Helper()
	for {
		if b := nextBlock(t, ch); b.event != "" || b.data != "" {
			return b
		}
	}
}

// TestEventsDeltas: a stream opened with ?deltas=1 gets a board save on a
// big table as a "delta" event, which turns the table it has into the
// table as saved; a stream without gets the whole table, as always. A
// phone's sync state comes as a delta at the same version. A stream
// resumed with Last-Event-ID of the current table goes on with deltas; one
// resumed from an older version first gets the whole table.
func TestEventsDeltas(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct, host, board := fullInsectaTable(t, base)
	events := base + "/api/v1/tables/" + ct.Code + "/events"
	whole, deltas := openEventsAt(t, events, ""), openEventsAt(t, events+"?deltas=1", "")
	wantRetry(t, whole)
	wantRetry(t, deltas)
	get := func() []byte { return mustHTTP(t, "GET", base+"/api/v1/tables/"+ct.Code, "", nil, 200).body }
	nextTable(t, whole)
	first := nextEvent(t, deltas)
	if first.event != "table" || idVersion(first.id) != "5" {
		t.Fatalf("first event %q id %s, want the whole table at 5", first.event, first.id)
	}
	have := []byte(first.data)

	// want reads the stream's next event: name, at version, and the table
	// it gives equals the table as the server has it now; it returns the
	// event's id.
	want := func(what, name, version string) string {
		t.Helper()
		ev := nextEvent(t, deltas)
		if ev.event != name || idVersion(ev.id) != version {
			t.Fatalf("%s: event %q id %s, want %q at %s", what, ev.event, ev.id, name, version)
		}
		if name == "delta" {
			if 2*len(ev.data) > len(have) {
				t.Errorf("%s: a delta of %d bytes for a table of %d", what, len(ev.data), len(have))
			}
			have = applyDelta(t, have, ev.data)
		} else {
			have = []byte(ev.data)
		}
		sameJSON(t, what+": the table after the event", have, get())
		return ev.id
	}

	mustHTTP(t, "PUT", base+boardPath(ct.Code, 2), board(2, 17), host, 200)
	want("a board saved", "delta", "6")
	if id, v := nextTable(t, whole); idVersion(id) != "6" || v.Version != 6 {
		t.Fatalf("the stream without deltas: event id %s version %d, want the whole table at 6", id, v.Version)
	}
	mustHTTP(t, "PUT", base+"/api/v1/tables/"+ct.Code+"/seats/1/sync", `{"unsent": 3, "unsentSeconds": 4}`, host, 200)
	at6 := want("a phone's sync state", "delta", "6")
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), board(0, 21), host, 200)
	at7 := want("another board", "delta", "7")

	// A phone back after a drop resumes where it was.
	resumed := openEventsAt(t, events+"?deltas=1", at7)
	behind := openEventsAt(t, events+"?deltas=1", at6)
	wantRetry(t, resumed)
	wantRetry(t, behind)
	if ev := nextEvent(t, behind); ev.event != "table" || ev.id != at7 {
		t.Fatalf("resumed from 6: event %q id %s, want the whole table at 7", ev.event, ev.id)
	}
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 3), board(3, 5), host, 200)
	want("a board saved while others resumed", "delta", "8")
	for name, ch := range map[string]<-chan sseBlock{"resumed from 7": resumed, "resumed from 6": behind} {
		ev := nextEvent(t, ch)
		if ev.event != "delta" || idVersion(ev.id) != "8" {
			t.Errorf("%s: event %q id %s, want a delta at 8", name, ev.event, ev.id)
			continue
		}
		var d struct{ From, Version int }
		if err := json.Unmarshal([]byte(ev.data), &d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.From != 7 || d.Version != 8 {
			t.Errorf("%s: delta from %d to %d, want 7 to 8", name, d.From, d.Version)
		}
	}
}

// TestEventsDeltasAcrossReplicas: on PostgreSQL, a board saved through one
// replica reaches a delta stream on another through LISTEN/NOTIFY; that
// replica builds the delta from the table as it last sent it, so from its
// second change on (or its first, when a late notification of an earlier
// one came in first) a stream there gets deltas.
func TestEventsDeltasAcrossReplicas(t *testing.T) {
	pg := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if pg == "" {
		t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
	}
	dsn := pgtest.Schema(t, pg)
	channel := "insectscore_test_" + strings.ToLower(rand.Text())
	var bases [2]string
	for i := range bases {
		broker, err := live.NewPGBroker(context.Background(), dsn, channel, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, bases[i] = serveLive(t, Config{Store: openTestStore(t, dsn), Broker: broker})
	}
	one, two := bases[0], bases[1]
	ct, host, board := fullInsectaTable(t, one)
	events := openEventsAt(t, two+"/api/v1/tables/"+ct.Code+"/events?deltas=1", "")
	wantRetry(t, events)
	first := nextEvent(t, events)
	if first.event != "table" || idVersion(first.id) != "5" {
		t.Fatalf("first event %q id %s, want the table at 5", first.event, first.id)
	}
	have := []byte(first.data)
	for i, want := range []string{"table", "delta", "delta"} {
		mustHTTP(t, "PUT", one+boardPath(ct.Code, i), board(i, 20+i), host, 200)
		ev := nextEvent(t, events)
		// A late notification of a board saved before the stream opened
		// may already have given the replica the table to diff from.
		if i == 0 && ev.event == "delta" {
			want = "delta"
		}
		if id := strconv.Itoa(6 + i); ev.event != want || idVersion(ev.id) != id {
			t.Fatalf("change %d on the other replica: event %q id %s, want %q id %s", i+1, ev.event, ev.id, want, id)
		}
		if ev.event == "delta" {
			have = applyDelta(t, have, ev.data)
		} else {
			have = []byte(ev.data)
		}
		sameJSON(t, "the table after the event", have, mustHTTP(t, "GET", two+"/api/v1/tables/"+ct.Code, "", nil, 200).body)
	}
}

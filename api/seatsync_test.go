package api

import (
	"fmt"
	"testing"
	"time"

	"insectscore/models"
)

// Seat sync: phones report the edits they have not sent, the host sees
// each seat's state, and finishing waits for them.

func syncPath(code string, seat int) string {
	return fmt.Sprintf("/api/v1/tables/%s/seats/%d/sync", code, seat)
}

// stamp is a time as the API writes it.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func TestSeatSync(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{})
		tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
		code, host, base := tbl.Code, bearer(tbl.HostToken), "/api/v1/tables/"+tbl.Code
		ana, ben := bearer(claimTestSeat(t, app, code, 0)), bearer(claimTestSeat(t, app, code, 1)) // version 3
		reported := clk.Now()
		benUnsent := map[string]any{"state": "unsent", "unsent": 2, "unsentSince": stamp(reported.Add(-12 * time.Second)),
			"lastSeenAt": stamp(reported)}
		benSilent := map[string]any{"state": "silent", "unsent": 2, "unsentSince": stamp(reported.Add(-12 * time.Second)),
			"lastSeenAt": stamp(reported)}
		runScenarios(t, app, []scenario{
			{name: "Ben's phone holds two edits", method: "PUT", path: syncPath(code, 1), header: ben, status: 200,
				body: `{"unsent": 2, "unsentSeconds": 12}`, want: map[string]any{"": map[string]any{"seat": 1, "sync": benUnsent}}},
			{name: "the table shows it, at the same version", method: "GET", path: base, status: 200,
				wantHeader: map[string]string{"ETag": `"3"`},
				want:       map[string]any{"/version": 3, "/seats/1/sync": benUnsent, "/seats/0/sync": neverHeard}},
			{name: "an If-Match from before the report", method: "PUT", path: boardPath(code, 0), header: withHeader(ana, "If-Match", `"3"`),
				body: hotelJSON("blue", "bee:1", "ant:0", "fly:0"), status: 200, want: map[string]any{"/version": 4}},
			{name: "Ana's save marks her phone heard from", method: "GET", path: base, status: 200,
				want: map[string]any{"/seats/0/sync": map[string]any{"state": "saved", "unsent": 0, "unsentSince": nil,
					"lastSeenAt": stamp(reported)}}},
			{name: "another seat's token", method: "PUT", path: syncPath(code, 1), header: ana, body: `{"unsent": 0}`, status: 403},
			{name: "no token", method: "PUT", path: syncPath(code, 1), body: `{"unsent": 0}`, status: 401},
			{name: "a token of no seat", method: "PUT", path: syncPath(code, 1), header: bearer("garbage"), body: `{"unsent": 0}`, status: 401},
			{name: "a seat that is not there", method: "PUT", path: syncPath(code, 7), header: host, body: `{"unsent": 0}`, status: 404},
			{name: "an unknown table: as a stranger's token", method: "PUT", path: syncPath("ZZZZZZ", 0), header: host, body: `{"unsent": 0}`, status: 401},
			{name: "a negative count", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": -1}`, status: 422,
				want: map[string]any{"/errors/0/pointer": "/unsent"}},
			{name: "a negative age", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": 1, "unsentSeconds": -5}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/unsentSeconds"}},
			{name: "a count that is a string", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": "2"}`, status: 422,
				want: map[string]any{"/errors/0/pointer": "/unsent"}},
			{name: "a count that is a fraction", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": 1.5}`, status: 422,
				want: map[string]any{"/errors/0/pointer": "/unsent"}},
			{name: "no count", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsentSeconds": 3}`, status: 422,
				want: map[string]any{"/errors/0/pointer": "/unsent"}},
			{name: "an unknown field", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": 1, "board": {}}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/board"}},
			{name: "malformed JSON", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": `, status: 400},
			{name: "no body", method: "PUT", path: syncPath(code, 1), header: ben, status: 400},
			{name: "bad reports changed nothing", method: "GET", path: base, status: 200,
				want: map[string]any{"/version": 4, "/seats/1/sync": benUnsent}},
		})

		clk.Advance(31 * time.Second)
		runScenarios(t, app, []scenario{
			{name: "31 seconds on, Ben's phone is silent", method: "GET", path: base, status: 200,
				want: map[string]any{"/seats/1/sync": benSilent}},
			{name: "finish is refused while Ben's edits wait", method: "POST", path: base + "/finish", header: host, status: 409,
				want: map[string]any{"/type": "/api/problems/unsent-changes", "/status": 409,
					"/detail": "Ben's phone has changes it has not sent yet",
					"/seats":  []any{map[string]any{"seat": 1, "name": "Ben", "sync": benSilent}}}},
			{name: "the host's save leaves Ben's phone alone", method: "PUT", path: boardPath(code, 1), header: host,
				body: hotelJSON("red", "bee:1", "ladybird:0", "earwig:0"), status: 200, want: map[string]any{"/version": 5}},
			{name: "still silent", method: "GET", path: base, status: 200, want: map[string]any{"/seats/1/sync": benSilent}},
			{name: "Ben's own save", method: "PUT", path: boardPath(code, 1), header: ben,
				body: hotelJSON("red", "bee:1", "ladybird:2", "earwig:0"), status: 200, want: map[string]any{"/version": 6}},
			{name: "saved", method: "GET", path: base, status: 200,
				want: map[string]any{"/seats/1/sync": map[string]any{"state": "saved", "unsent": 0, "unsentSince": nil,
					"lastSeenAt": stamp(clk.Now())}}},
			{name: "now finish tells the unfinished game", method: "POST", path: base + "/finish", header: host, status: 422,
				check: detailHas("one hotel must be full")},
			{name: "Ana fills her hotel", method: "PUT", path: boardPath(code, 0), header: ana,
				body: hotelJSON("blue", "bee:2", "ant:2", "fly:2"), status: 200, want: map[string]any{"/version": 7}},
			{name: "both phones hold edits", method: "PUT", path: syncPath(code, 0), header: host, body: `{"unsent": 1}`, status: 200,
				want: map[string]any{"/sync/state": "unsent", "/sync/unsentSince": stamp(clk.Now())}},
			{name: "and Ben's", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": 3, "unsentSeconds": 4}`, status: 200,
				want: map[string]any{"/sync/state": "unsent", "/sync/unsent": 3}},
			{name: "finish names both", method: "POST", path: base + "/finish", header: host, status: 409,
				want: map[string]any{"/detail": "Ana's and Ben's phones have changes they have not sent yet",
					"/seats/0/seat": 0, "/seats/1/seat": 1, "/seats/1/sync/unsent": 3}},
			{name: "finish names both, in German", method: "POST", path: base + "/finish", header: withHeader(host, "Accept-Language", "de"), status: 409,
				want: map[string]any{"/title": "Konflikt", "/detail": "Die Handys von Ana und Ben haben noch nicht gesendete Änderungen",
					"/seats/0/name": "Ana", "/seats/1/name": "Ben"}},
			{name: "and in Spanish", method: "POST", path: base + "/finish", header: withHeader(host, "Accept-Language", "es"), status: 409,
				want: map[string]any{"/detail": "los móviles de Ana y Ben tienen cambios que aún no han enviado"}},
			{name: "a force that is not a boolean", method: "POST", path: base + "/finish", header: host, body: `{"force": "yes"}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/force"}},
			{name: "an unknown field", method: "POST", path: base + "/finish", header: host, body: `{"forced": true}`, status: 422},
			{name: "a malformed body", method: "POST", path: base + "/finish", header: host, body: `{"force": `, status: 400},
			{name: "force: false is no force", method: "POST", path: base + "/finish", header: host, body: `{"force": false}`, status: 409,
				want: map[string]any{"/type": "/api/problems/unsent-changes"}},
			{name: "a seat cannot force", method: "POST", path: base + "/finish", header: ana, body: `{"force": true}`, status: 403},
			{name: "the host forces", method: "POST", path: base + "/finish", header: host, body: `{"force": true}`, status: 200,
				want: map[string]any{"/standings/winners": []int{0}}},
			{name: "a finished table takes no reports", method: "PUT", path: syncPath(code, 1), header: ben, body: `{"unsent": 0}`,
				status: 409, check: detailHas("finished")},
			{name: "the finished table keeps the last state", method: "GET", path: base, status: 200,
				want: map[string]any{"/status": "finished", "/seats/1/sync/unsent": 3}},
		})
	})
}

func TestUnsentDetail(t *testing.T) {
	seats := func(names ...string) *models.UnsentError {
		e := &models.UnsentError{}
		for i, n := range names {
			e.Seats = append(e.Seats, models.Seat{Seat: i, Name: n})
		}
		return e
	}
	for _, tt := range []struct {
		err  *models.UnsentError
		want string
		lang string
	}{
		{seats("Ben"), "Ben's phone has changes it has not sent yet", "en"},
		{seats("Ana", "Ben"), "Ana's and Ben's phones have changes they have not sent yet", "en"},
		{seats("Ana", "Ben", "Cleo"), "Ana's, Ben's and Cleo's phones have changes they have not sent yet", "en"},
		{seats("Ben"), "Das Handy von Ben hat noch nicht gesendete Änderungen", "de"},
		{seats("Ana", "Ben", "Cleo"), "Die Handys von Ana, Ben und Cleo haben noch nicht gesendete Änderungen", "de"},
		{seats("Ana", "Ben", "Cleo"), "los móviles de Ana, Ben y Cleo tienen cambios que aún no han enviado", "es"},
	} {
		got := unsentMessage(tt.err).In(catalogFor(tt.lang))
		if tt.lang == "en" && unsentMessage(tt.err).String() != got {
			t.Errorf("in no language %q, but in English %q", unsentMessage(tt.err).String(), got)
		}
		if got != tt.want {
			t.Errorf("detail in %s %q, want %q", tt.lang, got, tt.want)
		}
	}
}

// TestSeatSyncEvents: a change of a seat's state reaches the live streams
// as a table event at the same version; a report that changes no state
// sends nothing.
func TestSeatSyncEvents(t *testing.T) {
	clk := &testClock{now: day(20, 19, 0)}
	store := openTestStore(t, ":memory:")
	store.Now = clk.Now
	_, base := serveLive(t, Config{Store: store, Now: clk.Now})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana", "Ben"]}`, nil, 201))
	host := bearer(ct.HostToken)
	events := openEvents(t, base, ct.Code, "")
	wantRetry(t, events)
	if id, v := nextTable(t, events); idVersion(id) != "1" || v.Seats[1].Sync.State != models.SyncSaved {
		t.Fatalf("first event id %s: %+v", id, v.Seats)
	}

	mustHTTP(t, "PUT", base+syncPath(ct.Code, 1), `{"unsent": 1, "unsentSeconds": 3}`, host, 200)
	id, v := nextTable(t, events)
	if idVersion(id) != "1" || v.Version != 1 || v.Seats[1].Sync.State != models.SyncUnsent || v.Seats[1].Sync.Unsent != 1 {
		t.Fatalf("after the report: event id %s, version %d, Ben %+v; want version 1, unsent", id, v.Version, v.Seats[1].Sync)
	}
	// More edits on a phone already unsent: no event. The next one the
	// stream gets is the board's.
	mustHTTP(t, "PUT", base+syncPath(ct.Code, 1), `{"unsent": 2, "unsentSeconds": 4}`, host, 200)
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), `{"track": 3}`, host, 200)
	if id, v = nextTable(t, events); idVersion(id) != "2" || v.Seats[1].Sync.Unsent != 2 {
		t.Fatalf("after the board: event id %s, Ben %+v; want 2 with 2 unsent", id, v.Seats[1].Sync)
	}
	mustHTTP(t, "PUT", base+syncPath(ct.Code, 1), `{"unsent": 0}`, host, 200)
	if id, v = nextTable(t, events); idVersion(id) != "2" || v.Seats[1].Sync.State != models.SyncSaved {
		t.Fatalf("after everything was sent: event id %s, Ben %+v; want 2, saved", id, v.Seats[1].Sync)
	}
	// A phone gone quiet becomes silent by the clock, with no event; its
	// next report brings it back to unsent, which is news.
	mustHTTP(t, "PUT", base+syncPath(ct.Code, 0), `{"unsent": 1}`, host, 200)
	if _, v = nextTable(t, events); v.Seats[0].Sync.State != models.SyncUnsent {
		t.Fatalf("Ana %+v, want unsent", v.Seats[0].Sync)
	}
	clk.Advance(time.Minute)
	mustHTTP(t, "PUT", base+syncPath(ct.Code, 0), `{"unsent": 1, "unsentSeconds": 60}`, host, 200)
	if id, v = nextTable(t, events); idVersion(id) != "2" || v.Seats[0].Sync.State != models.SyncUnsent || !v.Seats[0].Sync.LastSeenAt.Equal(clk.Now()) {
		t.Fatalf("after a quiet minute: event id %s, Ana %+v; want 2, unsent, seen now", id, v.Seats[0].Sync)
	}
}

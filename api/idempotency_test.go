package api

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// Idempotency keys: a write retried with its key answers as the first one
// did and records nothing new.

// withKey returns h with an Idempotency-Key.
func withKey(h map[string]string, key string) map[string]string {
	return withHeader(h, "Idempotency-Key", key)
}

// replayed returns a check that wants Idempotent-Replayed to be set (or
// absent) and the body to equal *first (or keeps it there when empty).
func replayed(want bool, first *[]byte) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		t.Helper()
		if got := r.header.Get("Idempotent-Replayed"); (got == "true") != want || (!want && got != "") {
			t.Errorf("Idempotent-Replayed = %q, want replayed %v", got, want)
		}
		if *first == nil {
			*first = r.body
			return
		}
		if !bytes.Equal(r.body, *first) {
			t.Errorf("body %s, want the first answer %s", r.body, *first)
		}
	}
}

// hotelPlay is a finished Insektenhotel play: Ana fills her hotel.
var hotelPlay = playBody("insektenhotel", time.Time{}, time.Time{},
	seat{"Ana", hotelJSON("blue", "bee:2", "ant:2", "fly:2")}, seat{"Ben", hotelJSON("red", "bee:1", "ladybird:2", "earwig:0")})

// TestIdempotentLoggedPlay: a logged play sent three times with one key is
// recorded once; with three keys, three times; a key is per route, token
// and body, and expires.
func TestIdempotentLoggedPlay(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{})
		var first, second, other []byte
		var location string
		keepLocation := func(t *testing.T, r response) {
			if l := r.header.Get("Location"); location == "" {
				location = l
			} else if l != location {
				t.Errorf("Location %q, want the first answer's %q", l, location)
			}
		}
		both := func(checks ...func(t *testing.T, r response)) func(t *testing.T, r response) {
			return func(t *testing.T, r response) {
				for _, c := range checks {
					c(t, r)
				}
			}
		}
		key := withKey(nil, "8e0c3c8a-7b7e-4b43-9a36-0f6b1c1d2e3f")
		runScenarios(t, app, []scenario{
			{name: "first", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: key, status: 201,
				want: map[string]any{"/results/0/winner": true}, check: both(replayed(false, &first), keepLocation)},
			{name: "retry", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: key, status: 201,
				wantHeader: map[string]string{"Content-Type": "application/json"}, check: both(replayed(true, &first), keepLocation)},
			{name: "retry again", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: key, status: 201,
				check: both(replayed(true, &first), keepLocation)},
			{name: "recorded once", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(1)},
			{name: "another key", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "b"), status: 201},
			{name: "a third key", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "c"), status: 201},
			{name: "a fourth key", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "d"), status: 201},
			{name: "three keys, three plays", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(4)},
			{name: "the key with another body", method: "POST", path: "/api/v1/plays", header: key, status: 422,
				body: strings.Replace(hotelPlay, "Ben", "Cleo", 1), want: map[string]any{"/status": 422},
				check: detailHas("this Idempotency-Key was already used for a different request")},
			{name: "the key with another token", method: "POST", path: "/api/v1/plays", body: hotelPlay, status: 422,
				header: withHeader(key, "Authorization", "Bearer someone-else")},
			{name: "the key on another URL is another key", method: "POST", path: "/api/v1/plays?group=default", body: hotelPlay,
				header: key, status: 201, check: replayed(false, &other)},
			{name: "still four plays and one more", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(5)},
			{name: "a rule violation is an answer too", method: "POST", path: "/api/v1/plays", header: withKey(nil, "bad"),
				body: `{"game": "insektenhotel", "players": []}`, status: 422},
			{name: "and is replayed", method: "POST", path: "/api/v1/plays", header: withKey(nil, "bad"),
				body: `{"game": "insektenhotel", "players": []}`, status: 422,
				wantHeader: map[string]string{"Idempotent-Replayed": "true", "Content-Type": "application/problem+json"}},
			{name: "an empty key", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, ""), status: 400,
				check: detailHas("Idempotency-Key")},
			{name: "a key too long", method: "POST", path: "/api/v1/plays", body: hotelPlay,
				header: withKey(nil, strings.Repeat("k", 256)), status: 400},
			{name: "a key of 255 characters", method: "POST", path: "/api/v1/plays", body: hotelPlay,
				header: withKey(nil, strings.Repeat("k", 255)), status: 201},
			{name: "a key with a tab", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "a\tb"), status: 400},
			{name: "a key with a letter beyond ASCII", method: "POST", path: "/api/v1/plays", body: hotelPlay,
				header: withKey(nil, "schlüssel"), status: 400},
			{name: "nothing recorded for bad keys", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(6)},
		})

		// After the TTL the key is free again; the app purges expired keys
		// beside the requests, every ten minutes.
		clk.Advance(25 * time.Hour)
		runScenarios(t, app, []scenario{
			{name: "the key after 25 hours", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: key, status: 201,
				check: replayed(false, &second)},
			{name: "runs again", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(7)},
			{name: "then is kept again", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: key, status: 201,
				check: replayed(true, &second)},
		})
		if bytes.Equal(first, second) {
			t.Error("the key after its TTL answered with the first play")
		}
		// Only the key just used is left: the request started a purge of
		// the rest, which runs beside it.
		waitForKeys(t, store, 1)
	})
}

// TestIdempotentTableWrites: a join, a claim and a finish retried with
// their keys answer as the first time, and happen once.
func TestIdempotentTableWrites(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana"]}`)
		base, host := "/api/v1/tables/"+tbl.Code, bearer(tbl.HostToken)
		var join, claim, finish []byte
		runScenarios(t, app, []scenario{
			{name: "join", method: "POST", path: base + "/seats", body: `{"name": "Ben"}`, header: withKey(nil, "join-ben"),
				status: 201, want: map[string]any{"/seat": 1}, check: replayed(false, &join)},
			{name: "join again", method: "POST", path: base + "/seats", body: `{"name": "Ben"}`, header: withKey(nil, "join-ben"),
				status: 201, check: replayed(true, &join)},
			{name: "one seat for Ben", method: "GET", path: base, status: 200,
				want: map[string]any{"/version": 2, "/seats/1/name": "Ben"}, check: seatCount(2)},
			{name: "claim", method: "POST", path: base + "/seats/0/claim", header: withKey(nil, "claim-ana"), status: 200,
				check: replayed(false, &claim)},
			{name: "claim again: the same token", method: "POST", path: base + "/seats/0/claim", header: withKey(nil, "claim-ana"),
				status: 200, check: replayed(true, &claim)},
			{name: "a claim with a new key is refused", method: "POST", path: base + "/seats/0/claim", header: withKey(nil, "claim-2"),
				status: 409},
			{name: "a conflict is not kept: the retry runs again", method: "POST", path: base + "/seats/0/claim",
				header: withKey(nil, "claim-2"), status: 409, check: replayed(false, new([]byte))},
		})
		token := decodeJSON[struct{ SeatToken string }](t, response{body: join}).SeatToken
		// The database keeps tokens only as hashes, and the kept answer
		// only sealed.
		kept, err := store.BeginIdempotent(context.Background(), models.KeyClaim{Scope: digest([]byte("POST"), []byte(base+"/seats"), []byte("join-ben")),
			Fingerprint: digest(nil, []byte(`{"name": "Ben"}`)), Now: time.Now(), TTL: 100 * 365 * 24 * time.Hour})
		if err != nil || kept == nil || kept.Status != 201 {
			t.Fatalf("the join's kept answer: %+v, %v", kept, err)
		}
		if token == "" || bytes.Contains(kept.Body, []byte(token)) || bytes.Contains(kept.Body, []byte("seatToken")) {
			t.Errorf("the kept answer holds the seat token in the clear: %q", kept.Body)
		}
		putTestBoard(t, app, tbl.Code, 0, tbl.HostToken, hotelJSON("blue", "bee:2", "ant:2", "fly:2"))
		putTestBoard(t, app, tbl.Code, 1, token, hotelJSON("red", "bee:1", "ladybird:0", "earwig:0"))
		runScenarios(t, app, []scenario{
			{name: "finish", method: "POST", path: base + "/finish", header: withKey(host, "finish"), status: 200,
				check: replayed(false, &finish)},
			{name: "finish again: the same play", method: "POST", path: base + "/finish", header: withKey(host, "finish"),
				status: 200, check: replayed(true, &finish)},
			{name: "finish with a new key", method: "POST", path: base + "/finish", header: withKey(host, "finish-2"), status: 409},
			{name: "one play", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(1)},
			{name: "a finish with a body is another request", method: "POST", path: base + "/finish", body: `{"force": true}`,
				header: withKey(host, "finish"), status: 422, check: detailHas("different request")},
		})
		if id := decodeJSON[struct{ PlayID string }](t, response{body: finish}).PlayID; id == "" {
			t.Errorf("no playId in %s", finish)
		}
	})
}

// seatCount returns a check that wants a table with n seats.
func seatCount(n int) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		if got := len(decodeJSON[tableView](t, r).Seats); got != n {
			t.Errorf("%d seats, want %d", got, n)
		}
	}
}

// send is call for other goroutines: it fails nothing, it returns.
func send(app *fiber.App, method, path, body string, header map[string]string) (response, error) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: b}, err
}

// TestIdempotentConcurrent races ten identical requests with one key:
// one play is recorded, one request runs it, and every other one gets
// either its answer or word that it is still running.
func TestIdempotentConcurrent(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		const n = 10
		var wg sync.WaitGroup
		answers := make([]response, n)
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() { answers[i], errs[i] = send(app, "POST", "/api/v1/plays", hotelPlay, withKey(nil, "race")) })
		}
		wg.Wait()
		var ran []byte
		replays, running := 0, 0
		for i, r := range answers {
			if errs[i] != nil {
				t.Fatal(errs[i])
			}
			checkOpenAPI(t, "POST", "/api/v1/plays", r)
			switch {
			case r.status == 201 && r.header.Get("Idempotent-Replayed") == "":
				if ran != nil {
					t.Errorf("two requests ran: %s and %s", ran, r.body)
				}
				ran = r.body
			case r.status == 201 && r.header.Get("Idempotent-Replayed") == "true":
				replays++
			case r.status == 409:
				running++
				checkJSON(t, r.body, map[string]any{"/type": "/api/problems/in-progress"})
				if got := r.header.Get("Retry-After"); got != "1" {
					t.Errorf("Retry-After %q, want 1", got)
				}
			default:
				t.Errorf("answer %d %v: %s", r.status, r.header, r.body)
			}
		}
		if ran == nil {
			t.Fatal("no request ran")
		}
		for _, r := range answers {
			if r.status == 201 && !bytes.Equal(r.body, ran) {
				t.Errorf("a replay %s differs from the answer %s", r.body, ran)
			}
		}
		t.Logf("1 ran, %d replayed, %d told it was running", replays, running)
		runScenarios(t, app, []scenario{
			{name: "one play", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(1)},
			{name: "later retries replay", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "race"),
				status: 201, wantHeader: map[string]string{"Idempotent-Replayed": "true"}},
		})
	})
}

// TestIdempotentInProgress: a retry while the first request runs is told
// to wait; once the first request is two minutes old without an answer,
// its server is taken to have died and the retry runs.
func TestIdempotentInProgress(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{})
		// The first request's server died after taking the key.
		scope := digest([]byte("POST"), []byte("/api/v1/plays"), []byte("stuck"))
		if _, err := store.BeginIdempotent(context.Background(), models.KeyClaim{Scope: scope, Fingerprint: digest(nil, []byte(hotelPlay)), Now: clk.Now(), TTL: time.Hour}); err != nil {
			t.Fatal(err)
		}
		clk.Advance(time.Minute)
		runScenarios(t, app, []scenario{
			{name: "while it runs", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "stuck"), status: 409,
				want:       map[string]any{"/type": "/api/problems/in-progress", "/status": 409},
				wantHeader: map[string]string{"Retry-After": "1", "Content-Type": "application/problem+json"}},
			{name: "nothing recorded", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(0)},
		})
		clk.Advance(time.Minute)
		runScenarios(t, app, []scenario{
			{name: "two minutes on", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "stuck"), status: 201,
				check: replayed(false, new([]byte))},
			{name: "then replayed", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withKey(nil, "stuck"), status: 201,
				wantHeader: map[string]string{"Idempotent-Replayed": "true"}},
			{name: "recorded once", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(1)},
		})
	})
}

// TestIdempotentOtherWrites: groups, moves and deletes take keys too, and
// reads ignore them.
func TestIdempotentOtherWrites(t *testing.T) {
	app, _ := newClockApp(t, openTestStore(t, ":memory:"), Config{})
	var group, move, undo []byte
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	host := bearer(tbl.HostToken)
	putTestBoard(t, app, tbl.Code, 0, tbl.HostToken, hotelJSON("blue", "bee:0", "ant:0", "fly:0"))
	putTestBoard(t, app, tbl.Code, 1, tbl.HostToken, hotelJSON("red", "bee:0", "ladybird:0", "earwig:0"))
	moves := "/api/v1/tables/" + tbl.Code + "/moves"
	draw := `{"type": "draw", "card": "bee"}`
	runScenarios(t, app, []scenario{
		{name: "a group", method: "POST", path: "/api/v1/groups", body: `{"name": "Friday"}`, header: withKey(nil, "g"), status: 201,
			check: replayed(false, &group)},
		{name: "the group again", method: "POST", path: "/api/v1/groups", body: `{"name": "Friday"}`, header: withKey(nil, "g"),
			status: 201, check: replayed(true, &group)},
		{name: "a move", method: "POST", path: moves, body: draw, header: withKey(host, "m1"), status: 201,
			want: map[string]any{"/version": 4}, check: replayed(false, &move)},
		{name: "the move again", method: "POST", path: moves, body: draw, header: withKey(host, "m1"), status: 201,
			check: replayed(true, &move)},
		{name: "undo", method: "DELETE", path: moves + "/last", header: withKey(host, "u1"), status: 200,
			want: map[string]any{"/version": 5}, check: replayed(false, &undo)},
		{name: "undo again undoes nothing more", method: "DELETE", path: moves + "/last", header: withKey(host, "u1"), status: 200,
			check: replayed(true, &undo)},
		{name: "a read ignores the key", method: "GET", path: "/api/v1/tables/" + tbl.Code, header: withKey(nil, ""), status: 200,
			want: map[string]any{"/version": 5}},
	})
}

// TestIdempotentReplayKeepsItsLanguage: a retry gets the first answer's
// words, and its Content-Language says which they are, whatever language
// the retry asks for, on both databases.
func TestIdempotentReplayKeepsItsLanguage(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		var first []byte
		key := map[string]string{"Idempotency-Key": "lang-1"}
		runScenarios(t, app, []scenario{
			{name: "logged in German", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: withHeader(key, "Accept-Language", "de"),
				status: 201, check: replayed(false, &first), want: map[string]any{"/results/0/breakdown/0/label": "Gäste"},
				wantHeader: map[string]string{"Content-Language": "de"}},
			{name: "retried in Spanish: the German answer, said to be German", method: "POST", path: "/api/v1/plays", body: hotelPlay,
				header: withHeader(key, "Accept-Language", "es"), status: 201, check: replayed(true, &first),
				wantHeader: map[string]string{"Content-Language": "de"}},
			{name: "retried in English", method: "POST", path: "/api/v1/plays", body: hotelPlay, header: key,
				status: 201, check: replayed(true, &first), wantHeader: map[string]string{"Content-Language": "de"}},
		})
	})
}

// TestReplayedBoardKeepsItsETag: a board write replayed by its
// Idempotency-Key says the version it made, as the first answer did.
func TestReplayedBoardKeepsItsETag(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newTestAppWith(t, Config{Store: store})
		tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben"]}`)
		header := withKey(bearer(tbl.HostToken), "board-1")
		first := mustCall(t, app, "PUT", boardPath(tbl.Code, 0), `{"track": 3}`, header, 200)
		again := mustCall(t, app, "PUT", boardPath(tbl.Code, 0), `{"track": 3}`, header, 200)
		if got := again.header.Get("Idempotent-Replayed"); got != "true" {
			t.Fatalf("the second PUT was not replayed (%q)", got)
		}
		if e1, e2 := first.header.Get("ETag"), again.header.Get("ETag"); e1 != `"2"` || e2 != e1 {
			t.Errorf("ETag %q first, %q replayed; want \"2\" both times", e1, e2)
		}
	})
}

// waitForKeys waits until store keeps want idempotency keys, as a purge
// running beside the requests leaves them.
func waitForKeys(t *testing.T, store *models.Store, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := store.KeptAnswers(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d idempotency keys kept, want %d", n, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

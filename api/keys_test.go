package api

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"insectscore/models"
)

// The idempotency keys a server keeps are bounded: only writes whose
// retry could record twice keep an answer, each client address and the
// server hold a capped number, and expired ones go in short batches
// beside the requests, never at start-up.

// TestKeysOnlyWhereARetryCouldRecordTwice: a key on a route that creates
// nothing (an unknown path, the stateless score route, a replacing PUT, a
// rename, a sync report) keeps no answer; one on a route that creates
// something does.
func TestKeysOnlyWhereARetryCouldRecordTwice(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
		play := decodeJSON[struct{ ID string }](t, mustCall(t, app, "POST", "/api/v1/plays", hotelPlay, nil, 201))
		player := decodeJSON[struct {
			Results []struct{ PlayerID string }
		}](t, mustCall(t, app, "GET", "/api/v1/plays/"+play.ID, "", nil, 200)).Results[0].PlayerID
		for i, w := range []struct{ method, path, body string }{
			{"POST", "/api/v1/no/such/route", `{}`},
			{"POST", "/api/v1/games/insecta/score", `{"players": [{"name": "Ana", "board": {"totals": {"nope": 1}}}]}`},
			{"PUT", "/api/v1/plays/" + play.ID, hotelPlay},
			{"PATCH", "/api/v1/players/" + player, `{"name": "Anabel"}`},
			{"PUT", "/api/v1/tables/" + tbl.Code + "/seats/0/sync", `{"unsent": 1, "unsentSeconds": 3}`},
			// A refusal bigger than maxKeptProblem: its retry runs again.
			{"POST", "/api/v1/plays", manyMistakes(2000)},
		} {
			call(t, app, w.method, w.path, w.body, withKey(bearer(tbl.HostToken), fmt.Sprint("k", i)))
			if n, err := store.KeptAnswers(context.Background()); err != nil || n != 0 {
				t.Fatalf("after %s %s with a key: %d answers kept, %v; want none", w.method, w.path, n, err)
			}
		}
		mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Friday"}`, withKey(nil, "g"), 201)
		if n, err := store.KeptAnswers(context.Background()); err != nil || n != 1 {
			t.Fatalf("after a new group with a key: %d answers kept, %v; want 1", n, err)
		}
	})
}

// TestKeysPerClientAndOverall: a client address may hold KeysPerClient
// keys and the server Keys; a new key beyond is 429 with the wait until
// the oldest expires, while a retry of a kept key still replays and a
// write without a key still runs. An IPv6 client counts by its /64.
func TestKeysPerClientAndOverall(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{KeysPerClient: 3, Keys: 5, TrustedProxies: []string{"0.0.0.0/8"}})
		from := func(ip, key string) map[string]string {
			return withKey(map[string]string{"X-Forwarded-For": ip}, key)
		}
		group := `{"name": "Friday"}`
		var first []byte
		for i := range 3 {
			check := replayed(false, new([]byte))
			if i == 0 {
				check = replayed(false, &first)
			}
			r := mustCall(t, app, "POST", "/api/v1/groups", group, from("203.0.113.7", fmt.Sprint("a", i)), 201)
			check(t, r)
			clk.Advance(time.Minute)
		}
		runScenarios(t, app, []scenario{
			{name: "a fourth key from one address", method: "POST", path: "/api/v1/groups", body: group, header: from("203.0.113.7", "a3"),
				status: 429, wantHeader: map[string]string{"Retry-After": fmt.Sprint(int((24*time.Hour - 3*time.Minute).Seconds()))},
				check: detailHas("your address")},
			{name: "the retry of a kept key", method: "POST", path: "/api/v1/groups", body: group, header: from("203.0.113.7", "a0"),
				status: 201, check: replayed(true, &first)},
			{name: "a write without a key", method: "POST", path: "/api/v1/groups", body: group,
				header: map[string]string{"X-Forwarded-For": "203.0.113.7"}, status: 201},
			{name: "another address", method: "POST", path: "/api/v1/groups", body: group, header: from("2001:db8:1:2::1", "b0"), status: 201},
			{name: "its neighbour in the /64", method: "POST", path: "/api/v1/groups", body: group, header: from("2001:db8:1:2::ff", "b1"), status: 201},
			{name: "five keys: the server is full", method: "POST", path: "/api/v1/groups", body: group, header: from("198.51.100.9", "c0"),
				status: 429, check: detailHas("server")},
		})
		if n, err := store.KeptAnswers(context.Background()); err != nil || n != 5 {
			t.Fatalf("%d answers kept, %v; want 5", n, err)
		}
		clk.Advance(24 * time.Hour)
		mustCall(t, app, "POST", "/api/v1/groups", group, from("198.51.100.9", "c0"), 201)
	})
}

// TestNoPurgeAtStart: expired keys are not purged when the app starts, nor
// by the first requests, but by a purge that runs beside a request once
// ten minutes have passed, in batches, leaving the live keys.
func TestNoPurgeAtStart(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		start := day(20, 19, 0)
		for i := range 1003 {
			_, err := store.BeginIdempotent(context.Background(), models.KeyClaim{Scope: fmt.Sprint("old", i), Fingerprint: "fp",
				Now: start.Add(-25 * time.Hour), TTL: 24 * time.Hour})
			if err != nil {
				t.Fatal(err)
			}
		}
		app, clk := newClockApp(t, store, Config{})
		mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Friday"}`, withKey(nil, "new"), 201)
		if n, err := store.KeptAnswers(context.Background()); err != nil || n != 1004 {
			t.Fatalf("%d keys just after start, %v; want every one (1004)", n, err)
		}
		clk.Advance(purgeEvery)
		mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Friday"}`, withKey(nil, "newer"), 201)
		waitForKeys(t, store, 2)
	})
}

// manyMistakes is a logged play whose first board has n lines no totals
// sheet has: a body of about 10n bytes whose refusal lists n mistakes.
func manyMistakes(n int) string {
	var b strings.Builder
	b.WriteString(`{"game": "insektenhotel", "players": [{"name": "Ana", "board": {"totals": {`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `"k%d": 1`, i)
	}
	b.WriteString(`}}}, {"name": "Ben", "board": {}}]}`)
	return b.String()
}

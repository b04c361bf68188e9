package api

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/scoring"
)

// Play history through the API: tables finished and plays logged, then
// the leaderboard, player pages and history checked against figures
// worked out by hand.

// testClock is a clock the test sets; the app and the store share it, so
// tables start and finish, and logged plays default, at known times.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// newHistoryApp is newTestApp with a clock the test sets.
func newHistoryApp(t testing.TB) (*fiber.App, *models.Store, *testClock) {
	t.Helper()
	clk := &testClock{now: day(20, 12, 0)}
	app, store := newTestAppWith(t, Config{Now: clk.Now})
	store.Now = clk.Now
	return app, store, clk
}

// day is a time on a day of March 2026, UTC.
func day(d, hour, minute int) time.Time {
	return time.Date(2026, time.March, d, hour, minute, 0, 0, time.UTC)
}

// wildBoard is a finished Insectarium display of nine dragonflies and no
// tokens: no line scores, so the total is the unused tokens' points, half
// the supply; no display tools, so equal totals share the win.
func wildBoard(total int) string {
	row := `[{"wild": true, "tools": []}, {"wild": true, "tools": []}, {"wild": true, "tools": []}]`
	return fmt.Sprintf(`{"grid": [%s, %s, %s], "supply": %d}`, row, row, row, 2*total)
}

// seat is a player and a board, for a table or a logged play.
type seat struct{ name, board string }

// playedTable starts a table of game in group at start, enters every board
// with the host's token and finishes it at end. It returns the play id and
// the table code.
func playedTable(t *testing.T, app *fiber.App, clk *testClock, group, game string, start, end time.Time, seats ...seat) (string, string) {
	t.Helper()
	clk.Set(start)
	names := make([]string, len(seats))
	for i, s := range seats {
		names[i] = fmt.Sprintf("%q", s.name)
	}
	tbl := startTable(t, app, fmt.Sprintf(`{"game": %q, "players": [%s], "group": %q}`, game, strings.Join(names, ", "), group))
	for i, s := range seats {
		putTestBoard(t, app, tbl.Code, i, tbl.HostToken, s.board)
	}
	clk.Set(end)
	r := mustCall(t, app, "POST", "/api/v1/tables/"+tbl.Code+"/finish", "", bearer(tbl.HostToken), 200)
	return decodeJSON[struct{ PlayID string }](t, r).PlayID, tbl.Code
}

// playBody is the JSON of a logged play; times are left out when zero.
func playBody(game string, started, finished time.Time, seats ...seat) string {
	players := make([]string, len(seats))
	for i, s := range seats {
		players[i] = fmt.Sprintf(`{"name": %q, "board": %s}`, s.name, s.board)
	}
	times := ""
	if !started.IsZero() {
		times += fmt.Sprintf(`"startedAt": %q, `, started.Format(time.RFC3339))
	}
	if !finished.IsZero() {
		times += fmt.Sprintf(`"finishedAt": %q, `, finished.Format(time.RFC3339))
	}
	return fmt.Sprintf(`{"game": %q, %s"players": [%s]}`, game, times, strings.Join(players, ", "))
}

// logTestPlay logs a play in group and returns its id.
func logTestPlay(t *testing.T, app *fiber.App, group, body string) string {
	t.Helper()
	r := mustCall(t, app, "POST", "/api/v1/plays?group="+url.QueryEscape(group), body, nil, 201)
	return decodeJSON[struct{ ID string }](t, r).ID
}

// ranked is one play for ratings: names in seat order and their ranks.
type ranked struct {
	names []string
	ranks []int
}

// ratings replays OpenSkill over plays, as the leaderboard must have done,
// and returns each player's conservative estimate.
func ratings(plays ...ranked) map[string]float64 {
	r := map[string]scoring.Rating{}
	for _, p := range plays {
		in := make([]scoring.Rating, len(p.names))
		for i, n := range p.names {
			if _, ok := r[n]; !ok {
				r[n] = scoring.NewRating()
			}
			in[i] = r[n]
		}
		for i, out := range scoring.RatePlackettLuce(in, p.ranks) {
			r[p.names[i]] = out
		}
	}
	out := map[string]float64{}
	for n, x := range r {
		out[n] = x.Ordinal()
	}
	return out
}

// entryOf finds a player's line on a leaderboard.
func entryOf(t *testing.T, lb leaderboard, name string) leaderboardEntry {
	t.Helper()
	for _, e := range lb.Entries {
		if e.Player == name {
			return e
		}
	}
	t.Fatalf("%s is not on the leaderboard %+v", name, lb.Entries)
	return leaderboardEntry{}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// TestHistoryByHand finishes two tables and logs two plays, then checks
// the leaderboard, the player page and the history against figures worked
// out by hand:
//
//	play 1 (table)  Ana 10, Ben 6          Ana wins
//	play 2 (table)  ana 8, Ben 8, Cy 4     Ana and Ben share the win
//	play 3 (logged) " Ana " 4, ben 12      Ben wins
//	play 4 (logged) Ben 2, Cy 6            Cy wins
//
// Ana: 3 plays, 2 wins, scores 10 8 4 (average 22/3, best 10), rated.
// Ben: 4 plays, 2 wins, scores 6 8 12 2 (average 7, best 12), rated.
// Cy: 2 plays, 1 win, scores 4 6 (average 5, best 6), provisional.
func TestHistoryByHand(t *testing.T) {
	app, _, clk := newHistoryApp(t)
	const lbPath = "/api/v1/leaderboards/insectarium"
	play1, code1 := playedTable(t, app, clk, "default", "insectarium", day(1, 20, 0), day(1, 20, 45),
		seat{"Ana", wildBoard(10)}, seat{"Ben", wildBoard(6)})
	play2, _ := playedTable(t, app, clk, "", "insectarium", day(2, 20, 0), day(2, 20, 30),
		seat{"ana", wildBoard(8)}, seat{"Ben", wildBoard(8)}, seat{"Cy", wildBoard(4)})

	runScenarios(t, app, []scenario{
		{name: "two plays: everyone provisional", method: "GET", path: lbPath, status: 200, want: map[string]any{
			"/game": "insectarium", "/entries/0/player": "Ana", "/entries/0/plays": 2, "/entries/0/wins": 2,
			"/entries/0/rating": nil, "/entries/0/provisional": true, "/entries/0/ratedPlays": 2}},
	})

	clk.Set(day(3, 21, 0))
	play3 := logTestPlay(t, app, "default", playBody("insectarium", day(3, 20, 0), day(3, 21, 0),
		seat{" Ana ", wildBoard(4)}, seat{"ben", wildBoard(12)}))
	clk.Set(day(4, 21, 0))
	play4 := logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, time.Time{},
		seat{"Ben", wildBoard(2)}, seat{"Cy", wildBoard(6)}))

	want := ratings(
		ranked{[]string{"Ana", "Ben"}, []int{1, 2}},
		ranked{[]string{"Ana", "Ben", "Cy"}, []int{1, 1, 3}},
		ranked{[]string{"Ana", "Ben"}, []int{2, 1}},
		ranked{[]string{"Ben", "Cy"}, []int{2, 1}},
	)
	lb := decodeJSON[leaderboard](t, mustCall(t, app, "GET", lbPath, "", nil, 200))
	if len(lb.Entries) != 3 {
		t.Fatalf("names typed differently made more than three players: %+v", lb.Entries)
	}
	first, second := "Ana", "Ben"
	if want["Ben"] > want["Ana"] {
		first, second = second, first
	}
	if lb.Entries[0].Player != first || lb.Entries[1].Player != second || lb.Entries[2].Player != "Cy" {
		t.Errorf("order %s, %s, %s; want %s, %s, Cy (by rating, provisional last)",
			lb.Entries[0].Player, lb.Entries[1].Player, lb.Entries[2].Player, first, second)
	}
	f := func(v float64) *float64 { return &v }
	n := func(v int) *int { return &v }
	for _, tt := range []struct {
		name string
		want record
	}{
		{"Ana", record{Plays: 3, Wins: 2, WinRate: 2.0 / 3, AvgScore: f(22.0 / 3), BestScore: n(10), Rating: f(want["Ana"]), RatedPlays: 3}},
		{"Ben", record{Plays: 4, Wins: 2, WinRate: 0.5, AvgScore: f(7), BestScore: n(12), Rating: f(want["Ben"]), RatedPlays: 4}},
		{"Cy", record{Plays: 2, Wins: 1, WinRate: 0.5, AvgScore: f(5), BestScore: n(6), Provisional: true, RatedPlays: 2}},
	} {
		t.Run("leaderboard "+tt.name, func(t *testing.T) {
			got := entryOf(t, lb, tt.name).record
			if got.Plays != tt.want.Plays || got.Wins != tt.want.Wins || !near(got.WinRate, tt.want.WinRate) ||
				!near(*got.AvgScore, *tt.want.AvgScore) || *got.BestScore != *tt.want.BestScore ||
				got.Provisional != tt.want.Provisional || got.RatedPlays != tt.want.RatedPlays {
				t.Errorf("got %s, want %s", show(got), show(tt.want))
			}
			switch {
			case (got.Rating == nil) != (tt.want.Rating == nil):
				t.Errorf("rating %v, want %v", got.Rating, tt.want.Rating)
			case got.Rating != nil && !near(*got.Rating, *tt.want.Rating):
				t.Errorf("rating %v, want %v", *got.Rating, *tt.want.Rating)
			}
		})
	}
	ana, ben, cy := entryOf(t, lb, "Ana").PlayerID, entryOf(t, lb, "Ben").PlayerID, entryOf(t, lb, "Cy").PlayerID

	runScenarios(t, app, []scenario{
		{name: "the group's players, by name", method: "GET", path: "/api/v1/groups/default/players", status: 200,
			want: map[string]any{"/players": []any{
				map[string]any{"id": ana, "name": "Ana", "lastPlayedAt": "2026-03-03T21:00:00Z"},
				map[string]any{"id": ben, "name": "Ben", "lastPlayedAt": "2026-03-04T21:00:00Z"},
				map[string]any{"id": cy, "name": "Cy", "lastPlayedAt": "2026-03-04T21:00:00Z"}}}},
		{name: "the history, newest first", method: "GET", path: "/api/v1/plays", status: 200, want: map[string]any{
			"/plays/0/id": play4, "/plays/1/id": play3, "/plays/2/id": play2, "/plays/3/id": play1, "/next": nil,
			"/plays/0/finishedAt": "2026-03-04T21:00:00Z", "/plays/0/game": "insectarium",
			"/plays/0/results/0":          map[string]any{"player": "Ben", "playerId": ben, "total": 2, "rank": 2, "winner": false},
			"/plays/0/results/1":          map[string]any{"player": "Cy", "playerId": cy, "total": 6, "rank": 1, "winner": true},
			"/plays/2/results/0/playerId": ana, "/plays/2/results/0/player": "Ana", "/plays/2/results/0/winner": true,
			"/plays/2/results/1/winner": true, "/plays/2/results/2/rank": 3,
			"/plays/1/results/0/playerId": ana, "/plays/3/results/0/playerId": ana}},
		{name: "one player's plays", method: "GET", path: "/api/v1/plays?player=" + cy, status: 200,
			want: map[string]any{"/plays/0/id": play4, "/plays/1/id": play2}, check: countPlays(2)},
		{name: "one game's plays", method: "GET", path: "/api/v1/plays?game=insecta", status: 200,
			want: map[string]any{"/plays": []any{}, "/next": nil}},
		{name: "a table's play", method: "GET", path: "/api/v1/plays/" + play1, status: 200, want: map[string]any{
			"/id": play1, "/game": "insectarium", "/tableCode": code1, "/variants": map[string]any{},
			"/startedAt": "2026-03-01T20:00:00Z", "/finishedAt": "2026-03-01T20:45:00Z", "/durationSeconds": 2700,
			"/results/0/player": "Ana", "/results/0/nameAsEntered": "Ana", "/results/0/total": 10, "/results/0/winner": true,
			"/results/0/breakdown/2": map[string]any{"key": "supply", "label": "Unused tokens", "points": 10,
				"sources": []any{map[string]any{"pointer": "/supply", "points": 10}}},
			"/standings/results/0/entered": "board",
			"/results/0/board/supply":      20, "/results/0/board/grid/2/2/wild": true,
			"/results/1/board/supply": 12, "/standings/winners": []int{0}, "/standings/results/1/total": 6}},
		{name: "a logged play keeps the name as typed", method: "GET", path: "/api/v1/plays/" + play3, status: 200, want: map[string]any{
			"/startedAt": "2026-03-03T20:00:00Z", "/durationSeconds": 3600, "/results/0/player": "Ana",
			"/results/0/nameAsEntered": "Ana", "/results/1/nameAsEntered": "ben", "/results/1/player": "Ben"}, check: lacks("tableCode")},
		{name: "a logged play without a start", method: "GET", path: "/api/v1/plays/" + play4, status: 200, want: map[string]any{
			"/finishedAt": "2026-03-04T21:00:00Z", "/startedAt": nil, "/durationSeconds": nil}},
		{name: "an unknown play", method: "GET", path: "/api/v1/plays/nosuchplay", status: 404, check: detailHas("no play")},
		{name: "Ana's page", method: "GET", path: "/api/v1/players/" + ana, status: 200, want: map[string]any{
			"/player":       map[string]any{"id": ana, "name": "Ana"},
			"/games/0/game": "insectarium", "/games/0/plays": 3, "/games/0/wins": 2, "/games/0/bestScore": 10,
			"/games/0/provisional": false, "/games/0/lastPlayedAt": "2026-03-03T21:00:00Z",
			"/games/0/ratingHistory/0/playId": play1, "/games/0/ratingHistory/2/playId": play3,
			"/games/0/ratingHistory/2/rating": want["Ana"], "/games/0/ratingHistoryNext": nil,
			"/games/0/scores": []any{map[string]any{"score": 4, "count": 1}, map[string]any{"score": 8, "count": 1}, map[string]any{"score": 10, "count": 1}},
			"/games/0/headToHead": []any{
				map[string]any{"opponentId": ben, "opponent": "Ben", "plays": 3, "wins": 1, "losses": 1, "ties": 1},
				map[string]any{"opponentId": cy, "opponent": "Cy", "plays": 1, "wins": 1, "losses": 0, "ties": 0}},
			"/recent/0/id": play3, "/recent/1/id": play2, "/recent/2/id": play1},
			check: func(t *testing.T, r response) {
				st := decodeJSON[playerStats](t, r)
				if n := len(st.Games[0].RatingHistory); n != 3 || len(st.Recent) != 3 {
					t.Errorf("%d ratings and %d recent plays, want 3 and 3", n, len(st.Recent))
				}
			}},
		{name: "an unknown player", method: "GET", path: "/api/v1/players/nobody", status: 404, check: detailHas("no player")},
		{name: "Ana's ratings", method: "GET", path: "/api/v1/players/" + ana + "/ratings?game=insectarium", status: 200, want: map[string]any{
			"/game": "insectarium", "/points/0/playId": play1, "/points/2/playId": play3, "/points/2/rating": want["Ana"], "/next": nil}},
		{name: "Ana's newest two ratings", method: "GET", path: "/api/v1/players/" + ana + "/ratings?game=insectarium&limit=2", status: 200,
			want: map[string]any{"/points/0/playId": play2, "/points/1/playId": play3},
			check: func(t *testing.T, r response) {
				if next := decodeJSON[ratingList](t, r).Next; next == nil {
					t.Error("no next cursor before the oldest rating")
				}
			}},
		{name: "ratings of a game not played", method: "GET", path: "/api/v1/players/" + ana + "/ratings?game=insecta", status: 200,
			want: map[string]any{"/points": []any{}, "/next": nil}},
		{name: "ratings without a game", method: "GET", path: "/api/v1/players/" + ana + "/ratings", status: 400, check: detailHas("no game")},
		{name: "ratings with a bad limit", method: "GET", path: "/api/v1/players/" + ana + "/ratings?game=insectarium&limit=201", status: 400, check: detailHas("limit")},
		{name: "ratings with a bad cursor", method: "GET", path: "/api/v1/players/" + ana + "/ratings?game=insectarium&cursor=nope", status: 400},
		{name: "an unknown player's ratings", method: "GET", path: "/api/v1/players/nobody/ratings?game=insectarium", status: 404, check: detailHas("no player")},
		{name: "an unknown game's leaderboard", method: "GET", path: "/api/v1/leaderboards/chess", status: 404},
		{name: "a game nobody played", method: "GET", path: "/api/v1/leaderboards/insecta", status: 200,
			want: map[string]any{"/game": "insecta", "/entries": []any{}}},
	})
}

// show prints a record for a failure message.
func show(r record) string {
	s := fmt.Sprintf("plays %d wins %d winRate %.4f ratedPlays %d provisional %v", r.Plays, r.Wins, r.WinRate, r.RatedPlays, r.Provisional)
	if r.AvgScore != nil {
		s += fmt.Sprintf(" avg %.4f best %d", *r.AvgScore, *r.BestScore)
	}
	return s
}

// countPlays returns a check that wants n plays in a list.
func countPlays(n int) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		if got := len(decodeJSON[playList](t, r).Plays); got != n {
			t.Errorf("%d plays, want %d", got, n)
		}
	}
}

// TestPlaysPaging pages through seven plays three at a time, with and
// without filters.
func TestPlaysPaging(t *testing.T) {
	app, _, _ := newHistoryApp(t)
	var ids []string // oldest first
	for i := range 7 {
		other := "Ben"
		if i%2 == 1 {
			other = "Cy"
		}
		ids = append(ids, logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(1+i, 21, 0),
			seat{"Ana", wildBoard(i)}, seat{other, wildBoard(3)})))
	}
	pages := func(path string) [][]string {
		var out [][]string
		cursor := ""
		for range 10 {
			p := path
			if cursor != "" {
				p += "&cursor=" + url.QueryEscape(cursor)
			}
			list := decodeJSON[playList](t, mustCall(t, app, "GET", p, "", nil, 200))
			var page []string
			for _, pl := range list.Plays {
				page = append(page, pl.ID)
			}
			out = append(out, page)
			if list.Next == nil {
				return out
			}
			cursor = *list.Next
		}
		t.Fatalf("%s: no end after 10 pages", path)
		return nil
	}
	tests := []struct {
		name, path string
		want       [][]string
	}{
		{"all", "/api/v1/plays?limit=3", [][]string{{ids[6], ids[5], ids[4]}, {ids[3], ids[2], ids[1]}, {ids[0]}}},
		{"exact pages", "/api/v1/plays?limit=7&game=insectarium", [][]string{{ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]}}},
		{"Cy's", "/api/v1/plays?limit=2&player=" + playerIDOf(t, app, "default", "Cy"), [][]string{{ids[5], ids[3]}, {ids[1]}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pages(tt.path); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("pages %v, want %v", got, tt.want)
			}
		})
	}
	runScenarios(t, app, []scenario{
		{name: "a cursor not handed out", method: "GET", path: "/api/v1/plays?cursor=bm9wZQ", status: 400, check: detailHas("cursor")},
		{name: "a cursor that is not base64", method: "GET", path: "/api/v1/plays?cursor=%25%25", status: 400},
		{name: "limit 0", method: "GET", path: "/api/v1/plays?limit=0", status: 400, check: detailHas("limit")},
		{name: "limit over the maximum", method: "GET", path: "/api/v1/plays?limit=101", status: 400},
		{name: "limit not a number", method: "GET", path: "/api/v1/plays?limit=ten", status: 400},
		{name: "an unknown game", method: "GET", path: "/api/v1/plays?game=chess", status: 400, check: detailHas("chess")},
		{name: "the default page size", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(7)},
	})
}

// playerIDOf finds a player of group by name.
func playerIDOf(t *testing.T, app *fiber.App, group, name string) string {
	t.Helper()
	list := decodeJSON[struct{ Players []playerRef }](t, mustCall(t, app, "GET", "/api/v1/groups/"+group+"/players", "", nil, 200))
	for _, p := range list.Players {
		if p.Name == name {
			return p.ID
		}
	}
	t.Fatalf("no player %q in %+v", name, list.Players)
	return ""
}

// TestRenameAndMerge: a typo makes a second player; renaming it to the
// first one's name offers the merge, and the merge moves its plays.
func TestRenameAndMerge(t *testing.T) {
	app, store, _ := newHistoryApp(t)
	const lbPath = "/api/v1/leaderboards/insectarium"
	logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(1, 21, 0), seat{"Ana", wildBoard(10)}, seat{"Ben", wildBoard(6)}))
	logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(2, 21, 0), seat{"Ana", wildBoard(3)}, seat{"Ben", wildBoard(7)}))
	typo := logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(3, 21, 0), seat{"Anna", wildBoard(9)}, seat{"Cy", wildBoard(3)}))
	ana, anna, ben := playerIDOf(t, app, "default", "Ana"), playerIDOf(t, app, "default", "Anna"), playerIDOf(t, app, "default", "Ben")

	runScenarios(t, app, []scenario{
		{name: "rename to a name taken", method: "PATCH", path: "/api/v1/players/" + anna, body: `{"name": " ANA "}`, status: 409,
			want: map[string]any{"/mergeInto": ana, "/type": "/api/problems/conflict"}, check: detailHas("merge")},
		{name: "rename to nothing", method: "PATCH", path: "/api/v1/players/" + anna, body: `{"name": "  "}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/name"}},
		{name: "rename to a name too long", method: "PATCH", path: "/api/v1/players/" + anna, body: `{"name": "` + strings.Repeat("a", 41) + `"}`,
			status: 422, want: map[string]any{"/errors/0/pointer": "/name"}},
		{name: "rename with an unknown field", method: "PATCH", path: "/api/v1/players/" + anna, body: `{"nickname": "A"}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/nickname"}},
		{name: "rename an unknown player", method: "PATCH", path: "/api/v1/players/nobody", body: `{"name": "Zed"}`, status: 404},
		{name: "merge two who played together", method: "POST", path: "/api/v1/players/" + ben + "/merge", body: `{"into": "` + ana + `"}`,
			status: 409, check: both(detailHas("two people"), lacks("mergeInto"))},
		{name: "merge into themselves", method: "POST", path: "/api/v1/players/" + ana + "/merge", body: `{"into": "` + ana + `"}`, status: 409},
		{name: "merge into nobody", method: "POST", path: "/api/v1/players/" + anna + "/merge", body: `{"into": ""}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/into"}},
		{name: "merge into an unknown player", method: "POST", path: "/api/v1/players/" + anna + "/merge", body: `{"into": "nobody"}`, status: 404},
		{name: "the merge", method: "POST", path: "/api/v1/players/" + anna + "/merge", body: `{"into": "` + ana + `"}`, status: 200,
			want: map[string]any{"/player/id": ana, "/games/0/plays": 3, "/games/0/wins": 2, "/games/0/bestScore": 10, "/recent/0/id": typo}},
		{name: "the duplicate is gone", method: "GET", path: "/api/v1/players/" + anna, status: 404},
		{name: "the leaderboard follows the merge", method: "GET", path: lbPath, status: 200, before: settled(store), check: func(t *testing.T, r response) {
			lb := decodeJSON[leaderboard](t, r)
			if len(lb.Entries) != 3 {
				t.Errorf("entries %+v, want Ana, Ben, Cy", lb.Entries)
			}
			if e := entryOf(t, lb, "Ana"); e.PlayerID != ana || e.Plays != 3 || e.Wins != 2 || *e.AvgScore != 22.0/3 {
				t.Errorf("Ana %s, want 3 plays, 2 wins, average 22/3", show(e.record))
			}
		}},
		{name: "the play keeps the name typed", method: "GET", path: "/api/v1/plays/" + typo, status: 200,
			want: map[string]any{"/results/0/playerId": ana, "/results/0/player": "Ana", "/results/0/nameAsEntered": "Anna"}},
		{name: "a rename", method: "PATCH", path: "/api/v1/players/" + ana, body: `{"name": "Ana Lima"}`, status: 200,
			want: map[string]any{"": map[string]any{"id": ana, "name": "Ana Lima"}}},
		{name: "the leaderboard shows the new name", method: "GET", path: lbPath, status: 200, check: func(t *testing.T, r response) {
			if e := entryOf(t, decodeJSON[leaderboard](t, r), "Ana Lima"); e.PlayerID != ana {
				t.Errorf("Ana Lima is %s, want %s", e.PlayerID, ana)
			}
		}},
		{name: "so does the history", method: "GET", path: "/api/v1/plays?player=" + ana, status: 200,
			want: map[string]any{"/plays/0/results/0/player": "Ana Lima", "/plays/2/results/0/player": "Ana Lima"}},
		{name: "a change of case only", method: "PATCH", path: "/api/v1/players/" + ana, body: `{"name": "ana lima"}`, status: 200,
			want: map[string]any{"/name": "ana lima"}},
	})
}

// both runs two checks.
func both(a, b func(t *testing.T, r response)) func(t *testing.T, r response) {
	return func(t *testing.T, r response) { a(t, r); b(t, r) }
}

// TestEditAndDeletePlay: the leaderboard follows a play that is edited,
// then deleted.
func TestEditAndDeletePlay(t *testing.T) {
	app, store, _ := newHistoryApp(t)
	const lbPath = "/api/v1/leaderboards/insectarium"
	logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(1, 21, 0), seat{"Ana", wildBoard(10)}, seat{"Ben", wildBoard(6)}))
	id := logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(2, 21, 0), seat{"Ana", wildBoard(2)}, seat{"Ben", wildBoard(4)}))
	path := "/api/v1/plays/" + id
	lbHas := func(name string, plays, wins int, avg float64, best int) func(t *testing.T, r response) {
		return func(t *testing.T, r response) {
			e := entryOf(t, decodeJSON[leaderboard](t, r), name)
			if e.Plays != plays || e.Wins != wins || !near(*e.AvgScore, avg) || *e.BestScore != best {
				t.Errorf("%s: %s; want plays %d wins %d avg %.4f best %d", name, show(e.record), plays, wins, avg, best)
			}
		}
	}
	runScenarios(t, app, []scenario{
		{name: "before", method: "GET", path: lbPath, status: 200, check: both(lbHas("Ana", 2, 1, 6, 10), lbHas("Ben", 2, 1, 5, 6))},
		{name: "an edit", method: "PUT", path: path, status: 200,
			body: playBody("insectarium", day(2, 20, 0), day(2, 21, 30), seat{"Ana", wildBoard(12)}, seat{"Ben", wildBoard(4)}),
			want: map[string]any{"/id": id, "/finishedAt": "2026-03-02T21:30:00Z", "/durationSeconds": 5400,
				"/results/0/total": 12, "/results/0/winner": true, "/results/1/winner": false}},
		{name: "the leaderboard follows the edit", method: "GET", path: lbPath, status: 200, before: settled(store), want: map[string]any{"/updating": false},
			check: both(lbHas("Ana", 2, 2, 11, 12), lbHas("Ben", 2, 0, 5, 6))},
		{name: "an edit that breaks a rule", method: "PUT", path: path, status: 422,
			body: playBody("insectarium", time.Time{}, time.Time{}, seat{"Ana", `{"supply": -1}`}, seat{"Ben", wildBoard(4)}),
			want: map[string]any{"/errors/0/pointer": "/players/0/board/supply"}},
		{name: "an edit of an unknown play", method: "PUT", path: "/api/v1/plays/nosuchplay", status: 404,
			body: playBody("insectarium", time.Time{}, time.Time{}, seat{"Ana", wildBoard(1)}, seat{"Ben", wildBoard(4)})},
		{name: "a delete", method: "DELETE", path: path, status: 204},
		{name: "the leaderboard follows the delete", method: "GET", path: lbPath, status: 200, before: settled(store),
			check: both(lbHas("Ana", 1, 1, 10, 10), lbHas("Ben", 1, 0, 6, 6))},
		{name: "the play is gone", method: "GET", path: path, status: 404},
		{name: "a second delete", method: "DELETE", path: path, status: 404},
	})
}

// TestLogPlayChecks: a logged play is scored with the score endpoint's
// rules and must be a finished game; every problem is named at its field.
func TestLogPlayChecks(t *testing.T) {
	app, _, clk := newHistoryApp(t)
	clk.Set(day(10, 12, 0))
	full := hotelJSON("blue", "bee:2", "ant:2", "fly:2")
	part := hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")
	other := hotelJSON("blue", "bee:2", "ant:1", "fly:1")
	post := func(name, body string, status int, want map[string]any) scenario {
		return scenario{name: name, method: "POST", path: "/api/v1/plays", body: body, status: status, want: want}
	}
	runScenarios(t, app, []scenario{
		post("malformed JSON", `{"game": `, 400, nil),
		post("no body", "", 400, nil),
		post("an unknown field", `{"game": "insektenhotel", "players": [], "winner": "Ana"}`, 422,
			map[string]any{"/errors/0/pointer": "/winner"}),
		post("an unknown game", playBody("chess", time.Time{}, time.Time{}, seat{"Ana", "null"}), 422,
			map[string]any{"/errors/0/pointer": "/game"}),
		post("a board that breaks a rule", playBody("insectarium", time.Time{}, time.Time{}, seat{"Ana", `{"supply": 99}`}), 422,
			map[string]any{"/type": "/api/problems/validation", "/errors/0/pointer": "/players/0/board/supply"}),
		post("too few players", playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", full}), 422,
			map[string]any{"/errors/0/pointer": "/players"}),
		post("no player", `{"game": "insecta", "players": []}`, 422, map[string]any{"/errors/0/pointer": "/players"}),
		post("a game not over", playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", other}, seat{"Ben", part}), 422,
			map[string]any{"/errors/0/pointer": "/players", "/errors/0/detail": "the game is not over yet: one hotel must be full"}),
		post("an unfinished display", playBody("insectarium", time.Time{}, time.Time{}, seat{"Ana", `{"supply": 4}`}), 422,
			map[string]any{"/errors/0/pointer": "/players"}),
		post("a finish in the future", playBody("insektenhotel", time.Time{}, day(10, 13, 0), seat{"Ana", full}, seat{"Ben", part}), 422,
			map[string]any{"/errors/0/pointer": "/finishedAt"}),
		post("a start after the finish", playBody("insektenhotel", day(9, 22, 0), day(9, 21, 0), seat{"Ana", full}, seat{"Ben", part}), 422,
			map[string]any{"/errors/0/pointer": "/startedAt"}),
		post("a time that is not one", `{"game": "insektenhotel", "finishedAt": "yesterday", "players": []}`, 422,
			map[string]any{"/errors/0/pointer": "/finishedAt", "/errors/1/pointer": "/players"}),
		post("the zero time", `{"game": "insektenhotel", "finishedAt": "0001-01-01T00:00:00Z", "startedAt": "1969-12-31T23:00:00Z", "players": []}`, 422,
			map[string]any{"/errors/0/pointer": "/finishedAt", "/errors/1/pointer": "/startedAt"}),
		post("a time that is a number", `{"game": "insektenhotel", "finishedAt": 1700000000, "players": []}`, 422,
			map[string]any{"/errors/0/pointer": "/finishedAt"}),
		post("one name twice, and a bad time", `{"game": "insektenhotel", "startedAt": "soon", "players": [{"name": "Ana", "board": `+
			full+`}, {"name": " ana", "board": `+part+`}]}`, 422,
			map[string]any{"/errors/0/pointer": "/startedAt", "/errors/1/pointer": "/players/1/name"}),
		post("a body over 64 KiB", `{"game": "insecta", "players": [{"name": "`+strings.Repeat("a", BodyLimit)+`"}]}`, 413, nil),
		{name: "an unknown group", method: "POST", path: "/api/v1/plays?group=nosuchgroup", status: 404,
			body: playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", full}, seat{"Ben", part}), check: detailHas("no group")},
		{name: "a finish a minute ahead is the phone's clock", method: "POST", path: "/api/v1/plays", status: 201,
			body: playBody("insektenhotel", time.Time{}, day(10, 12, 1), seat{"Ana", full}, seat{"Ben", part}),
			want: map[string]any{"/finishedAt": "2026-03-10T12:01:00Z", "/results/0/total": 6, "/results/0/winner": true,
				"/results/1/total": 3, "/results/0/breakdown/0/key": "guests"},
			check: func(t *testing.T, r response) {
				id := decodeJSON[struct{ ID string }](t, r).ID
				if got, want := r.header.Get("Location"), "/api/v1/plays/"+id+"?group=default"; got != want {
					t.Errorf("Location %q, want %q", got, want)
				}
			}},
		{name: "a solo Insectarium", method: "POST", path: "/api/v1/plays", status: 201,
			body: playBody("insectarium", time.Time{}, time.Time{}, seat{"Ana", wildBoard(12)}),
			want: map[string]any{"/finishedAt": "2026-03-10T12:00:00Z", "/results/0/total": 12, "/standings/soloRating": "try-again"}},
		{name: "Insektenhotel is wins only", method: "GET", path: "/api/v1/leaderboards/insektenhotel", status: 200,
			want: map[string]any{"/entries/0/player": "Ana", "/entries/0/wins": 1, "/entries/0/winRate": 1,
				"/entries/0/avgScore": nil, "/entries/0/bestScore": nil, "/entries/1/wins": 0}},
	})
}

// TestHotelTablePlay: a table played move by move records the hotels the
// moves built, not the empty hotels it was set up with.
func TestHotelTablePlay(t *testing.T) {
	app, _, _ := newHistoryApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	code, host := tbl.Code, bearer(tbl.HostToken)
	putTestBoard(t, app, code, 0, tbl.HostToken, hotelJSON("blue", "bee:0", "ant:0", "fly:0"))
	putTestBoard(t, app, code, 1, tbl.HostToken, hotelJSON("red", "ladybird:0", "butterfly:0", "earwig:0"))
	for _, card := range []string{"bee", "ladybird", "bee", "ladybird", "ant", "butterfly", "ant", "butterfly", "fly", "earwig", "fly"} {
		mustCall(t, app, "POST", "/api/v1/tables/"+code+"/moves", fmt.Sprintf(`{"type": "draw", "card": %q}`, card), host, 201)
	}
	r := mustCall(t, app, "POST", "/api/v1/tables/"+code+"/finish", "", host, 200)
	playID := decodeJSON[struct{ PlayID string }](t, r).PlayID
	floors := func(guests ...int) map[string]any {
		return map[string]any{"/0/guests": guests[0], "/1/guests": guests[1], "/2/guests": guests[2]}
	}
	want := map[string]any{"/tableCode": code, "/results/0/total": 6, "/results/0/winner": true, "/results/1/total": 5,
		"/results/0/board/hotel": "blue", "/results/1/board/floors/2/species": "earwig"}
	for k, v := range floors(2, 2, 2) {
		want["/results/0/board/floors"+k] = v
	}
	for k, v := range floors(2, 2, 1) {
		want["/results/1/board/floors"+k] = v
	}
	runScenarios(t, app, []scenario{
		{name: "the play has the hotels the moves built", method: "GET", path: "/api/v1/plays/" + playID, status: 200, want: want},
	})
}

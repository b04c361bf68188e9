package api

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"insectscore/models"
	"insectscore/scoring"
)

// beetleRace is a fourth game that only this package's tests know: no line
// of api or models names it, so everything they do with it comes from what
// it says of itself (its Info) and from its Tracker. It is what a real
// fourth game would be to them, and it says the opposite of the points
// games where it can: it is won without points (WinsOnly) and played move
// by move (Tracked), so a server that hard-coded either for a game id
// again would fail TestFourthGame.
//
// Each player's beetle runs a track of seven spaces; a board is where it
// stands ({"at": 3}); a move takes the beetle whose turn it is 1 to 3
// spaces on ({"steps": 2}). The race is over when a beetle reaches the end.
type beetleRace struct{}

// beetleTrack is the length of the track: the end is space 7.
const beetleTrack = 7

func init() { scoring.Register(beetleRace{}) }

// testGames are the games registered by this package's tests, which the
// catalogs do not hold (TestCatalogHasTheServer). Its id sorts after the
// real games', so the game list's first three stay theirs.
var testGames = map[string]bool{"weevilrace": true}

func (beetleRace) Spec() scoring.Spec {
	return scoring.Spec{
		Info: scoring.Info{ID: "weevilrace", Name: "Weevil Race", MinPlayers: 2, MaxPlayers: 4,
			Unit: "game.weevilrace.unit", WinsOnly: true, End: "a beetle must reach the end of the track",
			Tracked: true, Form: "games/weevilrace.js"},
		Enums:     map[string][]scoring.Option{},
		Variants:  []scoring.VariantSpec{},
		Breakdown: []scoring.Option{{ID: "track", Label: "Spaces run"}},
		Tiebreaks: []scoring.Option{},
		Totals:    []scoring.TotalsField{},
	}
}

// beetleBoard is a board of the race.
type beetleBoard struct {
	At int `json:"at"`
}

func (beetleRace) Evaluate(players []scoring.PlayerInput, _ map[string]int) (*scoring.Evaluation, error) {
	var verr scoring.ValidationError
	ev := &scoring.Evaluation{Players: make([]scoring.Scored, len(players)), TotalLabel: "spaces"}
	for i, p := range players {
		var b beetleBoard
		ptr := fmt.Sprintf("/players/%d/board", i)
		if err := json.Unmarshal(p.Board, &b); err != nil || b.At < 0 || b.At > beetleTrack {
			verr.Add(ptr+"/at", "a beetle stands on space 0 to %d", beetleTrack)
			continue
		}
		ev.Players[i] = scoring.Scored{Total: b.At, Breakdown: []scoring.Line{{Key: "track", Label: "Spaces run", Points: b.At,
			Sources: []scoring.Source{{Pointer: "/at", Points: b.At}}}}}
		ev.Complete = ev.Complete || b.At == beetleTrack
	}
	if err := verr.Err(); err != nil {
		return nil, err
	}
	return ev, nil
}

// Tracker makes the race a game played move by move.
func (beetleRace) Tracker() scoring.Tracker { return beetleTracker{} }

type beetleTracker struct{}

// beetleMove is one move: the beetle whose turn it is runs Steps spaces.
type beetleMove struct {
	Steps int `json:"steps"`
}

func (beetleTracker) ReadMove(body []byte) (json.RawMessage, error) {
	var m beetleMove
	if err := scoring.DecodeRequest(body, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// beetleState is a race after its moves, as clients get it.
type beetleState struct {
	Turn     int   `json:"turn"`
	At       []int `json:"at"`
	Finished bool  `json:"finished"`
}

func (beetleTracker) Replay(players []scoring.PlayerInput, first int, moves []json.RawMessage) (scoring.Tracked, error) {
	s := &beetleState{Turn: first, At: make([]int, len(players))}
	var verr scoring.ValidationError
	for i, p := range players {
		var b beetleBoard
		if json.Unmarshal(p.Board, &b) != nil || b.At < 0 || b.At >= beetleTrack {
			verr.Add(fmt.Sprintf("/players/%d/at", i), "a beetle starts on space 0 to %d", beetleTrack-1)
		}
		s.At[i] = b.At
	}
	if err := verr.Err(); err != nil {
		return nil, err
	}
	for i, raw := range moves {
		var m beetleMove
		if err := json.Unmarshal(raw, &m); err != nil {
			return nil, err
		}
		switch {
		case s.Finished:
			verr.Add(fmt.Sprintf("/moves/%d", i), "the race is over")
		case m.Steps < 1 || m.Steps > 3 || s.At[s.Turn]+m.Steps > beetleTrack:
			verr.Add(fmt.Sprintf("/moves/%d/steps", i), "a beetle runs 1 to 3 spaces, and no further than the end")
		}
		if err := verr.Err(); err != nil {
			return nil, err
		}
		s.At[s.Turn] += m.Steps
		if s.At[s.Turn] == beetleTrack {
			s.Finished = true
		} else {
			s.Turn = (s.Turn + 1) % len(players)
		}
	}
	return s, nil
}

func (s *beetleState) Next() int { return s.Turn }

func (s *beetleState) Boards() []json.RawMessage {
	out := make([]json.RawMessage, len(s.At))
	for i, at := range s.At {
		out[i], _ = json.Marshal(beetleBoard{At: at})
	}
	return out
}

func (s *beetleState) In(scoring.Catalog) any { return s }

// beetleAt is a board of the race.
func beetleAt(at int) string { return fmt.Sprintf(`{"at": %d}`, at) }

// TestFourthGame takes a game that api and models do not know through
// every route a game goes through: the game list and the service worker,
// the score route, a live table (create, join, boards, moves, finish), a
// logged play, the leaderboard, a player's page, and the exports (JSON,
// CSV and BG Stats), on each store.
func TestFourthGame(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{})
		clk.Set(day(5, 20, 0))
		g := makeGroup(t, app, "Beetles")
		q := "?group=" + g.ID

		// What the app reads of the game: from its Info, in the list and
		// in the service worker's.
		runScenarios(t, app, []scenario{
			{name: "the game list", method: "GET", path: "/api/v1/games", status: 200, check: func(t *testing.T, r response) {
				for _, info := range decodeJSON[[]map[string]any](t, r) {
					if info["id"] != "weevilrace" {
						continue
					}
					want := map[string]any{"name": "Weevil Race", "unit": "game.weevilrace.unit", "winsOnly": true,
						"end": "a beetle must reach the end of the track", "tracked": true, "form": "games/weevilrace.js"}
					for k, v := range want {
						if info[k] != v {
							t.Errorf("%s = %v, want %v", k, info[k], v)
						}
					}
					return
				}
				t.Errorf("the game list %s lacks the fourth game", r.body)
			}},
			{name: "the service worker keeps its form", method: "GET", path: "/sw.js", status: 200, check: func(t *testing.T, r response) {
				if !regexpMatch(`'/assets/[0-9a-f]+/games/weevilrace\.js',`, string(r.body)) {
					t.Errorf("sw.js does not precache the fourth game's form:\n%s", r.body)
				}
			}},
			{name: "score a finished race", method: "POST", path: "/api/v1/games/weevilrace/score", status: 200,
				body: `{"players": [{"name": "Ana", "board": {"at": 5}}, {"name": "Ben", "board": {"at": 7}}]}`,
				want: map[string]any{"/game": "weevilrace", "/complete": true, "/winners": []int{1}, "/results/0/total": 5}},
			{name: "score a race not over", method: "POST", path: "/api/v1/games/weevilrace/score", status: 200,
				body: `{"players": [{"name": "Ana", "board": {"at": 5}}, {"name": "Ben", "board": {"at": 6}}]}`,
				want: map[string]any{"/complete": false, "/winners": []int{}}},
			{name: "score a beetle off the track", method: "POST", path: "/api/v1/games/weevilrace/score", status: 422,
				body: `{"players": [{"name": "Ana", "board": {"at": 9}}]}`,
				want: map[string]any{"/errors/0/pointer": "/players/0/board/at"}},
			{name: "an unknown game names the fourth among those to choose", method: "POST", path: "/api/v1/tables", status: 422,
				body: `{"game": "chess", "players": ["Ana"]}`, check: fieldDetailHas("weevilrace")},
			{name: "only a game played move by move names who starts", method: "POST", path: "/api/v1/tables", status: 422,
				body: `{"game": "insectarium", "players": ["Ana", "Ben"], "first": 1}`, want: map[string]any{"/errors/0/pointer": "/first"}},
		})

		// A live table: created with who starts, joined, set up, played
		// move by move and finished.
		tbl := startTable(t, app, fmt.Sprintf(`{"game": "weevilrace", "players": ["Ana", "Ben"], "first": 1, "group": %q}`, g.ID))
		host, base := bearer(tbl.HostToken), "/api/v1/tables/"+tbl.Code
		moves := base + "/moves"
		var cy string
		runScenarios(t, app, []scenario{
			{name: "Cy joins", method: "POST", path: base + "/seats", body: `{"name": "Cy"}`, status: 201,
				want: map[string]any{"/seat": 2}, check: keepToken(&cy)},
		})
		ana, ben := claimTestSeat(t, app, tbl.Code, 0), claimTestSeat(t, app, tbl.Code, 1)
		putTestBoard(t, app, tbl.Code, 0, ana, beetleAt(2))
		putTestBoard(t, app, tbl.Code, 1, ben, beetleAt(1))
		putTestBoard(t, app, tbl.Code, 2, cy, beetleAt(0))
		runScenarios(t, app, []scenario{
			{name: "not finished before a beetle is at the end", method: "POST", path: base + "/finish", header: host, status: 422,
				check: detailHas("the game is not over yet: a beetle must reach the end of the track")},
			{name: "not Ana's turn: Ben starts", method: "POST", path: moves, body: `{"steps": 1}`, header: bearer(ana), status: 403},
			{name: "a move the tracker does not know", method: "POST", path: moves, body: `{"jump": 1}`, header: bearer(ben), status: 422,
				want: map[string]any{"/errors/0/pointer": "/jump"}},
			{name: "a move the rules refuse, at its field", method: "POST", path: moves, body: `{"steps": 4}`, header: bearer(ben), status: 422,
				want: map[string]any{"/errors/0/pointer": "/steps"}},
			{name: "Ben runs 3", method: "POST", path: moves, body: `{"steps": 3}`, header: bearer(ben), status: 201,
				want: map[string]any{"/hotel/turn": 2, "/hotel/at": []int{2, 4, 0}, "/seats/1/board/at": 4, "/standings/complete": false}},
			{name: "Cy runs 1", method: "POST", path: moves, body: `{"steps": 1}`, header: bearer(cy), status: 201},
			{name: "the host takes Cy's move back", method: "DELETE", path: moves + "/last", header: host, status: 200,
				want: map[string]any{"/hotel/turn": 2, "/hotel/at": []int{2, 4, 0}}},
			{name: "Cy runs 2", method: "POST", path: moves, body: `{"steps": 2}`, header: bearer(cy), status: 201},
			{name: "Ana runs 3", method: "POST", path: moves, body: `{"steps": 3}`, header: bearer(ana), status: 201},
			{name: "Ben reaches the end", method: "POST", path: moves, body: `{"steps": 3}`, header: bearer(ben), status: 201,
				want: map[string]any{"/hotel/finished": true, "/hotel/at": []int{5, 7, 2},
					"/standings/complete": true, "/standings/winners": []int{1}}},
			{name: "no move after the end", method: "POST", path: moves, body: `{"steps": 1}`, header: host, status: 422,
				want: map[string]any{"/errors/0/pointer": ""}},
			{name: "finish", method: "POST", path: base + "/finish", header: host, status: 200,
				want: map[string]any{"/standings/complete": true, "/standings/results/1/total": 7}},
		})
		tablePlay := decodeJSON[struct{ PlayID string }](t, call(t, app, "GET", base, "", nil)).PlayID

		// A logged play, refused while the race is not over.
		clk.Set(day(6, 21, 0))
		runScenarios(t, app, []scenario{
			{name: "a logged race not over", method: "POST", path: "/api/v1/plays" + q, status: 422,
				body:  playBody("weevilrace", time.Time{}, day(6, 20, 0), seat{"Ana", beetleAt(3)}, seat{"Ben", beetleAt(2)}),
				check: fieldDetailHas("a beetle must reach the end of the track")},
		})
		logged := logTestPlay(t, app, g.ID, playBody("weevilrace", day(6, 20, 0), day(6, 20, 30), seat{"Ana", beetleAt(7)}, seat{"Ben", beetleAt(6)}))

		// The leaderboard and a player's page count wins only.
		var anaID string
		runScenarios(t, app, []scenario{
			{name: "the leaderboard counts wins only", method: "GET", path: "/api/v1/leaderboards/weevilrace" + q, status: 200,
				want: map[string]any{"/entries/0/player": "Ana", "/entries/0/plays": 2, "/entries/0/wins": 1,
					"/entries/0/avgScore": nil, "/entries/0/bestScore": nil, "/entries/1/player": "Ben", "/entries/1/wins": 1,
					"/entries/1/avgScore": nil, "/entries/1/bestScore": nil},
				check: func(t *testing.T, r response) { anaID = decodeJSON[leaderboard](t, r).Entries[0].PlayerID }},
		})
		page := decodeJSON[playerStats](t, mustCall(t, app, "GET", "/api/v1/players/"+anaID+q, "", nil, 200))
		if len(page.Games) != 1 || page.Games[0].Game != "weevilrace" || page.Games[0].Wins != 1 || len(page.Games[0].Scores) != 0 {
			t.Errorf("Ana's page %+v, want the race with 1 win and no totals counted", page.Games)
		}

		// The exports: the play in CSV, to BG Stats without points and
		// with who started, and the group's JSON read back by a fresh server.
		csv := string(mustCall(t, app, "GET", "/api/v1/groups/"+g.ID+"/plays.csv", "", nil, 200).body)
		for _, row := range []string{
			tablePlay + ",2026-03-05T20:00:00Z,weevilrace,Ben,7,1,true,,,true\n",
			tablePlay + ",2026-03-05T20:00:00Z,weevilrace,Cy,2,3,false,,,false\n",
			logged + ",2026-03-06T20:30:00Z,weevilrace,Ana,7,1,true,,,\n",
		} {
			if !strings.Contains(csv, row) {
				t.Errorf("plays.csv lacks %q:\n%s", row, csv)
			}
		}
		play := decodeJSON[playWithLink](t, mustCall(t, app, "GET", "/api/v1/plays/"+tablePlay+q, "", nil, 200))
		data := decodeBGStats(t, play.Links.BGStats)
		wantGame := map[string]any{"name": "Weevil Race", "sourceGameId": "weevilrace", "highestWins": true, "noPoints": true}
		if got := data["game"]; fmt.Sprint(got) != fmt.Sprint(wantGame) {
			t.Errorf("BG Stats game %v, want %v", got, wantGame)
		}
		players, _ := data["players"].([]any)
		if len(players) != 3 {
			t.Fatalf("BG Stats players %v, want 3", data["players"])
		}
		for i, p := range players {
			p := p.(map[string]any)
			if got, want := p["startPlayer"], i == 1; got != want {
				t.Errorf("BG Stats player %d (%v) startPlayer %v, want %v: the table's first seat started", i, p["name"], got, want)
			}
		}
		exported := exportOf(t, app, g.ID)
		fresh := newHistoryAppOnly(t)
		mustCall(t, fresh, "POST", "/api/v1/groups/import", string(exported), nil, 201)
		if again := exportOf(t, fresh, g.ID); string(again) != string(exported) {
			t.Errorf("the export of the import differs:\n%s\nwant\n%s", again, exported)
		}
	})
}

// regexpMatch reports whether the regular expression re matches s.
func regexpMatch(re, s string) bool {
	return regexp.MustCompile(re).MatchString(s)
}

package api

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// problemPointers reads the pointer and pointers of a problem's errors.
func problemPointers(t *testing.T, r response) (pointers []string, all [][]string) {
	t.Helper()
	var p struct {
		Errors []struct {
			Pointer  string   `json:"pointer"`
			Pointers []string `json:"pointers"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		t.Fatal(err)
	}
	for _, e := range p.Errors {
		pointers, all = append(pointers, e.Pointer), append(all, e.Pointers)
	}
	return pointers, all
}

// wantOneProblem checks a 422 names every field of a limit of the box.
func wantOneProblem(pointer string, pointers ...string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		got, all := problemPointers(t, r)
		if len(got) != 1 || got[0] != pointer || !slices.Equal(all[0], pointers) {
			t.Errorf("errors at %q naming %q, want one at %s naming %q", got, all, pointer, pointers)
		}
	}
}

// TestBoxLimitsAPI: each limit of the box (issue 11) through the score
// route, at the limit and one past it, with every field it names.
func TestBoxLimitsAPI(t *testing.T) {
	app := newTestApp(t)
	score := func(game string, boards ...string) string {
		players := make([]string, len(boards))
		for i, b := range boards {
			players[i] = fmt.Sprintf(`{"name": "P%d", "board": %s}`, i+1, b)
		}
		return `{"players": [` + strings.Join(players, ", ") + `]}`
	}
	const p0, p1, p2 = "/players/0/board", "/players/1/board", "/players/2/board"
	african := func(n int) string {
		cells := [][2]int{{0, 0}, {1, 1}, {0, 2}, {1, 3}, {0, 4}, {1, 5}, {2, 4}, {3, 5}, {3, 3}, {2, 2}, {3, 1}, {2, 0}}
		tiles := make([]string, n)
		for i := range n {
			tiles[i] = fmt.Sprintf(`{"row": %d, "col": %d, "kind": "insect", "continent": "africa"}`, cells[i][0], cells[i][1])
		}
		return `{"tiles": [` + strings.Join(tiles, ", ") + `]}`
	}
	continents := func(board string, n int) (out []string) {
		for k := range n {
			out = append(out, fmt.Sprintf("%s/tiles/%d/continent", board, k))
		}
		return out
	}
	medals := func(ids ...string) string {
		ms := make([]string, len(ids))
		for i, id := range ids {
			ms[i] = fmt.Sprintf(`{"medal": %q, "level": 1}`, id)
		}
		return `{"medals": [` + strings.Join(ms, ", ") + `]}`
	}
	six := `"rowTokens": ["red", "moth", "bee"], "colTokens": ["green", "beetle", "white"]`
	runScenarios(t, app, []scenario{
		{name: "Insectarium/10 Display Tool bonuses at one table", method: "POST", path: "/api/v1/games/insectarium/score",
			body: score("insectarium", `{"toolBonusesForPoints": 6}`, `{"toolBonusesForTokens": 4}`), status: 200,
			want: map[string]any{"/results/0/breakdown/3/points": 30}},
		{name: "Insectarium/11 Display Tool bonuses at one table", method: "POST", path: "/api/v1/games/insectarium/score",
			body: score("insectarium", `{"toolBonusesForPoints": 6}`, `{"toolBonusesForTokens": 5}`), status: 422,
			want:  map[string]any{"/errors/0/detail": "the box has 30 glass pieces: at most 10 bonuses at one table, and these boards claim 11"},
			check: wantOneProblem(p1+"/toolBonusesForTokens", p1+"/toolBonusesForTokens", p0+"/toolBonusesForPoints")},
		{name: "Insectarium/solo: 30 type tokens placed and unused", method: "POST", path: "/api/v1/games/insectarium/score",
			body: score("insectarium", `{`+six+`, "supply": 24}`), status: 200},
		{name: "Insectarium/solo: 31 type tokens placed and unused", method: "POST", path: "/api/v1/games/insectarium/score",
			body: score("insectarium", `{`+six+`, "supply": 25}`), status: 422,
			check: wantOneProblem(p0+"/supply", p0+"/supply", p0+"/rowTokens/0", p0+"/rowTokens/1", p0+"/rowTokens/2",
				p0+"/colTokens/0", p0+"/colTokens/1", p0+"/colTokens/2")},
		{name: "Insectarium/50 type tokens at a table of two", method: "POST", path: "/api/v1/games/insectarium/score",
			body: score("insectarium", `{"supply": 50}`, `{}`), status: 200},
		{name: "Insectarium/51 type tokens at a table of two", method: "POST", path: "/api/v1/games/insectarium/score",
			body: score("insectarium", `{"supply": 50}`, `{"supply": 1}`), status: 422,
			check: wantOneProblem(p1+"/supply", p1+"/supply", p0+"/supply")},
		{name: "Insecta/15 African insects at one table", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", african(8), african(7)), status: 200},
		{name: "Insecta/16 African insects at one table", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", african(8), african(8)), status: 422,
			check: wantOneProblem(p1+"/tiles/7/continent", append(append([]string{p1 + "/tiles/7/continent"}, continents(p0, 8)...), continents(p1, 7)...)...)},
		{name: "Insecta/3 medals for a player", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", medals("continent:africa", "order:coleoptera", "size:small")), status: 200},
		{name: "Insecta/4 medals for a player", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", medals("continent:africa", "order:coleoptera", "size:small", "size:large")), status: 422,
			check: wantOneProblem(p0+"/medals/3", p0+"/medals/3", p0+"/medals/0", p0+"/medals/1", p0+"/medals/2")},
		{name: "Insecta/6 different medals at one table", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", medals("continent:africa", "order:coleoptera", "size:small"),
				medals("size:large", "institution:any", "continent:asia"), medals("size:small")), status: 200},
		{name: "Insecta/7 different medals at one table", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", medals("continent:africa", "order:coleoptera", "size:small"),
				medals("size:large", "institution:any", "continent:asia"), medals("size:medium")), status: 422,
			check: wantOneProblem(p2+"/medals/0/medal", p2+"/medals/0/medal", p0+"/medals/0/medal", p0+"/medals/1/medal", p0+"/medals/2/medal",
				p1+"/medals/0/medal", p1+"/medals/1/medal", p1+"/medals/2/medal")},
		{name: "Insecta/d'Aumont's collection in pieces is a warning", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", `{"researcher": "louise-caroline-daumont", "tiles": [{"row": 0, "col": 0, "kind": "insect", "continent": "europe"},
				{"row": 3, "col": 5, "kind": "insect", "continent": "asia"}]}`, `{}`), status: 200,
			want: map[string]any{"/results/0/warnings/0/pointer": p0 + "/tiles/1"},
			check: func(t *testing.T, r response) {
				if !strings.Contains(string(r.body), `Move 1 tile in your collection to an empty space`) {
					t.Errorf("the warning does not name d'Aumont's ability: %s", r.body)
				}
			}},
		{name: "Insecta/anyone else's collection in pieces is an error", method: "POST", path: "/api/v1/games/insecta/score",
			body: score("insecta", `{"researcher": "mary-kingsley", "tiles": [{"row": 0, "col": 0, "kind": "insect", "continent": "europe"},
				{"row": 3, "col": 5, "kind": "insect", "continent": "asia"}]}`, `{}`), status: 422,
			check: wantOneProblem(p0 + "/tiles/1")},
	})
}

// TestPlayerLimitsAPI pins the limits every game shares at their edge
// (issue 11, part 6) through the score and log-play routes.
func TestPlayerLimitsAPI(t *testing.T) {
	app, _, _ := newHistoryApp(t)
	names := func(n int) string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf(`{"name": "P%d"}`, i+1)
		}
		return `{"players": [` + strings.Join(out, ", ") + `]}`
	}
	five := make([]seat, 5)
	for i := range five {
		five[i] = seat{fmt.Sprintf("P%d", i+1), `{}`}
	}
	runScenarios(t, app, []scenario{
		{name: "score: 4 players of Insecta", method: "POST", path: "/api/v1/games/insecta/score", body: names(4), status: 200},
		{name: "score: 5 players of Insecta", method: "POST", path: "/api/v1/games/insecta/score", body: names(5), status: 422,
			want: map[string]any{"/errors/0/pointer": "/players", "/errors/0/detail": "Insecta: The Ladies of Entomology is for at most 4 players, not 5"}},
		{name: "score: 5 players of Insektenhotel", method: "POST", path: "/api/v1/games/insektenhotel/score", body: names(5), status: 422,
			want: map[string]any{"/errors/0/pointer": "/players", "/errors/0/detail": "Insektenhotel is for at most 4 players, not 5"}},
		{name: "log a play: 5 players of Insectarium", method: "POST", path: "/api/v1/plays",
			body: playBody("insectarium", day(20, 10, 0), day(20, 11, 0), five...), status: 422,
			want: map[string]any{"/errors/0/pointer": "/players", "/errors/0/detail": "Insectarium is for at most 4 players, not 5"}},
		{name: "log a play: a start 1 minute after the finish", method: "POST", path: "/api/v1/plays",
			body: playBody("insectarium", day(20, 11, 1), day(20, 11, 0), seat{"Ana", wildBoard(12)}), status: 422,
			want: map[string]any{"/errors/0/pointer": "/startedAt", "/errors/0/detail": "a play cannot start after it finished"}},
		{name: "log a play: a start at the finish", method: "POST", path: "/api/v1/plays",
			body: playBody("insectarium", day(20, 11, 0), day(20, 11, 0), seat{"Ana", wildBoard(12)}), status: 201},
		{name: "score: a 40-character name", method: "POST", path: "/api/v1/games/insecta/score",
			body: `{"players": [{"name": "` + strings.Repeat("a", 40) + `"}]}`, status: 200},
		{name: "score: a 41-character name", method: "POST", path: "/api/v1/games/insecta/score",
			body: `{"players": [{"name": "` + strings.Repeat("a", 41) + `"}]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/0/name"}},
	})
}

// TestHotelFirstSeatAPI: a table played move by move starts at the seat
// its host chose (issue 11, part 4), shows it, and counts rounds from it.
func TestHotelFirstSeatAPI(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"], "first": 1}`)
	code, host := tbl.Code, bearer(tbl.HostToken)
	putTestBoard(t, app, code, 0, tbl.HostToken, hotelJSON("blue", "bee:0", "ant:0", "fly:0"))
	putTestBoard(t, app, code, 1, tbl.HostToken, hotelJSON("red", "ladybird:0", "butterfly:0", "earwig:0"))
	runScenarios(t, app, []scenario{
		{name: "the table shows its first seat", method: "GET", path: "/api/v1/tables/" + code, status: 200,
			want: map[string]any{"/first": 1}},
		{name: "Ben draws first", method: "POST", path: "/api/v1/tables/" + code + "/moves", header: host,
			body: `{"type": "draw", "card": "ladybird"}`, status: 201,
			want: map[string]any{"/hotel/log/0": "Ben drew a ladybird and put it in the red hotel."}},
		{name: "then Ana, in round 1", method: "GET", path: "/api/v1/tables/" + code, status: 200,
			want: map[string]any{"/hotel/turn": 0, "/hotel/round": 1, "/hotel/first": 1, "/first": 1}},
		{name: "Ana's turn ends the round", method: "POST", path: "/api/v1/tables/" + code + "/moves", header: host,
			body: `{"type": "draw", "card": "bee"}`, status: 201},
		{name: "round 2 starts at Ben", method: "GET", path: "/api/v1/tables/" + code, status: 200,
			want: map[string]any{"/hotel/turn": 1, "/hotel/round": 2}},
		{name: "a table of two starts at seat 0 or 1, not 2", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insektenhotel", "players": ["Ana", "Ben"], "first": 2}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/first", "/errors/0/detail": "the first player is one of the players named, seat 0 to 1, not 2"}},
		{name: "no negative seat", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insektenhotel", "players": ["Ana", "Ben"], "first": -1}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/first"}},
		{name: "only Insektenhotel is played move by move", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana", "Ben"], "first": 1}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/first"}},
		{name: "seat 0 by default", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana", "Ben"]}`, status: 201},
	})
}

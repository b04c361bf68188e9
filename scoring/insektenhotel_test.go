package scoring

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// hotelPlayer is one player of a test table: a name and a board as JSON text.
type hotelPlayer struct {
	name, board string
}

// hotelScore scores a test table through the public entry point.
func hotelScore(t testing.TB, players []hotelPlayer) (*Result, error) {
	t.Helper()
	g, ok := Lookup("insektenhotel")
	if !ok {
		t.Fatal("insektenhotel is not registered")
	}
	req := Request{Players: make([]PlayerInput, len(players))}
	for i, p := range players {
		req.Players[i] = PlayerInput{Name: p.name, Board: []byte(p.board)}
	}
	return scoreCase(t, g, req)
}

const (
	hotelFullBlue   = `{"hotel": "blue", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": 2}]}`
	hotelFullGreen  = `{"hotel": "green", "floors": [{"species": "ladybird", "guests": 2}, {"species": "butterfly", "guests": 2}, {"species": "earwig", "guests": 2}]}`
	hotelFiveGreen  = `{"hotel": "green", "floors": [{"species": "ladybird", "guests": 2}, {"species": "butterfly", "guests": 2}, {"species": "earwig", "guests": 1}]}`
	hotelFourYellow = `{"hotel": "yellow", "floors": [{"species": "bee", "guests": 2}, {"species": "fly", "guests": 1}, {"species": "butterfly", "guests": 1}]}`
	hotelFourRed    = `{"hotel": "red", "floors": [{"species": "ant", "guests": 2}, {"species": "ladybird", "guests": 0}, {"species": "earwig", "guests": 2}]}`
	hotelThreeBlue  = `{"hotel": "blue", "floors": [{"species": "bee", "guests": 1}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": 0}]}`
)

func TestInsektenhotelSpec(t *testing.T) {
	g, ok := Lookup("insektenhotel")
	if !ok {
		t.Fatal("insektenhotel is not registered")
	}
	spec := g.Spec()
	if got, want := spec.Info, (Info{ID: "insektenhotel", Name: "Insektenhotel", MinPlayers: 2, MaxPlayers: 4,
		Unit: "game.insektenhotel.unit", WinsOnly: true, End: "one hotel must be full", Tracked: true, Form: "games/insektenhotel.js"}); got != want {
		t.Errorf("Info = %+v, want %+v", got, want)
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	got := string(raw)
	for _, want := range []string{
		`"species":[{"id":"bee","label":"Bee"},{"id":"ant","label":"Ant"},{"id":"fly","label":"Fly"},{"id":"ladybird","label":"Ladybird"},{"id":"butterfly","label":"Butterfly"},{"id":"earwig","label":"Earwig"}]`,
		`"hotel":[{"id":"blue","label":"Blue"},{"id":"green","label":"Green"},{"id":"yellow","label":"Yellow"},{"id":"red","label":"Red"}]`,
		`"variants":[]`,
		`"breakdown":[{"id":"guests","label":"Guests"}]`,
		`"tiebreaks":[]`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("spec JSON %s\nlacks %s", got, want)
		}
	}
}

func TestInsektenhotelScore(t *testing.T) {
	tests := []struct {
		name         string
		players      []hotelPlayer
		wantComplete bool
		wantTotals   []int
		wantRanks    []int
		wantWinners  []int
	}{
		{
			name:         "Goal of the Game: 6 guests, 3 pairs, the first to fill all the rooms wins",
			players:      []hotelPlayer{{"Ana", hotelFullBlue}, {"Ben", hotelFiveGreen}, {"Cleo", hotelFourYellow}},
			wantComplete: true, wantTotals: []int{6, 5, 4}, wantRanks: []int{1, 2, 3}, wantWinners: []int{0},
		},
		{
			name:         "End of the Game: the full hotel wins alone, the others rank by guests",
			players:      []hotelPlayer{{"Ana", hotelFourYellow}, {"Ben", hotelFullGreen}, {"Cleo", hotelFourRed}, {"Dev", hotelThreeBlue}},
			wantComplete: true, wantTotals: []int{4, 6, 4, 3}, wantRanks: []int{2, 1, 2, 4}, wantWinners: []int{1},
		},
		{
			name:         "incomplete: no hotel is full yet, no winner",
			players:      []hotelPlayer{{"Ana", hotelThreeBlue}, {"Ben", hotelFiveGreen}},
			wantComplete: false, wantTotals: []int{3, 5}, wantRanks: []int{2, 1}, wantWinners: []int{},
		},
		{
			name: "incomplete: partial boards while entering (no hotel, fewer floors, empty and null boards)",
			players: []hotelPlayer{
				{"Ana", `{"floors": [{"species": "bee", "guests": 1}]}`},
				{"Ben", `{"hotel": "red"}`},
				{"Cleo", `{}`},
				{"Dev", `null`},
			},
			wantComplete: false, wantTotals: []int{1, 0, 0, 0}, wantRanks: []int{1, 2, 2, 2}, wantWinners: []int{},
		},
		{
			name:         "incomplete: a full hotel alone at the table is below the game's two players",
			players:      []hotelPlayer{{"Ana", hotelFullBlue}},
			wantComplete: false, wantTotals: []int{6}, wantRanks: []int{1}, wantWinners: []int{},
		},
		{
			name: "incomplete: three floors of two but one species short is only five guests",
			players: []hotelPlayer{
				{"Ana", `{"hotel": "blue", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}]}`},
				{"Ben", hotelFiveGreen},
			},
			wantComplete: false, wantTotals: []int{4, 5}, wantRanks: []int{2, 1}, wantWinners: []int{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := hotelScore(t, tt.players)
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			if res.Complete != tt.wantComplete {
				t.Errorf("complete = %v, want %v", res.Complete, tt.wantComplete)
			}
			var totals, ranks []int
			for _, r := range res.Results {
				totals = append(totals, r.Total)
				ranks = append(ranks, r.Rank)
				if got, want := r.Breakdown, []Line{{Key: "guests", Label: "Guests", Points: r.Total, Sources: r.Breakdown[0].Sources}}; !reflect.DeepEqual(got, want) {
					t.Errorf("%s breakdown = %v, want %v", r.Name, got, want)
				}
			}
			if !slices.Equal(totals, tt.wantTotals) {
				t.Errorf("totals = %v, want %v", totals, tt.wantTotals)
			}
			if !slices.Equal(ranks, tt.wantRanks) {
				t.Errorf("ranks = %v, want %v", ranks, tt.wantRanks)
			}
			if !slices.Equal(res.Winners, tt.wantWinners) {
				t.Errorf("winners = %v, want %v", res.Winners, tt.wantWinners)
			}
		})
	}
}

func TestInsektenhotelErrors(t *testing.T) {
	// problem is an expected pointer and a phrase its detail must contain.
	type problem struct{ pointer, detail string }
	tests := []struct {
		name    string
		players []hotelPlayer
		want    []problem
	}{
		{
			name:    "End of the Game: two full hotels, the later one is wrong",
			players: []hotelPlayer{{"Ana", hotelFullBlue}, {"Ben", hotelFullGreen}},
			want:    []problem{{"/players/1/board/floors", "only one hotel can fill first: the game ended when the first hotel was full"}},
		},
		{
			name: "End of the Game: three full hotels, both later ones are wrong",
			players: []hotelPlayer{
				{"Ana", hotelFourYellow},
				{"Ben", hotelFullBlue},
				{"Cleo", `{"hotel": "red", "floors": [{"species": "ladybird", "guests": 2}, {"species": "butterfly", "guests": 2}, {"species": "earwig", "guests": 2}]}`},
				{"Dev", `{"hotel": "green", "floors": [{"species": "ant", "guests": 2}, {"species": "butterfly", "guests": 2}, {"species": "fly", "guests": 2}]}`},
			},
			want: []problem{
				{"/players/2/board/floors", "only one hotel can fill first"},
				{"/players/3/board/floors", "only one hotel can fill first"},
			},
		},
		{
			name:    "unknown hotel colour",
			players: []hotelPlayer{{"Ana", `{"hotel": "purple"}`}, {"Ben", `{}`}},
			want:    []problem{{"/players/0/board/hotel", `"purple" is not a hotel: choose blue, green, yellow or red`}},
		},
		{
			name:    "Setup: one hotel per colour, the later player is wrong, told whose it is",
			players: []hotelPlayer{{"Ana", `{"hotel": "red"}`}, {"Ben", `{"hotel": "blue"}`}, {"Cleo", `{"hotel": "red"}`}},
			want:    []problem{{"/players/2/board/hotel", "the red hotel is already Ana's"}},
		},
		{
			name: "a hotel has three floors",
			players: []hotelPlayer{{"Ana", `{"floors": [{"species": "bee"}, {"species": "ant"}, {"species": "fly"}, {"species": "earwig"}]}`},
				{"Ben", `{}`}},
			want: []problem{{"/players/0/board/floors", "a hotel has 3 floors, not 4"}},
		},
		{
			name:    "unknown species",
			players: []hotelPlayer{{"Ana", `{"floors": [{"species": "bee"}, {"species": "wasp", "guests": 1}]}`}, {"Ben", `{}`}},
			want:    []problem{{"/players/0/board/floors/1/species", `"wasp" is not an Insektenhotel species: choose bee, ant, fly, ladybird, butterfly or earwig`}},
		},
		{
			name:    "a floor without its species",
			players: []hotelPlayer{{"Ana", `{"floors": [{"guests": 1}]}`}, {"Ben", `{}`}},
			want:    []problem{{"/players/0/board/floors/0/species", "choose the species this floor is for"}},
		},
		{
			name:    "the three species of one hotel are distinct",
			players: []hotelPlayer{{"Ana", `{"floors": [{"species": "fly"}, {"species": "bee"}, {"species": "fly"}]}`}, {"Ben", `{}`}},
			want:    []problem{{"/players/0/board/floors/2/species", "this hotel already has a floor for flies"}},
		},
		{
			name:    "a floor has two rooms",
			players: []hotelPlayer{{"Ana", `{}`}, {"Ben", `{"floors": [{"species": "ant", "guests": 3}, {"species": "bee", "guests": -1}]}`}},
			want: []problem{
				{"/players/1/board/floors/0/guests", "holds 0, 1 or 2 guests, not 3"},
				{"/players/1/board/floors/1/guests", "holds 0, 1 or 2 guests, not -1"},
			},
		},
		{
			name: "Contents: 6 tourist cards of each species, the floor that exceeds them is wrong",
			players: []hotelPlayer{
				{"Ana", `{"floors": [{"species": "bee", "guests": 2}]}`},
				{"Ben", `{"floors": [{"species": "ant", "guests": 1}, {"species": "bee", "guests": 2}]}`},
				{"Cleo", `{"floors": [{"species": "bee", "guests": 1}]}`},
				{"Dev", `{"floors": [{"species": "fly", "guests": 2}, {"species": "bee", "guests": 2}]}`},
			},
			want: []problem{{"/players/3/board/floors/1/guests", "the game has only 6 bee cards, and this floor makes 7 bees across the hotels"}},
		},
		{
			name:    "a field that is not part of the board",
			players: []hotelPlayer{{"Ana", `{"colour": "blue"}`}, {"Ben", `{}`}},
			want:    []problem{{"/players/0/board/colour", `"colour" is not a field of this board`}},
		},
		{
			name:    "guests given as text",
			players: []hotelPlayer{{"Ana", `{"floors": [{"species": "bee", "guests": 1}, {"species": "ant", "guests": "two"}]}`}, {"Ben", `{}`}},
			want:    []problem{{"/players/0/board/floors/1/guests", "expected a whole number, got text"}},
		},
		{
			name: "every problem is reported at once",
			players: []hotelPlayer{
				{"Ana", `{"hotel": "pink", "floors": [{"species": "bee", "guests": 5}]}`},
				{"Ben", `[1, 2]`},
			},
			want: []problem{
				{"/players/0/board/hotel", "is not a hotel"},
				{"/players/0/board/floors/0/guests", "not 5"},
				{"/players/1/board", "expected an object, got a list"},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := hotelScore(t, tt.players)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Score = %+v, %v; want a *ValidationError", res, err)
			}
			var got, want []string
			for _, fe := range verr.Errors {
				got = append(got, fe.Pointer)
			}
			for _, p := range tt.want {
				want = append(want, p.pointer)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pointers = %q, want %q (errors: %v)", got, want, verr)
			}
			for i, p := range tt.want {
				if !strings.Contains(verr.Errors[i].Detail, p.detail) {
					t.Errorf("%s: detail %q, want it to contain %q", p.pointer, verr.Errors[i].Detail, p.detail)
				}
			}
		})
	}
}

// TestInsektenhotelTotals covers hotels entered as a guest count (issue 8):
// still exactly one full hotel ends the game, whether its six guests come
// from a board or a sheet.
func TestInsektenhotelTotals(t *testing.T) {
	const p1, p2 = "/players/1/board", "/players/2/board"
	runTotals(t, "insektenhotel", []totalsCase{
		{name: "issue 8/End of the Game: six guests on the sheet win",
			boards: []string{`{"totals": {"guests": 6}}`, hotelFiveGreen, `{"totals": {"guests": 4}}`},
			totals: []int{6, 5, 4}, ranks: []int{1, 2, 3}, winners: []int{0}, complete: true, entered: []string{"totals", "board", "totals"}},
		{name: "issue 8/End of the Game: the full hotel on a board wins beside sheets",
			boards: []string{`{"totals": {"guests": 5}}`, hotelFullBlue},
			totals: []int{5, 6}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"totals", "board"}},
		{name: "issue 8/no full hotel: the game goes on, sheets or not",
			boards: []string{`{"totals": {"guests": 5}}`, `{"totals": {}}`},
			totals: []int{5, 0}, ranks: []int{1, 2}, winners: []int{}, complete: false, entered: []string{"totals", "totals"}},
		{name: "issue 8/Contents: the species count holds for the boards beside a sheet",
			boards: []string{`{"floors": [{"species": "bee", "guests": 2}]}`, `{"totals": {"guests": 6}}`,
				`{"floors": [{"species": "bee", "guests": 2}]}`, `{"floors": [{"species": "bee", "guests": 2}]}`},
			totals: []int{2, 6, 2, 2}, ranks: []int{2, 1, 2, 2}, winners: []int{1}, complete: true, entered: []string{"board", "totals", "board", "board"}},

		{name: "issue 8/End of the Game: a full board, then six guests on a sheet",
			boards: []string{hotelFullBlue, `{"totals": {"guests": 6}}`},
			errs:   []totalsWant{{p1 + "/totals/guests", "only one hotel can fill first"}}},
		{name: "issue 8/End of the Game: six guests on a sheet, then a full board",
			boards: []string{`{"totals": {"guests": 6}}`, hotelFiveGreen, hotelFullBlue},
			errs:   []totalsWant{{p2 + "/floors", "only one hotel can fill first"}}},
		{name: "issue 8/Goal of the Game: a hotel holds 0 to 6 guests",
			boards: []string{`{"totals": {"guests": 7}}`, `{"totals": {"guests": -1, "pairs": 3}}`},
			errs: []totalsWant{
				{"/players/0/board/totals/guests", "Guests can be 0 to 6, not 7"},
				{p1 + "/totals/guests", "not -1"},
				{p1 + "/totals/pairs", `"pairs" is not a line of the Insektenhotel totals sheet; use guests`},
			}},
		{name: "issue 8/a totals board holds nothing else",
			boards: []string{`{"hotel": "blue", "totals": {"guests": 6}}`, `{}`},
			errs:   []totalsWant{{"/players/0/board/hotel", `holds nothing but "totals"`}}},
	})
}

// TestInsektenhotelSources checks that the guests line points at the
// floors that hold guests, with how many (issue 8, "why this score").
func TestInsektenhotelSources(t *testing.T) {
	res, err := hotelScore(t, []hotelPlayer{{"Ana", hotelFourRed}, {"Ben", hotelFullGreen}})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Source{
		{{Pointer: "/floors/0", Points: 2}, {Pointer: "/floors/2", Points: 2}},
		{{Pointer: "/floors/0", Points: 2}, {Pointer: "/floors/1", Points: 2}, {Pointer: "/floors/2", Points: 2}},
	}
	for i, r := range res.Results {
		if got := r.Breakdown[0].Sources; !reflect.DeepEqual(got, want[i]) {
			t.Errorf("%s: sources %+v, want %+v", r.Name, got, want[i])
		}
	}
}

// FuzzScoreInsektenhotel feeds whole request bodies to Score: whatever comes
// in, the answer is either a ValidationError pointing into the request or a
// consistent ranking.
func FuzzScoreInsektenhotel(f *testing.F) {
	for _, seed := range []string{
		`{"players":[{"name":"Ana","board":` + hotelFullBlue + `},{"name":"Ben","board":` + hotelFiveGreen + `}],"variants":{}}`,
		`{"players":[{"name":"Ana","board":` + hotelFullBlue + `},{"name":"Ben","board":` + hotelFullGreen + `}]}`,
		`{"players":[{"name":"Ana","board":{"hotel":"red","floors":[{"species":"bee","guests":2},{"species":"bee","guests":3}]}},{"name":"Ben","board":null}]}`,
		`{"players":[{"name":"Ana","board":` + hotelFourRed + `},{"name":"Ben","board":` + hotelFourYellow + `},{"name":"Cleo","board":` + hotelThreeBlue + `}],"variants":{"x":1}}`,
		`{"players":[{"name":"Ana","board":{"floors":[{"species":"fly","guests":2}]}},{"name":"ana","board":{"hotel":7}}]}`,
		`{"players":[]}`,
		`{"players":[{"name":"Ana","board":{"totals":{"guests":6}}},{"name":"Ben","board":` + hotelFullGreen + `}]}`,
		`{"players":[{"name":"Ana","board":{"totals":{"guests":6}}},{"name":"Ben","board":{"totals":{"guests":5}}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if res := fuzzScore(t, "insektenhotel", body); res != nil {
			hotelCheckResult(t, res, len(res.Results))
		}
	})
}

// hotelCheckResult asserts what every ranking must satisfy.
func hotelCheckResult(t *testing.T, res *Result, n int) {
	t.Helper()
	if len(res.Results) != n {
		t.Fatalf("%d results for %d players", len(res.Results), n)
	}
	full := 0
	for i, r := range res.Results {
		if r.Rank < 1 || r.Rank > n {
			t.Fatalf("result %d has rank %d of %d players", i, r.Rank, n)
		}
		if r.Total < 0 || r.Total > hotelFullGuests {
			t.Fatalf("result %d has %d guests", i, r.Total)
		}
		if r.Total == hotelFullGuests {
			full++
		}
	}
	if full > 1 {
		t.Fatalf("%d full hotels accepted", full)
	}
	for _, w := range res.Winners {
		if res.Results[w].Rank != 1 {
			t.Fatalf("winner %d has rank %d", w, res.Results[w].Rank)
		}
	}
	if res.Complete != (full == 1 && n >= 2) {
		t.Fatalf("complete = %v with %d full hotels and %d players", res.Complete, full, n)
	}
	if res.Complete && len(res.Winners) != 1 {
		t.Fatalf("complete with winners %v", res.Winners)
	}
}

// TestInsektenhotelBoxLimits pins the deck's six cards of a species at
// their edge (issue 11, part 6), with the first species (bee) in the first
// hotel colour (blue), so that an off-by-one on either list shows.
func TestInsektenhotelBoxLimits(t *testing.T) {
	hotel := func(colour string, bees int) string {
		return fmt.Sprintf(`{"hotel": %q, "floors": [{"species": "bee", "guests": %d}, {"species": "ant", "guests": 0}, {"species": "fly", "guests": 0}]}`, colour, bees)
	}
	runBoxCases(t, "insektenhotel", []boxCase{
		{name: "Components: the 6 bee cards, all in hotels",
			boards: []string{hotel("blue", 2), hotel("green", 2), hotel("yellow", 1), hotel("red", 1)}},
		{name: "Components: a 7th bee",
			boards: []string{hotel("blue", 2), hotel("green", 2), hotel("yellow", 2), hotel("red", 1)},
			want:   "/players/3/board/floors/0/guests",
			detail: "the game has only 6 bee cards, and this floor makes 7 bees across the hotels"},
		{name: "Components: a 7th bee in the blue hotel",
			boards: []string{hotel("green", 2), hotel("yellow", 2), hotel("red", 1), hotel("blue", 2)},
			want:   "/players/3/board/floors/0/guests",
			detail: "this floor makes 7 bees across the hotels"},
		{name: "Setup: the blue hotel with a floor of two bees",
			boards: []string{hotel("blue", 2), `{}`}},
		{name: "Components: one blue hotel, so a second blue hotel is refused",
			boards: []string{hotel("blue", 1), hotel("blue", 1)},
			want:   "/players/1/board/hotel"},
		{name: "Setup: a floor holds 2 guests, not 3",
			boards: []string{hotel("blue", 3), `{}`},
			want:   "/players/0/board/floors/0/guests",
			detail: "a floor has 2 rooms, so it holds 0, 1 or 2 guests, not 3"},
	})
}

// TestHotelWho names a player by name, and without one by their place
// counted from 1 (issue 25: "already player 2's" for the player at
// /players/1 read as the wrong player).
func TestHotelWho(t *testing.T) {
	for _, c := range []struct {
		name string
		i    int
		want string
	}{{"Ana", 0, "Ana"}, {"  Ben ", 1, "Ben"}, {"", 0, "player 1"}, {" ", 2, "player 3"}} {
		if got := fmt.Sprint(hotelWho(c.name, c.i)); got != c.want {
			t.Errorf("hotelWho(%q, %d) = %q, want %q", c.name, c.i, got, c.want)
		}
	}
}

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

// insectariumExampleBoard is a display that scores exactly as the rulebook's
// "Example - End of Game Scoring": columns green 4, black 4, yellow 5; rows
// moth 2, butterfly 8, beetle 5; two unused tokens; two Display Tool bonuses,
// one taken as a token and one as 5 points. It shows two of each tool, so
// both bonuses are backed by the display. The dragonfly top left scores 1 in
// the moth row and 1 in the green column.
const insectariumExampleBoard = `{
  "grid": [
    [{"name": "Banded Pennant", "wild": true, "tools": []},
     {"color": "red", "insect": "moth", "points": 1, "tools": ["pin", "label"]},
     {"color": "yellow", "insect": "cricket", "points": 2, "tools": ["mat"]}],
    [{"color": "green", "insect": "butterfly", "points": 3},
     {"color": "black", "insect": "butterfly", "points": 2, "tools": ["pin", "mat"]},
     {"color": "yellow", "insect": "butterfly", "points": 3}],
    [{"color": "white", "insect": "beetle", "points": 5},
     {"name": "Cuckoo Wasp", "color": "black", "insect": "bee", "points": 2, "tools": ["label"]},
     {"color": "red", "insect": "moth", "points": 4}]
  ],
  "rowTokens": ["moth", "butterfly", "beetle"],
  "colTokens": ["green", "black", "yellow"],
  "supply": 2, "toolBonusesForPoints": 1, "toolBonusesForTokens": 1
}`

var insectariumNames = []string{"Ana", "Ben", "Cleo", "Dev", "Eve"}

// insectariumScore runs the public Score on boards, one player each, with
// the game found through the registry as the API finds it.
func insectariumScore(t *testing.T, boards ...string) (*Result, error) {
	t.Helper()
	g, ok := Lookup("insectarium")
	if !ok {
		t.Fatal("insectarium is not registered")
	}
	req := Request{}
	for i, b := range boards {
		req.Players = append(req.Players, PlayerInput{Name: insectariumNames[i], Board: []byte(b)})
	}
	return scoreCase(t, g, req)
}

// insectariumMustScore scores boards that must be valid.
func insectariumMustScore(t *testing.T, boards ...string) *Result {
	t.Helper()
	res, err := insectariumScore(t, boards...)
	if err != nil {
		t.Fatalf("Score: unexpected error: %v", err)
	}
	return res
}

// insectariumBoardFor builds a display of cards worth total points in all,
// laid out row by row: every card is a white specimen of insect, and all
// three row circles hold an insect token, so each card scores once. The
// first pins cards carry a pin, which sets the display-tools tiebreak.
func insectariumBoardFor(total int, insect string, pins, cards int) string {
	grid := make([][]any, 3)
	left := total
	for i := range 9 {
		var cell any
		if i < cards {
			p := min(9, left)
			left -= p
			tools := []string{}
			if i < pins {
				tools = []string{"pin"}
			}
			cell = map[string]any{"color": "white", "insect": insect, "points": p, "tools": tools}
		}
		grid[i/3] = append(grid[i/3], cell)
	}
	if left != 0 {
		panic(fmt.Sprintf("insectariumBoardFor: %d points don't fit on %d cards", total, cards))
	}
	b, _ := json.Marshal(map[string]any{
		"grid": grid, "rowTokens": []string{insect, insect, insect}, "colTokens": []any{nil, nil, nil},
	})
	return string(b)
}

func TestInsectariumRulebookExample(t *testing.T) {
	t.Run("Example - End of Game Scoring: breakdown and total", func(t *testing.T) {
		res := insectariumMustScore(t, insectariumExampleBoard)
		got := res.Results[0]
		// The sources are the cards that score in each line with what
		// they score there: in the rows the dragonfly and the moth of the
		// moth row, the three butterflies, the beetle (2 + 8 + 5 = 15).
		src := func(ptr string, points int) Source { return Source{Pointer: ptr, Points: points} }
		wantLines := []Line{
			{Key: "rows", Label: "Rows", Points: 15, Sources: []Source{
				src("/grid/0/0", 1), src("/grid/0/1", 1),
				src("/grid/1/0", 3), src("/grid/1/1", 2), src("/grid/1/2", 3),
				src("/grid/2/0", 5)}},
			// Green column 4, black 4, yellow 5.
			{Key: "columns", Label: "Columns", Points: 13, Sources: []Source{
				src("/grid/0/0", 1), src("/grid/1/0", 3),
				src("/grid/1/1", 2), src("/grid/2/1", 2),
				src("/grid/0/2", 2), src("/grid/1/2", 3)}},
			{Key: "supply", Label: "Unused tokens", Points: 1, Sources: []Source{src("/supply", 1)}},
			{Key: "toolBonus", Label: "Display Tool bonuses", Points: 5, Sources: []Source{src("/toolBonusesForPoints", 5)}},
		}
		if !reflect.DeepEqual(got.Breakdown, wantLines) {
			t.Errorf("breakdown = %+v, want %+v", got.Breakdown, wantLines)
		}
		if got.Total != 34 {
			t.Errorf("total = %d, want 34", got.Total)
		}
		wantTB := []Tiebreak{{Key: "displayTools", Label: "display tools", Value: 6, Sources: []Source{
			src("/grid/0/1", 2), src("/grid/0/2", 1), src("/grid/1/1", 2), src("/grid/2/1", 1)}}}
		if !reflect.DeepEqual(got.Tiebreaks, wantTB) {
			t.Errorf("tiebreaks = %+v, want %+v", got.Tiebreaks, wantTB)
		}
		if got.Entered != EnteredBoard {
			t.Errorf("entered = %q, want board", got.Entered)
		}
		if len(got.Warnings) != 0 {
			t.Errorf("warnings = %+v, want none", got.Warnings)
		}
		if !res.Complete || !slices.Equal(res.Winners, []int{0}) || got.Rank != 1 || !got.Winner {
			t.Errorf("complete %v winners %v rank %d winner %v, want a complete solo win",
				res.Complete, res.Winners, got.Rank, got.Winner)
		}
		if res.SoloRating != "decent" {
			t.Errorf("soloRating = %q, want decent (34 is in 26-35)", res.SoloRating)
		}
	})

	// Each line of the example, scored one by one.
	var b insectariumBoard
	if err := DecodeBoard([]byte(insectariumExampleBoard), "/players/0/board", &b); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		token  string
		i      int // the row, or the column
		column bool
		want   int
	}{
		{"Green Column", "green", 0, true, 4},
		{"Black Column", "black", 1, true, 4},
		{"Yellow Column", "yellow", 2, true, 5},
		{"Moth Row", "moth", 0, false, 2},
		{"Butterfly Row", "butterfly", 1, false, 8},
		{"Beetle Row", "beetle", 2, false, 5},
	}
	for _, tt := range tests {
		t.Run("Example - End of Game Scoring: "+tt.name, func(t *testing.T) {
			var src []Source
			if got := b.line(tt.token, tt.i, tt.column, &src); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
			sum := 0
			for _, s := range src {
				sum += s.Points
			}
			if sum != tt.want {
				t.Errorf("sources %+v add up to %d, want %d", src, sum, tt.want)
			}
		})
	}
}

func TestInsectariumScoring(t *testing.T) {
	tests := []struct {
		name  string
		board string
		want  map[string]int // breakdown key → points, plus "total"
	}{
		{
			name: "Dragonfly Wild Cards: 1 in each line with a token, whatever its points",
			board: `{"grid": [[{"wild": true, "points": 9}, null, null],
			                  [],
			                  [null, {"wild": true, "tools": ["pin"]}]],
			         "rowTokens": ["red", null, "bee"], "colTokens": [null, "moth", null]}`,
			// (0,0): red row 1, column without token 0; (2,1): bee row 1, moth column 1.
			want: map[string]int{"rows": 2, "columns": 1, "total": 3},
		},
		{
			name:  "Dragonfly Wild Cards: nothing in lines without a token",
			board: `{"grid": [[{"wild": true}, {"wild": true}]], "rowTokens": [null, "moth"], "colTokens": [null, null, "red"]}`,
			want:  map[string]int{"rows": 0, "columns": 0, "total": 0},
		},
		{
			name: "Game End and Final Scoring: a card can score twice",
			board: `{"grid": [[{"color": "green", "insect": "beetle", "points": 4}]],
			         "rowTokens": ["beetle"], "colTokens": ["green"]}`,
			want: map[string]int{"rows": 4, "columns": 4, "total": 8},
		},
		{
			name: "Tokens: a line without a token scores nothing",
			board: `{"grid": [[{"color": "green", "insect": "beetle", "points": 4}]],
			         "rowTokens": [null, "beetle"], "colTokens": ["red"]}`,
			want: map[string]int{"rows": 0, "columns": 0, "total": 0},
		},
		{
			name: "Tokens: a token circle takes either kind of token",
			board: `{"grid": [[{"color": "red", "insect": "moth", "points": 3},
			                   {"color": "red", "insect": "bee", "points": 2},
			                   {"color": "white", "insect": "moth", "points": 5}]],
			         "rowTokens": ["red"], "colTokens": ["moth", "moth", "moth"]}`,
			// row red: 3+2; columns moth: 3, 0, 5.
			want: map[string]int{"rows": 5, "columns": 8, "total": 13},
		},
		{
			name:  "Tokens: an empty string is an empty circle",
			board: `{"grid": [[{"color": "red", "insect": "moth", "points": 3}]], "rowTokens": [""], "colTokens": ["red"]}`,
			want:  map[string]int{"rows": 0, "columns": 3, "total": 3},
		},
		{
			name:  "Tokens: 1 point per 2 unused tokens, rounded down",
			board: `{"supply": 7}`,
			want:  map[string]int{"supply": 3, "total": 3},
		},
		{
			name:  "Display Tool bonus: 5 points each taken as points, nothing for tokens",
			board: `{"toolBonusesForPoints": 2, "toolBonusesForTokens": 1}`,
			want:  map[string]int{"toolBonus": 10, "total": 10},
		},
		{
			name:  "partial board: no board yet",
			board: `null`,
			want:  map[string]int{"rows": 0, "columns": 0, "supply": 0, "toolBonus": 0, "total": 0},
		},
		{
			name:  "partial board: short rows, null rows and missing token lists",
			board: `{"grid": [null, [{"color": "red", "insect": "moth", "points": 3}]], "rowTokens": [null, "moth"]}`,
			want:  map[string]int{"rows": 3, "columns": 0, "total": 3},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := insectariumMustScore(t, tt.board)
			for key, want := range tt.want {
				got := res.Results[0].Total
				if key != "total" {
					got = insectariumLinePoints(res, 0, key)
				}
				if got != want {
					t.Errorf("%s = %d, want %d", key, got, want)
				}
			}
			if res.Complete {
				t.Error("complete = true for a board with fewer than 9 cards")
			}
		})
	}
}

// insectariumLinePoints returns a player's points in one breakdown line.
func insectariumLinePoints(res *Result, player int, key string) int {
	for _, l := range res.Results[player].Breakdown {
		if l.Key == key {
			return l.Points
		}
	}
	return -1
}

func TestInsectariumSoloChart(t *testing.T) {
	tests := []struct {
		total int
		want  string
	}{
		{0, "try-again"},
		{25, "try-again"}, // the printed chart skips 25; DESIGN.md puts it here
		{26, "decent"},
		{35, "decent"},
		{36, "excellent"},
		{42, "excellent"},
		{43, "outstanding"},
		{81, "outstanding"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("Solo Rules: %d points", tt.total), func(t *testing.T) {
			res := insectariumMustScore(t, insectariumBoardFor(tt.total, "beetle", 0, 9))
			if res.Results[0].Total != tt.total {
				t.Fatalf("total = %d, want %d", res.Results[0].Total, tt.total)
			}
			if res.SoloRating != tt.want {
				t.Errorf("soloRating = %q, want %q", res.SoloRating, tt.want)
			}
		})
	}
	t.Run("Solo Rules: no rating before the ninth card", func(t *testing.T) {
		res := insectariumMustScore(t, insectariumBoardFor(43, "beetle", 0, 8))
		if res.Complete || res.SoloRating != "" {
			t.Errorf("complete %v soloRating %q, want false and none", res.Complete, res.SoloRating)
		}
	})
	t.Run("Solo Rules: no rating with two players", func(t *testing.T) {
		res := insectariumMustScore(t, insectariumBoardFor(43, "beetle", 0, 9), insectariumBoardFor(30, "moth", 0, 9))
		if !res.Complete || res.SoloRating != "" {
			t.Errorf("complete %v soloRating %q, want true and none", res.Complete, res.SoloRating)
		}
	})
}

func TestInsectariumRanking(t *testing.T) {
	type player struct{ total, tools, cards int }
	tests := []struct {
		name        string
		players     []player
		wantRanks   []int
		wantWinners []int
		wantTie     []string // words the tiebreak explanation must contain
	}{
		{
			name:        "most points wins",
			players:     []player{{30, 0, 9}, {31, 0, 9}},
			wantRanks:   []int{2, 1},
			wantWinners: []int{1},
		},
		{
			name:        "Game End and Final Scoring: a tie goes to the most display tools",
			players:     []player{{30, 1, 9}, {30, 2, 9}},
			wantRanks:   []int{2, 1},
			wantWinners: []int{1},
			wantTie:     []string{"Ben wins", "2 display tools to 1"},
		},
		{
			name:        "Game End and Final Scoring: still tied, the win is shared",
			players:     []player{{30, 2, 9}, {30, 2, 9}},
			wantRanks:   []int{1, 1},
			wantWinners: []int{0, 1},
			wantTie:     []string{"Ana and Ben share the victory"},
		},
		{
			name:        "ranks 1, 1, 3 after a shared first place",
			players:     []player{{30, 1, 9}, {20, 5, 9}, {30, 1, 9}},
			wantRanks:   []int{1, 3, 1},
			wantWinners: []int{0, 2},
			wantTie:     []string{"share"},
		},
		{
			name:        "ranks 1, 1, 3 when the tiebreak drops one of three",
			players:     []player{{30, 3, 9}, {30, 3, 9}, {30, 0, 9}},
			wantRanks:   []int{1, 1, 3},
			wantWinners: []int{0, 1},
			wantTie:     []string{"Ana and Ben share the tie", "3 display tools to 0"},
		},
		{
			name:        "no winners while a board is incomplete",
			players:     []player{{40, 0, 9}, {10, 0, 8}},
			wantRanks:   []int{1, 2},
			wantWinners: []int{},
		},
	}
	insects := []string{"beetle", "moth", "bee", "butterfly"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var boards []string
			for i, p := range tt.players {
				boards = append(boards, insectariumBoardFor(p.total, insects[i], p.tools, p.cards))
			}
			res := insectariumMustScore(t, boards...)
			var ranks []int
			for i, r := range res.Results {
				ranks = append(ranks, r.Rank)
				if r.Winner != slices.Contains(tt.wantWinners, i) {
					t.Errorf("player %d winner = %v", i, r.Winner)
				}
			}
			if !slices.Equal(ranks, tt.wantRanks) {
				t.Errorf("ranks = %v, want %v", ranks, tt.wantRanks)
			}
			if !slices.Equal(res.Winners, tt.wantWinners) {
				t.Errorf("winners = %v, want %v", res.Winners, tt.wantWinners)
			}
			wantComplete := len(tt.wantWinners) > 0
			if res.Complete != wantComplete {
				t.Errorf("complete = %v, want %v", res.Complete, wantComplete)
			}
			for _, w := range tt.wantTie {
				if !strings.Contains(res.Tiebreak, w) {
					t.Errorf("tiebreak = %q, want it to mention %q", res.Tiebreak, w)
				}
			}
			if len(tt.wantTie) == 0 && res.Tiebreak != "" {
				t.Errorf("tiebreak = %q, want none", res.Tiebreak)
			}
		})
	}
}

func TestInsectariumToolWarning(t *testing.T) {
	oneSet := `[[{"color": "red", "insect": "moth", "points": 1, "tools": ["pin", "label", "mat"]}]]`
	tests := []struct {
		name        string
		board       string
		wantPointer string // "" for no warning
	}{
		{"bonuses match the full sets", `{"grid": ` + oneSet + `, "toolBonusesForTokens": 1}`, ""},
		{"more bonuses than full sets", `{"grid": ` + oneSet + `, "toolBonusesForPoints": 1, "toolBonusesForTokens": 1}`,
			"/players/0/board/toolBonusesForPoints"},
		{"only token bonuses, none backed", `{"toolBonusesForTokens": 1}`, "/players/0/board/toolBonusesForTokens"},
		{"a set needs all three tools", `{"grid": [[{"color": "red", "insect": "moth", "points": 1, "tools": ["pin", "label"]},
		  {"wild": true, "tools": ["pin", "label"]}]], "toolBonusesForPoints": 1}`, "/players/0/board/toolBonusesForPoints"},
	}
	for _, tt := range tests {
		t.Run("Display Tools: "+tt.name, func(t *testing.T) {
			res := insectariumMustScore(t, tt.board)
			got := res.Results[0].Warnings
			if tt.wantPointer == "" {
				if len(got) != 0 {
					t.Errorf("warnings = %+v, want none", got)
				}
				return
			}
			if len(got) != 1 || got[0].Pointer != tt.wantPointer || !strings.Contains(got[0].Detail, "full sets") {
				t.Errorf("warnings = %+v, want one at %s about full sets", got, tt.wantPointer)
			}
		})
	}
}

// insectariumWant is one expected error: its exact pointer and words its
// message must contain.
type insectariumWant struct{ pointer, detail string }

func TestInsectariumValidation(t *testing.T) {
	red := func(extra string) string {
		return `{"grid": [[{"color": "red", "insect": "moth", "points": 3` + extra + `}]]}`
	}
	tests := []struct {
		name   string
		boards []string
		want   []insectariumWant
	}{
		{"too many rows", []string{`{"grid": [[], [], [], []]}`},
			[]insectariumWant{{"/players/0/board/grid/3", "only 3 rows"}}},
		{"too many cards in a row", []string{`{"grid": [[], [null, null, null, null]]}`},
			[]insectariumWant{{"/players/0/board/grid/1/3", "only 3 cards"}}},
		{"a card beyond the display is still checked, at its place", []string{`{"grid": [
			[null, null, null, {"color": "blue", "insect": "moth", "points": 1}], [], [],
			[{"color": "red", "insect": "ant", "points": 1}]]}`},
			[]insectariumWant{
				{"/players/0/board/grid/3", "only 3 rows"},
				{"/players/0/board/grid/0/3", "only 3 cards"},
				{"/players/0/board/grid/0/3/color", `"blue" is not a colour`},
				{"/players/0/board/grid/3/0/insect", `"ant" is not an insect type`},
			}},
		{"too many row tokens", []string{`{"rowTokens": [null, null, null, "red"]}`},
			[]insectariumWant{{"/players/0/board/rowTokens/3", "only 3 row token circles"}}},
		{"too many column tokens", []string{`{"colTokens": ["red", "red", "red", "red"]}`},
			[]insectariumWant{{"/players/0/board/colTokens/3", "only 3 column token circles"}}},
		{"unknown token", []string{`{"rowTokens": ["purple"]}`},
			[]insectariumWant{{"/players/0/board/rowTokens/0", `"purple" is not a token`}}},
		{"unknown colour", []string{`{"grid": [[{"color": "blue", "insect": "moth", "points": 3}]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/0/color", `"blue" is not a colour`}}},
		{"unknown insect", []string{`{"grid": [[null, {"color": "red", "insect": "ant", "points": 3}]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/1/insect", `"ant" is not an insect type`}}},
		{"a token is no colour", []string{`{"grid": [[{"color": "beetle", "insect": "moth"}]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/0/color", "not a colour"}}},
		{"a specimen needs colour and insect", []string{`{"grid": [[{"points": 3}]]}`},
			[]insectariumWant{
				{"/players/0/board/grid/0/0/color", "choose the card's colour"},
				{"/players/0/board/grid/0/0/insect", "choose the card's insect"},
			}},
		{"points above 9", []string{red(`, "points": 10`)},
			[]insectariumWant{{"/players/0/board/grid/0/0/points", "0 to 9 points, not 10"}}},
		{"negative points", []string{red(`, "points": -1`)},
			[]insectariumWant{{"/players/0/board/grid/0/0/points", "0 to 9 points"}}},
		{"unknown tool", []string{red(`, "tools": ["pin", "tweezers"]`)},
			[]insectariumWant{{"/players/0/board/grid/0/0/tools/1", `"tweezers" is not a display tool`}}},
		{"a tool twice on one card", []string{red(`, "tools": ["pin", "mat", "pin"]`)},
			[]insectariumWant{{"/players/0/board/grid/0/0/tools/2", "pin is listed twice"}}},
		{"a dragonfly with a colour and an insect", []string{`{"grid": [[{"wild": true, "color": "red", "insect": "moth"}]]}`},
			[]insectariumWant{
				{"/players/0/board/grid/0/0/color", "a dragonfly is wild: leave colour and insect empty"},
				{"/players/0/board/grid/0/0/insect", "a dragonfly is wild"},
			}},
		{"negative supply", []string{`{"supply": -1}`},
			[]insectariumWant{{"/players/0/board/supply", "can't be negative"}}},
		{"absurd supply", []string{`{"supply": 51}`},
			[]insectariumWant{{"/players/0/board/supply", "only 50 tokens"}}},
		{"negative bonuses", []string{`{"toolBonusesForPoints": -1, "toolBonusesForTokens": -2}`},
			[]insectariumWant{
				{"/players/0/board/toolBonusesForPoints", "can't be negative"},
				{"/players/0/board/toolBonusesForTokens", "can't be negative"},
			}},
		{"absurd bonuses", []string{`{"toolBonusesForPoints": 11}`},
			[]insectariumWant{{"/players/0/board/toolBonusesForPoints", "at most 10"}}},
		{"unknown board field", []string{`{"supplies": 2}`},
			[]insectariumWant{{"/players/0/board/supplies", `"supplies" is not a field`}}},
		{"unknown card field", []string{`{"grid": [[null, {"colour": "red"}]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/1/colour", `"colour" is not a field`}}},
		{"points as text", []string{`{"grid": [[{"color": "red", "insect": "moth", "points": 3}], [],
			[null, null, {"color": "red", "insect": "moth", "points": "3"}]]}`},
			[]insectariumWant{{"/players/0/board/grid/2/2/points", "expected a whole number, got text"}}},
		{"supply as text", []string{`{"supply": "2"}`},
			[]insectariumWant{{"/players/0/board/supply", "expected a whole number"}}},
		{"wild as text", []string{`{"grid": [[{"wild": "yes"}]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/0/wild", "expected true or false"}}},
		{"tools as text", []string{`{"grid": [[{"wild": true, "tools": "pin"}]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/0/tools", "expected a list"}}},
		{"a token as a number", []string{`{"rowTokens": ["red", 7]}`},
			[]insectariumWant{{"/players/0/board/rowTokens/1", "expected text"}}},
		{"grid as text", []string{`{"grid": "full"}`},
			[]insectariumWant{{"/players/0/board/grid", "expected a list"}}},
		{"a card as a number", []string{`{"grid": [[null, 4]]}`},
			[]insectariumWant{{"/players/0/board/grid/0/1", "expected an object"}}},
		{"board as a list", []string{`[]`},
			[]insectariumWant{{"/players/0/board", "expected an object"}}},
		{
			name: "every problem of every board at once",
			boards: []string{
				`{"grid": [[{"color": "blue", "insect": "moth", "points": 12}]], "supply": -3}`,
				`{"rowTokens": ["red"]}`,
				`{"grid": [[{"wild": "no"}]]}`,
			},
			want: []insectariumWant{
				{"/players/0/board/grid/0/0/color", "not a colour"},
				{"/players/0/board/grid/0/0/points", "not 12"},
				{"/players/0/board/supply", "negative"},
				{"/players/2/board/grid/0/0/wild", "true or false"},
			},
		},
		{
			name: "Tokens: 5 of each type in a multiplayer game",
			boards: []string{
				`{"rowTokens": ["red", "red", "red"]}`,
				`{"colTokens": ["red", "red"]}`,
				`{"rowTokens": ["moth"], "colTokens": [null, "red", "red"]}`,
			},
			want: []insectariumWant{
				{"/players/2/board/colTokens/1", "only 5 red tokens are in the game; the boards already hold 5"},
				{"/players/2/board/colTokens/2", "only 5 red tokens"},
			},
		},
		{
			name:   "unknown tokens don't count against the pool",
			boards: []string{`{"rowTokens": ["moth", "moth", "moth"], "colTokens": ["moth ", "Moth"]}`},
			want: []insectariumWant{
				{"/players/0/board/colTokens/0", `"moth " is not a token`},
				{"/players/0/board/colTokens/1", `"Moth" is not a token`},
			},
		},
		{
			name:   "Solo Rules: two tokens of each type stay in the box",
			boards: []string{`{"rowTokens": ["moth", "moth", "moth"], "colTokens": ["moth"]}`},
			want:   []insectariumWant{{"/players/0/board/colTokens/0", "only 3 moth tokens are in the game; the boards already hold 3"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := insectariumScore(t, tt.boards...)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Score = %+v, %v; want a *ValidationError", res, err)
			}
			var got []string
			for _, fe := range verr.Errors {
				got = append(got, fe.Pointer)
			}
			var want []string
			for _, w := range tt.want {
				want = append(want, w.pointer)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("pointers = %q, want %q\nerrors: %v", got, want, verr)
			}
			for i, w := range tt.want {
				if !strings.Contains(verr.Errors[i].Detail, w.detail) {
					t.Errorf("error at %s = %q, want it to contain %q", w.pointer, verr.Errors[i].Detail, w.detail)
				}
			}
		})
	}
}

func TestInsectariumTokenPoolLimits(t *testing.T) {
	tests := []struct {
		name   string
		boards []string
	}{
		{"Tokens: all 5 of a type on the table", []string{
			`{"rowTokens": ["red", "red", "red"]}`, `{"colTokens": ["red", "red"], "rowTokens": ["moth"]}`,
		}},
		{"Solo Rules: all 3 of a type on the display", []string{
			`{"rowTokens": ["moth", "moth", "moth"], "colTokens": ["red", "red", "red"]}`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := insectariumScore(t, tt.boards...); err != nil {
				t.Errorf("Score: %v, want no error", err)
			}
		})
	}
}

func TestInsectariumSpec(t *testing.T) {
	g, ok := Lookup("insectarium")
	if !ok {
		t.Fatal("insectarium is not registered")
	}
	spec := g.Spec()
	wantInfo := Info{ID: "insectarium", Name: "Insectarium", MinPlayers: 1, MaxPlayers: 4,
		Unit: "game.insectarium.unit", End: "every display needs all 9 cards", Form: "games/insectarium.js"}
	if spec.Info != wantInfo {
		t.Errorf("info = %+v, want %+v", spec.Info, wantInfo)
	}
	ids := func(opts []Option) string {
		var out []string
		for _, o := range opts {
			out = append(out, o.ID)
		}
		return strings.Join(out, ",")
	}
	wantEnums := map[string]string{
		"color":      "yellow,red,green,white,black",
		"insect":     "butterfly,cricket,moth,bee,beetle",
		"token":      "yellow,red,green,white,black,butterfly,cricket,moth,bee,beetle",
		"tool":       "pin,label,mat",
		"soloRating": "try-again,decent,excellent,outstanding",
	}
	if len(spec.Enums) != len(wantEnums) {
		t.Errorf("enums = %v, want keys %v", spec.Enums, wantEnums)
	}
	for key, want := range wantEnums {
		if got := ids(spec.Enums[key]); got != want {
			t.Errorf("enum %s = %s, want %s", key, got, want)
		}
	}
	labels := map[string]string{}
	for _, o := range slices.Concat(spec.Enums["token"], spec.Enums["tool"]) {
		labels[o.ID] = o.Label
	}
	for id, want := range map[string]string{"cricket": "Cricket/Grasshopper", "bee": "Bee/Wasp/Hornet", "mat": "Mat backing", "red": "Red"} {
		if labels[id] != want {
			t.Errorf("label of %s = %q, want %q", id, labels[id], want)
		}
	}
	if spec.Variants == nil || len(spec.Variants) != 0 {
		t.Errorf("variants = %#v, want an empty list", spec.Variants)
	}
	if spec.Grid == nil || *spec.Grid != (Grid{Rows: 3, Cols: 3}) {
		t.Errorf("grid = %+v, want 3×3", spec.Grid)
	}
	if got := ids(spec.Breakdown); got != "rows,columns,supply,toolBonus" {
		t.Errorf("breakdown = %s", got)
	}
	if got := ids(spec.Tiebreaks); got != "displayTools" || spec.Tiebreaks[0].Label != "display tools" {
		t.Errorf("tiebreaks = %+v", spec.Tiebreaks)
	}
	// A caller changing its copy must not change the game.
	spec.Enums["color"][0].ID = "mauve"
	if g.Spec().Enums["color"][0].ID != "yellow" {
		t.Error("Spec shares its enumeration slices with callers")
	}
}

// insectariumExampleTotals is the rulebook's "Example - End of Game
// Scoring" entered as a totals sheet.
const insectariumExampleTotals = `{"totals": {"rows": 15, "columns": 13, "supply": 1, "toolBonus": 5, "displayTools": 6}}`

// TestInsectariumTotals covers boards entered as totals sheets (issue 8):
// scored, ranked and tie-broken like boards, final, and checked as
// strictly.
func TestInsectariumTotals(t *testing.T) {
	const p0, p1 = "/players/0/board", "/players/1/board"
	board30 := insectariumBoardFor(30, "beetle", 1, 9)
	runTotals(t, "insectarium", []totalsCase{
		{name: "issue 8/Example - End of Game Scoring as totals: 34 points, decent",
			boards: []string{insectariumExampleTotals},
			totals: []int{34}, ranks: []int{1}, winners: []int{0}, complete: true, entered: []string{"totals"}},
		{name: "issue 8/a totals board and a board at one table",
			boards: []string{insectariumExampleTotals, insectariumExampleBoard},
			totals: []int{34, 34}, ranks: []int{1, 1}, winners: []int{0, 1}, complete: true, entered: []string{"totals", "board"},
			tiebreak: "Ana and Ben share the victory: level on 34 points and on every tiebreak"},
		{name: "issue 8/Game End and Final Scoring: the tie goes to the most display tools, from the sheet",
			boards: []string{board30, `{"totals": {"rows": 30, "displayTools": 2}}`},
			totals: []int{30, 30}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"board", "totals"},
			tiebreak: "Ben wins the tie on 30 points: 2 display tools to 1"},
		{name: "issue 25/Display Tool bonus: a sheet with fewer display tools than a set is warned, as a board is",
			boards: []string{`{"totals": {"rows": 10, "toolBonus": 5, "displayTools": 2}}`, `{"totals": {"rows": 10, "toolBonus": 10, "displayTools": 6}}`},
			totals: []int{15, 20}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"totals", "totals"},
			warnings: []totalsWant{{p0 + "/totals/toolBonus", "1 Display Tool bonuses are claimed, but 2 display tools make only 0 full sets of pin, label and mat"}}},
		{name: "issue 8/a missing line counts 0, a missing tiebreak 0 with a warning",
			boards: []string{`{"totals": {"columns": 30}}`, board30},
			totals: []int{30, 30}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"totals", "board"},
			warnings: []totalsWant{{p0 + "/totals/displayTools", "no display tools entered: counted as 0 for the tiebreak"}},
			tiebreak: "Ben wins the tie on 30 points: 1 display tools to 0"},
		{name: "issue 8/null is a value not entered",
			boards: []string{`{"totals": {"rows": 3, "displayTools": null}}`},
			totals: []int{3}, ranks: []int{1}, winners: []int{0}, complete: true, entered: []string{"totals"},
			warnings: []totalsWant{{p0 + "/totals/displayTools", "no display tools entered"}}},
		{name: "issue 8/an empty sheet is final too",
			boards: []string{`{"totals": {}}`, `{"totals": null}`},
			totals: []int{0, 0}, ranks: []int{1, 1}, winners: []int{0, 1}, complete: true, entered: []string{"totals", "totals"},
			warnings: []totalsWant{{p0 + "/totals/displayTools", "counted as 0"}, {p1 + "/totals/displayTools", "counted as 0"}},
			tiebreak: "share the victory"},
		{name: "issue 8/an unfinished display keeps the table open",
			boards: []string{insectariumExampleTotals, insectariumBoardFor(30, "beetle", 0, 8)},
			totals: []int{34, 30}, ranks: []int{1, 2}, winners: []int{}, complete: false, entered: []string{"totals", "board"}},
		{name: "issue 8/Tokens: the pool counts the boards, a sheet has none",
			boards: []string{`{"rowTokens": ["red", "red", "red"]}`, `{"totals": {"rows": 12, "displayTools": 0}}`, `{"colTokens": ["red", "red"]}`},
			totals: []int{0, 12, 0}, ranks: []int{2, 1, 2}, winners: []int{}, complete: false, entered: []string{"board", "totals", "board"}},
		// Two players: solo play leaves 20 tokens in the box, so a solo
		// supply of 50 tokens (25 points) is over the box (issue 11).
		{name: "issue 8/the highest values of the box",
			boards: []string{`{"totals": {"rows": 81, "columns": 81, "supply": 25, "toolBonus": 50, "displayTools": 27}}`,
				`{"totals": {"rows": 0, "columns": 0, "supply": 0, "toolBonus": 0, "displayTools": 0}}`},
			totals: []int{237, 0}, ranks: []int{1, 2}, winners: []int{0}, complete: true, entered: []string{"totals", "totals"},
			// 9 cards show at most 27 tools, 9 sets: a tenth bonus needs a gear card.
			warnings: []totalsWant{{p0 + "/totals/toolBonus", "10 Display Tool bonuses are claimed, but 27 display tools make only 9 full sets"}}},

		{name: "issue 8/values outside a line's range",
			boards: []string{`{"totals": {"rows": 82, "columns": -1, "supply": 26, "toolBonus": 55, "displayTools": 28}}`},
			errs: []totalsWant{
				{p0 + "/totals/rows", "Rows can be 0 to 81, not 82"},
				{p0 + "/totals/columns", "Columns can be 0 to 81, not -1"},
				{p0 + "/totals/supply", "Unused tokens can be 0 to 25, not 26"},
				{p0 + "/totals/toolBonus", "Display Tool bonuses can be 0 to 50, not 55"},
				{p0 + "/totals/displayTools", "display tools can be 0 to 27, not 28"},
			}},
		{name: "issue 8/Display Tool bonuses come 5 points at a time",
			boards: []string{`{"totals": {"toolBonus": 12}}`},
			errs:   []totalsWant{{p0 + "/totals/toolBonus", "Display Tool bonuses is a multiple of 5, not 12"}}},
		{name: "issue 8/unknown lines are refused by name",
			boards: []string{`{"totals": {"rows": 3, "bonus": 5, "Rows": 1}}`},
			errs: []totalsWant{
				{p0 + "/totals/Rows", `"Rows" is not a line of the Insectarium totals sheet; use rows, columns, supply, toolBonus or displayTools`},
				{p0 + "/totals/bonus", `"bonus" is not a line`},
			}},
		{name: "issue 8/wrong types at their line",
			boards: []string{`{"totals": {"rows": "12", "columns": 2.5, "supply": true, "toolBonus": [5]}}`},
			errs: []totalsWant{
				{p0 + "/totals/rows", "expected a whole number, got text"},
				{p0 + "/totals/columns", "expected a whole number, got 2.5"},
				{p0 + "/totals/supply", "expected a whole number, got true or false"},
				{p0 + "/totals/toolBonus", "expected a whole number, got a list"},
			}},
		{name: "issue 8/a sheet is an object",
			boards: []string{`{"totals": [15, 13]}`, `{"totals": 34}`},
			errs: []totalsWant{
				{p0 + "/totals", "expected an object, got a list"},
				{p1 + "/totals", "expected an object, got a number"},
			}},
		{name: "issue 8/a totals board holds nothing else",
			boards: []string{`{"totals": {"rows": 3}, "supply": 2, "grid": []}`},
			errs: []totalsWant{
				{p0 + "/grid", `a board entered as totals holds nothing but "totals": remove "grid"`},
				{p0 + "/supply", `remove "supply"`},
			}},
		{name: "issue 8/Tokens: the pool still holds for the boards beside a sheet",
			boards: []string{`{"rowTokens": ["red", "red", "red"]}`, `{"totals": {"rows": 12}}`, `{"colTokens": ["red", "red", "red"]}`},
			errs:   []totalsWant{{"/players/2/board/colTokens/2", "only 5 red tokens are in the game"}}},
		{name: "issue 8/every problem of every board at once",
			boards: []string{`{"grid": [[{"color": "blue", "insect": "moth", "points": 3}]]}`, `{"totals": {"rows": 100}}`},
			errs: []totalsWant{
				{p0 + "/grid/0/0/color", "not a colour"},
				{p1 + "/totals/rows", "not 100"},
			}},
	})
}

// FuzzScoreInsectarium feeds whole request bodies to Score: it must answer
// every one with either field errors or a consistent ranking, never a panic.
func FuzzScoreInsectarium(f *testing.F) {
	f.Add(`{"players":[{"name":"Ana","board":` + insectariumExampleBoard + `}],"variants":{}}`)
	f.Add(`{"players":[{"name":"Ana","board":` + insectariumExampleBoard + `},{"name":"Ben","board":` +
		insectariumExampleBoard + `}],"variants":{}}`)
	f.Add(`{"players":[{"name":"Ana","board":{"grid":[[{"wild":true,"points":"x"}]],"rowTokens":["red",7]}},` +
		`{"name":"Ben","board":null}],"variants":{"x":1}}`)
	f.Add(`{"players":[{"name":"Ana","board":{"grid":[[],[],[],[]],"supply":1e30,"toolBonusesForPoints":2.5}}]}`)
	f.Add(`{"players":[]}`)
	f.Add(`{"players":[{"name":"Ana","board":` + insectariumExampleTotals + `},{"name":"Ben","board":` + insectariumExampleBoard + `}]}`)
	f.Add(`{"players":[{"name":"Ana","board":{"totals":{"rows":82,"toolBonus":7,"x":1}}},{"name":"Ben","board":{"totals":null,"supply":1}}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		fuzzScore(t, "insectarium", []byte(body))
	})
}

// TestInsectariumBoxLimits pins the box's limits across the table at their
// edge (issue 11): "30 Glass Pieces", three per bonus ("A Glass Piece must
// be used to cover each Tool used for the bonus"), and "50 Type Tokens",
// of which solo play leaves "two tokens of each type (20 tokens total)"
// in the box.
func TestInsectariumBoxLimits(t *testing.T) {
	const p0, p1 = "/players/0/board", "/players/1/board"
	six := `"rowTokens": ["red", "moth", "bee"], "colTokens": ["green", "beetle", "white"]`
	glass := "the box has 30 glass pieces: at most 10 bonuses at one table"
	bag := "the box has 50 type tokens: at most 50 placed and unused at one table"
	solo := "solo play leaves 20 of them in the box: at most 30 placed and unused"
	runBoxCases(t, "insectarium", []boxCase{
		{name: "Components: 30 Glass Pieces, 10 bonuses on one board",
			boards: []string{`{"toolBonusesForPoints": 10}`}},
		{name: "Components: 30 Glass Pieces, 10 bonuses taken as tokens",
			boards: []string{`{"toolBonusesForTokens": 10}`}},
		{name: "Components: 30 Glass Pieces, 11 bonuses on one board",
			boards: []string{`{"toolBonusesForPoints": 10, "toolBonusesForTokens": 1}`},
			want:   p0 + "/toolBonusesForTokens", pointers: []string{p0 + "/toolBonusesForTokens", p0 + "/toolBonusesForPoints"},
			detail: glass + ", and these boards claim 11"},
		{name: "Components: 30 Glass Pieces, 10 bonuses at a table of three",
			boards: []string{`{"toolBonusesForPoints": 4, "toolBonusesForTokens": 2}`, `{"toolBonusesForTokens": 3}`, `{"toolBonusesForPoints": 1}`}},
		{name: "Components: 30 Glass Pieces, 11 bonuses at a table of two",
			boards: []string{`{"toolBonusesForPoints": 6}`, `{"toolBonusesForTokens": 5}`},
			want:   p1 + "/toolBonusesForTokens", pointers: []string{p1 + "/toolBonusesForTokens", p0 + "/toolBonusesForPoints"},
			detail: glass + ", and these boards claim 11"},
		{name: "Components: 30 Glass Pieces, a totals sheet's bonuses count",
			boards: []string{`{"totals": {"toolBonus": 50}}`, `{"toolBonusesForPoints": 1}`},
			want:   p1 + "/toolBonusesForPoints", pointers: []string{p1 + "/toolBonusesForPoints", p0 + "/totals/toolBonus"},
			detail: glass},
		{name: "Components: 50 Type Tokens, placed and unused at the limit",
			boards: []string{`{` + six + `, "supply": 40}`, `{"supply": 4}`}},
		{name: "Components: 50 Type Tokens, one more in a supply",
			boards: []string{`{` + six + `, "supply": 40}`, `{"supply": 5}`},
			want:   p1 + "/supply",
			pointers: []string{p1 + "/supply", p0 + "/rowTokens/0", p0 + "/rowTokens/1", p0 + "/rowTokens/2",
				p0 + "/colTokens/0", p0 + "/colTokens/1", p0 + "/colTokens/2", p0 + "/supply"},
			detail: bag + ", and these boards hold 51"},
		{name: "Components: 50 Type Tokens, one more placed",
			boards: []string{`{"supply": 45}`, `{"rowTokens": ["red", "moth", "bee"], "colTokens": ["green", "beetle", "white"]}`},
			want:   p1 + "/colTokens/2",
			pointers: []string{p1 + "/colTokens/2", p0 + "/supply", p1 + "/rowTokens/0", p1 + "/rowTokens/1", p1 + "/rowTokens/2",
				p1 + "/colTokens/0", p1 + "/colTokens/1"},
			detail: bag + ", and these boards hold 51"},
		{name: "Components: 50 Type Tokens, a full supply and one token placed",
			boards: []string{`{"supply": 50}`, `{"rowTokens": ["red"]}`},
			want:   p1 + "/rowTokens/0", pointers: []string{p1 + "/rowTokens/0", p0 + "/supply"},
			detail: bag + ", and these boards hold 51"},
		{name: "Components: 50 Type Tokens, a totals sheet's 25 points of them and one token placed",
			boards: []string{`{"totals": {"supply": 25}}`, `{"rowTokens": ["red"]}`},
			want:   p1 + "/rowTokens/0", pointers: []string{p1 + "/rowTokens/0", p0 + "/totals/supply"},
			detail: bag + ", and these boards hold 51"},
		{name: "Components: 50 Type Tokens, a totals sheet without unused tokens is not named",
			boards: []string{`{"supply": 50}`, `{"totals": {"supply": 0}}`, `{"rowTokens": ["red"]}`},
			want:   "/players/2/board/rowTokens/0", pointers: []string{"/players/2/board/rowTokens/0", p0 + "/supply"},
			detail: bag + ", and these boards hold 51"},
		{name: "Solo Rules: 30 tokens placed and unused",
			boards: []string{`{` + six + `, "supply": 24}`}},
		{name: "Solo Rules: 31 tokens placed and unused",
			boards: []string{`{` + six + `, "supply": 25}`},
			want:   p0 + "/supply",
			pointers: []string{p0 + "/supply", p0 + "/rowTokens/0", p0 + "/rowTokens/1", p0 + "/rowTokens/2",
				p0 + "/colTokens/0", p0 + "/colTokens/1", p0 + "/colTokens/2"},
			detail: solo + ", and this board holds 31"},
		{name: "Solo Rules: a totals sheet's unused tokens, 30",
			boards: []string{`{"totals": {"supply": 15}}`}},
		{name: "Solo Rules: a totals sheet's unused tokens, 32",
			boards: []string{`{"totals": {"supply": 16}}`},
			want:   p0 + "/totals/supply", pointers: []string{p0 + "/totals/supply"},
			detail: solo + ", and this board holds 32"},
	})
}

// TestInsectariumEvaluateNoBoards: a table without boards is not over,
// even asked directly (Score refuses it before asking).
func TestInsectariumEvaluateNoBoards(t *testing.T) {
	ev, err := insectarium{}.Evaluate(nil, nil)
	if err != nil || ev.Complete || len(ev.Players) != 0 {
		t.Errorf("Evaluate(no boards) = %+v, %v; want an incomplete table of no players", ev, err)
	}
}

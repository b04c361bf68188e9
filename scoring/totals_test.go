package scoring

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

// TestTotalsSpec checks every game's totals sheet against its breakdown
// and tiebreaks (issue 8): the breakdown keys, then the tiebreak keys, with
// their labels, and ranges a form can step through.
func TestTotalsSpec(t *testing.T) {
	want := map[string][]TotalsField{
		"insectarium": {
			{"rows", "Rows", 0, 81, 1}, {"columns", "Columns", 0, 81, 1}, {"supply", "Unused tokens", 0, 25, 1},
			{"toolBonus", "Display Tool bonuses", 0, 50, 5}, {"displayTools", "display tools", 0, 27, 1},
		},
		"insecta": {
			{"track", "Scoring track", 0, 300, 1}, {"favourites", "Favourite insects", 0, 48, 2},
			{"continents", "Five continents", 0, 5, 5}, {"fragments", "Journal fragments", -1, 9, 1},
			{"distinctInsects", "insects with different names", 0, 24, 1},
		},
		"insektenhotel": {{"guests", "Guests", 0, 6, 1}},
	}
	for _, g := range Games() {
		spec := g.Spec()
		t.Run(spec.ID, func(t *testing.T) {
			// The ranges of the three games are pinned here; every game's
			// sheet, a new one's too, follows its lines below.
			if w, ok := want[spec.ID]; ok && !reflect.DeepEqual(spec.Totals, w) {
				t.Errorf("totals = %+v, want %+v", spec.Totals, w)
			}
			lines := append(append([]Option{}, spec.Breakdown...), spec.Tiebreaks...)
			if len(lines) != len(spec.Totals) {
				t.Fatalf("%d totals for %d breakdown lines and tiebreaks", len(spec.Totals), len(lines))
			}
			for i, f := range spec.Totals {
				if f.ID != lines[i].ID || f.Label != lines[i].Label {
					t.Errorf("totals %d = %s %q, want %s %q", i, f.ID, f.Label, lines[i].ID, lines[i].Label)
				}
				if f.Step < 1 || f.Min > f.Max || (f.Max-f.Min)%f.Step != 0 {
					t.Errorf("%s: %d to %d in steps of %d", f.ID, f.Min, f.Max, f.Step)
				}
			}
			// A caller changing its copy must not change the game.
			spec.Totals[0].Max = -7
			if g.Spec().Totals[0].Max == -7 {
				t.Error("Spec shares its totals sheet with callers")
			}
			raw, _ := json.Marshal(g.Spec())
			if !strings.Contains(string(raw), `"totals":[{"id":"`+lines[0].ID+`","label":`) {
				t.Errorf("spec JSON %s has no totals list", raw)
			}
		})
	}
}

// totalsWant is an expected error or warning: its exact pointer and words
// its detail must contain.
type totalsWant struct{ pointer, detail string }

// totalsCheck compares field errors with want, in order.
func totalsCheck(t *testing.T, what string, got []FieldError, want []totalsWant) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Pointer == want[i].pointer && strings.Contains(got[i].Detail, want[i].detail)
	}
	if !ok {
		var b strings.Builder
		for _, fe := range got {
			b.WriteString("\n  " + fe.Pointer + ": " + fe.Detail)
		}
		t.Errorf("%s:%s\nwant %+v", what, b.String(), want)
	}
}

// totalsCase is one table of a game scored with totals boards (and boards).
type totalsCase struct {
	name     string
	boards   []string
	variants map[string]int
	// Either errs (the request is refused), or the rest.
	errs     []totalsWant
	totals   []int
	ranks    []int
	winners  []int
	complete bool
	entered  []string
	warnings []totalsWant // of every player, in order
	tiebreak string       // words the tie sentence must contain
}

// runTotals scores each case with game and checks it.
func runTotals(t *testing.T, game string, cases []totalsCase) {
	t.Helper()
	g, ok := Lookup(game)
	if !ok {
		t.Fatalf("no game %q", game)
	}
	names := []string{"Ana", "Ben", "Cleo", "Dev"}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{Variants: tt.variants}
			for i, b := range tt.boards {
				req.Players = append(req.Players, PlayerInput{Name: names[i], Board: json.RawMessage(b)})
			}
			res, err := scoreCase(t, g, req)
			if tt.errs != nil {
				var verr *ValidationError
				if !errors.As(err, &verr) {
					t.Fatalf("Score = %+v, %v; want a *ValidationError", res, err)
				}
				totalsCheck(t, "errors", verr.Errors, tt.errs)
				return
			}
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			var totals, ranks []int
			var entered []string
			var warnings []FieldError
			for _, r := range res.Results {
				totals, ranks = append(totals, r.Total), append(ranks, r.Rank)
				entered = append(entered, r.Entered)
				warnings = append(warnings, r.Warnings...)
			}
			if !reflect.DeepEqual(totals, tt.totals) || !reflect.DeepEqual(ranks, tt.ranks) {
				t.Errorf("totals, ranks = %v, %v; want %v, %v", totals, ranks, tt.totals, tt.ranks)
			}
			if !reflect.DeepEqual(res.Winners, tt.winners) || res.Complete != tt.complete {
				t.Errorf("winners, complete = %v, %v; want %v, %v", res.Winners, res.Complete, tt.winners, tt.complete)
			}
			if !reflect.DeepEqual(entered, tt.entered) {
				t.Errorf("entered = %q, want %q", entered, tt.entered)
			}
			totalsCheck(t, "warnings", warnings, tt.warnings)
			if !strings.Contains(res.Tiebreak, tt.tiebreak) || (tt.tiebreak == "" && res.Tiebreak != "") {
				t.Errorf("tiebreak = %q, want %q", res.Tiebreak, tt.tiebreak)
			}
		})
	}
}

// TestTotalsSources checks the sources of a totals board: each line and
// tiebreak points at its own entry of the sheet, with its value.
func TestTotalsSources(t *testing.T) {
	g, _ := Lookup("insecta")
	res, err := scoreCase(t, g, Request{Players: []PlayerInput{
		{Name: "Laura", Board: json.RawMessage(`{"totals":{"track":24,"favourites":4,"continents":0,"fragments":4,"distinctInsects":6}}`)},
		{Name: "George", Board: json.RawMessage(insectaGeorge)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	src := func(ptr string, points int) []Source { return []Source{{Pointer: ptr, Points: points}} }
	want := PlayerResult{Name: "Laura", Total: 32, Rank: 1, Winner: true, Entered: EnteredTotals,
		Breakdown: []Line{
			{Key: "track", Label: "Scoring track", Points: 24, Sources: src("/totals/track", 24)},
			{Key: "favourites", Label: "Favourite insects", Points: 4, Sources: src("/totals/favourites", 4)},
			{Key: "continents", Label: "Five continents", Points: 0, Sources: []Source{}},
			{Key: "fragments", Label: "Journal fragments", Points: 4, Sources: src("/totals/fragments", 4)},
		},
		Tiebreaks: []Tiebreak{{Key: "distinctInsects", Label: "insects with different names", Value: 6, Sources: src("/totals/distinctInsects", 6)}},
		Warnings:  []FieldError{},
	}
	if !reflect.DeepEqual(res.Results[0], want) {
		t.Errorf("Laura's totals:\n got %+v\nwant %+v", res.Results[0], want)
	}
	raw, _ := json.Marshal(res.Results[0])
	for _, part := range []string{`"entered":"totals"`, `"sources":[]`, `"sources":[{"pointer":"/totals/track","points":24}]`} {
		if !strings.Contains(string(raw), part) {
			t.Errorf("JSON %s lacks %s", raw, part)
		}
	}
}

package scoring

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestScoreSharedLimits pins the checks Score runs for every game at their
// edge (issue 11, part 6): the player count, the name length and names
// that differ only in case.
func TestScoreSharedLimits(t *testing.T) {
	players := func(names ...string) []PlayerInput {
		out := make([]PlayerInput, len(names))
		for i, n := range names {
			out[i] = PlayerInput{Name: n, Board: json.RawMessage(`{}`)}
		}
		return out
	}
	tests := []struct {
		name    string
		game    string
		players []PlayerInput
		want    []FieldError // nil: accepted
	}{
		{name: "4 players of Insecta", game: "insecta", players: players("A", "B", "C", "D")},
		{name: "5 players of Insecta", game: "insecta", players: players("A", "B", "C", "D", "E"),
			want: []FieldError{{Pointer: "/players", Detail: "Insecta: The Ladies of Entomology is for at most 4 players, not 5"}}},
		{name: "5 players of Insectarium", game: "insectarium", players: players("A", "B", "C", "D", "E"),
			want: []FieldError{{Pointer: "/players", Detail: "Insectarium is for at most 4 players, not 5"}}},
		{name: "5 players of Insektenhotel", game: "insektenhotel", players: players("A", "B", "C", "D", "E"),
			want: []FieldError{{Pointer: "/players", Detail: "Insektenhotel is for at most 4 players, not 5"}}},
		{name: "a name of 40 characters", game: "insecta", players: players(strings.Repeat("é", 40))},
		{name: "a name of 41 characters", game: "insecta", players: players("Ana", strings.Repeat("é", 41)),
			want: []FieldError{{Pointer: "/players/1/name", Detail: "a name can be at most 40 characters"}}},
		{name: "Ana and ana are one name", game: "insectarium", players: players("Ana", "Ben", "ana"),
			want: []FieldError{{Pointer: "/players/2/name", Detail: `"ana" is already player 1; give each player their own name`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, ok := Lookup(tt.game)
			if !ok {
				t.Fatalf("no game %q", tt.game)
			}
			res, err := scoreCase(t, g, Request{Players: tt.players})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Score: %v, want it accepted", err)
				}
				return
			}
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Score = %+v, %v; want a *ValidationError", res, err)
			}
			if !reflect.DeepEqual(shown(verr.Errors), tt.want) {
				t.Errorf("errors = %+v\nwant %+v", verr.Errors, tt.want)
			}
		})
	}
}

// TestNameIndexFindsTheLastSameName holds nameIndex to a map from NameKey
// to the last player with it, the way Score found repeated names before,
// on random lists of up to 20 names (past the 8 it compares pair by pair)
// that differ in case, spacing and invisible characters.
func TestNameIndexFindsTheLastSameName(t *testing.T) {
	variants := []string{"Ana", "ana", "ANA", "A\u200bna", "Ana ", "Bo", "bo", "B  o", "Émile", "émile", "Cy", "Ana\u00ad"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var x nameIndex
		keys := map[string]int{}
		for i := range rng.IntN(21) {
			name := strings.TrimSpace(variants[rng.IntN(len(variants))])
			key := NameKey(name)
			wantJ, wantDup := keys[key]
			keys[key] = i
			if j, dup := x.add(name, i); j != wantJ || dup != wantDup {
				t.Fatalf("player %d %q: got %d, %v, want %d, %v", i, name, j, dup, wantJ, wantDup)
			}
		}
	}
}

// TestBoardPointer wants the pointers built once to be the ones built
// for any other board.
func TestBoardPointer(t *testing.T) {
	for i := range len(boardPointers) + 3 {
		if got, want := boardPointer(i), fmt.Sprintf("/players/%d/board", i); got != want {
			t.Errorf("boardPointer(%d) = %q, want %q", i, got, want)
		}
	}
}

// TestSameName wants sameName to say what comparing NameKeys says, on
// plain names and on names NameKey folds more than their case.
func TestSameName(t *testing.T) {
	names := []string{"Ana", "ana", "ANA", "Anna", "An a", "Ana\u200b", "Àna", "àna", "Ana Lisa", "Ana  Lisa", "ana lisa", "", "\u200b", "K", "\u212a", "k"}
	for _, a := range names {
		for _, b := range names {
			want := NameKey(a) == NameKey(b)
			if got := sameName(a, plainName(a), b, plainName(b)); got != want {
				t.Errorf("sameName(%q, %q) = %v, NameKeys say %v", a, b, got, want)
			}
		}
	}
}

// TestValidationErrorErr wants Err to be nil with no problem, and else the
// problems as they are.
func TestValidationErrorErr(t *testing.T) {
	var verr ValidationError
	if err := verr.Err(); err != nil {
		t.Fatalf("no problem: %v", err)
	}
	verr.Add("/a", "one %d", 1)
	err, ok := verr.Err().(*ValidationError)
	if !ok || !reflect.DeepEqual(err.Errors, verr.Errors) {
		t.Fatalf("Err() = %#v, want the problems %+v", err, verr.Errors)
	}
}

// infoGame is a game that says only its Info, to register.
type infoGame struct{ info Info }

func (g infoGame) Spec() Spec { return Spec{Info: g.info} }
func (infoGame) Evaluate([]PlayerInput, map[string]int) (*Evaluation, error) {
	return &Evaluation{}, nil
}

// trackedInfoGame is an infoGame with a Tracker.
type trackedInfoGame struct{ infoGame }

func (trackedInfoGame) Tracker() Tracker { return hotelTracker{} }

// TestRegisterWantsTheInfo: the server and the app read a game's unit,
// end condition, form and whether it is tracked from its Info, so
// Register refuses a game that leaves one out or says Tracked without a
// Tracker (or the other way round), and registers nothing then.
func TestRegisterWantsTheInfo(t *testing.T) {
	full := Info{ID: "registertest", Name: "Test", MinPlayers: 1, MaxPlayers: 2,
		Unit: "game.registertest.unit", End: "never", Form: "games/registertest.js"}
	for _, tc := range []struct {
		name string
		game Game
	}{
		{"no unit", infoGame{func() Info { i := full; i.Unit = ""; return i }()}},
		{"no end condition", infoGame{func() Info { i := full; i.End = ""; return i }()}},
		{"no form", infoGame{func() Info { i := full; i.Form = ""; return i }()}},
		{"tracked without a tracker", infoGame{func() Info { i := full; i.Tracked = true; return i }()}},
		{"a tracker, not said", trackedInfoGame{infoGame{full}}},
		{"a game registered twice", infoGame{func() Info { i := full; i.ID = "insecta"; return i }()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("Register took it")
				}
				if _, ok := registry["registertest"]; ok {
					t.Error("Register registered it")
				}
			}()
			Register(tc.game)
		})
	}
}

// TestGamesSayWhatTheServerReads: every game's Info answers what api,
// models and the app read of it, and TrackerOf agrees with Tracked.
func TestGamesSayWhatTheServerReads(t *testing.T) {
	ids := GameIDs()
	if !slices.IsSorted(ids) || len(ids) != len(registry) {
		t.Errorf("GameIDs() = %v", ids)
	}
	for _, g := range Games() {
		info := g.Spec().Info
		if got, ok := InfoOf(info.ID); !ok || got != info {
			t.Errorf("InfoOf(%q) = %+v, %v; want %+v", info.ID, got, ok, info)
		}
		if info.Unit != "game."+info.ID+".unit" || info.End == "" || info.Form != "games/"+info.ID+".js" {
			t.Errorf("%s: unit %q, end %q, form %q", info.ID, info.Unit, info.End, info.Form)
		}
		if _, ok := TrackerOf(g); ok != info.Tracked {
			t.Errorf("%s: TrackerOf says %v, Tracked %v", info.ID, ok, info.Tracked)
		}
	}
	if _, ok := InfoOf("chess"); ok {
		t.Error("InfoOf found chess")
	}
}

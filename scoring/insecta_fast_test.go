package scoring

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestInsectaRulesAgree wants the table-wide checks, the layout, the
// medals and the different insects to find on random tables exactly what
// the rules found before they stopped building pointers, maps and lists
// on the way (insecta_reference_test.go): the same problems at the same
// pointers, the same loose tiles, the same sources.
func TestInsectaRulesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 1))
	seen := map[string]int{}
	for round := range 4000 {
		players := []PlayerInput{{Name: "Ana"}, {Name: " "}, {Name: "Cleo"}, {Name: "Dev"}}
		boards := make([]insectaBoard, 1+rng.IntN(4))
		ok := make([]bool, len(boards))
		for i := range boards {
			boards[i] = randomInsectaBoard(rng, round%3 == 0)
			ok[i] = rng.IntN(8) > 0
		}
		var got, want ValidationError
		insectaCheckResearchers(players, boards, ok, &got)
		oldCheckResearchers(players, boards, ok, &want)
		insectaCheckContinents(boards, ok, &got)
		oldCheckContinents(boards, ok, &want)
		insectaCheckMedalCount(boards, ok, &got)
		oldCheckMedalCount(boards, ok, &want)
		for i := range boards {
			b := &boards[i]
			base := boardPointer(i)
			b.validateMedals(base, &got)
			b.oldValidateMedals(base, &want)
			cells, _ := b.cells()
			if loose, old := b.looseTiles(&cells), b.oldLooseTiles(&cells); !reflect.DeepEqual(loose, old) {
				t.Fatalf("round %d, board %d: loose tiles %v, were %v: %+v", round, i, loose, old, b.Tiles)
			} else if len(loose) > 0 {
				seen["loose tiles"]++
			}
			if !b.continentsGiven() {
				continue
			}
			src := b.distinctInsects(make([]Source, 0, len(b.Tiles)))
			if old := b.oldDistinctInsects(nil); !reflect.DeepEqual(src, old) && len(src)+len(old) > 0 {
				t.Fatalf("round %d, board %d: different insects %+v, were %+v", round, i, src, old)
			}
			if len(src) < b.insects() {
				seen["insects of one species"]++
			}
		}
		if !reflect.DeepEqual(shown(got.Errors), shown(want.Errors)) {
			t.Fatalf("round %d: problems\n%+v\nwere\n%+v", round, got.Errors, want.Errors)
		}
		for _, e := range got.Errors {
			seen[problemKind(e)]++
		}
	}
	// Every check must have found something, or the boards miss a case.
	for _, kind := range []string{"loose tiles", "insects of one species", "researcher", "table continent", "table n", "table medal", "medal", "level"} {
		if seen[kind] == 0 {
			t.Errorf("no random table had %q: %v", kind, seen)
		}
	}
}

// problemKind sorts a problem by the last step of its pointer, a number
// as "n", and the table-wide limits (with Pointers) apart.
func problemKind(e FieldError) string {
	p, kind := e.Pointer, ""
	if len(e.Pointers) > 0 {
		p, kind = e.Pointers[0], "table "
	}
	step := p[strings.LastIndexByte(p, '/')+1:]
	if step != "" && step[0] >= '0' && step[0] <= '9' {
		step = "n"
	}
	return kind + step
}

// continentsGiven says each Insect tile has a continent, as on a board
// that validates (distinctInsects needs them).
func (b *insectaBoard) continentsGiven() bool {
	for _, t := range b.Tiles {
		if t.Kind == "insect" && t.Continent == nil {
			return false
		}
	}
	return true
}

func (b *insectaBoard) insects() int {
	n := 0
	for _, t := range b.Tiles {
		if t.Kind == "insect" {
			n++
		}
	}
	return n
}

// randomInsectaBoard makes a board that is often near the box's limits:
// crowded collections of few continents and names, claims of many medals,
// researchers drawn twice. full fills the collection, as an ended game.
func randomInsectaBoard(rng *rand.Rand, full bool) insectaBoard {
	pick := func(opts ...string) *string {
		s := opts[rng.IntN(len(opts))]
		if s == "<nil>" {
			return nil
		}
		return &s
	}
	num := func(lo, hi int) *int {
		v := lo + rng.IntN(hi-lo+1)
		return &v
	}
	var b insectaBoard
	if r := pick("mary-kingsley", "ida-laura-pfeiffer", "louise-caroline-daumont", "", "nobody"); r != nil {
		b.Researcher = *r
	}
	tiles := rng.IntN(insectaRows*insectaCols + 3)
	if full {
		tiles = insectaRows*insectaCols - rng.IntN(3)
	}
	for n := range tiles {
		t := insectaTile{Kind: *pick("insect", "insect", "mail", "mail", "", "spider")}
		if full && rng.IntN(2) == 0 {
			t.Kind = "insect"
		}
		if full {
			t.Row, t.Col = num(n/insectaCols, n/insectaCols), num(n%insectaCols, n%insectaCols)
		} else {
			t.Row, t.Col = num(-1, insectaRows), num(-1, insectaCols)
		}
		if rng.IntN(20) == 0 {
			t.Row = nil
		}
		if t.Kind == "insect" {
			t.Continent = pick("africa", "africa", "asia", "europe", "america", "oceania", "", "mars", "<nil>")
			if full && rng.IntN(2) == 0 {
				t.Continent = pick("africa")
			}
			t.Name = pick("Goliathus regius", "goliathus REGIUS", "Goliathus\u200b regius", " Goliathus  regius ", "Apis", "Ápis", "ápis", "", "<nil>")
			t.Order = pick("coleoptera", "hemiptera", "", "<nil>")
			t.Size = pick("small", "large", "", "<nil>")
		}
		b.Tiles = append(b.Tiles, t)
	}
	medals := append([]string{"", "bogus"}, optionIDs(insectaMedals)...)
	for range rng.IntN(6) {
		b.Medals = append(b.Medals, insectaMedal{Medal: medals[rng.IntN(len(medals))], Level: num(0, 13)})
	}
	return b
}

func optionIDs(opts []Option) []string {
	ids := make([]string, len(opts))
	for i, o := range opts {
		ids[i] = o.ID
	}
	return ids
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

package scoring

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Tests at the edges gremlins (mutation testing, see the README) found
// unguarded: each fails if a bound or an operator in the code it names
// moves by one.

// TestPlainName holds plainName to its definition, at each end of the
// printable ASCII range and with a space at each place, and NameKey to
// the same key whichever way it takes.
func TestPlainName(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plain bool
	}{
		{"", true}, {"Ana", true}, {"Ana Lena", true}, {"A B C", true}, {"!", true}, {"~", true}, {"a~b!", true},
		{" ", false}, {" Ana", false}, {"Ana ", false}, {"Ana  Lena", false}, {"A\tB", false}, {"A\x1fB", false},
		{"A\x7fB", false}, {"Zoë", false}, {"A\u200bna", false},
	} {
		if got := plainName(tt.name); got != tt.plain {
			t.Errorf("plainName(%q) = %v, want %v", tt.name, got, tt.plain)
		}
		folded := strings.Map(func(r rune) rune {
			if invisible(r) {
				return -1
			}
			return r
		}, tt.name)
		if got, want := NameKey(tt.name), strings.ToLower(strings.Join(strings.Fields(folded), " ")); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", tt.name, got, want)
		}
	}
}

// TestTotalsIDs lists a sheet's ids as a message does, from one id to
// several.
func TestTotalsIDs(t *testing.T) {
	fields := []TotalsField{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}}
	for n, want := range []string{"", "a", "a or b", "a, b or c", "a, b, c or d"} {
		if got := totalsIDs(fields[:n]); got != want {
			t.Errorf("totalsIDs(%d fields) = %q, want %q", n, got, want)
		}
	}
}

// TestPointersPastTheirTables wants the pointers built once and those
// built for an index past them to be the same pointers, on each side of
// the edge.
func TestPointersPastTheirTables(t *testing.T) {
	for i := range len(boardPointers) + 3 {
		if got, want := boardPointer(i), "/players/"+strconv.Itoa(i)+"/board"; got != want {
			t.Errorf("boardPointer(%d) = %q, want %q", i, got, want)
		}
	}
	built := indexPointers("/tiles/", 3)
	for i := range 6 {
		if got, want := indexPointer(built, "/tiles/", i), "/tiles/"+strconv.Itoa(i); got != want {
			t.Errorf("indexPointer(%d) = %q, want %q", i, got, want)
		}
	}
}

// TestDecodeBoardEdges: what encoding/json accepted (a member given
// twice, a name in another case) decodes as it always did, data after the
// value is refused, a list holding a list where tiles go is pointed at,
// not the board, and so is an unknown member, the first one sent; a name
// that differs by "_" or "-" is one (decodeOptions).
func TestDecodeBoardEdges(t *testing.T) {
	for _, tt := range []struct {
		raw   string
		track int
	}{{`{"track":3,"track":4}`, 4}, {`{"Track":5}`, 5}} {
		var b insectaBoard
		if err := DecodeBoard([]byte(tt.raw), "/players/0/board", &b); err != nil || b.Track != tt.track {
			t.Errorf("DecodeBoard(%s) = %v, track %d; want track %d", tt.raw, err, b.Track, tt.track)
		}
	}
	var b insectaBoard
	if err := DecodeBoard([]byte(`{"track":1} {"track":2}`), "/players/0/board", &b); err == nil {
		t.Error("DecodeBoard reads a board with data after it")
	}
	err := DecodeBoard([]byte(`{"tiles":[[1]]}`), "/players/0/board", &b)
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errors) != 1 || !strings.HasPrefix(verr.Errors[0].Pointer, "/players/0/board/tiles") {
		t.Errorf("DecodeBoard({\"tiles\":[[1]]}) = %v, want one error within /players/0/board/tiles", err)
	}
	// An unknown member is found past a list given where a number goes.
	err = DecodeBoard([]byte(`{"tiles":[{"bogus":1}],"fragments":[1]}`), "/players/0/board", &b)
	if !errors.As(err, &verr) || len(verr.Errors) != 1 || verr.Errors[0].Pointer != "/players/0/board/tiles/0/bogus" {
		t.Errorf("DecodeBoard of an unknown member = %v, want one error at /players/0/board/tiles/0/bogus", err)
	}
	for raw, want := range map[string]string{`{"tra_ck":1}`: "/players/0/board/tra_ck", `{"tra-ck":1,"zz":2}`: "/players/0/board/tra-ck"} {
		err = DecodeBoard([]byte(raw), "/players/0/board", &b)
		if !errors.As(err, &verr) || len(verr.Errors) != 1 || verr.Errors[0].Pointer != want {
			t.Errorf("DecodeBoard(%s) = %v, want one error at %s", raw, err, want)
		}
	}
}

// levelGame is a game whose every table ends level, on a total named
// label.
type levelGame struct{ label string }

func (levelGame) Spec() Spec {
	return Spec{Info: Info{ID: "level", Name: "Level", MinPlayers: 1, MaxPlayers: 4}}
}

func (g levelGame) Evaluate(players []PlayerInput, _ map[string]int) (*Evaluation, error) {
	ev := &Evaluation{Players: make([]Scored, len(players)), Complete: true, TotalLabel: g.label}
	for i := range ev.Players {
		ev.Players[i].Total = 7
	}
	return ev, nil
}

// TestTieNamesTheTotal: a shared win names the game's total ("guests"),
// and points when the game names none.
func TestTieNamesTheTotal(t *testing.T) {
	req := Request{Players: []PlayerInput{{Name: "Ana"}, {Name: "Bo"}, {Name: "Cy"}}}
	for label, want := range map[string]string{
		"guests": "Ana, Bo and Cy share the victory: level on 7 guests and on every tiebreak",
		"":       "Ana, Bo and Cy share the victory: level on 7 points and on every tiebreak",
	} {
		res, err := Score(levelGame{label}, req)
		if err != nil {
			t.Fatal(err)
		}
		if res.Tiebreak != want {
			t.Errorf("label %q: tiebreak %q, want %q", label, res.Tiebreak, want)
		}
	}
}

// TestInsectaMergeEmpty: a decoding error that is an empty ValidationError
// still blocks the board, pointing at it, and one with problems keeps
// their pointers (insectaMerge; gremlins: insecta.go:280).
func TestInsectaMergeEmpty(t *testing.T) {
	for _, tt := range []struct {
		name string
		err  error
		want []string
	}{
		{"empty", &ValidationError{}, []string{"/players/1/board"}},
		{"one problem", &ValidationError{Errors: []FieldError{{Pointer: "/players/1/board/tiles/0/row"}}}, []string{"/players/1/board/tiles/0/row"}},
		{"not a ValidationError", errors.New("bad"), []string{"/players/1/board"}},
	} {
		var verr ValidationError
		insectaMerge(&verr, "/players/1/board", tt.err)
		var got []string
		for _, e := range verr.Errors {
			got = append(got, e.Pointer)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: problems at %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestInsectaSeventhMedalOnTheFirstBoard: seven different medals on the
// first board are past both limits, the player's 3 markers and the 6
// medals of a game, and each is reported (insectaCheckMedalCount;
// gremlins: insecta.go:382).
func TestInsectaSeventhMedalOnTheFirstBoard(t *testing.T) {
	var ms []string
	for _, id := range []string{"continent:africa", "order:coleoptera", "size:small", "institution:any", "size:large", "continent:asia", "size:medium"} {
		ms = append(ms, `{"medal":"`+id+`","level":1}`)
	}
	req := insectaRequest(nil, `{"medals":[`+strings.Join(ms, ",")+`]}`, `{}`)
	_, err := scoreCase(t, insectaGame(t), req)
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("Score: %v, want a *ValidationError", err)
	}
	var got []string
	for _, e := range verr.Errors {
		got = append(got, e.Pointer)
	}
	want := []string{"/players/0/board/medals/3", "/players/0/board/medals/6/medal"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems at %q, want %q", got, want)
	}
}

// TestInsectaWho: a player is named by their name, trimmed, or without one
// by their seat counted from 1, whatever words the message puts around it
// (gremlins: insecta.go:404).
func TestInsectaWho(t *testing.T) {
	players := []PlayerInput{{Name: " Ana "}, {Name: " "}, {Name: ""}}
	if got := insectaWho(players, 0); got != "Ana" {
		t.Errorf("insectaWho(0) = %q, want Ana", got)
	}
	for i, seat := range []string{"2", "3"} {
		if got := insectaWho(players, i+1); !strings.Contains(got, seat) || strings.Contains(got, strconv.Itoa(i)) {
			t.Errorf("insectaWho(%d) = %q, want seat %s", i+1, got, seat)
		}
	}
}

// pointerSink keeps TestTilePointersBuiltOnce's pointers from being
// optimised away.
var pointerSink string

// TestTilePointersBuiltOnce: the pointer of every cell of an Insecta grid
// is built once, so pointing at a tile allocates nothing; only a tile past
// the grid's cells gets one built (gremlins: insecta.go:105).
func TestTilePointersBuiltOnce(t *testing.T) {
	for n := range insectaRows*insectaCols + 1 {
		allocs := testing.AllocsPerRun(5, func() {
			pointerSink = indexPointer(insectaTilePointers, "/tiles/", n)
		})
		if want := n < insectaRows*insectaCols; (allocs == 0) != want {
			t.Errorf("the pointer of tile %d allocates %v times; built once: %v", n, allocs, want)
		}
	}
}

// TestInsectaMailPointsEdge: a mail is worth at most insectaMaxMailPoints,
// and worth exactly that is legal (gremlins: insecta.go:479).
func TestInsectaMailPointsEdge(t *testing.T) {
	for _, points := range []int{insectaMaxMailPoints, insectaMaxMailPoints + 1} {
		board := `{"tiles":[{"row":0,"col":0,"kind":"mail","points":` + strconv.Itoa(points) + `}]}`
		_, err := scoreCase(t, insectaGame(t), insectaRequest(nil, board, `{}`))
		var got []string
		var verr *ValidationError
		if errors.As(err, &verr) {
			for _, e := range verr.Errors {
				got = append(got, e.Pointer)
			}
		} else if err != nil {
			t.Fatalf("%d points: %v", points, err)
		}
		var want []string
		if points > insectaMaxMailPoints {
			want = []string{"/players/0/board/tiles/0/points"}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("a mail worth %d points: problems at %q, want %q", points, got, want)
		}
	}
}

// TestValidationErrorText: an error with no problems says so, and one
// with problems lists each at its pointer (gremlins: scoring.go:154).
func TestValidationErrorText(t *testing.T) {
	if got := (&ValidationError{}).Error(); got != "invalid input" {
		t.Errorf("no problems: %q", got)
	}
	var verr ValidationError
	verr.Add("/a", "one")
	verr.Add("/b", "two")
	if got, want := verr.Error(), "/a: one; /b: two"; got != want {
		t.Errorf("two problems: %q, want %q", got, want)
	}
}

// TestNameIndexPastTheFew: past the names compared pair by pair, names go
// by key, and a name matches the last one before it with its key, among
// the first few as among the rest (gremlins: scoring.go:492).
func TestNameIndexPastTheFew(t *testing.T) {
	var x nameIndex
	names := []string{"Ana", "Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "ANA", "Jo", "ivy", "ana"}
	want := map[int]int{9: 0, 11: 8, 12: 9} // name i: the one before it with its key
	if len(names) <= len(x.few)+1 {
		t.Fatalf("%d names do not go past the first %d", len(names), len(x.few))
	}
	for i, name := range names {
		j, dup := x.add(name, i)
		if w, ok := want[i]; dup != ok || dup && j != w {
			t.Errorf("add(%q): %d, %v; want %d, %v", name, j, dup, w, ok)
		}
	}
	// The first few build no key: a table of them allocates nothing.
	allocs := testing.AllocsPerRun(10, func() {
		var x nameIndex
		for i, name := range names[:len(x.few)] {
			x.add(name, i)
		}
	})
	if allocs != 0 {
		t.Errorf("%d names allocate %v times, want none", len(x.few), allocs)
	}
}

// TestOrListInLanguage: a list's "or" is translated and its ids are not;
// a single id stays as it is.
func TestOrListInLanguage(t *testing.T) {
	c := Catalog{"rules.word.or": "oder"}
	for l, want := range map[orList]string{"a, b or c": "a, b oder c", "a or b": "a oder b", "a": "a"} {
		if got := l.In(c); got != want {
			t.Errorf("%q in German: %q, want %q", string(l), got, want)
		}
	}
}

// TestSpecInLanguage: a spec's labels are the catalog's, and a totals
// line takes its breakdown line's label before its tiebreak's
// (gremlins: i18n.go:133, :170).
func TestSpecInLanguage(t *testing.T) {
	spec := insectaGame(t).Spec()
	if len(spec.Totals) == 0 || len(spec.Variants) == 0 {
		t.Fatal("Insecta's spec has no totals lines or no variants")
	}
	both, tiebreakOnly, emptyBreakdown := Catalog{}, Catalog{}, Catalog{}
	for _, f := range spec.Totals {
		both["game.insecta.breakdown."+f.ID] = "B " + f.ID
		both["game.insecta.tiebreak."+f.ID] = "T " + f.ID
		tiebreakOnly["game.insecta.tiebreak."+f.ID] = "T " + f.ID
		emptyBreakdown["game.insecta.breakdown."+f.ID] = ""
		emptyBreakdown["game.insecta.tiebreak."+f.ID] = "T " + f.ID
	}
	for _, v := range spec.Variants {
		both["game.insecta.variant."+v.Key] = "V " + v.Key
	}
	for name, tt := range map[string]struct {
		c    Catalog
		want string
	}{"both": {both, "B "}, "tiebreak only": {tiebreakOnly, "T "}, "empty breakdown": {emptyBreakdown, "T "}} {
		got := tt.c.Spec(spec)
		for i, f := range got.Totals {
			if want := tt.want + spec.Totals[i].ID; f.Label != want {
				t.Errorf("%s: totals line %s is %q, want %q", name, f.ID, f.Label, want)
			}
		}
	}
	for i, v := range both.Spec(spec).Variants {
		if want := "V " + spec.Variants[i].Key; v.Label != want {
			t.Errorf("variant %s is %q, want %q", v.Key, v.Label, want)
		}
	}
	if spec.Totals[0].Label == "B "+spec.Totals[0].ID {
		t.Error("Spec changed the spec it was given")
	}
}

// TestDistinctInsectsOnTheStack: the species of a full collection, every
// insect a different one, are told apart without an allocation
// (gremlins: insecta.go:852).
func TestDistinctInsectsOnTheStack(t *testing.T) {
	var b insectaBoard
	for n := range insectaRows * insectaCols {
		name := "insect " + strconv.Itoa(n)
		b.Tiles = append(b.Tiles, insectaTile{Kind: "insect", Name: optional[string]{name, true}})
	}
	src := make([]Source, 0, len(b.Tiles))
	allocs := testing.AllocsPerRun(10, func() { src = b.distinctInsects(src[:0]) })
	if len(src) != len(b.Tiles) || allocs != 0 {
		t.Errorf("%d species of %d insects, with %v allocations; want all, and none", len(src), len(b.Tiles), allocs)
	}
}

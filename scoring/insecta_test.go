package scoring

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// insectaGame is the registered Insecta, as the API finds it.
func insectaGame(t testing.TB) Game {
	t.Helper()
	g, ok := Lookup("insecta")
	if !ok {
		t.Fatal(`Lookup("insecta"): game not registered`)
	}
	return g
}

// insectaRequest seats players Ana, Ben, Cleo and Dan with the given boards.
func insectaRequest(variants map[string]int, boards ...string) Request {
	names := []string{"Ana", "Ben", "Cleo", "Dan", "Eve"}
	req := Request{Variants: variants}
	for i, b := range boards {
		req.Players = append(req.Players, PlayerInput{Name: names[i%len(names)], Board: []byte(b)})
	}
	return req
}

// insectaWalk orders the cells so that each touches the one before it
// diagonally: any first k cells hold a legal all-insect collection.
var insectaWalk = [12][2]int{
	{0, 0}, {1, 1}, {0, 2}, {1, 3}, {0, 4}, {1, 5},
	{2, 4}, {3, 5}, {3, 3}, {2, 2}, {3, 1}, {2, 0},
}

// insectaInsects returns a board with head's fields and one insect per
// fragment of insect fields, laid along insectaWalk.
func insectaInsects(head string, insects ...string) string {
	tiles := make([]string, len(insects))
	for i, f := range insects {
		c := insectaWalk[i%len(insectaWalk)]
		tiles[i] = fmt.Sprintf(`{"row":%d,"col":%d,"kind":"insect",%s}`, c[0], c[1], f)
	}
	return insectaBoardJSON(head, tiles...)
}

// insectaBoardJSON joins a board's other fields and its tiles.
func insectaBoardJSON(head string, tiles ...string) string {
	if head != "" {
		head += ","
	}
	return "{" + head + `"tiles":[` + strings.Join(tiles, ",") + "]}"
}

// insectaAsian returns insect fields of one Asian beetle per name; "" leaves
// the name out.
func insectaAsian(names ...string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = `"continent":"asia","order":"coleoptera","size":"small"`
		if n != "" {
			out[i] += fmt.Sprintf(`,"name":%q`, n)
		}
	}
	return out
}

// insectaIns and insectaMl are an insect and a mail on one cell, for layouts.
func insectaIns(r, c int) string {
	return fmt.Sprintf(`{"row":%d,"col":%d,"kind":"insect","continent":"asia","order":"coleoptera","size":"small"}`, r, c)
}

func insectaMl(r, c int) string {
	return fmt.Sprintf(`{"row":%d,"col":%d,"kind":"mail","institution":"societe-entomologique","points":2}`, r, c)
}

// insectaSpecies returns n distinct species names.
func insectaSpecies(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("Species %d", i+1)
	}
	return out
}

// The two boards of the rulebook's "End of the game" example. Laura's twelve
// tiles form a checkerboard (each insect beside mails, diagonal to insects).
const (
	insectaLaura = `{"researcher": "mary-kingsley", "track": 24, "fragments": 2, "tiles": [
		{"row":0,"col":0,"kind":"insect","name":"Cosmoderus erinaceus","continent":"africa","order":"coleoptera","size":"large","wreath":"mary-kingsley"},
		{"row":0,"col":1,"kind":"mail","institution":"societe-entomologique","points":3,"scored":true},
		{"row":0,"col":2,"kind":"insect","name":"Charaxes fulvescens","continent":"africa","order":"lepidoptera","size":"medium","wreath":"mary-kingsley"},
		{"row":0,"col":3,"kind":"mail","institution":"entomological-society","points":4,"scored":true},
		{"row":0,"col":4,"kind":"insect","name":"Fulgora laternaria","continent":"america","order":"hemiptera","size":"large","wreath":"maria-sibylla-merian"},
		{"row":0,"col":5,"kind":"mail","institution":"deutsches-naturinstitut","points":2,"scored":false},
		{"row":1,"col":0,"kind":"mail","institution":"entomological-society","points":3,"scored":true},
		{"row":1,"col":1,"kind":"insect","name":"Attacus atlas","continent":"asia","order":"lepidoptera","size":"large"},
		{"row":1,"col":2,"kind":"mail","institution":"societe-entomologique","points":5,"scored":true},
		{"row":1,"col":3,"kind":"insect","name":"Petasida ephippigera","continent":"oceania","order":"orthoptera","size":"large"},
		{"row":1,"col":4,"kind":"mail","institution":"deutsches-naturinstitut","points":2,"scored":true},
		{"row":1,"col":5,"kind":"insect","name":"Xylocopa latipes","continent":"asia","order":"hymenoptera","size":"large"}
	]}`
	insectaGeorge = `{"researcher": "maria-sibylla-merian", "track": 15, "fragments": 3, "tiles": [
		{"row":0,"col":0,"kind":"insect","name":"Goliathus regius","continent":"africa","order":"coleoptera","size":"large"},
		{"row":0,"col":1,"kind":"mail","institution":"entomological-society","points":4,"scored":true},
		{"row":0,"col":2,"kind":"insect","name":"Fulgora laternaria","continent":"america","order":"hemiptera","size":"large","wreath":"maria-sibylla-merian"},
		{"row":1,"col":1,"kind":"insect","name":"Kallima inachus","continent":"asia","order":"lepidoptera","size":"medium"},
		{"row":1,"col":2,"kind":"mail","institution":"deutsches-naturinstitut","points":3,"scored":true},
		{"row":1,"col":3,"kind":"insect","name":"Chrysomela ludovicae","continent":"europe","order":"coleoptera","size":"small","wreath":"louise-caroline-daumont"},
		{"row":2,"col":1,"kind":"mail","institution":"societe-entomologique","points":2},
		{"row":2,"col":2,"kind":"insect","name":"Papilio ulysses","continent":"oceania","order":"lepidoptera","size":"large"}
	], "medals": [{"medal": "continent:asia", "level": 1}]}`
)

func TestInsectaEndOfGameExample(t *testing.T) {
	req := Request{Players: []PlayerInput{
		{Name: "Laura", Board: []byte(insectaLaura)},
		{Name: "George", Board: []byte(insectaGeorge)},
	}}
	got, err := scoreCase(t, insectaGame(t), req)
	if err != nil {
		t.Fatalf("Score: %v", err)
	}
	// The sources say which tiles made each line: Laura's favourites are
	// her two Mary Kingsley wreaths, George's five continents one insect
	// of each, and each tiebreak lists one tile per different name.
	src := func(ptr string, points int, label string) Source {
		return Source{Pointer: ptr, Points: points, Label: label}
	}
	want := []PlayerResult{
		{Name: "Laura", Total: 32, Rank: 1, Winner: true, Entered: EnteredBoard, Breakdown: []Line{
			{Key: "track", Label: "Scoring track", Points: 24, Sources: []Source{src("/track", 24, "")}},
			// Two Mary Kingsley wreaths; Merian's does not count.
			{Key: "favourites", Label: "Favourite insects", Points: 4, Sources: []Source{
				src("/tiles/0", 2, "Cosmoderus erinaceus"), src("/tiles/2", 2, "Charaxes fulvescens")}},
			// No insect from Europe.
			{Key: "continents", Label: "Five continents", Points: 0, Sources: []Source{}},
			{Key: "fragments", Label: "Journal fragments", Points: 4, Sources: []Source{src("/fragments", 4, "")}},
		}, Tiebreaks: []Tiebreak{{Key: "distinctInsects", Label: "insects with different names", Value: 6, Sources: []Source{
			src("/tiles/0", 1, "Cosmoderus erinaceus"), src("/tiles/2", 1, "Charaxes fulvescens"),
			src("/tiles/4", 1, "Fulgora laternaria"), src("/tiles/7", 1, "Attacus atlas"),
			src("/tiles/9", 1, "Petasida ephippigera"), src("/tiles/11", 1, "Xylocopa latipes"),
		}}}, Warnings: []FieldError{}},
		{Name: "George", Total: 31, Rank: 2, Entered: EnteredBoard, Breakdown: []Line{
			{Key: "track", Label: "Scoring track", Points: 15, Sources: []Source{src("/track", 15, "")}},
			{Key: "favourites", Label: "Favourite insects", Points: 2, Sources: []Source{src("/tiles/2", 2, "Fulgora laternaria")}},
			{Key: "continents", Label: "Five continents", Points: 5, Sources: []Source{
				src("/tiles/0", 1, "Africa"), src("/tiles/2", 1, "America"), src("/tiles/3", 1, "Asia"),
				src("/tiles/5", 1, "Europe"), src("/tiles/7", 1, "Oceania")}},
			{Key: "fragments", Label: "Journal fragments", Points: 9, Sources: []Source{src("/fragments", 9, "")}},
		}, Tiebreaks: []Tiebreak{{Key: "distinctInsects", Label: "insects with different names", Value: 5, Sources: []Source{
			src("/tiles/0", 1, "Goliathus regius"), src("/tiles/2", 1, "Fulgora laternaria"),
			src("/tiles/3", 1, "Kallima inachus"), src("/tiles/5", 1, "Chrysomela ludovicae"),
			src("/tiles/7", 1, "Papilio ulysses"),
		}}}, Warnings: []FieldError{}},
	}
	if !reflect.DeepEqual(got.Results, want) {
		t.Errorf("results:\n got %+v\nwant %+v", got.Results, want)
	}
	if !got.Complete || !reflect.DeepEqual(got.Winners, []int{0}) || got.Tiebreak != "" {
		t.Errorf("complete, winners, tiebreak = %v, %v, %q; want true, [0], \"\"", got.Complete, got.Winners, got.Tiebreak)
	}
}

// TestInsectaFinalScoring checks each line of the final scoring on one board.
func TestInsectaFinalScoring(t *testing.T) {
	fiveContinents := []string{
		`"continent":"africa","order":"coleoptera","size":"small"`,
		`"continent":"america","order":"coleoptera","size":"small"`,
		`"continent":"asia","order":"coleoptera","size":"small"`,
		`"continent":"europe","order":"coleoptera","size":"small"`,
		`"continent":"oceania","order":"coleoptera","size":"small"`,
	}
	tests := []struct {
		name     string
		board    string
		variants map[string]int
		want     [4]int // track, favourites, continents, fragments
	}{
		{"Setup/an empty board scores nothing", `{}`, nil, [4]int{}},
		{"End of the game/2 points per favourite of her own researcher",
			insectaInsects(`"researcher":"louise-caroline-daumont","track":7`,
				`"continent":"europe","order":"coleoptera","size":"small","wreath":"louise-caroline-daumont"`,
				`"continent":"europe","order":"coleoptera","size":"small","wreath":"louise-caroline-daumont"`,
				`"continent":"africa","order":"coleoptera","size":"large","wreath":"mary-kingsley"`,
				`"continent":"europe","order":"coleoptera","size":"small","wreath":""`),
			nil, [4]int{7, 4, 0, 0}},
		{"End of the game/no researcher, no favourites",
			insectaInsects(``, `"continent":"africa","order":"coleoptera","size":"large","wreath":"mary-kingsley"`),
			nil, [4]int{0, 0, 0, 0}},
		// Issue 11: an empty wreath is no wreath, even with no researcher.
		{"End of the game/no researcher, an empty wreath is no favourite",
			insectaInsects(``, `"continent":"africa","order":"coleoptera","size":"large","wreath":""`),
			nil, [4]int{0, 0, 0, 0}},
		{"End of the game/insects from four continents earn nothing",
			insectaInsects(``, fiveContinents[:4]...), nil, [4]int{0, 0, 0, 0}},
		{"End of the game/insects from the five continents earn 5",
			insectaInsects(``, append(fiveContinents, fiveContinents[0])...), nil, [4]int{0, 0, 5, 0}},
		{"End of the game/no fragment", `{"fragments":0}`, nil, [4]int{0, 0, 0, 0}},
		{"End of the game/one fragment costs a point", `{"fragments":1}`, nil, [4]int{0, 0, 0, -1}},
		{"End of the game/two fragments earn 4", `{"fragments":2}`, nil, [4]int{0, 0, 0, 4}},
		{"End of the game/three fragments earn 9", `{"fragments":3}`, nil, [4]int{0, 0, 0, 9}},
		{"Interpretations/oneFragment variant: one fragment earns 1",
			`{"fragments":1}`, map[string]int{"oneFragment": 1}, [4]int{0, 0, 0, 1}},
		{"Interpretations/oneFragment variant does not touch two fragments",
			`{"fragments":2}`, map[string]int{"oneFragment": 1}, [4]int{0, 0, 0, 4}},
		{"Interpretations/oneFragment -1 is the printed rule",
			`{"fragments":1}`, map[string]int{"oneFragment": -1}, [4]int{0, 0, 0, -1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scoreCase(t, insectaGame(t), insectaRequest(tt.variants, tt.board, `{}`))
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			var got [4]int
			total := 0
			for i, l := range res.Results[0].Breakdown {
				got[i] = l.Points
				total += l.Points
			}
			if got != tt.want {
				t.Errorf("breakdown = %v, want %v", got, tt.want)
			}
			if res.Results[0].Total != total {
				t.Errorf("total = %d, want the sum of the breakdown %d", res.Results[0].Total, total)
			}
		})
	}
}

// TestInsectaTiebreak covers "In case of a tie, the winner will be the tied
// player who has the largest diversity of Insects with different names. If
// the tie persists, the tied players share the victory."
func TestInsectaTiebreak(t *testing.T) {
	head := `"track":20`
	nameless := []string{
		`"continent":"asia","order":"coleoptera","size":"small"`,
		`"continent":"asia","order":"coleoptera","size":"small","name":"  "`, // blank: nameless
		`"continent":"asia","order":"coleoptera","size":"medium"`,
		`"continent":"asia","order":"lepidoptera","size":"small"`,
		`"continent":"africa","order":"coleoptera","size":"small"`,
		`"continent":"asia","order":"coleoptera","size":"large"`,
		`"continent":"asia","order":"coleoptera","size":"small","name":"Attacus atlas"`, // a name is its own species
	}
	for range 5 {
		nameless = append(nameless, nameless[0])
	}
	// The box has 15 insects of a continent (issue 11), so the second and
	// third collections come from Europe and Oceania.
	eu := func(b string) string { return strings.ReplaceAll(b, `"asia"`, `"europe"`) }
	oc := func(b string) string { return strings.ReplaceAll(b, `"asia"`, `"oceania"`) }
	tests := []struct {
		name         string
		boards       []string
		wantDistinct []int
		wantWinners  []int
		wantRanks    []int
		wantTiebreak string
	}{
		{"End of the game/more insects with different names wins the tie",
			[]string{insectaInsects(head, insectaAsian(insectaSpecies(11)...)...),
				eu(insectaInsects(head, insectaAsian(insectaSpecies(12)...)...))},
			[]int{11, 12}, []int{1}, []int{2, 1},
			"Ben wins the tie on 20 points: 12 insects with different names to 11"},
		{"End of the game/names are compared case-insensitively",
			[]string{insectaInsects(head, insectaAsian(append(insectaSpecies(10), " SPECIES  1", "species 2")...)...),
				eu(insectaInsects(head, insectaAsian(insectaSpecies(12)...)...))},
			[]int{10, 12}, []int{1}, []int{2, 1},
			"Ben wins the tie on 20 points: 12 insects with different names to 10"},
		{"End of the game/a tile without a name counts by continent, order and size",
			[]string{insectaInsects(head, nameless...),
				eu(insectaInsects(head, insectaAsian(append(insectaSpecies(5), insectaSpecies(5)...)...)...))},
			[]int{6, 5}, []int{0}, []int{1, 2},
			"Ana wins the tie on 20 points: 6 insects with different names to 5"},
		{"End of the game/still tied, the players share the victory",
			[]string{insectaInsects(head, insectaAsian(insectaSpecies(12)...)...),
				eu(insectaInsects(head, insectaAsian(insectaSpecies(12)...)...)),
				oc(insectaInsects(`"track":19`, insectaAsian(insectaSpecies(12)...)...))},
			[]int{12, 12, 12}, []int{0, 1}, []int{1, 1, 3},
			"Ana and Ben share the victory: level on 20 points and on every tiebreak"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scoreCase(t, insectaGame(t), insectaRequest(nil, tt.boards...))
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			var distinct, ranks []int
			for _, r := range res.Results {
				distinct = append(distinct, r.Tiebreaks[0].Value)
				ranks = append(ranks, r.Rank)
			}
			if !reflect.DeepEqual(distinct, tt.wantDistinct) {
				t.Errorf("distinct insects = %v, want %v", distinct, tt.wantDistinct)
			}
			if !reflect.DeepEqual(res.Winners, tt.wantWinners) || !reflect.DeepEqual(ranks, tt.wantRanks) {
				t.Errorf("winners, ranks = %v, %v; want %v, %v", res.Winners, ranks, tt.wantWinners, tt.wantRanks)
			}
			if res.Tiebreak != tt.wantTiebreak {
				t.Errorf("tiebreak = %q, want %q", res.Tiebreak, tt.wantTiebreak)
			}
		})
	}
}

// TestInsectaEndTrigger covers "The end of the game triggers when a player
// places their 12th Insect or Mail tile in their collection."
func TestInsectaEndTrigger(t *testing.T) {
	eleven := insectaInsects(`"track":5`, insectaAsian(insectaSpecies(11)...)...)
	twelve := insectaInsects(`"track":3`, insectaAsian(insectaSpecies(12)...)...)
	// The box has 15 insects of a continent (issue 11): the other
	// collection is European.
	elevenEU := strings.ReplaceAll(eleven, `"asia"`, `"europe"`)
	tests := []struct {
		name         string
		boards       []string
		wantComplete bool
		wantWinners  []int
	}{
		{"End of the game/eleven tiles each: the game goes on", []string{eleven, elevenEU, `{}`}, false, []int{}},
		{"End of the game/a 12th tile ends it, the most points win", []string{twelve, elevenEU}, true, []int{1}},
		{"End of the game/one player is below the minimum", []string{twelve}, false, []int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scoreCase(t, insectaGame(t), insectaRequest(nil, tt.boards...))
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			if res.Complete != tt.wantComplete || !reflect.DeepEqual(res.Winners, tt.wantWinners) {
				t.Errorf("complete, winners = %v, %v; want %v, %v", res.Complete, res.Winners, tt.wantComplete, tt.wantWinners)
			}
			for _, r := range res.Results {
				if r.Winner != insectaIsWinner(tt.wantWinners, r.Name, res) {
					t.Errorf("%s: winner = %v", r.Name, r.Winner)
				}
			}
		})
	}
}

// insectaIsWinner says whether the player named name is among winners.
func insectaIsWinner(winners []int, name string, res *Result) bool {
	for _, i := range winners {
		if res.Results[i].Name == name {
			return true
		}
	}
	return false
}

// insectaWant is an expected error or warning: its pointer, and words its
// detail must contain.
type insectaWant struct{ pointer, detail string }

// insectaCheckFields compares got with want in order.
func insectaCheckFields(t *testing.T, got []FieldError, want []insectaWant) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Pointer == want[i].pointer && strings.Contains(got[i].Detail, want[i].detail)
	}
	if !ok {
		t.Errorf("got %d:\n%s\nwant %d: %+v", len(got), insectaFormat(got), len(want), want)
	}
}

func insectaFormat(fes []FieldError) string {
	var b strings.Builder
	for _, fe := range fes {
		fmt.Fprintf(&b, "  %s: %s\n", fe.Pointer, fe.Detail)
	}
	return b.String()
}

// TestInsectaValidation checks every rule a board can break, each error at
// its JSON Pointer. Rows without want are legal boards.
func TestInsectaValidation(t *testing.T) {
	const p0, p1 = "/players/0/board", "/players/1/board"
	tests := []struct {
		name     string
		boards   []string
		variants map[string]int
		want     []insectaWant
	}{
		// Your collection, A. Place Insect and/or Mail tiles.
		{name: "Your collection/a single tile may go anywhere",
			boards: []string{insectaBoardJSON(``, insectaMl(2, 3))}},
		{name: "Your collection/a chain of insects touching diagonally is legal",
			boards: []string{insectaBoardJSON(``, insectaIns(0, 0), insectaIns(1, 1), insectaIns(2, 2), insectaIns(3, 1))}},
		{name: "Your collection/a mail beside an insect is legal",
			boards: []string{insectaBoardJSON(``, insectaIns(2, 2), insectaMl(3, 2))}},
		{name: "Your collection/mails touching diagonally are legal",
			boards: []string{insectaBoardJSON(``, insectaMl(0, 5), insectaMl(1, 4))}},
		{name: "Your collection/the layout is checked as a whole, not in the order entered",
			boards: []string{insectaBoardJSON(``, insectaIns(0, 0), insectaIns(0, 2), insectaMl(0, 1))}},
		{name: "Your collection/two mails side by side are illegal",
			boards: []string{insectaBoardJSON(``, insectaMl(0, 0), insectaMl(0, 1))},
			want:   []insectaWant{{p0 + "/tiles/1", "a mail must touch an insect orthogonally or a mail diagonally"}}},
		{name: "Your collection/two insects side by side are illegal",
			boards: []string{insectaBoardJSON(``, insectaIns(1, 1), insectaIns(1, 2))},
			want:   []insectaWant{{p0 + "/tiles/1", "an insect must touch a mail orthogonally or an insect diagonally"}}},
		{name: "Your collection/an insect and a mail corner to corner are illegal",
			boards: []string{insectaBoardJSON(``, insectaIns(1, 1), insectaMl(2, 2))},
			want:   []insectaWant{{p0 + "/tiles/1", "a mail must touch"}}},
		{name: "Your collection/the tiles off the largest island are reported",
			boards: []string{insectaBoardJSON(``, insectaIns(0, 0), insectaMl(0, 1), insectaIns(3, 4), insectaIns(2, 5), insectaMl(3, 5))},
			want: []insectaWant{
				{p0 + "/tiles/0", "an insect must touch a mail orthogonally or an insect diagonally"},
				{p0 + "/tiles/1", "a mail must touch an insect orthogonally or a mail diagonally"},
			}},
		{name: "Your collection/between islands of one size the first tile's stays",
			boards: []string{insectaBoardJSON(``, insectaIns(3, 5), insectaIns(0, 0))},
			want:   []insectaWant{{p0 + "/tiles/1", "an insect must touch"}}},
		{name: "Your collection/the 6x4 grid must not be expanded",
			boards: []string{insectaBoardJSON(``, insectaIns(4, 0), insectaIns(0, -1), insectaIns(-1, 6), insectaIns(3, 5))},
			want: []insectaWant{
				{p0 + "/tiles/0/row", "a row is 0 to 3, not 4"},
				{p0 + "/tiles/1/col", "a column is 0 to 5, not -1"},
				{p0 + "/tiles/2/row", "not -1"},
				{p0 + "/tiles/2/col", "not 6"},
			}},
		{name: "Your collection/two tiles on one cell",
			boards: []string{insectaBoardJSON(``, insectaIns(1, 1), insectaMl(1, 2), insectaIns(1, 1))},
			want:   []insectaWant{{p0 + "/tiles/2", "two tiles on one cell: tile 0 already lies on row 1, column 1"}}},
		{name: "Your collection/a tile needs its row and column",
			boards: []string{`{"tiles":[{"kind":"mail","institution":"societe-entomologique","points":1}]}`},
			want:   []insectaWant{{p0 + "/tiles/0/row", "give the tile's row"}, {p0 + "/tiles/0/col", "give the tile's column"}}},

		// Tiles: kinds, enumerations and the fields of each kind.
		{name: "Insect gathering/an insect's continent, order and size are known ones",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","continent":"antarctica","order":"diptera","size":"huge"}]}`},
			want: []insectaWant{
				{p0 + "/tiles/0/continent", `"antarctica" is not a known continent; use one of africa, america, asia, europe, oceania`},
				{p0 + "/tiles/0/order", `"diptera" is not a known order`},
				{p0 + "/tiles/0/size", `"huge" is not a known size`},
			}},
		// Issue 8: order and size change no score, so they may be left
		// out; the continent scores the five-continents bonus.
		{name: "Insect gathering/an insect needs only its continent",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","order":"","size":""},{"row":1,"col":1,"kind":"insect","continent":"asia"}]}`},
			want:   []insectaWant{{p0 + "/tiles/0/continent", "choose the continent"}}},
		{name: "Insect gathering/a wreath is one of the researchers",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","continent":"asia","order":"hemiptera","size":"large","wreath":"darwin"}]}`},
			want:   []insectaWant{{p0 + "/tiles/0/wreath", `"darwin" is not a known researcher`}}},
		{name: "Insect gathering/an insect has no mail fields",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","continent":"asia","order":"hemiptera","size":"large","institution":"societe-entomologique","points":3,"scored":false}]}`},
			want: []insectaWant{
				{p0 + "/tiles/0/institution", `an insect tile has no "institution" field`},
				{p0 + "/tiles/0/points", `an insect tile has no "points" field`},
				{p0 + "/tiles/0/scored", `an insect tile has no "scored" field`},
			}},
		{name: "Insect gathering/a name of 80 characters is fine, 81 is not",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","continent":"asia","name":"` + strings.Repeat("x", 80) + `"},` +
				`{"row":1,"col":1,"kind":"insect","continent":"asia","name":"` + strings.Repeat("é", 81) + `"}]}`},
			want: []insectaWant{{p0 + "/tiles/1/name", "at most 80 characters"}}},
		{name: "Insect gathering/a name of sane length",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","continent":"asia","order":"hemiptera","size":"large","name":"` + strings.Repeat("x", 81) + `"}]}`},
			want:   []insectaWant{{p0 + "/tiles/0/name", "at most 80 characters"}}},
		{name: "Mail collection/a mail has no insect fields",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"mail","institution":"deutsches-naturinstitut","points":3,"name":"x","continent":"asia","order":"hemiptera","size":"large","wreath":"mary-kingsley"}]}`},
			want: []insectaWant{
				{p0 + "/tiles/0/name", `a mail tile has no "name" field`},
				{p0 + "/tiles/0/continent", `a mail tile has no "continent" field`},
				{p0 + "/tiles/0/order", `a mail tile has no "order" field`},
				{p0 + "/tiles/0/size", `a mail tile has no "size" field`},
				{p0 + "/tiles/0/wreath", `a mail tile has no "wreath" field`},
			}},
		// Issue 8: a mail's institution and points change no score (the
		// track holds the points), so they may be left out; given, they
		// are checked.
		{name: "Mail collection/a mail's institution and points are checked when given",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"mail"},{"row":1,"col":1,"kind":"mail","institution":"royal-society","points":0},{"row":2,"col":2,"kind":"mail","institution":"entomological-society","points":11}]}`},
			want: []insectaWant{
				{p0 + "/tiles/1/institution", `"royal-society" is not a known institution`},
				{p0 + "/tiles/1/points", "a mail is worth 1 to 10 points, not 0"},
				{p0 + "/tiles/2/points", "not 11"},
			}},
		{name: "Your collection/a tile is an insect or a mail",
			boards: []string{`{"tiles":[{"row":0,"col":0},{"row":1,"col":1,"kind":"spider"}]}`},
			want: []insectaWant{
				{p0 + "/tiles/0/kind", "say whether the tile is an insect or a mail"},
				{p0 + "/tiles/1/kind", `"spider" is not a kind of tile`},
			}},

		// The board's counters.
		{name: "End of the game/track and fragments within bounds",
			boards: []string{`{"track":-1,"fragments":4}`, `{"track":301,"fragments":-1}`},
			want: []insectaWant{
				{p0 + "/track", "the scoring track runs from 0 to 300, not -1"},
				{p0 + "/fragments", "0 to 3 fragments, not 4"},
				{p1 + "/track", "not 301"},
				{p1 + "/fragments", "not -1"},
			}},
		{name: "End of the game/the highest sane track is fine",
			boards: []string{`{"track":300,"fragments":3}`}},

		// Setup: each player draws their own Researcher tile.
		{name: "Setup/an unknown researcher",
			boards: []string{`{"researcher":"charles-darwin"}`},
			want:   []insectaWant{{p0 + "/researcher", `"charles-darwin" is not a known researcher; use one of louise-caroline-daumont,`}}},
		{name: "Setup/two players with one researcher",
			boards: []string{`{"researcher":"mary-kingsley"}`, `{"researcher":"ida-laura-pfeiffer"}`, `{"researcher":"mary-kingsley"}`},
			want:   []insectaWant{{"/players/2/board/researcher", "Mary Kingsley is already the researcher of Ana"}}},

		// Medal claiming.
		{name: "Medal claiming/medals are known, listed once, with a level",
			boards: []string{`{"medals":[{"medal":"continent:antarctica","level":1},{"medal":"order:coleoptera","level":0},{"medal":"order:coleoptera","level":13},{"medal":"size:large"},{"level":2},{"medal":"institution:any","level":12}]}`},
			want: []insectaWant{
				{p0 + "/medals/0/medal", `"continent:antarctica" is not a medal`},
				{p0 + "/medals/1/level", "a medal level is 1 to 12, not 0"},
				{p0 + "/medals/2/medal", "Order: Coleoptera is already listed"},
				{p0 + "/medals/2/level", "not 13"},
				{p0 + "/medals/3/level", "give the level"},
				{p0 + "/medals/4/medal", "choose the medal"},
				// Six claims are also more than a player's three markers (issue 11).
				{p0 + "/medals/3", "at most 3 medals each, and this board claims 6"},
			}},

		// Decoding: wrong types and unknown fields, at the field's pointer.
		{name: "Your collection/a row given as text",
			boards: []string{insectaBoardJSON(``, insectaIns(0, 0), insectaIns(1, 1), insectaIns(2, 2), `{"row":"3","col":3,"kind":"insect"}`)},
			want:   []insectaWant{{p0 + "/tiles/3/row", "expected a whole number, got text"}}},
		{name: "Your collection/points given as a fraction",
			boards: []string{`{}`, `{"tiles":[{"row":0,"col":0,"kind":"mail","institution":"societe-entomologique","points":2.5}]}`},
			want:   []insectaWant{{p1 + "/tiles/0/points", "expected a whole number, got 2.5"}}},
		{name: "Setup/an unknown field",
			boards: []string{`{"tiles":[{"row":0,"col":0,"kind":"insect","colour":"green"}]}`},
			want:   []insectaWant{{p0 + "/tiles/0/colour", `"colour" is not a field of this board`}}},
		{name: "Setup/a board is an object",
			boards: []string{`[1,2]`, `"board"`},
			want: []insectaWant{
				{p0, "expected an object, got a list"},
				{p1, "expected an object, got text"},
			}},
		{name: "Setup/a missing board is an empty one",
			boards: []string{``, `null`}},

		// Variants (DESIGN.md, Interpretations).
		{name: "Interpretations/oneFragment is -1 or 1",
			boards: []string{`{}`}, variants: map[string]int{"oneFragment": 4},
			want: []insectaWant{{"/variants/oneFragment", "oneFragment must be one of [-1 1]"}}},
		{name: "Interpretations/an unknown variant",
			boards: []string{`{}`}, variants: map[string]int{"twoFragments": 1},
			want: []insectaWant{{"/variants/twoFragments", `has no variant "twoFragments"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := scoreCase(t, insectaGame(t), insectaRequest(tt.variants, tt.boards...))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Score: %v, want no error", err)
				}
				return
			}
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Score: error %v, want a *ValidationError", err)
			}
			insectaCheckFields(t, verr.Errors, tt.want)
		})
	}
}

// TestInsectaWarnings checks entries that are allowed but look wrong.
func TestInsectaWarnings(t *testing.T) {
	const p0 = "/players/0/board"
	africa := `"continent":"africa","order":"lepidoptera","size":"medium"`
	mails := func(head string) string {
		// Two scored mails of the Entomological Society, one scored and one
		// open mail of the Société Entomologique, around insects.
		return insectaBoardJSON(head,
			insectaIns(0, 0),
			`{"row":0,"col":1,"kind":"mail","institution":"entomological-society","points":3,"scored":true}`,
			`{"row":1,"col":0,"kind":"mail","institution":"entomological-society","points":2,"scored":true}`,
			`{"row":1,"col":2,"kind":"mail","institution":"societe-entomologique","points":4,"scored":true}`,
			`{"row":0,"col":3,"kind":"mail","institution":"societe-entomologique","points":5}`,
			insectaIns(1, 1), insectaIns(0, 2))
	}
	tests := []struct {
		name  string
		board string
		want  []insectaWant
	}{
		{"Setup/an empty board needs no researcher yet", `{}`, nil},
		{"Researcher tiles/a collection without a researcher",
			insectaInsects(`"researcher":""`, africa),
			[]insectaWant{{p0 + "/researcher", "choose a researcher to count her favourite insects"}}},
		{"B. Score completed Mail commission/the track includes the scored mails",
			mails(`"researcher":"mary-kingsley","track":9`), nil},
		{"B. Score completed Mail commission/a track below the scored mails",
			mails(`"researcher":"mary-kingsley","track":8`),
			[]insectaWant{{p0 + "/track", "the scored mail tiles are worth 9 points but the track shows 8"}}},
		{"Medal claiming/Laura's example: three African insects support level 3",
			insectaInsects(`"researcher":"mary-kingsley","medals":[{"medal":"continent:africa","level":3}]`, africa, africa, africa), nil},
		{"Medal claiming/level 3 on Africa with two African insects",
			insectaInsects(`"researcher":"mary-kingsley","medals":[{"medal":"continent:africa","level":3}]`, africa, africa, insectaAsian("")[0]),
			[]insectaWant{{p0 + "/medals/0/level", "level 3 on Continent: Africa needs 3 matching insects, but the collection has 2"}}},
		{"Medal claiming/order and size medals count their insects",
			insectaInsects(`"researcher":"mary-kingsley","medals":[{"medal":"order:lepidoptera","level":2},{"medal":"size:medium","level":3},{"medal":"order:coleoptera","level":1}]`, africa, africa),
			[]insectaWant{
				{p0 + "/medals/1/level", "level 3 on Size: Medium needs 3 matching insects, but the collection has 2"},
				{p0 + "/medals/2/level", "has 0"},
			}},
		{"Medal claiming/George's example: an institution medal counts only its own scored mails",
			mails(`"researcher":"mary-kingsley","track":9,"medals":[{"medal":"institution:entomological-society","level":2},{"medal":"institution:societe-entomologique","level":2},{"medal":"institution:deutsches-naturinstitut","level":1}]`),
			[]insectaWant{
				{p0 + "/medals/1/level", "level 2 on Institution: Société Entomologique needs 2 matching scored mail tiles, but the collection has 1"},
				{p0 + "/medals/2/level", "has 0"},
			}},
		{"Medal claiming/the any-institution medal counts every scored mail",
			mails(`"researcher":"mary-kingsley","track":9,"medals":[{"medal":"institution:any","level":3}]`), nil},
		{"Medal claiming/an open mail is not completed",
			mails(`"researcher":"mary-kingsley","track":9,"medals":[{"medal":"institution:any","level":4}]`),
			[]insectaWant{{p0 + "/medals/0/level", "has 3"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scoreCase(t, insectaGame(t), insectaRequest(nil, tt.board, `{}`))
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			insectaCheckFields(t, res.Results[0].Warnings, tt.want)
		})
	}
}

func TestInsectaSpec(t *testing.T) {
	s := insectaGame(t).Spec()
	if s.Grid == nil || *s.Grid != (Grid{Rows: 4, Cols: 6}) {
		t.Errorf("grid = %v, want 4×6", s.Grid)
	}
	// 5 continents + 5 orders + 3 sizes + 3 institutions + any = the 17 Medal tiles.
	if got := len(s.Enums["medal"]); got != 17 {
		t.Errorf("medals = %d, want the 17 medal tiles", got)
	}
	labels := map[string]Option{
		"medal":       {"continent:africa", "Continent: Africa"},
		"researcher":  {"louise-caroline-daumont", "Louise-Caroline d'Aumont"},
		"institution": {"societe-entomologique", "Société Entomologique"},
		"kind":        {"insect", "Insect"},
	}
	for enum, want := range labels {
		if got := insectaLabel(s.Enums[enum], want.ID); got != want.Label {
			t.Errorf("%s %s: label %q, want %q", enum, want.ID, got, want.Label)
		}
	}
	for _, enum := range []string{"continent", "order", "size", "institution", "researcher", "medal", "kind"} {
		if len(s.Enums[enum]) == 0 {
			t.Errorf("enum %q is empty", enum)
		}
	}
}

// The rulebook's "End of the game" example entered as totals sheets.
const (
	insectaLauraTotals  = `{"totals": {"track": 24, "favourites": 4, "continents": 0, "fragments": 4, "distinctInsects": 6}}`
	insectaGeorgeTotals = `{"totals": {"track": 15, "favourites": 2, "continents": 5, "fragments": 9, "distinctInsects": 5}}`
)

// TestInsectaTotals covers boards entered as totals sheets (issue 8).
func TestInsectaTotals(t *testing.T) {
	const p0, p1 = "/players/0/board", "/players/1/board"
	eleven := insectaInsects(`"researcher":"mary-kingsley","track":5`, insectaAsian(insectaSpecies(11)...)...)
	runTotals(t, "insecta", []totalsCase{
		{name: "issue 8/End of the game example as totals: Laura 32, George 31",
			boards: []string{insectaLauraTotals, insectaGeorgeTotals},
			totals: []int{32, 31}, ranks: []int{1, 2}, winners: []int{0}, complete: true, entered: []string{"totals", "totals"}},
		{name: "issue 8/End of the game example, Laura's totals beside George's board",
			boards: []string{insectaLauraTotals, insectaGeorge},
			totals: []int{32, 31}, ranks: []int{1, 2}, winners: []int{0}, complete: true, entered: []string{"totals", "board"}},
		{name: "issue 8/a sheet is final: the game is over though no one shows 12 tiles",
			boards: []string{eleven, `{"totals": {"track": 4, "distinctInsects": 3}}`},
			totals: []int{5, 4}, ranks: []int{1, 2}, winners: []int{0}, complete: true, entered: []string{"board", "totals"}},
		{name: "issue 8/End of the game: the tie goes to more insects with different names, from the sheet",
			boards: []string{insectaInsects(`"researcher":"mary-kingsley","track":20`, insectaAsian(insectaSpecies(11)...)...), `{"totals": {"track": 20, "distinctInsects": 12}}`},
			totals: []int{20, 20}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"board", "totals"},
			tiebreak: "Ben wins the tie on 20 points: 12 insects with different names to 11"},
		{name: "issue 8/a missing tiebreak counts 0, and the results say so",
			boards: []string{`{"totals": {"track": 20}}`, `{"totals": {"track": 20, "distinctInsects": 0}}`},
			totals: []int{20, 20}, ranks: []int{1, 1}, winners: []int{0, 1}, complete: true, entered: []string{"totals", "totals"},
			warnings: []totalsWant{{p0 + "/totals/distinctInsects", "no insects with different names entered: counted as 0 for the tiebreak"}},
			tiebreak: "Ana and Ben share the victory"},
		{name: "issue 8/one fragment costs a point",
			boards: []string{`{"totals": {"fragments": -1, "distinctInsects": 1}}`, `{"totals": {"fragments": 0, "distinctInsects": 1}}`},
			totals: []int{-1, 0}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"totals", "totals"}},
		{name: "issue 8/Interpretations: with oneFragment one fragment earns 1",
			boards:   []string{`{"totals": {"fragments": 1, "distinctInsects": 1}}`, `{"totals": {"fragments": 9, "distinctInsects": 1}}`},
			variants: map[string]int{"oneFragment": 1},
			totals:   []int{1, 9}, ranks: []int{2, 1}, winners: []int{1}, complete: true, entered: []string{"totals", "totals"}},
		{name: "issue 8/Setup: researchers are checked among the boards only",
			boards: []string{`{"researcher": "mary-kingsley"}`, `{"totals": {"track": 3, "distinctInsects": 0}}`, `{"researcher": "ida-laura-pfeiffer"}`},
			totals: []int{0, 3, 0}, ranks: []int{2, 1, 2}, winners: []int{1}, complete: true, entered: []string{"board", "totals", "board"}},

		{name: "issue 8/the five-continents bonus is all or nothing",
			boards: []string{`{"totals": {"continents": 3}}`, `{"totals": {"continents": 10}}`},
			errs: []totalsWant{
				{p0 + "/totals/continents", "Five continents is either 0 or 5, not 3"},
				{p1 + "/totals/continents", "Five continents can be 0 to 5, not 10"},
			}},
		{name: "issue 8/favourites come 2 points at a time",
			boards: []string{`{"totals": {"favourites": 3}}`, `{"totals": {"favourites": 50, "track": 301}}`},
			errs: []totalsWant{
				{p0 + "/totals/favourites", "Favourite insects is a multiple of 2, not 3"},
				{p1 + "/totals/track", "Scoring track can be 0 to 300, not 301"},
				{p1 + "/totals/favourites", "Favourite insects can be 0 to 48, not 50"},
			}},
		{name: "issue 8/fragments score -1, 0, 4 or 9 by the printed rule",
			boards: []string{`{"totals": {"fragments": 1}}`, `{"totals": {"fragments": 5}}`, `{"totals": {"fragments": 10}}`},
			errs: []totalsWant{
				{p0 + "/totals/fragments", "journal fragments score 0, -1, 4 or 9 points (none, 1, 2 or 3 fragments), not 1"},
				{p1 + "/totals/fragments", "not 5"},
				{"/players/2/board/totals/fragments", "Journal fragments can be -1 to 9, not 10"},
			}},
		{name: "issue 8/Interpretations: with oneFragment fragments score 1, 0, 4 or 9",
			boards: []string{`{"totals": {"fragments": -1}}`}, variants: map[string]int{"oneFragment": 1},
			errs: []totalsWant{{p0 + "/totals/fragments", "journal fragments score 0, 1, 4 or 9 points (none, 1, 2 or 3 fragments), not -1"}}},
		{name: "issue 8/more different insects than a collection holds",
			boards: []string{`{"totals": {"distinctInsects": 25}}`},
			errs:   []totalsWant{{p0 + "/totals/distinctInsects", "insects with different names can be 0 to 24, not 25"}}},
		{name: "issue 8/unknown lines and wrong types",
			boards: []string{`{"totals": {"medals": 3, "track": "24"}}`},
			errs: []totalsWant{
				{p0 + "/totals/track", "expected a whole number, got text"},
				{p0 + "/totals/medals", `"medals" is not a line of the Insecta totals sheet; use track, favourites, continents, fragments or distinctInsects`},
			}},
		{name: "issue 8/a totals board holds nothing else",
			boards: []string{`{"researcher": "mary-kingsley", "totals": {"track": 3}}`},
			errs:   []totalsWant{{p0 + "/researcher", `a board entered as totals holds nothing but "totals"`}}},
	})
}

// TestInsectaOptionalFields covers issue 8's "fields that change no score
// are optional": an insect's order and size, a mail's institution and
// points. A collection entered without them scores as with them.
func TestInsectaOptionalFields(t *testing.T) {
	// strip removes the optional fields from every tile of a board.
	strip := func(board string) string {
		var b map[string]any
		if err := json.Unmarshal([]byte(board), &b); err != nil {
			t.Fatal(err)
		}
		for _, tile := range b["tiles"].([]any) {
			for _, f := range []string{"order", "size", "institution", "points"} {
				delete(tile.(map[string]any), f)
			}
		}
		out, _ := json.Marshal(b)
		return string(out)
	}
	g := insectaGame(t)
	full, err := scoreCase(t, g, insectaRequest(nil, insectaLaura, insectaGeorge))
	if err != nil {
		t.Fatal(err)
	}
	bare, err := scoreCase(t, g, insectaRequest(nil, strip(insectaLaura), strip(insectaGeorge)))
	if err != nil {
		t.Fatalf("Score without the optional fields: %v", err)
	}
	for i := range full.Results {
		f, b := full.Results[i], bare.Results[i]
		if f.Total != b.Total || f.Rank != b.Rank || !reflect.DeepEqual(f.Breakdown, b.Breakdown) || !reflect.DeepEqual(f.Tiebreaks, b.Tiebreaks) {
			t.Errorf("player %d without optional fields:\n got %+v\nwant %+v", i, b, f)
		}
	}
	if !bare.Complete || !reflect.DeepEqual(bare.Winners, []int{0}) {
		t.Errorf("complete, winners = %v, %v; want true, [0]", bare.Complete, bare.Winners)
	}

	const p0 = "/players/0/board"
	africa, mk := `"continent":"africa"`, `"researcher":"mary-kingsley"`
	tests := []struct {
		name     string
		board    string
		distinct int
		labels   []string // of the distinct insects
		warnings []insectaWant
	}{
		{"End of the game/unnamed tiles without order and size count once per continent",
			insectaInsects(mk, africa, africa, `"continent":"asia"`), 2, []string{"Africa", "Asia"}, nil},
		{"End of the game/an unnamed tile counts by the traits it has",
			insectaInsects(mk, africa, africa+`,"order":"coleoptera"`, africa+`,"order":"coleoptera","size":"small"`, africa+`,"size":"small"`),
			4, []string{"Africa", "Africa, Coleoptera", "Africa, Coleoptera, Small", "Africa, Small"}, nil},
		{"End of the game/a name counts by the name, whatever the traits",
			insectaInsects(mk, africa+`,"name":"Goliathus regius"`, `"continent":"asia","name":" goliathus  REGIUS"`, africa),
			2, []string{"Goliathus regius", "Africa"}, nil},
		{"Medal claiming/insects without a size might be the medal's",
			insectaInsects(`"researcher":"mary-kingsley","medals":[{"medal":"size:large","level":3},{"medal":"order:coleoptera","level":3}]`,
				africa+`,"size":"large"`, africa, africa+`,"order":"lepidoptera"`),
			3, nil, []insectaWant{{p0 + "/medals/1/level", "level 3 on Order: Coleoptera needs 3 matching insects, but the collection has 0"}}},
		{"Medal claiming/mails without an institution might be the medal's",
			insectaBoardJSON(`"researcher":"mary-kingsley","track":3,"medals":[{"medal":"institution:entomological-society","level":2},{"medal":"institution:any","level":3}]`,
				insectaIns(0, 0),
				`{"row":0,"col":1,"kind":"mail","scored":true}`,
				`{"row":1,"col":0,"kind":"mail","institution":"entomological-society","points":3,"scored":true}`),
			1, nil, []insectaWant{{p0 + "/medals/1/level", "level 3 on Institution: Any needs 3 matching scored mail tiles, but the collection has 2"}}},
		{"B. Score completed Mail commission/a mail without points checks nothing on the track",
			insectaBoardJSON(`"researcher":"mary-kingsley","track":0`, insectaIns(0, 0), `{"row":0,"col":1,"kind":"mail","scored":true}`), 1, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := scoreCase(t, g, insectaRequest(nil, tt.board, `{}`))
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			tb := res.Results[0].Tiebreaks[0]
			if tb.Value != tt.distinct {
				t.Errorf("distinct insects = %d, want %d (%+v)", tb.Value, tt.distinct, tb.Sources)
			}
			if tt.labels != nil {
				var labels []string
				for _, s := range tb.Sources {
					labels = append(labels, s.Label)
				}
				if !reflect.DeepEqual(labels, tt.labels) {
					t.Errorf("labels = %q, want %q", labels, tt.labels)
				}
			}
			insectaCheckFields(t, res.Results[0].Warnings, tt.warnings)
		})
	}
}

// FuzzScoreInsecta feeds whole request bodies through Score: it must never
// panic, and must either explain what is wrong or rank every player.
func FuzzScoreInsecta(f *testing.F) {
	f.Add(`{"players":[{"name":"Laura","board":` + insectaLaura + `},{"name":"George","board":` + insectaGeorge + `}],"variants":{}}`)
	f.Add(`{"players":[{"name":"Ana","board":{"fragments":1}},{"name":"Ben","board":null}],"variants":{"oneFragment":1}}`)
	f.Add(`{"players":[{"name":"Ana","board":` + insectaBoardJSON(`"researcher":"mary-kingsley","track":-3`, insectaIns(0, 0), insectaMl(0, 0), insectaMl(3, 5)) + `}]}`)
	f.Add(`{"players":[{"name":"Ana","board":{"tiles":[{"row":"1"}],"medals":[{"medal":"size:small","level":3}]}}]}`)
	f.Add(`{"players":[{"name":"A","board":{"tiles":[{"row":9,"col":9,"kind":"mail","points":99}]}},{"name":"a","board":{}}],"variants":{"x":1}}`)
	f.Add(`{"players":[{"name":"Laura","board":` + insectaLauraTotals + `},{"name":"George","board":` + insectaGeorge + `}],"variants":{"oneFragment":1}}`)
	f.Add(`{"players":[{"name":"Ana","board":{"totals":{"fragments":1,"continents":3,"x":1}}},{"name":"Ben","board":{"tiles":[{"row":0,"col":0,"kind":"insect","continent":"asia"}]}}]}`)
	f.Fuzz(func(t *testing.T, body string) {
		res := fuzzScore(t, "insecta", []byte(body))
		if res == nil {
			return
		}
		for i, r := range res.Results {
			if len(r.Breakdown) != 4 || len(r.Tiebreaks) != 1 {
				t.Fatalf("player %d: %d lines and %d tiebreaks, want 4 and 1", i, len(r.Breakdown), len(r.Tiebreaks))
			}
		}
	})
}

// TestInsectaBoxLimits pins the box's limits at their edge (issue 11):
// setup makes "a pile with 8 tiles on camp A and a pile with 7 on camp B"
// of each continent; each player places "one of your markers on each
// space of your Researcher tile" (three) and claims a medal with one; and
// setup brings 3 medals face down and "3 Medal tiles ... face up". It also
// pins d'Aumont's "Move 1 tile in your collection to an empty space".
func TestInsectaBoxLimits(t *testing.T) {
	const p0, p1, p2 = "/players/0/board", "/players/1/board", "/players/2/board"
	african := func(n int) []string {
		out := insectaAsian(insectaSpecies(n)...)
		for i := range out {
			out[i] = strings.Replace(out[i], "asia", "africa", 1)
		}
		return out
	}
	continents := func(board string, n int) (out []string) {
		for k := range n {
			out = append(out, fmt.Sprintf("%s/tiles/%d/continent", board, k))
		}
		return out
	}
	medals := func(ids ...string) string {
		var ms []string
		for _, id := range ids {
			ms = append(ms, fmt.Sprintf(`{"medal":%q,"level":1}`, id))
		}
		return `{"medals":[` + strings.Join(ms, ",") + `]}`
	}
	loose := insectaBoardJSON(`"researcher":%q`, insectaIns(0, 0), insectaIns(3, 5))
	daumont := fmt.Sprintf(loose, "louise-caroline-daumont")
	kingsley := fmt.Sprintf(loose, "mary-kingsley")
	runBoxCases(t, "insecta", []boxCase{
		{name: "Setup: 8 and 7 insects of a continent, 15 at the table",
			boards: []string{insectaInsects("", african(8)...), insectaInsects("", african(7)...)}},
		{name: "Setup: 8 and 7 insects of a continent, 16 at the table",
			boards:   []string{insectaInsects("", african(8)...), insectaInsects("", african(8)...)},
			want:     p1 + "/tiles/7/continent",
			pointers: append(append([]string{p1 + "/tiles/7/continent"}, continents(p0, 8)...), continents(p1, 7)...),
			detail:   "the box has 15 insects from Africa (a pile of 8 on camp A and 7 on camp B): at most 15 at one table, and these collections hold 16"},
		{name: "Setup: 15 African insects and a mail that claims a continent",
			boards: []string{insectaInsects("", african(8)...),
				strings.Replace(insectaInsects("", african(7)...), "]}", `,{"row":1,"col":4,"kind":"mail","continent":"africa"}]}`, 1)},
			want: p1 + "/tiles/7/continent", detail: `a mail tile has no "continent" field`},
		{name: "Setup: 6 different medals and one that is none",
			boards: []string{medals("continent:africa", "order:coleoptera", "size:small"),
				medals("institution:any", "size:large", "continent:asia"), medals("continent:antarctica")},
			want: p2 + "/medals/0/medal", detail: `"continent:antarctica" is not a medal`},
		{name: "Setup: a marker on each space of the Researcher tile, 3 medals",
			boards: []string{medals("continent:africa", "order:coleoptera", "size:small")}},
		{name: "Setup: a marker on each space of the Researcher tile, 4 medals",
			boards:   []string{medals("continent:africa", "order:coleoptera", "size:small", "institution:any")},
			want:     p0 + "/medals/3",
			pointers: []string{p0 + "/medals/3", p0 + "/medals/0", p0 + "/medals/1", p0 + "/medals/2"},
			detail:   "a player has 3 markers on the Researcher tile, one for each medal claimed: at most 3 medals each, and this board claims 4"},
		{name: "Setup: 3 medals face down and 3 face up, 6 at the table",
			boards: []string{medals("continent:africa", "order:coleoptera", "size:small"),
				medals("institution:any", "size:large", "continent:asia"), medals("continent:africa", "size:large")}},
		{name: "Setup: 3 medals face down and 3 face up, a 7th at the table",
			boards: []string{medals("continent:africa", "order:coleoptera", "size:small"),
				medals("institution:any", "size:large", "continent:asia"), medals("continent:africa", "size:medium")},
			want: p2 + "/medals/1/medal",
			pointers: []string{p2 + "/medals/1/medal", p0 + "/medals/0/medal", p0 + "/medals/1/medal", p0 + "/medals/2/medal",
				p1 + "/medals/0/medal", p1 + "/medals/1/medal", p1 + "/medals/2/medal", p2 + "/medals/0/medal"},
			detail: "6 medals come into a game, 3 face down and 3 face up: at most 6 different medals at one table, and these boards claim 7"},
		{name: "Researchers: d'Aumont may move a tile to an empty space, a warning",
			boards: []string{daumont, `{}`}, warnAt: p0 + "/tiles/1",
			warning: `Louise-Caroline d'Aumont's ability "Move 1 tile in your collection to an empty space"`},
		{name: "Researchers: without d'Aumont a collection in pieces is an error",
			boards: []string{kingsley, `{}`}, want: p0 + "/tiles/1",
			detail: "this tile is not joined to the rest of the collection: an insect must touch a mail orthogonally or an insect diagonally"},
		{name: "Researchers: d'Aumont moves a tile to an empty space, not onto another",
			boards: []string{insectaBoardJSON(`"researcher":"louise-caroline-daumont"`, insectaIns(0, 0), insectaIns(0, 0)), `{}`},
			want:   p0 + "/tiles/1", detail: "two tiles on one cell"},
	})
}

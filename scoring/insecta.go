package scoring

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Insecta: The Ladies of Entomology (rules/insecta-rulebook.txt). A board is
// the player's collection of Insect and Mail tiles in a 4×6 grid plus what the
// table reads off the main board: the scoring track, journal fragments and
// the medals claimed. Mail commissions and medal bonuses are already on the
// track, so the final scoring only adds favourites, continents and fragments.

func init() {
	Register(insecta{})
	// The continents line names each continent it counts, and the
	// tiebreak an insect without a name by its traits (insectaTraits).
	addSourceWords("insecta", "continents", map[string][]Option{"continent": insectaContinents})
	addSourceWords("insecta", insectaTiebreak.ID, map[string][]Option{
		"continent": insectaContinents, "order": insectaOrders, "size": insectaSizes})
}

// insecta implements Game for Insecta.
type insecta struct{}

const (
	insectaMaxPlayers = 4
	insectaRows       = 4 // "a grid of a maximum of 6 columns and 4 rows"
	insectaCols       = 6
	// insectaEndTiles is the collection size that triggers the end of the game.
	insectaEndTiles = 12
	// insectaMaxTrack catches typos: real final tracks are a few dozen points,
	// and 300 is far beyond any game while still below silly values.
	insectaMaxTrack = 300
	// insectaMaxMailPoints bounds a Mail tile's value. Printed commissions are
	// worth a few points and "for each adjacent objective" tiles pay one per
	// neighbouring insect (eight at most), so 10 admits every real tile.
	insectaMaxMailPoints = 10
	// insectaMaxMedalLevel bounds a medal marker. The end triggers at the 12th
	// tile, so no attribute is held by more than about a dozen tiles; a level
	// above what the collection holds is only a warning (see medalCount).
	insectaMaxMedalLevel = 12
	// insectaMaxInsectName keeps species names to what a form shows.
	insectaMaxInsectName = 80
	// insectaFiveContinents is the bonus for insects from all five continents.
	insectaFiveContinents = 5
	// insectaPerFavourite is what each of the researcher's favourites earns.
	insectaPerFavourite = 2
	// insectaPerContinent is the Insect tiles of one continent in the box:
	// setup makes "a pile with 8 tiles on camp A and a pile with 7 on camp B".
	insectaPerContinent = 8 + 7
	// insectaMarkers is the medals one player can claim: "Place one of your
	// markers on each space of your Researcher tile", and a claim places one.
	insectaMarkers = 3
	// insectaGameMedals is the medals that come into a game: setup places 3
	// face down, then "draw 3 Medal tiles and place them face up".
	insectaGameMedals = 3 + 3
)

var (
	insectaContinents = []Option{
		{"africa", "Africa"}, {"america", "America"}, {"asia", "Asia"},
		{"europe", "Europe"}, {"oceania", "Oceania"},
	}
	insectaOrders = []Option{
		{"coleoptera", "Coleoptera"}, {"lepidoptera", "Lepidoptera"},
		{"hemiptera", "Hemiptera"}, {"orthoptera", "Orthoptera"},
		{"hymenoptera", "Hymenoptera"},
	}
	insectaSizes = []Option{{"small", "Small"}, {"medium", "Medium"}, {"large", "Large"}}
	// The three scientific institutions that send Mail commissions.
	insectaInstitutions = []Option{
		{"societe-entomologique", "Société Entomologique"},
		{"entomological-society", "Entomological Society"},
		{"deutsches-naturinstitut", "Deutsches Naturinstitut"},
	}
	// The five Researcher tiles; the ids are also the wreaths on Insect tiles.
	insectaResearchers = []Option{
		{"louise-caroline-daumont", "Louise-Caroline d'Aumont"},
		{"maria-sibylla-merian", "Maria Sibylla Merian"},
		{"mary-kingsley", "Mary Kingsley"},
		{"margaret-elisabeth-fountaine", "Margaret Elisabeth Fountaine"},
		{"ida-laura-pfeiffer", "Ida Laura Pfeiffer"},
	}
	insectaKinds = []Option{{"insect", "Insect"}, {"mail", "Mail"}}
	// insectaBreakdown is the order and wording of a player's score lines.
	insectaBreakdown = []Option{
		{"track", "Scoring track"},
		{"favourites", "Favourite insects"},
		{"continents", "Five continents"},
		{"fragments", "Journal fragments"},
	}
	insectaTiebreak = Option{"distinctInsects", "insects with different names"}
	// insectaTotals is the totals sheet. Each maximum is what the box
	// allows: the track stops at insectaMaxTrack; a collection has 24 cells,
	// so at most 24 insects, each a favourite (2 points) or a different
	// species at best; the continents bonus is all or nothing; and three
	// fragments, the most a journal has, score 9. Which fragment values a
	// table accepts depends on its oneFragment variant (insectaCheckTotals).
	insectaTotals = []TotalsField{
		{ID: "track", Label: "Scoring track", Min: 0, Max: insectaMaxTrack, Step: 1},
		{ID: "favourites", Label: "Favourite insects", Min: 0, Max: insectaPerFavourite * insectaRows * insectaCols, Step: insectaPerFavourite},
		{ID: "continents", Label: "Five continents", Min: 0, Max: insectaFiveContinents, Step: insectaFiveContinents},
		{ID: "fragments", Label: "Journal fragments", Min: -1, Max: 9, Step: 1},
		{ID: insectaTiebreak.ID, Label: insectaTiebreak.Label, Min: 0, Max: insectaRows * insectaCols, Step: 1},
	}
	// insectaTilePointers are the pointers of the tiles, "/tiles/n".
	insectaTilePointers = indexPointers("/tiles/", insectaRows*insectaCols)
	// insectaMedals lists every medal tile: one per continent, order and size
	// (the Insect medals), one per institution and one for any institution.
	insectaMedals = insectaMedalOptions()
)

// insectaMedalOptions builds the medal ids ("continent:africa") from the
// attributes they count, so the two lists cannot drift apart.
func insectaMedalOptions() []Option {
	var out []Option
	groups := []struct {
		prefix, label string
		opts          []Option
	}{
		{"continent", "Continent", insectaContinents},
		{"order", "Order", insectaOrders},
		{"size", "Size", insectaSizes},
		{"institution", "Institution", insectaInstitutions},
	}
	for _, g := range groups {
		for _, o := range g.opts {
			out = append(out, Option{g.prefix + ":" + o.ID, g.label + ": " + o.Label})
		}
	}
	return append(out, Option{"institution:any", "Institution: Any"})
}

// Spec describes Insecta and the vocabulary of its boards.
func (insecta) Spec() Spec {
	return Spec{
		Info: Info{
			ID: "insecta", Name: "Insecta: The Ladies of Entomology",
			MinPlayers: 2, MaxPlayers: insectaMaxPlayers,
			Unit: "game.insecta.unit", End: "someone must have 12 tiles in their collection", Form: "games/insecta.js",
		},
		Enums: map[string][]Option{
			"continent":   insectaContinents,
			"order":       insectaOrders,
			"size":        insectaSizes,
			"institution": insectaInstitutions,
			"researcher":  insectaResearchers,
			"medal":       insectaMedals,
			"kind":        insectaKinds,
		},
		// The printed fragment line is "-1 / 4 / 9"; groups who read the
		// first value as +1 switch this on (DESIGN.md, Interpretations).
		Variants:  []VariantSpec{{Key: "oneFragment", Label: "One journal fragment scores", Default: -1, Values: []int{-1, 1}}},
		Grid:      &Grid{Rows: insectaRows, Cols: insectaCols},
		Breakdown: insectaBreakdown,
		Tiebreaks: []Option{insectaTiebreak},
		Totals:    slices.Clone(insectaTotals),
	}
}

// insectaBoard is one player's board as sent by a client. Fields that may be
// left out are optional so that "not given" differs from zero.
type insectaBoard struct {
	Researcher string         `json:"researcher"`
	Track      int            `json:"track"`
	Fragments  int            `json:"fragments"`
	Tiles      []insectaTile  `json:"tiles"`
	Medals     []insectaMedal `json:"medals"`
}

// insectaTile is an Insect or a Mail tile. Both kinds share one shape so a
// field of the other kind can be reported instead of silently dropped.
//
// Only the fields that change a score are required (issue 8): an insect's
// continent (the five-continents bonus) and its wreath when it has one. Its
// order and size, and a mail's institution, only check medal levels and
// tell unnamed insects apart; a mail's points only check the scoring track,
// which already holds them. Each may be left out.
type insectaTile struct {
	Row  optional[int] `json:"row"`
	Col  optional[int] `json:"col"`
	Kind string        `json:"kind"`
	// Insect fields.
	Name      optional[string] `json:"name"`
	Continent optional[string] `json:"continent"`
	Order     optional[string] `json:"order"`
	Size      optional[string] `json:"size"`
	Wreath    optional[string] `json:"wreath"`
	// Mail fields.
	Institution optional[string] `json:"institution"`
	Points      optional[int]    `json:"points"`
	Scored      optional[bool]   `json:"scored"`
}

// insectaMedal is a claimed medal and the level of the player's marker on it.
type insectaMedal struct {
	Medal string        `json:"medal"`
	Level optional[int] `json:"level"`
}

// Evaluate decodes, validates and scores every board. All problems of all
// boards are collected so a form can mark every field at once.
func (g insecta) Evaluate(players []PlayerInput, variants map[string]int) (*Evaluation, error) {
	var verr ValidationError
	oneFragment := Variant(*specOf(g), variants, "oneFragment")
	var few [insectaMaxPlayers]insectaBoard // a table's boards, without an allocation up to the most players
	boards := append(few[:0], make([]insectaBoard, len(players))...)
	ok := make([]bool, len(players))
	sheets := make([]*totalsSheet, len(players))
	for i, p := range players {
		base := boardPointer(i)
		if sheet, isTotals := decodeTotals(p.Board, base, "Insecta", insectaTotals, &verr); isTotals {
			sheets[i] = sheet
			insectaCheckTotals(sheet, base, oneFragment, &verr)
			continue
		}
		decoded := new(insectaBoard) // through an interface: on the heap, and boards stays off it
		if err := DecodeBoard(p.Board, base, decoded); err != nil {
			insectaMerge(&verr, base, err)
			continue
		}
		boards[i], ok[i] = *decoded, true
		boards[i].validate(base, &verr)
	}
	insectaCheckResearchers(players, boards, ok, &verr)
	insectaCheckContinents(boards, ok, &verr)
	insectaCheckMedalCount(boards, ok, &verr)
	if err := verr.Err(); err != nil {
		return nil, err
	}
	ev := &Evaluation{Players: make([]Scored, len(players)), TotalLabel: "points"}
	// The boards' lines, tiebreaks and sources share three blocks.
	sources := 0
	for i := range boards {
		sources += insectaSources(&boards[i])
	}
	buf := insectaBuffers{
		sources:   make([]Source, 0, sources),
		lines:     make([]Line, len(insectaBreakdown)*len(boards)),
		tiebreaks: make([]Tiebreak, len(boards)),
	}
	for i := range boards {
		b := &boards[i]
		if sheets[i] != nil {
			// Totals are final: the player's word that the game is over.
			ev.Players[i] = sheets[i].score(boardPointer(i), len(insectaBreakdown))
			ev.Complete = true
			continue
		}
		ev.Players[i] = b.score(boardPointer(i), oneFragment, &buf)
		// "The end of the game triggers when a player places their 12th
		// Insect or Mail tile in their collection."
		if len(b.Tiles) >= insectaEndTiles {
			ev.Complete = true
		}
	}
	return ev, nil
}

// insectaCheckTotals adds the rule a sheet's range cannot say: fragments
// score one of the printed values, the first being the table's variant.
func insectaCheckTotals(sheet *totalsSheet, base string, oneFragment int, verr *ValidationError) {
	if sheet == nil {
		return
	}
	v, given := sheet.get("fragments")
	if !given || v < -1 || v > 9 { // out of range: already reported
		return
	}
	allowed := []int{0, oneFragment, insectaFragmentPoints(2, oneFragment), insectaFragmentPoints(3, oneFragment)}
	if !slices.Contains(allowed, v) {
		verr.Add(base+"/totals/fragments", "journal fragments score %d, %d, %d or %d points (none, 1, 2 or 3 fragments), not %d",
			allowed[0], allowed[1], allowed[2], allowed[3], v)
	}
}

// insectaMerge adds a decoding error to verr, keeping its pointers.
func insectaMerge(verr *ValidationError, base string, err error) {
	// An empty ValidationError must still block scoring: the board was not
	// decoded, so it cannot be scored.
	var ve *ValidationError
	if errors.As(err, &ve) && len(ve.Errors) > 0 {
		verr.Errors = append(verr.Errors, ve.Errors...)
		return
	}
	verr.Add(base, "the board is not valid: %s", err.Error())
}

// insectaCheckResearchers reports a researcher chosen by an earlier player
// too: in setup each player draws their own Researcher tile.
func insectaCheckResearchers(players []PlayerInput, boards []insectaBoard, ok []bool, verr *ValidationError) {
	var first [insectaMaxOptions]int // 1 + the player who has each researcher
	for i := range boards {
		r := insectaIndex(insectaResearchers, boards[i].Researcher)
		switch {
		case !ok[i] || r < 0:
		case first[r] == 0:
			first[r] = i + 1
		default:
			verr.Add(fmt.Sprintf("/players/%d/board/researcher", i),
				"%s is already the researcher of %s; each player draws their own researcher",
				insectaResearchers[r].Label, insectaWho(players, first[r]-1))
		}
	}
}

// insectaMaxOptions bounds the options of each of Insecta's vocabularies
// (the medals have the most, 17), so that a set of them fits a uint32.
const insectaMaxOptions = 32

// insectaCheckContinents bounds the insects of each continent across the
// table by the box's two piles (insectaPerContinent). The problem goes at
// the tile past the limit and names every tile of that continent.
func insectaCheckContinents(boards []insectaBoard, ok []bool, verr *ValidationError) {
	var count [5]int
	insectaContinentTiles(boards, ok, func(c, _, _ int) { count[c]++ })
	for c := range count {
		if count[c] <= insectaPerContinent {
			continue
		}
		// Pointers are built only for a continent past its limit.
		var ptrs []string
		insectaContinentTiles(boards, ok, func(tc, i, n int) {
			if tc == c {
				ptrs = append(ptrs, fmt.Sprintf("/players/%d/board/tiles/%d/continent", i, n))
			}
		})
		name, past := enumWord("insecta", "continent", insectaContinents[c]), ptrs[insectaPerContinent]
		ptrs = append([]string{past}, slices.Delete(ptrs, insectaPerContinent, insectaPerContinent+1)...)
		verr.AddAll(ptrs, "the box has %d insects from %s (a pile of 8 on camp A and 7 on camp B): at most %d at one table, and these collections hold %d",
			insectaPerContinent, name, insectaPerContinent, len(ptrs))
	}
}

// insectaContinentTiles calls f with the continent c of every Insect tile
// of the boards that decoded, the board i and the tile n.
func insectaContinentTiles(boards []insectaBoard, ok []bool, f func(c, i, n int)) {
	for i := range boards {
		if !ok[i] {
			continue
		}
		for n := range boards[i].Tiles {
			t := &boards[i].Tiles[n]
			if t.Kind != "insect" || !t.Continent.Given {
				continue
			}
			if c := insectaIndex(insectaContinents, t.Continent.Value); c >= 0 {
				f(c, i, n)
			}
		}
	}
}

// insectaCheckMedalCount bounds the medals claimed: each player has
// insectaMarkers markers to claim with, and only insectaGameMedals medals
// come into a game, so the claims of a table name no more different ones.
// Unknown medals are already reported and left out.
func insectaCheckMedalCount(boards []insectaBoard, ok []bool, verr *ValidationError) {
	var claimed uint32              // the medals claimed, a bit each
	crossBoard, crossMedal := -1, 0 // the claim past the limit
	for i, b := range boards {
		if !ok[i] {
			continue
		}
		if len(b.Medals) > insectaMarkers {
			ptrs := make([]string, 0, len(b.Medals))
			for n := range b.Medals {
				ptrs = append(ptrs, fmt.Sprintf("/players/%d/board/medals/%d", i, n))
			}
			past := ptrs[insectaMarkers]
			ptrs = append([]string{past}, slices.Delete(ptrs, insectaMarkers, insectaMarkers+1)...)
			verr.AddAll(ptrs, "a player has %d markers on the Researcher tile, one for each medal claimed: at most %d medals each, and this board claims %d",
				insectaMarkers, insectaMarkers, len(b.Medals))
		}
		for n := range b.Medals {
			if m := insectaIndex(insectaMedals, b.Medals[n].Medal); m >= 0 && claimed&(1<<m) == 0 {
				claimed |= 1 << m
				if bits.OnesCount32(claimed) == insectaGameMedals+1 {
					crossBoard, crossMedal = i, n
				}
			}
		}
	}
	if crossBoard < 0 {
		return
	}
	// Pointers are built only for a table past the limit.
	var all []string
	for i, b := range boards {
		for n, m := range b.Medals {
			if ok[i] && insectaIndex(insectaMedals, m.Medal) >= 0 && (i != crossBoard || n != crossMedal) {
				all = append(all, fmt.Sprintf("/players/%d/board/medals/%d/medal", i, n))
			}
		}
	}
	ptrs := append([]string{fmt.Sprintf("/players/%d/board/medals/%d/medal", crossBoard, crossMedal)}, all...)
	verr.AddAll(ptrs, "%d medals come into a game, 3 face down and 3 face up: at most %d different medals at one table, and these boards claim %d",
		insectaGameMedals, insectaGameMedals, bits.OnesCount32(claimed))
}

// insectaWho names player i for a message, falling back to their seat.
func insectaWho(players []PlayerInput, i int) string {
	if name := strings.TrimSpace(players[i].Name); name != "" {
		return name
	}
	return fmt.Sprintf("player %d", i+1)
}

// validate checks a decoded board against the rules and the enumerations.
func (b *insectaBoard) validate(base string, verr *ValidationError) {
	// An empty researcher is "not chosen yet" (a warning when scoring), so a
	// form can send its unselected value.
	if b.Researcher != "" {
		insectaCheckEnum(verr, base, "/researcher", "researcher", b.Researcher, insectaResearchers)
	}
	if b.Track < 0 || b.Track > insectaMaxTrack {
		verr.Add(base+"/track", "the scoring track runs from 0 to %d, not %d", insectaMaxTrack, b.Track)
	}
	if b.Fragments < 0 || b.Fragments > 3 {
		verr.Add(base+"/fragments", "a researcher's journal has 0 to 3 fragments, not %d", b.Fragments)
	}
	for n := range b.Tiles {
		// The tile's own pointer is put before the pointers of its
		// problems: a valid board builds none.
		before := len(verr.Errors)
		b.Tiles[n].validate(verr)
		verr.prefix(before, base, indexPointer(insectaTilePointers, "/tiles/", n))
	}
	b.validateLayout(base, verr)
	b.validateMedals(base, verr)
}

// validate checks one tile's own fields, below the tile's pointer (which
// the caller puts before the problems); its place among the others is
// checked by validateLayout.
func (t *insectaTile) validate(verr *ValidationError) {
	insectaCheckCoord(verr, "/row", "row", t.Row, insectaRows)
	insectaCheckCoord(verr, "/col", "column", t.Col, insectaCols)
	switch t.Kind {
	case "insect":
		t.validateInsect(verr)
	case "mail":
		t.validateMail(verr)
	case "":
		verr.Add("/kind", "say whether the tile is an insect or a mail")
	default:
		verr.Add("/kind", "%q is not a kind of tile; use insect or mail", t.Kind)
	}
}

// insectaCheckCoord requires a coordinate inside the collection's limit:
// "the size of the 6x4 grid must not be expanded".
func insectaCheckCoord(verr *ValidationError, ptr, what string, v optional[int], size int) {
	switch {
	case !v.Given:
		verr.Add(ptr, "give the tile's %s", term(what))
	case v.Value < 0 || v.Value >= size:
		verr.Add(ptr, "the collection is %d rows by %d columns, so a %s is 0 to %d, not %d",
			insectaRows, insectaCols, term(what), size-1, v.Value)
	}
}

func (t *insectaTile) validateInsect(verr *ValidationError) {
	insectaRequireEnum(verr, "/continent", "continent", t.Continent.Value, insectaContinents)
	insectaOptionalEnum(verr, "/order", "order", t.Order.Value, insectaOrders)
	insectaOptionalEnum(verr, "/size", "size", t.Size.Value, insectaSizes)
	// A wreath is optional: most insects are nobody's favourite.
	insectaOptionalEnum(verr, "/wreath", "researcher", t.Wreath.Value, insectaResearchers)
	if t.Name.Given && utf8.RuneCountInString(t.Name.Value) > insectaMaxInsectName {
		verr.Add("/name", "an insect's name can be at most %d characters", insectaMaxInsectName)
	}
	insectaForbid(verr, "an insect", "institution", t.Institution.Given)
	insectaForbid(verr, "an insect", "points", t.Points.Given)
	insectaForbid(verr, "an insect", "scored", t.Scored.Given)
}

func (t *insectaTile) validateMail(verr *ValidationError) {
	insectaOptionalEnum(verr, "/institution", "institution", t.Institution.Value, insectaInstitutions)
	if t.Points.Given && (t.Points.Value < 1 || t.Points.Value > insectaMaxMailPoints) {
		verr.Add("/points", "a mail is worth 1 to %d points, not %d", insectaMaxMailPoints, t.Points.Value)
	}
	insectaForbid(verr, "a mail", "name", t.Name.Given)
	insectaForbid(verr, "a mail", "continent", t.Continent.Given)
	insectaForbid(verr, "a mail", "order", t.Order.Given)
	insectaForbid(verr, "a mail", "size", t.Size.Given)
	insectaForbid(verr, "a mail", "wreath", t.Wreath.Given)
}

// insectaForbid reports a field that belongs to the other kind of tile, which
// usually means the kind was chosen wrongly.
func insectaForbid(verr *ValidationError, tile, field string, given bool) {
	if given {
		verr.Add("/"+field, "%s tile has no %q field; remove it or change the tile's kind", term(tile), field)
	}
}

// insectaRequireEnum checks a required enumerated field.
func insectaRequireEnum(verr *ValidationError, ptr, what, v string, opts []Option) {
	if v == "" {
		verr.Add(ptr, "choose the %s", term(what))
		return
	}
	insectaCheckEnum(verr, "", ptr, what, v, opts)
}

// insectaOptionalEnum checks an enumerated field that may be left out (not
// given, null or empty).
func insectaOptionalEnum(verr *ValidationError, ptr, what, v string, opts []Option) {
	if v != "" {
		insectaCheckEnum(verr, "", ptr, what, v, opts)
	}
}

// insectaCheckEnum reports a value that is not one of opts, listing them,
// at base+field: the pointer is built only for a problem.
func insectaCheckEnum(verr *ValidationError, base, field, what, v string, opts []Option) {
	if insectaIndex(opts, v) >= 0 {
		return
	}
	ids := make([]string, len(opts))
	for i, o := range opts {
		ids[i] = o.ID
	}
	verr.Add(base+field, "%q is not a known %s; use one of %s", v, term(what), strings.Join(ids, ", "))
}

// insectaIndex returns the position of id in opts, or -1.
func insectaIndex(opts []Option, id string) int {
	for i, o := range opts {
		if o.ID == id {
			return i
		}
	}
	return -1
}

// insectaMedalWord is the label of a medal as a word of a message.
func insectaMedalWord(id string) word {
	if i := insectaIndex(insectaMedals, id); i >= 0 {
		return enumWord("insecta", "medal", insectaMedals[i])
	}
	return word{}
}

// insectaLabel returns the label of id in opts, or "" when id is not there.
func insectaLabel(opts []Option, id string) string {
	for _, o := range opts {
		if o.ID == id {
			return o.Label
		}
	}
	return ""
}

// placed says where a tile lies and whether it can take part in the
// layout checks: a tile with a bad position or kind is already reported.
func (t insectaTile) placed() (row, col int, ok bool) {
	if !t.Row.Given || !t.Col.Given || (t.Kind != "insect" && t.Kind != "mail") {
		return 0, 0, false
	}
	row, col = t.Row.Value, t.Col.Value
	return row, col, row >= 0 && row < insectaRows && col >= 0 && col < insectaCols
}

// validateLayout reports tiles sharing a cell and tiles the placement rules
// could never have put where they are.
func (b *insectaBoard) validateLayout(base string, verr *ValidationError) {
	cells, overlaps := b.cells()
	for _, n := range overlaps {
		r, c, _ := b.Tiles[n].placed()
		verr.Add(fmt.Sprintf("%s/tiles/%d", base, n),
			"two tiles on one cell: tile %d already lies on row %d, column %d", cells[r][c]-1, r, c)
	}
	if b.Researcher == insectaDAumont {
		return // her ability can part a collection: a warning (see warnings)
	}
	for _, n := range b.looseTiles(&cells) {
		verr.Add(fmt.Sprintf("%s/tiles/%d", base, n), "this tile is not joined to the rest of the collection: %s",
			insectaPlacementRule(b.Tiles[n].Kind))
	}
}

// insectaDAumont is the researcher whose ability "Move 1 tile in your
// collection to an empty space" can leave a collection in pieces.
const insectaDAumont = "louise-caroline-daumont"

// cells lays the tiles out: each cell holds 1 + the index of the tile on
// it, 0 when empty. Tiles on a cell already taken are listed in overlaps.
func (b *insectaBoard) cells() (cells [insectaRows][insectaCols]int, overlaps []int) {
	for n, t := range b.Tiles {
		r, c, ok := t.placed()
		if !ok {
			continue
		}
		if cells[r][c] != 0 {
			overlaps = append(overlaps, n)
			continue
		}
		cells[r][c] = n + 1
	}
	return cells, overlaps
}

// looseTiles checks the placement rules on the final layout. Each
// rule links two tiles symmetrically (an insect and a mail side by side, two
// insects or two mails corner to corner), and every tile after the first
// needs a link to one placed before it. So a layout could have been built
// exactly when all tiles are linked into one group, and the tiles outside the
// largest group, which looseTiles returns, are the ones that break the rules.
func (b *insectaBoard) looseTiles(cells *[insectaRows][insectaCols]int) []int {
	// The groups are sets of cells (insectaBit), found in tile order, so
	// on a tie in size the group holding the earliest tile stays and the
	// later ones are reported.
	var insects, mails, grouped uint64
	for r := range cells {
		for c, n := range cells[r] {
			switch {
			case n == 0:
			case b.Tiles[n-1].Kind == "insect":
				insects |= insectaBit(r, c)
			default:
				mails |= insectaBit(r, c)
			}
		}
	}
	var groups [insectaRows * insectaCols]uint64
	count := 0
	for n := range b.Tiles {
		r, c, ok := b.Tiles[n].placed()
		if !ok || cells[r][c] != n+1 || grouped&insectaBit(r, c) != 0 {
			continue
		}
		groups[count] = insectaGroup(insectaBit(r, c), insects, mails)
		grouped |= groups[count]
		count++
	}
	if count < 2 {
		return nil
	}
	keep := groups[0]
	for _, g := range groups[1:count] {
		if bits.OnesCount64(g) > bits.OnesCount64(keep) {
			keep = g
		}
	}
	var out []int
	for n := range b.Tiles {
		if r, c, ok := b.Tiles[n].placed(); ok && cells[r][c] == n+1 && keep&insectaBit(r, c) == 0 {
			out = append(out, n)
		}
	}
	return out
}

// insectaBit is the cell on row r, column c in a set of cells: bit
// 8r+c. The columns past the sixth stay empty, so that a shift by a
// neighbour's offset never wraps a row's edge onto the next row.
func insectaBit(r, c int) uint64 { return 1 << (r*8 + c) }

// insectaGroup is the group of the tiles linked, directly or not, to the
// ones in group, given where the insects and the mails lie: an insect and
// a mail side by side, two insects or two mails corner to corner.
func insectaGroup(group, insects, mails uint64) uint64 {
	side := func(x uint64) uint64 { return x<<1 | x>>1 | x<<8 | x>>8 }
	corner := func(x uint64) uint64 { return x<<7 | x>>7 | x<<9 | x>>9 }
	for {
		i, m := group&insects, group&mails
		next := group | side(i)&mails | side(m)&insects | corner(i)&insects | corner(m)&mails
		if next == group {
			return group
		}
		group = next
	}
}

// insectaPlacementRule is the rulebook's placement rule for a kind of tile.
func insectaPlacementRule(kind string) string {
	if kind == "insect" {
		return "an insect must touch a mail orthogonally or an insect diagonally"
	}
	return "a mail must touch an insect orthogonally or a mail diagonally"
}

// validateMedals checks each claimed medal: a known id, claimed once (a
// second claim moves the marker on the same tile), and a marker level.
func (b *insectaBoard) validateMedals(base string, verr *ValidationError) {
	var seen uint32 // the medals listed, a bit each
	for n, m := range b.Medals {
		before := len(verr.Errors)
		const ptr = "" // the medal's pointer is put before its problems' at the end
		i := insectaIndex(insectaMedals, m.Medal)
		switch {
		case m.Medal == "":
			verr.Add(ptr+"/medal", "choose the medal")
		case i < 0:
			verr.Add(ptr+"/medal", "%q is not a medal; use for example continent:africa, order:coleoptera, size:small, institution:entomological-society or institution:any", m.Medal)
		case seen&(1<<i) != 0:
			verr.Add(ptr+"/medal", "%s is already listed; a medal is claimed once and its marker moved up later",
				enumWord("insecta", "medal", insectaMedals[i]))
		default:
			seen |= 1 << i
		}
		switch {
		case !m.Level.Given:
			verr.Add(ptr+"/level", "give the level of your marker on this medal")
		case m.Level.Value < 1 || m.Level.Value > insectaMaxMedalLevel:
			verr.Add(ptr+"/level", "a medal level is 1 to %d, not %d", insectaMaxMedalLevel, m.Level.Value)
		}
		verr.prefix(before, base, "/medals/"+strconv.Itoa(n))
	}
}

// score computes a valid board's final score, tiebreak and warnings, with
// the sources of each line: the track and the fragments, each wreathed
// insect, the first insect of each continent when all five are there, and
// one insect of each different name. They share one backing array.
func (b *insectaBoard) score(base string, oneFragment int, bufs *insectaBuffers) Scored {
	buf := bufs.take(insectaSources(b))
	trackSrc := insectaSource(&buf, "/track", b.Track, "")
	favStart := len(buf)
	favourites := 0
	var continents [5]int // 1 + the index of the first tile of each continent
	found := 0
	for n, t := range b.Tiles {
		if t.Kind != "insect" {
			continue
		}
		if c := insectaIndex(insectaContinents, t.Continent.Value); continents[c] == 0 {
			continents[c] = n + 1
			found++
		}
		if b.Researcher != "" && t.Wreath.Given && t.Wreath.Value == b.Researcher {
			favourites++
			buf = append(buf, Source{Pointer: indexPointer(insectaTilePointers, "/tiles/", n), Points: insectaPerFavourite,
				Label: strings.TrimSpace(t.Name.Value)})
		}
	}
	favSrc := buf[favStart:len(buf):len(buf)]
	bonus := 0
	contSrc := buf[len(buf):len(buf):len(buf)]
	if found == len(insectaContinents) {
		bonus = insectaFiveContinents
		for c, n := range continents {
			buf = append(buf, Source{Pointer: indexPointer(insectaTilePointers, "/tiles/", n-1), Points: 1, Label: insectaContinents[c].Label})
		}
		contSrc = buf[len(buf)-len(continents) : len(buf) : len(buf)]
	}
	fragments := insectaFragmentPoints(b.Fragments, oneFragment)
	fragSrc := insectaSource(&buf, "/fragments", fragments, "")
	points := [4]int{b.Track, insectaPerFavourite * favourites, bonus, fragments}
	sources := [4][]Source{trackSrc, favSrc, contSrc, fragSrc}
	s := Scored{Breakdown: bufs.lines[:len(points):len(points)], Tiebreaks: bufs.tiebreaks[:1:1]}
	bufs.lines, bufs.tiebreaks = bufs.lines[len(points):], bufs.tiebreaks[1:]
	for i, p := range points {
		s.Breakdown[i] = Line{Key: insectaBreakdown[i].ID, Label: insectaBreakdown[i].Label, Points: p, Sources: sources[i]}
		s.Total += p
	}
	distinct := b.distinctInsects(buf[len(buf):len(buf):cap(buf)])
	s.Tiebreaks[0] = Tiebreak{Key: insectaTiebreak.ID, Label: insectaTiebreak.Label, Value: len(distinct), Sources: distinct}
	s.Warnings = b.warnings(base)
	return s
}

// insectaSources bounds the sources of a board's score: the track and the
// fragments, a first insect of each continent, and for each tile at most
// a favourite and a different insect.
func insectaSources(b *insectaBoard) int {
	return 2 + len(insectaContinents) + 2*len(b.Tiles)
}

// insectaBuffers are the blocks the scores of a table's boards share.
type insectaBuffers struct {
	sources   []Source // the free capacity only
	lines     []Line
	tiebreaks []Tiebreak
}

// take returns an empty list with room for n sources, cut from the block.
func (bufs *insectaBuffers) take(n int) []Source {
	buf := bufs.sources[:0:n]
	bufs.sources = bufs.sources[n:n:cap(bufs.sources)]
	return buf
}

// insectaSource appends a source for points at ptr to buf, when there are
// any, and returns the one-element (or empty) list of it.
func insectaSource(buf *[]Source, ptr string, points int, label string) []Source {
	n := len(*buf)
	if points == 0 {
		return (*buf)[n:n:n]
	}
	*buf = append(*buf, Source{Pointer: ptr, Points: points, Label: label})
	return (*buf)[n : n+1 : n+1]
}

// insectaFragmentPoints reads the printed line "-1 / 4 / 9"; the value for a
// single fragment is the table's oneFragment variant.
func insectaFragmentPoints(fragments, oneFragment int) int {
	switch fragments {
	case 1:
		return oneFragment
	case 2:
		return 4
	case 3:
		return 9
	}
	return 0
}

// distinctInsects lists the "diversity of Insects with different names":
// one source per different insect, appended to src, labelled with its
// name. Names are folded like player names. A tile entered without a name
// stands for its species by what it shows: its continent and whichever of
// order and size were entered, kept apart from real names. So two unnamed
// Asian tiles without order and size count once, and differ from an
// unnamed small Asian beetle, which may be the same species: a missing
// trait never merges tiles that show different ones.
func (b *insectaBoard) distinctInsects(src []Source) []Source {
	// A species is a name, or an unnamed insect's traits, kept apart
	// from names. A collection holds at most 24 tiles, so the species
	// seen are compared one by one.
	type species struct {
		name                   string
		plain                  bool // plainName(name)
		unnamed                bool
		continent, order, size string
	}
	var kept [insectaRows * insectaCols]species
	seen := kept[:0]
	for n := range b.Tiles {
		t := &b.Tiles[n]
		if t.Kind != "insect" {
			continue
		}
		name := strings.TrimSpace(t.Name.Value)
		key := species{name: name, plain: plainName(name)}
		label := name
		if name == "" {
			order, size := t.Order.Value, t.Size.Value
			key = species{unnamed: true, continent: t.Continent.Value, order: order, size: size}
			label = insectaTraits(t.Continent.Value, order, size)
		}
		if slices.ContainsFunc(seen, func(s species) bool {
			if s.unnamed || key.unnamed {
				return s == key
			}
			return sameName(s.name, s.plain, key.name, key.plain)
		}) {
			continue
		}
		seen = append(seen, key)
		src = append(src, Source{Pointer: indexPointer(insectaTilePointers, "/tiles/", n), Points: 1, Label: label})
	}
	return src
}

// insectaTraits names an unnamed insect by what was entered of it:
// "Asia, Coleoptera, Small".
func insectaTraits(continent, order, size string) string {
	out := insectaLabel(insectaContinents, continent)
	if order != "" {
		out += ", " + insectaLabel(insectaOrders, order)
	}
	if size != "" {
		out += ", " + insectaLabel(insectaSizes, size)
	}
	return out
}

// warnings points at entries that are legal but look inconsistent. They do
// not block scoring: abilities and mid-game changes can explain them.
func (b *insectaBoard) warnings(base string) []FieldError {
	var w ValidationError // only for its Add; these are warnings
	if b.Researcher == "" && len(b.Tiles) > 0 {
		w.Add(base+"/researcher", "choose a researcher to count her favourite insects")
	}
	if b.Researcher == insectaDAumont {
		cells, _ := b.cells()
		for _, n := range b.looseTiles(&cells) {
			w.Add(fmt.Sprintf("%s/tiles/%d", base, n), "this tile is not joined to the rest of the collection: fine if "+
				"Louise-Caroline d'Aumont's ability \"Move 1 tile in your collection to an empty space\" moved a tile, "+
				"otherwise check where it lies (%s)", term(insectaPlacementRule(b.Tiles[n].Kind)))
		}
	}
	if scored := b.scoredMailPoints(); b.Track < scored {
		w.Add(base+"/track", "the scored mail tiles are worth %d points but the track shows %d; the track should include them", scored, b.Track)
	}
	for n, m := range b.Medals {
		// Tiles whose trait was left out might be the missing ones.
		if have, unknown := b.medalCount(m.Medal); m.Level.Value > have+unknown {
			w.Add(fmt.Sprintf("%s/medals/%d/level", base, n), "level %d on %s needs %d matching %s, but the collection has %d",
				m.Level.Value, insectaMedalWord(m.Medal), m.Level.Value, term(insectaMedalUnit(m.Medal)), have)
		}
	}
	return w.Errors
}

// scoredMailPoints sums the flipped Mail tiles, whose points went on the
// track; a mail entered without its points adds nothing.
func (b *insectaBoard) scoredMailPoints() int {
	sum := 0
	for _, t := range b.Tiles {
		if t.Kind == "mail" && t.scored() && t.Points.Given {
			sum += t.Points.Value
		}
	}
	return sum
}

// scored says whether a Mail tile was flipped; not saying means not yet.
func (t insectaTile) scored() bool { return t.Scored.Value }

// medalCount is the highest level the collection supports for a medal:
// insects with the medal's attribute, or completed (scored) Mail tiles.
// unknown counts the tiles that might have it but were entered without
// that trait (an insect's order or size, a mail's institution).
func (b *insectaBoard) medalCount(medal string) (have, unknown int) {
	attr, value, _ := strings.Cut(medal, ":")
	for _, t := range b.Tiles {
		var trait string
		switch {
		case t.Kind == "mail" && attr == "institution" && t.scored():
			if value == "any" {
				have++
				continue
			}
			trait = t.Institution.Value
		case t.Kind != "insect":
			continue
		case attr == "continent":
			trait = t.Continent.Value
		case attr == "order":
			trait = t.Order.Value
		case attr == "size":
			trait = t.Size.Value
		default:
			continue
		}
		switch trait {
		case value:
			have++
		case "":
			unknown++
		}
	}
	return have, unknown
}

// insectaMedalUnit names what a medal counts, for a warning.
func insectaMedalUnit(medal string) string {
	if strings.HasPrefix(medal, "institution:") {
		return "scored mail tiles"
	}
	return "insects"
}

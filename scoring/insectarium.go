package scoring

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Insectarium board limits. The rulebook prints no range for a specimen's
// point value; the cards carry a single printed digit, so 0–9 accepts every
// card while catching typos such as 34 for 3 and 4.
const (
	insectariumSize      = 3  // rows, columns and token circles of a display
	insectariumCards     = 9  // cards on a full display: the end of the game
	insectariumMaxPoints = 9  // highest printed point value we accept
	insectariumTokens    = 50 // type tokens in the box: no supply can hold more
	// The table shares 30 glass pieces and every bonus covers three tools,
	// so no display can have earned more than 10 bonuses.
	insectariumMaxBonuses = 10
	insectariumToolSet    = 5 // points for a Display Tool bonus taken as points
	insectariumPool       = 5 // tokens of each type in a multiplayer game
	insectariumSoloPool   = 3 // solo setup puts two of each type back in the box
)

var (
	insectariumColors = []Option{
		{"yellow", "Yellow"}, {"red", "Red"}, {"green", "Green"}, {"white", "White"}, {"black", "Black"},
	}
	insectariumInsects = []Option{
		{"butterfly", "Butterfly"}, {"cricket", "Cricket/Grasshopper"}, {"moth", "Moth"},
		{"bee", "Bee/Wasp/Hornet"}, {"beetle", "Beetle"},
	}
	insectariumTools = []Option{{"pin", "Pin"}, {"label", "Label"}, {"mat", "Mat backing"}}
)

// insectarium implements Game for Insectarium.
type insectarium struct{}

func init() { Register(insectarium{}) }

// insectariumCard is one specimen card on a display. A dragonfly is wild and
// has neither colour nor insect type.
type insectariumCard struct {
	Name   string   `json:"name"`
	Color  string   `json:"color"`
	Insect string   `json:"insect"`
	Points int      `json:"points"`
	Tools  []string `json:"tools"`
	Wild   bool     `json:"wild"`
}

// insectariumBoard is one player's display. Pointers let null mark an empty
// cell or an empty token circle; missing rows and cells are empty too, so a
// board can be entered while the game runs.
type insectariumBoard struct {
	Grid                 [][]*insectariumCard `json:"grid"`
	RowTokens            []*string            `json:"rowTokens"`
	ColTokens            []*string            `json:"colTokens"`
	Supply               int                  `json:"supply"`
	ToolBonusesForPoints int                  `json:"toolBonusesForPoints"`
	ToolBonusesForTokens int                  `json:"toolBonusesForTokens"`
}

// Spec describes Insectarium. It builds fresh slices on every call so that
// no caller can change the game's vocabulary for the others.
func (insectarium) Spec() Spec {
	return Spec{
		Info: Info{
			ID: "insectarium", Name: "Insectarium",
			MinPlayers: 1, MaxPlayers: 4,
			Unit: "game.insectarium.unit", End: "every display needs all 9 cards", Form: "games/insectarium.js",
		},
		Enums: map[string][]Option{
			"color":  slices.Clone(insectariumColors),
			"insect": slices.Clone(insectariumInsects),
			"token":  slices.Concat(insectariumColors, insectariumInsects),
			"tool":   slices.Clone(insectariumTools),
			// The solo chart's verdicts, in the rulebook's words.
			"soloRating": {
				{"try-again", "Try again"},
				{"decent", "Decent display board, considered for the Insectarium"},
				{"excellent", "Excellent display board, accepted for the Insectarium"},
				{"outstanding", "Outstanding display board: your name goes on the Insectarium plaque!"},
			},
		},
		Variants: []VariantSpec{},
		Grid:     &Grid{Rows: insectariumSize, Cols: insectariumSize},
		Breakdown: []Option{
			{"rows", "Rows"}, {"columns", "Columns"},
			{"supply", "Unused tokens"}, {"toolBonus", "Display Tool bonuses"},
		},
		Tiebreaks: []Option{{"displayTools", "display tools"}},
		Totals:    slices.Clone(insectariumTotals),
	}
}

// insectariumTotals is the totals sheet. Each maximum is what the box
// allows: a row or column holds 3 cards of at most 9 points, so the three
// rows (or columns) score at most 81; a supply holds at most the 50 tokens
// of the box, 25 points; the 30 glass pieces cover at most 10 bonuses of 5
// points; and 9 cards show at most 3 tools each.
var insectariumTotals = []TotalsField{
	{ID: "rows", Label: "Rows", Min: 0, Max: insectariumSize * insectariumSize * insectariumMaxPoints, Step: 1},
	{ID: "columns", Label: "Columns", Min: 0, Max: insectariumSize * insectariumSize * insectariumMaxPoints, Step: 1},
	{ID: "supply", Label: "Unused tokens", Min: 0, Max: insectariumTokens / 2, Step: 1},
	{ID: "toolBonus", Label: "Display Tool bonuses", Min: 0, Max: insectariumMaxBonuses * insectariumToolSet, Step: insectariumToolSet},
	{ID: "displayTools", Label: "display tools", Min: 0, Max: insectariumCards * len(insectariumTools), Step: 1},
}

// insectariumLines is the number of breakdown lines at the head of the
// totals sheet; the rest are tiebreaks.
const insectariumLines = 4

// insectariumCells are the pointers of the display's cells, "/grid/r/c".
var insectariumCells = func() (out [insectariumSize][insectariumSize]string) {
	for r := range insectariumSize {
		for c := range insectariumSize {
			out[r][c] = "/grid/" + strconv.Itoa(r) + "/" + strconv.Itoa(c)
		}
	}
	return out
}()

// Evaluate decodes and checks every board before scoring any, so that one
// answer lists every problem of the table.
func (insectarium) Evaluate(players []PlayerInput, _ map[string]int) (*Evaluation, error) {
	var verr ValidationError
	boards := make([]*insectariumBoard, len(players))
	sheets := make([]*totalsSheet, len(players))
	for i, p := range players {
		base := boardPointer(i)
		if sheet, ok := decodeTotals(p.Board, base, "Insectarium", insectariumTotals, &verr); ok {
			sheets[i] = sheet // no tokens or tools to check across the table
			continue
		}
		var b insectariumBoard
		if err := DecodeBoard(p.Board, base, &b); err != nil {
			insectariumAppend(&verr, base, err)
			continue // a half-decoded board would only add misleading errors
		}
		b.validate(base, &verr)
		boards[i] = &b
	}
	pool := insectariumPool
	if len(players) == 1 {
		pool = insectariumSoloPool
	}
	insectariumCheckPool(boards, pool, &verr)
	insectariumCheckGlass(boards, sheets, &verr)
	insectariumCheckBag(boards, sheets, pool, &verr)
	if err := verr.Err(); err != nil {
		return nil, err
	}

	ev := &Evaluation{Players: make([]Scored, len(boards)), Complete: len(boards) > 0, TotalLabel: "points"}
	for i, b := range boards {
		if sheets[i] != nil {
			// Totals are final: the player's display is full.
			ev.Players[i] = sheets[i].score(boardPointer(i), insectariumLines)
			if w, ok := insectariumSheetSets(boardPointer(i), sheets[i]); ok {
				ev.Players[i].Warnings = append(ev.Players[i].Warnings, w)
			}
			continue
		}
		ev.Players[i] = b.score(boardPointer(i))
		ev.Complete = ev.Complete && b.cardCount() == insectariumCards
	}
	// The chart is for the solo game only; Score hides it until the board
	// is complete, so it is set here even for a partial board.
	if len(boards) == 1 {
		ev.SoloRating = insectariumSoloRating(ev.Players[0].Total)
	}
	return ev, nil
}

// insectariumAppend adds a decoding error to verr, keeping its pointers.
func insectariumAppend(verr *ValidationError, base string, err error) {
	if v, ok := err.(*ValidationError); ok {
		verr.Errors = append(verr.Errors, v.Errors...)
		return
	}
	verr.Add(base, "the board is not valid: %v", err)
}

// insectariumSoloRating reads the solo chart. The printed chart skips 25
// ("<25", then "26-35"); DESIGN.md decides that 25 is try-again.
func insectariumSoloRating(total int) string {
	switch {
	case total <= 25:
		return "try-again"
	case total <= 35:
		return "decent"
	case total <= 42:
		return "excellent"
	default:
		return "outstanding"
	}
}

// validate checks the shape and values of a decoded board.
func (b *insectariumBoard) validate(base string, verr *ValidationError) {
	if len(b.Grid) > insectariumSize {
		verr.Add(base+"/grid/"+strconv.Itoa(insectariumSize), "a display has only %d rows", insectariumSize)
	}
	for r, row := range b.Grid {
		if len(row) > insectariumSize {
			verr.Add(fmt.Sprintf("%s/grid/%d/%d", base, r, insectariumSize), "a row of the display has only %d cards", insectariumSize)
		}
		for c, card := range row {
			if card == nil {
				continue
			}
			if r < insectariumSize && c < insectariumSize {
				card.validate(base+insectariumCells[r][c], verr)
			} else {
				card.validate(fmt.Sprintf("%s/grid/%d/%d", base, r, c), verr)
			}
		}
	}
	insectariumCheckTokens(b.RowTokens, base+"/rowTokens", "row", verr)
	insectariumCheckTokens(b.ColTokens, base+"/colTokens", "column", verr)
	switch {
	case b.Supply < 0:
		verr.Add(base+"/supply", "the number of unused tokens can't be negative")
	case b.Supply > insectariumTokens:
		verr.Add(base+"/supply", "the game has only %d tokens, so a supply can't hold %d", insectariumTokens, b.Supply)
	}
	insectariumCheckBonuses(b.ToolBonusesForPoints, base+"/toolBonusesForPoints", verr)
	insectariumCheckBonuses(b.ToolBonusesForTokens, base+"/toolBonusesForTokens", verr)
}

// validate checks one card. Only the fields that matter for its kind are
// checked: a dragonfly's points never count, so they are not judged.
func (c *insectariumCard) validate(ptr string, verr *ValidationError) {
	if c.Wild {
		if c.Color != "" {
			verr.Add(ptr+"/color", "a dragonfly is wild: leave colour and insect empty")
		}
		if c.Insect != "" {
			verr.Add(ptr+"/insect", "a dragonfly is wild: leave colour and insect empty")
		}
	} else {
		insectariumCheckEnum(c.Color, insectariumColors, ptr+"/color", "colour", "a colour", verr)
		insectariumCheckEnum(c.Insect, insectariumInsects, ptr+"/insect", "insect", "an insect type", verr)
		if c.Points < 0 || c.Points > insectariumMaxPoints {
			verr.Add(ptr+"/points", "a card is worth 0 to %d points, not %d", insectariumMaxPoints, c.Points)
		}
	}
	for k, tool := range c.Tools {
		switch {
		case !insectariumHas(insectariumTools, tool):
			verr.Add(ptr+"/tools/"+strconv.Itoa(k), "%q is not a display tool; use pin, label or mat", tool)
		case slices.Contains(c.Tools[:k], tool):
			verr.Add(ptr+"/tools/"+strconv.Itoa(k), "the %s is listed twice; a card shows each tool at most once",
				term(tool)) // the id reads as a word
		}
	}
}

// insectariumCheckEnum reports a missing or unknown colour or insect type.
func insectariumCheckEnum(v string, opts []Option, ptr, what, aWhat string, verr *ValidationError) {
	switch {
	case v == "":
		verr.Add(ptr, "choose the card's %s", term(what))
	case !insectariumHas(opts, v):
		verr.Add(ptr, "%q is not %s; use %s", v, term(aWhat), orList(insectariumList(opts)))
	}
}

// insectariumCheckTokens checks the token circles of one side of the display.
// An empty string is taken as an empty circle, as a form's blank choice.
func insectariumCheckTokens(toks []*string, ptr, line string, verr *ValidationError) {
	if len(toks) > insectariumSize {
		verr.Add(ptr+"/"+strconv.Itoa(insectariumSize), "a display has only %d %s token circles", insectariumSize, term(line))
	}
	for i, t := range toks {
		if t != nil && *t != "" && !insectariumIsToken(*t) {
			verr.Add(ptr+"/"+strconv.Itoa(i), "%q is not a token; use a colour (%s) or an insect (%s)",
				*t, orList(insectariumList(insectariumColors)), orList(insectariumList(insectariumInsects)))
		}
	}
}

// insectariumCheckBonuses bounds a count of Display Tool bonuses.
func insectariumCheckBonuses(n int, ptr string, verr *ValidationError) {
	switch {
	case n < 0:
		verr.Add(ptr, "the number of bonuses can't be negative")
	case n > insectariumMaxBonuses:
		verr.Add(ptr, "the game's glass pieces cover at most %d sets of tools, so %d bonuses can't be right", insectariumMaxBonuses, n)
	}
}

// insectariumCheckPool counts the placed tokens of each type across the
// table, in request order, and flags each token beyond what the bag holds.
// Boards that failed to decode are nil and skipped.
func insectariumCheckPool(boards []*insectariumBoard, pool int, verr *ValidationError) {
	placed := map[string]int{}
	for i, b := range boards {
		if b == nil {
			continue
		}
		for _, side := range []struct {
			key  string
			toks []*string
		}{{"rowTokens", b.RowTokens}, {"colTokens", b.ColTokens}} {
			for k, t := range side.toks[:min(len(side.toks), insectariumSize)] {
				if t == nil || !insectariumIsToken(*t) {
					continue // empty, or already reported as unknown
				}
				if placed[*t] >= pool {
					verr.Add(fmt.Sprintf("/players/%d/board/%s/%d", i, side.key, k),
						"only %d %s tokens are in the game; the boards already hold %d", pool, term(*t), pool)
				}
				placed[*t]++
			}
		}
	}
}

// insectariumCount is a number above 0 entered on one board, at its pointer.
type insectariumCount struct {
	ptr string
	n   int
}

// insectariumOverLimit reports counts that add up to more than limit across
// the table: the message goes at the count that crosses the limit and names
// every count in Pointers.
func insectariumOverLimit(counts []insectariumCount, limit int, verr *ValidationError, format string) {
	sum := 0
	for _, c := range counts {
		sum += c.n
	}
	if sum <= limit {
		return
	}
	run, cross := 0, 0
	for k, c := range counts {
		if run += c.n; run > limit {
			cross = k
			break
		}
	}
	ptrs := []string{counts[cross].ptr}
	for k, c := range counts {
		if k != cross {
			ptrs = append(ptrs, c.ptr)
		}
	}
	verr.AddAll(ptrs, format, limit, sum)
}

// insectariumCheckGlass bounds the Display Tool bonuses of the whole table:
// "A Glass Piece must be used to cover each Tool used for the bonus", three
// per bonus, and the box has "30 Glass Pieces". Bonuses taken as points and
// as tokens both count; a totals sheet gives those taken as points. Counts
// out of range are already reported and left out.
func insectariumCheckGlass(boards []*insectariumBoard, sheets []*totalsSheet, verr *ValidationError) {
	var counts []insectariumCount
	add := func(ptr string, n int) {
		if n > 0 && n <= insectariumMaxBonuses {
			counts = append(counts, insectariumCount{ptr, n})
		}
	}
	for i := range boards {
		base := boardPointer(i)
		switch {
		case boards[i] != nil:
			add(base+"/toolBonusesForPoints", boards[i].ToolBonusesForPoints)
			add(base+"/toolBonusesForTokens", boards[i].ToolBonusesForTokens)
		case sheets[i] != nil:
			if v, ok := sheets[i].get("toolBonus"); ok && v%insectariumToolSet == 0 {
				add(base+"/totals/toolBonus", v/insectariumToolSet)
			}
		}
	}
	insectariumOverLimit(counts, insectariumMaxBonuses, verr,
		"the box has 30 glass pieces: at most %d bonuses at one table, and these boards claim %d")
}

// insectariumCheckBag bounds the type tokens of the whole table: the box
// has "50 Type Tokens" and solo setup leaves "two tokens of each type (20
// tokens total)" in the box, so the tokens placed on the displays and left
// in the supplies add up to at most 50, or 30 in solo. A totals sheet
// scores a point per two unused tokens, so it holds at least twice its
// points. Supplies out of range are already reported and left out.
func insectariumCheckBag(boards []*insectariumBoard, sheets []*totalsSheet, pool int, verr *ValidationError) {
	var counts []insectariumCount
	for i := range boards {
		base := boardPointer(i)
		if b := boards[i]; b != nil {
			for _, side := range []struct {
				key  string
				toks []*string
			}{{"/rowTokens/", b.RowTokens}, {"/colTokens/", b.ColTokens}} {
				for k, t := range side.toks[:min(len(side.toks), insectariumSize)] {
					if t != nil && insectariumIsToken(*t) {
						counts = append(counts, insectariumCount{base + side.key + strconv.Itoa(k), 1})
					}
				}
			}
			if b.Supply > 0 && b.Supply <= insectariumTokens {
				counts = append(counts, insectariumCount{base + "/supply", b.Supply})
			}
		} else if sheets[i] != nil {
			if v, ok := sheets[i].get("supply"); ok && v > 0 && v <= insectariumTokens/2 {
				counts = append(counts, insectariumCount{base + "/totals/supply", 2 * v})
			}
		}
	}
	box := "the box has 50 type tokens: at most %d placed and unused at one table, and these boards hold %d"
	if len(boards) == 1 {
		box = "the box has 50 type tokens and solo play leaves 20 of them in the box: at most %d placed and unused, and this board holds %d"
	}
	insectariumOverLimit(counts, pool*(len(insectariumColors)+len(insectariumInsects)), verr, box)
}

// score totals a valid board. base points the tool warning at the board.
// Sources point at the cards that scored in each line, the supply, the
// bonuses taken as points, and the cards whose tools count for the
// tiebreak; all of them share one backing array.
func (b *insectariumBoard) score(base string) Scored {
	const cells = insectariumCards
	buf := make([]Source, 3*cells+2)
	rowSrc, colSrc := buf[:0:cells], buf[cells:][:0:cells]
	var rows, cols int
	for i := range insectariumSize {
		rows += b.line(insectariumToken(b.RowTokens, i), i, false, &rowSrc)
		cols += b.line(insectariumToken(b.ColTokens, i), i, true, &colSrc)
	}
	other := buf[2*cells:][:0:2]
	supply := b.Supply / 2
	supplySrc := insectariumSource(&other, "/supply", supply)
	bonus := insectariumToolSet * b.ToolBonusesForPoints
	bonusSrc := insectariumSource(&other, "/toolBonusesForPoints", bonus)
	s := Scored{
		Total: rows + cols + supply + bonus,
		Breakdown: []Line{
			{Key: "rows", Label: "Rows", Points: rows, Sources: rowSrc},
			{Key: "columns", Label: "Columns", Points: cols, Sources: colSrc},
			{Key: "supply", Label: "Unused tokens", Points: supply, Sources: supplySrc},
			{Key: "toolBonus", Label: "Display Tool bonuses", Points: bonus, Sources: bonusSrc},
		},
		Warnings: []FieldError{},
	}
	toolSrc := buf[2*cells+2:][:0:cells]
	tools := b.toolCounts(&toolSrc)
	s.Tiebreaks = []Tiebreak{{Key: "displayTools", Label: "display tools", Value: tools[0] + tools[1] + tools[2], Sources: toolSrc}}
	if w, ok := b.bonusWarning(base, tools); ok {
		s.Warnings = append(s.Warnings, w)
	}
	return s
}

// insectariumSource appends a source for points at ptr to buf, when there
// are any, and returns the one-element (or empty) list of it.
func insectariumSource(buf *[]Source, ptr string, points int) []Source {
	if points == 0 {
		return (*buf)[len(*buf):len(*buf)]
	}
	*buf = append(*buf, Source{Pointer: ptr, Points: points})
	return (*buf)[len(*buf)-1 : len(*buf) : len(*buf)]
}

// line scores row i, or column i when column is true, under token,
// appending a source for every card that scores to src.
func (b *insectariumBoard) line(token string, i int, column bool, src *[]Source) int {
	sum := 0
	for k := range insectariumSize {
		row, col := i, k
		if column {
			row, col = k, i
		}
		if p := insectariumCardPoints(token, b.card(row, col)); p != 0 {
			sum += p
			*src = append(*src, Source{Pointer: insectariumCells[row][col], Points: p})
		}
	}
	return sum
}

// bonusWarning flags more bonuses than full tool sets on the final display.
// It is only a warning: gear cards can move cards away after a bonus.
func (b *insectariumBoard) bonusWarning(base string, tools [3]int) (FieldError, bool) {
	sets := min(tools[0], tools[1], tools[2])
	taken := b.ToolBonusesForPoints + b.ToolBonusesForTokens
	if taken <= sets {
		return FieldError{}, false
	}
	ptr := base + "/toolBonusesForPoints"
	if b.ToolBonusesForPoints == 0 {
		ptr = base + "/toolBonusesForTokens"
	}
	return newFieldError(ptr,
		"%d Display Tool bonuses are claimed, but the display shows only %d full sets of pin, label and mat; "+
			"fine if a gear card moved cards, otherwise check the count", taken, sets), true
}

// insectariumSheetSets warns, as a board's check does, when a totals sheet
// claims more Display Tool bonuses as points than its display tools can
// make full sets of (pin, label and mat: three tools a set). A sheet
// without its display tools cannot tell, and says nothing.
func insectariumSheetSets(base string, s *totalsSheet) (FieldError, bool) {
	points, _ := s.get("toolBonus")
	tools, given := s.get("displayTools")
	taken := points / insectariumToolSet
	if !given || taken == 0 || taken <= tools/len(insectariumTools) {
		return FieldError{}, false
	}
	return newFieldError(base+"/"+totalsMember+"/toolBonus",
		"%d Display Tool bonuses are claimed, but %d display tools make only %d full sets of pin, label and mat; "+
			"fine if a gear card moved cards, otherwise check the count", taken, tools, tools/len(insectariumTools)), true
}

// card returns the card at row r, column c, or nil for an empty cell.
func (b *insectariumBoard) card(r, c int) *insectariumCard {
	if r >= len(b.Grid) || c >= len(b.Grid[r]) {
		return nil
	}
	return b.Grid[r][c]
}

// cardCount counts the cards on the display, to tell a full board.
func (b *insectariumBoard) cardCount() int {
	n := 0
	for r := range insectariumSize {
		for c := range insectariumSize {
			if b.card(r, c) != nil {
				n++
			}
		}
	}
	return n
}

// toolCounts counts each display tool on the board (pin, label, mat),
// covered or not: the rulebook's tiebreak counts both, and glass pieces are
// not entered. It appends a source to src for each card with tools.
func (b *insectariumBoard) toolCounts(src *[]Source) [3]int {
	var counts [3]int
	for r := range insectariumSize {
		for c := range insectariumSize {
			card := b.card(r, c)
			if card == nil || len(card.Tools) == 0 {
				continue
			}
			for _, t := range card.Tools {
				counts[slices.IndexFunc(insectariumTools, func(o Option) bool { return o.ID == t })]++
			}
			*src = append(*src, Source{Pointer: insectariumCells[r][c], Points: len(card.Tools)})
		}
	}
	return counts
}

// insectariumToken returns the token of circle i, or "" for none.
func insectariumToken(toks []*string, i int) string {
	if i >= len(toks) || toks[i] == nil {
		return ""
	}
	return *toks[i]
}

// insectariumCardPoints is what one card (nil for an empty cell) earns in a
// line under token ("" for none): a card matching the token by colour or
// insect earns its points, a dragonfly earns 1, and a line without a token
// earns nothing.
func insectariumCardPoints(token string, c *insectariumCard) int {
	switch {
	case token == "" || c == nil:
		return 0
	case c.Wild:
		return 1
	case c.Color == token || c.Insect == token:
		return c.Points
	}
	return 0
}

func insectariumIsToken(id string) bool {
	return insectariumHas(insectariumColors, id) || insectariumHas(insectariumInsects, id)
}

func insectariumHas(opts []Option, id string) bool {
	return slices.ContainsFunc(opts, func(o Option) bool { return o.ID == id })
}

// insectariumList names the ids of opts for a message: "a, b or c".
func insectariumList(opts []Option) string {
	var out strings.Builder
	for i, o := range opts {
		switch {
		case i == 0:
		case i == len(opts)-1:
			out.WriteString(" or ")
		default:
			out.WriteString(", ")
		}
		out.WriteString(o.ID)
	}
	return out.String()
}

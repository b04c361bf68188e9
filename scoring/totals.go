package scoring

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A totals sheet is the score pad beside the board replica (issue 8): a
// player may enter their board as {"totals": {"<id>": <int>, …}}, one value
// per line of the game's Spec.Totals. A breakdown key holds that line's
// points and a tiebreak key its tiebreak value. The sheet is checked as
// strictly as a board (each value within its line's range and step, plus
// the game's own rules), ranked like a board, and taken as final: a
// player who enters totals says their game is over.

// TotalsField is one line of a game's totals sheet and the values it can
// take: Min to Max in steps of Step from Min.
type TotalsField struct {
	ID    string `json:"id"`
	Label string `json:"label"`
	Min   int    `json:"min"`
	Max   int    `json:"max"`
	Step  int    `json:"step"`
}

// totalsMember is the one member of a board entered as totals.
const totalsMember = "totals"

// totalsSheet is a decoded totals board: the value of each field of the
// game's sheet, in the sheet's order, and whether it was given.
type totalsSheet struct {
	game   string // the game's name, for messages
	fields []TotalsField
	values []int
	given  []bool
}

// get returns the value of the field id and whether it was given.
func (s *totalsSheet) get(id string) (int, bool) {
	for i, f := range s.fields {
		if f.ID == id {
			return s.values[i], s.given[i]
		}
	}
	return 0, false
}

// decodeTotals reports whether raw is a board entered as totals, that is a
// JSON object with a "totals" member. If it is, it decodes the sheet and
// checks it against fields, adding every problem to verr with a pointer
// below base; the caller adds the game's own rules and knows the sheet is
// valid when verr grew by nothing. Boards of the other shape cost one scan
// of their bytes.
func decodeTotals(raw []byte, base, game string, fields []TotalsField, verr *ValidationError) (*totalsSheet, bool) {
	if !bytes.Contains(raw, []byte(`"`+totalsMember+`"`)) {
		return nil, false
	}
	var members map[string]jsontext.Value
	if jsonv2.Unmarshal(raw, &members, decodeOptions) != nil {
		return nil, false // not an object: the board decoder says why
	}
	inner, ok := members[totalsMember]
	if !ok {
		return nil, false // "totals" is only text inside the board
	}
	for _, k := range sortedKeys(members) {
		if k != totalsMember {
			verr.Add(base+"/"+escapePointer(k), "a board entered as totals holds nothing but %q: remove %q, or the totals to enter the board", totalsMember, k)
		}
	}
	base += "/" + totalsMember
	var values map[string]jsontext.Value
	if err := DecodeBoard(inner, base, &values); err != nil {
		verr.Errors = append(verr.Errors, err.(*ValidationError).Errors...)
		return nil, true
	}
	s := &totalsSheet{game: game, fields: fields, values: make([]int, len(fields)), given: make([]bool, len(fields))}
	for i, f := range fields {
		v, ok := values[f.ID]
		if !ok {
			continue
		}
		ptr := base + "/" + f.ID
		if err := DecodeBoard(v, ptr, &s.values[i]); err != nil {
			verr.Errors = append(verr.Errors, err.(*ValidationError).Errors...)
			continue
		}
		// A form's empty field may be sent as null: not given.
		s.given[i] = string(bytes.TrimSpace(v)) != "null"
		if s.given[i] {
			f.check(ptr, game, s.values[i], verr)
		}
	}
	for _, k := range sortedKeys(values) {
		if !slices.ContainsFunc(fields, func(f TotalsField) bool { return f.ID == k }) {
			verr.Add(base+"/"+escapePointer(k), "%q is not a line of the %s totals sheet; use %s", k, game, orList(totalsIDs(fields)))
		}
	}
	return s, true
}

// check reports a value the field cannot take.
func (f TotalsField) check(ptr, game string, v int, verr *ValidationError) {
	switch {
	case v < f.Min || v > f.Max:
		verr.Add(ptr, "%s can be %d to %d, not %d", f.word(game), f.Min, f.Max, v)
	case f.Step > 1 && f.Max-f.Min == f.Step && (v-f.Min)%f.Step != 0:
		verr.Add(ptr, "%s is either %d or %d, not %d", f.word(game), f.Min, f.Max, v)
	case f.Step > 1 && (v-f.Min)%f.Step != 0:
		verr.Add(ptr, "%s is a multiple of %d, not %d", f.word(game), f.Step, v)
	}
}

// score turns a valid sheet into a player's score: the first len(lines)
// fields are the breakdown, summed into the total, and the rest the
// tiebreak chain. A tiebreak left out counts as 0, and a warning says so.
func (s *totalsSheet) score(base string, lines int) Scored {
	sc := Scored{
		Breakdown: make([]Line, lines),
		Tiebreaks: make([]Tiebreak, len(s.fields)-lines),
		Warnings:  []FieldError{},
		Totals:    true,
	}
	for i, f := range s.fields {
		v := s.values[i]
		sources := []Source{}
		if v != 0 {
			sources = []Source{{Pointer: "/" + totalsMember + "/" + f.ID, Points: v}}
		}
		if i < lines {
			sc.Breakdown[i] = Line{Key: f.ID, Label: f.Label, Points: v, Sources: sources}
			sc.Total += v
			continue
		}
		sc.Tiebreaks[i-lines] = Tiebreak{Key: f.ID, Label: f.Label, Value: v, Sources: sources}
		if !s.given[i] {
			sc.Warnings = append(sc.Warnings, newFieldError(base+"/"+totalsMember+"/"+f.ID,
				"no %s entered: counted as 0 for the tiebreak", f.word(s.game)))
		}
	}
	return sc
}

// word is f's label as a word of a message about the totals sheet of the
// game named game.
func (f TotalsField) word(game string) word {
	return word{key: f.ID, en: f.Label, totals: strings.ToLower(game)}
}

// totalsIDs lists the ids of a sheet for a message: "a, b or c".
func totalsIDs(fields []TotalsField) string {
	ids := make([]string, len(fields))
	for i, f := range fields {
		ids[i] = f.ID
	}
	if len(ids) < 2 {
		return strings.Join(ids, "")
	}
	return strings.Join(ids[:len(ids)-1], ", ") + " or " + ids[len(ids)-1]
}

// sortedKeys returns the keys of m in order, so messages come in the same
// order on every run (and in the browser's engine).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// boardPointer is the pointer of player i's board in a request.
func boardPointer(i int) string {
	if i < len(boardPointers) {
		return boardPointers[i]
	}
	return "/players/" + strconv.Itoa(i) + "/board"
}

// boardPointers are the first boards' pointers, built once so that
// scoring a table does not build them.
var boardPointers = func() (out [8]string) {
	for i := range out {
		out[i] = "/players/" + strconv.Itoa(i) + "/board"
	}
	return out
}()

// indexPointers returns prefix+"0" … prefix+(n-1), the pointers of a
// list's elements, built once so that scoring a board does not build them.
func indexPointers(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = prefix + strconv.Itoa(i)
	}
	return out
}

// indexPointer is pointers[i], or the pointer built for an index beyond.
func indexPointer(pointers []string, prefix string, i int) string {
	if i < len(pointers) {
		return pointers[i]
	}
	return prefix + strconv.Itoa(i)
}

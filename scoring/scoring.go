// Package scoring holds the rules of the three games: how a final board is
// validated and scored, and how ties are broken; and the OpenSkill rating
// of players across plays. It is pure: standard library only, no clock, no
// I/O, so every rule can be tested as a table of boards, and the same code
// runs in the browser as WebAssembly (cmd/insectscore-engine).
//
// A game is one file that registers itself with Register in an init function.
// Score runs the checks every game shares (player count, names, variants),
// asks the game to evaluate the boards, and then ranks the players by total
// and by the game's tiebreak chain.
package scoring

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Info names a game and its player counts, and says what the server and
// the app need to know of it beyond its boards: what its total counts,
// when a table of it is over, whether it is played move by move, and
// which form the app enters its boards with. Nothing outside the game's
// own file knows these of any game: they read its Info.
type Info struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	MinPlayers int    `json:"minPlayers"`
	MaxPlayers int    `json:"maxPlayers"`
	// Unit is the catalog key of what a total counts ("game.<id>.unit":
	// "points"), as sentences about a total write it.
	Unit string `json:"unit"`
	// WinsOnly says the game is won without points: its totals are not a
	// score to compare across plays, so the leaderboard counts its wins
	// alone, and an export to BG Stats marks its plays as without points.
	WinsOnly bool `json:"winsOnly"`
	// End says, in the words of the rules, when a game is over: a table
	// refuses to finish earlier, and says this.
	End string `json:"end"`
	// Tracked says a live table of the game is played move by move: the
	// game has a Tracker (TrackerOf), as Register checks.
	Tracked bool `json:"tracked"`
	// Form is the app's module for entering a board, as a path below
	// assets/ ("games/<id>.js"): the app loads it, and the service
	// worker keeps it for offline use.
	Form string `json:"form"`
}

// EndWord is End for a message, translated by the catalog key
// game.<id>.end.
func (i Info) EndWord() any { return word{key: "game." + i.ID + ".end", en: i.End} }

// Option is one value of an enumeration, with the label a form shows for it.
type Option struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// VariantSpec describes a house rule a table may switch on, with the values
// it accepts. Default is the value used when the variant is not given.
type VariantSpec struct {
	Key     string `json:"key"`
	Label   string `json:"label"`
	Default int    `json:"default"`
	Values  []int  `json:"values"`
}

// Grid is the size of a board laid out in rows and columns.
type Grid struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// Spec is everything a form needs to enter a board of one game, so that
// clients hard-code none of the game's vocabulary.
type Spec struct {
	Info
	// Enums maps an enumeration name (for example "color") to its values in
	// the order a form should show them.
	Enums map[string][]Option `json:"enums"`
	// Variants lists the house rules the game supports.
	Variants []VariantSpec `json:"variants"`
	// Grid is the board's fixed layout, if it has one.
	Grid *Grid `json:"grid,omitempty"`
	// Breakdown lists the keys and labels of the score categories in order.
	Breakdown []Option `json:"breakdown"`
	// Tiebreaks lists the keys and labels of the tiebreak chain in order.
	Tiebreaks []Option `json:"tiebreaks"`
	// Totals is the game's totals sheet: its breakdown keys, then its
	// tiebreak keys, each with the values a board entered as totals may
	// give it (see totals.go).
	Totals []TotalsField `json:"totals"`
}

// PlayerInput is one player's name and raw board as sent by a client. The
// board is decoded by the game, so that each game owns its board format.
type PlayerInput struct {
	Name  string          `json:"name"`
	Board json.RawMessage `json:"board"`
}

// Request is a set of boards to score together, as at one table. It is
// also the body of a score request (POST /api/v1/games/{id}/score).
type Request struct {
	Players  []PlayerInput  `json:"players"`
	Variants map[string]int `json:"variants"`
}

// Line is one category of a player's score.
type Line struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Points int    `json:"points"`
	// Sources are the board positions that made the line. Score always
	// sets it (empty when nothing scored); results stored before it
	// existed have none, hence omitzero.
	Sources []Source `json:"sources,omitzero"`
}

// Tiebreak is a player's value in one step of the tiebreak chain; higher wins.
type Tiebreak struct {
	Key   string `json:"key"`
	Label string `json:"label"`
	Value int    `json:"value"`
	// Sources are the board positions the value counts, as for Line.
	Sources []Source `json:"sources,omitzero"`
}

// Source is one board position behind a score line or a tiebreak value,
// so that a client can show why a player scored what they did without
// knowing the rules.
type Source struct {
	// Pointer is a JSON Pointer into the player's board ("/grid/0/1",
	// "/tiles/3", "/totals/rows").
	Pointer string `json:"pointer"`
	// Points is what the position adds to the line or tiebreak value; the
	// sources of a line add up to its points. A game lists only positions
	// that add something, so it is never 0.
	Points int `json:"points,omitempty"`
	// Label names the position in a few words where the pointer alone
	// says little: what a tiebreak counts, for example.
	Label string `json:"label,omitempty"`
}

// How a player's board was entered: PlayerResult.Entered.
const (
	EnteredBoard  = "board"  // the board itself: cards, tiles, floors
	EnteredTotals = "totals" // the game's totals sheet ({"totals": {…}})
)

// FieldError ties a message to the place in the request it is about, as a
// JSON Pointer (RFC 6901). It is used for errors and for warnings alike.
type FieldError struct {
	Pointer string `json:"pointer"`
	Detail  string `json:"detail"`
	// Pointers, when set, lists every field a problem of the whole table
	// is about (a limit of the box summed over several boards), Pointer
	// among them; Pointer alone stays the one place to put the message.
	Pointers []string `json:"pointers,omitempty"`
	// msg is Detail as a Message, so that Catalog.FieldErrors can write
	// it in another language. A FieldError read back from JSON has none
	// until its stored message is put back (Result.SetMessages); without
	// one it stays as it is.
	msg Message
}

// FieldErrorOf is the problem m at pointer.
func FieldErrorOf(pointer string, m Message) FieldError {
	return FieldError{Pointer: pointer, Detail: m.String(), msg: m}
}

// Message is fe's detail as a message: the zero Message when fe was read
// back from JSON without one.
func (fe FieldError) Message() Message { return fe.msg }

// ValidationError lists everything wrong with a request. Games collect all
// problems rather than stopping at the first, so a form can mark each field.
type ValidationError struct {
	Errors []FieldError
}

func (e *ValidationError) Error() string {
	if len(e.Errors) == 0 {
		return "invalid input"
	}
	parts := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		parts[i] = fe.Pointer + ": " + fe.Detail
	}
	return strings.Join(parts, "; ")
}

// newFieldError is the problem of the rules at pointer, as Add records it.
func newFieldError(pointer, format string, args ...any) FieldError {
	return FieldErrorOf(pointer, rules(format, args...))
}

// Add records a problem of the rules at pointer: format is its English
// fmt format, and its key is "rules." + format.
func (e *ValidationError) Add(pointer, format string, args ...any) {
	e.Errors = append(e.Errors, newFieldError(pointer, format, args...))
}

// AddMessage records the problem m at pointer.
func (e *ValidationError) AddMessage(pointer string, m Message) {
	e.Errors = append(e.Errors, FieldErrorOf(pointer, m))
}

// AddAll records a problem about several fields at once: it is shown at
// the first pointer and names all of them in Pointers.
func (e *ValidationError) AddAll(pointers []string, format string, args ...any) {
	fe := newFieldError(pointers[0], format, args...)
	fe.Pointers = pointers
	e.Errors = append(e.Errors, fe)
}

// prefix puts base+ptr before the pointers of the problems from the
// from-th on. A part of a request can so be checked below "", and its
// whole pointer is built only for a problem it has.
func (e *ValidationError) prefix(from int, base, ptr string) {
	for i := from; i < len(e.Errors); i++ {
		e.Errors[i].Pointer = base + ptr + e.Errors[i].Pointer
	}
}

// Err returns the problems of e as an error if it holds any, and nil
// otherwise. The error is a ValidationError of its own, so that e can
// stay a local variable of the caller instead of escaping to the heap.
func (e *ValidationError) Err() error {
	if len(e.Errors) == 0 {
		return nil
	}
	return &ValidationError{Errors: e.Errors}
}

// Scored is what a game computes for one player.
type Scored struct {
	Total     int
	Breakdown []Line
	// Tiebreaks are compared in order after the total; higher is better.
	Tiebreaks []Tiebreak
	Warnings  []FieldError
	// Totals says the board was entered as a totals sheet.
	Totals bool
}

// Evaluation is a game's verdict on a whole table of boards.
type Evaluation struct {
	// Players holds one entry per input player, in the request's order.
	Players []Scored
	// Complete says whether every board meets the game's end condition.
	Complete bool
	// SoloRating is set by games with a solo chart when one player plays.
	SoloRating string
	// TotalLabel names the total in sentences ("points").
	TotalLabel string
}

// Game is the rules of one title.
type Game interface {
	// Spec describes the game and the vocabulary of its boards.
	Spec() Spec
	// Evaluate decodes, validates and scores every board. Player count,
	// names and variant keys are already checked against the Spec. Errors
	// are a *ValidationError with pointers into the request
	// ("/players/0/board/…").
	Evaluate(players []PlayerInput, variants map[string]int) (*Evaluation, error)
}

// PlayerResult is one player's score, in the API's shape.
type PlayerResult struct {
	Name      string       `json:"name"`
	Total     int          `json:"total"`
	Rank      int          `json:"rank"`
	Winner    bool         `json:"winner"`
	Breakdown []Line       `json:"breakdown"`
	Tiebreaks []Tiebreak   `json:"tiebreaks"`
	Warnings  []FieldError `json:"warnings"`
	// Entered is EnteredBoard or EnteredTotals. Always set by Score;
	// results stored before it existed have none.
	Entered string `json:"entered,omitempty"`
}

// Result is the scored table, in the API's shape.
type Result struct {
	Game     string         `json:"game"`
	Complete bool           `json:"complete"`
	Winners  []int          `json:"winners"`
	Results  []PlayerResult `json:"results"`
	// Tiebreak explains in words how a tie for first place was settled, or
	// that it was shared. Empty when there was no tie for first.
	Tiebreak   string `json:"tiebreak,omitempty"`
	SoloRating string `json:"soloRating,omitempty"`
	// tie is Tiebreak as a message, for Catalog.Result to write it in
	// another language; a Result read back from JSON has it only once
	// its stored messages are put back (SetMessages).
	tie Message
}

// MaxNameLength is the longest player name accepted, in characters.
const MaxNameLength = 40

// registry holds every game by id, with its Spec built once: the spec a
// game's Spec method returns is the caller's own copy to change, and
// building it for every score request was a fifth of the request's work.
var registry = map[string]registered{}

// specs is the registered Spec of each game, keyed by the game itself, so
// that Score finds it without building it. Nothing may change it.
var specs = map[Game]*Spec{}

// registered is a game and its Spec as built at registration.
type registered struct {
	game Game
	spec *Spec
}

// Register makes a game available by its id. It panics on a duplicate id
// or an Info that leaves out what the server and the app read (its unit,
// end condition and form) or says Tracked of a game without a Tracker or
// the other way round: programming errors caught at start-up.
func Register(g Game) {
	spec := g.Spec()
	if _, dup := registry[spec.ID]; dup {
		panic("scoring: game registered twice: " + spec.ID)
	}
	if spec.Unit == "" || spec.End == "" || spec.Form == "" {
		panic("scoring: game " + spec.ID + " has no unit, end condition or form in its Info")
	}
	if _, ok := TrackerOf(g); ok != spec.Tracked {
		panic("scoring: game " + spec.ID + " says Tracked and has no Tracker, or the other way round")
	}
	registry[spec.ID] = registered{game: g, spec: &spec}
	specs[g] = &spec
}

// Tracker is the rules of a game played move by move at a live table. A
// game that is has a method Tracker returning it (TrackerOf); its table's
// boards are then what its moves built.
type Tracker interface {
	// ReadMove decodes one move as a client sends it, strictly as
	// DecodeRequest does, and returns it as it is to be kept.
	ReadMove(body []byte) (json.RawMessage, error)
	// Replay sets the table up from the seats' boards (players, in seat
	// order, with first the seat that starts) and plays the moves, each as
	// ReadMove returned it, in order. An illegal move stops the replay
	// with a *ValidationError pointing into it ("/moves/3/card"); a seat
	// not set up is one pointing into the seat ("/players/1/…").
	Replay(players []PlayerInput, first int, moves []json.RawMessage) (Tracked, error)
}

// Tracked is a table played move by move, after its moves. It is sent
// to clients as JSON beside the table.
type Tracked interface {
	// Next is the seat whose move is next.
	Next() int
	// Boards are the seats' boards as the moves built them.
	Boards() []json.RawMessage
	// In is the state as sent to clients, in c's language.
	In(c Catalog) any
}

// TrackerOf returns the tracker of a game played move by move.
func TrackerOf(g Game) (Tracker, bool) {
	tg, ok := g.(interface{ Tracker() Tracker })
	if !ok {
		return nil, false
	}
	return tg.Tracker(), true
}

// GameIDs lists the registered games' ids in order, as a message that
// asks to choose a game names them.
func GameIDs() []string {
	return sortedKeys(registry)
}

// specOf is g's Spec, shared and read-only: the one built at registration,
// or a fresh one for a game that was never registered (as in tests).
func specOf(g Game) *Spec {
	if s, ok := specs[g]; ok {
		return s
	}
	s := g.Spec()
	return &s
}

// Lookup returns the game with the given id.
func Lookup(id string) (Game, bool) {
	r, ok := registry[id]
	return r.game, ok
}

// InfoOf returns the Info of the game with the given id, without building
// its Spec.
func InfoOf(id string) (Info, bool) {
	r, ok := registry[id]
	if !ok {
		return Info{}, false
	}
	return r.spec.Info, true
}

// Find returns the game with the given id, or a 404 RequestError.
func Find(id string) (Game, error) {
	g, ok := Lookup(id)
	if !ok {
		return nil, requestErrorf(404, "there is no game %q", id)
	}
	return g, nil
}

// GameList is the list of games as GET /api/v1/games answers it.
func GameList() []Info {
	games := Games()
	out := make([]Info, len(games))
	for i, g := range games {
		out[i] = specOf(g).Info
	}
	return out
}

// Games returns every registered game, ordered by id.
func Games() []Game {
	ids := sortedKeys(registry)
	out := make([]Game, len(ids))
	for i, id := range ids {
		out[i] = registry[id].game
	}
	return out
}

// CheckVariants validates variant keys and values against a game's spec.
func CheckVariants(spec Spec, variants map[string]int) error {
	var verr ValidationError
	keys := make([]string, 0, len(variants))
	for k := range variants {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		i := slices.IndexFunc(spec.Variants, func(v VariantSpec) bool { return v.Key == k })
		if i < 0 {
			verr.Add("/variants/"+escapePointer(k), "%s has no variant %q", spec.Name, k)
			continue
		}
		if !slices.Contains(spec.Variants[i].Values, variants[k]) {
			verr.Add("/variants/"+escapePointer(k), "%s must be one of %v", k, spec.Variants[i].Values)
		}
	}
	return verr.Err()
}

// Variant returns the value of a variant, or its default when not given.
func Variant(spec Spec, variants map[string]int, key string) int {
	if v, ok := variants[key]; ok {
		return v
	}
	for _, v := range spec.Variants {
		if v.Key == key {
			return v.Default
		}
	}
	return 0
}

// Score validates and scores a request for game g and ranks the players.
func Score(g Game, req Request) (*Result, error) {
	spec := specOf(g)
	var verr ValidationError
	switch n := len(req.Players); {
	case n == 0:
		verr.Add("/players", "add at least one player")
	case n > spec.MaxPlayers:
		verr.Add("/players", "%s is for at most %d players, not %d", spec.Name, spec.MaxPlayers, n)
	}
	var names nameIndex
	for i, p := range req.Players {
		name := strings.TrimSpace(p.Name)
		if msg := NameProblem(name); !msg.IsZero() {
			verr.AddMessage(namePointer(i), msg)
		} else if j, dup := names.add(name, i); dup {
			verr.Add(namePointer(i), "%q is already player %d; give each player their own name", name, j+1)
		}
	}
	if err := CheckVariants(*spec, req.Variants); err != nil {
		verr.Errors = append(verr.Errors, err.(*ValidationError).Errors...)
	}
	if err := verr.Err(); err != nil {
		return nil, err
	}
	ev, err := g.Evaluate(req.Players, req.Variants)
	if err != nil {
		return nil, err
	}
	if len(ev.Players) != len(req.Players) {
		return nil, fmt.Errorf("scoring: %s evaluated %d boards for %d players", spec.ID, len(ev.Players), len(req.Players))
	}
	complete := ev.Complete && len(req.Players) >= spec.MinPlayers
	res := rank(spec.ID, req.Players, ev, complete)
	if complete && len(req.Players) == 1 {
		res.SoloRating = ev.SoloRating
	}
	return res, nil
}

// ScoreJSON scores the body of a score request for the game with the
// given id, as POST /api/v1/games/{id}/score and the browser's engine do:
// an unknown game is a 404 and a missing or malformed body a 400
// (RequestError), wrong fields and broken rules a 422 (ValidationError).
func ScoreJSON(gameID string, body []byte) (*Result, error) {
	g, err := Find(gameID)
	if err != nil {
		return nil, err
	}
	var req Request
	if err := DecodeRequest(body, &req); err != nil {
		return nil, err
	}
	return Score(g, req)
}

// NameKey folds a player name for comparison: case-insensitive, with runs of
// white space treated as one space, ends trimmed, and characters that show
// nothing (zero-width spaces and joiners, format and control characters)
// left out, so "A\u200bna" is "Ana". It is the one way names are matched:
// at a table, in a play, and to a group's players. The server brings names
// to Unicode NFC before it matches them.
func NameKey(name string) string {
	if plainName(name) {
		return strings.ToLower(name)
	}
	name = strings.Map(func(r rune) rune {
		if invisible(r) {
			return -1
		}
		return r
	}, name)
	return strings.ToLower(strings.Join(strings.Fields(name), " "))
}

// plainName says whether NameKey has nothing to fold in name but case:
// printable ASCII (so nothing invisible, and no white space but the
// space), single spaces, and no space at either end. Most names are.
func plainName(name string) bool {
	prev := byte(' ') // as if a space came before: none may start the name
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c < ' ' || c > '~' || c == ' ' && prev == ' ' {
			return false
		}
		prev = c
	}
	return name == "" || prev != ' ' // nor end it
}

// sameName says whether NameKey(a) == NameKey(b), given whether each
// is a plainName, without building the keys of plain names: two plain
// names are the same when they differ at most in case.
func sameName(a string, aPlain bool, b string, bPlain bool) bool {
	if aPlain && bPlain {
		return strings.EqualFold(a, b)
	}
	return NameKey(a) == NameKey(b)
}

// namePointer points at player i's name.
func namePointer(i int) string {
	return "/players/" + strconv.Itoa(i) + "/name"
}

// nameIndex finds, for each name added, the last one added before it
// with the same NameKey. The first few are compared pair by pair, as
// sameName builds no key for plain names; past them, all go by key into
// a map.
type nameIndex struct {
	few [8]struct {
		name  string
		plain bool
		i     int
	}
	n    int
	keys map[string]int
}

// add adds player i's name and returns the last player before with the
// same name, if any.
func (x *nameIndex) add(name string, i int) (j int, dup bool) {
	if x.keys == nil && x.n < len(x.few) {
		plain := plainName(name)
		for k := x.n - 1; k >= 0; k-- {
			if e := &x.few[k]; sameName(e.name, e.plain, name, plain) {
				j, dup = e.i, true
				break
			}
		}
		e := &x.few[x.n]
		e.name, e.plain, e.i = name, plain, i
		x.n++
		return j, dup
	}
	if x.keys == nil {
		x.keys = make(map[string]int)
		for _, e := range x.few[:x.n] {
			x.keys[NameKey(e.name)] = e.i
		}
	}
	key := NameKey(name)
	j, dup = x.keys[key]
	x.keys[key] = i
	return j, dup
}

// better reports whether a beats b by total and then the tiebreak chain.
func better(a, b Scored) int {
	if a.Total != b.Total {
		return a.Total - b.Total
	}
	for i := range min(len(a.Tiebreaks), len(b.Tiebreaks)) {
		if d := a.Tiebreaks[i].Value - b.Tiebreaks[i].Value; d != 0 {
			return d
		}
	}
	return 0
}

// rank assigns competition ranks ("1, 1, 3"): a player's rank is one more
// than the number of players strictly ahead after total and tiebreaks.
func rank(game string, players []PlayerInput, ev *Evaluation, complete bool) *Result {
	res := &Result{Game: game, Complete: complete, Winners: make([]int, 0, len(players)), Results: make([]PlayerResult, len(players))}
	for i, s := range ev.Players {
		r := 1
		for j, o := range ev.Players {
			if j != i && better(o, s) > 0 {
				r++
			}
		}
		entered := EnteredBoard
		if s.Totals {
			entered = EnteredTotals
		}
		res.Results[i] = PlayerResult{
			Name:      strings.TrimSpace(players[i].Name),
			Total:     s.Total,
			Rank:      r,
			Breakdown: nonNil(s.Breakdown),
			Tiebreaks: nonNil(s.Tiebreaks),
			Warnings:  nonNil(s.Warnings),
			Entered:   entered,
		}
		for k := range res.Results[i].Breakdown {
			l := &res.Results[i].Breakdown[k]
			l.Sources = nonNil(l.Sources)
		}
		for k := range res.Results[i].Tiebreaks {
			tb := &res.Results[i].Tiebreaks[k]
			tb.Sources = nonNil(tb.Sources)
		}
		if complete && r == 1 {
			res.Results[i].Winner = true
			res.Winners = append(res.Winners, i)
		}
	}
	if complete {
		res.tie = explainTie(res, ev.TotalLabel)
		if !res.tie.IsZero() {
			res.Tiebreak = res.tie.String()
		}
	}
	return res
}

// explainTie says how players level on total at the top were separated,
// or that they share the win, or is the zero Message when no one was
// level: total names what the total counts ("points"), its words keyed
// by the game's unit and tiebreak labels.
func explainTie(res *Result, total string) Message {
	if len(res.Results) < 2 {
		return Message{}
	}
	players := res.Results
	top := players[0].Total
	for _, p := range players {
		top = max(top, p.Total)
	}
	var level []int
	for i, p := range players {
		if p.Total == top {
			level = append(level, i)
		}
	}
	if len(level) < 2 {
		return Message{}
	}
	if total == "" {
		total = "points"
	}
	g := "game." + res.Game + "."
	unit := word{key: g + "unit", en: total}
	// Walk the chain until the level group splits.
	for step := range len(players[level[0]].Tiebreaks) {
		best := players[level[0]].Tiebreaks[step].Value
		for _, i := range level {
			best = max(best, players[i].Tiebreaks[step].Value)
		}
		var ahead, behind []int
		for _, i := range level {
			if players[i].Tiebreaks[step].Value == best {
				ahead = append(ahead, i)
			} else {
				behind = append(behind, i)
			}
		}
		if len(behind) == 0 {
			continue
		}
		tb := players[ahead[0]].Tiebreaks[step]
		label := word{key: g + "tiebreak." + tb.Key, en: tb.Label}
		var others []string
		for _, i := range behind {
			others = append(others, fmt.Sprintf("%d", players[i].Tiebreaks[step].Value))
		}
		if len(ahead) > 1 {
			return rules("%s share the tie on %d %s: %d %s to %s", joinNames(namesOf(res, ahead)), top, unit, tb.Value, label, strings.Join(others, ", "))
		}
		return rules("%s wins the tie on %d %s: %d %s to %s", players[ahead[0]].Name, top, unit, tb.Value, label, strings.Join(others, ", "))
	}
	return rules("%s share the victory: level on %d %s and on every tiebreak", joinNames(namesOf(res, level)), top, unit)
}

func namesOf(res *Result, idx []int) []string {
	out := make([]string, len(idx))
	for k, i := range idx {
		out[k] = res.Results[i].Name
	}
	return out
}

// joinNames lists two or more names: "Ana, Bo and Cy".
func joinNames(names []string) Message {
	return rules("%s and %s", strings.Join(names[:len(names)-1], ", "), names[len(names)-1])
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// escapePointer escapes a JSON Pointer reference token (RFC 6901 §3).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

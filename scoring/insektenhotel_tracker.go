package scoring

import (
	"encoding/json"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
)

// The live tracker follows an Insektenhotel game turn by turn. The physical
// cards stay on the table: each move says which card a player turned over,
// and the tracker checks it against the rules and the cards still in the
// deck. A game is a setup plus a move log, and its state is a pure function
// of the two, so undo is replaying all moves but the last.

// Card kinds: the six species first, in hotelSpecies order, then the rest.
const (
	hotelHoney = iota + 6
	hotelCockroach
	hotelSpider
	hotelKinds
)

// hotelBox is how many cards of each kind the box holds: 72 in all.
var hotelBox = hotelCards{6, 6, 6, 6, 6, 6, 20, 8, 8}

// hotelCards counts cards by kind.
type hotelCards [hotelKinds]int

func (c *hotelCards) total() int {
	n := 0
	for _, k := range c {
		n += k
	}
	return n
}

// HotelSetup is who plays, in turn order, and each seat's hotel as
// printed. First is the seat that starts: "The starting player is the
// player who was the last to stay in a hotel"; seat 0 when not given.
type HotelSetup struct {
	Players []HotelSeat `json:"players"`
	First   int         `json:"first,omitempty"`
}

// HotelSeat is one player and their hotel: its colour and the species of its
// three floors, which differ between the printed hotels.
type HotelSeat struct {
	Name   string    `json:"name"`
	Hotel  string    `json:"hotel"`
	Floors [3]string `json:"floors"`
}

// HotelMove is one action of the player whose turn it is.
//
//	{"type": "draw", "card": "bee"}             a tourist, "honey" or "cockroach"
//	{"type": "draw", "card": "spider", "evict": {"player": 1, "species": "fly"}}
//	{"type": "draw", "card": "spider"}          when no single guest can be scared
//	{"type": "lure", "target": 1, "species": "ant"}
//	{"type": "pass"}                            after at least one draw
type HotelMove struct {
	Type    string      `json:"type"`
	Card    string      `json:"card,omitempty"`
	Evict   *HotelEvict `json:"evict,omitempty"`
	Target  int         `json:"target,omitempty"`
	Species string      `json:"species,omitempty"`
}

// HotelEvict names the single guest a spider scares away: the seat whose
// hotel it leaves and its species.
type HotelEvict struct {
	Player  int    `json:"player"`
	Species string `json:"species"`
}

// HotelState is the game after a list of moves, in the shape clients get.
// What lies face down in the personal piles is unexported: remembering it
// is the game.
type HotelState struct {
	// Turn is the seat whose turn it is; after the game it stays the winner's.
	Turn int `json:"turn"`
	// Round counts from 1 and goes up each time the turn comes back to the
	// first seat.
	Round int `json:"round"`
	// First is the seat that started.
	First int `json:"first"`
	// Drawn is how many cards the current player has drawn this turn: a lure
	// needs 0, a pass at least 1.
	Drawn    int           `json:"drawn"`
	Players  []HotelPlayer `json:"players"`
	Deck     int           `json:"deck"`
	Discard  int           `json:"discard"`
	Finished bool          `json:"finished"`
	// Winner is the seat whose hotel filled first, or -1.
	Winner int `json:"winner"`
	// Log has one sentence (or two, when the deck was reshuffled) per move.
	Log []string `json:"log"`
	// lines are the sentences of Log as messages, for Catalog.Hotel to
	// write them in another language.
	lines [][]Message

	deck    hotelCards
	discard hotelCards
}

// HotelPlayer is one seat's hotel and the cards in front of them.
type HotelPlayer struct {
	Name   string       `json:"name"`
	Hotel  string       `json:"hotel"`
	Floors []HotelFloor `json:"floors"`
	Guests int          `json:"guests"`
	// Honey is every honey card held; HoneyUsable the part collected before
	// this round, which alone can pay for a lure.
	Honey       int `json:"honey"`
	HoneyUsable int `json:"honeyUsable"`
	// Pile is the size of the face-down pile, never its content.
	Pile int `json:"pile"`

	pile       []int // species of the face-down cards, bottom first
	freshHoney int   // honey collected in round freshRound
	freshRound int
}

// ReplayHotel checks the setup, then plays the moves in order. The first
// illegal move stops the replay with a *ValidationError pointing at it
// ("/moves/3/card"); setup problems point into the setup ("/players/1/hotel").
func ReplayHotel(setup HotelSetup, moves []HotelMove) (*HotelState, error) {
	s, err := newHotelState(setup)
	if err != nil {
		return nil, err
	}
	for i, m := range moves {
		if err := s.apply(fmt.Sprintf("/moves/%d", i), m); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// Boards returns each seat's hotel as an insektenhotel board, so standings
// come from the same engine as stateless scoring.
func (s *HotelState) Boards() []json.RawMessage {
	out := make([]json.RawMessage, len(s.Players))
	for i, p := range s.Players {
		// Strings and ints only: Marshal cannot fail here.
		out[i], _ = jsonv2.Marshal(hotelBoard{Hotel: p.Hotel, Floors: p.Floors}, asEncodingJSON)
	}
	return out
}

// ScoreRequest returns the names and boards of the table, ready for Score.
func (s *HotelState) ScoreRequest() Request {
	boards := s.Boards()
	req := Request{Players: make([]PlayerInput, len(s.Players))}
	for i, p := range s.Players {
		req.Players[i] = PlayerInput{Name: p.Name, Board: boards[i]}
	}
	return req
}

// Tracker makes Insektenhotel a game played move by move: a live table
// records its draws, lures and passes, and its hotels are what they built.
func (insektenhotel) Tracker() Tracker { return hotelTracker{} }

// hotelTracker is Insektenhotel's Tracker, over ReplayHotel.
type hotelTracker struct{}

// ReadMove decodes a HotelMove strictly and keeps it as encoded again.
func (hotelTracker) ReadMove(body []byte) (json.RawMessage, error) {
	var m HotelMove
	if err := DecodeRequest(body, &m); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// Replay sets up each seat's hotel from its board (its colour and the
// species of its floors; a board that does not decode sets up nothing)
// and plays the moves.
func (hotelTracker) Replay(players []PlayerInput, first int, moves []json.RawMessage) (Tracked, error) {
	setup := HotelSetup{Players: make([]HotelSeat, len(players)), First: first}
	for i, p := range players {
		var b struct {
			Hotel  string `json:"hotel"`
			Floors []struct {
				Species string `json:"species"`
			} `json:"floors"`
		}
		_ = json.Unmarshal(p.Board, &b)
		seat := HotelSeat{Name: p.Name, Hotel: b.Hotel}
		for f := range min(len(b.Floors), 3) {
			seat.Floors[f] = b.Floors[f].Species
		}
		setup.Players[i] = seat
	}
	list := make([]HotelMove, len(moves))
	for i, m := range moves {
		if err := json.Unmarshal(m, &list[i]); err != nil {
			return nil, fmt.Errorf("scoring: move %d: %w", i, err)
		}
	}
	s, err := ReplayHotel(setup, list)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Next is the seat whose turn it is.
func (s *HotelState) Next() int { return s.Turn }

// In is the state with its log in c's language (Catalog.Hotel).
func (s *HotelState) In(c Catalog) any { return c.Hotel(s) }

// newHotelState checks the setup and deals nothing: the whole box is the
// deck until cards are drawn.
func newHotelState(setup HotelSetup) (*HotelState, error) {
	var verr ValidationError
	if n := len(setup.Players); n < 2 || n > len(hotelColours) {
		verr.Add("/players", "Insektenhotel is for 2 to %d players, not %d", len(hotelColours), n)
	}
	s := &HotelState{Round: 1, Winner: -1, Log: []string{}, deck: hotelBox}
	if n := len(setup.Players); setup.First < 0 || setup.First >= max(n, 1) {
		verr.Add("/first", "the first player is a seat of the table, 0 to %d, not %d", max(n, 1)-1, setup.First)
	} else {
		s.First, s.Turn = setup.First, setup.First
	}
	names := map[string]int{}
	colours := map[string]int{}
	for i, seat := range setup.Players {
		base := fmt.Sprintf("/players/%d", i)
		hotelCheckSeatName(&verr, base, seat.Name, names, i)
		hotelCheckSeatHotel(&verr, base, setup.Players, colours, i)
		p := HotelPlayer{Name: strings.TrimSpace(seat.Name), Hotel: seat.Hotel, Floors: make([]HotelFloor, len(seat.Floors))}
		for j, sp := range seat.Floors {
			p.Floors[j] = HotelFloor{Species: sp}
		}
		s.Players = append(s.Players, p)
	}
	if err := verr.Err(); err != nil {
		return nil, err
	}
	s.publish()
	return s, nil
}

// hotelCheckSeatName wants a name other players can be told apart by, as
// the log and the messages use it.
func hotelCheckSeatName(verr *ValidationError, base, name string, seen map[string]int, i int) {
	name = strings.TrimSpace(name)
	if msg := NameProblem(name); !msg.IsZero() {
		verr.AddMessage(base+"/name", msg)
	} else {
		if j, dup := seen[NameKey(name)]; dup {
			verr.Add(base+"/name", "%q is already player %d; give each player their own name", name, j+1)
		}
		seen[NameKey(name)] = i
	}
}

// hotelCheckSeatHotel wants a hotel of its own colour with three different
// species, since the tracker places tourists by species.
func hotelCheckSeatHotel(verr *ValidationError, base string, seats []HotelSeat, colours map[string]int, i int) {
	seat := seats[i]
	switch j, taken := colours[seat.Hotel]; {
	case hotelIndex(hotelColours, seat.Hotel) < 0:
		verr.Add(base+"/hotel", "%q is not a hotel: choose %s", seat.Hotel, orList(hotelChoices(hotelColours)))
	case taken:
		verr.Add(base+"/hotel", "the %s hotel is already %s's: each player runs a hotel of their own colour", hotelWord(seat.Hotel), hotelWho(seats[j].Name, j))
	default:
		colours[seat.Hotel] = i
	}
	for j, sp := range seat.Floors {
		ptr := fmt.Sprintf("%s/floors/%d", base, j)
		switch {
		case sp == "":
			verr.Add(ptr, "choose the species this floor is for")
		case hotelIndex(hotelSpecies, sp) < 0:
			verr.Add(ptr, "%q is not an Insektenhotel species: choose %s", sp, orList(hotelChoices(hotelSpecies)))
		case hotelFloorOf(seat.Floors[:j], sp) >= 0:
			verr.Add(ptr, "this hotel already has a floor for %s: its three floors are for three different species", term(hotelPlural(sp)))
		}
	}
}

// hotelFloorOf returns the floor of species sp, or -1.
func hotelFloorOf(floors []string, sp string) int {
	for j, f := range floors {
		if f == sp {
			return j
		}
	}
	return -1
}

// apply checks one move completely before changing anything, so a rejected
// move leaves the state as it was.
func (s *HotelState) apply(base string, m HotelMove) error {
	if s.Finished {
		w := s.Players[s.Winner]
		return hotelErr(base, "the game is over: %s filled the %s hotel first", w.Name, hotelWord(w.Hotel))
	}
	var err error
	switch m.Type {
	case "draw":
		err = s.draw(base, m)
	case "lure":
		err = s.lure(base, m)
	case "pass":
		err = s.pass(base, m)
	default:
		err = hotelErr(base+"/type", "a move is \"draw\", \"lure\" or \"pass\", not %q", m.Type)
	}
	if err == nil {
		s.publish()
	}
	return err
}

// hotelErr is a ValidationError with a single problem.
func hotelErr(ptr, format string, args ...any) error {
	var verr ValidationError
	verr.Add(ptr, format, args...)
	return &verr
}

// publish refreshes the counts clients see from the hidden card positions.
func (s *HotelState) publish() {
	s.Deck = s.deck.total()
	s.Discard = s.discard.total()
	for i := range s.Players {
		p := &s.Players[i]
		p.Guests = hotelGuests(p.Floors)
		p.Pile = len(p.pile)
		p.HoneyUsable = p.usableHoney(s.Round)
	}
}

// usableHoney is the honey collected before round: the rulebook lets honey
// lure only "in later rounds".
func (p *HotelPlayer) usableHoney(round int) int {
	if p.freshRound == round {
		return p.Honey - p.freshHoney
	}
	return p.Honey
}

// gainHoney adds one honey card collected in round.
func (p *HotelPlayer) gainHoney(round int) {
	if p.freshRound != round {
		p.freshHoney, p.freshRound = 0, round
	}
	p.Honey++
	p.freshHoney++
}

// endTurn passes the turn clockwise; back at the first seat a new round
// starts.
func (s *HotelState) endTurn() {
	s.Drawn = 0
	s.Turn = (s.Turn + 1) % len(s.Players)
	if s.Turn == s.First {
		s.Round++
	}
}

// place puts a guest on floor f of seat i's hotel. The first full hotel ends
// the game at once, so place reports whether this one did.
func (s *HotelState) place(i, f int) bool {
	s.Players[i].Floors[f].Guests++
	if hotelIsFull(s.Players[i].Floors) {
		s.Finished, s.Winner, s.Turn = true, i, i
		return true
	}
	return false
}

// freeFloor returns the floor of seat i with a free room for species k, or -1.
func (s *HotelState) freeFloor(i, k int) int {
	for f, fl := range s.Players[i].Floors {
		if fl.Species == hotelSpecies[k].ID && fl.Guests < hotelRooms {
			return f
		}
	}
	return -1
}

// hotelKind returns the card kind of an id, or -1.
func hotelKind(card string) int {
	if k := hotelIndex(hotelSpecies, card); k >= 0 {
		return k
	}
	switch card {
	case "honey":
		return hotelHoney
	case "cockroach":
		return hotelCockroach
	case "spider":
		return hotelSpider
	}
	return -1
}

// hotelCardName names a card kind with its article, for sentences.
func hotelCardName(k int) string {
	switch k {
	case hotelHoney:
		return "a honey card"
	case hotelCockroach:
		return "a cockroach"
	case hotelSpider:
		return "a spider"
	}
	return hotelWithArticle(hotelSpecies[k].ID)
}

// hotelCardID is the move vocabulary's name of a card kind.
func hotelCardID(k int) string {
	switch k {
	case hotelHoney:
		return "honey"
	case hotelCockroach:
		return "cockroach"
	case hotelSpider:
		return "spider"
	}
	return hotelSpecies[k].ID
}

// hotelCheckFields rejects the fields a move type does not use, so that a
// move log never carries a value that was silently ignored.
func hotelCheckFields(verr *ValidationError, base string, m HotelMove) {
	draw, lure := m.Type == "draw", m.Type == "lure"
	if !draw && m.Card != "" {
		verr.Add(base+"/card", "only a draw names a card")
	}
	if !draw && m.Evict != nil {
		verr.Add(base+"/evict", "only a spider that was drawn scares a guest away")
	}
	if !lure && m.Target != 0 {
		verr.Add(base+"/target", "only a lure names a target player")
	}
	if !lure && m.Species != "" {
		verr.Add(base+"/species", "only a lure names a species; a draw names what it turned over in card")
	}
}

// draw turns over the top card. The move names it; the tracker checks that
// such a card can still be in the deck and applies rules A to E.
func (s *HotelState) draw(base string, m HotelMove) error {
	var verr ValidationError
	hotelCheckFields(&verr, base, m)
	k := hotelKind(m.Card)
	switch {
	case m.Card == "":
		verr.Add(base+"/card", "say which card was drawn: %s", orList(hotelCardChoices()))
	case k < 0:
		verr.Add(base+"/card", "%q is not an Insektenhotel card: choose %s", m.Card, orList(hotelCardChoices()))
	default:
		s.checkInDeck(&verr, base, k)
	}
	switch {
	case k == hotelSpider:
		s.checkEvict(&verr, base, m.Evict)
	case k >= 0 && m.Evict != nil:
		verr.Add(base+"/evict", "only a spider scares a guest away, and this card is %s", hotelCardName(k))
	}
	if err := verr.Err(); err != nil {
		return err
	}
	s.deck[k]--
	s.Drawn++
	var text Message
	switch k {
	case hotelHoney:
		text = s.drawHoney()
	case hotelCockroach:
		text = s.drawCockroach()
	case hotelSpider:
		text = s.drawSpider(m.Evict)
	default:
		text = s.drawTourist(k)
	}
	// "If the cards in the main deck run out before anyone's hotel is
	// full", the deck is rebuilt at once, so that no lure reaches into a
	// face-down pile that is already back in the deck.
	line := []Message{text}
	if s.deck.total() == 0 && !s.Finished {
		line = append(line, s.reshuffle())
	}
	s.log(line...)
	return nil
}

// hotelCardChoices lists every card id for messages.
func hotelCardChoices() string {
	ids := make([]Option, 0, hotelKinds)
	for k := range hotelKinds {
		ids = append(ids, Option{ID: hotelCardID(k)})
	}
	return hotelChoices(ids)
}

// checkInDeck rejects a card the deck cannot hold any more. The deck is
// never empty at a draw: it is rebuilt the moment it runs out, and the
// hotels (24 rooms) and the honey (20 cards) can never hold all 72 cards.
func (s *HotelState) checkInDeck(verr *ValidationError, base string, k int) {
	if s.deck[k] == 0 {
		verr.Add(base+"/card", "no %s is left in the deck", hotelCardID(k))
	}
}

// reshuffle gathers the discard pile and every face-down pile into a new
// deck (the note above "End of the Game") and says so for the log.
func (s *HotelState) reshuffle() Message {
	for k, n := range s.discard {
		s.deck[k] += n
	}
	s.discard = hotelCards{}
	for i := range s.Players {
		for _, k := range s.Players[i].pile {
			s.deck[k]++
		}
		s.Players[i].pile = nil
	}
	return say("The deck ran out, so the discard pile and the face-down piles were shuffled into a new deck of %d cards.", s.deck.total())
}

// drawTourist applies rules A and B: a tourist with a free room must move
// in and ends the turn; any other goes face down and the turn goes on. The
// log does not say which species went face down.
func (s *HotelState) drawTourist(k int) Message {
	i := s.Turn
	p := &s.Players[i]
	f := s.freeFloor(i, k)
	if f < 0 {
		p.pile = append(p.pile, k)
		if len(p.pile) == 1 {
			return say("%s drew an insect with no free room in the %s hotel and put it face down on the pile beside it (1 card).", p.Name, hotelWord(p.Hotel))
		}
		return say("%s drew an insect with no free room in the %s hotel and put it face down on the pile beside it (%d cards).", p.Name, hotelWord(p.Hotel), len(p.pile))
	}
	insect := term(hotelWithArticle(hotelSpecies[k].ID))
	if s.place(i, f) {
		return say("%s drew %s and put it in the %s hotel, which is now full: %s wins!", p.Name, insect, hotelWord(p.Hotel), p.Name)
	}
	s.endTurn()
	return say("%s drew %s and put it in the %s hotel.", p.Name, insect, hotelWord(p.Hotel))
}

// drawHoney applies rule C: the honey is kept and the turn goes on.
func (s *HotelState) drawHoney() Message {
	p := &s.Players[s.Turn]
	p.gainHoney(s.Round)
	return say("%s drew a honey card, usable from the next round.", p.Name)
}

// drawCockroach applies rule D: all honey goes to the discard pile with the
// cockroach, and the turn ends.
func (s *HotelState) drawCockroach() Message {
	p := &s.Players[s.Turn]
	lost := p.Honey
	s.discard[hotelHoney] += lost
	s.discard[hotelCockroach]++
	p.Honey, p.freshHoney = 0, 0
	s.endTurn()
	if lost == 0 {
		return say("%s drew a cockroach, but had no honey to lose.", p.Name)
	}
	return say("%s drew a cockroach and lost %d honey.", p.Name, lost)
}

// drawSpider applies rule E: the scared guest, if any, goes to the discard
// pile with the spider, and the turn ends.
func (s *HotelState) drawSpider(ev *HotelEvict) Message {
	name := s.Players[s.Turn].Name
	s.discard[hotelSpider]++
	s.endTurn()
	if ev == nil {
		return say("%s drew a spider, but no other hotel had a single guest to scare.", name)
	}
	t := &s.Players[ev.Player]
	t.Floors[hotelFloorIn(t.Floors, ev.Species)].Guests--
	s.discard[hotelKind(ev.Species)]++
	return say("%s drew a spider, which scared %s's %s out of the %s hotel.", name, t.Name, speciesWord(ev.Species), hotelWord(t.Hotel))
}

// hotelFloorIn returns the floor of species sp in a hotel, or -1.
func hotelFloorIn(floors []HotelFloor, sp string) int {
	for f, fl := range floors {
		if fl.Species == sp {
			return f
		}
	}
	return -1
}

// singles lists the guests a spider of the current player may scare: those
// alone on their floor in another player's hotel.
func (s *HotelState) singles() []string {
	var out []string
	for i, p := range s.Players {
		for _, f := range p.Floors {
			if i != s.Turn && f.Guests == 1 {
				out = append(out, p.Name+"'s "+f.Species)
			}
		}
	}
	return out
}

// checkEvict enforces rule E's choice: a single guest of another player
// must be scared when there is one, a pair is safe, and with no single
// guest anywhere the spider scares nothing.
func (s *HotelState) checkEvict(verr *ValidationError, base string, ev *HotelEvict) {
	singles := s.singles()
	if ev == nil {
		if len(singles) > 0 {
			verr.Add(base+"/evict", "%s must scare a single guest out of another hotel: %s", s.Players[s.Turn].Name, orList(hotelOr(singles)))
		}
		return
	}
	hint := word{} // nothing, or a sentence to add
	if len(singles) == 0 {
		hint = term("; no other hotel has a single guest, so the spider scares nobody: leave evict out")
	}
	if ev.Player < 0 || ev.Player >= len(s.Players) {
		verr.Add(base+"/evict/player", "there is no seat %d at this table (seats 0 to %d)%s", ev.Player, len(s.Players)-1, hint)
		return
	}
	if ev.Player == s.Turn {
		verr.Add(base+"/evict/player", "a spider scares a guest out of another player's hotel, not out of %s's own%s", s.Players[s.Turn].Name, hint)
		return
	}
	t := s.Players[ev.Player]
	f := hotelFloorIn(t.Floors, ev.Species)
	switch {
	case hotelIndex(hotelSpecies, ev.Species) < 0:
		verr.Add(base+"/evict/species", "%q is not an Insektenhotel species: choose %s", ev.Species, orList(hotelChoices(hotelSpecies)))
	case f < 0:
		verr.Add(base+"/evict/species", "%s's %s hotel has no floor for %s%s", t.Name, hotelWord(t.Hotel), term(hotelPlural(ev.Species)), hint)
	case t.Floors[f].Guests == 0:
		verr.Add(base+"/evict/species", "%s has no %s to scare%s", t.Name, speciesWord(ev.Species), hint)
	case t.Floors[f].Guests == hotelRooms:
		verr.Add(base+"/evict/species", "the %s pair in %s's hotel is safe from the spider%s", speciesWord(ev.Species), t.Name, hint)
	}
}

// hotelOr joins choices for a sentence: "a, b or c".
func hotelOr(items []string) string {
	if len(items) == 1 {
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// lure applies rule F: before drawing, two honey from earlier rounds buy a
// guess at another player's face-down pile. The target gets one honey right
// or wrong, the other is discarded, and the turn ends.
func (s *HotelState) lure(base string, m HotelMove) error {
	var verr ValidationError
	hotelCheckFields(&verr, base, m)
	s.checkLurer(&verr, base)
	s.checkLureTarget(&verr, base, m.Target)
	k := s.checkLureSpecies(&verr, base, m.Species)
	if err := verr.Err(); err != nil {
		return err
	}
	i := s.Turn
	p, t := &s.Players[i], &s.Players[m.Target]
	p.Honey -= 2 // from the usable honey: what was collected this round stays
	t.gainHoney(s.Round)
	s.discard[hotelHoney]++
	insect := term(hotelWithArticle(m.Species))
	j := hotelLastIndex(t.pile, k)
	if j < 0 {
		s.endTurn()
		s.log(say("%s paid 2 honey to lure %s from %s, who had none; %s still got 1 honey.", p.Name, insect, t.Name, t.Name))
		return nil
	}
	t.pile = append(t.pile[:j], t.pile[j+1:]...)
	if s.place(i, s.freeFloor(i, k)) {
		s.log(say("%s paid 2 honey to lure %s from %s, who had one: it moved into the %s hotel, and %s got 1 honey. The %s hotel is now full: %s wins!",
			p.Name, insect, t.Name, hotelWord(p.Hotel), t.Name, hotelWord(p.Hotel), p.Name))
	} else {
		s.endTurn()
		s.log(say("%s paid 2 honey to lure %s from %s, who had one: it moved into the %s hotel, and %s got 1 honey.", p.Name, insect, t.Name, hotelWord(p.Hotel), t.Name))
	}
	return nil
}

// checkLurer wants a lure as the first action of the turn, paid with two
// honey collected in earlier rounds.
func (s *HotelState) checkLurer(verr *ValidationError, base string) {
	p := s.Players[s.Turn]
	usable := p.usableHoney(s.Round)
	fresh := p.Honey - usable
	switch {
	case s.Drawn > 0:
		verr.Add(base+"/type", "%s has already drawn this turn: a lure comes before the first draw", p.Name)
	case usable >= 2:
	case usable == 0 && fresh > 0:
		verr.Add(base+"/type", "%s has no honey from an earlier round: honey is usable from the next round", p.Name)
	case usable == 0:
		verr.Add(base+"/type", "%s has no honey: a lure costs 2 honey collected in an earlier round", p.Name)
	case fresh > 0:
		verr.Add(base+"/type", "%s has only 1 honey from an earlier round, and a lure costs 2: honey collected this round is usable from the next round", p.Name)
	default:
		verr.Add(base+"/type", "%s has only 1 honey, and a lure costs 2", p.Name)
	}
}

// checkLureTarget wants another player to lure from.
func (s *HotelState) checkLureTarget(verr *ValidationError, base string, target int) {
	switch {
	case target < 0 || target >= len(s.Players):
		verr.Add(base+"/target", "there is no seat %d at this table (seats 0 to %d)", target, len(s.Players)-1)
	case target == s.Turn:
		verr.Add(base+"/target", "%s lures from another player's pile, not from their own", s.Players[s.Turn].Name)
	}
}

// checkLureSpecies wants a species with a free room in the lurer's hotel,
// since a lured insect moves straight in. It returns its kind, or -1.
func (s *HotelState) checkLureSpecies(verr *ValidationError, base, sp string) int {
	p := s.Players[s.Turn]
	k := hotelIndex(hotelSpecies, sp)
	f := hotelFloorIn(p.Floors, sp)
	switch {
	case sp == "":
		verr.Add(base+"/species", "name the species to lure")
	case k < 0:
		verr.Add(base+"/species", "%q is not an Insektenhotel species: choose %s", sp, orList(hotelChoices(hotelSpecies)))
	case f < 0:
		verr.Add(base+"/species", "the %s hotel has no floor for %s: lure a species it has a free room for", hotelWord(p.Hotel), term(hotelPlural(sp)))
	case p.Floors[f].Guests >= hotelRooms:
		verr.Add(base+"/species", "the %s floor of the %s hotel is full: lure a species it has a free room for", speciesWord(sp), hotelWord(p.Hotel))
	}
	return k
}

// hotelLastIndex returns the topmost card of kind k in a pile, or -1.
func hotelLastIndex(pile []int, k int) int {
	for j := len(pile) - 1; j >= 0; j-- {
		if pile[j] == k {
			return j
		}
	}
	return -1
}

// pass ends the turn, which the rulebook allows once a card was drawn.
func (s *HotelState) pass(base string, m HotelMove) error {
	var verr ValidationError
	hotelCheckFields(&verr, base, m)
	if s.Drawn == 0 {
		verr.Add(base+"/type", "%s must draw at least one card before passing", s.Players[s.Turn].Name)
	}
	if err := verr.Err(); err != nil {
		return err
	}
	s.log(say("%s passed.", s.Players[s.Turn].Name))
	s.endTurn()
	return nil
}

// say is the sentence of the log of format and args.
func say(format string, args ...any) Message { return rules(format, args...) }

// log adds a move's sentences to the log, in English and as messages.
func (s *HotelState) log(line ...Message) {
	s.Log = append(s.Log, hotelLine(line, nil))
	s.lines = append(s.lines, line)
}

// hotelLine writes the sentences of a move in c's language (nil: English).
func hotelLine(line []Message, c Catalog) string {
	parts := make([]string, len(line))
	for i, m := range line {
		parts[i] = m.In(c)
	}
	return strings.Join(parts, " ")
}

// Hotel returns a copy of st with its log in c's language (st itself for
// English, a nil c).
func (c Catalog) Hotel(st *HotelState) *HotelState {
	if st == nil || c == nil || len(st.lines) != len(st.Log) {
		return st
	}
	out := *st
	out.Log = make([]string, len(st.lines))
	for i, line := range st.lines {
		out.Log[i] = hotelLine(line, c)
	}
	return &out
}

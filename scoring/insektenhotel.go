package scoring

import (
	"errors"
	"fmt"
	"strings"
)

// Insektenhotel has no points: the standing of a player is the number of
// guests in their hotel, and the first hotel with all six rooms filled wins
// (rules/insektenhotel-rulebook.txt, "Goal of the Game", "End of the Game").

const (
	hotelFloorCount = 3 // floors per hotel, one species each
	hotelRooms      = 2 // rooms per floor: a pair of one species
	hotelFullGuests = hotelFloorCount * hotelRooms
	hotelPerSpecies = 6 // tourist cards of each species in the box (36 / 6)
)

// hotelSpecies is the vocabulary of tourists, in the order forms show them.
// Its order is also the index of a species among the tracker's card kinds.
var hotelSpecies = []Option{
	{ID: "bee", Label: "Bee"},
	{ID: "ant", Label: "Ant"},
	{ID: "fly", Label: "Fly"},
	{ID: "ladybird", Label: "Ladybird"},
	{ID: "butterfly", Label: "Butterfly"},
	{ID: "earwig", Label: "Earwig"},
}

// hotelPlurals and hotelArticles let messages read as sentences.
var (
	hotelPlurals  = []string{"bees", "ants", "flies", "ladybirds", "butterflies", "earwigs"}
	hotelArticles = []string{"a", "an", "a", "a", "a", "an"}
)

// hotelColours are the four printed hotels.
var hotelColours = []Option{
	{ID: "blue", Label: "Blue"},
	{ID: "green", Label: "Green"},
	{ID: "yellow", Label: "Yellow"},
	{ID: "red", Label: "Red"},
}

// HotelFloor is one floor of a hotel: the species it takes and how many of
// its two rooms are occupied.
type HotelFloor struct {
	Species string `json:"species"`
	Guests  int    `json:"guests"`
}

// hotelBoard is the insektenhotel board format of the scoring API.
type hotelBoard struct {
	Hotel  string       `json:"hotel"`
	Floors []HotelFloor `json:"floors"`
}

// insektenhotel implements Game.
type insektenhotel struct{}

func init() { Register(insektenhotel{}) }

// Spec describes Insektenhotel for forms.
func (insektenhotel) Spec() Spec {
	return Spec{
		Info: Info{
			ID: "insektenhotel", Name: "Insektenhotel",
			MinPlayers: 2, MaxPlayers: 4,
			Unit: "game.insektenhotel.unit", End: "one hotel must be full", Form: "games/insektenhotel.js",
			// A total is the guests in a hotel, and the winner's is always
			// six: averages and bests would only restate wins.
			WinsOnly: true,
			Tracked:  true, // Tracker, in insektenhotel_tracker.go
		},
		Enums:     map[string][]Option{"species": hotelSpecies, "hotel": hotelColours},
		Variants:  []VariantSpec{},
		Breakdown: []Option{{ID: "guests", Label: "Guests"}},
		Tiebreaks: []Option{},
		// A hotel has six rooms, so a totals sheet holds 0 to 6 guests.
		Totals: []TotalsField{hotelTotalsGuests},
	}
}

// hotelTotalsGuests is the one line of the totals sheet.
var hotelTotalsGuests = TotalsField{ID: "guests", Label: "Guests", Min: 0, Max: hotelFullGuests, Step: 1}

// hotelFloorPointers are the pointers of a hotel's floors, "/floors/f".
var hotelFloorPointers = indexPointers("/floors/", hotelFloorCount)

// Evaluate checks every hotel on its own, then the table as a whole (hotel
// colours, the card supply, a single winner), and counts guests.
func (insektenhotel) Evaluate(players []PlayerInput, _ map[string]int) (*Evaluation, error) {
	var verr ValidationError
	boards := make([]hotelBoard, len(players))
	valid := make([]bool, len(players))
	sheets := make([]*totalsSheet, len(players))
	fields := []TotalsField{hotelTotalsGuests}
	for i, p := range players {
		base := boardPointer(i)
		before := len(verr.Errors)
		if sheet, ok := decodeTotals(p.Board, base, "Insektenhotel", fields, &verr); ok {
			// A sheet has no floors or colour for the table checks;
			// only its guest count takes part, in hotelCheckFull.
			sheets[i], valid[i] = sheet, len(verr.Errors) == before
			continue
		}
		if err := DecodeBoard(p.Board, base, &boards[i]); err != nil {
			hotelMerge(&verr, base, err)
			// A half-decoded board would only add noise to the table checks.
			boards[i] = hotelBoard{}
			continue
		}
		before = len(verr.Errors)
		hotelCheckBoard(&verr, base, boards[i])
		valid[i] = len(verr.Errors) == before
	}
	hotelCheckColours(&verr, players, boards)
	hotelCheckSupply(&verr, boards)
	full := hotelCheckFull(&verr, boards, sheets, valid)
	if err := verr.Err(); err != nil {
		return nil, err
	}
	ev := &Evaluation{Players: make([]Scored, len(players)), Complete: full == 1, TotalLabel: "guests"}
	for i, b := range boards {
		if sheets[i] != nil {
			ev.Players[i] = sheets[i].score(boardPointer(i), 1)
			continue
		}
		n := hotelGuests(b.Floors)
		ev.Players[i] = Scored{Total: n, Breakdown: []Line{{Key: "guests", Label: "Guests", Points: n, Sources: hotelSources(b.Floors)}}}
	}
	return ev, nil
}

// hotelSources points at each floor with guests, with its guest count.
func hotelSources(floors []HotelFloor) []Source {
	out := make([]Source, 0, len(floors))
	for f, fl := range floors {
		if fl.Guests != 0 {
			out = append(out, Source{Pointer: indexPointer(hotelFloorPointers, "/floors/", f), Points: fl.Guests})
		}
	}
	return out
}

// hotelMerge appends the problems of err to verr; any other error (which
// DecodeBoard does not return) is kept as a problem of the board at base.
func hotelMerge(verr *ValidationError, base string, err error) {
	var v *ValidationError
	if errors.As(err, &v) {
		verr.Errors = append(verr.Errors, v.Errors...)
		return
	}
	verr.Add(base, "%v", err)
}

// hotelCheckBoard checks what one hotel can get wrong by itself. A board may
// be partial while a game runs, so a missing colour or floor is fine.
func hotelCheckBoard(verr *ValidationError, base string, b hotelBoard) {
	if b.Hotel != "" && hotelIndex(hotelColours, b.Hotel) < 0 {
		verr.Add(base+"/hotel", "%q is not a hotel: choose %s", b.Hotel, orList(hotelChoices(hotelColours)))
	}
	if len(b.Floors) > hotelFloorCount {
		verr.Add(base+"/floors", "a hotel has %d floors, not %d", hotelFloorCount, len(b.Floors))
	}
	seen := map[string]bool{}
	for j, f := range b.Floors {
		ptr := base + indexPointer(hotelFloorPointers, "/floors/", j)
		switch {
		case f.Species == "":
			verr.Add(ptr+"/species", "choose the species this floor is for")
		case hotelIndex(hotelSpecies, f.Species) < 0:
			verr.Add(ptr+"/species", "%q is not an Insektenhotel species: choose %s", f.Species, orList(hotelChoices(hotelSpecies)))
		case seen[f.Species]:
			verr.Add(ptr+"/species", "this hotel already has a floor for %s: its three floors are for three different species", term(hotelPlural(f.Species)))
		}
		seen[f.Species] = true
		if f.Guests < 0 || f.Guests > hotelRooms {
			verr.Add(ptr+"/guests", "a floor has %d rooms, so it holds 0, 1 or 2 guests, not %d", hotelRooms, f.Guests)
		}
	}
}

// hotelCheckColours reports a hotel colour taken twice at the later player,
// naming the player who has it: the box holds one hotel of each colour.
func hotelCheckColours(verr *ValidationError, players []PlayerInput, boards []hotelBoard) {
	owner := map[string]int{}
	for i, b := range boards {
		if hotelIndex(hotelColours, b.Hotel) < 0 {
			continue
		}
		if j, taken := owner[b.Hotel]; taken {
			verr.Add(fmt.Sprintf("/players/%d/board/hotel", i), "the %s hotel is already %s's: each player runs a hotel of their own colour", hotelWord(b.Hotel), hotelWho(players[j].Name, j))
			continue
		}
		owner[b.Hotel] = i
	}
}

// hotelWho names player i for a message: by name, as people at the table
// call each other, or else by their place counted from 1 (a pointer's
// index counts from 0, which no player does).
func hotelWho(name string, i int) any {
	if n := strings.TrimSpace(name); n != "" {
		return n
	}
	return rules("player %d", i+1)
}

// hotelCheckSupply reports the floor at which the guests of one species
// across all hotels exceed the six tourist cards the box holds.
func hotelCheckSupply(verr *ValidationError, boards []hotelBoard) {
	count := map[string]int{}
	for i, b := range boards {
		for j, f := range b.Floors {
			// A floor without guests adds none; an impossible count is
			// hotelCheckBoard's to report.
			if hotelIndex(hotelSpecies, f.Species) < 0 || f.Guests < 1 || f.Guests > hotelRooms {
				continue
			}
			before := count[f.Species]
			count[f.Species] += f.Guests
			if before <= hotelPerSpecies && count[f.Species] > hotelPerSpecies {
				verr.Add(fmt.Sprintf("/players/%d/board/floors/%d/guests", i, j),
					"the game has only %d %s cards, and this floor makes %d %s across the hotels",
					hotelPerSpecies, speciesWord(f.Species), count[f.Species], term(hotelPlural(f.Species)))
			}
		}
	}
}

// hotelCheckFull counts the full hotels among the valid boards, whether a
// board shows all six rooms taken or a totals sheet says six guests. The
// game stops when the first hotel fills, so a second full hotel is an error.
func hotelCheckFull(verr *ValidationError, boards []hotelBoard, sheets []*totalsSheet, valid []bool) int {
	full := 0
	for i, b := range boards {
		ptr := "/floors"
		isFull := hotelIsFull(b.Floors)
		if sheets[i] != nil {
			guests, _ := sheets[i].get("guests")
			ptr, isFull = "/totals/guests", guests == hotelFullGuests
		}
		if !valid[i] || !isFull {
			continue
		}
		full++
		if full > 1 {
			verr.Add(boardPointer(i)+ptr, "only one hotel can fill first: the game ended when the first hotel was full")
		}
	}
	return full
}

// hotelIsFull reports whether all six rooms are taken.
func hotelIsFull(floors []HotelFloor) bool {
	return len(floors) == hotelFloorCount && hotelGuests(floors) == hotelFullGuests
}

// hotelGuests counts the guests of a hotel.
func hotelGuests(floors []HotelFloor) int {
	n := 0
	for _, f := range floors {
		n += f.Guests
	}
	return n
}

// hotelIndex returns the position of id in opts, or -1.
func hotelIndex(opts []Option, id string) int {
	for i, o := range opts {
		if o.ID == id {
			return i
		}
	}
	return -1
}

// hotelChoices lists the ids of opts for a message: "bee, ant or fly".
func hotelChoices(opts []Option) string {
	ids := make([]string, len(opts))
	for i, o := range opts {
		ids[i] = o.ID
	}
	return strings.Join(ids[:len(ids)-1], ", ") + " or " + ids[len(ids)-1]
}

// hotelWord is a hotel's colour as a word of a message: its id, which
// reads as English ("the blue hotel").
func hotelWord(id string) word { return term(id) }

// speciesWord is a species as a word of a message, as hotelWord.
func speciesWord(id string) word { return term(id) }

// hotelPlural names a known species in the plural ("flies").
func hotelPlural(species string) string {
	if i := hotelIndex(hotelSpecies, species); i >= 0 {
		return hotelPlurals[i]
	}
	return species
}

// hotelWithArticle names a known species with its article ("an ant").
func hotelWithArticle(species string) string {
	if i := hotelIndex(hotelSpecies, species); i >= 0 {
		return hotelArticles[i] + " " + species
	}
	return species
}

package scoring

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// hotelSeats are the test table in turn order. Ana's and Ben's hotels share
// no species, so in a two-player game every tourist fits exactly one of them.
var hotelSeats = []HotelSeat{
	{Name: "Ana", Hotel: "blue", Floors: [3]string{"bee", "ant", "fly"}},
	{Name: "Ben", Hotel: "green", Floors: [3]string{"ladybird", "butterfly", "earwig"}},
	{Name: "Cleo", Hotel: "yellow", Floors: [3]string{"bee", "fly", "butterfly"}},
	{Name: "Dev", Hotel: "red", Floors: [3]string{"ant", "ladybird", "earwig"}},
}

func hotelSetupOf(n int) HotelSetup { return HotelSetup{Players: hotelSeats[:n]} }

// Move constructors keep the tables short.
func hDraw(card string) HotelMove { return HotelMove{Type: "draw", Card: card} }
func hPass() HotelMove            { return HotelMove{Type: "pass"} }
func hSpider(player int, species string) HotelMove {
	return HotelMove{Type: "draw", Card: "spider", Evict: &HotelEvict{Player: player, Species: species}}
}
func hLure(target int, species string) HotelMove {
	return HotelMove{Type: "lure", Target: target, Species: species}
}

// hMoves flattens groups of moves, so a table row can read turn by turn.
func hMoves(groups ...[]HotelMove) []HotelMove { return slices.Concat(groups...) }

// hTurn is one turn: the moves given, as a group.
func hTurn(moves ...HotelMove) []HotelMove { return moves }

// hTimes repeats a move.
func hTimes(n int, m HotelMove) []HotelMove { return slices.Repeat([]HotelMove{m}, n) }

// hotelSummary is the public state in one line, so a row can want it whole.
func hotelSummary(s *HotelState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn=%d round=%d drawn=%d deck=%d discard=%d winner=%d", s.Turn, s.Round, s.Drawn, s.Deck, s.Discard, s.Winner)
	for _, p := range s.Players {
		g := make([]int, len(p.Floors))
		for j, f := range p.Floors {
			g[j] = f.Guests
		}
		fmt.Fprintf(&b, " | %s %v honey=%d/%d pile=%d", p.Name, g, p.Honey, p.HoneyUsable, p.Pile)
	}
	return b.String()
}

// Ana's hotel fills in six turns while Ben only collects honey.
var hotelAnaFills = hMoves(
	hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()),
	hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()),
	hTurn(hDraw("ant")), hTurn(hDraw("honey"), hPass()),
	hTurn(hDraw("ant")), hTurn(hDraw("honey"), hPass()),
	hTurn(hDraw("fly")), hTurn(hDraw("honey"), hPass()),
	hTurn(hDraw("fly")),
)

// The rulebook's spider example, set up over two rounds: two flies in the
// blue hotel, one butterfly in the green one, the yellow one empty, and the
// red hotel's player to draw.
var hotelSpiderExample = hMoves(
	hTurn(hDraw("fly")), hTurn(hDraw("butterfly")), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()),
	hTurn(hDraw("fly")), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()),
)

// Ben keeps a bee face down; Ana has two honey from round 1 to lure with.
var hotelBenHasABee = hMoves(
	hTurn(hDraw("honey"), hDraw("honey"), hPass()),
	hTurn(hDraw("bee"), hPass()),
)

// hotelDrain empties the deck without a guest anywhere: Ana draws every
// honey and Ben's species face down, Ben all of Ana's species, then
// one-card turns of cockroaches and spiders use up the rest. keepHoney
// leaves Ana's 20 honey with her, so none is left to shuffle back in.
func hotelDrain(keepHoney bool) []HotelMove {
	anaEnd := hDraw("cockroach")
	if keepHoney {
		anaEnd = hPass()
	}
	moves := hMoves(
		hTimes(20, hDraw("honey")), hTimes(6, hDraw("ladybird")), hTimes(6, hDraw("butterfly")), hTimes(6, hDraw("earwig")), hTurn(anaEnd),
		hTimes(6, hDraw("bee")), hTimes(6, hDraw("ant")), hTimes(6, hDraw("fly")), hTurn(hDraw("cockroach")),
	)
	if !keepHoney {
		return hMoves(moves, hTimes(6, hDraw("cockroach")), hTimes(8, hDraw("spider")))
	}
	// 7 cockroaches and 8 spiders are left; Ana draws only spiders.
	for range 7 {
		moves = append(moves, hDraw("spider"), hDraw("cockroach"))
	}
	return append(moves, hDraw("spider"))
}

// hotelLureAfterReshuffle drains the deck as hotelDrain(true) does, but
// Ana lures a bee from Ben's face-down pile once on the way, so that Ben
// turns over the last card: a spider that scares the bee away. The deck is
// rebuilt then, Ben's pile with it, and Ana's next lure finds nothing.
var hotelLureAfterReshuffle = func() []HotelMove {
	moves := hotelDrain(true)
	moves = moves[:len(moves)-15] // the last 8 spiders and 7 cockroaches
	moves = append(moves, hLure(1, "bee"))
	for range 7 {
		moves = append(moves, hDraw("cockroach"), hDraw("spider"))
	}
	return append(moves, hSpider(0, "bee"), hLure(1, "bee"))
}()

func TestHotelReplay(t *testing.T) {
	tests := []struct {
		name    string
		players int
		first   int // the starting seat
		moves   []HotelMove
		want    string // hotelSummary of the state
		wantLog string // the last log line
	}{
		{
			name: "Setup: the whole box is the deck, seat 0 starts round 1", players: 2,
			want: "turn=0 round=1 drawn=0 deck=72 discard=0 winner=-1 | Ana [0 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
		},
		{
			name: "Turning over cards A: a tourist with a free room must move in, and the turn ends", players: 2,
			moves:   hMoves(hTurn(hDraw("ant"))),
			want:    "turn=1 round=1 drawn=0 deck=71 discard=0 winner=-1 | Ana [0 1 0] honey=0/0 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ana drew an ant and put it in the blue hotel.",
		},
		{
			name: "Turning over cards B: a tourist with no floor goes face down, and the turn goes on", players: 2,
			moves:   hMoves(hTurn(hDraw("earwig"))),
			want:    "turn=0 round=1 drawn=1 deck=71 discard=0 winner=-1 | Ana [0 0 0] honey=0/0 pile=1 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ana drew an insect with no free room in the blue hotel and put it face down on the pile beside it (1 card).",
		},
		{
			name: "Turning over cards B: a tourist whose floor is full goes face down too", players: 2,
			moves: hMoves(hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("bee"), hDraw("ladybird"))),
			want:    "turn=0 round=3 drawn=2 deck=66 discard=0 winner=-1 | Ana [2 0 0] honey=0/0 pile=2 | Ben [0 0 0] honey=2/2 pile=0",
			wantLog: "Ana drew an insect with no free room in the blue hotel and put it face down on the pile beside it (2 cards).",
		},
		{
			name: "Turning over cards C: honey is kept face up, usable from the next round, and the turn goes on", players: 2,
			moves:   hMoves(hTurn(hDraw("honey"), hDraw("honey"))),
			want:    "turn=0 round=1 drawn=2 deck=70 discard=0 winner=-1 | Ana [0 0 0] honey=2/0 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ana drew a honey card, usable from the next round.",
		},
		{
			name: "Gameplay: a pass ends the turn, and back at seat 0 a new round makes last round's honey usable", players: 2,
			moves:   hMoves(hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"))),
			want:    "turn=0 round=2 drawn=1 deck=69 discard=0 winner=-1 | Ana [0 0 0] honey=2/1 pile=0 | Ben [0 0 0] honey=1/1 pile=0",
			wantLog: "Ana drew a honey card, usable from the next round.",
		},
		{
			name: "Turning over cards D: a cockroach takes all honey, old and new, to the discard pile and ends the turn", players: 2,
			moves:   hMoves(hTurn(hDraw("honey"), hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hDraw("cockroach"))),
			want:    "turn=1 round=2 drawn=0 deck=67 discard=4 winner=-1 | Ana [0 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=1/1 pile=0",
			wantLog: "Ana drew a cockroach and lost 3 honey.",
		},
		{
			name: "Turning over cards D: a cockroach with no honey to lose still ends the turn", players: 2,
			moves:   hMoves(hTurn(hDraw("ladybird"), hDraw("cockroach"))),
			want:    "turn=1 round=1 drawn=0 deck=70 discard=1 winner=-1 | Ana [0 0 0] honey=0/0 pile=1 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ana drew a cockroach, but had no honey to lose.",
		},
		{
			name: "Turning over cards E: the spider example, red scares off the butterfly from the green hotel", players: 4,
			moves:   hMoves(hotelSpiderExample, hTurn(hSpider(1, "butterfly"))),
			want:    "turn=0 round=3 drawn=0 deck=64 discard=2 winner=-1 | Ana [0 0 2] honey=0/0 pile=0 | Ben [0 0 0] honey=1/1 pile=0 | Cleo [0 0 0] honey=2/2 pile=0 | Dev [0 0 0] honey=1/1 pile=0",
			wantLog: "Dev drew a spider, which scared Ben's butterfly out of the green hotel.",
		},
		{
			name: "Turning over cards E: with no single guest to scare, the spider goes to the discard pile", players: 2,
			moves:   hMoves(hTurn(hDraw("bee")), hTurn(hDraw("ladybird")), hTurn(hDraw("bee")), hTurn(hDraw("spider"))),
			want:    "turn=0 round=3 drawn=0 deck=68 discard=1 winner=-1 | Ana [2 0 0] honey=0/0 pile=0 | Ben [1 0 0] honey=0/0 pile=0",
			wantLog: "Ben drew a spider, but no other hotel had a single guest to scare.",
		},
		{
			name: "Turning over cards E: a spider ignores the drawer's own single guests", players: 2,
			moves:   hMoves(hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("spider"))),
			want:    "turn=1 round=2 drawn=0 deck=69 discard=1 winner=-1 | Ana [1 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=1/1 pile=0",
			wantLog: "Ana drew a spider, but no other hotel had a single guest to scare.",
		},
		{
			name: "Luring insects F: a right guess moves the insect in, the target gets one honey, one is discarded", players: 2,
			moves:   hMoves(hotelBenHasABee, hTurn(hLure(1, "bee"))),
			want:    "turn=1 round=2 drawn=0 deck=69 discard=1 winner=-1 | Ana [1 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=1/0 pile=0",
			wantLog: "Ana paid 2 honey to lure a bee from Ben, who had one: it moved into the blue hotel, and Ben got 1 honey.",
		},
		{
			name: "Luring insects F: a wrong guess still pays the target one honey and ends the turn", players: 2,
			moves:   hMoves(hotelBenHasABee, hTurn(hLure(1, "ant"))),
			want:    "turn=1 round=2 drawn=0 deck=69 discard=1 winner=-1 | Ana [0 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=1/0 pile=1",
			wantLog: "Ana paid 2 honey to lure an ant from Ben, who had none; Ben still got 1 honey.",
		},
		{
			name: "Luring insects F: the honey a target gets is usable from their next round", players: 2,
			moves:   hMoves(hotelBenHasABee, hTurn(hLure(1, "ant")), hTurn(hDraw("honey"), hPass())),
			want:    "turn=0 round=3 drawn=0 deck=68 discard=1 winner=-1 | Ana [0 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=2/2 pile=1",
			wantLog: "Ben passed.",
		},
		{
			name: "Luring insects F: a lure pays only with old honey and keeps this round's", players: 3,
			moves: hMoves(
				hTurn(hDraw("honey"), hDraw("honey"), hPass()), hTurn(hDraw("bee"), hPass()), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("honey"), hDraw("honey"), hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()),
				hTurn(hLure(1, "bee")),
			),
			want:    "turn=1 round=3 drawn=0 deck=63 discard=1 winner=-1 | Ana [1 0 0] honey=3/3 pile=0 | Ben [0 0 0] honey=2/1 pile=0 | Cleo [0 0 0] honey=2/2 pile=0",
			wantLog: "Ana paid 2 honey to lure a bee from Ben, who had one: it moved into the blue hotel, and Ben got 1 honey.",
		},
		{
			name: "End of the Game: the first hotel with six guests wins at once", players: 2,
			moves:   hotelAnaFills,
			want:    "turn=0 round=6 drawn=1 deck=61 discard=0 winner=0 | Ana [2 2 2] honey=0/0 pile=0 | Ben [0 0 0] honey=5/5 pile=0",
			wantLog: "Ana drew a fly and put it in the blue hotel, which is now full: Ana wins!",
		},
		{
			name: "End of the Game: a lured insect can fill the hotel", players: 2,
			moves: hMoves(
				hTurn(hDraw("bee")), hTurn(hDraw("fly"), hPass()),
				hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("ant")), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("ant")), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("fly")), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("honey"), hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()),
				hTurn(hLure(1, "fly")),
			),
			want:    "turn=0 round=7 drawn=0 deck=59 discard=1 winner=0 | Ana [2 2 2] honey=0/0 pile=0 | Ben [0 0 0] honey=6/5 pile=0",
			wantLog: "Ana paid 2 honey to lure a fly from Ben, who had one: it moved into the blue hotel, and Ben got 1 honey. The blue hotel is now full: Ana wins!",
		},
		{
			name: "Note above End of the Game: the deck is reshuffled the moment it runs out, from the discard pile and every face-down pile", players: 2,
			moves:   hotelDrain(false),
			want:    "turn=0 round=9 drawn=0 deck=72 discard=0 winner=-1 | Ana [0 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ben drew a spider, but no other hotel had a single guest to scare. The deck ran out, so the discard pile and the face-down piles were shuffled into a new deck of 72 cards.",
		},
		{
			name: "Note above End of the Game: the new deck is drawn from", players: 2,
			moves:   hMoves(hotelDrain(false), hTurn(hDraw("bee"))),
			want:    "turn=1 round=9 drawn=0 deck=71 discard=0 winner=-1 | Ana [1 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ana drew a bee and put it in the blue hotel.",
		},
		{
			name: "Note above End of the Game: honey held by a player stays out of the new deck", players: 2,
			moves:   hotelDrain(true),
			want:    "turn=1 round=9 drawn=0 deck=52 discard=0 winner=-1 | Ana [0 0 0] honey=20/20 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ana drew a spider, but no other hotel had a single guest to scare. The deck ran out, so the discard pile and the face-down piles were shuffled into a new deck of 52 cards.",
		},
		{
			name: "Note above End of the Game: what is left to draw after a reshuffle", players: 2,
			moves:   hMoves(hotelDrain(true), hTurn(hDraw("cockroach"))),
			want:    "turn=0 round=10 drawn=0 deck=51 discard=1 winner=-1 | Ana [0 0 0] honey=20/20 pile=0 | Ben [0 0 0] honey=0/0 pile=0",
			wantLog: "Ben drew a cockroach, but had no honey to lose.",
		},
		{
			name: "Note above End of the Game: a lure after the deck ran out finds the face-down piles back in the deck", players: 2,
			moves:   hotelLureAfterReshuffle,
			want:    "turn=1 round=10 drawn=0 deck=54 discard=1 winner=-1 | Ana [0 0 0] honey=16/16 pile=0 | Ben [0 0 0] honey=1/0 pile=0",
			wantLog: "Ana paid 2 honey to lure a bee from Ben, who had none; Ben still got 1 honey.",
		},
		{
			name: "Setup: the last to stay in a hotel starts, and rounds count from her seat", players: 2, first: 1,
			moves:   hMoves(hTurn(hDraw("honey"), hDraw("ladybird")), hTurn(hDraw("bee"))),
			want:    "turn=1 round=2 drawn=0 deck=69 discard=0 winner=-1 | Ana [1 0 0] honey=0/0 pile=0 | Ben [1 0 0] honey=1/1 pile=0",
			wantLog: "Ana drew a bee and put it in the blue hotel.",
		},
		{
			name: "Setup: the starting seat is still in round 1 before the turn comes back to her", players: 3, first: 2,
			moves:   hMoves(hTurn(hDraw("butterfly")), hTurn(hDraw("bee"))),
			want:    "turn=1 round=1 drawn=0 deck=70 discard=0 winner=-1 | Ana [1 0 0] honey=0/0 pile=0 | Ben [0 0 0] honey=0/0 pile=0 | Cleo [0 0 1] honey=0/0 pile=0",
			wantLog: "Ana drew a bee and put it in the blue hotel.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			setup := hotelSetupOf(tt.players)
			setup.First = tt.first
			s, err := ReplayHotel(setup, tt.moves)
			if err != nil {
				t.Fatalf("ReplayHotel: %v", err)
			}
			if got := hotelSummary(s); got != tt.want {
				t.Errorf("state\n got %s\nwant %s", got, tt.want)
			}
			if got, want := len(s.Log), len(tt.moves); got != want {
				t.Errorf("%d log lines for %d moves", got, want)
			}
			if tt.wantLog != "" && (len(s.Log) == 0 || s.Log[len(s.Log)-1] != tt.wantLog) {
				t.Errorf("last log line\n got %q\nwant %q", s.Log[len(s.Log)-1:], tt.wantLog)
			}
			hotelCheckState(t, s)
		})
	}
}

func TestHotelReplayErrors(t *testing.T) {
	tests := []struct {
		name        string
		players     int
		moves       []HotelMove
		wantPointer string
		wantDetail  string
	}{
		{
			name: "a move is draw, lure or pass", players: 2,
			moves:       []HotelMove{{Type: "steal"}},
			wantPointer: "/moves/0/type", wantDetail: `a move is "draw", "lure" or "pass", not "steal"`,
		},
		{
			name: "a draw names its card", players: 2,
			moves:       []HotelMove{{Type: "draw"}},
			wantPointer: "/moves/0/card", wantDetail: "say which card was drawn: bee, ant, fly, ladybird, butterfly, earwig, honey, cockroach or spider",
		},
		{
			name: "Contents: a wasp is no card of the game", players: 2,
			moves:       hMoves(hTurn(hDraw("honey"), hDraw("wasp"))),
			wantPointer: "/moves/1/card", wantDetail: `"wasp" is not an Insektenhotel card: choose bee, ant, fly, ladybird, butterfly, earwig, honey, cockroach or spider`,
		},
		{
			name: "a draw names no species", players: 2,
			moves:       []HotelMove{{Type: "draw", Card: "bee", Species: "bee"}},
			wantPointer: "/moves/0/species", wantDetail: "only a lure names a species; a draw names what it turned over in card",
		},
		{
			name: "Turning over cards E: only a spider scares a guest away", players: 2,
			moves:       []HotelMove{{Type: "draw", Card: "cockroach", Evict: &HotelEvict{Player: 1, Species: "bee"}}},
			wantPointer: "/moves/0/evict", wantDetail: "only a spider scares a guest away, and this card is a cockroach",
		},
		{
			name: "Gameplay: a pass needs a draw first", players: 2,
			moves:       hMoves(hTurn(hDraw("bee")), hTurn(hPass())),
			wantPointer: "/moves/1/type", wantDetail: "Ben must draw at least one card before passing",
		},
		{
			name: "a pass carries nothing else", players: 2,
			moves:       hMoves(hTurn(hDraw("honey"), HotelMove{Type: "pass", Target: 1})),
			wantPointer: "/moves/1/target", wantDetail: "only a lure names a target player",
		},
		{
			name: "Contents: 8 spiders, the ninth is not in the deck", players: 2,
			moves:       hTimes(9, hDraw("spider")),
			wantPointer: "/moves/8/card", wantDetail: "no spider is left in the deck",
		},
		{
			name: "Contents: 6 bees, the seventh is not in the deck", players: 2,
			moves:       hMoves(hTurn(hDraw("honey"), hPass()), hTimes(7, hDraw("bee"))),
			wantPointer: "/moves/8/card", wantDetail: "no bee is left in the deck",
		},
		{
			name: "Note above End of the Game: honey held by players is not reshuffled", players: 2,
			moves:       hMoves(hotelDrain(true), hTurn(hDraw("honey"))),
			wantPointer: fmt.Sprintf("/moves/%d/card", len(hotelDrain(true))),
			wantDetail:  "no honey is left in the deck",
		},
		{
			name: "Turning over cards E: spider example, the fly pair in the blue hotel is safe", players: 4,
			moves:       hMoves(hotelSpiderExample, hTurn(hSpider(0, "fly"))),
			wantPointer: "/moves/11/evict/species", wantDetail: "the fly pair in Ana's hotel is safe from the spider",
		},
		{
			name: "Turning over cards E: spider example, the yellow hotel has nobody to scare", players: 4,
			moves:       hMoves(hotelSpiderExample, hTurn(hSpider(2, "butterfly"))),
			wantPointer: "/moves/11/evict/species", wantDetail: "Cleo has no butterfly to scare",
		},
		{
			name: "Turning over cards E: spider example, the butterfly must go", players: 4,
			moves:       hMoves(hotelSpiderExample, hTurn(hDraw("spider"))),
			wantPointer: "/moves/11/evict", wantDetail: "Dev must scare a single guest out of another hotel: Ben's butterfly",
		},
		{
			name: "Turning over cards E: the drawer chooses among the single guests", players: 3,
			moves:       hMoves(hTurn(hDraw("bee")), hTurn(hDraw("butterfly")), hTurn(hDraw("spider"))),
			wantPointer: "/moves/2/evict", wantDetail: "Cleo must scare a single guest out of another hotel: Ana's bee or Ben's butterfly",
		},
		{
			name: "Turning over cards E: the spider scares another player's guest, not the drawer's", players: 2,
			moves:       hMoves(hTurn(hDraw("bee")), hTurn(hDraw("ladybird")), hTurn(hSpider(0, "bee"))),
			wantPointer: "/moves/2/evict/player", wantDetail: "a spider scares a guest out of another player's hotel, not out of Ana's own",
		},
		{
			name: "Turning over cards E: with nothing to scare, evict is left out", players: 2,
			moves:       hMoves(hTurn(hSpider(1, "ladybird"))),
			wantPointer: "/moves/0/evict/species", wantDetail: "Ben has no ladybird to scare; no other hotel has a single guest, so the spider scares nobody: leave evict out",
		},
		{
			name: "Turning over cards E: a species the hotel has no floor for", players: 2,
			moves:       hMoves(hTurn(hDraw("bee")), hTurn(hSpider(0, "earwig"))),
			wantPointer: "/moves/1/evict/species", wantDetail: "Ana's blue hotel has no floor for earwigs",
		},
		{
			name: "Turning over cards E: the evicted player must sit at the table", players: 2,
			moves:       hMoves(hTurn(hDraw("bee")), hTurn(hSpider(2, "bee"))),
			wantPointer: "/moves/1/evict/player", wantDetail: "there is no seat 2 at this table (seats 0 to 1)",
		},
		{
			name: "Luring insects F: no honey at all", players: 2,
			moves:       hMoves(hTurn(hLure(1, "bee"))),
			wantPointer: "/moves/0/type", wantDetail: "Ana has no honey: a lure costs 2 honey collected in an earlier round",
		},
		{
			name: "Luring insects F: honey collected this round is usable from the next round", players: 3,
			moves: hMoves(
				hTurn(hDraw("honey"), hDraw("honey"), hPass()), hTurn(hDraw("bee"), hPass()), hTurn(hDraw("honey"), hPass()),
				hTurn(hLure(1, "ant")), hTurn(hLure(0, "ladybird")),
			),
			wantPointer: "/moves/8/type", wantDetail: "Ben has no honey from an earlier round: honey is usable from the next round",
		},
		{
			name: "Luring insects F: two honey are needed", players: 2,
			moves:       hMoves(hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()), hTurn(hLure(1, "bee"))),
			wantPointer: "/moves/4/type", wantDetail: "Ana has only 1 honey, and a lure costs 2",
		},
		{
			name: "Luring insects F: one old honey and one got from a lure this round", players: 3,
			moves: hMoves(
				hTurn(hDraw("honey"), hPass()), hTurn(hDraw("honey"), hDraw("honey"), hPass()), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("honey"), hPass()), hTurn(hLure(2, "ladybird")), hTurn(hLure(0, "bee")),
			),
			wantPointer: "/moves/10/type",
			wantDetail:  "Cleo has only 1 honey from an earlier round, and a lure costs 2: honey collected this round is usable from the next round",
		},
		{
			name: "Luring insects F: a lure comes before drawing", players: 2,
			moves:       hMoves(hotelBenHasABee, hTurn(hDraw("honey"), hLure(1, "bee"))),
			wantPointer: "/moves/6/type", wantDetail: "Ana has already drawn this turn: a lure comes before the first draw",
		},
		{
			name: "Luring insects F: from another player's pile", players: 2,
			moves:       hMoves(hotelBenHasABee, hTurn(hLure(0, "bee"))),
			wantPointer: "/moves/5/target", wantDetail: "Ana lures from another player's pile, not from their own",
		},
		{
			name: "Luring insects F: from a seat at the table", players: 2,
			moves:       hMoves(hotelBenHasABee, hTurn(hLure(-1, "bee"))),
			wantPointer: "/moves/5/target", wantDetail: "there is no seat -1 at this table (seats 0 to 1)",
		},
		{
			name: "Luring insects F: a species of the game", players: 2,
			moves:       hMoves(hotelBenHasABee, hTurn(hLure(1, "wasp"))),
			wantPointer: "/moves/5/species", wantDetail: `"wasp" is not an Insektenhotel species`,
		},
		{
			name: "Luring insects F: a species the lurer's hotel has no floor for", players: 2,
			moves:       hMoves(hotelBenHasABee, hTurn(hLure(1, "earwig"))),
			wantPointer: "/moves/5/species", wantDetail: "the blue hotel has no floor for earwigs: lure a species it has a free room for",
		},
		{
			name: "Luring insects F: a species whose floor is full", players: 2,
			moves: hMoves(hTurn(hDraw("honey"), hDraw("honey"), hDraw("bee")), hTurn(hDraw("honey"), hPass()),
				hTurn(hDraw("bee")), hTurn(hDraw("honey"), hPass()), hTurn(hLure(1, "bee"))),
			wantPointer: "/moves/8/species", wantDetail: "the bee floor of the blue hotel is full: lure a species it has a free room for",
		},
		{
			name: "Luring insects F: a lure draws no card", players: 2,
			moves:       hMoves(hotelBenHasABee, hTurn(HotelMove{Type: "lure", Target: 1, Species: "bee", Card: "bee"})),
			wantPointer: "/moves/5/card", wantDetail: "only a draw names a card",
		},
		{
			name: "End of the Game: no move after the first full hotel", players: 2,
			moves:       hMoves(hotelAnaFills, hTurn(hDraw("honey"))),
			wantPointer: fmt.Sprintf("/moves/%d", len(hotelAnaFills)), wantDetail: "the game is over: Ana filled the blue hotel first",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReplayHotel(hotelSetupOf(tt.players), tt.moves)
			var verr *ValidationError
			if !errors.As(err, &verr) || len(verr.Errors) == 0 {
				t.Fatalf("ReplayHotel = %v, %v; want a *ValidationError", s, err)
			}
			if got := verr.Errors[0]; got.Pointer != tt.wantPointer || !strings.HasPrefix(got.Detail, tt.wantDetail) {
				t.Errorf("got %s: %s\nwant %s: %s", got.Pointer, got.Detail, tt.wantPointer, tt.wantDetail)
			}
			// The moves before the illegal one are fine: undo leaves a playable game.
			n := hotelMoveIndex(t, tt.wantPointer)
			if _, err := ReplayHotel(hotelSetupOf(tt.players), tt.moves[:n]); err != nil {
				t.Errorf("the moves before %d fail too: %v", n, err)
			}
		})
	}
}

// hotelMoveIndex reads N out of "/moves/N/…".
func hotelMoveIndex(t testing.TB, pointer string) int {
	t.Helper()
	var n int
	rest, ok := strings.CutPrefix(pointer, "/moves/")
	if _, err := fmt.Sscanf(rest, "%d", &n); !ok || err != nil {
		t.Fatalf("pointer %q does not name a move", pointer)
	}
	return n
}

func TestHotelSetupErrors(t *testing.T) {
	seat := func(name, hotel string, floors ...string) HotelSeat {
		return HotelSeat{Name: name, Hotel: hotel, Floors: [3]string(floors)}
	}
	tests := []struct {
		name  string
		setup HotelSetup
		want  []FieldError
	}{
		{
			name:  "Setup: the starting player sits at the table, the last seat at the limit",
			setup: HotelSetup{Players: hotelSeats[:2], First: 2},
			want:  []FieldError{{Pointer: "/first", Detail: "the first player is a seat of the table, 0 to 1, not 2"}},
		},
		{
			name:  "Setup: the starting player is no negative seat",
			setup: HotelSetup{Players: hotelSeats[:4], First: -1},
			want:  []FieldError{{Pointer: "/first", Detail: "the first player is a seat of the table, 0 to 3, not -1"}},
		},
		{
			name:  "Gameplay: two to four players",
			setup: HotelSetup{Players: hotelSeats[:1]},
			want:  []FieldError{{Pointer: "/players", Detail: "Insektenhotel is for 2 to 4 players, not 1"}},
		},
		{
			name: "Setup: each player takes a hotel of their own colour",
			setup: HotelSetup{Players: []HotelSeat{
				seat("Ana", "blue", "bee", "ant", "fly"), seat("Ben", "blue", "bee", "ant", "fly"), seat("Cleo", "pink", "bee", "ant", "fly"),
			}},
			want: []FieldError{
				{Pointer: "/players/1/hotel", Detail: "the blue hotel is already Ana's: each player runs a hotel of their own colour"},
				{Pointer: "/players/2/hotel", Detail: `"pink" is not a hotel: choose blue, green, yellow or red`},
			},
		},
		{
			name: "a hotel's three floors are for three species",
			setup: HotelSetup{Players: []HotelSeat{
				seat("Ana", "blue", "bee", "wasp", "bee"), seat("Ben", "red", "ant", "fly", ""),
			}},
			want: []FieldError{
				{Pointer: "/players/0/floors/1", Detail: `"wasp" is not an Insektenhotel species: choose bee, ant, fly, ladybird, butterfly or earwig`},
				{Pointer: "/players/0/floors/2", Detail: "this hotel already has a floor for bees: its three floors are for three different species"},
				{Pointer: "/players/1/floors/2", Detail: "choose the species this floor is for"},
			},
		},
		{
			name: "players have names the log can tell apart",
			setup: HotelSetup{Players: []HotelSeat{
				seat(" ", "blue", "bee", "ant", "fly"), seat("Ana", "red", "bee", "ant", "fly"), seat("ana ", "green", "bee", "ant", "fly"),
			}},
			want: []FieldError{
				{Pointer: "/players/0/name", Detail: "every player needs a name"},
				{Pointer: "/players/2/name", Detail: `"ana" is already player 2; give each player their own name`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReplayHotel(tt.setup, nil)
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("ReplayHotel error = %v, want a *ValidationError", err)
			}
			if got := shown(verr.Errors); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %v\nwant %v", got, tt.want)
			}
		})
	}
}

func TestHotelStateJSON(t *testing.T) {
	// Ben's hotel has no butterfly floor, so "butterfly" may appear in the
	// JSON only by giving away Ana's face-down card.
	setup := HotelSetup{Players: []HotelSeat{hotelSeats[0], {Name: "Ben", Hotel: "green", Floors: [3]string{"ladybird", "earwig", "ant"}}}}
	s, err := ReplayHotel(setup, hMoves(hTurn(hDraw("butterfly"), hDraw("honey"), hDraw("bee"))))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"turn":1,"round":1,"first":0,"drawn":0,"players":[` +
		`{"name":"Ana","hotel":"blue","floors":[{"species":"bee","guests":1},{"species":"ant","guests":0},{"species":"fly","guests":0}],"guests":1,"honey":1,"honeyUsable":0,"pile":1},` +
		`{"name":"Ben","hotel":"green","floors":[{"species":"ladybird","guests":0},{"species":"earwig","guests":0},{"species":"ant","guests":0}],"guests":0,"honey":0,"honeyUsable":0,"pile":0}],` +
		`"deck":69,"discard":0,"finished":false,"winner":-1,"log":[` +
		`"Ana drew an insect with no free room in the blue hotel and put it face down on the pile beside it (1 card).",` +
		`"Ana drew a honey card, usable from the next round.",` +
		`"Ana drew a bee and put it in the blue hotel."]}`
	if got := string(raw); got != want {
		t.Errorf("JSON\n got %s\nwant %s", got, want)
	}
	if strings.Contains(string(raw), "butterfly") {
		t.Error("the JSON gives away the face-down butterfly")
	}
	// A move log is stored as JSON; seat 0 as a target is left out and
	// comes back as 0.
	moves := []HotelMove{hSpider(0, "bee"), hLure(1, "ant"), hLure(0, "fly"), hDraw("honey"), hPass()}
	raw, _ = json.Marshal(moves)
	want = `[{"type":"draw","card":"spider","evict":{"player":0,"species":"bee"}},{"type":"lure","target":1,"species":"ant"},{"type":"lure","species":"fly"},{"type":"draw","card":"honey"},{"type":"pass"}]`
	if got := string(raw); got != want {
		t.Errorf("moves JSON\n got %s\nwant %s", got, want)
	}
	var back []HotelMove
	if err := json.Unmarshal(raw, &back); err != nil || !reflect.DeepEqual(back, moves) {
		t.Errorf("moves JSON read back as %+v, %v; want %+v", back, err, moves)
	}
}

func TestHotelBoards(t *testing.T) {
	tests := []struct {
		name         string
		moves        []HotelMove
		wantBoards   []string
		wantComplete bool
		wantWinners  []int
	}{
		{
			name:  "a game under way scores as incomplete",
			moves: hMoves(hTurn(hDraw("bee")), hTurn(hDraw("earwig"))),
			wantBoards: []string{
				`{"hotel":"blue","floors":[{"species":"bee","guests":1},{"species":"ant","guests":0},{"species":"fly","guests":0}]}`,
				`{"hotel":"green","floors":[{"species":"ladybird","guests":0},{"species":"butterfly","guests":0},{"species":"earwig","guests":1}]}`,
			},
			wantWinners: []int{},
		},
		{
			name:  "End of the Game: the tracker's winner is the scoring engine's winner",
			moves: hotelAnaFills,
			wantBoards: []string{
				`{"hotel":"blue","floors":[{"species":"bee","guests":2},{"species":"ant","guests":2},{"species":"fly","guests":2}]}`,
				`{"hotel":"green","floors":[{"species":"ladybird","guests":0},{"species":"butterfly","guests":0},{"species":"earwig","guests":0}]}`,
			},
			wantComplete: true, wantWinners: []int{0},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := ReplayHotel(hotelSetupOf(2), tt.moves)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, b := range s.Boards() {
				got = append(got, string(b))
			}
			if !slices.Equal(got, tt.wantBoards) {
				t.Errorf("boards\n got %s\nwant %s", got, tt.wantBoards)
			}
			g, _ := Lookup("insektenhotel")
			res, err := scoreCase(t, g, s.ScoreRequest())
			if err != nil {
				t.Fatalf("Score: %v", err)
			}
			if res.Complete != tt.wantComplete || !slices.Equal(res.Winners, tt.wantWinners) {
				t.Errorf("complete=%v winners=%v, want %v %v", res.Complete, res.Winners, tt.wantComplete, tt.wantWinners)
			}
		})
	}
}

// hotelCheckState asserts what holds after any legal game: every card of
// the box is somewhere, counts match the hidden piles, and exactly the
// winner's hotel is full.
func hotelCheckState(t *testing.T, s *HotelState) {
	t.Helper()
	where := s.deck
	for k, n := range s.discard {
		where[k] += n
	}
	full := 0
	for i, p := range s.Players {
		where[hotelHoney] += p.Honey
		for _, k := range p.pile {
			where[k]++
		}
		for _, f := range p.Floors {
			if f.Guests < 0 || f.Guests > hotelRooms {
				t.Fatalf("%s's %s floor holds %d guests", p.Name, f.Species, f.Guests)
			}
			where[hotelKind(f.Species)] += f.Guests
		}
		if p.Pile != len(p.pile) || p.HoneyUsable < 0 || p.HoneyUsable > p.Honey || p.Guests != hotelGuests(p.Floors) {
			t.Fatalf("seat %d shows pile %d of %d, honey %d/%d, guests %d", i, p.Pile, len(p.pile), p.Honey, p.HoneyUsable, p.Guests)
		}
		if hotelIsFull(p.Floors) {
			full++
			if s.Winner != i {
				t.Fatalf("seat %d is full but the winner is %d", i, s.Winner)
			}
		}
	}
	if where != hotelBox {
		t.Fatalf("cards by kind %v, the box holds %v", where, hotelBox)
	}
	if s.Deck != s.deck.total() || s.Discard != s.discard.total() {
		t.Fatalf("deck %d/%d, discard %d/%d", s.Deck, s.deck.total(), s.Discard, s.discard.total())
	}
	if s.Finished != (full == 1) || s.Finished != (s.Winner >= 0) || full > 1 {
		t.Fatalf("finished=%v winner=%d with %d full hotels", s.Finished, s.Winner, full)
	}
	if s.Turn < 0 || s.Turn >= len(s.Players) || s.Round < 1 {
		t.Fatalf("turn %d of %d players, round %d", s.Turn, len(s.Players), s.Round)
	}
}

// hotelFuzzMove turns three bytes into a move, legal or not.
func hotelFuzzMove(b0, b1, b2 byte) HotelMove {
	cards := []string{"bee", "ant", "fly", "ladybird", "butterfly", "earwig", "honey", "cockroach", "spider", "wasp", ""}
	species := []string{"bee", "ant", "fly", "ladybird", "butterfly", "earwig", "", "wasp"}
	switch b0 % 8 {
	case 0, 1, 2, 3:
		m := HotelMove{Type: "draw", Card: cards[int(b1)%len(cards)]}
		if b2%4 != 0 || m.Card != "spider" {
			m.Evict = &HotelEvict{Player: int(b2>>4)%6 - 1, Species: species[int(b2)%len(species)]}
		}
		if b0 > 250 {
			m.Target = 1
		}
		return m
	case 4, 5:
		return HotelMove{Type: "lure", Target: int(b1)%6 - 1, Species: species[int(b2)%len(species)]}
	case 6:
		return HotelMove{Type: "pass"}
	}
	return HotelMove{Type: cards[int(b1)%len(cards)]}
}

// hotelGuidedMove picks, from one byte, a move likely to be legal in s, so
// that fuzzing reaches lures, reshuffles and the end of the game.
func hotelGuidedMove(s *HotelState, b byte) HotelMove {
	choice := int(b / 8)
	switch b % 8 {
	case 0:
		return hotelFuzzMove(b/8, b*7, b*13) // any move at all
	case 1:
		return HotelMove{Type: "pass"}
	case 2:
		t := (s.Turn + 1 + choice%(len(s.Players)-1)) % len(s.Players)
		return HotelMove{Type: "lure", Target: t, Species: hotelSpecies[choice%len(hotelSpecies)].ID}
	}
	var kinds []int
	for k := range hotelKinds {
		if s.deck[k] > 0 || s.deck.total() == 0 {
			kinds = append(kinds, k)
		}
	}
	k := kinds[choice%len(kinds)]
	m := HotelMove{Type: "draw", Card: hotelCardID(k)}
	if k == hotelSpider {
		var singles []HotelEvict
		for i, p := range s.Players {
			for _, f := range p.Floors {
				if i != s.Turn && f.Guests == 1 {
					singles = append(singles, HotelEvict{Player: i, Species: f.Species})
				}
			}
		}
		if len(singles) > 0 {
			m.Evict = &singles[choice%len(singles)]
		}
	}
	return m
}

// FuzzReplayHotel replays byte-made move lists: never a panic, an illegal
// move is reported at its own index, and every accepted game keeps the
// card count, scores through the engine, and replays to the same state.
func FuzzReplayHotel(f *testing.F) {
	f.Add([]byte{0, 3, 6, 6, 1, 0, 7, 2, 1, 2, 9, 9, 3, 4, 5, 2, 8, 8, 6, 0, 0})
	f.Add([]byte("two players draw a lot of honey and lure and lure again"))
	f.Add(slices.Repeat([]byte{2, 3, 3, 3, 5, 1, 4, 7, 1, 8, 1, 2}, 30))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Longer inputs add nothing but slow the fuzzer's minimizing down.
		if len(data) == 0 || len(data) > 400 {
			t.Skip()
		}
		setup := hotelSetupOf(2 + int(data[0])%3)
		hotelFuzzRaw(t, setup, data[1:])
		hotelFuzzGuided(t, setup, data[1:])
	})
}

// hotelFuzzRaw replays three bytes a move, mostly illegal: the error must
// name the first illegal move, and the moves before it must replay.
func hotelFuzzRaw(t *testing.T, setup HotelSetup, data []byte) {
	var moves []HotelMove
	for i := 0; i+2 < len(data); i += 3 {
		moves = append(moves, hotelFuzzMove(data[i], data[i+1], data[i+2]))
	}
	if _, err := ReplayHotel(setup, moves); err != nil {
		n := hotelFuzzError(t, err)
		if _, err := ReplayHotel(setup, moves[:n]); err != nil {
			t.Fatalf("moves before the illegal move %d fail: %v", n, err)
		}
	}
}

// hotelFuzzGuided plays a byte a move, keeping the legal ones, checks the
// state after each, and then that replaying the kept moves (undo's way)
// gives the same state, which also shows a rejected move changed nothing.
func hotelFuzzGuided(t *testing.T, setup HotelSetup, data []byte) {
	s, _ := ReplayHotel(setup, nil)
	var kept []HotelMove
	for _, b := range data {
		if s.Finished {
			break
		}
		m := hotelGuidedMove(s, b)
		if err := s.apply(fmt.Sprintf("/moves/%d", len(kept)), m); err != nil {
			if n := hotelFuzzError(t, err); n != len(kept) {
				t.Fatalf("move %d rejected at index %d", len(kept), n)
			}
			continue
		}
		kept = append(kept, m)
		hotelCheckState(t, s)
	}
	again, err := ReplayHotel(setup, kept)
	if err != nil || !reflect.DeepEqual(again, s) {
		t.Fatalf("replaying the accepted moves gives %v, %+v; want %+v", err, again, s)
	}
	res, err := scoreCase(t, insektenhotel{}, s.ScoreRequest())
	if err != nil {
		t.Fatalf("the tracker's boards do not score: %v", err)
	}
	if res.Complete != s.Finished || (s.Finished && !slices.Equal(res.Winners, []int{s.Winner})) {
		t.Fatalf("score complete=%v winners=%v, tracker finished=%v winner=%d", res.Complete, res.Winners, s.Finished, s.Winner)
	}
}

// hotelFuzzError checks that err is a ValidationError pointing at a move
// and returns that move's index.
func hotelFuzzError(t *testing.T, err error) int {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errors) == 0 {
		t.Fatalf("error %v is not a ValidationError", err)
	}
	n := hotelMoveIndex(t, verr.Errors[0].Pointer)
	base := fmt.Sprintf("/moves/%d", n)
	for _, fe := range verr.Errors {
		if (fe.Pointer != base && !strings.HasPrefix(fe.Pointer, base+"/")) || fe.Detail == "" {
			t.Fatalf("problem %+v is not about move %d", fe, n)
		}
	}
	return n
}

// TestHotelTracker: what a live table asks of Insektenhotel through its
// Tracker. A move is read strictly and kept as encoded again; the seats
// are set up from their boards, a board that is not a hotel sets up
// nothing and is refused at the seat; the moves play as ReplayHotel plays
// them, with the turn and hotels it gives.
func TestHotelTracker(t *testing.T) {
	tr, ok := TrackerOf(insektenhotel{})
	if !ok {
		t.Fatal("Insektenhotel has no tracker")
	}
	m, err := tr.ReadMove([]byte(` {"card": "bee", "type": "draw"} `))
	if err != nil || string(m) != `{"type":"draw","card":"bee"}` {
		t.Errorf("ReadMove = %s, %v", m, err)
	}
	var verr *ValidationError
	if _, err := tr.ReadMove([]byte(`{"type": "draw", "jump": 1}`)); !errors.As(err, &verr) || verr.Errors[0].Pointer != "/jump" {
		t.Errorf("ReadMove of an unknown field: %v", err)
	}
	var rerr *RequestError
	if _, err := tr.ReadMove([]byte(`{"type": `)); !errors.As(err, &rerr) || rerr.Status != 400 {
		t.Errorf("ReadMove of broken JSON: %v", err)
	}

	boards := []PlayerInput{
		{Name: "Ana", Board: json.RawMessage(`{"hotel": "blue", "floors": [{"species": "bee"}, {"species": "ant"}, {"species": "fly"}]}`)},
		{Name: "Ben", Board: json.RawMessage(`{"hotel": "green", "floors": [{"species": "ladybird"}, {"species": "butterfly"}, {"species": "earwig"}]}`)},
	}
	moves := []json.RawMessage{json.RawMessage(`{"type":"draw","card":"ladybird"}`), json.RawMessage(`{"type":"draw","card":"bee"}`)}
	got, err := tr.Replay(boards, 1, moves)
	if err != nil {
		t.Fatal(err)
	}
	want, err := ReplayHotel(HotelSetup{Players: hotelSeats[:2], First: 1}, []HotelMove{{Type: "draw", Card: "ladybird"}, {Type: "draw", Card: "bee"}})
	if err != nil {
		t.Fatal(err)
	}
	if got.Next() != want.Turn || !reflect.DeepEqual(got.Boards(), want.Boards()) || !reflect.DeepEqual(got.In(nil), want) {
		t.Errorf("Replay = %+v, want %+v", got, want)
	}
	boards[1].Board = json.RawMessage(`{"totals": {"guests": 3}}`)
	if _, err := tr.Replay(boards, 0, moves); !errors.As(err, &verr) || !strings.HasPrefix(verr.Errors[0].Pointer, "/players/1/") {
		t.Errorf("Replay beside a totals sheet: %v", err)
	}
}

// TestHotelLogInLanguages: a hotel's log is written again in a catalog's
// language, line for line; English (no catalog) and no state are left as
// they are.
func TestHotelLogInLanguages(t *testing.T) {
	st, err := ReplayHotel(hotelSetupOf(2), hMoves(hTurn(hDraw("ant"))))
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Log) == 0 {
		t.Fatal("the replay wrote no log")
	}
	if got := Catalog(nil).Hotel(st); got != st {
		t.Error("English relabelled the hotel")
	}
	if got := loadCatalog(t, "de").Hotel(nil); got != nil {
		t.Errorf("no hotel relabelled as %+v", got)
	}
	de := loadCatalog(t, "de").Hotel(st)
	if de == st || len(de.Log) != len(st.Log) {
		t.Fatalf("the German log is %q, want a copy of %d lines", de.Log, len(st.Log))
	}
	last := len(st.Log) - 1
	if de.Log[last] == st.Log[last] || !strings.Contains(de.Log[last], "Ana") {
		t.Errorf("the German log's last line is %q, want Ana's turn in German, not %q", de.Log[last], st.Log[last])
	}
}

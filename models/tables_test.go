package models

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"insectscore/scoring"
)

var ctx = context.Background()

func intp(v int) *int { return &v }

// newTable creates an insectarium table (at most 4 players) with the given
// seat names.
func newTable(t *testing.T, s *Store, names ...string) (*Table, string) {
	t.Helper()
	tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insectarium", Names: names})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return tbl, host
}

// putSheets puts totals sheets on a table's seats, for its host, that
// score them 10 points apart, first seat best: a finished game whatever
// the boards were.
func putSheets(t *testing.T, s *Store, code, host string) {
	t.Helper()
	tbl, err := s.FindTableByCode(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range tbl.Seats {
		board := sheet(tbl.Game, 10*(len(tbl.Seats)-i))
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: code, Token: host, Seat: st.Seat, Board: board}, nil); err != nil {
			t.Fatalf("PutBoard: %v", err)
		}
	}
}

// finish finishes a table for its host with putSheets's boards and
// returns the play's id.
func finish(t *testing.T, s *Store, code, host string) string {
	t.Helper()
	putSheets(t, s, code, host)
	f, _, err := s.Finish(ctx, code, host, false, nil)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return f.PlayID
}

// hotelBoards set up the Insektenhotel table of TestHotelTablePlay (api):
// Ana's blue hotel of bees, ants and flies, Ben's red one of ladybirds,
// butterflies and earwigs, no guests yet.
var hotelBoards = []json.RawMessage{
	json.RawMessage(`{"hotel": "blue", "floors": [{"species": "bee", "guests": 0}, {"species": "ant", "guests": 0}, {"species": "fly", "guests": 0}]}`),
	json.RawMessage(`{"hotel": "red", "floors": [{"species": "ladybird", "guests": 0}, {"species": "butterfly", "guests": 0}, {"species": "earwig", "guests": 0}]}`),
}

// hotelDraws play that table to its end, turn by turn: Ana's last fly
// fills her hotel, 6 guests to Ben's 5.
var hotelDraws = []string{"bee", "ladybird", "bee", "ladybird", "ant", "butterfly", "ant", "butterfly", "fly", "earwig", "fly"}

// draw is the body of a move that draws card.
func draw(card string) []byte { return fmt.Appendf(nil, `{"type": "draw", "card": %q}`, card) }

// hotelTable starts an Insektenhotel table of Ana and Ben with
// hotelBoards set up.
func hotelTable(t *testing.T, s *Store) (*Table, string) {
	t.Helper()
	tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insektenhotel", Names: []string{"Ana", "Ben"}, Boards: hotelBoards})
	if err != nil {
		t.Fatalf("CreateTable: %v", err)
	}
	return tbl, host
}

// drawAll makes the draws of cards at a tracked table, for its host, and
// returns the table after the last.
func drawAll(t *testing.T, s *Store, code, host string, cards ...string) TableState {
	t.Helper()
	var st TableState
	for _, card := range cards {
		var err error
		if st, _, err = s.AddMove(ctx, code, host, draw(card), nil, nil); err != nil {
			t.Fatalf("AddMove %s: %v", card, err)
		}
	}
	return st
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: err = %v, want %v", what, err, want)
	}
}

func wantVersionError(t *testing.T, what string, err error, current int) {
	t.Helper()
	var verr *VersionError
	if !errors.As(err, &verr) || verr.Current != current {
		t.Errorf("%s: err = %v, want *VersionError{Current: %d}", what, err, current)
	}
}

func TestCreateTable(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		at := time.Date(2025, 3, 1, 19, 30, 0, 123456789, time.FixedZone("CET", 3600))
		s.Now = func() time.Time { return at }
		got, host, err := s.CreateTable(ctx, NewTable{
			Game:     "insecta",
			Names:    []string{" Ana ", "Ben"},
			Variants: map[string]int{"oneFragment": 1},
			Boards:   []json.RawMessage{json.RawMessage(`{"track":3}`), nil},
		})
		if err != nil {
			t.Fatal(err)
		}
		wantAt := at.UTC().Truncate(time.Microsecond)
		want := &Table{Code: got.Code, Game: "insecta", Group: DefaultGroup, Status: StatusOpen, Version: 1,
			Variants: map[string]int{"oneFragment": 1},
			Seats: []Seat{
				{Seat: 0, Name: "Ana", Board: json.RawMessage(`{"track":3}`)},
				{Seat: 1, Name: "Ben"},
			},
			CreatedAt: wantAt, UpdatedAt: wantAt}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("CreateTable:\n got %+v\nwant %+v", got, want)
		}
		if len(host) != 43 {
			t.Errorf("host token %q: want 43 characters", host)
		}
		found, err := s.FindTableByCode(ctx, got.Code)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(found, want) {
			t.Errorf("FindTableByCode:\n got %+v\nwant %+v", found, want)
		}
	})
}

// TestCreateTableFirstSeat keeps the seat a move-by-move table starts at
// (issue 11) through every read of the table, the board put included.
func TestCreateTableFirstSeat(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		got, host, err := s.CreateTable(ctx, NewTable{Game: "insektenhotel", Names: []string{"Ana", "Ben", "Cleo"}, First: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got.First != 2 {
			t.Errorf("CreateTable: first = %d, want 2", got.First)
		}
		found, err := s.FindTableByCode(ctx, got.Code)
		if err != nil {
			t.Fatal(err)
		}
		if found.First != 2 {
			t.Errorf("FindTableByCode: first = %d, want 2", found.First)
		}
		putState, _, err := s.PutBoard(ctx, BoardPut{Code: got.Code, Token: host, Seat: 1, Board: json.RawMessage(`{"hotel":"green"}`)}, nil)
		put := putState.Table
		if err != nil {
			t.Fatal(err)
		}
		if put.First != 2 {
			t.Errorf("PutBoard: first = %d, want 2", put.First)
		}
	})
}

func TestCreateTableErrors(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tests := []struct {
			name string
			in   NewTable
			want error // nil: any error
		}{
			{"same name twice, typed differently", NewTable{Game: "insecta", Names: []string{"Ana Lu", " ana  LU"}}, &scoring.ValidationError{}},
			{"no such game", NewTable{Game: "chess", Names: []string{"Ana"}}, &scoring.ValidationError{}},
			{"a variant the game does not have", NewTable{Game: "insecta", Names: []string{"Ana"}, Variants: map[string]int{"x": 1}}, &scoring.ValidationError{}},
			{"first seat of a game not played move by move", NewTable{Game: "insecta", Names: []string{"Ana", "Ben"}, First: 1}, &scoring.ValidationError{}},
			{"empty name", NewTable{Game: "insecta", Names: []string{"Ana", " "}}, nil},
			{"boards do not match names", NewTable{Game: "insecta", Names: []string{"Ana"}, Boards: []json.RawMessage{nil, nil}}, nil},
			{"board not JSON", NewTable{Game: "insecta", Names: []string{"Ana"}, Boards: []json.RawMessage{json.RawMessage(`{`)}}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := s.CreateTable(ctx, tt.in)
				var verr *scoring.ValidationError
				if _, rules := tt.want.(*scoring.ValidationError); rules && !errors.As(err, &verr) {
					t.Errorf("err = %v, want the rules' refusal", err)
				} else if err == nil || (tt.want != nil && !rules && !errors.Is(err, tt.want)) {
					t.Errorf("err = %v, want %v", err, tt.want)
				}
			})
		}
		var n int64
		s.db.Table("tables").Count(&n)
		if n != 0 {
			t.Errorf("%d tables left by failed creates, want 0", n)
		}
	})
}

func TestCreateTableWithoutSeats(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s)
		if len(tbl.Seats) != 0 || tbl.Seats == nil {
			t.Errorf("seats = %#v, want empty", tbl.Seats)
		}
	})
}

// zeros is a Rand that always draws the same code, "222222".
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestCreateTableCodeCollision(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		// The host token is drawn first (32 bytes), then the code.
		s.Rand = io.MultiReader(io.LimitReader(zeros{}, 32+CodeLength), rand.Reader)
		first, _ := newTable(t, s, "Ana")
		if first.Code != "222222" {
			t.Fatalf("first code = %q, want 222222", first.Code)
		}
		s.Rand = io.MultiReader(io.LimitReader(zeros{}, 32+CodeLength), rand.Reader)
		second, _ := newTable(t, s, "Ana")
		if second.Code == first.Code {
			t.Fatalf("second table got the taken code %q", second.Code)
		}
		s.Rand = zeros{}
		if _, _, err := s.CreateTable(ctx, NewTable{Game: "insecta"}); err == nil || !strings.Contains(err.Error(), "no free table code") {
			t.Errorf("only taken codes: err = %v, want 'no free table code'", err)
		}
	})
}

func TestFindTableByCode(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana")
		tests := []struct {
			name string
			code string
			want error
		}{
			{"as issued", tbl.Code, nil},
			{"typed in lower case with spaces", " " + strings.ToLower(tbl.Code) + " ", nil},
			{"unknown", "ZZZZZZ", ErrNotFound},
			{"empty", "", ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.FindTableByCode(ctx, tt.code)
				if !errors.Is(err, tt.want) {
					t.Fatalf("err = %v, want %v", err, tt.want)
				}
				if err == nil && got.Code != tbl.Code {
					t.Errorf("code = %q, want %q", got.Code, tbl.Code)
				}
			})
		}
	})
}

func TestJoinTable(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := newTable(t, s, "Ana", "Ben")
		joined, _, err := s.JoinTable(ctx, tbl.Code, "  Cleo ", nil)
		if err != nil {
			t.Fatal(err)
		}
		if joined.Seat != 2 || len(joined.Token) != 43 {
			t.Errorf("JoinTable = %d, %q; want seat 2 and a 43-character token", joined.Seat, joined.Token)
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if want := (Seat{Seat: 2, Name: "Cleo", Claimed: true}); !reflect.DeepEqual(got.Seats[2], want) {
			t.Errorf("new seat = %+v, want %+v", got.Seats[2], want)
		}
		if got.Version != 2 {
			t.Errorf("version = %d, want 2", got.Version)
		}
		if !reflect.DeepEqual(joined.State.Table, got) {
			t.Errorf("JoinTable's table:\n got %+v\na reload gives\n%+v", joined.State.Table, got)
		}
		if role, _ := s.Authorize(ctx, tbl.Code, joined.Token); role != (Role{Seat: 2}) {
			t.Errorf("new seat's token authorizes %+v", role)
		}

		_, _, err = s.JoinTable(ctx, tbl.Code, "cLEO", nil)
		wantNameError(t, "name already seated", err)
		_, _, err = s.JoinTable(ctx, "ZZZZZZ", "Dan", nil)
		wantErr(t, "unknown table", err, ErrNotFound)
		_, _, err = s.JoinTable(ctx, tbl.Code, " ", nil)
		wantNameError(t, "empty name", err)
		if _, _, err := s.JoinTable(ctx, tbl.Code, "Dan", nil); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.JoinTable(ctx, tbl.Code, "Eve", nil)
		wantErr(t, "fifth seat of a 4-player game", err, errState)
		if got, _ := s.FindTableByCode(ctx, tbl.Code); got.Version != 3 || len(got.Seats) != 4 {
			t.Errorf("refused joins left version %d and %d seats, want 3 and 4", got.Version, len(got.Seats))
		}

		finish(t, s, tbl.Code, host)
		_, _, err = s.JoinTable(ctx, tbl.Code, "Fay", nil)
		wantErr(t, "finished table", err, ErrFinished)
	})
}

// errState matches a refusal by the table's state: a join at a table at
// its game's player limit, a finish of a finished table.
var errState = &Refusal{Kind: RefusedState}

// wantNameError wants a refusal by the rules of the name joining.
func wantNameError(t *testing.T, what string, err error) {
	t.Helper()
	var verr *scoring.ValidationError
	if !errors.As(err, &verr) || len(verr.Errors) != 1 || verr.Errors[0].Pointer != "/name" {
		t.Errorf("%s: err = %v, want a *scoring.ValidationError at /name", what, err)
	}
}

func TestClaimSeat(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := newTable(t, s, "Ana", "Ben")
		token, err := s.ClaimSeat(ctx, tbl.Code, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(token) != 43 {
			t.Errorf("token %q: want 43 characters", token)
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if !got.Seats[1].Claimed || got.Seats[0].Claimed || got.Version != 2 {
			t.Errorf("after claim: seats %+v version %d; want seat 1 claimed, version 2", got.Seats, got.Version)
		}
		if role, _ := s.Authorize(ctx, tbl.Code, token); role != (Role{Seat: 1}) {
			t.Errorf("claimed token authorizes %+v, want seat 1", role)
		}

		_, err = s.ClaimSeat(ctx, tbl.Code, 1)
		wantErr(t, "claim twice", err, ErrConflict)
		if role, _ := s.Authorize(ctx, tbl.Code, token); role != (Role{Seat: 1}) {
			t.Errorf("a refused second claim changed the token: %+v", role)
		}
		_, err = s.ClaimSeat(ctx, tbl.Code, 7)
		wantErr(t, "no such seat", err, ErrNotFound)
		_, err = s.ClaimSeat(ctx, "ZZZZZZ", 0)
		wantErr(t, "unknown table", err, ErrNotFound)
		if got, _ := s.FindTableByCode(ctx, tbl.Code); got.Version != 2 {
			t.Errorf("failed claims changed the version to %d", got.Version)
		}
		finish(t, s, tbl.Code, host)
		_, err = s.ClaimSeat(ctx, tbl.Code, 0)
		wantErr(t, "finished table", err, ErrFinished)
	})
}

func TestAuthorize(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := newTable(t, s, "Ana", "Ben")
		ana, _ := s.ClaimSeat(ctx, tbl.Code, 0)
		cleo, _, err := s.JoinTable(ctx, tbl.Code, "Cleo", nil)
		if err != nil {
			t.Fatal(err)
		}
		other, otherHost := newTable(t, s, "Dan")
		otherSeat, _ := s.ClaimSeat(ctx, other.Code, 0)
		none := Role{Seat: -1}
		tests := []struct {
			name  string
			code  string
			token string
			want  Role
			err   error
		}{
			{"host", tbl.Code, host, Role{Host: true, Seat: -1}, nil},
			{"claimed seat", tbl.Code, ana, Role{Seat: 0}, nil},
			{"joined seat", tbl.Code, cleo.Token, Role{Seat: 2}, nil},
			{"lower-case code", strings.ToLower(tbl.Code), ana, Role{Seat: 0}, nil},
			{"empty token", tbl.Code, "", none, nil},
			{"unknown token", tbl.Code, "nope", none, nil},
			{"another table's host", tbl.Code, otherHost, none, nil},
			{"another table's seat", tbl.Code, otherSeat, none, nil},
			{"the stored hash as token", tbl.Code, hashToken(host), none, nil},
			{"unknown table: as a stranger's token", "ZZZZZZ", host, none, errToken},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Authorize(ctx, tt.code, tt.token)
				if !errors.Is(err, tt.err) || got != tt.want {
					t.Errorf("Authorize = %+v, %v; want %+v, %v", got, err, tt.want, tt.err)
				}
			})
		}
		finish(t, s, tbl.Code, host)
		if got, err := s.Authorize(ctx, tbl.Code, host); err != nil || !got.Host {
			t.Errorf("host of a finished table: %+v, %v", got, err)
		}
	})
}

func TestRole(t *testing.T) {
	tests := []struct {
		name      string
		role      Role
		valid     bool
		canEdit0  bool
		canEdit1  bool
		canEditM1 bool
	}{
		{"host", Role{Host: true, Seat: -1}, true, true, true, true},
		{"seat 1", Role{Seat: 1}, true, false, true, false},
		{"nobody", Role{Seat: -1}, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []bool{tt.role.Valid(), tt.role.CanEditSeat(0), tt.role.CanEditSeat(1), tt.role.CanEditSeat(-1)}
			want := []bool{tt.valid, tt.canEdit0, tt.canEdit1, tt.canEditM1}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Valid, CanEditSeat(0, 1, -1) = %v, want %v", got, want)
			}
		})
	}
}

// TestPutBoardVersions: each board put is a new version, a stale
// If-Match saves nothing, and a finished table refuses boards whatever
// version they were made against.
func TestPutBoardVersions(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := newTable(t, s, "Ana", "Ben")
		// Each row runs on the table as the rows before left it.
		tests := []struct {
			name        string
			code        string
			seat        int
			board       string
			ifVersion   *int
			wantVersion int
			wantErr     error
			wantCurrent int // for a *VersionError
			wantBoard   string
		}{
			{name: "first board", code: tbl.Code, seat: 0, board: `{"supply":1}`, wantVersion: 2, wantBoard: `{"supply":1}`},
			{name: "matching If-Match", code: tbl.Code, seat: 0, board: `{"supply":2}`, ifVersion: intp(2), wantVersion: 3, wantBoard: `{"supply":2}`},
			{name: "stale If-Match", code: tbl.Code, seat: 0, board: `{"supply":9}`, ifVersion: intp(2), wantCurrent: 3, wantBoard: `{"supply":2}`},
			{name: "lower-case code", code: strings.ToLower(tbl.Code), seat: 1, board: ` {"supply": 4} `, wantVersion: 4},
			{name: "null clears", code: tbl.Code, seat: 0, board: `null`, wantVersion: 5},
			{name: "no such seat", code: tbl.Code, seat: 5, board: `{}`, wantErr: ErrNotFound},
			{name: "unknown table", code: "ZZZZZZ", seat: 0, board: `{}`, wantErr: errToken},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				st, _, err := s.PutBoard(ctx, BoardPut{Code: tt.code, Token: host, Seat: tt.seat, Board: json.RawMessage(tt.board), IfVersion: tt.ifVersion}, nil)
				switch {
				case tt.wantCurrent != 0:
					wantVersionError(t, "PutBoard", err, tt.wantCurrent)
				case tt.wantErr != nil:
					wantErr(t, "PutBoard", err, tt.wantErr)
				case err != nil || st.Table.Version != tt.wantVersion:
					t.Fatalf("PutBoard = %+v, %v; want version %d", st.Table, err, tt.wantVersion)
				}
				if tt.wantBoard != "" {
					got, _ := s.FindTableByCode(ctx, tbl.Code)
					if string(got.Seats[tt.seat].Board) != tt.wantBoard {
						t.Errorf("board %s, want %s", got.Seats[tt.seat].Board, tt.wantBoard)
					}
				}
			})
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if got.Version != 5 || got.Seats[0].Board != nil || string(got.Seats[1].Board) != ` {"supply": 4} ` {
			t.Errorf("after the rows: version %d, boards %s, %s", got.Version, got.Seats[0].Board, got.Seats[1].Board)
		}
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: json.RawMessage(`{"supply":`)}, nil); err == nil {
			t.Error("invalid JSON: nil error")
		}
		finish(t, s, tbl.Code, host)
		_, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: json.RawMessage(`{}`)}, nil)
		wantErr(t, "finished table", err, ErrFinished)
		_, _, err = s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: json.RawMessage(`{}`), IfVersion: intp(1)}, nil)
		wantErr(t, "finished table with a stale If-Match", err, ErrFinished)
	})
}

// TestConcurrentPutBoard races phones that all read the same version:
// exactly one put wins and every other one learns the new version.
func TestConcurrentPutBoard(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := newTable(t, s, "Ana", "Ben", "Cleo", "Dan")
		const n = 12
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				board := json.RawMessage(`{"supply":` + string(rune('0'+i%10)) + `}`)
				_, _, errs[i] = s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: i % 4, Board: board, IfVersion: intp(1)}, nil)
			})
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
				continue
			}
			wantVersionError(t, "losing put", err, 2)
		}
		if wins != 1 {
			t.Errorf("%d puts won, want exactly 1", wins)
		}
		if got, _ := s.FindTableByCode(ctx, tbl.Code); got.Version != 2 {
			t.Errorf("version = %d, want 2", got.Version)
		}
	})
}

// TestConcurrentJoinTable races joins at a table with one free place.
func TestConcurrentJoinTable(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben", "Cleo")
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, _, errs[i] = s.JoinTable(ctx, tbl.Code, "Player "+string(rune('A'+i)), nil)
			})
		}
		wg.Wait()
		joined := 0
		for _, err := range errs {
			if err == nil {
				joined++
			} else if !errors.Is(err, errState) {
				t.Errorf("join: %v, want nil or the full-table refusal", err)
			}
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if joined != 1 || len(got.Seats) != 4 {
			t.Errorf("%d joined, %d seats; want 1 and 4", joined, len(got.Seats))
		}
	})
}

// TestAddAndUndoMoves: each move and each undo is a new version, a
// stale If-Match changes nothing, the moves read back oldest first, and a
// finished table takes neither.
func TestAddAndUndoMoves(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := hotelTable(t, s)
		moves := func() []string {
			t.Helper()
			st, err := s.ReadTable(ctx, tbl.Code)
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, raw := range st.Moves {
				var m scoring.HotelMove
				if err := json.Unmarshal(raw, &m); err != nil || m.Type != "draw" {
					t.Errorf("move %+v, want a draw", m)
				}
				out = append(out, m.Card)
			}
			return out
		}
		_, _, err := s.UndoMove(ctx, tbl.Code, host, nil, nil)
		wantErr(t, "undo with no moves", err, errNoMove)
		if got := moves(); len(got) != 0 {
			t.Errorf("moves of a new table = %v", got)
		}

		add := func(card string, ifVersion *int) func() (TableState, error) {
			return func() (TableState, error) {
				st, _, err := s.AddMove(ctx, tbl.Code, host, draw(card), ifVersion, nil)
				return st, err
			}
		}
		undo := func(ifVersion *int) func() (TableState, error) {
			return func() (TableState, error) {
				st, _, err := s.UndoMove(ctx, tbl.Code, host, ifVersion, nil)
				return st, err
			}
		}
		steps := []struct {
			name    string
			do      func() (TableState, error)
			want    int
			current int
			moves   []string
		}{
			{"add", add("bee", nil), 2, 0, []string{"bee"}},
			{"add at version", add("ladybird", intp(2)), 3, 0, []string{"bee", "ladybird"}},
			{"add stale", add("bee", intp(2)), 0, 3, []string{"bee", "ladybird"}},
			{"undo", undo(intp(3)), 4, 0, []string{"bee"}},
			{"undo stale", undo(intp(3)), 0, 4, []string{"bee"}},
			{"add after undo", add("butterfly", nil), 5, 0, []string{"bee", "butterfly"}},
			{"undo", undo(nil), 6, 0, []string{"bee"}},
			{"undo", undo(nil), 7, 0, []string{}},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				got, err := st.do()
				if st.current != 0 {
					wantVersionError(t, st.name, err, st.current)
				} else if err != nil || got.Table.Version != st.want {
					t.Errorf("= %+v, %v; want version %d", got.Table, err, st.want)
				}
				if got := moves(); !reflect.DeepEqual(got, st.moves) {
					t.Errorf("moves = %v, want %v", got, st.moves)
				}
			})
		}
		_, _, err = s.UndoMove(ctx, tbl.Code, host, nil, nil)
		wantErr(t, "undo past the first move", err, errNoMove)
		var verr *scoring.ValidationError
		if _, _, err := s.AddMove(ctx, tbl.Code, host, draw("unicorn"), nil, nil); !errors.As(err, &verr) {
			t.Errorf("a card the game has not: %v, want a *scoring.ValidationError", err)
		}
		_, err = s.ReadTable(ctx, "ZZZZZZ")
		wantErr(t, "ReadTable of an unknown table", err, ErrNotFound)
		_, _, err = s.AddMove(ctx, "ZZZZZZ", host, draw("bee"), nil, nil)
		wantErr(t, "AddMove to an unknown table", err, errToken)
		_, _, err = s.UndoMove(ctx, "ZZZZZZ", host, nil, nil)
		wantErr(t, "UndoMove of an unknown table", err, errToken)
		if got := moves(); len(got) != 0 {
			t.Errorf("refused moves left %v", got)
		}

		drawAll(t, s, tbl.Code, host, hotelDraws...)
		if _, _, err := s.Finish(ctx, tbl.Code, host, false, nil); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.AddMove(ctx, tbl.Code, host, draw("ladybird"), nil, nil)
		wantErr(t, "AddMove to a finished table", err, ErrFinished)
		_, _, err = s.UndoMove(ctx, tbl.Code, host, nil, nil)
		wantErr(t, "UndoMove of a finished table", err, ErrFinished)
		if got := moves(); !reflect.DeepEqual(got, hotelDraws) {
			t.Errorf("moves of the finished table = %v, want %v", got, hotelDraws)
		}
	})
}

// errNoMove matches UndoMove's refusal when there is no move to undo.
var errNoMove = &Refusal{Kind: RefusedMissing}

// TestFinish: the host finishes a table whose boards make a finished
// game; the table keeps the result as scored, the play the boards and
// standings, and a table whose play was deleted stays finished.
func TestFinish(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		start := time.Date(2025, 3, 1, 19, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return start }
		tbl, host := newTable(t, s, "Ana", "Ben")
		ben, err := s.ClaimSeat(ctx, tbl.Code, 1)
		if err != nil {
			t.Fatal(err)
		}
		put := func(seat int, board json.RawMessage) {
			t.Helper()
			if _, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: seat, Board: board}, nil); err != nil {
				t.Fatal(err)
			}
		}
		put(0, sheet("insectarium", 30))
		end := start.Add(47 * time.Minute)
		s.Now = func() time.Time { return end }

		_, _, err = s.Finish(ctx, tbl.Code, host, false, nil)
		wantErr(t, "a seat without a board: the game is not over", err, &Refusal{Kind: RefusedRules})
		put(1, sheet("insectarium", 999))
		var verr *scoring.ValidationError
		if _, _, err := s.Finish(ctx, tbl.Code, host, false, nil); !errors.As(err, &verr) {
			t.Errorf("a board that breaks a rule: %v, want a *scoring.ValidationError", err)
		}
		put(1, sheet("insectarium", 20))
		_, _, err = s.Finish(ctx, tbl.Code, "nope", false, nil)
		wantErr(t, "a token that is no one's", err, errToken)
		_, _, err = s.Finish(ctx, tbl.Code, ben, false, nil)
		wantErr(t, "a seat's token", err, errDenied)
		_, _, err = s.Finish(ctx, "ZZZZZZ", host, false, nil)
		wantErr(t, "unknown table", err, errToken)
		if got, _ := s.FindTableByCode(ctx, tbl.Code); got.Status != StatusOpen || got.Version != 5 {
			t.Errorf("refused finishes left %s at version %d, want open at 5", got.Status, got.Version)
		}

		_, res := hplay{"insectarium", 0, []string{"Ana", "Ben"}, []int{30, 20}}.scored(t)
		standings := string(marshal(t, res))
		f, _, err := s.Finish(ctx, tbl.Code, host, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		want := &Table{Code: tbl.Code, Game: "insectarium", Group: DefaultGroup, Status: StatusFinished, Version: 6, Variants: map[string]int{},
			Seats: []Seat{{Seat: 0, Name: "Ana", Board: sheet("insectarium", 30)},
				{Seat: 1, Name: "Ben", Claimed: true, Board: sheet("insectarium", 20)}},
			CreatedAt: start, UpdatedAt: end, FinishedAt: &end, PlayID: f.PlayID, Standings: json.RawMessage(standings), Messages: res.Messages()}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("finished table:\n got %+v\nwant %+v", got, want)
		}
		if !reflect.DeepEqual(f.State.Table, got) {
			t.Errorf("Finish's table:\n got %+v\na reload gives\n%+v", f.State.Table, got)
		}

		var play playRow
		if err := s.db.Where("id = ?", f.PlayID).Take(&play).Error; err != nil {
			t.Fatal(err)
		}
		wantBoards := `[{"seat":0,"name":"Ana","board":{"totals":{"rows":30}}},{"seat":1,"name":"Ben","board":{"totals":{"rows":20}}}]`
		if play.Game != "insectarium" || play.Boards != wantBoards || play.Standings != standings ||
			!play.StartedAt.Equal(start) || !play.FinishedAt.Equal(end) || play.Variants != "{}" {
			t.Errorf("play row = %+v", play)
		}

		_, _, err = s.Finish(ctx, tbl.Code, host, false, nil)
		wantErr(t, "finish twice", err, errState)

		if err := s.db.Exec("DELETE FROM plays WHERE id = ?", f.PlayID).Error; err != nil {
			t.Fatal(err)
		}
		got, err = s.FindTableByCode(ctx, tbl.Code)
		if err != nil || got.Status != StatusFinished || got.PlayID != "" || got.Standings != nil {
			t.Errorf("finished table whose play was deleted = %+v, %v; want finished with no result", got, err)
		}

	})
}

// TestFinishTrackedTable: a table played move by move records the hotels
// its moves built, not the seats' set-up boards, and who started.
func TestFinishTrackedTable(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := hotelTable(t, s)
		built := drawAll(t, s, tbl.Code, host, hotelDraws...).Boards
		f, _, err := s.Finish(ctx, tbl.Code, host, false, nil)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.FindPlay(ctx, DefaultGroup, f.PlayID)
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range built {
			if !bytes.Equal(p.Players[i].Board, want) || bytes.Equal(want, hotelBoards[i]) {
				t.Errorf("recorded board %d = %s, want the built %s, not the set-up %s", i, p.Players[i].Board, want, hotelBoards[i])
			}
		}
		if p.Players[0].Total != 6 || !p.Players[0].Winner || p.Players[1].Total != 5 {
			t.Errorf("results %+v, want Ana's 6 guests winning over Ben's 5", p.Players)
		}
		if p.StartSeat == nil || *p.StartSeat != 0 {
			t.Errorf("start seat %v, want 0", p.StartSeat)
		}
	})
}

// TestTokensStoredHashed checks that the database holds only the tokens'
// SHA-256 hashes: a copy of it grants nobody a seat.
func TestTokensStoredHashed(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		tbl, host := newTable(t, s, "Ana", "Ben")
		claimed, _ := s.ClaimSeat(ctx, tbl.Code, 0)
		seated, _, _ := s.JoinTable(ctx, tbl.Code, "Cleo", nil)
		joined := seated.Token
		var hashes []string
		s.db.Raw("SELECT host_token_hash FROM tables UNION ALL SELECT token_hash FROM seats WHERE token_hash IS NOT NULL").Scan(&hashes)
		want := []string{hashToken(host), hashToken(claimed), hashToken(joined)}
		if !reflect.DeepEqual(sortedCopy(hashes), sortedCopy(want)) {
			t.Errorf("stored hashes = %v, want SHA-256 of the tokens %v", hashes, want)
		}
		if !strings.HasPrefix(dsn, "postgres") {
			s.Close()
			raw := readAll(t, filepath.Dir(dsn))
			for _, tok := range []string{host, claimed, joined} {
				if bytes.Contains(raw, []byte(tok)) {
					t.Errorf("token %q is in the database files", tok)
				}
			}
			if !bytes.Contains(raw, []byte(hashToken(host))) {
				t.Error("the host token's hash is not in the database files: the check above proves nothing")
			}
		}
	})
}

func sortedCopy(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}

// readAll concatenates every file of dir: the database, WAL and all.
func readAll(t *testing.T, dir string) []byte {
	t.Helper()
	var all []byte
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

package models

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
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

func finish(t *testing.T, s *Store, code string) string {
	t.Helper()
	tbl, err := s.FindTableByCode(ctx, code)
	if err != nil {
		t.Fatal(err)
	}
	id, err := s.FinishTable(ctx, code, tbl.Version, standingsOf(t, tbl))
	if err != nil {
		t.Fatalf("FinishTable: %v", err)
	}
	return id
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
			{"same name twice, typed differently", NewTable{Game: "insecta", Names: []string{"Ana Lu", " ana  LU"}}, ErrConflict},
			{"empty name", NewTable{Game: "insecta", Names: []string{"Ana", " "}}, nil},
			{"boards do not match names", NewTable{Game: "insecta", Names: []string{"Ana"}, Boards: []json.RawMessage{nil, nil}}, nil},
			{"board not JSON", NewTable{Game: "insecta", Names: []string{"Ana"}, Boards: []json.RawMessage{json.RawMessage(`{`)}}, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				_, _, err := s.CreateTable(ctx, tt.in)
				if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
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

func TestAddSeat(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben")
		seat, token, err := s.AddSeat(ctx, tbl.Code, "  Cleo ")
		if err != nil {
			t.Fatal(err)
		}
		if seat != 2 || len(token) != 43 {
			t.Errorf("AddSeat = %d, %q; want seat 2 and a 43-character token", seat, token)
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if want := (Seat{Seat: 2, Name: "Cleo", Claimed: true}); !reflect.DeepEqual(got.Seats[2], want) {
			t.Errorf("new seat = %+v, want %+v", got.Seats[2], want)
		}
		if got.Version != 2 {
			t.Errorf("version = %d, want 2", got.Version)
		}
		if role, _ := s.Authorize(ctx, tbl.Code, token); role != (Role{Seat: 2}) {
			t.Errorf("new seat's token authorizes %+v", role)
		}

		_, _, err = s.AddSeat(ctx, tbl.Code, "cLEO")
		wantErr(t, "name already seated", err, ErrConflict)
		_, _, err = s.AddSeat(ctx, "ZZZZZZ", "Dan")
		wantErr(t, "unknown table", err, ErrNotFound)
		if _, _, err = s.AddSeat(ctx, tbl.Code, " "); err == nil {
			t.Error("empty name: nil error")
		}
		if _, _, err := s.AddSeat(ctx, tbl.Code, "Dan"); err != nil {
			t.Fatal(err)
		}
		_, _, err = s.AddSeat(ctx, tbl.Code, "Eve")
		wantErr(t, "fifth seat of a 4-player game", err, ErrTableFull)

		unknownGame, _, _ := s.CreateTable(ctx, NewTable{Game: "no-such-game"})
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			if _, _, err := s.AddSeat(ctx, unknownGame.Code, name); err != nil {
				t.Errorf("a game scoring does not know has no seat limit: %v", err)
			}
		}

		finish(t, s, tbl.Code)
		_, _, err = s.AddSeat(ctx, tbl.Code, "Fay")
		wantErr(t, "finished table", err, ErrFinished)
	})
}

func TestClaimSeat(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben")
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
		finish(t, s, tbl.Code)
		_, err = s.ClaimSeat(ctx, tbl.Code, 0)
		wantErr(t, "finished table", err, ErrFinished)
	})
}

func TestAuthorize(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, host := newTable(t, s, "Ana", "Ben")
		ana, _ := s.ClaimSeat(ctx, tbl.Code, 0)
		_, cleo, _ := s.AddSeat(ctx, tbl.Code, "Cleo")
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
			{"joined seat", tbl.Code, cleo, Role{Seat: 2}, nil},
			{"lower-case code", strings.ToLower(tbl.Code), ana, Role{Seat: 0}, nil},
			{"empty token", tbl.Code, "", none, nil},
			{"unknown token", tbl.Code, "nope", none, nil},
			{"another table's host", tbl.Code, otherHost, none, nil},
			{"another table's seat", tbl.Code, otherSeat, none, nil},
			{"the stored hash as token", tbl.Code, hashToken(host), none, nil},
			{"unknown table", "ZZZZZZ", host, none, ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.Authorize(ctx, tt.code, tt.token)
				if !errors.Is(err, tt.err) || got != tt.want {
					t.Errorf("Authorize = %+v, %v; want %+v, %v", got, err, tt.want, tt.err)
				}
			})
		}
		finish(t, s, tbl.Code)
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

func TestSaveBoard(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben")
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
			{name: "unknown table", code: "ZZZZZZ", seat: 0, board: `{}`, wantErr: ErrNotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				v, err := s.SaveBoard(ctx, tt.code, tt.seat, json.RawMessage(tt.board), tt.ifVersion)
				switch {
				case tt.wantCurrent != 0:
					wantVersionError(t, "SaveBoard", err, tt.wantCurrent)
				case tt.wantErr != nil:
					wantErr(t, "SaveBoard", err, tt.wantErr)
				case err != nil || v != tt.wantVersion:
					t.Errorf("SaveBoard = %d, %v; want %d", v, err, tt.wantVersion)
				}
			})
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if got.Version != 5 || got.Seats[0].Board != nil || string(got.Seats[1].Board) != ` {"supply": 4} ` {
			t.Errorf("after the rows: version %d, boards %s, %s", got.Version, got.Seats[0].Board, got.Seats[1].Board)
		}
		if _, err := s.SaveBoard(ctx, tbl.Code, 0, json.RawMessage(`{"supply":`), nil); err == nil {
			t.Error("invalid JSON: nil error")
		}
		finish(t, s, tbl.Code)
		_, err := s.SaveBoard(ctx, tbl.Code, 0, json.RawMessage(`{}`), nil)
		wantErr(t, "finished table", err, ErrFinished)
		_, err = s.SaveBoard(ctx, tbl.Code, 0, json.RawMessage(`{}`), intp(1))
		wantErr(t, "finished table with a stale If-Match", err, ErrFinished)
	})
}

// TestConcurrentSaveBoard races phones that all read the same version:
// exactly one save wins and every other one learns the new version.
func TestConcurrentSaveBoard(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben", "Cleo", "Dan")
		const n = 12
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				board := json.RawMessage(`{"supply":` + string(rune('0'+i%10)) + `}`)
				_, errs[i] = s.SaveBoard(ctx, tbl.Code, i%4, board, intp(1))
			})
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
				continue
			}
			wantVersionError(t, "losing save", err, 2)
		}
		if wins != 1 {
			t.Errorf("%d saves won, want exactly 1", wins)
		}
		if got, _ := s.FindTableByCode(ctx, tbl.Code); got.Version != 2 {
			t.Errorf("version = %d, want 2", got.Version)
		}
	})
}

// TestConcurrentAddSeat races joins at a table with one free place.
func TestConcurrentAddSeat(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben", "Cleo")
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() {
				_, _, errs[i] = s.AddSeat(ctx, tbl.Code, "Player "+string(rune('A'+i)))
			})
		}
		wg.Wait()
		joined := 0
		for _, err := range errs {
			if err == nil {
				joined++
			} else if !errors.Is(err, ErrTableFull) {
				t.Errorf("join: %v, want nil or ErrTableFull", err)
			}
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		if joined != 1 || len(got.Seats) != 4 {
			t.Errorf("%d joined, %d seats; want 1 and 4", joined, len(got.Seats))
		}
	})
}

func TestMoves(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		tbl, _ := newTable(t, s, "Ana", "Ben")
		moves := func() []string {
			t.Helper()
			ms, err := s.Moves(ctx, tbl.Code)
			if err != nil {
				t.Fatal(err)
			}
			out := []string{}
			for _, m := range ms {
				out = append(out, string(m))
			}
			return out
		}
		_, err := s.UndoLastMove(ctx, tbl.Code, nil)
		wantErr(t, "undo with no moves", err, ErrNotFound)
		if got := moves(); len(got) != 0 {
			t.Errorf("moves of a new table = %v", got)
		}

		steps := []struct {
			name    string
			do      func() (int, error)
			want    int
			current int
			moves   []string
		}{
			{"append", func() (int, error) { return s.AppendMove(ctx, tbl.Code, json.RawMessage(`{"m":1}`), nil) }, 2, 0, []string{`{"m":1}`}},
			{"append at version", func() (int, error) { return s.AppendMove(ctx, tbl.Code, json.RawMessage(`{"m":2}`), intp(2)) }, 3, 0, []string{`{"m":1}`, `{"m":2}`}},
			{"append stale", func() (int, error) { return s.AppendMove(ctx, tbl.Code, json.RawMessage(`{"m":9}`), intp(2)) }, 0, 3, []string{`{"m":1}`, `{"m":2}`}},
			{"undo", func() (int, error) { return s.UndoLastMove(ctx, tbl.Code, intp(3)) }, 4, 0, []string{`{"m":1}`}},
			{"undo stale", func() (int, error) { return s.UndoLastMove(ctx, tbl.Code, intp(3)) }, 0, 4, []string{`{"m":1}`}},
			{"append after undo", func() (int, error) { return s.AppendMove(ctx, tbl.Code, json.RawMessage(`{"m":3}`), nil) }, 5, 0, []string{`{"m":1}`, `{"m":3}`}},
			{"undo", func() (int, error) { return s.UndoLastMove(ctx, tbl.Code, nil) }, 6, 0, []string{`{"m":1}`}},
			{"undo", func() (int, error) { return s.UndoLastMove(ctx, tbl.Code, nil) }, 7, 0, []string{}},
		}
		for _, st := range steps {
			t.Run(st.name, func(t *testing.T) {
				v, err := st.do()
				if st.current != 0 {
					wantVersionError(t, st.name, err, st.current)
				} else if err != nil || v != st.want {
					t.Errorf("= %d, %v; want %d", v, err, st.want)
				}
				if got := moves(); !reflect.DeepEqual(got, st.moves) {
					t.Errorf("moves = %v, want %v", got, st.moves)
				}
			})
		}
		_, err = s.UndoLastMove(ctx, tbl.Code, nil)
		wantErr(t, "undo past the first move", err, ErrNotFound)
		if _, err := s.AppendMove(ctx, tbl.Code, json.RawMessage(`nope`), nil); err == nil {
			t.Error("move not JSON: nil error")
		}
		_, err = s.Moves(ctx, "ZZZZZZ")
		wantErr(t, "Moves of an unknown table", err, ErrNotFound)
		_, err = s.AppendMove(ctx, "ZZZZZZ", json.RawMessage(`{}`), nil)
		wantErr(t, "AppendMove to an unknown table", err, ErrNotFound)
		_, err = s.UndoLastMove(ctx, "ZZZZZZ", nil)
		wantErr(t, "UndoLastMove of an unknown table", err, ErrNotFound)

		s.AppendMove(ctx, tbl.Code, json.RawMessage(`{"m":4}`), nil)
		finish(t, s, tbl.Code)
		_, err = s.AppendMove(ctx, tbl.Code, json.RawMessage(`{}`), nil)
		wantErr(t, "AppendMove to a finished table", err, ErrFinished)
		_, err = s.UndoLastMove(ctx, tbl.Code, nil)
		wantErr(t, "UndoLastMove of a finished table", err, ErrFinished)
		if got := moves(); !reflect.DeepEqual(got, []string{`{"m":4}`}) {
			t.Errorf("moves of the finished table = %v", got)
		}
	})
}

func TestFinishTable(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		start := time.Date(2025, 3, 1, 19, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return start }
		tbl, _ := newTable(t, s, "Ana", "Ben")
		s.SaveBoard(ctx, tbl.Code, 0, json.RawMessage(`{"supply":1}`), nil)
		end := start.Add(47 * time.Minute)
		s.Now = func() time.Time { return end }

		_, err := s.FinishTable(ctx, tbl.Code, 1, json.RawMessage(`{}`))
		wantVersionError(t, "finish at a stale version", err, 2)
		if _, err := s.FinishTable(ctx, tbl.Code, 2, json.RawMessage(`{"results":`)); err == nil {
			t.Error("standings not JSON: nil error")
		}
		_, err = s.FinishTable(ctx, "ZZZZZZ", 1, json.RawMessage(`{}`))
		wantErr(t, "unknown table", err, ErrNotFound)

		standings := string(marshal(t, scored("insectarium", []string{"Ana", "Ben"}, []int{30, 20})))
		if _, err := s.FinishTable(ctx, tbl.Code, 2, marshal(t, scored("insectarium", []string{"Ana"}, []int{30}))); err == nil {
			t.Error("one result for two seats: nil error")
		}
		if _, err := s.FinishTable(ctx, tbl.Code, 2, marshal(t, scored("insectarium", []string{"Ben", "Ana"}, []int{30, 20}))); err == nil {
			t.Error("results in another order than the seats: nil error")
		}
		playID, err := s.FinishTable(ctx, tbl.Code, 2, json.RawMessage(standings))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := s.FindTableByCode(ctx, tbl.Code)
		want := &Table{Code: tbl.Code, Game: "insectarium", Group: DefaultGroup, Status: StatusFinished, Version: 3, Variants: map[string]int{},
			Seats:     []Seat{{Seat: 0, Name: "Ana", Board: json.RawMessage(`{"supply":1}`)}, {Seat: 1, Name: "Ben"}},
			CreatedAt: start, UpdatedAt: end, FinishedAt: &end, PlayID: playID, Standings: json.RawMessage(standings)}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("finished table:\n got %+v\nwant %+v", got, want)
		}

		var play playRow
		if err := s.db.Where("id = ?", playID).Take(&play).Error; err != nil {
			t.Fatal(err)
		}
		wantBoards := `[{"seat":0,"name":"Ana","board":{"supply":1}},{"seat":1,"name":"Ben","board":null}]`
		if play.Game != "insectarium" || play.Boards != wantBoards || play.Standings != standings ||
			!play.StartedAt.Equal(start) || !play.FinishedAt.Equal(end) || play.Variants != "{}" {
			t.Errorf("play row = %+v", play)
		}

		_, err = s.FinishTable(ctx, tbl.Code, 3, json.RawMessage(`{}`))
		wantErr(t, "finish twice", err, ErrFinished)

		if err := s.db.Exec("DELETE FROM plays WHERE id = ?", playID).Error; err != nil {
			t.Fatal(err)
		}
		got, err = s.FindTableByCode(ctx, tbl.Code)
		if err != nil || got.Status != StatusFinished || got.PlayID != "" || got.Standings != nil {
			t.Errorf("finished table whose play was deleted = %+v, %v; want finished with no result", got, err)
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
		_, joined, _ := s.AddSeat(ctx, tbl.Code, "Cleo")
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

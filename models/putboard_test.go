package models

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"
)

// PutBoard returns the table exactly as a reload after the write would,
// and refuses a stale If-Match, a missing table or seat and a table with
// moves, checking the token first.
func TestPutBoard(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		clock := time.Date(2026, 5, 1, 20, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { clock = clock.Add(time.Second); return clock }
		tb, host, err := s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Ada", "Ben"}, Variants: map[string]int{"oneFragment": 1}})
		if err != nil {
			t.Fatal(err)
		}
		ben, err := s.ClaimSeat(ctx, tb.Code, 1)
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.ReportSync(ctx, SyncReport{Code: tb.Code, Token: ben, Seat: 1, Unsent: 3, Since: clock.Add(-time.Minute)}, nil); err != nil {
			t.Fatal(err)
		}
		check := func(p BoardPut) *Table {
			t.Helper()
			st, _, err := s.PutBoard(ctx, p, nil)
			if err != nil {
				t.Fatal(err)
			}
			got := st.Table
			want, err := s.FindTableByCode(ctx, tb.Code)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("PutBoard gave\n%+v\na reload gives\n%+v", got, want)
			}
			return got
		}
		v := 2
		got := check(BoardPut{Code: tb.Code, Token: host, Seat: 0, Board: json.RawMessage(`{"a": 1}`), IfVersion: &v})
		if got.Version != 3 {
			t.Errorf("version %d, want 3", got.Version)
		}
		// The seat's own phone: heard from, nothing unsent.
		got = check(BoardPut{Code: tb.Code, Token: ben, Seat: 1, Board: json.RawMessage(`{"b": 2}`)})
		if got.Seats[1].Sync.Unsent != 0 || got.Seats[1].Sync.LastSeenAt == nil {
			t.Errorf("seat 1 sync %+v", got.Seats[1].Sync)
		}
		check(BoardPut{Code: tb.Code, Token: host, Seat: 1, Board: json.RawMessage(`null`)})

		stale := 2
		for name, c := range map[string]struct {
			p    BoardPut
			want error
		}{
			"wrong token":  {BoardPut{Code: tb.Code, Token: "nope", Seat: 0, Board: json.RawMessage(`{}`)}, errToken},
			"other seat":   {BoardPut{Code: tb.Code, Token: ben, Seat: 0, Board: json.RawMessage(`{}`)}, errDenied},
			"no table":     {BoardPut{Code: "ZZZZZZ", Token: host, Seat: 0, Board: json.RawMessage(`{}`)}, errToken},
			"no seat":      {BoardPut{Code: tb.Code, Token: host, Seat: 7, Board: json.RawMessage(`{}`)}, ErrNotFound},
			"stale":        {BoardPut{Code: tb.Code, Token: host, Seat: 0, Board: json.RawMessage(`{}`), IfVersion: &stale}, &VersionError{}},
			"stale, other": {BoardPut{Code: tb.Code, Token: ben, Seat: 0, Board: json.RawMessage(`{}`), IfVersion: &stale}, errDenied},
		} {
			_, _, err := s.PutBoard(ctx, c.p, nil)
			var ve *VersionError
			if _, isVE := c.want.(*VersionError); isVE && errors.As(err, &ve) && ve.Current == 5 {
				continue
			}
			if !errors.Is(err, c.want) {
				t.Errorf("%s: %v, want %v", name, err, c.want)
			}
		}
		after, err := s.FindTableByCode(ctx, tb.Code)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != 5 {
			t.Errorf("version %d after refusals, want 5", after.Version)
		}

		// A table played move by move takes no board while it has moves.
		hotel, hotelHost := hotelTable(t, s)
		drawAll(t, s, hotel.Code, hotelHost, "bee")
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: hotel.Code, Token: hotelHost, Seat: 0, Board: hotelBoards[0]}, nil); !errors.Is(err, ErrTracked) {
			t.Errorf("with moves: %v, want ErrTracked", err)
		}
		if _, _, err := s.UndoMove(ctx, hotel.Code, hotelHost, nil, nil); err != nil {
			t.Fatal(err)
		}
		after, err = s.FindTableByCode(ctx, hotel.Code)
		if err != nil {
			t.Fatal(err)
		}
		if after.Version != 3 {
			t.Errorf("version %d after the refusal, want 3 (a move and its undo)", after.Version)
		}
	})
}

// errDenied and errToken match the refusals of a token out of its
// bounds and of a token that is no one's at the table.
var (
	errDenied = &Refusal{Kind: RefusedRole}
	errToken  = &Refusal{Kind: RefusedToken}
)

// Is makes errors.Is match refusals by their kind.
func (e *Refusal) Is(target error) bool {
	t, ok := target.(*Refusal)
	return ok && t.Kind == e.Kind && t.Key == ""
}

// On PostgreSQL a board write is five round trips: BEGIN, the table's
// lock, the read, one write, COMMIT. The lock stands alone so that the
// read after it sees the seats as the last writer left them
// (TestRaceBoardAndFinish in api).
func TestPutBoardStatements(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		tb, host, err := s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Ada", "Ben"}})
		if err != nil {
			t.Fatal(err)
		}
		var n atomic.Int64
		count := func(*gorm.DB) { n.Add(1) }
		cb := s.db.Callback()
		for _, err := range []error{
			cb.Query().Before("*").Register("count_query", count),
			cb.Row().Before("*").Register("count_row", count),
			cb.Raw().Before("*").Register("count_raw", count),
			cb.Update().Before("*").Register("count_update", count),
			cb.Create().Before("*").Register("count_create", count),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: tb.Code, Token: host, Seat: 1, Board: json.RawMessage(`{"a": 1}`)}, nil); err != nil {
			t.Fatal(err)
		}
		want := int64(3) // SQLite: the read, then the seat's and the table's updates
		if s.isPostgres() {
			want = 3
		}
		if got := n.Load(); got != want {
			t.Errorf("%d statements between BEGIN and COMMIT, want %d", got, want)
		}
	})
}

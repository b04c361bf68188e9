package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"insectscore/models/pgtest"
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

// On SQLite a board write is three statements in its transaction: the
// read, then the seat's and the table's updates. On PostgreSQL it is two
// round trips (putBoardPG): BEGIN, the table's lock and its read in one,
// the write and COMMIT in the other; with an Idempotency-Key, three. The
// lock stands alone so that the read after it sees the seats as the last
// writer left them (TestRaceBoardAndFinish in api).
func TestPutBoardStatements(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		counts := func() pgtest.Counts { return pgtest.Counts{} }
		if isPostgres(dsn) {
			dsn, counts = pgtest.Proxy(t, dsn)
		}
		s := openStore(t, dsn)
		// One connection, whose prepared statements the first writes
		// make: a statement prepared on first use on another would be
		// a round trip more.
		sqlDB, err := s.db.DB()
		if err != nil {
			t.Fatal(err)
		}
		sqlDB.SetMaxOpenConns(1)
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
		reply := func(st TableState) (IdempotentAnswer, error) {
			return IdempotentAnswer{Status: 200, Body: []byte(fmt.Sprint(st.Table.Version))}, nil
		}
		put := func(key string) (IdempotentAnswer, int64, int64) {
			t.Helper()
			ctx := ctx
			if key != "" {
				if _, err := s.BeginIdempotent(ctx, KeyClaim{Scope: key, Fingerprint: "fp", Now: time.Now(), TTL: time.Hour}); err != nil {
					t.Fatal(err)
				}
				ctx = WithPendingAnswer(ctx, &PendingAnswer{Scope: key})
			}
			n.Store(0)
			before := counts().Turns
			_, a, err := s.PutBoard(ctx, BoardPut{Code: tb.Code, Token: host, Seat: 1, Board: json.RawMessage(`{"a": 1}`)}, reply)
			if err != nil {
				t.Fatal(err)
			}
			return a, n.Load(), counts().Turns - before
		}
		put("") // PostgreSQL prepares the statements on their first use
		put("warm")
		if _, statements, trips := put(""); s.isPostgres() && (statements != 0 || trips != 2) {
			t.Errorf("%d round trips (%d statements through GORM), want 2 (none)", trips, statements)
		} else if !s.isPostgres() && statements != 3 {
			t.Errorf("%d statements between BEGIN and COMMIT, want 3", statements)
		}
		a, statements, trips := put("key")
		if s.isPostgres() && trips != 3 {
			t.Errorf("with an Idempotency-Key: %d round trips, want 3", trips)
		} else if !s.isPostgres() && statements != 4 {
			t.Errorf("with an Idempotency-Key: %d statements, want 4", statements)
		}
		kept, err := s.BeginIdempotent(ctx, KeyClaim{Scope: "key", Fingerprint: "fp", Now: time.Now(), TTL: time.Hour})
		if err != nil || kept == nil || kept.Status != 200 || string(kept.Body) != string(a.Body) {
			t.Errorf("the answer kept: %+v, %v; want %q", kept, err, a.Body)
		}

		// A refusal ends its transaction and keeps its connection: one
		// left in a transaction would be closed, and another opened.
		conns := counts().Conns
		for range 25 {
			if _, _, err := s.PutBoard(ctx, BoardPut{Code: tb.Code, Token: "not-a-token", Seat: 1, Board: json.RawMessage(`{}`)}, nil); !errors.Is(err, errToken) {
				t.Fatalf("a stranger's board: %v, want the refusal of a token", err)
			}
			if _, _, err := s.PutBoard(ctx, BoardPut{Code: "NOTHERE", Token: host, Seat: 1, Board: json.RawMessage(`{}`)}, nil); !errors.Is(err, errToken) {
				t.Fatalf("a board at no table: %v, want the refusal of a token", err)
			}
		}
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: tb.Code, Token: host, Seat: 1, Board: json.RawMessage(`{"a": 2}`)}, nil); err != nil {
			t.Fatal(err)
		}
		if got := counts().Conns - conns; got != 0 {
			t.Errorf("%d connections opened by 50 refusals and a write, want none", got)
		}
	})
}

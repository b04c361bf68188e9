package models

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

func TestSeatSyncState(t *testing.T) {
	now := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) *time.Time { at := now.Add(-d); return &at }
	tests := []struct {
		name string
		sync SeatSync
		want SyncState
	}{
		{"never heard from", SeatSync{}, SyncSaved},
		{"heard from, nothing waits", SeatSync{LastSeenAt: ago(time.Hour)}, SyncSaved},
		{"edits wait, heard from now", SeatSync{LastSeenAt: ago(0), Unsent: 2, UnsentSince: ago(time.Minute)}, SyncUnsent},
		{"edits wait, heard from 30 s ago", SeatSync{LastSeenAt: ago(SilentAfter), Unsent: 1}, SyncUnsent},
		{"edits wait, quiet for 31 s", SeatSync{LastSeenAt: ago(SilentAfter + time.Second), Unsent: 1}, SyncSilent},
		{"edits wait, never heard from", SeatSync{Unsent: 1}, SyncSilent},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.sync.State(now); got != tt.want {
				t.Errorf("State = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestReportSync: reports are kept per seat, say when the state changed,
// leave the version alone, need the seat's or the host's token, and an own
// board put clears them.
func TestReportSync(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		clock := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return clock }
		tbl, host := newTable(t, s, "Ana", "Ben")
		tokens := map[int]string{}
		for seat := range 2 {
			token, err := s.ClaimSeat(ctx, tbl.Code, seat)
			if err != nil {
				t.Fatal(err)
			}
			tokens[seat] = token
		}
		claimed, _ := s.FindTableByCode(ctx, tbl.Code)
		since := clock.Add(-12 * time.Second)
		report := func(token string, seat, unsent int) (SyncReported, error) {
			r, _, err := s.ReportSync(ctx, SyncReport{Code: tbl.Code, Token: token, Seat: seat, Unsent: unsent, Since: since}, nil)
			return r, err
		}
		tests := []struct {
			name        string
			advance     time.Duration
			seat        int
			unsent      int
			wantState   SyncState
			wantChanged bool
		}{
			{name: "edits wait", seat: 1, unsent: 2, wantState: SyncUnsent, wantChanged: true},
			{name: "more edits wait", advance: 5 * time.Second, seat: 1, unsent: 3, wantState: SyncUnsent},
			{name: "after a quiet spell", advance: time.Minute, seat: 1, unsent: 3, wantState: SyncUnsent, wantChanged: true},
			{name: "all sent", seat: 1, unsent: 0, wantState: SyncSaved, wantChanged: true},
			{name: "nothing waits on another phone", seat: 0, unsent: 0, wantState: SyncSaved},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				clock = clock.Add(tt.advance)
				r, err := report(tokens[tt.seat], tt.seat, tt.unsent)
				if err != nil {
					t.Fatal(err)
				}
				got, changed := r.Sync, r.State != nil
				if st := got.State(clock); st != tt.wantState || changed != tt.wantChanged {
					t.Errorf("state %q, changed %v; want %q, %v", st, changed, tt.wantState, tt.wantChanged)
				}
				if got.LastSeenAt == nil || !got.LastSeenAt.Equal(clock) || got.Unsent != tt.unsent {
					t.Errorf("sync = %+v, want seen now with %d unsent", got, tt.unsent)
				}
				if (got.UnsentSince != nil) != (tt.unsent > 0) || (got.UnsentSince != nil && !got.UnsentSince.Equal(since)) {
					t.Errorf("unsentSince = %v, want %v only while edits wait", got.UnsentSince, since)
				}
				if changed && !reflect.DeepEqual(r.State.Table.Seats[tt.seat].Sync, got) {
					t.Errorf("the table shows seat %d's sync as %+v, want %+v", tt.seat, r.State.Table.Seats[tt.seat].Sync, got)
				}
			})
		}

		clock = clock.Add(time.Second)
		if _, err := report(tokens[1], 1, 4); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindTableByCode(ctx, tbl.Code)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != claimed.Version {
			t.Errorf("version %d after sync reports, want %d", got.Version, claimed.Version)
		}
		if ben := got.Seats[1].Sync; ben.Unsent != 4 || ben.UnsentSince == nil || !ben.UnsentSince.Equal(since) || !ben.LastSeenAt.Equal(clock) {
			t.Errorf("Ben's sync read back = %+v", ben)
		}
		if ana := got.Seats[0].Sync; ana.Unsent != 0 || ana.UnsentSince != nil {
			t.Errorf("Ana's sync read back = %+v", ana)
		}

		// A put by the host leaves the phone's report alone; the seat's
		// own put clears it.
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 1, Board: json.RawMessage(`{"supply":1}`)}, nil); err != nil {
			t.Fatal(err)
		}
		got, _ = s.FindTableByCode(ctx, tbl.Code)
		if got.Seats[1].Sync.Unsent != 4 {
			t.Errorf("after the host's put: %+v, want 4 unsent still", got.Seats[1].Sync)
		}
		clock = clock.Add(time.Minute)
		own := BoardPut{Code: tbl.Code, Token: tokens[1], Seat: 1, Board: json.RawMessage(`{"supply":2}`), IfVersion: intp(claimed.Version + 1)}
		if _, _, err := s.PutBoard(ctx, own, nil); err != nil {
			t.Fatal(err)
		}
		got, _ = s.FindTableByCode(ctx, tbl.Code)
		if ben := got.Seats[1].Sync; ben.Unsent != 0 || ben.UnsentSince != nil || !ben.LastSeenAt.Equal(clock) || got.Version != claimed.Version+2 {
			t.Errorf("after the seat's own put: %+v at version %d, want saved, seen now, version %d", ben, got.Version, claimed.Version+2)
		}

		_, err = report(host, 5, 1)
		wantErr(t, "no such seat", err, ErrNotFound)
		_, _, err = s.ReportSync(ctx, SyncReport{Code: "ZZZZZZ", Token: host, Seat: 0, Unsent: 1, Since: since}, nil)
		wantErr(t, "unknown table", err, errToken)
		_, err = report("", 0, 1)
		wantErr(t, "no token", err, errToken)
		_, err = report(tokens[0], 1, 1)
		wantErr(t, "another seat's token", err, errDenied)
		finish(t, s, tbl.Code, host)
		_, err = report(tokens[0], 0, 1)
		wantErr(t, "finished table", err, ErrFinished)
	})
}

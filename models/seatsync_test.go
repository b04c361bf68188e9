package models

import (
	"encoding/json"
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

// TestReportSeatSync: reports are kept per seat, say when the state
// changed, leave the version alone, and an own board save clears them.
func TestReportSeatSync(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		clock := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		s.Now = func() time.Time { return clock }
		tbl, _ := newTable(t, s, "Ana", "Ben")
		since := clock.Add(-12 * time.Second)
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
				got, changed, err := s.ReportSeatSync(ctx, tbl.Code, tt.seat, tt.unsent, since)
				if err != nil {
					t.Fatal(err)
				}
				if st := got.State(clock); st != tt.wantState || changed != tt.wantChanged {
					t.Errorf("state %q, changed %v; want %q, %v", st, changed, tt.wantState, tt.wantChanged)
				}
				if got.LastSeenAt == nil || !got.LastSeenAt.Equal(clock) || got.Unsent != tt.unsent {
					t.Errorf("sync = %+v, want seen now with %d unsent", got, tt.unsent)
				}
				if (got.UnsentSince != nil) != (tt.unsent > 0) || (got.UnsentSince != nil && !got.UnsentSince.Equal(since)) {
					t.Errorf("unsentSince = %v, want %v only while edits wait", got.UnsentSince, since)
				}
			})
		}

		clock = clock.Add(time.Second)
		if _, _, err := s.ReportSeatSync(ctx, tbl.Code, 1, 4, since); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindTableByCode(ctx, tbl.Code)
		if err != nil {
			t.Fatal(err)
		}
		if got.Version != 1 {
			t.Errorf("version %d after sync reports, want 1", got.Version)
		}
		if ben := got.Seats[1].Sync; ben.Unsent != 4 || ben.UnsentSince == nil || !ben.UnsentSince.Equal(since) || !ben.LastSeenAt.Equal(clock) {
			t.Errorf("Ben's sync read back = %+v", ben)
		}
		if ana := got.Seats[0].Sync; ana.Unsent != 0 || ana.UnsentSince != nil {
			t.Errorf("Ana's sync read back = %+v", ana)
		}

		// A save by the host leaves the phone's report alone; the seat's
		// own save clears it.
		if _, err := s.SaveBoard(ctx, tbl.Code, 1, json.RawMessage(`{"supply":1}`), nil); err != nil {
			t.Fatal(err)
		}
		got, _ = s.FindTableByCode(ctx, tbl.Code)
		if got.Seats[1].Sync.Unsent != 4 {
			t.Errorf("after the host's save: %+v, want 4 unsent still", got.Seats[1].Sync)
		}
		clock = clock.Add(time.Minute)
		if _, err := s.SaveOwnBoard(ctx, tbl.Code, 1, json.RawMessage(`{"supply":2}`), intp(2)); err != nil {
			t.Fatal(err)
		}
		got, _ = s.FindTableByCode(ctx, tbl.Code)
		if ben := got.Seats[1].Sync; ben.Unsent != 0 || ben.UnsentSince != nil || !ben.LastSeenAt.Equal(clock) || got.Version != 3 {
			t.Errorf("after the seat's own save: %+v at version %d, want saved, seen now, version 3", ben, got.Version)
		}

		_, _, err = s.ReportSeatSync(ctx, tbl.Code, 5, 1, since)
		wantErr(t, "no such seat", err, ErrNotFound)
		_, _, err = s.ReportSeatSync(ctx, "ZZZZZZ", 0, 1, since)
		wantErr(t, "unknown table", err, ErrNotFound)
		finish(t, s, tbl.Code)
		_, _, err = s.ReportSeatSync(ctx, tbl.Code, 0, 1, since)
		wantErr(t, "finished table", err, ErrFinished)
	})
}

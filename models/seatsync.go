package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// SyncState is what the host is shown of a seat's phone: whether every
// edit made on it has reached the server.
type SyncState string

// A seat is saved when its phone holds nothing unsent (or was never heard
// from), unsent while its phone holds edits and was heard from lately, and
// silent when its phone holds edits and has gone quiet: those edits may
// never come unless someone looks at that phone.
const (
	SyncSaved  SyncState = "saved"
	SyncUnsent SyncState = "unsent"
	SyncSilent SyncState = "silent"
)

// SilentAfter is how long a phone with unsent edits may go unheard before
// its seat shows as silent. Phones report every few seconds while they
// hold edits, so this is several missed reports.
const SilentAfter = 30 * time.Second

// SeatSync is what a seat's phone last reported about the edits it has not
// sent yet.
type SeatSync struct {
	// LastSeenAt is when the phone last reported or saved the seat's
	// board; nil if never.
	LastSeenAt *time.Time
	// Unsent is how many edits wait on the phone.
	Unsent int
	// UnsentSince is when the oldest of them was made; nil when none wait.
	UnsentSince *time.Time
}

// State is the seat's state at now.
func (s SeatSync) State(now time.Time) SyncState {
	switch {
	case s.Unsent == 0:
		return SyncSaved
	case s.LastSeenAt != nil && now.Sub(*s.LastSeenAt) <= SilentAfter:
		return SyncUnsent
	}
	return SyncSilent
}

// Pending reports whether the seat's phone holds edits, heard from lately
// or not.
func (s SeatSync) Pending(now time.Time) bool { return s.State(now) != SyncSaved }

// ReportSeatSync records what a seat's phone says now: unsent edits wait
// on it, the oldest made at since (ignored when unsent is 0). It returns
// the seat's new SeatSync and whether its state changed, which the host's
// screen then needs to hear of. The table's version does not change: no
// board did, and a phone's If-Match must keep working. A finished table is
// ErrFinished, an unknown table or seat ErrNotFound.
func (s *Store) ReportSeatSync(ctx context.Context, code string, seat, unsent int, since time.Time) (SeatSync, bool, error) {
	now := s.now()
	out := SeatSync{LastSeenAt: &now, Unsent: unsent}
	if unsent > 0 {
		since = since.UTC().Truncate(time.Microsecond)
		out.UnsentSince = &since
	}
	changed := false
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// A shared lock: a finish (FOR UPDATE) waits for the report, or
		// the report sees the table finished.
		var t tableRow
		err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthShare}).Select("id", "status").
			Where("code = ?", normalizeCode(code)).Take(&t).Error
		if err != nil {
			return err
		}
		if t.Status == StatusFinished {
			return ErrFinished
		}
		var row seatRow
		if err := tx.Where("table_id = ? AND seat = ?", t.ID, seat).Take(&row).Error; err != nil {
			return err
		}
		changed = seatFromRow(row).Sync.State(now) != out.State(now)
		return tx.Model(&seatRow{}).Where("id = ?", row.ID).
			Updates(map[string]any{"last_seen_at": now, "unsent": unsent, "unsent_since": out.UnsentSince}).Error
	})
	if err != nil {
		return SeatSync{}, false, translate(err)
	}
	return out, changed, nil
}

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

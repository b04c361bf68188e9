package models

import "time"

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

func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"insectscore/scoring"
)

// Status is where a table is in its life.
type Status string

// A table is open while boards are entered and finished once its result is
// history; a finished table refuses every change.
const (
	StatusOpen     Status = "open"
	StatusFinished Status = "finished"
)

// Table is a live table session as callers see it.
type Table struct {
	Code string
	Game string
	// Group is the id of the group whose history the table's play joins.
	Group    string
	Status   Status
	Version  int
	Variants map[string]int
	// First is the seat that plays first when the table is played move
	// by move; 0 unless the host chose another.
	First int
	// Seats are ordered by seat number.
	Seats      []Seat
	CreatedAt  time.Time
	UpdatedAt  time.Time
	FinishedAt *time.Time
	// PlayID and Standings are the recorded result once finished: the
	// standings as scored at finish, which later rule fixes do not change.
	// They are empty while open, and if the play was deleted since.
	PlayID    string
	Standings json.RawMessage
	// Messages are the standings' warnings and tie sentence by key, for
	// the API to write them in the client's language.
	Messages scoring.ResultMessages
}

// Seat is one player's place at a table.
type Seat struct {
	Seat int
	Name string
	// Claimed says someone holds the seat's token, so it cannot be claimed
	// again.
	Claimed bool
	// Board is nil until a board is saved.
	Board json.RawMessage
	// Sync is what the seat's phone last said about its unsent changes.
	Sync SeatSync
}

// NewTable is what starting a table needs.
type NewTable struct {
	Game string
	// Group is the id of the group the table plays for; empty means
	// DefaultGroup. An unknown group is ErrNotFound.
	Group    string
	Names    []string
	Variants map[string]int
	// First is the starting seat (Table.First).
	First int
	// Boards, if given, has one board per name (nil for none yet).
	Boards []json.RawMessage
}

// Role is what a bearer token may do at one table. Authorize always sets
// Seat: -1 unless the token is a seat's. Build a Role only through
// Authorize; the zero Role would claim seat 0.
type Role struct {
	Host bool
	Seat int
}

// Valid reports whether the token belongs to the table at all, which
// separates a wrong token (401) from a right token used out of its bounds
// (403).
func (r Role) Valid() bool { return r.Host || r.Seat >= 0 }

// CanEditSeat reports whether the token may change the given seat's board:
// the host may change any seat, a seat token only its own.
func (r Role) CanEditSeat(seat int) bool { return r.Host || (r.Seat >= 0 && r.Seat == seat) }

// The GORM models: unexported, so nothing outside the store binds to them.

type tableRow struct {
	ID            int64
	Code          string
	Game          string
	HostTokenHash string
	Variants      string
	Status        Status
	Version       int
	FirstSeat     int
	CreatedAt     time.Time
	UpdatedAt     time.Time
	FinishedAt    *time.Time
	// GroupID is NULL only for tables older than groups, which belong to
	// the default group.
	GroupID *string
}

func (tableRow) TableName() string { return "tables" }

type seatRow struct {
	ID        int64
	TableID   int64
	Seat      int
	Name      string
	NameKey   string
	TokenHash *string
	Claimed   bool
	Board     *string
	UpdatedAt time.Time
	// LastSeenAt, Unsent and UnsentSince are the seat's SeatSync.
	LastSeenAt  *time.Time
	Unsent      int
	UnsentSince *time.Time
}

func (seatRow) TableName() string { return "seats" }

type moveRow struct {
	ID        int64
	TableID   int64
	Seq       int
	Body      string
	CreatedAt time.Time
}

func (moveRow) TableName() string { return "moves" }

type playRow struct {
	ID        string
	GroupID   string
	TableID   *int64
	Game      string
	Variants  string
	Boards    string
	Standings string
	// Messages are the standings' sentences by key (encodeStandings).
	Messages   *string
	StartedAt  time.Time
	FinishedAt time.Time
	// Notes and Location are "" when not given; LocationKey is
	// nameKey(Location), which the history filter matches. StartSeat is
	// nil when who started is not known.
	Notes       string
	Location    string
	LocationKey string
	StartSeat   *int
}

func (playRow) TableName() string { return "plays" }

// codeAttempts bounds the retries on a code collision; at today's odds
// (one in 887 million per open table) a second attempt is already rare.
const codeAttempts = 8

// CreateTable starts a table with a seat per name and returns it with the
// host token, which is shown once: only its hash is kept. Two names that
// differ only in case or spacing are ErrConflict.
func (s *Store) CreateTable(ctx context.Context, nt NewTable) (table *Table, hostToken string, err error) {
	st, _, err := s.StartTable(ctx, nt, nil)
	return st.State.Table, st.Token, err
}

// StartTable is CreateTable as a change: in one transaction it starts the
// table and answers with it and the host token (Seated's Seat is -1).
func (s *Store) StartTable(ctx context.Context, nt NewTable, reply Reply[Seated]) (Seated, IdempotentAnswer, error) {
	var (
		out Seated
		ans IdempotentAnswer
	)
	if err := checkNewTable(nt); err != nil {
		return out, ans, err
	}
	if nt.Boards != nil && len(nt.Boards) != len(nt.Names) {
		return out, ans, fmt.Errorf("models: %d boards for %d names", len(nt.Boards), len(nt.Names))
	}
	variants, err := encodeVariants(nt.Variants)
	if err != nil {
		return out, ans, err
	}
	boards := make([]*string, len(nt.Names))
	for i := range nt.Boards {
		if boards[i], err = boardText(nt.Boards[i]); err != nil {
			return out, ans, err
		}
	}
	host, err := newToken(s.Rand)
	if err != nil {
		return out, ans, err
	}
	now := s.now()
	group := groupOrDefault(nt.Group)
	row := tableRow{Game: nt.Game, HostTokenHash: hashToken(host), Variants: variants, FirstSeat: nt.First,
		Status: StatusOpen, Version: 1, CreatedAt: now, UpdatedAt: now, GroupID: &group}
	err = s.transact(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, group); err != nil {
			return err
		}
		err := s.insertWithFreshCode(tx, &row)
		if err != nil {
			return err
		}
		t, err := tableFromRow(row)
		if err != nil {
			return err
		}
		for i, name := range nt.Names {
			name, err := cleanName(name, scoring.MaxNameLength)
			if err != nil {
				return fmt.Errorf("models: seat %d: %w", i, err)
			}
			seat := seatRow{TableID: row.ID, Seat: i, Name: name, NameKey: nameKey(name), Board: boards[i], UpdatedAt: now}
			if err := tx.Create(&seat).Error; err != nil {
				return err
			}
			t.Seats = append(t.Seats, seatFromRow(seat))
		}
		out = Seated{State: evaluate(t, nil), Seat: -1, Token: host}
		ans, err = answer(ctx, tx, reply, out)
		return err
	})
	if err != nil {
		return Seated{}, IdempotentAnswer{}, err
	}
	return out, ans, nil
}

// insertWithFreshCode inserts row under a new random code, drawing again
// when the code is taken. ON CONFLICT DO NOTHING rather than catching the
// error, because a failed statement aborts a PostgreSQL transaction.
func (s *Store) insertWithFreshCode(tx *gorm.DB, row *tableRow) error {
	for range codeAttempts {
		code, err := newCode(s.Rand)
		if err != nil {
			return err
		}
		row.Code = code
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "code"}}, DoNothing: true}).Create(row)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 1 {
			return nil
		}
		row.ID = 0
	}
	return fmt.Errorf("models: no free table code after %d attempts", codeAttempts)
}

// FindTableByCode returns the table with its seats, and its result once
// finished. Codes are matched case-insensitively, as people type them.
func (s *Store) FindTableByCode(ctx context.Context, code string) (*Table, error) {
	var t *Table
	err := s.read(ctx, func(tx *gorm.DB) error {
		ot, err := s.readTable(tx, code, "", false)
		if err == nil {
			t = ot.t
		}
		return err
	})
	return t, err
}

// ClaimSeat hands out the token of a seat the host named, once: the first
// phone to claim it holds it. A claimed seat is ErrConflict, a seat that
// does not exist ErrNotFound. It is ClaimSeatAt without an idempotent
// answer.
func (s *Store) ClaimSeat(ctx context.Context, code string, seat int) (seatToken string, err error) {
	st, _, err := s.ClaimSeatAt(ctx, code, seat, nil)
	return st.Token, err
}

// Authorize says what token may do at the table: host, one seat, or
// nothing (an unknown or empty token is a Role without rights, not an
// error). Only an unknown table is ErrNotFound.
func (s *Store) Authorize(ctx context.Context, code, token string) (Role, error) {
	role := Role{Seat: -1}
	err := s.read(ctx, func(tx *gorm.DB) error {
		ot, err := s.readTable(tx, code, token, false)
		if err == nil {
			role = ot.role
		}
		return err
	})
	return role, err
}

// Permit refuses a token that may not act for seat at the table (-1: the
// host only; AnySeat: anyone's token there) as a change would, writing
// nothing: a request that cannot be carried out is told who may not ask
// before what is wrong with it.
func (s *Store) Permit(ctx context.Context, code, token string, seat int) error {
	return s.read(ctx, func(tx *gorm.DB) error {
		ot, err := s.readTable(tx, code, token, false)
		if err != nil {
			return err
		}
		return ot.permit(seat)
	})
}

// ErrTracked means the table is played move by move: its boards follow
// from the moves, and a board saved by hand is refused.
var ErrTracked = errors.New("models: the table is played move by move")

// tableReadRow is one row of readTable's read: the table, whether it has
// moves, and one of its seats (none when it has no seats).
type tableReadRow struct {
	Table           tableRow `gorm:"embedded"`
	HasMoves        bool
	SeatNo          *int
	SeatName        *string
	SeatTokenHash   *string
	SeatClaimed     *bool
	SeatBoard       *string
	SeatLastSeenAt  *time.Time
	SeatUnsent      *int
	SeatUnsentSince *time.Time
}

// dest is where the columns of tableReadSQL scan to, in its order.
func (r *tableReadRow) dest() []any {
	t := &r.Table
	return []any{&t.ID, &t.Code, &t.Game, &t.HostTokenHash, &t.Variants, &t.Status, &t.Version, &t.FirstSeat,
		&t.CreatedAt, &t.UpdatedAt, &t.FinishedAt, &t.GroupID,
		&r.HasMoves, &r.SeatNo, &r.SeatName, &r.SeatTokenHash, &r.SeatClaimed,
		&r.SeatBoard, &r.SeatLastSeenAt, &r.SeatUnsent, &r.SeatUnsentSince}
}

func (r tableReadRow) seatRow() seatRow {
	sr := seatRow{Seat: *r.SeatNo, TokenHash: r.SeatTokenHash, Board: r.SeatBoard,
		LastSeenAt: r.SeatLastSeenAt, UnsentSince: r.SeatUnsentSince}
	if r.SeatName != nil {
		sr.Name = *r.SeatName
	}
	if r.SeatClaimed != nil {
		sr.Claimed = *r.SeatClaimed
	}
	if r.SeatUnsent != nil {
		sr.Unsent = *r.SeatUnsent
	}
	return sr
}

func tableFromRow(r tableRow) (*Table, error) {
	t := &Table{Code: r.Code, Game: r.Game, Group: DefaultGroup, Status: r.Status, Version: r.Version, Variants: map[string]int{},
		First: r.FirstSeat, Seats: []Seat{}, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.GroupID != nil {
		t.Group = *r.GroupID
	}
	if r.FinishedAt != nil {
		f := r.FinishedAt.UTC()
		t.FinishedAt = &f
	}
	if err := json.Unmarshal([]byte(r.Variants), &t.Variants); err != nil {
		return nil, fmt.Errorf("models: variants of table %s: %w", r.Code, err)
	}
	return t, nil
}

func seatFromRow(r seatRow) Seat {
	st := Seat{Seat: r.Seat, Name: r.Name, Claimed: r.Claimed, Sync: SeatSync{Unsent: r.Unsent,
		LastSeenAt: utcOrNil(r.LastSeenAt), UnsentSince: utcOrNil(r.UnsentSince)}}
	if r.Board != nil {
		st.Board = json.RawMessage(*r.Board)
	}
	return st
}

func encodeVariants(v map[string]int) (string, error) {
	if v == nil {
		v = map[string]int{}
	}
	b, err := json.Marshal(v)
	return string(b), err
}

// boardText is a board as stored: NULL for none or JSON null.
func boardText(board json.RawMessage) (*string, error) {
	trimmed := bytes.TrimSpace(board)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil, nil
	}
	if !json.Valid(trimmed) {
		return nil, errors.New("models: board is not valid JSON")
	}
	s := string(board)
	return &s, nil
}

// encodeBoards is a play's snapshot of the final boards, one per seat in
// seat order, the same order as the standings' results.
func encodeBoards(seats []seatRow) (string, error) {
	type seatBoard struct {
		Seat  int             `json:"seat"`
		Name  string          `json:"name"`
		Board json.RawMessage `json:"board"`
	}
	out := make([]seatBoard, len(seats))
	for i, st := range seats {
		out[i] = seatBoard{Seat: st.Seat, Name: st.Name, Board: json.RawMessage("null")}
		if st.Board != nil {
			out[i].Board = json.RawMessage(*st.Board)
		}
	}
	b, err := json.Marshal(out)
	return string(b), err
}

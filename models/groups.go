package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// DefaultGroup is the id of the group migration 3 creates, so that a
// self-hosted server keeps history with no setup. Its id is guessable on
// purpose: whoever reaches such a server is at its table.
const DefaultGroup = "default"

// MaxGroupNameLength is the longest group name accepted, in characters.
const MaxGroupNameLength = 60

// Group is a circle of people whose plays, players and leaderboards are
// kept together. The ID of any group but the default is unguessable and
// is its invite: knowing it (from the link /g/<id> or its QR code) is
// being in the group.
type Group struct {
	ID        string
	Name      string
	CreatedAt time.Time
}

type groupRow struct {
	ID        string
	Name      string
	CreatedAt time.Time
	// ImportingUntil is set while an import writes the group's history:
	// the group is hidden until it ends, and an import whose lease ran
	// out was abandoned.
	ImportingUntil *time.Time
}

func (groupRow) TableName() string { return "groups" }

func (r groupRow) group() *Group {
	return &Group{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

// CreateGroup makes a new group with a fresh random id.
func (s *Store) CreateGroup(ctx context.Context, name string) (*Group, error) {
	g, _, err := s.StartGroup(ctx, name, nil)
	return g, err
}

// StartGroup is CreateGroup as a change: answered with the group, in the
// transaction that makes it.
func (s *Store) StartGroup(ctx context.Context, name string, reply Reply[*Group]) (*Group, IdempotentAnswer, error) {
	var ans IdempotentAnswer
	name, err := groupName(name)
	if err != nil {
		return nil, ans, err
	}
	id, err := newGroupID(s.Rand)
	if err != nil {
		return nil, ans, err
	}
	row := groupRow{ID: id, Name: name, CreatedAt: s.now()}
	err = s.transact(ctx, func(tx *gorm.DB) error {
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		ans, err = answer(ctx, tx, reply, row.group())
		return err
	})
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	return row.group(), ans, nil
}

// FindGroup returns the group with the given id; ErrNotFound if there is
// none, which is also what a mistyped invite gets.
func (s *Store) FindGroup(ctx context.Context, id string) (*Group, error) {
	if !validID(id) {
		return nil, ErrNotFound
	}
	var row groupRow
	if err := s.rdb.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return nil, translate(err)
	}
	if row.ImportingUntil != nil {
		return nil, ErrImporting
	}
	return row.group(), nil
}

// groupName is a group's name as kept (trimmed, NFC), or ErrBadName.
func groupName(name string) (string, error) {
	return cleanName(name, MaxGroupNameLength)
}

// groupOrDefault is the group a caller means by id: none is the default.
func groupOrDefault(id string) string {
	if id == "" {
		return DefaultGroup
	}
	return id
}

// lockGroup takes the group's row lock for the rest of the transaction, or
// returns ErrNotFound. Every write to a group's history holds it, so two
// plays recorded at once cannot both create the same player or update a
// rating from the same starting point. On PostgreSQL it is FOR UPDATE;
// SQLite's single writer serialises the transactions already.
func lockGroup(tx *gorm.DB, id string) error {
	if !validID(id) {
		return notFound("no group %q", id)
	}
	var row groupRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).Select("id", "importing_until").Where("id = ?", id).Take(&row).Error
	switch {
	case errors.Is(err, gorm.ErrRecordNotFound):
		return notFound("no group %q", id)
	case err == nil && row.ImportingUntil != nil:
		return ErrImporting
	}
	return err
}

// groupExists returns ErrNotFound unless the group exists, and
// ErrImporting while it is being imported; reads check it so that an
// unknown group is an error, not an empty history.
func groupExists(tx *gorm.DB, id string) error {
	if !validID(id) {
		return notFound("no group %q", id)
	}
	var rows []groupRow
	if err := tx.Select("id", "importing_until").Where("id = ?", id).Limit(1).Find(&rows).Error; err != nil {
		return err
	}
	switch {
	case len(rows) == 0:
		return notFound("no group %q", id)
	case rows[0].ImportingUntil != nil:
		return ErrImporting
	}
	return nil
}

// GroupPlays is a group with the number of plays it holds.
type GroupPlays struct {
	ID    string
	Name  string
	Plays int64
}

// GroupsWithCounts returns every group with its number of plays, oldest
// group first: what an operator sees of a server's groups.
func (s *Store) GroupsWithCounts(ctx context.Context) ([]GroupPlays, error) {
	var out []GroupPlays
	err := s.read(ctx, func(tx *gorm.DB) error {
		return tx.Table("groups AS g").
			Select("g.id, g.name, COUNT(p.id) AS plays").
			Joins("LEFT JOIN plays AS p ON p.group_id = g.id").
			// A group still being imported is not one yet.
			Where("g.importing_until IS NULL").
			Group("g.id, g.name, g.created_at").
			Order("g.created_at, g.id").
			Scan(&out).Error
	})
	return out, err
}

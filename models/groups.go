package models

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
}

func (groupRow) TableName() string { return "groups" }

func (r groupRow) group() *Group {
	return &Group{ID: r.ID, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

// CreateGroup makes a new group with a fresh random id.
func (s *Store) CreateGroup(ctx context.Context, name string) (*Group, error) {
	name, err := groupName(name)
	if err != nil {
		return nil, err
	}
	id, err := newGroupID(s.Rand)
	if err != nil {
		return nil, err
	}
	row := groupRow{ID: id, Name: name, CreatedAt: s.now()}
	if err := s.db.WithContext(ctx).Create(&row).Error; err != nil {
		return nil, translate(err)
	}
	return row.group(), nil
}

// FindGroup returns the group with the given id; ErrNotFound if there is
// none, which is also what a mistyped invite gets.
func (s *Store) FindGroup(ctx context.Context, id string) (*Group, error) {
	var row groupRow
	if err := s.rdb.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		return nil, translate(err)
	}
	return row.group(), nil
}

// groupName trims a group's name and checks it.
func groupName(name string) (string, error) {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return "", errors.New("models: a group needs a name")
	case len([]rune(name)) > MaxGroupNameLength:
		return "", fmt.Errorf("models: a group name can be at most %d characters", MaxGroupNameLength)
	}
	return name, nil
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
	var row groupRow
	err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).Select("id").Where("id = ?", id).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return fmt.Errorf("%w: no group %q", ErrNotFound, id)
	}
	return err
}

// groupExists returns ErrNotFound unless the group exists; reads check it
// so that an unknown group is an error, not an empty history.
func groupExists(tx *gorm.DB, id string) error {
	var n int64
	if err := tx.Model(&groupRow{}).Where("id = ?", id).Count(&n).Error; err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%w: no group %q", ErrNotFound, id)
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
			Group("g.id, g.name, g.created_at").
			Order("g.created_at, g.id").
			Scan(&out).Error
	})
	return out, err
}

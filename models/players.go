package models

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// Player is a person within a group. Names typed at tables and in logged
// plays are matched to players regardless of case, spacing and invisible
// characters (nameKey), so "ana " and "Ana" are one player.
type Player struct {
	ID        string
	Group     string
	Name      string
	CreatedAt time.Time
	// LastPlayedAt is when the player's latest play of any game finished
	// (zero when none is recorded), so forms can offer the regulars first.
	LastPlayedAt time.Time
}

// ConflictError is an ErrConflict that says what collided, so the API can
// tell the user what to do instead.
type ConflictError struct {
	// PlayerID is the player the change collided with, if any: the
	// player to merge into when a rename takes an existing name.
	PlayerID string
	// Message says what collided, for the user.
	scoring.Message
}

func (e *ConflictError) Error() string { return "models: conflict: " + e.String() }

// conflictf is the ConflictError of the sentence format and args, which
// collided with playerID ("" for none).
func conflictf(playerID, format string, args ...any) error {
	return &ConflictError{PlayerID: playerID, Message: messagef(format, args...)}
}

// Unwrap makes errors.Is(err, ErrConflict) hold.
func (e *ConflictError) Unwrap() error { return ErrConflict }

type playerRow struct {
	ID        string
	GroupID   string
	Name      string
	NameKey   string
	CreatedAt time.Time
}

func (playerRow) TableName() string { return "players" }

func (r playerRow) player() Player {
	return Player{ID: r.ID, Group: r.GroupID, Name: r.Name, CreatedAt: r.CreatedAt.UTC()}
}

// ListPlayers returns the group's players ordered by name, each with when
// they last played, for a form's suggestions and the group page.
func (s *Store) ListPlayers(ctx context.Context, group string) ([]Player, error) {
	out := []Player{}
	err := s.read(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, group); err != nil {
			return err
		}
		var rows []playerRow
		if err := tx.Where("group_id = ?", group).Order("name_key, id").Find(&rows).Error; err != nil {
			return err
		}
		// The aggregates keep each player's last play per game: a few rows
		// per player, folded here rather than with MAX (which SQLite
		// would answer as text).
		var stats []statsRow
		if err := tx.Select("player_id", "last_played_at").Where("group_id = ?", group).Find(&stats).Error; err != nil {
			return err
		}
		last := make(map[string]time.Time, len(rows))
		for _, st := range stats {
			if st.LastPlayedAt.After(last[st.PlayerID]) {
				last[st.PlayerID] = st.LastPlayedAt.UTC()
			}
		}
		for _, r := range rows {
			p := r.player()
			p.LastPlayedAt = last[r.ID]
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// RenamePlayer changes a player's name everywhere it is shown; the names
// recorded as typed at past tables stay. A name another player of the
// group already has (however typed) is a *ConflictError naming that
// player: the two are probably one person, to be merged instead.
func (s *Store) RenamePlayer(ctx context.Context, group, id, name string) (*Player, error) {
	p, _, err := s.Rename(ctx, group, id, name, nil)
	return p, err
}

// Rename is RenamePlayer as a change: answered with the player renamed,
// in the rename's transaction.
func (s *Store) Rename(ctx context.Context, group, id, name string, reply Reply[*Player]) (*Player, IdempotentAnswer, error) {
	var ans IdempotentAnswer
	name, err := cleanName(name, scoring.MaxNameLength)
	if err != nil {
		return nil, ans, err
	}
	var out Player
	err = s.transact(ctx, func(tx *gorm.DB) error {
		if err := lockGroup(tx, group); err != nil {
			return err
		}
		row, err := findPlayer(tx, group, id)
		if err != nil {
			return err
		}
		key := nameKey(name)
		var other []playerRow
		if err := tx.Where("group_id = ? AND name_key = ? AND id <> ?", group, key, id).Limit(1).Find(&other).Error; err != nil {
			return err
		}
		if len(other) > 0 {
			return conflictf(other[0].ID, "%q is already a player of this group; merge the two players if they are one person", other[0].Name)
		}
		row.Name, row.NameKey = name, key
		out = row.player()
		if err := tx.Model(&playerRow{}).Where("id = ?", id).Updates(map[string]any{"name": name, "name_key": key}).Error; err != nil {
			return err
		}
		ans, err = answer(ctx, tx, reply, &out)
		return err
	})
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	return &out, ans, nil
}

// MergePlayers folds the player fromID into intoID: every play of from
// becomes a play of into, from is deleted, and the leaderboards of the
// games they played are rebuilt in the background, each from from's
// first play of it. Two players who sat at one play are two people: that
// is a *ConflictError naming the play.
func (s *Store) MergePlayers(ctx context.Context, group, fromID, intoID string) error {
	_, _, err := s.Merge(ctx, group, fromID, intoID, nil)
	return err
}

// Merge is MergePlayers as a change: in one transaction it merges, brings
// into's kept figures up to date and answers with into's page.
func (s *Store) Merge(ctx context.Context, group, fromID, intoID string, reply Reply[*PlayerStats]) (*PlayerStats, IdempotentAnswer, error) {
	var (
		page *PlayerStats
		ans  IdempotentAnswer
	)
	if fromID == intoID {
		return nil, ans, conflictf(intoID, "a player cannot be merged into themselves")
	}
	err := s.transact(ctx, func(tx *gorm.DB) error {
		if err := lockGroup(tx, group); err != nil {
			return err
		}
		from, err := findPlayer(tx, group, fromID)
		if err != nil {
			return err
		}
		into, err := findPlayer(tx, group, intoID)
		if err != nil {
			return err
		}
		var shared []string
		err = tx.Model(&playPlayerRow{}).Select("play_id").Where("player_id IN ?", []string{fromID, intoID}).
			Group("play_id").Having("COUNT(*) > 1").Order("play_id").Limit(1).Pluck("play_id", &shared).Error
		if err != nil {
			return err
		}
		if len(shared) > 0 {
			return conflictf(intoID, "%s and %s both played in play %s, so they are two people; rename one of them instead", from.Name, into.Name, shared[0])
		}
		// Each game from played changes from from's first play of it on.
		var firsts []struct {
			Game       string
			FinishedAt time.Time
			ID         string
		}
		if err := tx.Table("plays AS p").Select("p.game, p.finished_at, p.id").
			Joins("JOIN play_players pp ON pp.play_id = p.id").Where("pp.player_id = ?", fromID).
			Order("p.game, p.finished_at, p.id").Scan(&firsts).Error; err != nil {
			return err
		}
		if err := tx.Model(&playPlayerRow{}).Where("player_id = ?", fromID).Update("player_id", intoID).Error; err != nil {
			return err
		}
		if err := mergeFigures(tx, fromID, intoID); err != nil {
			return err
		}
		for _, table := range []string{"rating_history", "player_stats"} {
			if err := tx.Exec("DELETE FROM "+table+" WHERE player_id = ?", fromID).Error; err != nil {
				return err
			}
		}
		if err := tx.Delete(&playerRow{}, "id = ?", fromID).Error; err != nil {
			return err
		}
		for i, f := range firsts {
			if i > 0 && firsts[i-1].Game == f.Game {
				continue
			}
			if err := markRebuild(tx, group, f.Game, f.FinishedAt, f.ID, []string{intoID}); err != nil {
				return err
			}
			if err := keepFigures(tx, group, f.Game, []string{intoID}); err != nil {
				return err
			}
		}
		if page, err = readPlayerStats(tx, group, intoID); err != nil {
			return err
		}
		ans, err = answer(ctx, tx, reply, page)
		return err
	})
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	s.kickRebuilds()
	return page, ans, nil
}

// findPlayer returns the player if it belongs to group, else ErrNotFound:
// a player id is not a way into another group.
func findPlayer(tx *gorm.DB, group, id string) (playerRow, error) {
	var row playerRow
	if !validID(id) {
		return row, notFound("no player %q in this group", id)
	}
	err := tx.Where("id = ? AND group_id = ?", id, group).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return row, notFound("no player %q in this group", id)
	}
	return row, err
}

// resolvePlayers returns the id of the group's player for each name,
// creating the players not seen before. The caller holds the group lock.
func (s *Store) resolvePlayers(tx *gorm.DB, group string, names []string, now time.Time) ([]string, error) {
	keys := make([]string, len(names))
	for i, name := range names {
		clean, err := cleanName(name, scoring.MaxNameLength)
		if err != nil {
			return nil, fmt.Errorf("models: player %d: %w", i, err)
		}
		names[i], keys[i] = clean, nameKey(clean)
	}
	var rows []playerRow
	if err := tx.Select("id", "name_key").Where("group_id = ? AND name_key IN ?", group, keys).Find(&rows).Error; err != nil {
		return nil, err
	}
	byKey := make(map[string]string, len(rows))
	for _, r := range rows {
		byKey[r.NameKey] = r.ID
	}
	ids := make([]string, len(names))
	for i, key := range keys {
		if id, ok := byKey[key]; ok {
			ids[i] = id
			continue
		}
		id, err := newPlayerID(s.Rand)
		if err != nil {
			return nil, err
		}
		if err := tx.Create(&playerRow{ID: id, GroupID: group, Name: names[i], NameKey: key, CreatedAt: now}).Error; err != nil {
			return nil, err
		}
		byKey[key], ids[i] = id, id
	}
	return ids, nil
}

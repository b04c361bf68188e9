package models

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gorm.io/gorm"
)

// A player's page shows, per game, how often they made each total and
// their record against each opponent. Both are counts over the player's
// plays that do not depend on the order of the plays, so they are kept in
// two tables (player_scores and head_to_head, migration 12) that every
// change to play_players updates in its own transaction: recording a play
// counts it, an edit takes the old results out and counts the new ones, a
// delete takes them out, a merge moves one player's counts to the other,
// an import counts each batch of plays as it writes it. They are therefore
// right at every moment, also while a rating rebuild runs in the
// background (which changes ratings only, never these counts), and the
// page reads a few rows per game instead of every play of the player.
// RecomputeRatings counts them again from the plays.

// scoreKey is a row of player_scores: how many plays of a game a player
// ended with a total.
type scoreKey struct {
	group, game, player string
	score               int
}

// pairKey is a row of head_to_head: a player's record against an
// opponent in a game. Each pair has two rows, one from each side.
type pairKey struct {
	group, game, player, opponent string
}

// pairCounts is a record over the plays two players had together: a win
// is a better rank, a tie an equal one.
type pairCounts struct {
	plays, wins, losses, ties int
}

func (c pairCounts) add(o pairCounts, sign int) pairCounts {
	return pairCounts{c.plays + sign*o.plays, c.wins + sign*o.wins, c.losses + sign*o.losses, c.ties + sign*o.ties}
}

// figures is a change to the score counts and head-to-head records, to be
// added to the stored ones.
type figures struct {
	scores map[scoreKey]int
	pairs  map[pairKey]pairCounts
}

func newFigures() *figures {
	return &figures{scores: map[scoreKey]int{}, pairs: map[pairKey]pairCounts{}}
}

// addPlay counts a play's results in (sign 1) or out (sign -1).
func (f *figures) addPlay(group, game string, players []seatedResult, sign int) {
	for _, me := range players {
		f.scores[scoreKey{group, game, me.PlayerID, me.Total}] += sign
		for _, o := range players {
			if o.PlayerID == me.PlayerID {
				continue
			}
			c := pairCounts{plays: 1}
			switch {
			case me.Rank < o.Rank:
				c.wins = 1
			case me.Rank > o.Rank:
				c.losses = 1
			default:
				c.ties = 1
			}
			k := pairKey{group, game, me.PlayerID, o.PlayerID}
			f.pairs[k] = f.pairs[k].add(c, sign)
		}
	}
}

// figureRowsPerStatement bounds an upsert's rows: 8 parameters a row, well
// under the bound-parameter limits of both databases.
const figureRowsPerStatement = 500

// write adds the change to the stored counts: one upsert per table (per
// figureRowsPerStatement rows), then the rows that fell to no play go.
func (f *figures) write(tx *gorm.DB) error {
	scores := slices.SortedFunc(maps.Keys(f.scores), func(x, y scoreKey) int {
		return cmp.Or(strings.Compare(x.player, y.player), strings.Compare(x.game, y.game), cmp.Compare(x.score, y.score))
	})
	scores = slices.DeleteFunc(scores, func(k scoreKey) bool { return f.scores[k] == 0 })
	pairs := slices.SortedFunc(maps.Keys(f.pairs), func(x, y pairKey) int {
		return cmp.Or(strings.Compare(x.player, y.player), strings.Compare(x.game, y.game), strings.Compare(x.opponent, y.opponent))
	})
	pairs = slices.DeleteFunc(pairs, func(k pairKey) bool { return f.pairs[k] == pairCounts{} })
	var gone []string // players some of whose counts went down
	for chunk := range slices.Chunk(scores, figureRowsPerStatement) {
		args := make([]any, 0, 5*len(chunk))
		for _, k := range chunk {
			n := f.scores[k]
			args = append(args, k.group, k.game, k.player, k.score, n)
			if n < 0 {
				gone = append(gone, k.player)
			}
		}
		err := tx.Exec(`INSERT INTO player_scores (group_id, game, player_id, score, plays) VALUES `+
			valueRows(len(chunk), 5)+` ON CONFLICT (player_id, game, score) DO UPDATE SET plays = player_scores.plays + excluded.plays`,
			args...).Error
		if err != nil {
			return err
		}
	}
	for chunk := range slices.Chunk(pairs, figureRowsPerStatement) {
		args := make([]any, 0, 8*len(chunk))
		for _, k := range chunk {
			c := f.pairs[k]
			args = append(args, k.group, k.game, k.player, k.opponent, c.plays, c.wins, c.losses, c.ties)
			if c.plays < 0 {
				gone = append(gone, k.player)
			}
		}
		err := tx.Exec(`INSERT INTO head_to_head (group_id, game, player_id, opponent_id, plays, wins, losses, ties) VALUES `+
			valueRows(len(chunk), 8)+` ON CONFLICT (player_id, game, opponent_id) DO UPDATE SET
				plays = head_to_head.plays + excluded.plays, wins = head_to_head.wins + excluded.wins,
				losses = head_to_head.losses + excluded.losses, ties = head_to_head.ties + excluded.ties`,
			args...).Error
		if err != nil {
			return err
		}
	}
	if len(gone) == 0 {
		return nil
	}
	slices.Sort(gone)
	gone = slices.Compact(gone)
	for chunk := range slices.Chunk(gone, figureRowsPerStatement) {
		for _, table := range []string{"player_scores", "head_to_head"} {
			if err := tx.Exec("DELETE FROM "+table+" WHERE player_id IN ? AND plays <= 0", chunk).Error; err != nil {
				return err
			}
		}
	}
	return nil
}

// valueRows is the VALUES list of rows of cols parameters each.
func valueRows(rows, cols int) string {
	row := "(" + strings.Repeat("?, ", cols-1) + "?)"
	var b strings.Builder
	for i := range rows {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(row)
	}
	return b.String()
}

// countPlay counts a play's results in (sign 1) or out (sign -1) of the
// stored figures. The caller holds the group lock.
func countPlay(tx *gorm.DB, group, game string, players []seatedResult, sign int) error {
	f := newFigures()
	f.addPlay(group, game, players, sign)
	return f.write(tx)
}

// mergeFigures moves the counts of player from to player into, who never
// played together: from's totals become into's, and so do from's records
// against each opponent and each opponent's records against from. The
// cost is the rows of from, whatever the length of the history.
func mergeFigures(tx *gorm.DB, fromID, intoID string) error {
	var scores []struct {
		GroupID string
		Game    string
		Score   int
		Plays   int
	}
	if err := tx.Table("player_scores").Select("group_id, game, score, plays").Where("player_id = ?", fromID).Scan(&scores).Error; err != nil {
		return err
	}
	var pairs []struct {
		GroupID    string
		Game       string
		OpponentID string
		Plays      int
		Wins       int
		Losses     int
		Ties       int
	}
	err := tx.Table("head_to_head").Select("group_id, game, opponent_id, plays, wins, losses, ties").
		Where("player_id = ?", fromID).Scan(&pairs).Error
	if err != nil {
		return err
	}
	f := newFigures()
	for _, r := range scores {
		f.scores[scoreKey{r.GroupID, r.Game, fromID, r.Score}] -= r.Plays
		f.scores[scoreKey{r.GroupID, r.Game, intoID, r.Score}] += r.Plays
	}
	for _, r := range pairs {
		if r.OpponentID == intoID {
			return fmt.Errorf("models: players %s and %s have a record together and cannot be merged", fromID, intoID)
		}
		mine := pairCounts{r.Plays, r.Wins, r.Losses, r.Ties}
		theirs := pairCounts{r.Plays, r.Losses, r.Wins, r.Ties}
		for _, m := range []struct {
			k    pairKey
			c    pairCounts
			sign int
		}{
			{pairKey{r.GroupID, r.Game, fromID, r.OpponentID}, mine, -1},
			{pairKey{r.GroupID, r.Game, intoID, r.OpponentID}, mine, 1},
			{pairKey{r.GroupID, r.Game, r.OpponentID, fromID}, theirs, -1},
			{pairKey{r.GroupID, r.Game, r.OpponentID, intoID}, theirs, 1},
		} {
			f.pairs[m.k] = f.pairs[m.k].add(m.c, m.sign)
		}
	}
	return f.write(tx)
}

// countFigures counts a group's score counts and head-to-head records
// again from its plays, for RecomputeRatings; group "" is every group.
func countFigures(tx *gorm.DB, group string) error {
	where, args := "", []any{}
	if group != "" {
		where, args = " WHERE p.group_id = ?", []any{group}
		for _, table := range []string{"player_scores", "head_to_head"} {
			if err := tx.Exec("DELETE FROM "+table+" WHERE group_id = ?", group).Error; err != nil {
				return err
			}
		}
	}
	err := tx.Exec(`INSERT INTO player_scores (group_id, game, player_id, score, plays)
		SELECT p.group_id, p.game, pp.player_id, pp.total, COUNT(*)
		FROM play_players pp JOIN plays p ON p.id = pp.play_id`+where+`
		GROUP BY p.group_id, p.game, pp.player_id, pp.total`, args...).Error
	if err != nil {
		return err
	}
	return tx.Exec(`INSERT INTO head_to_head (group_id, game, player_id, opponent_id, plays, wins, losses, ties)
		SELECT p.group_id, p.game, me.player_id, o.player_id, COUNT(*),
			SUM(CASE WHEN me.rank < o.rank THEN 1 ELSE 0 END),
			SUM(CASE WHEN me.rank > o.rank THEN 1 ELSE 0 END),
			SUM(CASE WHEN me.rank = o.rank THEN 1 ELSE 0 END)
		FROM play_players me
		JOIN play_players o ON o.play_id = me.play_id AND o.player_id <> me.player_id
		JOIN plays p ON p.id = me.play_id`+where+`
		GROUP BY p.group_id, p.game, me.player_id, o.player_id`, args...).Error
}

// migrateFigures is migration 12: the tables, counted from the plays an
// upgraded database already has.
func migrateFigures(tx *gorm.DB) error {
	err := execDDL(
		// How many plays of a game a player ended with each total.
		`CREATE TABLE player_scores (
			group_id  TEXT NOT NULL REFERENCES groups (id),
			game      TEXT NOT NULL,
			player_id TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
			score     INTEGER NOT NULL,
			plays     INTEGER NOT NULL,
			PRIMARY KEY (player_id, game, score)
		)`,
		`CREATE INDEX player_scores_group ON player_scores (group_id, game)`,
		// A player's record against an opponent over the plays of a game
		// they had together; a pair has a row from each side.
		`CREATE TABLE head_to_head (
			group_id    TEXT NOT NULL REFERENCES groups (id),
			game        TEXT NOT NULL,
			player_id   TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
			opponent_id TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
			plays       INTEGER NOT NULL,
			wins        INTEGER NOT NULL,
			losses      INTEGER NOT NULL,
			ties        INTEGER NOT NULL,
			PRIMARY KEY (player_id, game, opponent_id)
		)`,
		`CREATE INDEX head_to_head_opponent ON head_to_head (opponent_id)`,
		`CREATE INDEX head_to_head_group ON head_to_head (group_id, game)`,
	)(tx)
	if err != nil {
		return err
	}
	return countFigures(tx, "")
}

package models

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// MinRatedPlays is how many rated plays a player needs before the
// leaderboard shows their rating; until then it is provisional, as a
// rating after one or two plays says little.
const MinRatedPlays = 3

// winsOnly says a game is won without points (its Info says so): its
// averages and bests would only restate wins.
func winsOnly(game string) bool {
	info, ok := scoring.InfoOf(game)
	return ok && info.WinsOnly
}

// leaderboardOrder ranks rated players by rating before provisional ones;
// then wins, plays and name, so the order is total.
var leaderboardOrder = fmt.Sprintf(`CASE WHEN ps.rated_plays >= %[1]d THEN 0 ELSE 1 END,
	CASE WHEN ps.rated_plays >= %[1]d THEN ps.ordinal ELSE 0 END DESC,
	ps.wins DESC, ps.plays DESC, players.name_key, players.id`, MinRatedPlays)

// LeaderboardEntry is one player's line on a game's leaderboard.
type LeaderboardEntry struct {
	PlayerID string
	Player   string
	Plays    int
	Wins     int
	// WinRate is Wins/Plays; a shared win is a win.
	WinRate float64
	// AvgScore and BestScore are nil for games without points.
	AvgScore  *float64
	BestScore *int
	// Rating is the conservative OpenSkill estimate (mu − 3σ), nil while
	// Provisional.
	Rating      *float64
	RatedPlays  int
	Provisional bool
}

// PlayerStats is what a player's page shows.
type PlayerStats struct {
	Player Player
	// Games are the games the player has played, by game id.
	Games []PlayerGameStats
	// Recent are the player's newest plays, newest first.
	Recent []PlaySummary
}

// RecentPlays is how many plays PlayerStats lists.
const RecentPlays = 10

// PlayerGameStats is a player's record in one game.
type PlayerGameStats struct {
	LeaderboardEntry
	Game         string
	LastPlayedAt time.Time
	// RatingHistory is the rating after each of the newest RatingPage
	// rated plays, oldest first.
	RatingHistory []RatingPoint
	// RatingNext is the cursor of the ratings before those, for
	// RatingHistory; empty when there are none.
	RatingNext string
	// Scores counts the plays per total, lowest total first; empty for
	// games without points.
	Scores []ScoreCount
	// HeadToHead is the record against each opponent, most plays together
	// first.
	HeadToHead []HeadToHead
}

// RatingPoint is a player's rating right after one play.
type RatingPoint struct {
	PlayID     string
	FinishedAt time.Time
	Mu         float64
	Sigma      float64
	Ordinal    float64
}

// ScoreCount is one bar of a score histogram.
type ScoreCount struct {
	Score int
	Count int
}

// HeadToHead is a player's record against one opponent over the plays
// they had together: a win is a better rank, a tie an equal one.
type HeadToHead struct {
	OpponentID string
	Opponent   string
	Plays      int
	Wins       int
	Losses     int
	Ties       int
}

type statsRow struct {
	GroupID      string `gorm:"primaryKey"`
	Game         string `gorm:"primaryKey"`
	PlayerID     string `gorm:"primaryKey"`
	Plays        int
	Wins         int
	ScoreSum     int64
	BestScore    int
	RatedPlays   int
	Mu           float64
	Sigma        float64
	Ordinal      float64
	LastPlayedAt time.Time
}

func (statsRow) TableName() string { return "player_stats" }

type ratingRow struct {
	PlayID     string `gorm:"primaryKey"`
	PlayerID   string `gorm:"primaryKey"`
	GroupID    string
	Game       string
	Mu         float64
	Sigma      float64
	Ordinal    float64
	FinishedAt time.Time
}

func (ratingRow) TableName() string { return "rating_history" }

// seatedResult is what the aggregates need of one player of a play.
type seatedResult struct {
	PlayerID string
	Total    int
	Rank     int
	Winner   bool
}

// aggregator folds plays, in finish order, into the leaderboard rows of
// one group and game. Both the one-step update and the rebuild go through
// it, so they compute the same figures bit for bit.
type aggregator struct {
	group, game string
	stats       map[string]*statsRow
	history     []ratingRow
}

func newAggregator(group, game string) *aggregator {
	return &aggregator{group: group, game: game, stats: map[string]*statsRow{}}
}

// add counts one play. Plays of two or more are rated together with
// OpenSkill Plackett–Luce on their ranks; a solo play is no contest.
func (a *aggregator) add(playID string, finishedAt time.Time, players []seatedResult) {
	rows := make([]*statsRow, len(players))
	for i, p := range players {
		st, ok := a.stats[p.PlayerID]
		if !ok {
			r := scoring.NewRating()
			st = &statsRow{GroupID: a.group, Game: a.game, PlayerID: p.PlayerID, BestScore: p.Total,
				Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal(), LastPlayedAt: finishedAt}
			a.stats[p.PlayerID] = st
		}
		st.Plays++
		if p.Winner {
			st.Wins++
		}
		st.ScoreSum += int64(p.Total)
		st.BestScore = max(st.BestScore, p.Total)
		if finishedAt.After(st.LastPlayedAt) {
			st.LastPlayedAt = finishedAt
		}
		rows[i] = st
	}
	if len(players) < 2 {
		return
	}
	ratings := make([]scoring.Rating, len(players))
	ranks := make([]int, len(players))
	for i, st := range rows {
		ratings[i] = scoring.Rating{Mu: st.Mu, Sigma: st.Sigma}
		ranks[i] = players[i].Rank
	}
	for i, r := range scoring.RatePlackettLuce(ratings, ranks) {
		st := rows[i]
		st.RatedPlays++
		st.Mu, st.Sigma, st.Ordinal = r.Mu, r.Sigma, r.Ordinal()
		a.history = append(a.history, ratingRow{PlayID: playID, PlayerID: st.PlayerID, GroupID: a.group, Game: a.game,
			Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal(), FinishedAt: finishedAt})
	}
}

// stepGame adds the newest play of a group and game to its aggregates:
// the cost is the play's players, whatever the length of the history.
func stepGame(tx *gorm.DB, group, game, playID string, finishedAt time.Time, players []seatedResult) error {
	ids := make([]string, len(players))
	for i, p := range players {
		ids[i] = p.PlayerID
	}
	var existing []statsRow
	if err := tx.Where("group_id = ? AND game = ? AND player_id IN ?", group, game, ids).Find(&existing).Error; err != nil {
		return err
	}
	a := newAggregator(group, game)
	known := map[string]bool{}
	for i := range existing {
		a.stats[existing[i].PlayerID] = &existing[i]
		known[existing[i].PlayerID] = true
	}
	a.add(playID, finishedAt, players)
	for _, id := range ids {
		st := a.stats[id]
		if !known[id] {
			if err := tx.Create(st).Error; err != nil {
				return err
			}
			continue
		}
		err := tx.Model(&statsRow{}).Where("group_id = ? AND game = ? AND player_id = ?", group, game, id).Updates(map[string]any{
			"plays": st.Plays, "wins": st.Wins, "score_sum": st.ScoreSum, "best_score": st.BestScore,
			"rated_plays": st.RatedPlays, "mu": st.Mu, "sigma": st.Sigma, "ordinal": st.Ordinal, "last_played_at": st.LastPlayedAt,
		}).Error
		if err != nil {
			return err
		}
	}
	if len(a.history) == 0 {
		return nil
	}
	return tx.Create(&a.history).Error
}

// rebuildBatch is how many rows a rebuild inserts per statement, well
// under the bound-parameter limits of both databases.
const rebuildBatch = 500

// recomputePlays is how many plays a recompute reads at a time: it folds
// them and writes their rating points before it reads the next, so a
// history of any length takes the memory of a page (a million plays kept
// whole took 1.5 GB).
const recomputePlays = 1000

// rebuildGame recomputes the aggregates and rating history of a group's
// game from its plays in finish order, reading page plays at a time.
func rebuildGame(tx *gorm.DB, group, game string, page int) error {
	for _, table := range []string{"player_stats", "rating_history"} {
		if err := tx.Exec("DELETE FROM "+table+" WHERE group_id = ? AND game = ?", group, game).Error; err != nil {
			return err
		}
	}
	a := newAggregator(group, game)
	var after *playRow // the last play of the page before
	for {
		// A page runs to its page-th play, or to the newest.
		where, args := "p.group_id = ? AND p.game = ?", []any{group, game}
		if after != nil {
			where += " AND (p.finished_at, p.id) > (?, ?)"
			args = append(args, after.FinishedAt, after.ID)
		}
		var last []playRow
		err := tx.Table("plays AS p").Select("p.id", "p.finished_at").Where(where, args...).
			Order("p.finished_at, p.id").Offset(page - 1).Limit(1).Find(&last).Error
		if err != nil {
			return err
		}
		if len(last) == 1 {
			where += " AND (p.finished_at, p.id) <= (?, ?)"
			args = append(args, last[0].FinishedAt, last[0].ID)
		}
		rows, err := tx.Raw(`SELECT p.id, p.finished_at, pp.player_id, pp.total, pp.rank, pp.winner
			FROM plays p JOIN play_players pp ON pp.play_id = p.id
			WHERE `+where+` ORDER BY p.finished_at, p.id, pp.seat`, args...).Rows()
		if err != nil {
			return err
		}
		if err := a.addRows(rows); err != nil {
			return err
		}
		if len(a.history) > 0 {
			if err := tx.CreateInBatches(a.history, rebuildBatch).Error; err != nil {
				return err
			}
		}
		a.history = a.history[:0]
		if len(last) == 0 {
			break
		}
		after = &last[0]
	}
	stats := slices.SortedFunc(maps.Values(a.stats), func(x, y *statsRow) int { return strings.Compare(x.PlayerID, y.PlayerID) })
	if len(stats) > 0 {
		return tx.CreateInBatches(stats, rebuildBatch).Error
	}
	return nil
}

// addRows counts the plays of rows, which hold a row per player of a
// play (id, finished_at, player_id, total, rank, winner) in finish order
// and seat order, and closes rows.
func (a *aggregator) addRows(rows *sql.Rows) error {
	defer rows.Close()
	var (
		playID  string
		at      time.Time
		players []seatedResult
	)
	for rows.Next() {
		var (
			id       string
			finished time.Time
			p        seatedResult
		)
		if err := rows.Scan(&id, &finished, &p.PlayerID, &p.Total, &p.Rank, &p.Winner); err != nil {
			return err
		}
		if id != playID && players != nil {
			a.add(playID, at, players)
			players = nil
		}
		playID, at = id, finished.UTC()
		players = append(players, p)
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if players != nil {
		a.add(playID, at, players)
	}
	return nil
}

// rebuildGroup recomputes every game of a group, page plays at a time
// (rebuildGame), dropping the aggregates of games it no longer has plays
// of.
func rebuildGroup(tx *gorm.DB, group string, page int) error {
	for _, table := range []string{"player_stats", "rating_history"} {
		if err := tx.Exec("DELETE FROM "+table+" WHERE group_id = ?", group).Error; err != nil {
			return err
		}
	}
	var games []string
	if err := tx.Model(&playRow{}).Distinct("game").Where("group_id = ?", group).Order("game").Pluck("game", &games).Error; err != nil {
		return err
	}
	for _, game := range games {
		if err := rebuildGame(tx, group, game, page); err != nil {
			return err
		}
	}
	return nil
}

// RecomputeRatings rebuilds every leaderboard and rating history from the
// plays, one group per transaction: for `insectscore recompute` after a
// change to the rating model or a repair by hand. A group being imported
// is left to its import, which computes its aggregates itself.
func (s *Store) RecomputeRatings(ctx context.Context) error {
	var groups []string
	if err := s.db.WithContext(ctx).Model(&groupRow{}).Where("importing_until IS NULL").Order("id").Pluck("id", &groups).Error; err != nil {
		return translate(err)
	}
	// Tests that make rebuilds take many steps make a recompute read
	// many pages too.
	page := recomputePlays
	if s.rebuildSize > 0 {
		page = s.rebuildSize
	}
	for _, group := range groups {
		err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
			if err := lockGroup(tx, group); err != nil {
				return err
			}
			if err := rebuildGroup(tx, group, page); err != nil {
				return err
			}
			if err := countFigures(tx, group); err != nil {
				return err
			}
			// Nothing is left for the background to do.
			return tx.Where("group_id = ?", group).Delete(&rebuildRow{}).Error
		})
		if err != nil && !errors.Is(err, ErrImporting) {
			return translate(err)
		}
	}
	return nil
}

// Leaderboard returns a group's standings in one game: rated players
// first by rating, then the provisional ones by wins and plays, each part
// ending in name order. It reads the kept aggregates only, so it costs the
// same at any length of history.
func (s *Store) Leaderboard(ctx context.Context, group, game string) ([]LeaderboardEntry, error) {
	b, err := s.GameLeaderboard(ctx, group, game)
	if err != nil {
		return nil, err
	}
	return b.Entries, nil
}

// GameLeaderboard is a game's leaderboard as Leaderboard gives it, and
// whether a rebuild of it is under way after a change to its past.
type GameLeaderboard struct {
	Entries []LeaderboardEntry
	// Updating is true while the figures are being brought up to date in
	// the background: until then they are those before the change.
	Updating bool
}

// GameLeaderboard returns the leaderboard of Leaderboard and whether it
// is being updated, read together.
func (s *Store) GameLeaderboard(ctx context.Context, group, game string) (*GameLeaderboard, error) {
	out := &GameLeaderboard{Entries: []LeaderboardEntry{}}
	err := s.read(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, group); err != nil {
			return err
		}
		var err error
		if out.Updating, err = rebuildPending(tx, group, game); err != nil {
			return err
		}
		var rows []struct {
			Stats  statsRow `gorm:"embedded"`
			Player string
		}
		err = tx.Table("player_stats AS ps").Select("ps.*, players.name AS player").
			Joins("JOIN players ON players.id = ps.player_id").
			Where("ps.group_id = ? AND ps.game = ?", group, game).
			Order(leaderboardOrder).
			Scan(&rows).Error
		if err != nil {
			return err
		}
		for _, r := range rows {
			out.Entries = append(out.Entries, entryOf(r.Stats, r.Player))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// entryOf turns a player's aggregates into what the leaderboard shows.
func entryOf(st statsRow, name string) LeaderboardEntry {
	e := LeaderboardEntry{PlayerID: st.PlayerID, Player: name, Plays: st.Plays, Wins: st.Wins,
		RatedPlays: st.RatedPlays, Provisional: st.RatedPlays < MinRatedPlays}
	if st.Plays > 0 {
		e.WinRate = float64(st.Wins) / float64(st.Plays)
		if !winsOnly(st.Game) {
			avg, best := float64(st.ScoreSum)/float64(st.Plays), st.BestScore
			e.AvgScore, e.BestScore = &avg, &best
		}
	}
	if !e.Provisional {
		r := st.Ordinal
		e.Rating = &r
	}
	return e
}

// PlayerStats returns a player's page: per game their record, rating
// history, score histogram and head-to-head, and their recent plays. A
// player of another group is ErrNotFound.
func (s *Store) PlayerStats(ctx context.Context, group, playerID string) (*PlayerStats, error) {
	var out *PlayerStats
	err := s.read(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, group); err != nil {
			return err
		}
		var err error
		out, err = readPlayerStats(tx, group, playerID)
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// readPlayerStats reads a player's page.
func readPlayerStats(tx *gorm.DB, group, playerID string) (*PlayerStats, error) {
	p, err := findPlayer(tx, group, playerID)
	if err != nil {
		return nil, err
	}
	out := &PlayerStats{Player: p.player(), Games: []PlayerGameStats{}}
	var stats []statsRow
	if err := tx.Where("group_id = ? AND player_id = ?", group, playerID).Order("game").Find(&stats).Error; err != nil {
		return nil, err
	}
	byGame := map[string]*PlayerGameStats{}
	for _, st := range stats {
		out.Games = append(out.Games, PlayerGameStats{LeaderboardEntry: entryOf(st, p.Name), Game: st.Game,
			LastPlayedAt: st.LastPlayedAt.UTC(), RatingHistory: []RatingPoint{}, Scores: []ScoreCount{}, HeadToHead: []HeadToHead{}})
	}
	for i := range out.Games {
		byGame[out.Games[i].Game] = &out.Games[i]
	}
	for i := range out.Games {
		g := &out.Games[i]
		if g.RatingHistory, g.RatingNext, err = ratingPage(tx, playerID, g.Game, "", RatingPage); err != nil {
			return nil, err
		}
	}
	if err := scoreCounts(tx, playerID, byGame); err != nil {
		return nil, err
	}
	if err := headToHead(tx, playerID, byGame); err != nil {
		return nil, err
	}
	out.Recent, _, err = listPlays(tx, PlayFilter{Group: group, PlayerID: playerID, Limit: RecentPlays})
	return out, err
}

// RatingPage is how many ratings of a game a player's page holds, the
// newest, and the most RatingHistory gives at a time: a chart's worth,
// at any length of history.
const RatingPage = 200

// RatingHistory returns a page of a player's ratings in a game, oldest
// first: those before the cursor (the newest when it is empty), at most
// limit of them (RatingPage when zero or less, at most RatingPage), and
// the cursor of the ratings before them ("" when there are none). A
// cursor RatingHistory or PlayerStats did not hand out is ErrBadCursor.
func (s *Store) RatingHistory(ctx context.Context, group, playerID, game, cursor string, limit int) (points []RatingPoint, next string, err error) {
	if limit <= 0 || limit > RatingPage {
		limit = RatingPage
	}
	err = s.read(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, group); err != nil {
			return err
		}
		if _, err := findPlayer(tx, group, playerID); err != nil {
			return err
		}
		points, next, err = ratingPage(tx, playerID, game, cursor, limit)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return points, next, nil
}

// ratingPage reads the limit ratings of a player's game before cursor,
// newest first along the index, and returns them oldest first.
func ratingPage(tx *gorm.DB, playerID, game, cursor string, limit int) ([]RatingPoint, string, error) {
	q := tx.Where("player_id = ? AND game = ?", playerID, game)
	if cursor != "" {
		at, id, err := decodeCursor(cursor)
		if err != nil {
			return nil, "", err
		}
		q = q.Where("(finished_at, play_id) < (?, ?)", at, id)
	}
	var rows []ratingRow
	if err := q.Order("finished_at DESC, play_id DESC").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, "", err
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		next = encodeCursor(rows[limit-1].FinishedAt, rows[limit-1].PlayID)
	}
	out := make([]RatingPoint, len(rows))
	for i, r := range rows {
		out[len(rows)-1-i] = RatingPoint{PlayID: r.PlayID, FinishedAt: r.FinishedAt.UTC(), Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal}
	}
	return out, next, nil
}

// scoreCounts reads a player's score counts, kept by every change to the
// plays (figures.go): a row per game and total.
func scoreCounts(tx *gorm.DB, playerID string, byGame map[string]*PlayerGameStats) error {
	var rows []struct {
		Game  string
		Score int
		Count int
	}
	err := tx.Table("player_scores").Select("game, score, plays AS count").Where("player_id = ?", playerID).
		Order("game, score").Scan(&rows).Error
	if err != nil {
		return err
	}
	for _, r := range rows {
		if g := byGame[r.Game]; g != nil && !winsOnly(r.Game) {
			g.Scores = append(g.Scores, ScoreCount{Score: r.Score, Count: r.Count})
		}
	}
	return nil
}

// headToHead reads a player's records against each opponent, kept by
// every change to the plays (figures.go): a row per game and opponent.
func headToHead(tx *gorm.DB, playerID string, byGame map[string]*PlayerGameStats) error {
	var rows []struct {
		Game string
		HeadToHead
	}
	err := tx.Table("head_to_head AS h").
		Select("h.game, h.opponent_id, players.name AS opponent, h.plays, h.wins, h.losses, h.ties").
		Joins("JOIN players ON players.id = h.opponent_id").
		Where("h.player_id = ?", playerID).
		Order("h.game, h.plays DESC, players.name_key, h.opponent_id").Scan(&rows).Error
	if err != nil {
		return err
	}
	for _, r := range rows {
		if g := byGame[r.Game]; g != nil {
			g.HeadToHead = append(g.HeadToHead, r.HeadToHead)
		}
	}
	return nil
}

// keepFigures brings the kept figures of players in a group's game up to
// date with their plays, in the transaction of the change that altered
// them: plays, wins, score sum, best score, rated plays and the last play
// are counted again (playerFigures). A player left with no play of the
// game loses the row. Ratings depend on the order of the plays: a row's
// stay as they are until the rebuild the change marked sets them, and a
// new row starts from the player's newest rating point.
func keepFigures(tx *gorm.DB, group, game string, players []string) error {
	ids := slices.Clone(players)
	slices.Sort(ids)
	for _, id := range slices.Compact(ids) {
		st, err := playerFigures(tx, group, game, id)
		if err != nil {
			return err
		}
		where := tx.Model(&statsRow{}).Where("group_id = ? AND game = ? AND player_id = ?", group, game, id)
		if st == nil {
			if err := where.Delete(&statsRow{}).Error; err != nil {
				return err
			}
			continue
		}
		res := where.Updates(map[string]any{"plays": st.Plays, "wins": st.Wins, "score_sum": st.ScoreSum,
			"best_score": st.BestScore, "rated_plays": st.RatedPlays, "last_played_at": st.LastPlayedAt})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			if err := tx.Create(st).Error; err != nil {
				return err
			}
		}
	}
	return nil
}

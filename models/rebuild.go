package models

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// A change to the past of a game (a play logged before the newest, an
// edit, a delete, a merge of two players) does not recompute the game's
// aggregates in the request. The request records, in its own transaction,
// where the game's rating history stops being right (rating_rebuilds: one
// row per group and game, holding the earliest play whose ratings may be
// wrong) and which players' figures it changed (rating_rebuild_players).
// A worker of the store then brings the game up to date in the
// background, in short transactions, so that other writes interleave:
//
//   - The walk replays the plays from that point in finish order, a batch
//     at a time. A player's rating before a batch is their newest rating
//     point before it: the history before the point is right, so the walk
//     starts from each player's state just before the earliest change,
//     never from the beginning. Each batch replaces the rating points of
//     its span and moves the point on.
//   - Once the walk reaches the newest play, the players the changes
//     touched (at most the players of the changed plays, whatever the
//     length of the history) get their figures computed again from their
//     own plays. That read runs on the read pool, off the writer, and what
//     it computed is written only if no change came in meanwhile. The
//     figures of everyone else do not depend on the order of plays, so the
//     changes left them as they were; their ratings the walk has set.
//   - The row goes when the game is right again. Until then the
//     leaderboard says it is updating.
//
// A change during a rebuild moves the point back (never forward) and sends
// the walk on from there. The rows live in the database, so a server
// stopped mid-way carries on at its next start. On PostgreSQL a replica
// works a rebuild only while it holds the rebuild's advisory lock, so two
// replicas never work the same one; each step also takes the group's lock
// and reads the row again, so even two workers would stay correct.

// rebuildRow is a game whose aggregates are being brought up to date.
// Plays at or after (FromAt, FromID) are still to be replayed; Walked says
// none are left and only the changed players' figures remain. Seq counts
// the changes, so a worker can tell whether one came in while it read.
type rebuildRow struct {
	GroupID string `gorm:"primaryKey"`
	Game    string `gorm:"primaryKey"`
	FromAt  time.Time
	FromID  string
	Walked  bool
	Seq     int64
}

func (rebuildRow) TableName() string { return "rating_rebuilds" }

// stalePlayerRow is a player whose figures in a game a change altered.
type stalePlayerRow struct {
	GroupID  string `gorm:"primaryKey"`
	Game     string `gorm:"primaryKey"`
	PlayerID string `gorm:"primaryKey"`
}

func (stalePlayerRow) TableName() string { return "rating_rebuild_players" }

// migrateRebuilds is the migration that makes rebuilds a background job.
var migrateRebuilds = execDDL(
	`CREATE TABLE rating_rebuilds (
		group_id TEXT NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
		game     TEXT NOT NULL,
		from_at  {{time}} NOT NULL,
		from_id  TEXT NOT NULL,
		walked   BOOLEAN NOT NULL DEFAULT FALSE,
		seq      BIGINT NOT NULL DEFAULT 1,
		PRIMARY KEY (group_id, game)
	)`,
	`CREATE TABLE rating_rebuild_players (
		group_id  TEXT NOT NULL,
		game      TEXT NOT NULL,
		player_id TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
		PRIMARY KEY (group_id, game, player_id),
		FOREIGN KEY (group_id, game) REFERENCES rating_rebuilds (group_id, game) ON DELETE CASCADE
	)`,
	// A rebuild replaces the rating points of a span of a game's plays.
	`CREATE INDEX rating_history_game_order ON rating_history (group_id, game, finished_at, play_id)`,
)

// markRebuild records, in the transaction of a change, that the ratings
// of a group's game may be wrong from the play at (at, id) on, and that
// the figures of players changed. An existing rebuild's point only moves
// back. The caller holds the group lock.
func markRebuild(tx *gorm.DB, group, game string, at time.Time, id string, players []string) error {
	// The comparison is the database's, as its order is the one the walk
	// follows.
	res := tx.Exec(`UPDATE rating_rebuilds SET
		from_at = CASE WHEN walked OR (?, ?) < (from_at, from_id) THEN ? ELSE from_at END,
		from_id = CASE WHEN walked OR (?, ?) < (from_at, from_id) THEN ? ELSE from_id END,
		walked = FALSE, seq = seq + 1
		WHERE group_id = ? AND game = ?`, at, id, at, at, id, id, group, game)
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		if err := tx.Create(&rebuildRow{GroupID: group, Game: game, FromAt: at, FromID: id, Seq: 1}).Error; err != nil {
			return err
		}
	}
	for _, p := range players {
		err := tx.Exec(`INSERT INTO rating_rebuild_players (group_id, game, player_id) VALUES (?, ?, ?)
			ON CONFLICT (group_id, game, player_id) DO NOTHING`, group, game, p).Error
		if err != nil {
			return err
		}
	}
	return nil
}

// rebuildPending reports whether a rebuild of the group's game is waiting
// or running.
func rebuildPending(tx *gorm.DB, group, game string) (bool, error) {
	var n int64
	err := tx.Model(&rebuildRow{}).Where("group_id = ? AND game = ?", group, game).Count(&n).Error
	return n > 0, err
}

// playersOf is the player ids of a play's results.
func playersOf(players []seatedResult) []string {
	ids := make([]string, len(players))
	for i, p := range players {
		ids[i] = p.PlayerID
	}
	return ids
}

// playResults reads a play's results in seat order.
func playResults(tx *gorm.DB, playID string) ([]seatedResult, error) {
	var out []seatedResult
	err := tx.Model(&playPlayerRow{}).Select("player_id", "total", "rank", "winner").
		Where("play_id = ?", playID).Order("seat").Scan(&out).Error
	return out, err
}

// Batch sizes of a rebuild. A walk step replays at most rebuildPlays
// plays, as many as fit in walkBudget at the pace of the step before,
// and a finishing step computes the figures of rebuildPlayers players:
// each holds the writer for a few milliseconds, so that a request waiting
// behind one waits little. A step also costs a few statements per player
// whatever its plays, so on a starved machine fewer than minWalkPlays
// would only make the rebuild longer, not the steps shorter.
const (
	rebuildPlays   = 100
	minWalkPlays   = 20
	firstWalkPlays = 20
	walkBudget     = 10 * time.Millisecond
	rebuildPlayers = 50
)

// walkStepSize is the size of the walk step after one of size that
// replayed plays in took: what fits in walkBudget at that pace, within
// [minWalkPlays, rebuildPlays]. It shrinks at once, and grows only
// halfway there, so one quick step does not make the next one long.
func walkStepSize(size, plays int, took time.Duration) int {
	if plays <= 0 || took <= 0 {
		return size
	}
	fit := int(min(int64(walkBudget)*int64(plays)/int64(took), rebuildPlays))
	if fit > size {
		fit = (size + fit) / 2
	}
	return min(max(fit, minWalkPlays), rebuildPlays)
}

// rebuildPoll is how often the worker looks for rebuilds it was not told
// of: another replica's that stopped, a group that was being imported.
const rebuildPoll = 5 * time.Second

// rebuilder is the store's background worker.
type rebuilder struct {
	kick chan struct{}
	stop context.CancelFunc
	done chan struct{}

	mu   sync.Mutex
	cond *sync.Cond
	// asked counts the requests for a pass, passed the asked value a
	// finished pass started with, err its outcome.
	asked, passed uint64
	err           error
	stopped       bool
}

// startRebuilds starts the worker: it works what an earlier run left,
// then what changes ask for. Close stops it.
func (s *Store) startRebuilds(log *slog.Logger) {
	ctx, stop := context.WithCancel(context.Background())
	rb := &rebuilder{kick: make(chan struct{}, 1), stop: stop, done: make(chan struct{})}
	rb.cond = sync.NewCond(&rb.mu)
	s.rb = rb
	go func() {
		defer close(rb.done)
		for {
			rb.mu.Lock()
			asked := rb.asked
			rb.mu.Unlock()
			err := s.rebuildPass(ctx)
			if ctx.Err() != nil {
				rb.mu.Lock()
				rb.stopped = true
				rb.cond.Broadcast()
				rb.mu.Unlock()
				return
			}
			if err != nil {
				log.Warn("rating rebuild failed; it is tried again", "err", err)
			}
			rb.mu.Lock()
			rb.passed, rb.err = asked, err
			rb.cond.Broadcast()
			rb.mu.Unlock()
			timer := time.NewTimer(rebuildPoll)
			select {
			case <-ctx.Done():
			case <-rb.kick:
			case <-timer.C:
			}
			timer.Stop()
		}
	}()
}

// stopRebuilds stops the worker between two steps and waits for it.
func (s *Store) stopRebuilds() {
	if s.rb == nil {
		return
	}
	s.rb.stop()
	<-s.rb.done
}

// kickRebuilds tells the worker a change may have asked for a rebuild.
func (s *Store) kickRebuilds() {
	if s.rb == nil {
		return
	}
	s.rb.mu.Lock()
	s.rb.asked++
	s.rb.mu.Unlock()
	select {
	case s.rb.kick <- struct{}{}:
	default:
	}
}

// ErrStopped means the store was closed before its background work was
// done.
var ErrStopped = errors.New("models: the store is closed")

// WaitRebuilds waits until the background worker has run a pass that
// started after the call and found nothing more to do: every rebuild
// asked for before the call is finished, unless it is another replica's
// to work or its group is being imported. It returns the error that pass
// met, if any.
func (s *Store) WaitRebuilds(ctx context.Context) error {
	if s.rb == nil {
		return ErrStopped
	}
	s.kickRebuilds()
	rb := s.rb
	rb.mu.Lock()
	want := rb.asked
	rb.mu.Unlock()
	stop := context.AfterFunc(ctx, func() {
		rb.mu.Lock()
		rb.cond.Broadcast()
		rb.mu.Unlock()
	})
	defer stop()
	rb.mu.Lock()
	defer rb.mu.Unlock()
	for rb.passed < want && !rb.stopped && ctx.Err() == nil {
		rb.cond.Wait()
	}
	switch {
	case rb.passed >= want:
		return rb.err
	case rb.stopped:
		return ErrStopped
	}
	return ctx.Err()
}

type rebuildKey struct{ group, game string }

// rebuildPass works every rebuild it can until none is left.
func (s *Store) rebuildPass(ctx context.Context) error {
	skipped := map[rebuildKey]bool{}
	for {
		var rows []rebuildRow
		if err := s.rdb.WithContext(ctx).Select("group_id", "game").Order("group_id, game").Find(&rows).Error; err != nil {
			return translate(err)
		}
		var next *rebuildKey
		for _, r := range rows {
			if k := (rebuildKey{r.GroupID, r.Game}); !skipped[k] {
				next = &k
				break
			}
		}
		if next == nil {
			return nil
		}
		worked, err := s.rebuildOne(ctx, *next)
		if err != nil {
			return err
		}
		if !worked {
			skipped[*next] = true
		}
	}
}

// rebuildOne works one rebuild to its end, one short transaction at a
// time. It reports false when the rebuild is not this worker's to do now:
// another replica holds it, or its group is being imported.
func (s *Store) rebuildOne(ctx context.Context, k rebuildKey) (bool, error) {
	if s.isPostgres() {
		release, ok, err := s.holdRebuild(ctx, k)
		if err != nil || !ok {
			return false, err
		}
		defer release()
	}
	for {
		done, err := s.rebuildStep(ctx, k)
		if errors.Is(err, ErrImporting) {
			return false, nil
		}
		if err != nil {
			return true, err
		}
		if s.rebuildStepDone != nil {
			s.rebuildStepDone(ctx)
		}
		if done {
			return true, nil
		}
		if err := ctx.Err(); err != nil {
			return true, err
		}
	}
}

// holdRebuild takes the PostgreSQL advisory lock of a rebuild on a
// connection of its own, which keeps it until release; a replica that
// dies lets it go with its connection.
func (s *Store) holdRebuild(ctx context.Context, k rebuildKey) (release func(), ok bool, err error) {
	sqlDB, err := s.db.DB()
	if err != nil {
		return nil, false, err
	}
	conn, err := sqlDB.Conn(ctx)
	if err != nil {
		return nil, false, translate(err)
	}
	const key = "hashtextextended('insectscore.rebuild.' || current_schema() || '.' || $1 || '.' || $2, 0)"
	if err := conn.QueryRowContext(ctx, "SELECT pg_try_advisory_lock("+key+")", k.group, k.game).Scan(&ok); err != nil || !ok {
		conn.Close()
		return nil, false, translate(err)
	}
	return func() {
		// A lock left by a failed unlock goes with the connection.
		unlock, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if _, err := conn.ExecContext(unlock, "SELECT pg_advisory_unlock("+key+")", k.group, k.game); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
		conn.Close()
	}, true, nil
}

// rebuildStep does one step of a rebuild: a batch of the walk, or of the
// changed players' figures. It reports whether the rebuild is over.
func (s *Store) rebuildStep(ctx context.Context, k rebuildKey) (bool, error) {
	var (
		job    *rebuildRow
		start  time.Time
		walked int
	)
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		start = time.Now() // the writer is ours from here
		if err := lockGroup(tx, k.group); err != nil {
			return err
		}
		var rows []rebuildRow
		if err := tx.Where("group_id = ? AND game = ?", k.group, k.game).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			return nil
		}
		job = &rows[0]
		if job.Walked {
			return nil
		}
		var err error
		walked, err = s.walkBatch(tx, job)
		return err
	})
	if err == nil && walked > 0 && s.rebuildSize == 0 {
		s.walkSize = walkStepSize(s.walkSize, walked, time.Since(start))
	}
	switch {
	case errors.Is(err, ErrNotFound):
		return true, nil // the group is gone, and its rebuilds with it
	case err != nil:
		return false, translate(err)
	case job == nil:
		return true, nil
	case !job.Walked:
		return false, nil
	}
	return s.finishBatch(ctx, *job)
}

// walkBatch replays the next batch of plays of a rebuild and moves its
// point past them; job.Walked becomes true when no play is left. It
// returns how many plays it replayed.
func (s *Store) walkBatch(tx *gorm.DB, job *rebuildRow) (int, error) {
	size := s.walkSize
	if size <= 0 {
		size = firstWalkPlays
	}
	if s.rebuildSize > 0 {
		size = s.rebuildSize
	}
	var plays []playRow
	err := tx.Model(&playRow{}).Select("id", "finished_at").
		Where("group_id = ? AND game = ? AND (finished_at, id) >= (?, ?)", job.GroupID, job.Game, job.FromAt, job.FromID).
		Order("finished_at, id").Limit(size + 1).Find(&plays).Error
	if err != nil {
		return 0, err
	}
	more := len(plays) > size
	batch := plays[:min(len(plays), size)]
	ids := make([]string, len(batch))
	for i, p := range batch {
		ids[i] = p.ID
	}
	var results []struct {
		PlayID   string
		PlayerID string
		Total    int
		Rank     int
		Winner   bool
	}
	if len(ids) > 0 {
		err := tx.Model(&playPlayerRow{}).Select("play_id", "player_id", "total", "rank", "winner").
			Where("play_id IN ?", ids).Order("play_id, seat").Scan(&results).Error
		if err != nil {
			return 0, err
		}
	}
	byPlay := map[string][]seatedResult{}
	for _, r := range results {
		byPlay[r.PlayID] = append(byPlay[r.PlayID], seatedResult{PlayerID: r.PlayerID, Total: r.Total, Rank: r.Rank, Winner: r.Winner})
	}

	// Each player starts from their newest rating before the point: the
	// history before it is right.
	a := newAggregator(job.GroupID, job.Game)
	var players []string
	seen := map[string]bool{}
	for _, r := range results {
		if !seen[r.PlayerID] {
			seen[r.PlayerID] = true
			players = append(players, r.PlayerID)
		}
	}
	prev, err := ratingsBefore(tx, job.Game, job.FromAt, job.FromID, players)
	if err != nil {
		return 0, err
	}
	for _, r := range prev {
		a.stats[r.PlayerID] = &statsRow{GroupID: job.GroupID, Game: job.Game, PlayerID: r.PlayerID,
			Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal}
	}
	for _, p := range batch {
		if players := byPlay[p.ID]; len(players) > 0 {
			a.add(p.ID, p.FinishedAt.UTC(), players)
		}
	}

	// The span's rating points go: those of the batch's plays (wherever
	// they were before an edit moved them) and any left between the
	// point and the next play to replay.
	span := tx.Where("group_id = ? AND game = ? AND (finished_at, play_id) >= (?, ?)", job.GroupID, job.Game, job.FromAt, job.FromID)
	if more {
		next := plays[size]
		span = span.Where("(finished_at, play_id) < (?, ?)", next.FinishedAt, next.ID)
	}
	if err := span.Delete(&ratingRow{}).Error; err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		if err := tx.Where("play_id IN ?", ids).Delete(&ratingRow{}).Error; err != nil {
			return 0, err
		}
	}
	if len(a.history) > 0 {
		if err := tx.CreateInBatches(a.history, rebuildBatch).Error; err != nil {
			return 0, err
		}
	}
	// The players' ratings as of the point; the walk sets them again as
	// it passes their later plays. A player without a row yet is one a
	// change added, whose row the finish writes.
	rated := map[string]bool{}
	for _, h := range a.history {
		rated[h.PlayerID] = true
	}
	if err := setRatings(tx, job.GroupID, job.Game, slices.Sorted(maps.Keys(rated)), a.stats); err != nil {
		return 0, err
	}
	if more {
		job.FromAt, job.FromID = plays[size].FinishedAt, plays[size].ID
	} else {
		job.Walked = true
	}
	err = tx.Model(&rebuildRow{}).Where("group_id = ? AND game = ?", job.GroupID, job.Game).
		Updates(map[string]any{"from_at": job.FromAt, "from_id": job.FromID, "walked": job.Walked}).Error
	return len(batch), err
}

// walkPlayersPerStatement bounds the players a statement of a walk step
// reads or writes, well under the bound-parameter limits.
const walkPlayersPerStatement = 100

// ratingsBefore reads each player's newest rating in a game before the
// point (at, id), for those who have one: one statement for all of them
// (per walkPlayersPerStatement), each part one step down an index.
func ratingsBefore(tx *gorm.DB, game string, at time.Time, id string, players []string) ([]ratingRow, error) {
	var out []ratingRow
	for chunk := range slices.Chunk(players, walkPlayersPerStatement) {
		parts := make([]string, len(chunk))
		args := make([]any, 0, 5*len(chunk))
		for i, p := range chunk {
			parts[i] = fmt.Sprintf(`SELECT * FROM (SELECT player_id, mu, sigma, ordinal FROM rating_history
				WHERE player_id = ? AND game = ? AND finished_at <= ? AND (finished_at, play_id) < (?, ?)
				ORDER BY finished_at DESC, play_id DESC LIMIT 1) AS r%d`, i)
			args = append(args, p, game, at, at, id)
		}
		var rows []ratingRow
		if err := tx.Raw(strings.Join(parts, " UNION ALL "), args...).Scan(&rows).Error; err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	return out, nil
}

// setRatings writes the players' ratings in stats to their leaderboard
// rows of a game: one statement for all of them (per
// walkPlayersPerStatement).
func setRatings(tx *gorm.DB, group, game string, players []string, stats map[string]*statsRow) error {
	for chunk := range slices.Chunk(players, walkPlayersPerStatement) {
		var mu, sigma, ordinal strings.Builder
		var muArgs, sigmaArgs, ordinalArgs []any
		for _, p := range chunk {
			st := stats[p]
			const when = " WHEN ? THEN CAST(? AS DOUBLE PRECISION)"
			mu.WriteString(when)
			sigma.WriteString(when)
			ordinal.WriteString(when)
			muArgs = append(muArgs, p, st.Mu)
			sigmaArgs = append(sigmaArgs, p, st.Sigma)
			ordinalArgs = append(ordinalArgs, p, st.Ordinal)
		}
		args := append(append(append(muArgs, sigmaArgs...), ordinalArgs...), group, game, chunk)
		err := tx.Exec(`UPDATE player_stats SET mu = CASE player_id`+mu.String()+` ELSE mu END,
			sigma = CASE player_id`+sigma.String()+` ELSE sigma END,
			ordinal = CASE player_id`+ordinal.String()+` ELSE ordinal END
			WHERE group_id = ? AND game = ? AND player_id IN ?`, args...).Error
		if err != nil {
			return err
		}
	}
	return nil
}

// finishBatch computes the figures of a batch of the players a walked
// rebuild changed, from their plays and their rating points, on the read
// pool; then it writes them unless a change came in meanwhile, and ends
// the rebuild when no player is left.
func (s *Store) finishBatch(ctx context.Context, job rebuildRow) (bool, error) {
	var (
		seq     int64
		players []string
		figures = map[string]*statsRow{}
	)
	err := s.read(ctx, func(tx *gorm.DB) error {
		var rows []rebuildRow
		if err := tx.Where("group_id = ? AND game = ?", job.GroupID, job.Game).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 || !rows[0].Walked {
			seq = -1
			return nil
		}
		seq = rows[0].Seq
		err := tx.Model(&stalePlayerRow{}).Where("group_id = ? AND game = ?", job.GroupID, job.Game).
			Order("player_id").Limit(rebuildPlayers).Pluck("player_id", &players).Error
		if err != nil {
			return err
		}
		for _, id := range players {
			st, err := playerFigures(tx, job.GroupID, job.Game, id)
			if err != nil {
				return err
			}
			if st != nil {
				figures[id] = st
			}
		}
		return nil
	})
	if err != nil || seq < 0 {
		return false, err
	}
	done := false
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := lockGroup(tx, job.GroupID); err != nil {
			return err
		}
		var rows []rebuildRow
		if err := tx.Where("group_id = ? AND game = ?", job.GroupID, job.Game).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 || !rows[0].Walked || rows[0].Seq != seq {
			return nil // changed meanwhile: walk again
		}
		for _, id := range players {
			where := tx.Where("group_id = ? AND game = ? AND player_id = ?", job.GroupID, job.Game, id)
			if err := where.Delete(&statsRow{}).Error; err != nil {
				return err
			}
			if st := figures[id]; st != nil {
				if err := tx.Create(st).Error; err != nil {
					return err
				}
			}
		}
		if len(players) > 0 {
			err := tx.Where("group_id = ? AND game = ? AND player_id IN ?", job.GroupID, job.Game, players).Delete(&stalePlayerRow{}).Error
			if err != nil {
				return err
			}
		}
		if len(players) == rebuildPlayers {
			return nil // maybe more
		}
		done = true
		return tx.Where("group_id = ? AND game = ?", job.GroupID, job.Game).Delete(&rebuildRow{}).Error
	})
	if errors.Is(err, ErrNotFound) {
		return true, nil
	}
	return done, translate(err)
}

// playerFigures computes a player's aggregates in a game from their plays
// and their newest rating point (a new rating without one), or nil when
// they have no play of it. Rated plays are their plays of two or more,
// counted from the plays, so the figure is right while a rebuild has yet
// to write the rating points. Its cost is that player's plays, whatever
// the length of the group's history.
func playerFigures(tx *gorm.DB, group, game, playerID string) (*statsRow, error) {
	var agg struct {
		Plays    int
		Wins     int
		ScoreSum int64
		Best     int
		Rated    int
	}
	err := tx.Table("play_players AS pp").
		Select("COUNT(*) AS plays, COALESCE(SUM(CASE WHEN pp.winner THEN 1 ELSE 0 END), 0) AS wins, "+
			"COALESCE(SUM(pp.total), 0) AS score_sum, COALESCE(MAX(pp.total), 0) AS best, "+
			"COALESCE(SUM(CASE WHEN EXISTS (SELECT 1 FROM play_players o WHERE o.play_id = pp.play_id AND o.seat <> pp.seat) "+
			"THEN 1 ELSE 0 END), 0) AS rated").
		Joins("JOIN plays p ON p.id = pp.play_id").
		Where("pp.player_id = ? AND p.group_id = ? AND p.game = ?", playerID, group, game).Scan(&agg).Error
	if err != nil || agg.Plays == 0 {
		return nil, err
	}
	// MAX of a time SQLite answers as text: take the newest play instead.
	var last []time.Time
	err = tx.Table("play_players AS pp").Select("p.finished_at").
		Joins("JOIN plays p ON p.id = pp.play_id").
		Where("pp.player_id = ? AND p.group_id = ? AND p.game = ?", playerID, group, game).
		Order("p.finished_at DESC").Limit(1).Pluck("p.finished_at", &last).Error
	if err != nil || len(last) == 0 {
		return nil, err
	}
	var newest []ratingRow
	err = tx.Select("mu", "sigma", "ordinal").Where("player_id = ? AND game = ?", playerID, game).
		Order("finished_at DESC, play_id DESC").Limit(1).Find(&newest).Error
	if err != nil {
		return nil, err
	}
	st := &statsRow{GroupID: group, Game: game, PlayerID: playerID, Plays: agg.Plays, Wins: agg.Wins, ScoreSum: agg.ScoreSum,
		BestScore: agg.Best, RatedPlays: agg.Rated, LastPlayedAt: last[0].UTC()}
	if len(newest) == 1 {
		st.Mu, st.Sigma, st.Ordinal = newest[0].Mu, newest[0].Sigma, newest[0].Ordinal
	} else {
		r := scoring.NewRating()
		st.Mu, st.Sigma, st.Ordinal = r.Mu, r.Sigma, r.Ordinal()
	}
	return st, nil
}

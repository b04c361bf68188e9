package models

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/driver/sqlite"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"
)

// derived is what a group's history derives from its plays: every
// leaderboard row and rating point, as stored.
type derived struct {
	Stats   []statsRow
	Ratings []ratingRow
	Figures storedFigures
}

// storedFigures is every score count and head-to-head record.
type storedFigures struct {
	Scores []scoreRow
	Pairs  []pairRow
}

type scoreRow struct {
	GroupID, Game, PlayerID string
	Score, Plays            int
}

type pairRow struct {
	GroupID, Game, PlayerID, OpponentID string
	Plays, Wins, Losses, Ties           int
}

// figuresOf reads the score counts and head-to-head records as stored.
func figuresOf(t testing.TB, db *gorm.DB) storedFigures {
	t.Helper()
	var f storedFigures
	err := db.Table("player_scores").Select("group_id, game, player_id, score, plays").
		Order("group_id, game, player_id, score").Scan(&f.Scores).Error
	if err != nil {
		t.Fatal(err)
	}
	err = db.Table("head_to_head").Select("group_id, game, player_id, opponent_id, plays, wins, losses, ties").
		Order("group_id, game, player_id, opponent_id").Scan(&f.Pairs).Error
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// figuresFromPlays counts the score counts and head-to-head records from
// the plays, as a player's page did before they were kept.
func figuresFromPlays(t testing.TB, db *gorm.DB) storedFigures {
	t.Helper()
	var f storedFigures
	err := db.Table("play_players AS pp").Select("p.group_id, p.game, pp.player_id, pp.total AS score, COUNT(*) AS plays").
		Joins("JOIN plays p ON p.id = pp.play_id").
		Group("p.group_id, p.game, pp.player_id, pp.total").Order("p.group_id, p.game, pp.player_id, pp.total").Scan(&f.Scores).Error
	if err != nil {
		t.Fatal(err)
	}
	err = db.Table("play_players AS me").
		Select(`p.group_id, p.game, me.player_id, o.player_id AS opponent_id, COUNT(*) AS plays,
			SUM(CASE WHEN me.rank < o.rank THEN 1 ELSE 0 END) AS wins,
			SUM(CASE WHEN me.rank > o.rank THEN 1 ELSE 0 END) AS losses,
			SUM(CASE WHEN me.rank = o.rank THEN 1 ELSE 0 END) AS ties`).
		Joins("JOIN play_players o ON o.play_id = me.play_id AND o.player_id <> me.player_id").
		Joins("JOIN plays p ON p.id = me.play_id").
		Group("p.group_id, p.game, me.player_id, o.player_id").Order("p.group_id, p.game, me.player_id, o.player_id").Scan(&f.Pairs).Error
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// figuresMatchPlays checks that the kept score counts and head-to-head
// records are those of the plays: at every moment, not only once a
// rebuild is done.
func figuresMatchPlays(t *testing.T, s *Store, what string) {
	t.Helper()
	got, want := figuresOf(t, s.db), figuresFromPlays(t, s.db)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s: score counts and head-to-head\n got %+v\nwant %+v", what, got, want)
	}
}

func derivedOf(t testing.TB, db *gorm.DB) derived {
	t.Helper()
	var d derived
	if err := db.Order("group_id, game, player_id").Find(&d.Stats).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Order("play_id, player_id").Find(&d.Ratings).Error; err != nil {
		t.Fatal(err)
	}
	d.Figures = figuresOf(t, db)
	for i := range d.Stats {
		d.Stats[i].LastPlayedAt = d.Stats[i].LastPlayedAt.UTC()
	}
	for i := range d.Ratings {
		d.Ratings[i].FinishedAt = d.Ratings[i].FinishedAt.UTC()
	}
	return d
}

// equalsRecompute checks that what the store derived in the background is
// what a full recompute derives from the same plays, bit for bit, and that
// no rebuild is left.
func equalsRecompute(t *testing.T, s *Store, what string) {
	t.Helper()
	settle(t, s)
	var left int64
	s.db.Model(&rebuildRow{}).Count(&left)
	if left != 0 {
		t.Errorf("%s: %d rebuilds left after WaitRebuilds", what, left)
	}
	got := derivedOf(t, s.db)
	if err := s.RecomputeRatings(ctx); err != nil {
		t.Fatal(err)
	}
	want := derivedOf(t, s.db)
	if !reflect.DeepEqual(got.Stats, want.Stats) {
		t.Errorf("%s: leaderboards\n got %+v\nwant %+v", what, got.Stats, want.Stats)
	}
	if !reflect.DeepEqual(got.Ratings, want.Ratings) {
		t.Errorf("%s: rating histories (%d and %d points)\n got %+v\nwant %+v", what, len(got.Ratings), len(want.Ratings), got.Ratings, want.Ratings)
	}
	if !reflect.DeepEqual(got.Figures, want.Figures) {
		t.Errorf("%s: score counts and head-to-head\n got %+v\nwant %+v", what, got.Figures, want.Figures)
	}
	figuresMatchPlays(t, s, what+", recomputed")
}

// pauser holds a store's rebuild worker after a step when asked to, so a
// test can change the history while a rebuild is half done.
type pauser struct {
	mu      sync.Mutex
	paused  chan struct{} // closed when the worker stops at a step
	release chan struct{}
	steps   atomic.Int64
}

func (p *pauser) hook(ctx context.Context) {
	p.steps.Add(1)
	p.mu.Lock()
	paused, release := p.paused, p.release
	p.paused = nil
	p.mu.Unlock()
	if paused == nil {
		return
	}
	close(paused)
	select {
	case <-release:
	case <-ctx.Done():
	}
}

// arm makes the worker stop after its next step; the returned channel is
// closed when it does.
func (p *pauser) arm() (paused, release chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused, p.release = make(chan struct{}), make(chan struct{})
	return p.paused, p.release
}

// waitPaused waits for an armed worker to stop; a worker that fails
// before it gets there would otherwise hang the test.
func waitPaused(t *testing.T, paused chan struct{}) {
	t.Helper()
	select {
	case <-paused:
	case <-time.After(time.Minute):
		t.Fatal("the rebuild worker did not get through a step in a minute")
	}
}

// randomHistory plays n random changes on s: plays logged at random times
// (so most land before a later play, and some at the same instant as
// another), edits that change the players, scores, time or game, deletes,
// merges, and changes made while the worker is stopped half-way through
// a rebuild.
func randomHistory(t *testing.T, s *Store, r *rand.Rand, n int, p *pauser) {
	t.Helper()
	names := []string{"Ana", "Ben", "Cleo", "Dan", "Eve", "Fay"}
	var ids []string
	randomPlay := func() hplay {
		game := "insecta"
		k := 2 + r.IntN(3)
		if r.IntN(3) == 0 {
			game, k = "insectarium", 1+r.IntN(4)
		}
		perm := r.Perm(len(names))
		p := hplay{game: game, at: time.Duration(r.IntN(40)) * time.Minute}
		for i := range k {
			p.names = append(p.names, names[perm[i]])
			p.totals = append(p.totals, r.IntN(6))
		}
		return p
	}
	var change func(depth int)
	change = func(depth int) {
		switch op := r.IntN(20); {
		case op < 9 || len(ids) == 0:
			lp, res := randomPlay().logged()
			id, err := s.LogPlay(ctx, DefaultGroup, lp, res)
			if err != nil {
				t.Fatalf("LogPlay: %v", err)
			}
			ids = append(ids, id)
		case op < 13:
			lp, res := randomPlay().logged()
			if err := s.EditPlay(ctx, DefaultGroup, ids[r.IntN(len(ids))], lp, res); err != nil {
				t.Fatalf("EditPlay: %v", err)
			}
		case op < 16:
			i := r.IntN(len(ids))
			if err := s.DeletePlay(ctx, DefaultGroup, ids[i]); err != nil {
				t.Fatalf("DeletePlay: %v", err)
			}
			ids = slices.Delete(ids, i, i+1)
		case op < 18:
			players, err := s.ListPlayers(ctx, DefaultGroup)
			if err != nil || len(players) < 2 {
				return
			}
			perm := r.Perm(len(players))
			err = s.MergePlayers(ctx, DefaultGroup, players[perm[0]].ID, players[perm[1]].ID)
			if err != nil && !errors.Is(err, ErrConflict) {
				t.Fatalf("MergePlayers: %v", err)
			}
		default:
			if depth > 0 || p == nil {
				return
			}
			// Stop the worker one step into the rebuild the next change
			// asks for, and change the history twice meanwhile. A play
			// before every other asks for one only if its game has plays.
			lp, res := randomPlay().logged()
			lp.FinishedAt = t0.Add(-time.Minute) // before every other play
			var later int64
			if err := s.db.Model(&playRow{}).Where("game = ?", lp.Game).Count(&later).Error; err != nil {
				t.Fatal(err)
			}
			if later == 0 {
				return
			}
			paused, release := p.arm()
			id, err := s.LogPlay(ctx, DefaultGroup, lp, res)
			if err != nil {
				t.Fatalf("LogPlay: %v", err)
			}
			ids = append(ids, id)
			waitPaused(t, paused)
			change(depth + 1)
			change(depth + 1)
			close(release)
		}
	}
	for i := range n {
		change(0)
		figuresMatchPlays(t, s, fmt.Sprintf("after change %d", i))
		if r.IntN(10) == 0 {
			settle(t, s)
		}
	}
}

// TestRebuildEqualsRecompute is the check issue 10 asks for: after any
// sequence of logs, edits, deletes and merges, once the background rebuild
// has finished, the leaderboards and rating histories are those of a full
// recompute. The rebuilds take a play per step, so that changes land in
// the middle of them.
func TestRebuildEqualsRecompute(t *testing.T) {
	seeds := 40
	if testing.Short() {
		seeds = 8
	}
	for _, b := range backends() {
		n := seeds
		if b.name != "sqlite" {
			n = max(seeds/4, 4)
		}
		t.Run(b.name, func(t *testing.T) {
			for seed := range uint64(n) {
				t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
					s := openStore(t, b.dsn(t))
					s.rebuildSize = 1 + int(seed%3)
					p := &pauser{}
					s.rebuildStepDone = p.hook
					randomHistory(t, s, rand.New(rand.NewPCG(seed, 10)), 30, p)
					equalsRecompute(t, s, "after the changes")
				})
			}
		})
	}
}

// rawDB opens a second handle on a store's database, for looking at it
// while no store has it open.
func rawDB(t *testing.T, dsn string) *gorm.DB {
	t.Helper()
	cfg := &gorm.Config{Logger: logger.Discard}
	var (
		db  *gorm.DB
		err error
	)
	if isPostgres(dsn) {
		db, err = gorm.Open(postgres.Open(dsn), cfg)
	} else {
		db, err = gorm.Open(sqlite.Open(dsn), cfg)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if sqlDB, err := db.DB(); err == nil {
			sqlDB.Close()
		}
	})
	return db
}

// TestRebuildResumes stops a store half-way through a rebuild: the
// rebuild is still recorded, and the next store to open the database
// finishes it, with the figures of a full recompute.
func TestRebuildResumes(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s, err := open(ctx, dsn, testLogger(t), migrations)
		if err != nil {
			t.Fatal(err)
		}
		closed := false
		defer func() {
			if !closed {
				s.Close()
			}
		}()
		var first string
		for i := range 30 {
			id := logPlay(t, s, DefaultGroup, hplay{"insecta", time.Duration(i) * time.Minute,
				[]string{"Ana", "Ben", "Cleo"}[:2+i%2], []int{i % 4, i % 3, 2}})
			if i == 0 {
				first = id
			}
		}
		s.rebuildSize = 2
		stopped := make(chan struct{})
		var steps atomic.Int64
		s.rebuildStepDone = func(ctx context.Context) {
			if steps.Add(1) == 3 {
				close(stopped)
				<-ctx.Done() // hold the worker until Close
			}
		}
		lp, res := hplay{"insecta", 0, []string{"Ben", "Ana", "Dan"}, []int{5, 1, 3}}.logged()
		if err := s.EditPlay(ctx, DefaultGroup, first, lp, res); err != nil {
			t.Fatal(err)
		}
		waitPaused(t, stopped)
		closed = true
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}

		var left []rebuildRow
		if err := rawDB(t, dsn).Find(&left).Error; err != nil {
			t.Fatal(err)
		}
		if len(left) != 1 || left[0].Walked || !left[0].FromAt.After(t0) {
			t.Fatalf("after a stop half-way the rebuilds are %+v; want one, part of the way through", left)
		}

		s = openStore(t, dsn)
		equalsRecompute(t, s, "after the restart")
	})
}

// TestRebuildOneReplica: on PostgreSQL a rebuild that one replica works is
// left alone by the others, and the replica that works it finishes it.
func TestRebuildOneReplica(t *testing.T) {
	base := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if base == "" {
		t.Skip("INSECTSCORE_TEST_POSTGRES is not set; CI sets it")
	}
	dsn := backends()[1].dsn(t)
	a, b := openStore(t, dsn), openStore(t, dsn)
	for i := range 10 {
		logPlay(t, a, DefaultGroup, hplay{"insecta", time.Duration(i) * time.Minute, []string{"Ana", "Ben"}, []int{i % 3, 1}})
	}
	pa, pb := &pauser{}, &pauser{}
	a.rebuildSize, b.rebuildSize = 1, 1
	a.rebuildStepDone, b.rebuildStepDone = pa.hook, pb.hook
	paused, release := pa.arm()
	logPlay(t, a, DefaultGroup, hplay{"insecta", -time.Minute, []string{"Ben", "Cleo"}, []int{2, 1}})
	waitPaused(t, paused)
	if err := b.WaitRebuilds(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pb.steps.Load(); n != 0 {
		t.Errorf("the other replica worked %d steps of a rebuild this one holds", n)
	}
	lb, err := b.GameLeaderboard(ctx, DefaultGroup, "insecta")
	if err != nil || !lb.Updating {
		t.Errorf("leaderboard while a rebuild is held: updating %v, %v; want true", lb != nil && lb.Updating, err)
	}
	close(release)
	equalsRecompute(t, a, "after the replica that held it finished")
	if lb, _ := b.GameLeaderboard(ctx, DefaultGroup, "insecta"); lb.Updating {
		t.Error("leaderboard still updating after the rebuild")
	}
}

// TestWalkStepSize: a walk step takes as many plays as fit in the
// budget at the pace of the one before, within bounds, growing only
// halfway there.
func TestWalkStepSize(t *testing.T) {
	for _, tt := range []struct {
		size, plays int
		took        time.Duration
		want        int
	}{
		{20, 20, walkBudget, 20},                   // on budget: stays
		{20, 20, walkBudget / 4, 50},               // four times as fast: halfway to 80
		{100, 100, 3 * walkBudget, 33},             // three times too slow: at once
		{100, 100, time.Second, minWalkPlays},      // far too slow: the least
		{100, 100, time.Microsecond, rebuildPlays}, // far too fast: the most
		{40, 30, walkBudget, 30},                   // the last of a walk, short: by its pace
		{30, 0, walkBudget, 30},                    // nothing replayed: unchanged
	} {
		if got := walkStepSize(tt.size, tt.plays, tt.took); got != tt.want {
			t.Errorf("walkStepSize(%d, %d, %s) = %d, want %d", tt.size, tt.plays, tt.took, got, tt.want)
		}
	}
}

// TestRecomputeInPages: a recompute reads each game's plays a page at a
// time, and writes a page's rating points before it reads the next. With
// pages of a few plays, whose edges fall between plays that finished at
// the same instant, it derives bit for bit what recording the plays did,
// and what a recompute in one page derives, in every group and game.
func TestRecomputeInPages(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		other, err := s.CreateGroup(ctx, "Other")
		if err != nil {
			t.Fatal(err)
		}
		// Both groups play both games, six plays an instant, and the
		// default group's history is then edited, cut and merged.
		names := []string{"Ana", "Ben", "Cleo", "Dan"}
		for i := range 60 {
			game, k := "insecta", 2+i%3
			if i%3 == 0 {
				game, k = "insectarium", 1+(i/3)%3 // solo plays too
			}
			p := hplay{game: game, at: time.Duration(i/6) * time.Minute}
			for j := range k {
				p.names = append(p.names, names[(i+j)%len(names)])
				p.totals = append(p.totals, (i*7+j*3)%6)
			}
			logPlay(t, s, DefaultGroup, p)
			logPlay(t, s, other.ID, p)
		}
		randomHistory(t, s, rand.New(rand.NewPCG(22, 13)), 30, nil)
		settle(t, s)
		want := derivedOf(t, s.db)

		// The pages below are many in each group's games, and an edge
		// falls between two plays of the same instant.
		var games []struct {
			GroupID, Game string
			Plays         int
			Instants      int
		}
		err = s.db.Model(&playRow{}).Select("group_id, game, COUNT(*) AS plays, COUNT(DISTINCT finished_at) AS instants").
			Group("group_id, game").Order("group_id, game").Scan(&games).Error
		if err != nil {
			t.Fatal(err)
		}
		if len(games) != 4 {
			t.Fatalf("the history has %d groups' games, want 4: %+v", len(games), games)
		}
		for _, g := range games {
			if g.Plays < 10 || g.Instants == g.Plays {
				t.Fatalf("%s's %s: %d plays at %d instants; want several pages, and plays at the same instant", g.GroupID, g.Game, g.Plays, g.Instants)
			}
		}

		for _, page := range []int{0, 1, 2, 3, 7} {
			s.rebuildSize = page // 0: recomputePlays, one page here
			for _, q := range []string{"UPDATE player_stats SET wins = 99, mu = 1", "DELETE FROM rating_history",
				"DELETE FROM player_scores", "DELETE FROM head_to_head"} {
				if err := s.db.Exec(q).Error; err != nil {
					t.Fatal(err)
				}
			}
			if err := s.RecomputeRatings(ctx); err != nil {
				t.Fatal(err)
			}
			got := derivedOf(t, s.db)
			if !reflect.DeepEqual(got.Stats, want.Stats) {
				t.Errorf("pages of %d plays: leaderboards\n got %+v\nwant %+v", page, got.Stats, want.Stats)
			}
			if !reflect.DeepEqual(got.Ratings, want.Ratings) {
				t.Errorf("pages of %d plays: rating histories (%d and %d points)\n got %+v\nwant %+v", page, len(got.Ratings), len(want.Ratings), got.Ratings, want.Ratings)
			}
			if !reflect.DeepEqual(got.Figures, want.Figures) {
				t.Errorf("pages of %d plays: score counts and head-to-head\n got %+v\nwant %+v", page, got.Figures, want.Figures)
			}
		}
	})
}

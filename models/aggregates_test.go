package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// TestKeptFiguresUnderConcurrentChanges: a seeded random workload of 8
// writers at once (plays logged now and into the past, edited, deleted,
// players renamed and merged, tables finished). The kept figures of every
// player (plays, wins, score sum, best score, rated plays) equal a recount
// over play_players while the rating rebuild the changes asked for still
// runs, and after it ends; and they equal what RecomputeRatings rebuilds.
// Before a change counted them in its own transaction, a change to the
// past left them wrong until the background rebuild came by.
func TestKeptFiguresUnderConcurrentChanges(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		s.rebuildSize = 3 // many short rebuild steps: the checks below meet one running
		g, err := s.CreateGroup(ctx, "Concurrent club")
		if err != nil {
			t.Fatal(err)
		}
		names := []string{"Ana", "Ben", "Cleo", "Dan", "Eve", "Finn"}
		game, _ := scoring.Lookup("insektenhotel")
		hotel := func(colour string, guests int) json.RawMessage {
			return json.RawMessage(fmt.Sprintf(`{"hotel": %q, "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": %d}]}`, colour, guests))
		}
		base := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC)
		played := func(r *rand.Rand) (LoggedPlay, *scoring.Result) {
			n := 2 + r.IntN(2) // the box has 6 bees and 6 ants: 3 hotels of 2 each
			perm := r.Perm(len(names))
			colours := []string{"blue", "red", "green", "yellow"}
			var (
				players []scoring.PlayerInput
				lp      = LoggedPlay{Game: "insektenhotel", FinishedAt: base.Add(time.Duration(r.IntN(5000)) * time.Minute)}
			)
			for i := range n {
				p := scoring.PlayerInput{Name: names[perm[i]], Board: hotel(colours[i], r.IntN(2))}
				if i == 0 {
					p.Board = hotel(colours[i], 2) // someone's hotel is full: the game is over
				}
				players = append(players, p)
				lp.Players = append(lp.Players, LoggedPlayer{Name: p.Name, Board: p.Board})
			}
			res, err := scoring.Score(game, scoring.Request{Players: players})
			if err != nil {
				t.Error(err)
			}
			return lp, res
		}
		var (
			mu  sync.Mutex
			ids []string
			wg  sync.WaitGroup
		)
		pick := func(r *rand.Rand) string {
			mu.Lock()
			defer mu.Unlock()
			if len(ids) == 0 {
				return ""
			}
			return ids[r.IntN(len(ids))]
		}
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := rand.New(rand.NewPCG(uint64(w), 21))
				for range 40 {
					var err error
					switch op := r.IntN(10); {
					case op < 4:
						var id string
						lp, res := played(r)
						if id, err = s.LogPlay(ctx, g.ID, lp, res); err == nil {
							mu.Lock()
							ids = append(ids, id)
							mu.Unlock()
						}
					case op < 6:
						if id := pick(r); id != "" {
							lp, res := played(r)
							err = s.EditPlay(ctx, g.ID, id, lp, res)
						}
					case op < 7:
						if id := pick(r); id != "" {
							err = s.DeletePlay(ctx, g.ID, id)
						}
					case op < 8:
						err = s.finishHotelTable(ctx, g.ID, names[r.IntN(len(names))], names[r.IntN(len(names))])
					default:
						players, lerr := s.ListPlayers(ctx, g.ID)
						if lerr != nil || len(players) < 2 {
							break
						}
						a, b := players[r.IntN(len(players))], players[r.IntN(len(players))]
						if r.IntN(2) == 0 {
							_, err = s.RenamePlayer(ctx, g.ID, a.ID, fmt.Sprintf("%s %d", names[r.IntN(len(names))], r.IntN(3)))
						} else {
							err = s.MergePlayers(ctx, g.ID, a.ID, b.ID)
						}
					}
					var conflict *ConflictError
					if err != nil && !errors.Is(err, ErrNotFound) && !errors.As(err, &conflict) && !errors.Is(err, ErrConflict) {
						t.Errorf("writer %d: %v", w, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		pending := 0
		for range 5 { // while the rebuild runs
			if n := s.rebuildsLeft(t); n > 0 {
				pending++
			}
			s.sameFigures(t, g.ID, "while the rebuild runs")
		}
		if err := s.WaitRebuilds(ctx); err != nil {
			t.Fatal(err)
		}
		s.sameFigures(t, g.ID, "after the rebuild")
		kept := s.figureRows(t, g.ID, "SELECT game, player_id, plays, wins, score_sum, best_score, rated_plays FROM player_stats WHERE group_id = ?")
		if err := s.RecomputeRatings(ctx); err != nil {
			t.Fatal(err)
		}
		rebuilt := s.figureRows(t, g.ID, "SELECT game, player_id, plays, wins, score_sum, best_score, rated_plays FROM player_stats WHERE group_id = ?")
		if diff := diffFigures(kept, rebuilt); diff != "" {
			t.Errorf("the kept figures differ from what recompute rebuilds: %s", diff)
		}
		if pending == 0 {
			t.Log("no rebuild was left to meet when the writers stopped")
		}
	})
}

// finishHotelTable starts an Insektenhotel table of two and finishes it.
func (s *Store) finishHotelTable(ctx context.Context, group, a, b string) error {
	if a == b {
		return nil
	}
	tb, host, err := s.CreateTable(ctx, NewTable{Game: "insektenhotel", Group: group, Names: []string{a, b}, Boards: []json.RawMessage{
		json.RawMessage(`{"hotel": "blue", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": 2}]}`),
		json.RawMessage(`{"hotel": "red", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 1}, {"species": "fly", "guests": 2}]}`)}})
	if err != nil {
		return err
	}
	_, _, err = s.Finish(ctx, tb.Code, host, true, nil)
	return err
}

// rebuildsLeft counts the rebuilds waiting or running.
func (s *Store) rebuildsLeft(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := s.db.Model(&rebuildRow{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// figureRow is one player's kept figures in a game.
type figureRow struct {
	Game, PlayerID                               string
	Plays, Wins, ScoreSum, BestScore, RatedPlays int64
}

func (s *Store) figureRows(t *testing.T, group, q string) map[string]figureRow {
	t.Helper()
	return figureRowsIn(t, s.rdb, group, q)
}

// sameFigures wants the kept figures equal to a recount over play_players,
// read in one snapshot.
func (s *Store) sameFigures(t *testing.T, group, when string) {
	t.Helper()
	var kept, counted map[string]figureRow
	err := s.read(context.Background(), func(tx *gorm.DB) error {
		kept = figureRowsIn(t, tx, group, "SELECT game, player_id, plays, wins, score_sum, best_score, rated_plays FROM player_stats WHERE group_id = ?")
		counted = figureRowsIn(t, tx, group, `SELECT p.game, pp.player_id, COUNT(*) AS plays,
			SUM(CASE WHEN pp.winner THEN 1 ELSE 0 END) AS wins, SUM(pp.total) AS score_sum, MAX(pp.total) AS best_score,
			SUM(CASE WHEN (SELECT COUNT(*) FROM play_players o WHERE o.play_id = pp.play_id) > 1 THEN 1 ELSE 0 END) AS rated_plays
			FROM play_players pp JOIN plays p ON p.id = pp.play_id WHERE p.group_id = ? GROUP BY p.game, pp.player_id`)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := diffFigures(kept, counted); diff != "" {
		t.Errorf("%s: the kept figures differ from a recount over play_players: %s", when, diff)
	}
}

func figureRowsIn(t *testing.T, tx *gorm.DB, group, q string) map[string]figureRow {
	t.Helper()
	var rows []figureRow
	if err := tx.Raw(q, group).Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	out := map[string]figureRow{}
	for _, r := range rows {
		out[r.Game+"/"+r.PlayerID] = r
	}
	return out
}

// diffFigures names the rows where kept and want differ, or "".
func diffFigures(kept, want map[string]figureRow) string {
	var out string
	n := 0
	for k, w := range want {
		if kept[k] != w {
			n++
			if n <= 3 {
				out += fmt.Sprintf("\n  kept %+v, want %+v", kept[k], w)
			}
		}
	}
	for k, g := range kept {
		if _, ok := want[k]; !ok {
			n++
			if n <= 3 {
				out += fmt.Sprintf("\n  kept %+v, want no row", g)
			}
		}
	}
	if n > 0 {
		out = fmt.Sprintf("%d rows%s", n, out)
	}
	return out
}

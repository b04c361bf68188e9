package models

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"testing"
	"time"
)

// BenchmarkHistory measures the history at a million plays (issue 10,
// P4): it builds the history itself, once per backend, then times each
// read and write the history screens make, reporting the median and the
// 99th percentile of the calls in milliseconds. The writes run last, as
// they change the history the reads see.
//
//	go test ./models -run '^$' -bench History -benchtime 200x -timeout 60m
//
// INSECTSCORE_HISTORY_PLAYS sets a smaller history for a quick run, and
// INSECTSCORE_TEST_POSTGRES adds PostgreSQL.
func BenchmarkHistory(b *testing.B) {
	n := historyPlays(b)
	for _, be := range backends() {
		b.Run(fmt.Sprintf("%s/plays=%d", be.name, n), func(b *testing.B) {
			s := openStore(b, be.dsn(b))
			start := time.Now()
			seedHistory(b, s, DefaultGroup, n, historyPlayers)
			b.Logf("%s: built %d plays in %s", be.name, n, time.Since(start).Round(time.Second))
			benchHistory(b, s, n)
		})
	}
}

// historyPlayers is how many players share the benchmark's plays: each
// has about a tenth of them, and a rating point per play.
const historyPlayers = 30

func historyPlays(b *testing.B) int {
	v := os.Getenv("INSECTSCORE_HISTORY_PLAYS")
	if v == "" {
		return 1_000_000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1000 {
		b.Fatalf("INSECTSCORE_HISTORY_PLAYS=%q: want a number of plays, at least 1000", v)
	}
	return n
}

func benchHistory(b *testing.B, s *Store, n int) {
	player := seedPlayerID(DefaultGroup, 3)
	// A deep page starts a tenth of the way from the oldest play.
	deep := encodeCursor(seedFinish(n/10), seedPlayID(n/10))
	reads := []struct {
		name string
		call func() error
	}{
		{"plays/first", func() error {
			return wantPage(s.ListPlays(ctx, PlayFilter{Group: DefaultGroup}))
		}},
		{"plays/deep", func() error {
			return wantPage(s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Cursor: deep}))
		}},
		{"player-plays/first", func() error {
			return wantPage(s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, PlayerID: player}))
		}},
		{"player-plays/deep", func() error {
			return wantPage(s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, PlayerID: player, Cursor: deep}))
		}},
		{"player-page", func() error {
			st, err := s.PlayerStats(ctx, DefaultGroup, player)
			if err == nil && (len(st.Games) != 1 || len(st.Recent) != RecentPlays) {
				err = fmt.Errorf("player page: %d games, %d recent plays", len(st.Games), len(st.Recent))
			}
			return err
		}},
		{"leaderboard", func() error {
			lb, err := s.Leaderboard(ctx, DefaultGroup, "insecta")
			if err == nil && len(lb) != historyPlayers {
				err = fmt.Errorf("leaderboard of %d players", len(lb))
			}
			return err
		}},
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) { timeCalls(b, r.call) })
	}

	names := []string{"Player 01", "Player 02", "Player 03"}
	logged := 0
	b.Run("log", func(b *testing.B) {
		timeCalls(b, func() error {
			// Each play is the newest of the history.
			logged++
			lp, res := hplay{"insecta", time.Duration(n+logged) * time.Minute, names, []int{30, 20, 10}}.logged()
			_, err := s.LogPlay(ctx, DefaultGroup, lp, res)
			return err
		})
	})
	edits := 0
	b.Run("edit", func(b *testing.B) {
		// The middle play of the history, its scores turned around each time.
		id := seedPlayID(n / 2)
		timeCalls(b, func() error {
			edits++
			totals := []int{30, 20, 10}
			if edits%2 == 0 {
				slices.Reverse(totals)
			}
			lp, res := hplay{"insecta", time.Duration(n/2) * time.Minute, names, totals}.logged()
			return s.EditPlay(ctx, DefaultGroup, id, lp, res)
		})
	})
	deleted := 0
	b.Run("delete", func(b *testing.B) {
		// Plays from the middle of the history on.
		timeCalls(b, func() error {
			deleted++
			return s.DeletePlay(ctx, DefaultGroup, seedPlayID(n/2+deleted))
		})
	})
}

// wantPage checks ListPlays gave a full page with a next one.
func wantPage(plays []PlaySummary, next string, err error) error {
	if err == nil && (len(plays) != DefaultPlayLimit || next == "") {
		err = fmt.Errorf("a page of %d plays, next %q", len(plays), next)
	}
	return err
}

// timeCalls runs call b.N times and reports the median and the 99th
// percentile of its durations.
func timeCalls(b *testing.B, call func() error) {
	b.Helper()
	var took []time.Duration
	b.ReportAllocs()
	for b.Loop() {
		start := time.Now()
		if err := call(); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	slices.Sort(took)
	ms := func(q float64) float64 {
		return float64(took[min(len(took)-1, int(q*float64(len(took))))]) / float64(time.Millisecond)
	}
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
}

package models

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"insectscore/scoring"
)

// benchPlays is the length of history the write benchmarks run at.
const benchPlays = 100000

// seedRated is seedHistory with the rating history too, which a rebuild
// from a changed play starts from.
func seedRated(b *testing.B, s *Store, n int) {
	b.Helper()
	seedHistory(b, s, DefaultGroup, n, 30)
	if err := s.RecomputeRatings(ctx); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRecompute recomputes a history of a million Insecta plays (or
// INSECTSCORE_HISTORY_PLAYS), built once per backend, as `insectscore
// recompute` does, and reports how long it took and the process's peak
// resident memory during it. INSECTSCORE_HISTORY_DB names a new SQLite
// file to build the history in and keep, to time the command on it:
//
//	INSECTSCORE_HISTORY_DB=/tmp/1m.db go test ./models -run '^$' -bench Recompute -benchtime 1x -timeout 60m
//	/usr/bin/time -v insectscore recompute -db /tmp/1m.db
func BenchmarkRecompute(b *testing.B) {
	n := historyPlays(b)
	for _, be := range backends() {
		b.Run(fmt.Sprintf("%s/plays=%d", be.name, n), func(b *testing.B) {
			dsn := be.dsn(b)
			if path := os.Getenv("INSECTSCORE_HISTORY_DB"); path != "" && be.name == "sqlite" {
				if _, err := os.Stat(path); err == nil {
					b.Fatalf("INSECTSCORE_HISTORY_DB=%s exists: name a new file", path)
				}
				dsn = path
			}
			s := openStore(b, dsn)
			seedHistory(b, s, DefaultGroup, n, historyPlayers)
			var (
				took time.Duration
				peak int64
			)
			for b.Loop() {
				resetPeakRSS(b)
				start := time.Now()
				if err := s.RecomputeRatings(ctx); err != nil {
					b.Fatal(err)
				}
				took, peak = time.Since(start), peakRSS(b)
			}
			b.ReportMetric(took.Seconds(), "s")
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MB")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// reportLatencies reports the median and the slowest of durations.
func reportLatencies(b *testing.B, d []time.Duration) {
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(d[len(d)-1].Microseconds())/1000, "ms-max")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkHistoryWrites times, at 100,000 Insecta plays, the writes that
// change a game's history: a new play, a play logged before the newest,
// an edit and a delete of an early play. The rebuilds they ask for run in
// the background meanwhile, as on a server. Run with -benchtime=20x.
func BenchmarkHistoryWrites(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			s := openStore(b, be.dsn(b))
			seedRated(b, s, benchPlays)
			next := 0
			play := func(at time.Time) (LoggedPlay, *scoring.Result) {
				next++
				p := hplay{"insecta", at.Sub(t0), []string{fmt.Sprintf("Player %02d", next%30), fmt.Sprintf("Player %02d", (next+7)%30)}, []int{next % 5, 2}}
				return p.logged()
			}
			newest := t0.Add(benchPlays * time.Minute)
			cases := []struct {
				name string
				op   func(i int) error
			}{
				{"log newest", func(i int) error {
					lp, res := play(newest.Add(time.Duration(i+1) * time.Second))
					_, err := s.LogPlay(ctx, DefaultGroup, lp, res)
					return err
				}},
				{"log into the past", func(i int) error {
					lp, res := play(t0.Add(time.Duration(100+i)*time.Minute + time.Second))
					_, err := s.LogPlay(ctx, DefaultGroup, lp, res)
					return err
				}},
				{"edit an early play", func(i int) error {
					lp, res := play(t0.Add(time.Duration(200+i) * time.Minute))
					return s.EditPlay(ctx, DefaultGroup, fmt.Sprintf("seed%012d", 200+i), lp, res)
				}},
				{"delete an early play", func(i int) error {
					return s.DeletePlay(ctx, DefaultGroup, fmt.Sprintf("seed%012d", 400+i))
				}},
			}
			for _, c := range cases {
				b.Run(c.name, func(b *testing.B) {
					var took []time.Duration
					for i := 0; b.Loop(); i++ {
						start := time.Now()
						if err := c.op(i); err != nil {
							b.Fatal(err)
						}
						took = append(took, time.Since(start))
					}
					reportLatencies(b, took)
				})
			}
		})
	}
}

// BenchmarkRebuildSteps works a rebuild of 100,000 Insecta plays, from an
// edit of the first, and reports its steps: how long the longest held the
// writer (an upper bound: the time from one step's end to the next's,
// which also counts the reads of the finishing steps done off the writer),
// how many there were, the whole rebuild's time, and how long new plays
// logged meanwhile took (they wait for at most one step).
func BenchmarkRebuildSteps(b *testing.B) {
	for _, be := range backends() {
		b.Run(be.name, func(b *testing.B) {
			s := openStore(b, be.dsn(b))
			seedRated(b, s, benchPlays)
			var (
				mu    sync.Mutex
				last  time.Time
				steps []time.Duration
			)
			s.rebuildStepDone = func(context.Context) {
				mu.Lock()
				defer mu.Unlock()
				now := time.Now()
				steps = append(steps, now.Sub(last))
				last = now
			}
			for i := 0; b.Loop(); i++ {
				mu.Lock()
				steps, last = nil, time.Now()
				mu.Unlock()
				start := time.Now()
				lp, res := hplay{"insecta", 0, []string{"Player 01", "Player 02", fmt.Sprint("Player ", 10+i%10)}, []int{i % 3, 1, 2}}.logged()
				if err := s.EditPlay(ctx, DefaultGroup, "seed000000000000", lp, res); err != nil {
					b.Fatal(err)
				}
				var logs []time.Duration
				done := make(chan error)
				go func() { done <- s.WaitRebuilds(ctx) }()
				for k := 0; ; k++ {
					select {
					case err := <-done:
						if err != nil {
							b.Fatal(err)
						}
						goto finished
					case <-time.After(20 * time.Millisecond):
					}
					lp, res := hplay{"insectarium", time.Duration(benchPlays+i*1000+k) * time.Minute, []string{"Ana", "Ben"}, []int{k % 4, 2}}.logged()
					t := time.Now()
					if _, err := s.LogPlay(ctx, DefaultGroup, lp, res); err != nil {
						b.Fatal(err)
					}
					logs = append(logs, time.Since(t))
				}
			finished:
				whole := time.Since(start)
				mu.Lock()
				slices.Sort(steps)
				b.ReportMetric(float64(steps[len(steps)-1].Microseconds())/1000, "ms-step-max")
				b.ReportMetric(float64(steps[len(steps)/2].Microseconds())/1000, "ms-step-p50")
				b.ReportMetric(float64(len(steps)), "steps")
				mu.Unlock()
				b.ReportMetric(whole.Seconds(), "s-rebuild")
				if len(logs) > 0 {
					slices.Sort(logs)
					b.ReportMetric(float64(logs[len(logs)-1].Microseconds())/1000, "ms-log-during-max")
					b.ReportMetric(float64(logs[len(logs)/2].Microseconds())/1000, "ms-log-during-p50")
				}
				b.ReportMetric(0, "ns/op")
			}
		})
	}
}

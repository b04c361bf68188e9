package models

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"gorm.io/gorm"
)

// seedHistory bulk-inserts n Insecta plays of three among a group's
// `players` players, with their player rows and the aggregates they
// add up to, much faster than recording them one by one. The rating
// history is left out: the leaderboard does not read it.
func seedHistory(tb testing.TB, s *Store, group string, n, players int) {
	tb.Helper()
	now := t0
	people := make([]playerRow, players)
	for i := range people {
		name := fmt.Sprintf("Player %02d", i)
		people[i] = playerRow{ID: fmt.Sprintf("seed%s%06d", group[:min(len(group), 6)], i), GroupID: group, Name: name, NameKey: name, CreatedAt: now}
	}
	a := newAggregator(group, "insecta")
	err := s.db.Transaction(func(tx *gorm.DB) error {
		if err := tx.CreateInBatches(people, rebuildBatch).Error; err != nil {
			return err
		}
		const batch = 1000
		for start := 0; start < n; start += batch {
			var plays []playRow
			var rows []playPlayerRow
			for i := start; i < min(start+batch, n); i++ {
				id := fmt.Sprintf("seed%012d", i)
				at := t0.Add(time.Duration(i) * time.Minute)
				plays = append(plays, playRow{ID: id, GroupID: group, Game: "insecta", Variants: "{}", Boards: "[]", Standings: "{}", StartedAt: at, FinishedAt: at})
				// Three players a play, and scores that make ranks vary.
				var seated []seatedResult
				totals := []int{(i * 7) % 41, (i * 13) % 37, (i * 29) % 43}
				for seat, total := range totals {
					rank := 1
					for _, o := range totals {
						if o > total {
							rank++
						}
					}
					p := people[(i+seat*7)%players].ID
					seated = append(seated, seatedResult{PlayerID: p, Total: total, Rank: rank, Winner: rank == 1})
					rows = append(rows, playPlayerRow{PlayID: id, Seat: seat, PlayerID: p, NameAsEntered: "x", Total: total, Rank: rank, Winner: rank == 1, Breakdown: "[]"})
				}
				a.add(id, at, seated)
			}
			if err := tx.CreateInBatches(plays, rebuildBatch).Error; err != nil {
				return err
			}
			if err := tx.CreateInBatches(rows, rebuildBatch).Error; err != nil {
				return err
			}
		}
		var stats []*statsRow
		for _, st := range a.stats {
			stats = append(stats, st)
		}
		return tx.Create(stats).Error
	})
	if err != nil {
		tb.Fatalf("seed %d plays: %v", n, err)
	}
}

// BenchmarkLeaderboard reads a group's leaderboard after 1,000 and after
// 100,000 plays. The read touches the group's aggregates only, one row
// per player, so both cost about the same.
func BenchmarkLeaderboard(b *testing.B) {
	for _, be := range backends() {
		for _, n := range []int{1000, 100000} {
			name := fmt.Sprintf("plays=%d", n)
			if be.name != "sqlite" {
				name = be.name + "/" + name
			}
			b.Run(name, func(b *testing.B) {
				s := openStore(b, be.dsn(b))
				seedHistory(b, s, DefaultGroup, n, 30)
				if lb, err := s.Leaderboard(ctx, DefaultGroup, "insecta"); err != nil || len(lb) != 30 {
					b.Fatalf("Leaderboard = %d entries, %v; want 30", len(lb), err)
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Leaderboard(ctx, DefaultGroup, "insecta"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestSeedHistory checks the benchmark's data is what recording the same
// plays would leave: the benchmark measures a real leaderboard.
func TestSeedHistory(t *testing.T) {
	s := openStore(t, backends()[0].dsn(t))
	seedHistory(t, s, DefaultGroup, 200, 5)
	want := leaderboard(t, s, DefaultGroup, "insecta")
	if err := s.RecomputeRatings(ctx); err != nil {
		t.Fatal(err)
	}
	if got := leaderboard(t, s, DefaultGroup, "insecta"); len(got) != 5 || !reflect.DeepEqual(got, want) {
		t.Errorf("seeded leaderboard:%s\nrecomputed:%s", show(want), show(got))
	}
}

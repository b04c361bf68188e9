package models

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"gorm.io/gorm"
)

// seedHistory bulk-inserts n Insecta plays of three among a group's
// `players` players, with their player rows, the aggregates and the
// rating history they add up to, much faster than recording them one by
// one. It commits every seedPlaysPerTx plays, so a million plays never
// sit in one transaction (or one WAL).
func seedHistory(tb testing.TB, s *Store, group string, n, players int) {
	tb.Helper()
	now := t0
	people := make([]playerRow, players)
	for i := range people {
		name := fmt.Sprintf("Player %02d", i)
		people[i] = playerRow{ID: seedPlayerID(group, i), GroupID: group, Name: name, NameKey: nameKey(name), CreatedAt: now}
	}
	a := newAggregator(group, "insecta")
	figs := newFigures()
	fail := func(err error) { tb.Fatalf("seed %d plays: %v", n, err) }
	if err := s.db.CreateInBatches(people, rebuildBatch).Error; err != nil {
		fail(err)
	}
	const batch = 1000
	for chunk := 0; chunk < n; chunk += seedPlaysPerTx {
		err := s.db.Transaction(func(tx *gorm.DB) error {
			for start := chunk; start < min(chunk+seedPlaysPerTx, n); start += batch {
				var plays []playRow
				var rows []playPlayerRow
				for i := start; i < min(start+batch, n); i++ {
					id := seedPlayID(i)
					at := seedFinish(i)
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
					figs.addPlay(group, "insecta", seated, 1)
				}
				if err := tx.CreateInBatches(plays, rebuildBatch).Error; err != nil {
					return err
				}
				if err := tx.CreateInBatches(rows, rebuildBatch).Error; err != nil {
					return err
				}
				if err := tx.CreateInBatches(a.history, rebuildBatch).Error; err != nil {
					return err
				}
				a.history = a.history[:0]
			}
			return nil
		})
		if err != nil {
			fail(err)
		}
	}
	var stats []*statsRow
	for _, st := range a.stats {
		stats = append(stats, st)
	}
	if err := s.db.Create(stats).Error; err != nil {
		fail(err)
	}
	if err := figs.write(s.db); err != nil {
		fail(err)
	}
	// A history grows a play at a time, and the database's statistics
	// follow it (autovacuum on PostgreSQL); one bulk load leaves them
	// saying the tables are empty, and plans made from that scan them.
	if err := s.db.Exec("ANALYZE").Error; err != nil {
		fail(err)
	}
}

// seedPlaysPerTx is how many plays seedHistory commits at a time.
const seedPlaysPerTx = 20000

// seedPlayerID, seedPlayID and seedFinish name what seedHistory writes:
// play i finishes i minutes after t0.
func seedPlayerID(group string, i int) string {
	return fmt.Sprintf("seed%s%06d", group[:min(len(group), 6)], i)
}

func seedPlayID(i int) string { return fmt.Sprintf("seed%012d", i) }

func seedFinish(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }

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

// TestSeedHistory checks the benchmarks' data is what recording the same
// plays would leave: they measure a real leaderboard and player page.
func TestSeedHistory(t *testing.T) {
	s := openStore(t, backends()[0].dsn(t))
	seedHistory(t, s, DefaultGroup, 200, 5)
	want := leaderboard(t, s, DefaultGroup, "insecta")
	wantHistory := seededRatings(t, s)
	if err := s.RecomputeRatings(ctx); err != nil {
		t.Fatal(err)
	}
	if got := leaderboard(t, s, DefaultGroup, "insecta"); len(got) != 5 || !reflect.DeepEqual(got, want) {
		t.Errorf("seeded leaderboard:%s\nrecomputed:%s", show(want), show(got))
	}
	if got := seededRatings(t, s); len(got) != 600 || !reflect.DeepEqual(got, wantHistory) {
		t.Errorf("seeded %d rating points, recomputed %d, or they differ", len(wantHistory), len(got))
	}
}

// seededRatings is the whole rating history, in a fixed order.
func seededRatings(t *testing.T, s *Store) []ratingRow {
	t.Helper()
	var rows []ratingRow
	if err := s.db.Order("play_id, player_id").Find(&rows).Error; err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		rows[i].FinishedAt = rows[i].FinishedAt.UTC()
	}
	return rows
}

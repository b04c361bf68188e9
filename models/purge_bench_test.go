package models

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"
)

// BenchmarkPurgeUnderWrites deletes a million expired idempotency keys
// (INSECTSCORE_PURGE_KEYS to change it) from a SQLite file while a client
// claims new keys as fast as it can, and reports how long the purge took
// and how long the writes waited: "batches" is the store's purge, "one
// statement" the single DELETE it replaced, in the same run.
//
//	go test ./models -run '^$' -bench PurgeUnderWrites -benchtime 1x
func BenchmarkPurgeUnderWrites(b *testing.B) {
	keys := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("INSECTSCORE_PURGE_KEYS")); err == nil {
		keys = v
	}
	cut := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
	for _, way := range []struct {
		name  string
		purge func(s *Store) (int64, error)
	}{
		{"batches", func(s *Store) (int64, error) { return s.PurgeIdempotent(ctx, cut) }},
		{"one statement", func(s *Store) (int64, error) { return s.purgeKeys(ctx, cut, keys+1) }},
	} {
		b.Run(way.name, func(b *testing.B) {
			for range b.N {
				s := openStore(b, filepath.Join(b.TempDir(), "purge.db"))
				err := s.db.Exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
					INSERT INTO idempotency_keys (scope, fingerprint, client, status, content_type, body, created_at)
					SELECT printf('%064d', i), 'fp', '203.0.113.7', 201, 'application/json', randomblob(300), ?
					FROM n`, keys, cut.Add(-25*time.Hour)).Error
				if err != nil {
					b.Fatal(err)
				}
				// Keys a day old were checkpointed into the database long
				// ago: the fill's WAL is not the purge's to empty.
				if err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)").Error; err != nil {
					b.Fatal(err)
				}
				stop := make(chan struct{})
				var (
					wg    sync.WaitGroup
					waits []time.Duration
				)
				wg.Go(func() {
					for i := 0; ; i++ {
						select {
						case <-stop:
							return
						default:
						}
						t0 := time.Now()
						if _, err := s.BeginIdempotent(context.Background(), KeyClaim{Scope: fmt.Sprint("new", i), Fingerprint: "fp",
							Client: "198.51.100.9", Now: cut, TTL: 24 * time.Hour}); err != nil {
							b.Error(err)
							return
						}
						waits = append(waits, time.Since(t0))
					}
				})
				t0 := time.Now()
				n, err := way.purge(s)
				took := time.Since(t0)
				close(stop)
				wg.Wait()
				if err != nil || n != int64(keys) {
					b.Fatalf("purged %d, %v; want %d", n, err, keys)
				}
				slices.Sort(waits)
				b.ReportMetric(took.Seconds(), "purge-s")
				b.ReportMetric(float64(len(waits))/took.Seconds(), "writes/s")
				if len(waits) > 0 {
					b.ReportMetric(float64(waits[len(waits)*99/100].Microseconds())/1000, "p99-ms")
					b.ReportMetric(float64(waits[len(waits)-1].Microseconds())/1000, "max-ms")
				}
			}
		})
	}
}

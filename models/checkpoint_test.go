package models

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
)

// A SQLite file's writer does not checkpoint when it commits; a
// background connection copies the WAL into the database file instead,
// within a few seconds, until Close.
func TestBackgroundCheckpoints(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.db")
	s := openStore(t, path)
	var auto int
	if err := s.db.Raw("PRAGMA wal_autocheckpoint").Scan(&auto).Error; err != nil {
		t.Fatal(err)
	}
	if auto != 0 {
		t.Errorf("writer's wal_autocheckpoint = %d, want 0", auto)
	}
	const name = "Checkpointed Chloé"
	if _, _, err := s.CreateTable(context.Background(), NewTable{Game: "insecta", Names: []string{name}}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * checkpointEvery)
	for {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(name)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the write is still only in the WAL")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.stopCheckpoints != nil {
		t.Error("Close left the checkpoints running")
	}
}

// TestWALStaysBounded: board writes while reads never stop. A PASSIVE
// checkpoint alone never lets the WAL start again, so it only grew (66 MB
// in this test's 4 s before the bound, 616 MB in 40 s of load); past its
// restart size (256 KiB here) the writer empties it, so it keeps
// shrinking back, and stays far under walLimit.
func TestWALStaysBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "wal.db")
	s := openStore(t, path)
	s.walRestartAt.Store(256 << 10)
	largest, emptied := walLoad(t, s, path, 1, 4*time.Second, nil)
	t.Logf("largest WAL: %d bytes; emptied %d times in 4 s", largest, emptied)
	if emptied < 1 || largest >= walLimit {
		t.Errorf("the WAL was emptied %d times and reached %d bytes under load; want it emptied under load, and under %d", emptied, largest, walLimit)
	}
}

// walLoad writes boards to the store of the SQLite file at path from
// writers goroutines for d while two readers
// whose snapshots overlap never stop, and returns the largest WAL seen
// and how often it shrank; took, when set, gets each write's time.
func walLoad(t testing.TB, s *Store, path string, writers int, d time.Duration, took func(time.Duration)) (largest int64, emptied int) {
	ctx := context.Background()
	tb, host, err := s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Ana", "Ben", "Cleo", "Dan"}})
	if err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var readers sync.WaitGroup
	for range 2 {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				_ = s.read(ctx, func(tx *gorm.DB) error {
					var n int64
					err := tx.Raw("SELECT COUNT(*) FROM seats").Scan(&n).Error
					time.Sleep(10 * time.Millisecond)
					return err
				})
			}
		}()
	}
	board := json.RawMessage(`{"notes": "` + strings.Repeat("x", 3000) + `"}`)
	var (
		mu      sync.Mutex
		last    int64
		writing sync.WaitGroup
	)
	deadline := time.Now().Add(d)
	for w := range writers {
		writing.Add(1)
		go func() {
			defer writing.Done()
			for i := 0; time.Now().Before(deadline); i++ {
				start := time.Now()
				if _, _, err := s.PutBoard(ctx, BoardPut{Code: tb.Code, Token: host, Seat: (w + i) % 4, Board: board}, nil); err != nil {
					t.Error(err)
					return
				}
				if took != nil {
					took(time.Since(start))
				}
				st, err := os.Stat(path + "-wal")
				if err != nil {
					continue
				}
				mu.Lock()
				if st.Size() < last {
					emptied++
				}
				last, largest = st.Size(), max(largest, st.Size())
				mu.Unlock()
			}
		}()
	}
	writing.Wait()
	close(stop)
	readers.Wait()
	return largest, emptied
}

// BenchmarkWALUnderLoad: 4 writers save boards for INSECTSCORE_WAL_LOAD
// (default 10 s; the README's figure is of 10 minutes) while reads never
// stop; it reports the largest WAL and the writes' p99.
func BenchmarkWALUnderLoad(b *testing.B) {
	d := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("INSECTSCORE_WAL_LOAD")); err == nil {
		d = v
	}
	for range b.N {
		path := filepath.Join(b.TempDir(), "wal.db")
		s := openStore(b, path)
		var (
			mu    sync.Mutex
			times []time.Duration
		)
		largest, emptied := walLoad(b, s, path, 4, d, func(t time.Duration) {
			mu.Lock()
			times = append(times, t)
			mu.Unlock()
		})
		slices.Sort(times)
		b.ReportMetric(float64(largest)/(1<<20), "max-wal-MiB")
		b.ReportMetric(float64(emptied), "emptied")
		b.ReportMetric(float64(len(times))/d.Seconds(), "writes/s")
		if len(times) > 0 {
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds())/1000, "p99-ms")
			b.ReportMetric(float64(times[len(times)-1].Microseconds())/1000, "max-ms")
		}
	}
}

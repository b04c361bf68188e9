package api

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"insectscore/models"
)

// BenchmarkKeyFlood sends writes with a new Idempotency-Key each from 4
// connections of one address for 10 s (INSECTSCORE_FLOOD to change it),
// to a SQLite file, and reports the answers kept and how much the
// database and its WAL grew: "unknown path" is a route that creates
// nothing (a 404), "boards" a write whose answer is kept, up to the
// address's cap.
//
//	go test ./api -run '^$' -bench KeyFlood -benchtime 1x
func BenchmarkKeyFlood(b *testing.B) {
	d := 10 * time.Second
	if v, err := time.ParseDuration(os.Getenv("INSECTSCORE_FLOOD")); err == nil {
		d = v
	}
	for _, target := range []string{"unknown path", "boards"} {
		b.Run(target, func(b *testing.B) {
			for range b.N {
				dir := b.TempDir()
				path := filepath.Join(dir, "flood.db")
				store, err := models.Open(context.Background(), path, nil)
				if err != nil {
					b.Fatal(err)
				}
				app, _ := newTestAppWith(b, Config{Store: store})
				tbl := decodeJSON[createdTable](b, mustCall(b, app, "POST", "/api/v1/tables", `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`, nil, 201))
				before := dirSize(b, dir)
				method, url, body := "POST", "/api/v1/no/such/route", `{}`
				if target == "boards" {
					method, url, body = "PUT", boardPath(tbl.Code, 0), hotelJSON("blue", "bee:1", "ant:0", "fly:0")
				}
				var (
					sent, refused atomic.Int64
					wg            sync.WaitGroup
					largest       atomic.Int64
				)
				end := time.Now().Add(d)
				for c := range 4 {
					wg.Go(func() {
						for i := 0; time.Now().Before(end); i++ {
							req := httptest.NewRequest(method, url, strings.NewReader(body))
							req.Header.Set("Content-Type", "application/json")
							req.Header.Set("Authorization", "Bearer "+tbl.HostToken)
							req.Header.Set("Idempotency-Key", fmt.Sprintf("flood-%d-%d", c, i))
							resp, err := app.Test(req, -1)
							if err != nil {
								b.Error(err)
								return
							}
							resp.Body.Close()
							sent.Add(1)
							if resp.StatusCode == 429 {
								refused.Add(1)
							}
							if i%100 == 0 {
								if n := dirSize(b, dir); n > largest.Load() {
									largest.Store(n)
								}
							}
						}
					})
				}
				wg.Wait()
				kept, err := store.KeptAnswers(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(sent.Load()), "requests")
				b.ReportMetric(float64(refused.Load()), "429s")
				b.ReportMetric(float64(kept), "kept")
				b.ReportMetric(float64(max(largest.Load(), dirSize(b, dir))-before)/(1<<20), "grew-MiB")
				store.Close()
			}
		})
	}
}

// dirSize is the size of the files in dir: the database, its WAL and
// shared memory.
func dirSize(b *testing.B, dir string) int64 {
	entries, err := os.ReadDir(dir)
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, e := range entries {
		if info, err := e.Info(); err == nil {
			n += info.Size()
		}
	}
	return n
}

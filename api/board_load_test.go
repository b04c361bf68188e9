package api

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"insectscore/models"
	"insectscore/models/pgtest"
)

// BenchmarkBoardPut is the board-write load of issue 10, P2: 32 writers
// PUT boards over 250 two-seat Insecta tables through the real app on an
// in-memory connection, on a SQLite file in a temporary directory and,
// when INSECTSCORE_TEST_POSTGRES holds a DSN, on PostgreSQL. Each writer
// sends b.N/32 PUTs (bounded) to tables drawn at random, half with the
// host's token and half with the seat's own. It reports writes/s and the
// p50 and p99 latencies:
//
//	INSECTSCORE_TEST_POSTGRES='postgres://postgres@127.0.0.1:5432/test?sslmode=disable' \
//	  go test ./api -run '^$' -bench BoardPut -benchtime 20000x
func BenchmarkBoardPut(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		benchBoardPut(b, filepath.Join(b.TempDir(), "load.db"))
	})
	if base := os.Getenv("INSECTSCORE_TEST_POSTGRES"); base != "" {
		b.Run("postgres", func(b *testing.B) { benchBoardPut(b, pgtest.Schema(b, base)) })
	}
}

const (
	loadWriters = 32
	loadTables  = 250
)

type loadTable struct {
	path  string
	host  string
	seat1 string // seat 1's own token
}

func benchBoardPut(b *testing.B, dsn string) {
	store, err := models.Open(context.Background(), dsn, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { store.Close() })
	app, _ := newTestAppWith(b, Config{Store: store})
	ln := fasthttputil.NewInmemoryListener()
	go func() { _ = app.Listener(ln) }()
	b.Cleanup(func() { _ = app.Shutdown() })
	client := &fasthttp.HostClient{Addr: "bench", MaxConns: loadWriters, Dial: func(string) (net.Conn, error) { return ln.Dial() }}

	var example struct {
		Players []struct {
			Board json.RawMessage `json:"board"`
		} `json:"players"`
	}
	raw, err := os.ReadFile("testdata/insecta-example.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &example); err != nil {
		b.Fatal(err)
	}
	board := []byte(example.Players[0].Board)

	tables := make([]loadTable, loadTables)
	for i := range tables {
		t, host, err := store.CreateTable(context.Background(), models.NewTable{Game: "insecta", Names: []string{"Ada", "Ben"}})
		if err != nil {
			b.Fatal(err)
		}
		seat1, err := store.ClaimSeat(context.Background(), t.Code, 1)
		if err != nil {
			b.Fatal(err)
		}
		tables[i] = loadTable{path: "http://bench/api/v1/tables/" + t.Code + "/seats/", host: host, seat1: seat1}
	}

	per := max(b.N/loadWriters, 1)
	lat := make([][]time.Duration, loadWriters)
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ResetTimer()
	start := time.Now()
	for w := range loadWriters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			lat[w] = make([]time.Duration, 0, per)
			rnd := rand.New(rand.NewPCG(uint64(w), 10))
			for i := range per {
				t := tables[rnd.IntN(loadTables)]
				seat, token := 0, t.host
				if i%2 == 1 {
					seat, token = 1, t.seat1
				}
				req.Reset()
				req.SetRequestURI(fmt.Sprintf("%s%d/board", t.path, seat))
				req.Header.SetMethod(fasthttp.MethodPut)
				req.Header.SetContentType("application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				req.SetBody(board)
				began := time.Now()
				if err := client.Do(req, resp); err != nil || resp.StatusCode() != fasthttp.StatusOK {
					if failed.Add(1) == 1 {
						b.Errorf("PUT %s: %v %d %s", req.URI(), err, resp.StatusCode(), resp.Body())
					}
					continue
				}
				lat[w] = append(lat[w], time.Since(began))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	all := slices.Concat(lat...)
	slices.Sort(all)
	if len(all) == 0 {
		return
	}
	b.ReportMetric(float64(len(all))/elapsed.Seconds(), "writes/s")
	b.ReportMetric(float64(all[len(all)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(all[len(all)/2].Microseconds())/1000, "p50-ms")
}

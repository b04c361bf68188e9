package api

import (
	"bufio"
	"bytes"
	"context"
	"net/http"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"insectscore/models"
)

// timedBroker notes when each version was handed to the broker, the
// moment a change starts fanning out to the streams.
type timedBroker struct {
	*models.MemoryBroker
	mu   sync.Mutex
	sent map[int]time.Time
}

func (b *timedBroker) Publish(code string, ev models.Event) {
	b.mu.Lock()
	b.sent[ev.Version] = time.Now()
	b.mu.Unlock()
	b.MemoryBroker.Publish(code, ev)
}

func (b *timedBroker) sentAt(version int) time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sent[version]
}

// arrival is one stream's receipt of a whole table event.
type arrival struct {
	version int
	at      time.Time
	// bytes is the size of the event's block.
	bytes int
}

// BenchmarkEventFanout opens INSECTSCORE_STREAMS event streams (default
// 50) on one four-player Insecta table over 127.0.0.1 and saves a board
// b.N times. Each change's delivery latency, from the broker's Publish to
// a stream having read the whole frame, is taken on every stream; p50 and
// p99 over all deliveries are reported, the CPU time of server and
// clients together per delivery, and the bytes of an event as delivered.
// "table" streams get every change as the whole table, "delta" streams
// (?deltas=1, as the app opens them) get what changed. For the README
// figures:
//
//	INSECTSCORE_STREAMS=1000 go test ./api -run '^$' -bench EventFanout -benchtime 30x
func BenchmarkEventFanout(b *testing.B) {
	b.Run("table", func(b *testing.B) { benchFanout(b, "") })
	b.Run("delta", func(b *testing.B) { benchFanout(b, "?deltas=1") })
}

func benchFanout(b *testing.B, query string) {
	streams := 50
	if s := os.Getenv("INSECTSCORE_STREAMS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > 5000 {
			b.Fatalf("INSECTSCORE_STREAMS=%q: want 1 to 5000", s)
		}
		streams = n
	}
	broker := &timedBroker{MemoryBroker: models.NewMemoryBroker(), sent: map[int]time.Time{}}
	app, _ := newTestAppWith(b, Config{Broker: broker, MaxStreamsPerClient: streams + 1, MaxStreams: streams + 1})
	base := serve(b, app)
	b.Cleanup(broker.Close)
	// The app's files are compressed in the background after start-up:
	// wait, so that does not share the cores with the measured changes.
	if a, err := loadAssets(); err == nil {
		<-a.compressed
	}

	// The rulebook example's larger board at each seat, each player with
	// their own researcher: a table of about 11 KB, standings included.
	ct, host, board := fullInsectaTable(b, base)
	version := 5 // created at 1, four boards since

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: -1, DisableCompression: true}}
	arrivals := make(chan arrival, 4*streams)
	var readers sync.WaitGroup
	for range streams {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/tables/"+ct.Code+"/events"+query, nil)
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != 200 {
			b.Fatalf("GET events: status %d", resp.StatusCode)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			defer resp.Body.Close()
			readArrivals(resp.Body, arrivals)
		}()
	}
	// wait waits until every stream has the table at version v.
	var latencies []time.Duration
	delivered := 0
	wait := func(v int, measure bool) {
		deadline := time.After(30 * time.Second)
		for got := 0; got < streams; {
			select {
			case a := <-arrivals:
				if a.version == v {
					got++
					if measure {
						latencies = append(latencies, a.at.Sub(broker.sentAt(v)))
						delivered += a.bytes
					}
				}
			case <-deadline:
				b.Fatalf("version %d reached %d of %d streams", v, got, streams)
			}
		}
	}
	wait(version, false)
	frame := len(mustHTTP(b, "GET", base+"/api/v1/tables/"+ct.Code, "", nil, 200).body)

	var before, after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := range b.N {
		mustHTTP(b, "PUT", base+boardPath(ct.Code, i%4), board(i%4, 11+i), host, 200)
		version++
		wait(version, true)
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*streams), "cpu-µs/delivery")
	b.ReportMetric(float64(streams), "streams")
	b.ReportMetric(float64(frame), "table-bytes")
	b.ReportMetric(float64(delivered)/float64(len(latencies)), "event-bytes")
	cancel()
	readers.Wait()
}

// readArrivals reads an event stream and reports each table event once
// its block is complete.
func readArrivals(body interface{ Read([]byte) (int, error) }, out chan<- arrival) {
	r := bufio.NewReaderSize(body, 64<<10)
	id, size := -1, 0
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		size += len(line)
		switch {
		case bytes.HasPrefix(line, []byte("id: ")):
			id, _ = strconv.Atoi(string(bytes.TrimSpace(line[4:])))
		case len(line) == 1 && id >= 0:
			out <- arrival{id, time.Now(), size}
			id = -1
		}
		if len(line) == 1 {
			size = 0
		}
	}
}

//go:build linux

package api

import (
	"bytes"
	"net"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"insectscore/api/live"
)

// timedBroker notes when each version was handed to the broker, the
// moment a change starts fanning out to the streams.
type timedBroker struct {
	*live.MemoryBroker
	mu   sync.Mutex
	sent map[int]time.Time
}

func (b *timedBroker) Publish(code string, ev live.Event) {
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
// p99 over all deliveries are reported, the CPU time of the whole process
// (server, clients and the PUTs) per delivery, the clients' own share of
// it (their reading threads' time), and the bytes of an event as
// delivered. The clients are INSECTSCORE_FANOUT_READERS threads (default
// 2) reading every socket with epoll (fanclient_linux_test.go); each frame
// is read whole and checked. "table" streams get every change as the
// whole table, "delta" streams (?deltas=1, as the app opens them) get
// what changed. For the README figures:
//
//	INSECTSCORE_STREAMS=1000 go test ./api -run '^$' -bench EventFanout -benchtime 30x
func BenchmarkEventFanout(b *testing.B) {
	b.Run("table", func(b *testing.B) { benchFanout(b, "") })
	b.Run("delta", func(b *testing.B) { benchFanout(b, "?deltas=1") })
}

func benchFanout(b *testing.B, query string) {
	streams := envInt(b, "INSECTSCORE_STREAMS", 50, 5000)
	readers := envInt(b, "INSECTSCORE_FANOUT_READERS", 2, 64)
	broker := &timedBroker{MemoryBroker: live.NewMemoryBroker(), sent: map[int]time.Time{}}
	app, _ := newTestAppWith(b, Config{Broker: broker, MaxStreamsPerClient: streams + 1, MaxStreams: streams + 1})
	base := serve(b, app)
	b.Cleanup(broker.Close)

	// The rulebook example's larger board at each seat, each player with
	// their own researcher: a table of about 11 KB, standings included.
	ct, host, board := fullInsectaTable(b, base)
	version := 5 // created at 1, four boards since

	event := "table"
	if query != "" {
		event = "delta"
	}
	rs, err := newFanReaders(readers, streams, version+b.N, event)
	if err != nil {
		b.Fatal(err)
	}
	addr, err := net.ResolveTCPAddr("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		b.Fatal(err)
	}
	request := "GET /api/v1/tables/" + ct.Code + "/events" + query + " HTTP/1.1\r\nHost: " + addr.String() +
		"\r\nAccept: text/event-stream\r\n\r\n"
	for i := range streams {
		if err := rs.dial(i, addr, request); err != nil {
			b.Fatal(err)
		}
	}
	rs.start()
	defer rs.close()
	if err := rs.wait(version, 60*time.Second); err != nil {
		b.Fatal(err)
	}
	frame := len(mustHTTP(b, "GET", base+"/api/v1/tables/"+ct.Code, "", nil, 200).body)

	var before, after syscall.Rusage
	rs.mark()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := range b.N {
		mustHTTP(b, "PUT", base+boardPath(ct.Code, i%4), board(i%4, 11+i), host, 200)
		version++
		if err := rs.wait(version, 30*time.Second); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	rs.mark()
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	var latencies []time.Duration
	delivered := 0
	for _, a := range rs.arrivals() {
		if a.version > 5 {
			latencies = append(latencies, a.at.Sub(broker.sentAt(a.version)))
			delivered += a.bytes
		}
	}
	if len(latencies) != b.N*streams {
		b.Fatalf("%d deliveries, want %d", len(latencies), b.N*streams)
	}
	reportLatencies(b, latencies)
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*streams), "cpu-µs/delivery")
	b.ReportMetric(float64(rs.cpu().Nanoseconds())/1000/float64(b.N*streams), "client-cpu-µs/delivery")
	b.ReportMetric(float64(streams), "streams")
	b.ReportMetric(float64(frame), "table-bytes")
	b.ReportMetric(float64(delivered)/float64(len(latencies)), "event-bytes")
}

// reportLatencies reports p50, p99 and the worst of the deliveries.
func reportLatencies(b *testing.B, latencies []time.Duration) {
	slices.Sort(latencies)
	pct := func(p float64) float64 {
		return float64(latencies[int(p*float64(len(latencies)-1))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(pct(1), "max-ms")
}

// envInt reads a count from the environment, def when unset.
func envInt(b *testing.B, name string, def, most int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > most {
		b.Fatalf("%s=%q: want 1 to %d", name, s, most)
	}
	return n
}

// BenchmarkFanoutFloor is what the fan-out cannot go below on this
// machine: the same number of streams (INSECTSCORE_STREAMS) over
// 127.0.0.1 read by the same clients, each change one write of a frame of
// the benchmark's size straight to each socket from one goroutine per
// core, with no HTTP server, database, scoring or JSON in the way. The
// clock starts at the first write.
//
//	INSECTSCORE_STREAMS=1000 go test ./api -run '^$' -bench FanoutFloor -benchtime 30x
func BenchmarkFanoutFloor(b *testing.B) {
	b.Run("table", func(b *testing.B) { benchFloor(b, "table", 10482) })
	b.Run("delta", func(b *testing.B) { benchFloor(b, "delta", 507) })
}

func benchFloor(b *testing.B, event string, size int) {
	streams := envInt(b, "INSECTSCORE_STREAMS", 50, 5000)
	readers := envInt(b, "INSECTSCORE_FANOUT_READERS", 2, 64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, streams)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			// The request is one small packet: read it, answer the head.
			buf := make([]byte, 1024)
			if _, err := c.Read(buf); err != nil {
				c.Close()
				continue
			}
			if _, err := c.Write([]byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")); err != nil {
				c.Close()
				continue
			}
			accepted <- c
		}
	}()
	rs, err := newFanReaders(readers, streams, b.N+1, event)
	if err != nil {
		b.Fatal(err)
	}
	addr := ln.Addr().(*net.TCPAddr)
	for i := range streams {
		if err := rs.dial(i, addr, "GET / HTTP/1.1\r\nHost: floor\r\n\r\n"); err != nil {
			b.Fatal(err)
		}
	}
	var fds []int
	for range streams {
		c := <-accepted
		defer c.Close()
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			b.Fatal(err)
		}
		_ = raw.Control(func(fd uintptr) { fds = append(fds, int(fd)) })
	}
	rs.start()
	defer rs.close()
	// A frame of the size asked: the id, the event and one JSON line.
	data := append([]byte(`{"pad":"`), bytes.Repeat([]byte{'x'}, size-40)...)
	data = append(data, `"}`...)
	workers := runtime.GOMAXPROCS(0)
	per := (len(fds) + workers - 1) / workers
	sent := make([]time.Time, b.N+1)
	var before, after syscall.Rusage
	rs.mark()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	b.ResetTimer()
	for i := range b.N {
		v := i + 1
		frame := live.Event{Version: v, Data: data}.Frame()
		if event == "delta" {
			frame = bytes.Replace(frame, []byte("event: table"), []byte("event: delta"), 1)
		}
		var wg sync.WaitGroup
		sent[v] = time.Now()
		for w := range workers {
			part := fds[min(w*per, len(fds)):min((w+1)*per, len(fds))]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, fd := range part {
					if n, err := syscall.Write(fd, frame); err != nil || n != len(frame) {
						b.Errorf("write: %d of %d: %v", n, len(frame), err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if err := rs.wait(v, 30*time.Second); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	rs.mark()
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	var latencies []time.Duration
	for _, a := range rs.arrivals() {
		latencies = append(latencies, a.at.Sub(sent[a.version]))
	}
	if len(latencies) != b.N*streams {
		b.Fatalf("%d deliveries, want %d", len(latencies), b.N*streams)
	}
	reportLatencies(b, latencies)
	b.ReportMetric(float64(cpu.Microseconds())/float64(b.N*streams), "cpu-µs/delivery")
	b.ReportMetric(float64(rs.cpu().Nanoseconds())/1000/float64(b.N*streams), "client-cpu-µs/delivery")
}

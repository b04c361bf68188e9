//go:build linux

package api

import (
	"bytes"
	"io"
	"net"
	"net/http"
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

// The fan-out benchmarks: one table followed by INSECTSCORE_STREAMS event
// streams (default 50) over 127.0.0.1, read by INSECTSCORE_FANOUT_READERS
// client threads (default 2) with epoll (fanclient_linux_test.go), each
// frame read whole and checked. For the README figures:
//
//	INSECTSCORE_STREAMS=1000 go test ./api -run '^$' -bench FanoutPairs/table -benchtime 100x
//
// A window is b.N changes, each waited for until every stream has read it.
// Its figures: the latency of every delivery, from the moment the change
// starts out to the moment a client has read the frame whole (p50, p99
// and the worst); the server's CPU time per delivery, which is the
// process's less the client threads', reported apart; and the bytes of an
// event as delivered.

// arrival is one stream's receipt of a whole event. It holds no pointer
// (a time.Time does), so the collector has nothing to scan in the
// hundreds of thousands a run keeps, work that would count as the
// server's.
type arrival struct {
	version int32
	// bytes is the size of the event's block.
	bytes int32
	// at is when it was read whole, since fanEpoch.
	at time.Duration
}

var fanEpoch = time.Now()

// fanWindow is what one window measured.
type fanWindow struct {
	latencies []time.Duration
	// cpu is the process's CPU time, client the client threads' share.
	cpu, client time.Duration
	bytes       int
}

func (w fanWindow) pct(p float64) time.Duration {
	l := slices.Clone(w.latencies)
	slices.Sort(l)
	return l[int(p*float64(len(l)-1))]
}

// serverCPU is the CPU time per delivery of all but the clients.
func (w fanWindow) serverCPU() time.Duration {
	return (w.cpu - w.client) / time.Duration(len(w.latencies))
}

func (w fanWindow) report(b *testing.B, prefix string) {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	n := time.Duration(len(w.latencies))
	b.ReportMetric(ms(w.pct(0.50)), prefix+"p50-ms")
	b.ReportMetric(ms(w.pct(0.99)), prefix+"p99-ms")
	b.ReportMetric(ms(w.pct(1)), prefix+"max-ms")
	b.ReportMetric(us(w.serverCPU()), prefix+"cpu-µs/delivery")
	b.ReportMetric(us(w.client/n), prefix+"client-cpu-µs/delivery")
	b.ReportMetric(float64(w.bytes)/float64(n), prefix+"event-bytes")
}

// measure runs one window of n changes: change(v) makes version v and
// returns when it starts out, and the window waits for every stream to
// read it. Versions run from first on.
func measure(b *testing.B, rs *fanReaders, first, n int, change func(v int) time.Time) fanWindow {
	sent := make(map[int]time.Time, n)
	var before, after syscall.Rusage
	rs.mark()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for v := first; v < first+n; v++ {
		sent[v] = change(v)
		if err := rs.wait(v, 30*time.Second); err != nil {
			b.Fatal(err)
		}
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	rs.mark()
	w := fanWindow{
		cpu:    time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano()),
		client: rs.cpu(),
	}
	for _, a := range rs.arrivals() {
		if at, ok := sent[int(a.version)]; ok {
			w.latencies = append(w.latencies, a.at-at.Sub(fanEpoch))
			w.bytes += int(a.bytes)
		}
	}
	if len(w.latencies) != n*rs.want {
		b.Fatalf("%d deliveries, want %d", len(w.latencies), n*rs.want)
	}
	return w
}

// fanoutBench is the server with its streams of one table: a change is a
// board save, timed from the broker's Publish.
type fanoutBench struct {
	b      *testing.B
	rs     *fanReaders
	broker *timedBroker
	// save saves a board of the streams' table at version v, saveOther
	// one of a table no stream follows.
	save, saveOther func(v int)
	version         int
}

// timedBroker notes when each version of the table code was handed to
// the broker, the moment a change starts fanning out to the streams.
type timedBroker struct {
	*live.MemoryBroker
	mu   sync.Mutex
	code string
	sent map[int]time.Time
}

func (b *timedBroker) Publish(code string, ev live.Event) {
	b.mu.Lock()
	if code == b.code {
		b.sent[ev.Version] = time.Now()
	}
	b.mu.Unlock()
	b.MemoryBroker.Publish(code, ev)
}

// newFanoutBench serves the app with streams of one four-player Insecta
// table, opened with query, read by the clients; maxChanges bounds the
// board saves to come.
func newFanoutBench(b *testing.B, query string, maxChanges int) *fanoutBench {
	streams := envInt(b, "INSECTSCORE_STREAMS", 50, 5000)
	readers := envInt(b, "INSECTSCORE_FANOUT_READERS", 2, 64)
	broker := &timedBroker{MemoryBroker: live.NewMemoryBroker(), sent: map[int]time.Time{}}
	app, _ := newTestAppWith(b, Config{Broker: broker, MaxStreamsPerClient: streams + 1, MaxStreams: streams + 1})
	base := serve(b, app)
	b.Cleanup(broker.Close)

	// The rulebook example's larger board at each seat, each player with
	// their own researcher: a table of about 11 KB, standings included.
	ct, host, board := fullInsectaTable(b, base)
	broker.mu.Lock()
	broker.code = ct.Code
	broker.mu.Unlock()
	// A second table, which no stream follows, for saves alone.
	other, otherHost, _ := fullInsectaTable(b, base)
	f := &fanoutBench{b: b, broker: broker, version: 5} // created at 1, four boards since
	event := "table"
	if query != "" {
		event = "delta"
	}
	rs, err := newFanReaders(readers, streams, f.version+maxChanges, event)
	if err != nil {
		b.Fatal(err)
	}
	f.rs = rs
	b.Cleanup(rs.close)
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
	if err := rs.wait(f.version, 60*time.Second); err != nil {
		b.Fatal(err)
	}
	// A board save by a plain client: the tests' own (mustHTTP) checks
	// each answer against the OpenAPI document, work the server does not.
	put := func(code string, auth map[string]string, v int) {
		seat := v % 4
		req, err := http.NewRequest("PUT", base+boardPath(code, seat), strings.NewReader(board(seat, 10+v)))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", auth["Authorization"])
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("PUT board: %d", resp.StatusCode)
		}
	}
	f.save = func(v int) { put(ct.Code, host, v) }
	f.saveOther = func(v int) { put(other.Code, otherHost, v) }
	return f
}

// window saves a board n times.
func (f *fanoutBench) window(n int) fanWindow {
	w := measure(f.b, f.rs, f.version+1, n, func(v int) time.Time {
		f.save(v)
		f.broker.mu.Lock()
		defer f.broker.mu.Unlock()
		return f.broker.sent[v]
	})
	f.version += n
	return w
}

// saves is the CPU time of one board save by itself: n saves of a table
// that no stream follows, less the clients' time meanwhile. A save builds
// the table's event and publishes it as for a followed table, but for
// the hub.
func (f *fanoutBench) saves(n int) time.Duration {
	var before, after syscall.Rusage
	f.rs.mark()
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	for i := range n {
		f.saveOther(11 + i)
	}
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	f.rs.mark()
	cpu := time.Duration(after.Utime.Nano() + after.Stime.Nano() - before.Utime.Nano() - before.Stime.Nano())
	return (cpu - f.rs.cpu()) / time.Duration(n)
}

// BenchmarkEventFanout saves a board b.N times on a table with
// INSECTSCORE_STREAMS streams. "table" streams get every change as the
// whole table, "delta" streams (?deltas=1, as the app opens them) get
// what changed.
func BenchmarkEventFanout(b *testing.B) {
	b.Run("table", func(b *testing.B) { benchFanout(b, "") })
	b.Run("delta", func(b *testing.B) { benchFanout(b, "?deltas=1") })
}

func benchFanout(b *testing.B, query string) {
	f := newFanoutBench(b, query, b.N)
	b.ResetTimer()
	w := f.window(b.N)
	b.StopTimer()
	w.report(b, "")
	b.ReportMetric(float64(f.rs.want), "streams")
}

// floorBench is what the fan-out cannot go below on this machine: as many
// sockets as streams, with the send buffer of a stream, read by the same
// clients; a change is one write(2) of a frame to each socket from one
// goroutine per core, with no HTTP server, database, scoring or JSON in
// the way, timed from the first write.
type floorBench struct {
	b       *testing.B
	rs      *fanReaders
	fds     []int
	event   string
	version int
}

// newFloorBench opens the sockets of the floor for events of the name,
// to be read by the clients; maxChanges bounds the changes to come.
func newFloorBench(b *testing.B, event string, maxChanges int) *floorBench {
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
	rs, err := newFanReaders(readers, streams, maxChanges, event)
	if err != nil {
		b.Fatal(err)
	}
	f := &floorBench{b: b, rs: rs, event: event}
	b.Cleanup(rs.close)
	addr := ln.Addr().(*net.TCPAddr)
	for i := range streams {
		if err := rs.dial(i, addr, "GET / HTTP/1.1\r\nHost: floor\r\n\r\n"); err != nil {
			b.Fatal(err)
		}
	}
	for range streams {
		c := <-accepted
		b.Cleanup(func() { c.Close() })
		// As a stream's (live/stream.go).
		if err := c.(*net.TCPConn).SetWriteBuffer(64 << 10); err != nil {
			b.Fatal(err)
		}
		raw, err := c.(*net.TCPConn).SyscallConn()
		if err != nil {
			b.Fatal(err)
		}
		_ = raw.Control(func(fd uintptr) { f.fds = append(f.fds, int(fd)) })
	}
	rs.start()
	return f
}

// window writes n changes, each a frame of size bytes.
func (f *floorBench) window(n, size int) fanWindow {
	// A frame of the size asked: the id, the event and one JSON line.
	frame := func(v int) []byte {
		head := "id: " + strconv.Itoa(v) + ".0123456789abcdef\nevent: " + f.event + "\ndata: "
		data := append([]byte(`{"pad":"`), bytes.Repeat([]byte{'x'}, max(size-len(head)-len(`{"pad":""}`)-2, 0))...)
		return append(append([]byte(head), data...), "\"}\n\n"...)
	}
	workers := runtime.GOMAXPROCS(0)
	per := (len(f.fds) + workers - 1) / workers
	w := measure(f.b, f.rs, f.version+1, n, func(v int) time.Time {
		frame := frame(v)
		var wg sync.WaitGroup
		start := time.Now()
		for w := range workers {
			part := f.fds[min(w*per, len(f.fds)):min((w+1)*per, len(f.fds))]
			wg.Add(1)
			go func() {
				defer wg.Done()
				for _, fd := range part {
					if n, err := syscall.Write(fd, frame); err != nil || n != len(frame) {
						f.b.Errorf("write: %d of %d: %v", n, len(frame), err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return start
	})
	f.version += n
	return w
}

// BenchmarkFanoutFloor is the floor alone, each change a frame of the
// size of a table event ("table") or of a delta ("delta").
func BenchmarkFanoutFloor(b *testing.B) {
	b.Run("table", func(b *testing.B) { benchFloor(b, "table", 10499) })
	b.Run("delta", func(b *testing.B) { benchFloor(b, "delta", 507) })
}

func benchFloor(b *testing.B, event string, size int) {
	f := newFloorBench(b, event, b.N)
	b.ResetTimer()
	w := f.window(b.N, size)
	b.StopTimer()
	w.report(b, "")
}

// BenchmarkFanoutPairs sets the fan-out against its floor in one run:
// the server's streams and the floor's sockets are opened side by side,
// then three pairs of windows of b.N changes, floor and fan-out, the
// order alternating, so a machine whose load changes weighs on both. The
// floor's frames are as large as the fan-out's events were in a first
// window, not counted, that warms both up. Each pair also times b.N saves
// of a table no stream follows: the fan-out's CPU holds its board saves
// (a save is about a millisecond, a microsecond a delivery at 1,000
// streams), which the floor has no counterpart of. Reported: the median
// over the pairs of the fan-out's p99 and CPU per delivery as a multiple
// of the floor's (cpu-ratio; cpu-ratio-less-save without the saves), and
// the median of each side's own figures.
func BenchmarkFanoutPairs(b *testing.B) {
	b.Run("table", func(b *testing.B) { benchPairs(b, "") })
	b.Run("delta", func(b *testing.B) { benchPairs(b, "?deltas=1") })
}

func benchPairs(b *testing.B, query string) {
	const pairs = 3
	warm := min(b.N, 5)
	fan := newFanoutBench(b, query, warm+pairs*b.N)
	event := "table"
	if query != "" {
		event = "delta"
	}
	floor := newFloorBench(b, event, warm+pairs*b.N)
	w := fan.window(warm)
	size := w.bytes / len(w.latencies)
	floor.window(warm, size)
	b.ResetTimer()
	var fans, floors []fanWindow
	var saves []time.Duration
	for i := range pairs {
		if i%2 == 0 {
			floors = append(floors, floor.window(b.N, size))
		}
		fans = append(fans, fan.window(b.N))
		saves = append(saves, fan.saves(b.N))
		if i%2 == 1 {
			floors = append(floors, floor.window(b.N, size))
		}
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	us := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
	streams := time.Duration(fan.rs.want)
	median := func(f func(i int) float64) float64 {
		var v []float64
		for i := range pairs {
			v = append(v, f(i))
		}
		slices.Sort(v)
		return v[pairs/2]
	}
	for i, f := range fans {
		b.Logf("pair %d: p99 %.1f / %.1f ms, server CPU %.2f / %.2f µs per delivery (a save alone %.0f µs), clients %.2f / %.2f µs",
			i+1, ms(f.pct(0.99)), ms(floors[i].pct(0.99)), us(f.serverCPU()), us(floors[i].serverCPU()), us(saves[i]),
			us(f.client/time.Duration(len(f.latencies))), us(floors[i].client/time.Duration(len(floors[i].latencies))))
	}
	b.ReportMetric(median(func(i int) float64 { return float64(fans[i].pct(0.99)) / float64(floors[i].pct(0.99)) }), "p99-ratio")
	b.ReportMetric(median(func(i int) float64 { return float64(fans[i].serverCPU()) / float64(floors[i].serverCPU()) }), "cpu-ratio")
	b.ReportMetric(median(func(i int) float64 {
		return float64(fans[i].serverCPU()-saves[i]/streams) / float64(floors[i].serverCPU())
	}), "cpu-ratio-less-save")
	b.ReportMetric(median(func(i int) float64 { return ms(fans[i].pct(0.99)) }), "p99-ms")
	b.ReportMetric(median(func(i int) float64 { return ms(floors[i].pct(0.99)) }), "floor-p99-ms")
	b.ReportMetric(median(func(i int) float64 { return us(fans[i].serverCPU()) }), "cpu-µs/delivery")
	b.ReportMetric(median(func(i int) float64 { return us(floors[i].serverCPU()) }), "floor-cpu-µs/delivery")
	b.ReportMetric(median(func(i int) float64 { return us(fans[i].client / time.Duration(len(fans[i].latencies))) }), "client-cpu-µs/delivery")
	b.ReportMetric(median(func(i int) float64 { return us(saves[i]) }), "save-cpu-µs")
	b.ReportMetric(float64(size), "event-bytes")
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

package api

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"insectscore/api/live"
)

// waitGauge waits until the open streams gauge reads want.
func waitGauge(t *testing.T, m *Metrics, want float64) {
	t.Helper()
	deadline := time.Now().Add(3 * eventWait)
	for gaugeValue(t, m, "insectscore_event_streams_open") != want {
		if time.Now().After(deadline) {
			t.Fatalf("open streams %v, want %v", gaugeValue(t, m, "insectscore_event_streams_open"), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stuckStream opens a table's event stream over a socket with a small
// receive buffer and never reads it.
func stuckStream(t *testing.T, base, code string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		if cerr := c.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096)
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	conn, err := d.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if _, err := io.WriteString(conn, "GET /api/v1/tables/"+code+"/events HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	return conn
}

// TestEventsSlowClientIsolated: a client that stops reading holds up no
// other stream of its table: while its socket is full, the others get
// every change, and it is closed once a write to it has waited
// StreamWriteWait. What it had read by then is whole frames, but for the
// last, cut where the write gave up.
func TestEventsSlowClientIsolated(t *testing.T) {
	m := NewMetrics()
	_, base := serveLive(t, Config{Metrics: m, StreamWriteWait: 8 * time.Second})
	ct, host, board := fullInsectaTable(t, base)
	good := openEvents(t, base, ct.Code, "")
	wantRetry(t, good)
	if id, _ := nextTable(t, good); idVersion(id) != "5" {
		t.Fatalf("first event id %s, want 5", id)
	}
	stuck := stuckStream(t, base, ct.Code)
	waitGauge(t, m, 2)

	// About 11 KB a change: a dozen fill the stuck stream's socket (its
	// send buffer of 128 KB and a receive buffer of 8 KB).
	for i := range 20 {
		mustHTTP(t, "PUT", base+boardPath(ct.Code, i%4), board(i%4, 11+i), host, 200)
		if id, v := nextTable(t, good); idVersion(id) != strconv.Itoa(6+i) || v.Version != 6+i {
			t.Fatalf("change %d: event id %s version %d, want %d", i, id, v.Version, 6+i)
		}
	}
	// Had a change waited for the stuck stream, it would be closed by now:
	// the good stream's events would have come only after its write gave up.
	if got := gaugeValue(t, m, "insectscore_event_streams_open"); got != 2 {
		t.Fatalf("open streams %v once the good stream had every change, want 2: the stuck one held it up", got)
	}
	waitGauge(t, m, 1)
	// The server closed it: reading now gets what was sent, then the end.
	_ = stuck.SetReadDeadline(time.Now().Add(eventWait))
	got, err := io.ReadAll(stuck)
	if err != nil {
		t.Fatalf("the stuck stream after its close: %v, want the end of the stream", err)
	}
	head, body, ok := bytes.Cut(got, []byte("\r\n\r\n"))
	if !ok || !bytes.HasPrefix(head, []byte("HTTP/1.1 200 ")) {
		t.Fatalf("the stuck stream read %.60q", got)
	}
	// The last frame may stop short where the write gave up: a client
	// drops an event it has not read whole.
	blocks := strings.Split(string(body), "\n\n")
	tables := 0
	for _, b := range blocks[:len(blocks)-1] {
		if !strings.HasPrefix(b, "retry: ") && !strings.HasPrefix(b, "id: ") {
			t.Errorf("the stuck stream read a block %.60q", b)
		}
		if strings.Contains(b, "event: table\ndata: {") && strings.HasSuffix(b, "}") {
			tables++
		}
	}
	if tables < 2 || tables > 20 {
		t.Errorf("the stuck stream got %d tables before it was closed", tables)
	}
	// The good stream goes on.
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), board(0, 99), host, 200)
	if id, _ := nextTable(t, good); idVersion(id) != "26" {
		t.Fatalf("after the stuck stream went: event id %s, want 26", id)
	}
}

// TestEventsManyStreams: with enough streams on a table that several
// goroutines write a change, every stream gets every change once and in
// order, including while streams come and go.
func TestEventsManyStreams(t *testing.T) {
	const n = 2*live.FanoutChunk + 1
	m := NewMetrics()
	// Heartbeats find the streams that went.
	_, base := serveLive(t, Config{Metrics: m, MaxStreamsPerClient: 2 * n, MaxStreams: 2 * n, Heartbeat: 50 * time.Millisecond})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insecta", "players": ["Ana", "Ben"]}`, nil, 201))
	host := bearer(ct.HostToken)
	type open struct {
		ch     <-chan sseBlock
		cancel context.CancelFunc
	}
	streams := make([]*open, n)
	for i := range streams {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/tables/"+ct.Code+"/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		ch := make(chan sseBlock, 8)
		go func() {
			defer close(ch)
			rd := bytes.NewBuffer(nil)
			buf := make([]byte, 32<<10)
			for {
				k, err := resp.Body.Read(buf)
				rd.Write(buf[:k])
				for {
					block, rest, ok := bytes.Cut(rd.Bytes(), []byte("\n\n"))
					if !ok {
						break
					}
					var b sseBlock
					for line := range strings.SplitSeq(string(block), "\n") {
						field, value, _ := strings.Cut(line, ": ")
						switch field {
						case "id":
							b.id = value
						case "event":
							b.event = value
						}
					}
					rd = bytes.NewBuffer(append([]byte(nil), rest...))
					if b.event != "" {
						ch <- b
					}
				}
				if err != nil {
					return
				}
			}
		}()
		streams[i] = &open{ch, cancel}
	}
	waitGauge(t, m, n)
	want := func(i, version int) {
		t.Helper()
		if b := nextBlock(t, streams[i].ch); b.event != "table" || idVersion(b.id) != strconv.Itoa(version) {
			t.Fatalf("stream %d: event %q id %s, want the table at %d", i, b.event, b.id, version)
		}
	}
	for i := range streams {
		want(i, 1)
	}
	for v := 2; v <= 4; v++ {
		mustHTTP(t, "PUT", base+boardPath(ct.Code, v%2), `{"track": `+strconv.Itoa(v)+`}`, host, 200)
		for i := range streams {
			want(i, v)
		}
		// Every third stream goes after each change.
		for i := 0; i < len(streams); i += 3 {
			streams[i].cancel()
			streams[i] = nil
		}
		streams = slices.DeleteFunc(streams, func(o *open) bool { return o == nil })
	}
	waitGauge(t, m, float64(len(streams)))
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), `{"track": 9}`, host, 200)
	for i := range streams {
		want(i, 5)
	}
}

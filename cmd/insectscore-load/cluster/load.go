package cluster

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Load says what to run against a cluster.
type Load struct {
	// Tables, StreamsPerTable: how many tables, and event streams open on
	// each (the phones following it).
	Tables, StreamsPerTable int
	// WritesPerSecond is the rate of board writes, each to a random
	// table's random seat, open loop.
	WritesPerSecond float64
	// Steady is how long writes run before anything is disturbed;
	// Phase, how long each later phase lasts.
	Steady, Phase time.Duration
	// Kill kills the last replica (kill -9) after Steady, and starts it
	// again after another Phase; once it is ready, Join more streams (a
	// share of StreamsPerTable×Tables) open, as phones that join do.
	Kill bool
	Join float64
	// Disrupt, when set, is run after the kill's phases (or after
	// Steady): it takes the database away for a while (a PostgreSQL
	// restart, its connections ended) and returns when it is back.
	Disrupt func(context.Context) error
	// Logf reports progress; nil for none.
	Logf func(format string, args ...any)
}

// Report is what a load found.
type Report struct {
	Tables, Streams int
	// Writes is how many board writes were acknowledged, over Seconds of
	// writing; Unfinished, how many got no answer in the end.
	Writes, Unfinished int
	Seconds            float64
	// Phases are the delivery figures of the writes sent in each phase.
	Phases []Phase
	// Statuses counts every answer the writes, the setup and the streams
	// got, by status; NoRetryAfter counts 503s without Retry-After.
	Statuses     map[int]int
	NoRetryAfter int
	// ServerErrors is the 5xx answers but the 503s with Retry-After (the
	// database away), and the balancer's 502s when no replica answered.
	ServerErrors int
	// Lost counts streams that never saw a version acknowledged on their
	// table (nor any later one); Backwards, streams that went back to an
	// earlier version.
	Lost, Backwards int
	// Reconnects are how long the streams that broke took to be open
	// again through the balancer (from the break to the new 200),
	// ReconnectTries the failed attempts among them.
	Reconnects     []time.Duration
	ReconnectTries int
	// Stored checks the acknowledged writes against the database: the
	// tables whose version is below one acknowledged, or a seat whose
	// board is not the last acknowledged (StoredBad); KilledAcked, the
	// writes the killed replica acknowledged.
	StoredChecked, StoredBad, KilledAcked int
	// Restart is what /readyz said while the killed replica started
	// again; after it, the requests and streams it took.
	Restart                       Readiness
	AfterRestartRequests          int64
	AfterRestartStreams           int64
	AfterRestartShare             float64
	Killed                        string
	Disrupted                     time.Duration
	FirstUnavailable, LastUnavail time.Duration
	Unavailable                   int
	Retried, BalancerFailed       int64
	// Breaks counts why streams ended or did not open, by error.
	Breaks map[string]int
	// BalancerErrors are the balancer's transport errors, by replica,
	// method and error.
	BalancerErrors map[string]int
	PerReplica     map[string][2]int64
}

// Phase is the delivery of the writes sent in one phase: from the
// write's sending (Send) and from its acknowledgement (Ack) until every
// stream of its table had that version or a later one.
type Phase struct {
	Name               string
	Writes             int
	Send, Ack          Quantiles
	WriteP50, WriteP99 time.Duration
	// CrossReplica counts the deliveries to a stream on another replica
	// than the one that acknowledged the write; Same and Cross are each
	// stream's delivery from the acknowledgement, on the replica that
	// acknowledged the write and on another.
	CrossReplica int
	Same, Cross  Quantiles
}

// Quantiles are a latency's p50, p99 and maximum.
type Quantiles struct{ P50, P99, Max time.Duration }

// QuantilesOf is the median, 99th percentile and maximum of d (zero when
// d is empty); d is left as it is.
func QuantilesOf(d []time.Duration) Quantiles {
	if len(d) == 0 {
		return Quantiles{}
	}
	d = slices.Clone(d)
	slices.Sort(d)
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return Quantiles{at(0.50), at(0.99), d[len(d)-1]}
}

type table struct {
	i       int
	code    string
	tokens  []string
	streams []*stream
	mu      sync.Mutex
	writes  []*write
}

type write struct {
	seat           int
	board          []byte
	phase          int
	sentAt, ackAt  time.Time
	version        int
	backend        string
	acked, unknown bool
	// unanswered says some try got no answer: it may have been saved
	// later, even after the write was acknowledged on another try.
	unanswered bool
}

type sample struct {
	version int
	at      time.Time
}

type stream struct {
	t    *table
	addr string
	// late says the stream opens after the restart, and opened when.
	late   bool
	opened time.Time
	mu     sync.Mutex
	// samples are the versions it saw, the first time it saw each.
	samples   []sample
	backwards bool
	backend   string
	lastID    string
}

// run is one load in progress.
type run struct {
	c        *Cluster
	l        Load
	tables   []*table
	client   *http.Client
	sclient  *http.Client
	phase    atomic.Int32
	phases   []string
	mu       sync.Mutex
	statuses map[int]int
	noRetry  int
	reconn   []time.Duration
	tries    int
	unavail  []time.Time
	breaks   map[string]int
	logf     func(string, ...any)
}

func (r *run) broke(why string) {
	r.mu.Lock()
	r.breaks[why]++
	r.mu.Unlock()
}

// Run runs l against c and reports what it found.
func Run(ctx context.Context, c *Cluster, l Load) (*Report, error) {
	r := &run{c: c, l: l, statuses: map[int]int{}, breaks: map[string]int{}, logf: l.Logf}
	if r.logf == nil {
		r.logf = func(string, ...any) {}
	}
	r.client = &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 512, MaxConnsPerHost: 512}}
	r.sclient = &http.Client{Transport: &http.Transport{DisableCompression: true, MaxIdleConnsPerHost: -1,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext}}
	defer r.client.CloseIdleConnections()
	if err := r.setup(ctx); err != nil {
		return nil, err
	}
	sctx, stopStreams := context.WithCancel(ctx)
	var swg sync.WaitGroup
	for _, t := range r.tables {
		for _, s := range t.streams {
			if !s.late {
				swg.Add(1)
				go func() { defer swg.Done(); r.follow(sctx, s) }()
			}
		}
	}
	defer func() { stopStreams(); swg.Wait() }()
	if err := r.waitStreams(ctx, 60*time.Second); err != nil {
		return nil, err
	}
	r.logf("%d streams open on %d tables", len(r.tables)*l.StreamsPerTable, len(r.tables))

	rep := &Report{Tables: len(r.tables)}
	for _, t := range r.tables {
		rep.Streams += len(t.streams)
	}
	wctx, stopWrites := context.WithCancel(ctx)
	defer stopWrites()
	var wwg sync.WaitGroup
	wwg.Add(1)
	began := time.Now()
	go func() { defer wwg.Done(); r.writes(wctx, &wwg) }()

	r.enter("steady")
	sleep(ctx, l.Steady)
	var killed *Replica
	if l.Kill && len(c.Replicas) > 1 {
		killed = c.Replicas[len(c.Replicas)-1]
		rep.Killed = killed.Name
		r.enter("killed")
		r.logf("kill -9 %s", killed.Name)
		killed.Kill()
		sleep(ctx, l.Phase)
		r.enter("restarted")
		r.logf("restart %s", killed.Name)
		if err := killed.Start(); err != nil {
			return nil, err
		}
		ready, err := killed.WaitReady(ctx, 2*time.Minute)
		if err != nil {
			return nil, err
		}
		rep.Restart = ready
		be := r.backend(killed.Name)
		for !be.Up() && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		reqs0, streams0 := be.Requests.Load(), be.Streams.Load()
		total0 := r.totalRequests()
		late := 0
		for _, t := range r.tables {
			for _, s := range t.streams {
				if s.late {
					late++
					swg.Add(1)
					go func() { defer swg.Done(); r.follow(sctx, s) }()
				}
			}
		}
		r.logf("%d more streams open", late)
		sleep(ctx, l.Phase)
		rep.AfterRestartRequests = be.Requests.Load() - reqs0
		rep.AfterRestartStreams = be.Streams.Load() - streams0
		if n := r.totalRequests() - total0; n > 0 {
			rep.AfterRestartShare = float64(rep.AfterRestartRequests) / float64(n)
		}
	}
	if l.Disrupt != nil {
		r.enter("database away")
		start := time.Now()
		if err := l.Disrupt(ctx); err != nil {
			return nil, err
		}
		rep.Disrupted = time.Since(start)
		r.enter("database back")
		sleep(ctx, l.Phase)
		r.mu.Lock()
		if len(r.unavail) > 0 {
			rep.FirstUnavailable, rep.LastUnavail = r.unavail[0].Sub(start), r.unavail[len(r.unavail)-1].Sub(start)
			rep.Unavailable = len(r.unavail)
		}
		r.mu.Unlock()
	}
	stopWrites()
	wwg.Wait()
	rep.Seconds = time.Since(began).Seconds()
	r.logf("writes stopped; checking")

	final, err := r.finals(ctx)
	if err != nil {
		return nil, err
	}
	r.waitFinal(ctx, final, 15*time.Second)
	r.report(rep, final, killed)
	return rep, nil
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func (r *run) enter(name string) {
	r.mu.Lock()
	r.phases = append(r.phases, name)
	r.phase.Store(int32(len(r.phases) - 1))
	r.mu.Unlock()
}

func (r *run) backend(name string) *Backend {
	for _, be := range r.c.Balancer.Backends() {
		if be.Name == name {
			return be
		}
	}
	return nil
}

func (r *run) totalRequests() int64 {
	var n int64
	for _, be := range r.c.Balancer.Backends() {
		n += be.Requests.Load()
	}
	return n
}

func (r *run) count(status int, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.statuses[status]++
	if status == http.StatusServiceUnavailable {
		if h.Get("Retry-After") == "" {
			r.noRetry++
		}
		r.unavail = append(r.unavail, time.Now())
	}
}

// phoneAddr is the address of phone k at table i: each phone its own, as
// the X-Forwarded-For the balancer passes on.
func phoneAddr(i, k int) string {
	return fmt.Sprintf("10.%d.%d.%d", i>>8&255, i&255, k+1)
}

// call makes one API request through the balancer as the phone at addr.
func (r *run) call(ctx context.Context, method, path, addr, token string, body []byte, out any) (int, http.Header, error) {
	req, err := http.NewRequestWithContext(ctx, method, r.c.Balancer.URL+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", addr)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	r.count(resp.StatusCode, resp.Header)
	if resp.StatusCode < 300 && out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return 0, nil, fmt.Errorf("%s %s: %w: %s", method, path, err, b)
		}
	}
	if resp.StatusCode >= 300 {
		return resp.StatusCode, resp.Header, fmt.Errorf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
	return resp.StatusCode, resp.Header, nil
}

// setup starts the tables as phones would: the host creates one for two
// players, each player's phone claims its seat, and a third joins.
func (r *run) setup(ctx context.Context) error {
	r.tables = make([]*table, r.l.Tables)
	errs := make(chan error, r.l.Tables)
	sem := make(chan struct{}, 16)
	for i := range r.tables {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			t, err := r.start(ctx, i)
			r.tables[i] = t
			errs <- err
		}()
	}
	for range r.tables {
		if err := <-errs; err != nil {
			return err
		}
	}
	for _, t := range r.tables {
		for k := range r.l.StreamsPerTable {
			t.streams = append(t.streams, &stream{t: t, addr: phoneAddr(t.i, k)})
		}
	}
	if r.l.Kill {
		// The phones that join after the restart, spread over the tables.
		n := int(r.l.Join * float64(len(r.tables)*r.l.StreamsPerTable))
		for j := range n {
			t := r.tables[j*len(r.tables)/max(n, 1)]
			t.streams = append(t.streams, &stream{t: t, addr: phoneAddr(t.i, len(t.streams)), late: true})
		}
	}
	r.logf("%d tables started", len(r.tables))
	return nil
}

func (r *run) start(ctx context.Context, i int) (*table, error) {
	var created struct{ Code, HostToken string }
	if _, _, err := r.call(ctx, "POST", "/api/v1/tables", phoneAddr(i, 0), "", []byte(`{"game":"insektenhotel","players":["Ana","Ben"]}`), &created); err != nil {
		return nil, err
	}
	t := &table{i: i, code: created.Code}
	for seat := range 2 {
		var claimed struct{ SeatToken string }
		if _, _, err := r.call(ctx, "POST", fmt.Sprintf("/api/v1/tables/%s/seats/%d/claim", t.code, seat), phoneAddr(i, seat), "", nil, &claimed); err != nil {
			return nil, err
		}
		t.tokens = append(t.tokens, claimed.SeatToken)
	}
	var joined struct{ SeatToken string }
	if _, _, err := r.call(ctx, "POST", "/api/v1/tables/"+t.code+"/seats", phoneAddr(i, 2), "", []byte(`{"name":"Cy"}`), &joined); err != nil {
		return nil, err
	}
	t.tokens = append(t.tokens, joined.SeatToken)
	return t, nil
}

var species = []string{"bee", "ant", "fly", "ladybird", "butterfly", "earwig", "beetle"}

// board is a legal Insektenhotel board, different most times.
func board(rnd *rand.Rand) []byte {
	colours := []string{"blue", "red", "green", "yellow"}
	var b strings.Builder
	fmt.Fprintf(&b, `{"hotel":%q,"floors":[`, colours[rnd.IntN(len(colours))])
	for f := range 1 + rnd.IntN(4) {
		if f > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"species":%q,"guests":%d}`, species[rnd.IntN(len(species))], rnd.IntN(3))
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// writes sends board writes at the load's rate until ctx ends, each in
// its own goroutine (open loop).
func (r *run) writes(ctx context.Context, wg *sync.WaitGroup) {
	every := time.Duration(float64(time.Second) / r.l.WritesPerSecond)
	next := time.Now()
	rnd := rand.New(rand.NewPCG(1, 2))
	for {
		next = next.Add(every)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Until(next)):
		}
		t := r.tables[rnd.IntN(len(r.tables))]
		w := &write{seat: rnd.IntN(len(t.tokens)), board: board(rnd), phase: int(r.phase.Load())}
		t.mu.Lock()
		t.writes = append(t.writes, w)
		t.mu.Unlock()
		wg.Add(1)
		go func() { defer wg.Done(); r.write(t, w) }()
	}
}

// write sends one board write until it is acknowledged, as the app's
// outbox does: a 503 or 429 again after its Retry-After, no answer again
// after half a second; it gives up after a minute.
func (r *run) write(t *table, w *write) {
	path := fmt.Sprintf("/api/v1/tables/%s/seats/%d/board", t.code, w.seat)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	w.sentAt = time.Now()
	for {
		var ans struct{ Version int }
		status, h, err := r.call(ctx, "PUT", path, phoneAddr(t.i, w.seat), t.tokens[w.seat], w.board, &ans)
		t.mu.Lock()
		if err == nil {
			w.acked, w.unknown, w.version, w.ackAt, w.backend = true, false, ans.Version, time.Now(), h.Get(BackendHeader)
			t.mu.Unlock()
			return
		}
		// No answer, or one that may have come after the write was
		// done: its outcome is not known.
		w.unknown = status == 0 || status >= 500
		w.unanswered = w.unanswered || status == 0 || status == http.StatusBadGateway
		t.mu.Unlock()
		wait := 500 * time.Millisecond
		if s, _ := strconv.Atoi(h.Get("Retry-After")); s > 0 {
			wait = time.Duration(s) * time.Second
		}
		if status != 0 && status < 500 && status != 429 {
			return // refused: a bug of the load, seen in Statuses
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// follow keeps one event stream open through the balancer, as the app's
// EventSource does: after a break it waits the stream's retry time and
// opens it again with Last-Event-ID.
func (r *run) follow(ctx context.Context, s *stream) {
	retry := 2 * time.Second
	var broke time.Time
	for ctx.Err() == nil {
		ok := r.open(ctx, s, &retry, &broke)
		if ctx.Err() != nil {
			return
		}
		if !ok {
			r.mu.Lock()
			r.tries++
			r.mu.Unlock()
		}
		if broke.IsZero() {
			broke = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(retry):
		}
	}
}

// open opens the stream once and reads it until it breaks; false when it
// did not open.
func (r *run) open(ctx context.Context, s *stream, retry *time.Duration, broke *time.Time) bool {
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(rctx, "GET", r.c.Balancer.URL+"/api/v1/tables/"+s.t.code+"/events?deltas=1", nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("X-Forwarded-For", s.addr)
	s.mu.Lock()
	if s.lastID != "" {
		req.Header.Set("Last-Event-ID", s.lastID)
	}
	s.mu.Unlock()
	resp, err := r.sclient.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			r.broke("open: " + err.Error())
		}
		return false
	}
	defer resp.Body.Close()
	r.count(resp.StatusCode, resp.Header)
	if resp.StatusCode != http.StatusOK {
		r.broke("open: " + resp.Status)
		return false
	}
	if !broke.IsZero() {
		r.mu.Lock()
		r.reconn = append(r.reconn, time.Since(*broke))
		r.mu.Unlock()
		*broke = time.Time{}
	}
	s.mu.Lock()
	s.backend = resp.Header.Get(BackendHeader)
	if s.opened.IsZero() {
		s.opened = time.Now()
	}
	s.mu.Unlock()
	lines := bufio.NewReaderSize(resp.Body, 64<<10)
	for {
		line, err := lines.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = lines.ReadSlice('\n')
			}
			continue
		}
		if err != nil {
			if ctx.Err() == nil {
				r.broke("read: " + err.Error())
			}
			return true
		}
		switch {
		case bytes.HasPrefix(line, []byte("id: ")):
			id := string(bytes.TrimSpace(line[4:]))
			v, _, _ := strings.Cut(id, ".")
			version, _ := strconv.Atoi(v)
			now := time.Now()
			s.mu.Lock()
			s.lastID = id
			if n := len(s.samples); n == 0 || version > s.samples[n-1].version {
				s.samples = append(s.samples, sample{version, now})
			} else if version < s.samples[n-1].version {
				s.backwards = true
			}
			s.mu.Unlock()
		case bytes.HasPrefix(line, []byte("retry: ")):
			if ms, err := strconv.Atoi(string(bytes.TrimSpace(line[7:]))); err == nil {
				*retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

func (s *stream) last() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.samples) == 0 {
		return -1
	}
	return s.samples[len(s.samples)-1].version
}

// waitStreams waits until every stream has had its first event.
func (r *run) waitStreams(ctx context.Context, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		missing := 0
		for _, t := range r.tables {
			for _, s := range t.streams {
				if !s.late && s.last() < 0 {
					missing++
				}
			}
		}
		if missing == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%d streams did not open within %s", missing, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type finalTable struct {
	Version int
	Seats   []struct {
		Board json.RawMessage
	}
}

// finals reads every table as it is stored, through the balancer.
func (r *run) finals(ctx context.Context) ([]finalTable, error) {
	out := make([]finalTable, len(r.tables))
	for i, t := range r.tables {
		if _, _, err := r.call(ctx, "GET", "/api/v1/tables/"+t.code, phoneAddr(t.i, 0), "", nil, &out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// waitFinal waits until every stream holds its table's stored version.
func (r *run) waitFinal(ctx context.Context, final []finalTable, within time.Duration) {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		behind := 0
		for i, t := range r.tables {
			for _, s := range t.streams {
				if s.last() < final[i].Version {
					behind++
				}
			}
		}
		if behind == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *run) report(rep *Report, final []finalTable, killed *Replica) {
	type lat struct{ send, ack, write, same, cross []time.Duration }
	lats := make([]lat, len(r.phases))
	phases := make([]Phase, len(r.phases))
	for i, t := range r.tables {
		t.mu.Lock()
		for _, s := range t.streams {
			s.mu.Lock()
			if s.backwards {
				rep.Backwards++
			}
			if n := len(s.samples); n == 0 || s.samples[n-1].version < final[i].Version {
				rep.Lost++
			}
		}
		maxAcked := 0
		lastBySeat := map[int]*write{}
		for _, w := range t.writes {
			if !w.acked {
				if w.unknown {
					rep.Unfinished++
				}
				continue
			}
			rep.Writes++
			if killed != nil && w.backend == killed.Name {
				rep.KilledAcked++
			}
			maxAcked = max(maxAcked, w.version)
			if l := lastBySeat[w.seat]; l == nil || w.version > l.version {
				lastBySeat[w.seat] = w
			}
			p := &phases[w.phase]
			p.Writes++
			var seen time.Time
			for _, s := range t.streams {
				if s.late && (s.opened.IsZero() || s.opened.After(w.sentAt)) {
					continue // it joined later, and had the table whole
				}
				k, _ := slices.BinarySearchFunc(s.samples, w.version, func(a sample, v int) int { return a.version - v })
				if k == len(s.samples) {
					seen = time.Time{}
					break
				}
				at := s.samples[k].at
				if at.After(seen) {
					seen = at
				}
				if s.backend != w.backend {
					p.CrossReplica++
					lats[w.phase].cross = append(lats[w.phase].cross, max(0, at.Sub(w.ackAt)))
				} else {
					lats[w.phase].same = append(lats[w.phase].same, max(0, at.Sub(w.ackAt)))
				}
			}
			if seen.IsZero() {
				continue // counted in Lost: the stream is behind the stored version
			}
			lats[w.phase].send = append(lats[w.phase].send, seen.Sub(w.sentAt))
			lats[w.phase].ack = append(lats[w.phase].ack, max(0, seen.Sub(w.ackAt)))
			lats[w.phase].write = append(lats[w.phase].write, w.ackAt.Sub(w.sentAt))
		}
		for _, s := range t.streams {
			s.mu.Unlock()
		}
		// What was acknowledged is stored: the table's version, and each
		// seat's last acknowledged board, unless the board is that of a
		// write to the seat whose outcome is not known (no answer came:
		// it may have been saved after the last acknowledged one).
		rep.StoredChecked++
		bad := final[i].Version < maxAcked
		for seat, w := range lastBySeat {
			if seat >= len(final[i].Seats) || sameJSON(final[i].Seats[seat].Board, w.board) {
				continue
			}
			unknown := false
			for _, o := range t.writes {
				unknown = unknown || o.seat == seat && (o.unknown || o.unanswered) && sameJSON(final[i].Seats[seat].Board, o.board)
			}
			bad = bad || !unknown
		}
		if bad {
			rep.StoredBad++
		}
		t.mu.Unlock()
	}
	for i := range phases {
		phases[i].Name = r.phases[i]
		phases[i].Send, phases[i].Ack = QuantilesOf(lats[i].send), QuantilesOf(lats[i].ack)
		phases[i].Same, phases[i].Cross = QuantilesOf(lats[i].same), QuantilesOf(lats[i].cross)
		q := QuantilesOf(lats[i].write)
		phases[i].WriteP50, phases[i].WriteP99 = q.P50, q.P99
	}
	rep.Phases = phases
	r.mu.Lock()
	rep.Statuses, rep.NoRetryAfter, rep.Reconnects, rep.ReconnectTries = r.statuses, r.noRetry, r.reconn, r.tries
	rep.Breaks = r.breaks
	r.mu.Unlock()
	for status, n := range rep.Statuses {
		if status >= 500 && status != http.StatusServiceUnavailable {
			rep.ServerErrors += n
		}
	}
	rep.ServerErrors += rep.NoRetryAfter
	rep.Retried, rep.BalancerFailed = r.c.Balancer.Retried.Load(), r.c.Balancer.Failed.Load()
	r.c.Balancer.errMu.Lock()
	rep.BalancerErrors = maps.Clone(r.c.Balancer.Errors)
	r.c.Balancer.errMu.Unlock()
	rep.PerReplica = map[string][2]int64{}
	for _, be := range r.c.Balancer.Backends() {
		rep.PerReplica[be.Name] = [2]int64{be.Requests.Load(), be.Streams.Load()}
	}
}

func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

// MaxDelivery is the goal for delivery at p99 while nothing is disturbed,
// and MaxReconnect, for a stream to be open again after its replica died.
const (
	MaxDelivery  = 100 * time.Millisecond
	MaxReconnect = 5 * time.Second
)

// Failures are the goals the run missed, in words; none when it passed.
func (rep *Report) Failures() []string {
	var f []string
	add := func(ok bool, format string, a ...any) {
		if !ok {
			f = append(f, fmt.Sprintf(format, a...))
		}
	}
	add(rep.Lost == 0, "%d streams missed a version", rep.Lost)
	add(rep.Backwards == 0, "%d streams went back to an earlier version", rep.Backwards)
	add(rep.ServerErrors == 0, "%d answers were 5xx (other than 503 with Retry-After)", rep.ServerErrors)
	add(rep.StoredBad == 0, "%d tables do not hold what was acknowledged", rep.StoredBad)
	add(rep.Unfinished == 0, "%d writes were never acknowledged", rep.Unfinished)
	if len(rep.Phases) > 0 {
		p := rep.Phases[0]
		add(p.Writes > 0 && p.Send.P99 <= MaxDelivery, "delivery p99 %s while nothing was disturbed, over %s", p.Send.P99, MaxDelivery)
	}
	for _, d := range rep.Reconnects {
		if d > MaxReconnect {
			f = append(f, fmt.Sprintf("a stream took %s to reconnect, over %s", d, MaxReconnect))
			break
		}
	}
	if rep.Killed != "" {
		add(rep.AfterRestartRequests > 0 && rep.AfterRestartStreams > 0, "the restarted replica took %d requests and %d streams",
			rep.AfterRestartRequests, rep.AfterRestartStreams)
	}
	return f
}

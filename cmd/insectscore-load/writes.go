//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/mattn/go-sqlite3"
	"github.com/valyala/fasthttp"

	"insectscore/cmd/insectscore-load/cluster"
	"insectscore/models"
)

// The "writes" load: board PUTs over TCP from many writers to tables made
// through the API, against the database's own floor, measured in the same
// run: on PostgreSQL pgbench running a transaction of PutBoard's shape (the
// table's lock, the read of the table with its seats, the one write) on
// the server's own tables; on SQLite a plain Go loop of that transaction
// on the server's own file.
//
//	go run ./cmd/insectscore-load writes -db "$INSECTSCORE_TEST_POSTGRES" -rounds 3
//
// Each round runs the floor, then for each server a saturated run (every
// writer sends its next PUT when the last is answered) and a paced run at
// a third of the floor's rate, whose latencies are measured from when each
// PUT was due, so a server that falls behind shows it. -server takes
// several binaries (label=path, comma-separated) to compare builds
// interleaved in one run.

func init() {
	register("writes", "board PUTs over TCP from many writers, against the database's floor (pgbench; a Go loop on SQLite)", func(args []string) error {
		_, err := writes(args, os.Stdout)
		return err
	})
}

//go:embed testdata/writes-board.json
var writesBoard []byte

type writesConfig struct {
	db                     string
	servers, target        string
	pid                    int
	tables, writers        int
	floorClients, rounds   int
	duration, warmup       time.Duration
	rate                   float64
	floor, third           bool
	pgbench, goBuildTarget string
}

// writesRun is one measured run of a server, or of the floor.
type writesRun struct {
	Round  int
	Label  string // the server's label, or "floor"
	PG     bool   // on PostgreSQL
	Paced  float64
	Writes int
	Rate   float64 // writes (or transactions) a second
	P50    time.Duration
	P99    time.Duration
	Max    time.Duration
	// Statuses counts the answers other than 200; Failed the PUTs with
	// no answer.
	Statuses map[int]int
	Failed   int
	// CPU in cores over the run: the server's process, PostgreSQL's
	// processes, this tool's own.
	ServerCPU, PGCPU, ToolCPU float64
	// The write pool's waits over the run, from the server's /metrics.
	Wait  time.Duration
	Waits int64
}

func writes(args []string, out io.Writer) ([]writesRun, error) {
	fs := flag.NewFlagSet("writes", flag.ContinueOnError)
	var c writesConfig
	fs.StringVar(&c.db, "db", "", "the database: a postgres:// URL (each server gets a schema of its own there) or, with -target, the server's SQLite file; empty: a SQLite file in a temporary directory")
	fs.StringVar(&c.servers, "server", "", "insectscore binaries to start, label=path, comma-separated (they take turns in each round); empty: build ./cmd/insectscore")
	fs.StringVar(&c.target, "target", "", "a running server's URL (loopback only) instead of starting one; with more than 60 tables it must trust 127.0.0.1 as a proxy")
	fs.IntVar(&c.pid, "pid", 0, "with -target, the server's process id, for its CPU")
	fs.IntVar(&c.tables, "tables", 250, "tables, each with three seats: the host writes seat 0, seats 1 and 2 their own")
	fs.IntVar(&c.writers, "writers", 32, "concurrent writers, each on a connection of its own")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how long each run is measured")
	fs.DurationVar(&c.warmup, "warmup", time.Second, "load before each run is measured")
	fs.Float64Var(&c.rate, "rate", 0, "PUTs a second, paced, instead of the saturated run (0: saturated)")
	fs.BoolVar(&c.floor, "floor", true, "measure the database's floor in each round")
	fs.BoolVar(&c.third, "third", true, "with the floor, also a run paced at a third of its rate")
	fs.IntVar(&c.floorClients, "floor-clients", models.PostgresPool, "pgbench's clients: as many as the server's pool holds")
	fs.IntVar(&c.rounds, "rounds", 1, "rounds, each the floor and every server's runs")
	fs.StringVar(&c.pgbench, "pgbench", "pgbench", "the pgbench binary")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if c.tables < 1 || c.writers < 1 || c.rounds < 1 || c.duration <= 0 {
		return nil, errors.New("writes: -tables, -writers, -rounds and -duration must be above 0")
	}
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "insectscore-writes-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	servers, stop, err := startWriteServers(ctx, c, dir, out)
	defer stop()
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		if err := s.setUp(c.tables); err != nil {
			return nil, fmt.Errorf("%s: make tables: %w", s.label, err)
		}
	}
	fmt.Fprintf(out, "writes: %d tables of 3 seats each, %d writers over TCP, %s a run after %s; database %s; %d cores\n",
		c.tables, c.writers, c.duration, c.warmup, servers[0].kind(), numCPU())

	var runs []writesRun
	for round := 1; round <= c.rounds; round++ {
		floor := 0.0
		rates := []float64{c.rate}
		if c.floor {
			r, err := servers[0].floor(ctx, c, dir, 0)
			if err != nil {
				return runs, fmt.Errorf("floor: %w", err)
			}
			r.Round, floor = round, r.Rate
			runs = append(runs, r)
			fmt.Fprintln(out, r.line(0))
			if c.third {
				rates = append(rates, floor/3)
			}
			// On PostgreSQL, pgbench's latencies at each rate the
			// servers are paced at, in the same state of the machine.
			for _, rate := range rates {
				if rate == 0 || !r.PG {
					continue
				}
				r, err := servers[0].floor(ctx, c, dir, rate)
				if err != nil {
					return runs, fmt.Errorf("floor at %.0f/s: %w", rate, err)
				}
				r.Round = round
				runs = append(runs, r)
				fmt.Fprintln(out, r.line(floor))
			}
		}
		for _, s := range servers {
			for _, rate := range rates {
				r := s.load(c, rate)
				r.Round = round
				runs = append(runs, r)
				fmt.Fprintln(out, r.line(floor))
			}
		}
	}
	summarize(out, runs)
	for _, r := range runs {
		if r.Failed > 0 || len(r.Statuses) > 0 {
			return runs, fmt.Errorf("%s: PUTs failed: %d without an answer, %v by status", r.Label, r.Failed, r.Statuses)
		}
	}
	return runs, nil
}

func numCPU() int {
	n := 0
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "processor") {
				n++
			}
		}
	}
	return n
}

// line is the run in words; floor, when known, is the floor's rate.
func (r writesRun) line(floor float64) string {
	cpu := ""
	if r.PG {
		cpu = fmt.Sprintf(", PostgreSQL %.2f cores", r.PGCPU)
	}
	if r.Label == "floor" && r.Paced == 0 {
		return fmt.Sprintf("round %d  floor   %8.0f tx/s    CPU: this tool %.2f cores%s", r.Round, r.Rate, r.ToolCPU, cpu)
	}
	if r.Label == "floor" {
		return fmt.Sprintf("round %d  floor   %8.0f tx/s     at %.0f/s: p50 %s, p99 %s, max %s; CPU: this tool %.2f cores%s",
			r.Round, r.Rate, r.Paced, ms(r.P50), ms(r.P99), ms(r.Max), r.ToolCPU, cpu)
	}
	what := "saturated"
	if r.Paced > 0 {
		what = fmt.Sprintf("at %.0f/s", r.Paced)
	}
	ratio := ""
	if floor > 0 {
		ratio = fmt.Sprintf(" (%.2f× floor)", r.Rate/floor)
	}
	errs := "none"
	if r.Failed > 0 || len(r.Statuses) > 0 {
		errs = fmt.Sprintf("%d without an answer, by status %v", r.Failed, r.Statuses)
	}
	return fmt.Sprintf("round %d  %-7s %8.0f writes/s%s %s: p50 %s, p99 %s, max %s; CPU: server %.2f cores%s, this tool %.2f; pool waits %.1f s in %d; errors %s",
		r.Round, r.Label, r.Rate, ratio, what, ms(r.P50), ms(r.P99), ms(r.Max), r.ServerCPU, cpu, r.ToolCPU, r.Wait.Seconds(), r.Waits, errs)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// summarize gives each figure's range over the rounds.
func summarize(out io.Writer, runs []writesRun) {
	type key struct {
		label string
		paced bool
	}
	var order []key
	rates, ratios, p99s := map[key][]float64{}, map[key][]float64{}, map[key][]float64{}
	floors := map[int]float64{}
	for _, r := range runs {
		k := key{r.Label, r.Paced > 0}
		if _, ok := rates[k]; !ok {
			order = append(order, k)
		}
		rates[k] = append(rates[k], r.Rate)
		p99s[k] = append(p99s[k], float64(r.P99.Microseconds())/1000)
		if r.Label == "floor" && r.Paced == 0 {
			floors[r.Round] = r.Rate
		} else if f := floors[r.Round]; f > 0 {
			ratios[k] = append(ratios[k], r.Rate/f)
		}
	}
	span := func(v []float64, format string) string {
		if len(v) == 0 {
			return "-"
		}
		lo, hi := slices.Min(v), slices.Max(v)
		if len(v) == 1 || fmt.Sprintf(format, lo) == fmt.Sprintf(format, hi) {
			return fmt.Sprintf(format, lo)
		}
		return fmt.Sprintf(format+"–"+format, lo, hi)
	}
	fmt.Fprintf(out, "over %d rounds:\n", len(floors)+boolInt(len(floors) == 0))
	for _, k := range order {
		what := "saturated"
		if k.paced {
			what = "paced"
		}
		if k.label == "floor" && !k.paced {
			fmt.Fprintf(out, "  floor: %s tx/s\n", span(rates[k], "%.0f"))
			continue
		}
		unit := "writes/s"
		if k.label == "floor" {
			unit = "tx/s"
		}
		fmt.Fprintf(out, "  %s %s: %s %s, %s× floor, p99 %s ms\n", k.label, what, span(rates[k], "%.0f"), unit, span(ratios[k], "%.2f"), span(p99s[k], "%.1f"))
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// writeServer is a server under load: one this tool started, or -target.
type writeServer struct {
	label   string
	base    string // http://127.0.0.1:port
	addr    string // 127.0.0.1:port
	metrics string // the /metrics URL, or ""
	pid     int
	dsn     string // its database: a postgres:// URL with its search_path, or a SQLite path
	tables  []writeTable
}

type writeTable struct {
	code   string
	tokens [3]string // the host's (for seat 0), seat 1's, seat 2's
}

func (s *writeServer) kind() string {
	if isPostgresDSN(s.dsn) {
		return "PostgreSQL"
	}
	return "SQLite"
}

func isPostgresDSN(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// startWriteServers starts the servers of -server (or the one of
// -target), each on a database of its own, and waits until they are
// ready. stop ends them and drops their schemas.
func startWriteServers(ctx context.Context, c writesConfig, dir string, out io.Writer) ([]*writeServer, func(), error) {
	var stops []func()
	stop := func() {
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	if c.target != "" {
		if err := loopback(c.target); err != nil {
			return nil, stop, err
		}
		if c.db == "" {
			return nil, stop, errors.New("-target needs -db, the server's database, for the floor")
		}
		u, _ := url.Parse(c.target)
		return []*writeServer{{label: "target", base: strings.TrimSuffix(c.target, "/"), addr: u.Host, pid: c.pid, dsn: c.db}}, stop, nil
	}
	bins := map[string]string{}
	var labels []string
	for _, spec := range strings.Split(c.servers, ",") {
		if spec == "" {
			continue
		}
		label, path, ok := strings.Cut(spec, "=")
		if !ok {
			label, path = filepath.Base(spec), spec
		}
		labels, bins[label] = append(labels, label), path
	}
	if len(labels) == 0 {
		path := filepath.Join(dir, "insectscore")
		build := exec.CommandContext(ctx, "go", "build", "-o", path, "insectscore/cmd/insectscore")
		build.Stdout, build.Stderr = out, os.Stderr
		if err := build.Run(); err != nil {
			return nil, stop, fmt.Errorf("build the server (run this from the repository, or give -server): %w", err)
		}
		labels, bins["server"] = []string{"server"}, path
	}
	var servers []*writeServer
	for _, label := range labels {
		dsn := filepath.Join(dir, label+".db")
		if c.db != "" {
			if !isPostgresDSN(c.db) {
				return nil, stop, errors.New("-db is a postgres:// URL; a SQLite server gets a file of its own")
			}
			var drop func()
			var err error
			if dsn, drop, err = newSchema(ctx, c.db); err != nil {
				return nil, stop, err
			}
			stops = append(stops, drop)
		}
		s, end, err := startWriteServer(label, bins[label], dsn, dir)
		if end != nil {
			stops = append(stops, end)
		}
		if err != nil {
			return nil, stop, err
		}
		servers = append(servers, s)
	}
	return servers, stop, nil
}

// startWriteServer starts the binary on dsn, trusting 127.0.0.1 as a
// proxy so that the tables can be made from many client addresses (a
// client makes 60 a minute), and waits for /readyz.
func startWriteServer(label, bin, dsn, dir string) (*writeServer, func(), error) {
	addr, err := cluster.FreeAddr()
	if err != nil {
		return nil, nil, err
	}
	maddr, err := cluster.FreeAddr()
	if err != nil {
		return nil, nil, err
	}
	logf, err := os.Create(filepath.Join(dir, label+".log"))
	if err != nil {
		return nil, nil, err
	}
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(os.Environ(), "INSECTSCORE_DB="+dsn, "INSECTSCORE_ADDR="+addr, "INSECTSCORE_METRICS_ADDR="+maddr,
		"INSECTSCORE_TRUSTED_PROXIES=127.0.0.1")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, nil, fmt.Errorf("%s: %w", label, err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	end := func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		logf.Close()
	}
	s := &writeServer{label: label, base: "http://" + addr, addr: addr, metrics: "http://" + maddr + "/metrics", pid: cmd.Process.Pid, dsn: dsn}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, _, _ := s.call("GET", "/readyz", "", "", nil)
		if status == 200 {
			return s, end, nil
		}
		select {
		case <-exited:
			return nil, end, fmt.Errorf("%s stopped at start; its log: %s", label, tail(logf.Name()))
		default:
		}
		if time.Now().After(deadline) {
			return nil, end, fmt.Errorf("%s not ready in 60 s; its log: %s", label, tail(logf.Name()))
		}
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

var setupClient = &fasthttp.Client{ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second}

// call sends one request of the set-up, from the client address xff when
// given.
func (s *writeServer) call(method, path, token, xff string, body any) (int, []byte, error) {
	req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
	defer fasthttp.ReleaseRequest(req)
	defer fasthttp.ReleaseResponse(resp)
	req.SetRequestURI(s.base + path)
	req.Header.SetMethod(method)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		req.Header.SetContentType("application/json")
		req.SetBody(b)
	}
	if err := setupClient.Do(req, resp); err != nil {
		return 0, nil, err
	}
	return resp.StatusCode(), slices.Clone(resp.Body()), nil
}

// setUp makes the tables through the API: each is created with two named
// players by a client address of its own, its seat 1 claimed, and a third
// player joins as seat 2.
func (s *writeServer) setUp(n int) error {
	s.tables = make([]writeTable, n)
	errs := make(chan error, n)
	var next sync.Mutex
	i := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				k := i
				i++
				next.Unlock()
				if k >= n {
					return
				}
				t, err := s.makeTable(k)
				if err != nil {
					errs <- err
					return
				}
				s.tables[k] = t
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (s *writeServer) makeTable(k int) (writeTable, error) {
	xff := fmt.Sprintf("10.%d.%d.%d", k>>16&255, k>>8&255, k&255)
	var t writeTable
	var created struct {
		Code      string `json:"code"`
		HostToken string `json:"hostToken"`
	}
	var seated struct {
		SeatToken string `json:"seatToken"`
	}
	status, body, err := s.call("POST", "/api/v1/tables", "", xff, map[string]any{"game": "insecta", "players": []string{"Ada", "Ben"}})
	if err == nil && status == 201 {
		err = json.Unmarshal(body, &created)
	} else if err == nil {
		err = fmt.Errorf("create: %d %s", status, body)
	}
	if err != nil {
		return t, err
	}
	t.code, t.tokens[0] = created.Code, created.HostToken
	for seat, req := range []struct {
		path string
		body any
	}{{"/seats/1/claim", nil}, {"/seats", map[string]string{"name": "Cy"}}} {
		status, body, err := s.call("POST", "/api/v1/tables/"+t.code+req.path, "", xff, req.body)
		if err == nil && (status == 200 || status == 201) {
			err = json.Unmarshal(body, &seated)
		} else if err == nil {
			err = fmt.Errorf("%s: %d %s", req.path, status, body)
		}
		if err != nil {
			return t, err
		}
		t.tokens[seat+1] = seated.SeatToken
	}
	return t, nil
}

// load runs the writers against s for the warm-up and the run: saturated
// (rate 0), or one PUT every 1/rate s handed to the next free writer,
// its latency counted from when it was due.
func (s *writeServer) load(c writesConfig, rate float64) writesRun {
	client := &fasthttp.HostClient{Addr: s.addr, MaxConns: c.writers, ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second}
	start := time.Now()
	from, until := start.Add(c.warmup), start.Add(c.warmup+c.duration)
	due := make(chan time.Time, c.writers)
	if rate > 0 {
		go func() {
			defer close(due)
			for i := 0; ; i++ {
				at := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
				if !at.Before(until) {
					return
				}
				time.Sleep(time.Until(at))
				due <- at
			}
		}()
	}
	type sample struct {
		lat    time.Duration
		status int
		inRun  bool // answered before the run's end
	}
	got := make([][]sample, c.writers)
	var wg sync.WaitGroup
	for w := range c.writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rnd := mrand.New(mrand.NewPCG(uint64(w), uint64(start.UnixNano())))
			req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
			defer fasthttp.ReleaseRequest(req)
			defer fasthttp.ReleaseResponse(resp)
			for {
				at := time.Now()
				if rate > 0 {
					var ok bool
					if at, ok = <-due; !ok {
						return
					}
				} else if !at.Before(until) {
					return
				}
				t := s.tables[rnd.IntN(len(s.tables))]
				seat := rnd.IntN(3)
				req.Reset()
				req.SetRequestURI(fmt.Sprintf("%s/api/v1/tables/%s/seats/%d/board", s.base, t.code, seat))
				req.Header.SetMethod(fasthttp.MethodPut)
				req.Header.SetContentType("application/json")
				req.Header.Set("Authorization", "Bearer "+t.tokens[seat])
				req.SetBody(writesBoard)
				status := 0
				if err := client.Do(req, resp); err == nil {
					status = resp.StatusCode()
				}
				// Saturated, a PUT counts when it was sent and answered in
				// the run; paced, every PUT due in the run does, however
				// late its answer.
				done := time.Now()
				if !at.Before(from) && (rate == 0 && !done.After(until) || rate > 0 && at.Before(until)) {
					got[w] = append(got[w], sample{done.Sub(at), status, !done.After(until)})
				}
			}
		}()
	}
	time.Sleep(time.Until(from))
	before := s.snapshot()
	time.Sleep(time.Until(until))
	after := s.snapshot()
	wg.Wait()

	r := writesRun{Label: s.label, PG: isPostgresDSN(s.dsn), Paced: rate, Statuses: map[int]int{}}
	var lats []time.Duration
	answered := 0
	for _, samples := range got {
		for _, x := range samples {
			switch x.status {
			case 200:
				lats = append(lats, x.lat)
				if x.inRun {
					answered++
				}
			case 0:
				r.Failed++
			default:
				r.Statuses[x.status]++
			}
		}
	}
	slices.Sort(lats)
	r.Writes = len(lats)
	r.Rate = float64(answered) / c.duration.Seconds()
	if len(lats) > 0 {
		r.P50, r.P99, r.Max = lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1]
	}
	after.since(before, &r)
	return r
}

// writeUsage is what a run's figures are taken from, at its start and its end.
type writeUsage struct {
	at                    time.Time
	server, pg, tool      float64 // CPU seconds
	waitSeconds, waits    float64
	hasServer, hasMetrics bool
}

func (s *writeServer) snapshot() writeUsage {
	u := writeUsage{at: time.Now(), pg: postgresCPU(), tool: selfCPU()}
	if s.pid > 0 {
		u.server, u.hasServer = procCPU(s.pid, false), true
	}
	if s.metrics != "" {
		u.waitSeconds, u.waits, u.hasMetrics = poolWaits(s.metrics)
	}
	return u
}

func (u writeUsage) since(b writeUsage, r *writesRun) {
	secs := u.at.Sub(b.at).Seconds()
	r.PGCPU, r.ToolCPU = (u.pg-b.pg)/secs, (u.tool-b.tool)/secs
	if u.hasServer {
		r.ServerCPU = (u.server - b.server) / secs
	}
	if u.hasMetrics {
		r.Wait = time.Duration((u.waitSeconds - b.waitSeconds) * float64(time.Second))
		r.Waits = int64(u.waits - b.waits)
	}
}

// clockTick is the unit of CPU times in /proc (USER_HZ, 100 on Linux).
const clockTick = 100

// procCPU is the CPU seconds a process has used, with those of its
// children it has waited for when children is set.
func procCPU(pid int, children bool) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command's name, which ends with the last ")":
	// state is the first, utime the 12th, stime, cutime, cstime the next.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 15 {
		return 0
	}
	n := 2
	if children {
		n = 4
	}
	total := 0.0
	for _, v := range f[11 : 11+n] {
		x, _ := strconv.ParseFloat(v, 64)
		total += x
	}
	return total / clockTick
}

// postgresCPU is the CPU seconds PostgreSQL's processes have used: every
// process named postgres, and the backends that ended, which the
// postmaster counts among its children's.
func postgresCPU() float64 {
	entries, _ := os.ReadDir("/proc")
	total := 0.0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if comm, _ := os.ReadFile(fmt.Sprintf("/proc/%d/comm", pid)); strings.TrimSpace(string(comm)) == "postgres" {
			total += procCPU(pid, true)
		}
	}
	return total
}

func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

// poolWaits reads the write pool's wait figures from /metrics.
func poolWaits(metricsURL string) (seconds, waits float64, ok bool) {
	status, body, err := fasthttp.Get(nil, metricsURL)
	if err != nil || status != 200 {
		return 0, 0, false
	}
	for _, line := range strings.Split(string(body), "\n") {
		name, value, found := strings.Cut(line, " ")
		if !found {
			continue
		}
		v, _ := strconv.ParseFloat(strings.TrimSpace(value), 64)
		switch name {
		case `insectscore_db_wait_seconds_total{pool="write"}`:
			seconds = v
		case `insectscore_db_waits_total{pool="write"}`:
			waits = v
		}
	}
	return seconds, waits, true
}

// PutBoard's transaction, as the server runs it on a table of three seats:
// the read of the table with its seats, then the seat's and the table's
// update (one statement on PostgreSQL). On PostgreSQL the table's lock
// comes first, in a statement of its own.
const (
	floorRead = `SELECT t.id, t.code, t.game, t.host_token_hash, t.variants, t.status, t.version, t.first_seat,
	t.created_at, t.updated_at, t.finished_at, t.group_id,
	EXISTS (SELECT 1 FROM moves m WHERE m.table_id = t.id) AS has_moves,
	s.seat AS seat_no, s.name AS seat_name, s.token_hash AS seat_token_hash, s.claimed AS seat_claimed,
	s.board AS seat_board, s.last_seen_at AS seat_last_seen_at, s.unsent AS seat_unsent,
	s.unsent_since AS seat_unsent_since
	FROM tables t LEFT JOIN seats s ON s.table_id = t.id`
	floorSeat  = `UPDATE seats SET board = %s, updated_at = %s, last_seen_at = %s, unsent = 0, unsent_since = NULL WHERE table_id = %s AND seat = %s`
	floorTable = `UPDATE tables SET version = version + 1, updated_at = %s WHERE id = %s`
)

var pgbenchTPS = regexp.MustCompile(`tps = ([0-9.]+)`)

// floor measures the database's own rate of PutBoard's transaction on the
// server's tables: as fast as it goes, or on PostgreSQL paced at rate,
// with its latencies from when each transaction was due.
func (s *writeServer) floor(ctx context.Context, c writesConfig, dir string, rate float64) (writesRun, error) {
	r := writesRun{Label: "floor", PG: isPostgresDSN(s.dsn), Paced: rate}
	before := writeUsage{at: time.Now(), pg: postgresCPU(), tool: selfCPU()}
	var err error
	if r.PG {
		err = pgbenchFloor(ctx, c, s.dsn, dir, &r)
	} else {
		r.Rate, err = sqliteFloor(ctx, s.dsn, s.tables, c.duration)
	}
	after := writeUsage{at: time.Now(), pg: postgresCPU(), tool: selfCPU()}
	after.since(before, &r)
	return r, err
}

// pgbenchFloor runs pgbench with PutBoard's transaction on a random seat
// of the schema's tables.
func pgbenchFloor(ctx context.Context, c writesConfig, dsn, dir string, r *writesRun) error {
	u, err := url.Parse(dsn)
	if err != nil {
		return err
	}
	q := u.Query()
	schema := q.Get("search_path")
	q.Del("search_path")
	u.RawQuery = q.Encode()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	var lo, hi int64
	err = conn.QueryRow(ctx, "SELECT min(id), max(id) FROM tables").Scan(&lo, &hi)
	conn.Close(ctx)
	if err != nil {
		return err
	}
	// The board goes in as a variable, a parameter of the prepared
	// statement: in the script its colons would read as variables.
	script := fmt.Sprintf(`\set id random(%d, %d)
\set seat random(0, 2)
BEGIN;
SELECT id FROM tables WHERE id = :id FOR UPDATE;
%s WHERE t.id = :id ORDER BY s.seat;
WITH s AS (%s) %s;
END;
`, lo, hi, strings.Join(strings.Fields(floorRead), " "),
		fmt.Sprintf(floorSeat, ":board", "now()", "now()", ":id", ":seat"), fmt.Sprintf(floorTable, "now()", ":id"))
	path := filepath.Join(dir, "putboard.sql")
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		return err
	}
	secs := int(max(c.duration.Round(time.Second), time.Second) / time.Second)
	args := []string{"-n", "-M", "prepared", "-c", strconv.Itoa(c.floorClients), "-j", strconv.Itoa(min(c.floorClients, numCPU())),
		"-T", strconv.Itoa(secs), "-D", "board=" + strings.TrimSpace(string(writesBoard)), "-f", path}
	logs := filepath.Join(dir, "pgbench-log")
	if r.Paced > 0 {
		// Each transaction's time and its lag behind its schedule go to
		// a log file a thread.
		if err := os.RemoveAll(logs); err != nil {
			return err
		}
		if err := os.Mkdir(logs, 0o700); err != nil {
			return err
		}
		args = append(args, "-R", fmt.Sprintf("%.0f", r.Paced), "-l", "--log-prefix", filepath.Join(logs, "tx"))
	}
	cmd := exec.CommandContext(ctx, c.pgbench, append(args, u.String())...)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c search_path="+schema)
	got, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("pgbench: %w: %s", err, got)
	}
	m := pgbenchTPS.FindSubmatch(got)
	if m == nil {
		return fmt.Errorf("pgbench said no tps: %s", got)
	}
	if r.Rate, err = strconv.ParseFloat(string(m[1]), 64); err != nil || r.Paced == 0 {
		return err
	}
	lats, err := pgbenchLatencies(logs)
	if err != nil {
		return err
	}
	r.Writes = len(lats)
	if len(lats) > 0 {
		r.P50, r.P99, r.Max = lats[len(lats)/2], lats[len(lats)*99/100], lats[len(lats)-1]
	}
	return nil
}

// pgbenchLatencies reads pgbench's transaction logs: "client transaction
// time_us script epoch epoch_us lag_us" a line, with -R. A transaction's
// latency from when it was due is its time and its lag.
func pgbenchLatencies(dir string) ([]time.Duration, error) {
	files, err := filepath.Glob(filepath.Join(dir, "tx.*"))
	if err != nil {
		return nil, err
	}
	var lats []time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(b), "\n") {
			fields := strings.Fields(line)
			if len(fields) < 7 {
				continue
			}
			took, err1 := strconv.ParseInt(fields[2], 10, 64)
			lag, err2 := strconv.ParseInt(fields[6], 10, 64)
			if err1 != nil || err2 != nil {
				return nil, fmt.Errorf("pgbench log %s: %q", f, line)
			}
			lats = append(lats, time.Duration(took+lag)*time.Microsecond)
		}
	}
	slices.Sort(lats)
	return lats, nil
}

// sqliteFloor runs PutBoard's transaction in a loop on one connection to
// the server's SQLite file, with the server's settings (WAL, synchronous
// NORMAL, the write lock taken at BEGIN).
func sqliteFloor(ctx context.Context, path string, tables []writeTable, d time.Duration) (float64, error) {
	db, err := sql.Open("sqlite3", path+"?_busy_timeout=5000&_journal_mode=WAL&_foreign_keys=on&_synchronous=NORMAL&_txlock=immediate")
	if err != nil {
		return 0, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	read := floorRead + " WHERE t.code = ? ORDER BY s.seat"
	seatQ := fmt.Sprintf(floorSeat, "?", "?", "?", "?", "?")
	tableQ := fmt.Sprintf(floorTable, "?", "?")
	board := strings.TrimSpace(string(writesBoard))
	rnd := mrand.New(mrand.NewPCG(1, 2))
	n := 0
	start := time.Now()
	for time.Since(start) < d {
		code, seat := tables[rnd.IntN(len(tables))].code, rnd.IntN(3)
		if err := sqliteOnce(ctx, db, read, seatQ, tableQ, code, seat, board); err != nil {
			return 0, err
		}
		n++
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

func sqliteOnce(ctx context.Context, db *sql.DB, read, seatQ, tableQ, code string, seat int, board string) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, read, code)
	if err != nil {
		return err
	}
	cols, _ := rows.Columns()
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var id int64
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			rows.Close()
			return err
		}
		id, _ = vals[0].(int64)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	now := time.Now().UTC()
	if _, err := tx.ExecContext(ctx, seatQ, board, now, now, id, seat); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, tableQ, now, id); err != nil {
		return err
	}
	return tx.Commit()
}

//go:build linux

package main

// The notify load: what one PostgreSQL carries for replicas that share it.
// Live updates cross replicas as NOTIFY on one channel (live.PGBroker): the
// replica that saves a board sends "id:code:version:unixmicro" in a
// transaction of its own, after the write has committed, and every other
// replica whose streams follow the table reads it again (one ReadTable,
// in its one listening goroutine). The load measures, on a schema and a
// channel of its own:
//
//   - connections: the server's max_connections against what a replica
//     holds;
//   - NOTIFY alone, as PostgreSQL carries it: senders in a closed loop,
//     with 1 and 3 listeners, and the time from the sender's NOTIFY to each
//     listener;
//   - what NOTIFY costs write commits: a write alone, with pg_notify in its
//     transaction (PostgreSQL serialises the commits of notifying
//     transactions on one lock), and followed by a NOTIFY of its own (what
//     insectscore does);
//   - insectscore's path: 2 and 3 replicas, each a live.PGBroker and a
//     models.Store, at rising rates of changes, from the NOTIFY to the
//     table read again on every other replica;
//   - a reconnect storm: a thousand streams opening at once on one replica,
//     each of which reads its table once.

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"insectscore/api/live"
	"insectscore/cmd/insectscore-load/cluster"
	"insectscore/models"
)

func init() {
	register("notify", "NOTIFY, connections and table reads on one PostgreSQL: how many replicas, changes and streams it carries", runNotify)
}

type notifyLoad struct {
	dsn     string // the database, as given
	schema  string // dsn with search_path set to the run's own schema
	name    string // the schema's name, the channel's, and the run's application_name
	admin   *pgx.Conn
	channel string
	step    time.Duration
	tables  int
	boards  []json.RawMessage
	limit   time.Duration
	rates   []int
	storm   int
}

func runNotify(args []string) error {
	fs := flag.NewFlagSet("notify", flag.ContinueOnError)
	dsn := fs.String("dsn", envOr("INSECTSCORE_TEST_POSTGRES", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"), "PostgreSQL on 127.0.0.1 (a schema and a channel of the run's own are made and dropped)")
	step := fs.Duration("step", 5*time.Second, "length of each measured step")
	tables := fs.Int("tables", 250, "tables the replicas' changes go to")
	board := fs.String("boards", "api/testdata/insecta-four-players.json", "a score request whose players' boards fill each table")
	limit := fs.Duration("p99", 100*time.Millisecond, "the delivery p99 a rate step is to hold; the steps stop past 10× it")
	rates := fs.String("rates", "50,100,200,400,800,1600,3200", "changes a second across the replicas, in steps")
	storm := fs.Int("storm", 1000, "streams opening at once on one replica")
	if err := fs.Parse(args); err != nil {
		return err
	}
	l := &notifyLoad{dsn: *dsn, step: *step, tables: *tables, limit: *limit, storm: *storm}
	if err := localDSN(l.dsn); err != nil {
		return err
	}
	for r := range strings.SplitSeq(*rates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil || n < 1 {
			return fmt.Errorf("-rates %q: give whole numbers above 0, comma-separated", *rates)
		}
		l.rates = append(l.rates, n)
	}
	raw, err := os.ReadFile(*board)
	if err != nil {
		return fmt.Errorf("-boards: %w (run from the repository's root)", err)
	}
	var req struct {
		Players []struct {
			Board json.RawMessage `json:"board"`
		} `json:"players"`
	}
	if err := json.Unmarshal(raw, &req); err != nil || len(req.Players) == 0 {
		return fmt.Errorf("-boards %s: not a score request with players' boards", *board)
	}
	for _, p := range req.Players {
		l.boards = append(l.boards, p.Board)
	}
	return l.run(context.Background())
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func (l *notifyLoad) run(ctx context.Context) error {
	admin, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	l.name = "insectscore_load_" + strings.ToLower(rand.Text())
	l.channel = l.name
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+l.name); err != nil {
		return err
	}
	defer admin.Exec(context.Background(), "DROP SCHEMA "+l.name+" CASCADE")
	l.dsn = withParam(l.dsn, "application_name", l.name)
	l.schema = withParam(l.dsn, "search_path", l.name)
	l.admin = admin

	var version string
	admin.QueryRow(ctx, "SHOW server_version").Scan(&version)
	fmt.Printf("%d cores, load average %s; PostgreSQL %s; payload as insectscore sends it, e.g. %q (%d bytes)\n\n", runtime.NumCPU(), loadAverage(), version, l.payload("ABC234", 12), len(l.payload("ABC234", 12)))
	defer func() { fmt.Printf("load average at the end %s\n", loadAverage()) }()
	for _, part := range []func(context.Context, *pgx.Conn) error{l.connections, l.rawNotify, l.writes, l.replicas} {
		if err := part(ctx, admin); err != nil {
			return err
		}
		fmt.Println()
	}
	return nil
}

// payload is a notification as live.PGBroker sends it.
func (l *notifyLoad) payload(code string, version int64) string {
	return "0123456789abcdef:" + code + ":" + strconv.FormatInt(version, 10) + ":" + strconv.FormatInt(time.Now().UnixMicro(), 10)
}

// perReplica is the connections a replica holds at most: the store's pool,
// the broker's LISTEN and its NOTIFY.
const perReplica = models.PostgresPool + 1 + 1

func (l *notifyLoad) connections(ctx context.Context, admin *pgx.Conn) error {
	var max, reserved, now int
	if err := admin.QueryRow(ctx, "SELECT current_setting('max_connections')::int, current_setting('superuser_reserved_connections')::int, (SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')").Scan(&max, &reserved, &now); err != nil {
		return err
	}
	fmt.Printf("connections: max_connections %d, %d reserved for superusers, %d client connections open now\n", max, reserved, now)
	fmt.Printf("  a replica holds at most %d (a pool of %d, LISTEN, NOTIFY): %d replicas fit, with nothing else connected\n", perReplica, models.PostgresPool, (max-reserved)/perReplica)
	return nil
}

// quantiles formats the p50, p99 and max of d.
func quantiles(d []time.Duration) string {
	if len(d) == 0 {
		return "none"
	}
	q := cluster.QuantilesOf(d)
	return fmt.Sprintf("p50 %s p99 %s max %s", round(q.P50), round(q.P99), round(q.Max))
}

func round(d time.Duration) time.Duration {
	if d > 10*time.Millisecond {
		return d.Round(time.Millisecond)
	}
	return d.Round(10 * time.Microsecond)
}

// queueWatch samples pg_notification_queue_usage() on a connection of its
// own until stop, and returns the highest.
func (l *notifyLoad) queueWatch(ctx context.Context) (stop func() float64, err error) {
	conn, err := pgx.Connect(ctx, l.dsn)
	if err != nil {
		return nil, err
	}
	done, peak := make(chan struct{}), make(chan float64)
	go func() {
		defer conn.Close(context.Background())
		var high float64
		for {
			var u float64
			if conn.QueryRow(ctx, "SELECT pg_notification_queue_usage()").Scan(&u) == nil {
				high = max(high, u)
			}
			select {
			case <-done:
				peak <- high
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() float64 { close(done); return <-peak }, nil
}

// rawNotify: senders in a closed loop, each `SELECT pg_notify` on its own
// connection (one transaction each, as live.PGBroker sends), listeners
// timing each notification from the time in its payload.
func (l *notifyLoad) rawNotify(ctx context.Context, _ *pgx.Conn) error {
	fmt.Printf("NOTIFY alone, senders in a closed loop for %s each (notify→listener is from the sender's call)\n", l.step)
	fmt.Printf("  %-28s %10s  %-40s %-40s %s\n", "senders, listeners", "notifies/s", "NOTIFY call", "notify→listener", "CPU per NOTIFY sent")
	for _, c := range []struct {
		senders, listeners int
		async              bool
	}{{1, 1, false}, {1, 3, false}, {4, 3, false}, {16, 1, false}, {16, 3, false}, {16, 3, true}} {
		if err := l.rawStep(ctx, c.senders, c.listeners, c.async); err != nil {
			return err
		}
	}
	return nil
}

func (l *notifyLoad) rawStep(ctx context.Context, senders, listeners int, async bool) error {
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		mu       sync.Mutex
		lags     []time.Duration
		received atomic.Int64
		wg       sync.WaitGroup
	)
	for range listeners {
		conn, err := pgx.Connect(ctx, l.dsn)
		if err != nil {
			return err
		}
		if _, err := conn.Exec(ctx, "LISTEN "+l.channel); err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer conn.Close(context.Background())
			for {
				n, err := conn.WaitForNotification(lctx)
				if err != nil {
					return
				}
				lag := notifyLag(n.Payload)
				mu.Lock()
				lags = append(lags, lag)
				mu.Unlock()
				received.Add(1)
			}
		}()
	}
	stopQueue, err := l.queueWatch(ctx)
	if err != nil {
		return err
	}
	calls := make([][]time.Duration, senders)
	var sent atomic.Int64
	var swg sync.WaitGroup
	errs := make(chan error, senders)
	conns := make([]*pgx.Conn, senders)
	for i := range conns {
		conn, err := pgx.Connect(ctx, l.dsn)
		if err != nil {
			return err
		}
		if async {
			if _, err := conn.Exec(ctx, "SET synchronous_commit = off"); err != nil {
				return err
			}
		}
		conns[i] = conn
	}
	c0 := l.cpuNow(ctx)
	end := time.Now().Add(l.step)
	for i, conn := range conns {
		swg.Add(1)
		go func() {
			defer swg.Done()
			defer conn.Close(context.Background())
			for v := int64(1); time.Now().Before(end); v++ {
				began := time.Now()
				if _, err := conn.Exec(ctx, "SELECT pg_notify($1, $2)", l.channel, l.payload("ABC234", v)); err != nil {
					errs <- err
					return
				}
				calls[i] = append(calls[i], time.Since(began))
				sent.Add(1)
			}
		}()
	}
	swg.Wait()
	took := time.Since(end.Add(-l.step))
	want := sent.Load() * int64(listeners)
	for wait := time.Now().Add(10 * time.Second); received.Load() < want && time.Now().Before(wait); {
		time.Sleep(10 * time.Millisecond)
	}
	c1 := l.cpuNow(ctx)
	cancel()
	wg.Wait()
	peak := stopQueue()
	select {
	case err := <-errs:
		return err
	default:
	}
	label := fmt.Sprintf("%d, %d", senders, listeners)
	if async {
		label += ", synchronous_commit off"
	}
	note := ""
	if lost := want - received.Load(); lost > 0 {
		note = fmt.Sprintf(" (%d not received)", lost)
	}
	if peak > 0 {
		note += fmt.Sprintf(" queue peak %.5f%%", 100*peak)
	}
	fmt.Printf("  %-28s %10.0f  %-40s %-40s %s%s\n", label, float64(sent.Load())/took.Seconds(), quantiles(slices.Concat(calls...)), quantiles(lags), c1.per(c0, sent.Load()), note)
	return nil
}

// notifyLag is the time since the unixmicro that ends payload.
func notifyLag(payload string) time.Duration {
	i := strings.LastIndexByte(payload, ':')
	us, err := strconv.ParseInt(payload[i+1:], 10, 64)
	if err != nil {
		return -1
	}
	return time.Since(time.UnixMicro(us))
}

// writes: clients in a closed loop writing a 2 KB row of one of the tables
// in a transaction, three ways.
func (l *notifyLoad) writes(ctx context.Context, admin *pgx.Conn) error {
	const clients = 16
	if _, err := admin.Exec(ctx, fmt.Sprintf(`CREATE TABLE %s.load_boards (id int PRIMARY KEY, version int NOT NULL, board text NOT NULL);
		INSERT INTO %[1]s.load_boards SELECT i, 0, '' FROM generate_series(0, %d) i`, l.name, l.tables-1)); err != nil {
		return err
	}
	board := strings.Repeat("x", 2048)
	fmt.Printf("write commits, %d clients in a closed loop for %s each, a 2 KB row of %d\n", clients, l.step, l.tables)
	fmt.Printf("  %-40s %9s  %s\n", "transaction", "commits/s", "commit")
	var alone float64
	for _, mode := range []string{"write", "write + pg_notify in it", "write, then pg_notify alone (insectscore)"} {
		conns := make([]*pgx.Conn, clients)
		for i := range conns {
			c, err := pgx.Connect(ctx, l.schema)
			if err != nil {
				return err
			}
			conns[i] = c
		}
		var n atomic.Int64
		lat := make([][]time.Duration, clients)
		errs := make(chan error, clients)
		c0 := l.cpuNow(ctx)
		end := time.Now().Add(l.step)
		var wg sync.WaitGroup
		for i, c := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := int64(i); time.Now().Before(end); k += clients {
					began := time.Now()
					err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
						if _, err := tx.Exec(ctx, "UPDATE load_boards SET version = version + 1, board = $2 WHERE id = $1", k%int64(l.tables), board); err != nil {
							return err
						}
						if mode == "write + pg_notify in it" {
							_, err := tx.Exec(ctx, "SELECT pg_notify($1, $2)", l.channel, l.payload("ABC234", k))
							return err
						}
						return nil
					})
					if err == nil && strings.HasPrefix(mode, "write, then") {
						_, err = c.Exec(ctx, "SELECT pg_notify($1, $2)", l.channel, l.payload("ABC234", k))
					}
					if err != nil {
						errs <- err
						return
					}
					lat[i] = append(lat[i], time.Since(began))
					n.Add(1)
				}
			}()
		}
		wg.Wait()
		c1 := l.cpuNow(ctx)
		for _, c := range conns {
			c.Close(context.Background())
		}
		select {
		case err := <-errs:
			return err
		default:
		}
		rate := float64(n.Load()) / l.step.Seconds()
		ratio := ""
		if alone == 0 {
			alone = rate
		} else {
			ratio = fmt.Sprintf(" (%.2f× the write alone)", rate/alone)
		}
		fmt.Printf("  %-40s %9.0f  %-40s %s%s\n", mode, rate, quantiles(slices.Concat(lat...)), c1.per(c0, n.Load()), ratio)
	}
	return nil
}

// replica is one server's part in the path: its store and its broker.
type replica struct {
	store  *models.Store
	broker *live.PGBroker
	jobs   chan change
}

// change is a board saved at a table, due at a time.
type change struct {
	table int
	due   time.Time
}

// follower is what a replica waits for of one table: the changes sent and
// not yet delivered, oldest first.
type follower struct {
	mu      sync.Mutex
	pending []change
	version []int64
}

// replicas: 2 and 3 replicas, each table written on one of them and
// followed by a stream on every other, at rising rates.
func (l *notifyLoad) replicas(ctx context.Context, _ *pgx.Conn) error {
	setup, err := models.Open(ctx, l.schema, nil)
	if err != nil {
		return err
	}
	defer setup.Close()
	names := make([]string, len(l.boards))
	for i := range names {
		names[i] = fmt.Sprintf("Player %d", i+1)
	}
	codes := make([]string, l.tables)
	for i := range codes {
		t, _, err := setup.CreateTable(ctx, models.NewTable{Game: "insecta", Names: names, Boards: l.boards})
		if err != nil {
			return err
		}
		codes[i] = t.Code
	}
	if err := l.reconnectStorm(ctx, setup, codes); err != nil {
		return err
	}
	for _, n := range []int{2, 3} {
		if err := l.replicaSteps(ctx, n, codes); err != nil {
			return err
		}
	}
	return nil
}

// reconnectStorm: l.storm streams open at once on one replica, as after a replica
// died and its streams came back through the balancer: each reads its
// table once (tableEvents), through the store's pool.
func (l *notifyLoad) reconnectStorm(ctx context.Context, store *models.Store, codes []string) error {
	lat := make([]time.Duration, l.storm)
	errs := make(chan error, l.storm)
	// One at a time, as a replica's listener reads a table changed on
	// another replica.
	one := make([]time.Duration, 0, 200)
	began := time.Now()
	for i := range cap(one) {
		t0 := time.Now()
		st, err := store.ReadTable(ctx, codes[i%len(codes)])
		if err != nil {
			return err
		}
		if _, err := json.Marshal(st); err != nil {
			return err
		}
		one = append(one, time.Since(t0))
	}
	fmt.Printf("a table read again, one at a time as a replica's listener does: %.0f reads/s, %s\n", float64(len(one))/time.Since(began).Seconds(), quantiles(one))
	c0 := l.cpuNow(ctx)
	began = time.Now()
	var wg sync.WaitGroup
	for i := range l.storm {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st, err := store.ReadTable(ctx, codes[i%len(codes)])
			if err == nil {
				_, err = json.Marshal(st)
			}
			if err != nil {
				errs <- err
			}
			lat[i] = time.Since(began)
		}()
	}
	wg.Wait()
	took := time.Since(began)
	c1 := l.cpuNow(ctx)
	select {
	case err := <-errs:
		return err
	default:
	}
	fmt.Printf("reconnect storm: %d streams opening at once on one replica read their %d-seat tables in %s (%.0f reads/s); time to each stream's table: %s; %s\n\n",
		l.storm, len(l.boards), round(took), float64(l.storm)/took.Seconds(), quantiles(lat), c1.per(c0, int64(l.storm)))
	return nil
}

func (l *notifyLoad) replicaSteps(ctx context.Context, n int, codes []string) error {
	rs := make([]*replica, n)
	versions := make([]atomic.Int64, len(codes))
	// follows[r][t]: replica r's stream of table t, when r does not write t.
	follows := make([][]*follower, n)
	var (
		mu   sync.Mutex
		lags []time.Duration
	)
	for r := range rs {
		store, err := models.Open(ctx, l.schema, nil)
		if err != nil {
			return err
		}
		defer store.Close()
		broker, err := live.NewPGBroker(ctx, l.dsn, l.channel, nil)
		if err != nil {
			return err
		}
		defer broker.Close()
		broker.SetSource(func(ctx context.Context, code string, _ []byte) (live.Event, bool, error) {
			// The version a read now sees: the table's last change sent.
			t := slices.Index(codes, code)
			v := versions[t].Load()
			st, err := store.ReadTable(ctx, code)
			if err != nil {
				return live.Event{}, true, err
			}
			data, err := json.Marshal(st)
			return live.Event{Version: int(v), Data: data}, true, err
		})
		rs[r] = &replica{store: store, broker: broker, jobs: make(chan change, 1<<16)}
		follows[r] = make([]*follower, len(codes))
		for t, code := range codes {
			if t%n == r {
				continue
			}
			f := &follower{}
			follows[r][t] = f
			sub := broker.Subscribe(code)
			go func() {
				for range sub.C {
					ev, ok := sub.Latest()
					if !ok {
						continue
					}
					now := time.Now()
					f.mu.Lock()
					k := 0
					mu.Lock()
					for j, c := range f.pending {
						if f.version[j] <= int64(ev.Version) {
							lags = append(lags, now.Sub(c.due))
						} else {
							f.pending[k], f.version[k] = c, f.version[j]
							k++
						}
					}
					mu.Unlock()
					f.pending, f.version = f.pending[:k], f.version[:k]
					f.mu.Unlock()
				}
			}()
		}
	}
	// Each replica's handlers: 64 at once, each publishing after its
	// (here: no) write, as a board PUT does after its commit.
	var publishWait []time.Duration
	var pmu sync.Mutex
	var workers sync.WaitGroup
	for r, rp := range rs {
		for range 64 {
			workers.Add(1)
			go func() {
				defer workers.Done()
				for c := range rp.jobs {
					if d := time.Until(c.due); d > 0 {
						time.Sleep(d)
					}
					v := versions[c.table].Add(1)
					for o := range rs {
						if f := follows[o][c.table]; f != nil && o != r {
							f.mu.Lock()
							f.pending = append(f.pending, c)
							f.version = append(f.version, v)
							f.mu.Unlock()
						}
					}
					rp.broker.Publish(codes[c.table], live.Event{Version: int(v), Data: []byte(`{}`)})
					pmu.Lock()
					publishWait = append(publishWait, time.Since(c.due))
					pmu.Unlock()
				}
			}()
		}
	}
	defer func() {
		for _, rp := range rs {
			close(rp.jobs)
		}
		workers.Wait()
	}()

	fmt.Printf("insectscore's path, %d replicas (live.PGBroker and models.Store each), %d tables of %d seats, each written on one replica and followed on the %d others; %s a step\n",
		n, len(codes), len(l.boards), n-1, l.step)
	fmt.Printf("  %-9s %-9s %-44s %-44s %s\n", "changes/s (✓: p99 within -p99)", "reads/s", "Publish (after the write)", "NOTIFY→table read again on another replica", "")
	for _, rate := range l.rates {
		mu.Lock()
		lags = lags[:0]
		mu.Unlock()
		pmu.Lock()
		publishWait = publishWait[:0]
		pmu.Unlock()
		before := make([]live.PGStats, n)
		for r, rp := range rs {
			before[r] = rp.broker.Stats()
		}
		stopQueue, err := l.queueWatch(ctx)
		if err != nil {
			return err
		}
		c0 := l.cpuNow(ctx)
		start := time.Now().Add(50 * time.Millisecond)
		total := int(float64(rate) * l.step.Seconds())
		for i := range total {
			t := i % len(codes)
			rs[t%n].jobs <- change{table: t, due: start.Add(time.Duration(float64(i) / float64(rate) * float64(time.Second)))}
		}
		want := total * (n - 1)
		deadline := start.Add(l.step + 30*time.Second)
		for {
			mu.Lock()
			got := len(lags)
			mu.Unlock()
			if got >= want || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(start)
		c1 := l.cpuNow(ctx)
		peak := stopQueue()
		var reads uint64
		for r, rp := range rs {
			reads += rp.broker.Stats().Refreshed - before[r].Refreshed
		}
		mu.Lock()
		got := slices.Clone(lags)
		mu.Unlock()
		pmu.Lock()
		pw := slices.Clone(publishWait)
		pmu.Unlock()
		note := ""
		if len(got) < want {
			note = fmt.Sprintf("%d of %d not delivered in 30 s; ", want-len(got), want)
		}
		note += fmt.Sprintf("queue peak %.5f%%; %s", 100*peak, c1.per(c0, int64(total)))
		p99 := time.Duration(0)
		if len(got) > 0 {
			slices.Sort(got)
			p99 = got[min(len(got)*99/100, len(got)-1)]
		}
		within := "  "
		if p99 <= l.limit && len(got) == want {
			within = "✓ "
		}
		fmt.Printf("%s%-9d %-9.0f %-44s %-44s %s\n", within, rate, float64(reads)/took.Seconds(), quantiles(pw), quantiles(got), note)
		if p99 > 10*l.limit || len(got) < want {
			fmt.Printf("  past 10× the %s p99: stopped\n", l.limit)
			break
		}
		time.Sleep(time.Second) // the last notifications' reads
	}
	return nil
}

// loadAverage is the machine's load over the last minute, 5 and 15.
func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// cpu is CPU time spent so far by this process and by the PostgreSQL
// backends of the run's connections, by application_name and pid. It
// reads /proc, so PostgreSQL must run on this machine.
type cpu struct {
	self time.Duration
	pg   map[int32]time.Duration
}

func (l *notifyLoad) cpuNow(ctx context.Context) cpu {
	c := cpu{self: time.Duration(selfCPU() * float64(time.Second)), pg: map[int32]time.Duration{}}
	rows, err := l.admin.Query(ctx, "SELECT pid FROM pg_stat_activity WHERE application_name = $1", l.name)
	if err != nil {
		return c
	}
	pids, _ := pgx.CollectRows(rows, pgx.RowTo[int32])
	for _, pid := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 12 {
			ut, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			c.pg[pid] = time.Duration(ut+st) * 10 * time.Millisecond // USER_HZ 100
		}
	}
	return c
}

// per formats the CPU spent since c0 by PostgreSQL and this process, per
// n things done. A backend that started since counts whole; one that ended
// is left out.
func (c cpu) per(c0 cpu, n int64) string {
	if n == 0 {
		return ""
	}
	var pg time.Duration
	for pid, t := range c.pg {
		pg += t - c0.pg[pid]
	}
	return fmt.Sprintf("CPU/op: PostgreSQL %dµs, load tool %dµs", pg.Microseconds()/n, (c.self-c0.self).Microseconds()/n)
}

package main

import (
	"context"
	"crypto/rand"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"insectscore/cmd/insectscore-load/cluster"
)

func init() {
	register("replicas", "replicas on one PostgreSQL behind a balancer: live delivery, a kill -9, a database restart", replicas)
}

// replicas runs insectscore replicas on one PostgreSQL schema behind a
// round-robin balancer, follows every table with event streams, writes
// boards at a steady rate, and reports delivery, losses and errors.
func replicas(args []string) error {
	fs := flag.NewFlagSet("insectscore-load replicas", flag.ContinueOnError)
	bin := fs.String("bin", "", "the insectscore binary (default: go build ./cmd/insectscore into a temporary directory)")
	db := fs.String("db", "", "PostgreSQL DSN whose schema the replicas share (default: a fresh schema in postgres://postgres@127.0.0.1:5432/test, dropped afterwards)")
	n := fs.Int("n", 3, "replicas")
	tables := fs.Int("tables", 750, "tables")
	perTable := fs.Int("streams", 4, "event streams per table")
	rate := fs.Float64("rate", 300, "board writes per second")
	steady := fs.Duration("steady", 30*time.Second, "writing before anything is disturbed")
	phase := fs.Duration("phase", 15*time.Second, "length of each later phase")
	kill := fs.Bool("kill", false, "kill -9 a replica after -steady, restart it after -phase")
	join := fs.Float64("join", 0.1, "with -kill, more streams opened once the killed replica is ready again, as a share of -tables×-streams")
	pgRestart := fs.Bool("pg-restart", false, "restart the machine's PostgreSQL (pg_ctlcluster … restart -m fast) mid-run: other programs using it see it too")
	pgEnd := fs.Duration("pg-end", 0, "for this long, end every PostgreSQL session of the replicas (pg_terminate_backend) mid-run")
	verbose := fs.Bool("v", false, "show the servers' logs")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ctx := context.Background()
	base := "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	dsn := *db
	if dsn == "" {
		var drop func()
		var err error
		if dsn, drop, err = newSchema(ctx, base); err != nil {
			return err
		}
		defer drop()
	} else if err := localDSN(dsn); err != nil {
		return err
	} else {
		base = dsn
	}
	// The replicas' sessions carry a name of their own, so that -pg-end
	// ends theirs only.
	app := "insectscore-load-" + strings.ToLower(rand.Text()[:8])
	dsn = withParam(dsn, "application_name", app)
	if *bin == "" {
		dir, err := os.MkdirTemp("", "insectscore-load-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		*bin = filepath.Join(dir, "insectscore")
		fmt.Fprintln(os.Stderr, "building insectscore…")
		build := exec.Command("go", "build", "-o", *bin, "insectscore/cmd/insectscore")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	var logs io.Writer = io.Discard
	if *verbose {
		logs = os.Stderr
	}
	c, err := cluster.Start(ctx, cluster.Options{Server: []string{*bin}, DB: dsn, Replicas: *n, Log: logs})
	if err != nil {
		return err
	}
	defer c.Stop()
	if err := loopback(c.Balancer.URL); err != nil {
		return err
	}
	l := cluster.Load{Tables: *tables, StreamsPerTable: *perTable, WritesPerSecond: *rate, Steady: *steady, Phase: *phase,
		Kill: *kill, Join: *join, Logf: func(format string, a ...any) {
			fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05.000 ")+format+"\n", a...)
		}}
	switch {
	case *pgRestart:
		l.Disrupt = cluster.RestartPostgres
	case *pgEnd > 0:
		l.Disrupt = func(ctx context.Context) error { return cluster.EndConnections(ctx, base, app, *pgEnd) }
	}
	rep, err := cluster.Run(ctx, c, l)
	if err != nil {
		return err
	}
	printReport(os.Stdout, rep)
	if f := rep.Failures(); len(f) > 0 {
		return fmt.Errorf("the run missed its goals: %s", strings.Join(f, "; "))
	}
	return nil
}

func printReport(w io.Writer, r *cluster.Report) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
	fmt.Fprintf(w, "tables %d, streams %d, writes acknowledged %d in %.1f s (%.0f/s), unfinished %d\n",
		r.Tables, r.Streams, r.Writes, r.Seconds, float64(r.Writes)/r.Seconds, r.Unfinished)
	fmt.Fprintln(w, "delivery until every stream of the table has the version (from the write's sending | from its acknowledgement):")
	for _, p := range r.Phases {
		fmt.Fprintf(w, "  %-14s writes %6d  send p50 %s p99 %s max %s | ack p50 %s p99 %s max %s | write p50 %s p99 %s\n",
			p.Name, p.Writes, ms(p.Send.P50), ms(p.Send.P99), ms(p.Send.Max), ms(p.Ack.P50), ms(p.Ack.P99), ms(p.Ack.Max), ms(p.WriteP50), ms(p.WriteP99))
		fmt.Fprintf(w, "  %-14s each stream from the ack: same replica p50 %s p99 %s, other replica (%d) p50 %s p99 %s\n",
			"", ms(p.Same.P50), ms(p.Same.P99), p.CrossReplica, ms(p.Cross.P50), ms(p.Cross.P99))
	}
	fmt.Fprintf(w, "lost %d, backwards %d, 5xx %d (503 without Retry-After %d), balancer retried %d, balancer 502 %d\n",
		r.Lost, r.Backwards, r.ServerErrors, r.NoRetryAfter, r.Retried, r.BalancerFailed)
	fmt.Fprintf(w, "statuses %v\n", r.Statuses)
	fmt.Fprintf(w, "stored: %d tables checked, %d not as acknowledged\n", r.StoredChecked, r.StoredBad)
	if len(r.Reconnects) > 0 {
		q := cluster.QuantilesOf(r.Reconnects)
		fmt.Fprintf(w, "reconnects %d: p50 %s p99 %s max %s (failed attempts %d)\n", len(r.Reconnects), ms(q.P50), ms(q.P99), ms(q.Max), r.ReconnectTries)
	}
	if r.Killed != "" {
		fmt.Fprintf(w, "killed %s: it had acknowledged %d writes; restarted, /readyz 200 after %s (%d probes refused, %d not ready); then it took %d requests (%.0f %%) and %d streams\n",
			r.Killed, r.KilledAcked, ms(r.Restart.Ready), r.Restart.Refused, r.Restart.Unready, r.AfterRestartRequests, 100*r.AfterRestartShare, r.AfterRestartStreams)
	}
	if r.Disrupted > 0 {
		fmt.Fprintf(w, "database away: disruption took %s; %d answers 503, from %s to %s after it began\n",
			ms(r.Disrupted), r.Unavailable, ms(r.FirstUnavailable), ms(r.LastUnavail))
	}
	fmt.Fprintf(w, "per replica (requests, streams): %v\n", r.PerReplica)
	if len(r.Breaks) > 0 {
		fmt.Fprintf(w, "streams ended or refused: %v\n", r.Breaks)
	}
	if len(r.BalancerErrors) > 0 {
		fmt.Fprintf(w, "balancer: errors from the replicas: %v\n", r.BalancerErrors)
	}
}

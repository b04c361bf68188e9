// Command insectscore-load drives insectscore servers on 127.0.0.1 with the
// loads the README's Performance section gives figures for. Each load is a
// subcommand in a file of its own:
//
//	insectscore-load <load> [flags]
//
// Run it with no arguments for the list. It refuses any target that is not
// on the loopback interface: it is a measuring tool, not a way to flood a
// server somewhere else. The writes and notify loads read the CPU of the
// server and of PostgreSQL from /proc, so they are built on Linux only.
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"net/url"
	"os"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"
)

// load is one subcommand: its one-line summary and what runs it with the
// arguments after its name.
type load struct {
	summary string
	run     func(args []string) error
}

var loads = map[string]load{}

// register adds a load; each file registers its own from init.
func register(name, summary string, run func(args []string) error) {
	if _, dup := loads[name]; dup {
		panic("insectscore-load: load " + name + " registered twice")
	}
	loads[name] = load{summary, run}
}

func main() {
	if len(os.Args) < 2 || loads[os.Args[1]].run == nil {
		usage()
		os.Exit(2)
	}
	if err := loads[os.Args[1]].run(os.Args[2:]); err != nil {
		fmt.Fprintln(os.Stderr, "insectscore-load:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: insectscore-load <load> [flags]\n\nloads:")
	names := make([]string, 0, len(loads))
	for n := range loads {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(os.Stderr, "  %-12s %s\n", n, loads[n].summary)
	}
}

// loopback refuses a target URL whose host is not a loopback address.
func loopback(target string) error {
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("target %q: %w", target, err)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("target %q: only 127.0.0.1 (loopback) targets are allowed", target)
	}
	return nil
}

// localDSN refuses a PostgreSQL that is not on this machine: each host of
// dsn, fallbacks included, is a loopback address or a local socket.
func localDSN(dsn string) error {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return fmt.Errorf("the PostgreSQL DSN: %w", err)
	}
	hosts := []string{cfg.Host}
	for _, f := range cfg.Fallbacks {
		hosts = append(hosts, f.Host)
	}
	for _, h := range hosts {
		if strings.HasPrefix(h, "/") || h == "localhost" {
			continue
		}
		if ip := net.ParseIP(h); ip == nil || !ip.IsLoopback() {
			return fmt.Errorf("only a PostgreSQL on 127.0.0.1 (loopback) or a local socket is allowed, not %q", h)
		}
	}
	return nil
}

// newSchema makes a schema of its own for a run on the local PostgreSQL
// at dsn, and returns dsn with it as the search path, and a function that
// drops it.
func newSchema(ctx context.Context, dsn string) (string, func(), error) {
	if err := localDSN(dsn); err != nil {
		return "", nil, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer conn.Close(ctx)
	schema := "insectscore_load_" + strings.ToLower(rand.Text()[:10])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return "", nil, err
	}
	return withParam(dsn, "search_path", schema), func() {
		if conn, err := pgx.Connect(context.Background(), dsn); err == nil {
			conn.Exec(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
			conn.Close(context.Background())
		}
	}, nil
}

// withParam is dsn with the parameter key set to value.
func withParam(dsn, key, value string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return dsn
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

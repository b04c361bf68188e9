// Command insectscore runs the insectscore server: the REST API and the
// embedded PWA on one port. One-shot subcommands work on the same
// database: recompute rebuilds every leaderboard from the plays, export
// and import move a group's history as JSON, backup copies a SQLite
// database while the server runs, and groups lists the groups.
//
// Every setting is an INSECTSCORE_* environment variable with a matching
// flag; a flag given on the command line wins over the environment.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"insectscore/api"
	"insectscore/api/live"
	"insectscore/models"
	_ "insectscore/scoring"
)

// config is the settings of every command; Addr is the server's alone.
type config struct {
	Addr     string
	DB       string
	BaseURL  string
	LogLevel string
	// TrustedProxies is a comma-separated list of proxy IPs or CIDR ranges.
	TrustedProxies string
	// MetricsAddr is where /metrics is served; empty means nowhere.
	MetricsAddr string
	// MaxStreamsPerClient and MaxStreams cap open event streams; empty
	// means the api package's defaults (64 and 10,000).
	MaxStreamsPerClient, MaxStreams string
	// HTTPS (tls.go): certificates from an ACME CA for TLSDomain, or
	// the host's own in TLSCert and TLSKey; empty addresses and
	// directories mean the defaults.
	TLSDomain, TLSCert, TLSKey, TLSAddr, HTTPAddr string
	TLSCache, ACMEDirectory, ACMEEmail, ACMECA    string
}

// env is what a command runs with.
type env struct {
	args           []string
	getenv         func(string) string
	stdout, stderr io.Writer
}

// command is a subcommand of insectscore.
type command struct {
	name, args, summary string
	run                 func(e env) error
}

// commands lists the subcommands; with none, insectscore serves.
var commands = []command{
	{"serve", "[-addr …]", "run the server (the default)", serve},
	{"recompute", "", "rebuild every leaderboard and rating history from the plays", recompute},
	{"export", "[-group ID] [-o FILE] [-force]", "write a group's history as JSON (the default group; standard output)", export},
	{"import", "FILE", "read a group's history written by export", importFile},
	{"backup", "[-force] FILE", "copy the SQLite database to FILE, also while the server runs", backup},
	{"groups", "", "list every group: id, name and number of plays", listGroups},
	{"help", "", "list the commands", nil}, // run answers it: the list is this table
}

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "insectscore:", err)
			os.Exit(1)
		}
	}
}

// run runs the subcommand named by the first argument; arguments that
// start with a flag, or none, run the server.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if name == "help" {
		usage(stdout)
		return nil
	}
	for _, c := range commands {
		if c.name == name {
			return c.run(env{args: args, getenv: getenv, stdout: stdout, stderr: stderr})
		}
	}
	usage(stderr)
	return fmt.Errorf("there is no command %q", name)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: insectscore [command] [flags]")
	fmt.Fprintln(w, "\ncommands:")
	width := 0
	for _, c := range commands {
		width = max(width, utf8.RuneCountInString(c.args))
	}
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %-*s %s\n", c.name, width, c.args, c.summary)
	}
	fmt.Fprintln(w, "\nEvery command takes -db (INSECTSCORE_DB) and -log-level (INSECTSCORE_LOG_LEVEL);")
	fmt.Fprintln(w, "insectscore COMMAND -h lists a command's flags.")
}

// flags is a flag set for a command with the settings every command
// shares, read from the environment first.
func flags(name string, cfg *config, getenv func(string) string, stderr io.Writer) *flag.FlagSet {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("insectscore "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.DB, "db", env("INSECTSCORE_DB", "./insectscore.db"), "SQLite file or postgres:// URL (INSECTSCORE_DB)")
	fs.StringVar(&cfg.BaseURL, "base-url", env("INSECTSCORE_BASE_URL", ""), "public origin for join and invite links, e.g. https://scores.example (INSECTSCORE_BASE_URL)")
	fs.StringVar(&cfg.LogLevel, "log-level", env("INSECTSCORE_LOG_LEVEL", "info"), "debug, info, warn or error (INSECTSCORE_LOG_LEVEL)")
	if name == "serve" {
		fs.StringVar(&cfg.Addr, "addr", env("INSECTSCORE_ADDR", defaultAddr), "listen address of plain http, with HTTPS off (INSECTSCORE_ADDR)")
		fs.StringVar(&cfg.TrustedProxies, "trusted-proxies", env("INSECTSCORE_TRUSTED_PROXIES", ""), "comma-separated IPs or CIDR ranges of reverse proxies whose X-Forwarded-* headers count (INSECTSCORE_TRUSTED_PROXIES)")
		fs.StringVar(&cfg.MetricsAddr, "metrics-addr", env("INSECTSCORE_METRICS_ADDR", ""), "listen address of the Prometheus metrics at /metrics, e.g. 127.0.0.1:9090; off when empty (INSECTSCORE_METRICS_ADDR)")
		fs.StringVar(&cfg.MaxStreamsPerClient, "max-streams-per-client", env("INSECTSCORE_MAX_STREAMS_PER_CLIENT", ""), "live-update streams one client address may hold open (default 64) (INSECTSCORE_MAX_STREAMS_PER_CLIENT)")
		fs.StringVar(&cfg.MaxStreams, "max-streams", env("INSECTSCORE_MAX_STREAMS", ""), "live-update streams open at once (default 10000) (INSECTSCORE_MAX_STREAMS)")
		fs.StringVar(&cfg.TLSDomain, "tls-domain", env("INSECTSCORE_TLS_DOMAIN", ""), "serve HTTPS with certificates from an ACME CA (Let's Encrypt) for these comma-separated names (INSECTSCORE_TLS_DOMAIN)")
		fs.StringVar(&cfg.TLSCert, "tls-cert", env("INSECTSCORE_TLS_CERT", ""), "serve HTTPS with this PEM certificate chain, read again when it changes and on SIGHUP (INSECTSCORE_TLS_CERT)")
		fs.StringVar(&cfg.TLSKey, "tls-key", env("INSECTSCORE_TLS_KEY", ""), "the PEM private key of -tls-cert (INSECTSCORE_TLS_KEY)")
		fs.StringVar(&cfg.TLSAddr, "tls-addr", env("INSECTSCORE_TLS_ADDR", ""), "listen address of HTTPS (default "+defaultTLSAddr+") (INSECTSCORE_TLS_ADDR)")
		fs.StringVar(&cfg.HTTPAddr, "http-addr", env("INSECTSCORE_HTTP_ADDR", ""), "with HTTPS on, listen address of plain http, which redirects to https and answers ACME's http-01 (default "+defaultHTTPAddr+"; off for none) (INSECTSCORE_HTTP_ADDR)")
		fs.StringVar(&cfg.TLSCache, "tls-cache", env("INSECTSCORE_TLS_CACHE", ""), "directory of the ACME account and certificates (default certs/ beside the SQLite file; with PostgreSQL, insectscore/certs in the user's cache directory) (INSECTSCORE_TLS_CACHE)")
		fs.StringVar(&cfg.ACMEDirectory, "acme-directory", env("INSECTSCORE_ACME_DIRECTORY", ""), "directory URL of the ACME CA (default Let's Encrypt's) (INSECTSCORE_ACME_DIRECTORY)")
		fs.StringVar(&cfg.ACMEEmail, "acme-email", env("INSECTSCORE_ACME_EMAIL", ""), "contact address given to the ACME CA; optional (INSECTSCORE_ACME_EMAIL)")
		fs.StringVar(&cfg.ACMECA, "acme-ca", env("INSECTSCORE_ACME_CA", ""), "PEM root certificate to trust for the ACME CA's own https, for a private CA (INSECTSCORE_ACME_CA)")
	}
	return fs
}

// parse parses a command's flags; args is how many arguments it takes
// after them.
func parse(fs *flag.FlagSet, cfg *config, args []string, n int) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case fs.NArg() == n:
	case n == 0:
		return fmt.Errorf("%s takes flags only, not %q", fs.Name(), fs.Args())
	default:
		return fmt.Errorf("%s takes %d argument(s) after its flags, not %q", fs.Name(), n, fs.Args())
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if _, err := logLevel(cfg.LogLevel); err != nil {
		return err
	}
	if err := checkBaseURL(cfg.BaseURL); err != nil {
		return err
	}
	return checkDB(cfg.DB)
}

// checkBaseURL refuses a base URL that is not an origin: links are built
// by appending /t/<code> to it, so a path, query or fragment would break
// every link, and a relative URL would not open on a phone.
func checkBaseURL(base string) error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	problem := ""
	switch {
	case err != nil:
		problem = "it is not a URL"
	case u.Scheme != "http" && u.Scheme != "https":
		problem = "it must start with https:// or http://"
	case u.Opaque != "" || u.Hostname() == "":
		problem = "it has no host"
	case u.User != nil:
		problem = "it must not hold a user name or password"
	case u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(base, "#"):
		problem = "it must not have a path, query or fragment"
	}
	if problem == "" {
		return nil
	}
	return fmt.Errorf("base URL %q (-base-url, INSECTSCORE_BASE_URL): %s; give the public origin, like https://scores.example or http://192.168.1.20:8080", redactURL(base), problem)
}

// urlScheme matches the scheme of a URL: letters, digits, +, - and . then ://.
var urlScheme = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*://`)

// checkDB refuses a -db that names neither a SQLite file nor PostgreSQL:
// SQLite would take mysql://host/db for a path and make a directory
// "mysql:".
func checkDB(dsn string) error {
	if isPostgres(dsn) || !urlScheme.MatchString(dsn) {
		return nil
	}
	return fmt.Errorf("database %q (-db, INSECTSCORE_DB): insectscore stores in a SQLite file, given by its path like ./insectscore.db, or in PostgreSQL, given by a postgres:// or postgresql:// URL", redactURL(dsn))
}

// redactURL hides the password of a URL that is to be shown.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return s
}

func isPostgres(dsn string) bool {
	return strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://")
}

// checkSQLiteFile says in plain words what SQLite would report as "unable
// to open database file" or "attempt to write a readonly database": the
// database's directory cannot be made or written (SQLite writes its -wal
// and -shm files beside the database), or the file is read-only.
func checkSQLiteFile(dsn string) error {
	path, _, _ := strings.Cut(dsn, "?")
	if isPostgres(dsn) || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create the database's directory %s: %w", dir, unwrapPath(err))
	}
	probe, err := os.CreateTemp(dir, ".insectscore-write-check-*")
	if err != nil {
		return fmt.Errorf("the database's directory %s is not writable (%v): SQLite writes its -wal and -shm files beside the database, so insectscore needs to create files there", dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	switch {
	case err == nil:
		f.Close()
	case errors.Is(err, fs.ErrNotExist):
		// a first start: SQLite creates it
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return fmt.Errorf("the database %s is read-only (%v): insectscore needs to write to it; give the user it runs as write access, or serve a copy", path, unwrapPath(err))
	default:
		return fmt.Errorf("the database %s: %w", path, unwrapPath(err))
	}
	return nil
}

// existingDB refuses a SQLite file that is not there, for the commands
// that read history: SQLite would make an empty database of a mistyped
// path, and the command would report on that.
func existingDB(dsn string) error {
	path, _, _ := strings.Cut(dsn, "?")
	if isPostgres(dsn) || path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("there is no database at %s (-db, INSECTSCORE_DB)", path)
	}
	return nil
}

// unwrapPath drops the operation and path of a *fs.PathError, which the
// messages above already name.
func unwrapPath(err error) error {
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// parseConfig reads the server's settings: the environment, then the
// flags, which override it.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	var cfg config
	err := parse(flags("serve", &cfg, getenv, stderr), &cfg, args, 0)
	return cfg, err
}

// trustedProxies splits and checks the -trusted-proxies list.
func trustedProxies(list string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(list, ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if _, _, err := net.ParseCIDR(p); err != nil && net.ParseIP(p) == nil {
			return nil, fmt.Errorf("trusted proxy %q: give an IP address or a CIDR range like 10.0.0.0/8", p)
		}
		out = append(out, p)
	}
	return out, nil
}

func logLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	if err != nil {
		return l, fmt.Errorf("log level %q: use debug, info, warn or error", s)
	}
	return l, nil
}

// open sets up logging to stderr and opens the database.
func open(ctx context.Context, cfg config, stderr io.Writer) (*models.Store, *slog.Logger, error) {
	level, err := logLevel(cfg.LogLevel)
	if err != nil {
		return nil, nil, err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	if err := checkSQLiteFile(cfg.DB); err != nil {
		return nil, nil, err
	}
	store, err := models.Open(ctx, cfg.DB, log)
	if err != nil {
		return nil, nil, fmt.Errorf("open database: %w", err)
	}
	return store, log, nil
}

// withStore runs a one-shot command's work on the database of cfg and
// closes it afterwards.
func withStore(cfg config, e env, fn func(ctx context.Context, store *models.Store) error) error {
	ctx := context.Background()
	store, _, err := open(ctx, cfg, e.stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	return fn(ctx, store)
}

// drainTimeout bounds the graceful shutdown; tests shorten it.
var drainTimeout = 10 * time.Second

// serve starts the server and blocks until SIGINT or SIGTERM, then drains
// open requests for up to ten seconds.
// serving, when set, sees the store before the server starts: the crash
// tests arm a kill between a change and its answer.
var serving func(*models.Store)

func serve(e env) error {
	cfg, err := parseConfig(e.args, e.getenv, e.stderr)
	if err != nil {
		return err
	}
	https, err := newTLS(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	store, log, err := open(ctx, cfg, e.stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	if serving != nil {
		serving(store)
	}
	broker, err := newBroker(ctx, cfg.DB, log)
	if err != nil {
		return err
	}
	proxies, err := trustedProxies(cfg.TrustedProxies)
	if err != nil {
		return err
	}
	perClient, total, err := streamCaps(cfg)
	if err != nil {
		return err
	}
	metrics := api.NewMetrics()
	app, err := api.New(api.Config{BaseURL: cfg.BaseURL, Logger: log, Store: store, Broker: broker, TrustedProxies: proxies,
		MaxStreamsPerClient: perClient, MaxStreams: total, Metrics: metrics})
	if err != nil {
		return err
	}
	if cfg.MetricsAddr != "" {
		stopMetrics, err := serveMetrics(cfg.MetricsAddr, metrics, log)
		if err != nil {
			return err
		}
		defer stopMetrics()
	}
	// Bind first, so "listening" is only logged once it is true, with
	// the port the system chose for :0.
	var ln, plainLn net.Listener
	if https == nil {
		ln, err = net.Listen("tcp", cfg.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s (-addr, INSECTSCORE_ADDR): %w", cfg.Addr, err)
		}
	} else if ln, plainLn, err = https.listen(); err != nil {
		return err
	}
	errc := make(chan error, 2)
	go func() { errc <- app.Listener(ln) }()
	if https != nil {
		stopHTTPS, err := https.start(ctx, cfg.BaseURL, ln, plainLn, errc, log)
		if err != nil {
			app.ShutdownWithTimeout(drainTimeout)
			if errors.Is(err, errStopped) {
				log.Info("stopped before serving")
				return nil
			}
			return err
		}
		defer stopHTTPS()
		log.Info("listening", "addr", ln.Addr().String(), "https", true, "http_addr", addrOf(plainLn), "db", redactURL(cfg.DB))
	} else {
		log.Info("listening", "addr", ln.Addr().String(), "db", redactURL(cfg.DB))
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	streams := metrics.OpenStreams()
	log.Info("shutting down", "streams", streams)
	broker.Close() // ends open event streams, which would hold the drain
	if err := app.ShutdownWithTimeout(drainTimeout); err != nil {
		if !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		// Requests still running after the drain end with the process: a
		// stop that was asked for is not a failure.
		log.Warn("shutdown: the drain took longer than "+drainTimeout.String()+"; closing the connections still open",
			"streams", streams, "connections", app.Server().GetOpenConnectionsCount())
		return nil
	}
	if err := <-errc; err != nil {
		return err
	}
	log.Info("stopped", "streams", streams)
	return nil
}

// closingBroker is a live-update broker the server closes on shutdown.
type closingBroker interface {
	live.Broker
	Close()
}

// newBroker picks how live updates travel: within this process on SQLite,
// and across replicas through LISTEN/NOTIFY on PostgreSQL.
func newBroker(ctx context.Context, dsn string, log *slog.Logger) (closingBroker, error) {
	if isPostgres(dsn) {
		return live.NewPGBroker(ctx, dsn, "", log)
	}
	return live.NewMemoryBroker(), nil
}

// recompute answers insectscore recompute: after a change to the rating
// model, or a repair of the plays by hand.
func recompute(e env) error {
	var cfg config
	if err := parse(flags("recompute", &cfg, e.getenv, e.stderr), &cfg, e.args, 0); err != nil {
		return err
	}
	if err := existingDB(cfg.DB); err != nil {
		return err
	}
	return withStore(cfg, e, func(ctx context.Context, store *models.Store) error {
		start := time.Now()
		if err := store.RecomputeRatings(ctx); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "recomputed every group's leaderboards and rating histories in %s from their plays (%s)\n",
			cfg.DB, time.Since(start).Round(time.Millisecond))
		return nil
	})
}

// export answers insectscore export: a group's history as the JSON file
// GET /api/v1/groups/{id}/export gives. The file holds the group's id,
// which is its invite, so it is written as backup writes its copy: a new
// file readable by its owner only, an existing one replaced only with
// -force.
func export(e env) error {
	var cfg config
	var group, out string
	var force bool
	fs := flags("export", &cfg, e.getenv, e.stderr)
	fs.StringVar(&group, "group", models.DefaultGroup, "the id of the group to export")
	fs.StringVar(&out, "o", "", "the file to write; standard output if not given")
	fs.BoolVar(&force, "force", false, "replace the -o file if it exists")
	if err := parse(fs, &cfg, e.args, 0); err != nil {
		return err
	}
	if err := existingDB(cfg.DB); err != nil {
		return err
	}
	exists := fmt.Errorf("%s exists: name another file, or add -force to replace it", out)
	if _, err := os.Lstat(out); out != "" && err == nil && !force {
		return exists // before the work; placeFile checks again
	}
	var data []byte
	err := withStore(cfg, e, func(ctx context.Context, store *models.Store) (err error) {
		data, err = store.ExportGroup(ctx, group)
		return err
	})
	if errors.Is(err, models.ErrNotFound) {
		return fmt.Errorf("there is no group %q in %s", group, cfg.DB)
	}
	if err != nil {
		return err
	}
	if out == "" {
		_, err = e.stdout.Write(data)
		return err
	}
	err = writeFile(out, data, force)
	if errors.Is(err, models.ErrBackupExists) {
		return exists
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", out, unwrapPath(err))
	}
	fmt.Fprintf(e.stderr, "wrote group %q to %s\n", group, out)
	return nil
}

// writeFile writes data to a new file readable by its owner only and
// gives it the name dest once it is whole and synced, as models'
// BackupSQLite places a backup: a crash leaves dest as it was, and the
// file is never one that was there before, with its mode, nor what a
// symlink at dest points to. A file or symlink at dest is
// models.ErrBackupExists unless replace is set; then the rename replaces
// it, a link by the file.
func writeFile(dest string, data []byte, replace bool) error {
	// CreateTemp makes a file that was not there (O_EXCL), of mode 0600.
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once it has dest's name
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return models.PlaceFile(tmp.Name(), dest, replace)
}

// importFile answers insectscore import FILE.
func importFile(e env) error {
	var cfg config
	fs := flags("import", &cfg, e.getenv, e.stderr)
	if err := parse(fs, &cfg, e.args, 1); err != nil {
		return err
	}
	name := fs.Arg(0)
	// Read twice (checked whole, then written), never held in memory.
	open := func() (io.ReadCloser, error) { return os.Open(name) }
	r, err := open()
	if err != nil {
		return err
	}
	r.Close()
	softMemoryLimit(e.getenv, importMemoryLimit)
	var g *models.Group
	err = withStore(cfg, e, func(ctx context.Context, store *models.Store) (err error) {
		g, err = store.ImportGroupFile(ctx, open, importProgress(e.stderr, time.Now, 2*time.Second))
		return err
	})
	if ce := (*models.ConflictError)(nil); errors.As(err, &ce) {
		return errors.New(ce.String())
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "imported group %q (id %s) into %s\n", g.Name, g.ID, cfg.DB)
	if cfg.BaseURL != "" {
		fmt.Fprintf(e.stdout, "invite link: %s/g/%s\n", cfg.BaseURL, g.ID)
	}
	return nil
}

// importMemoryLimit is the Go heap an import aims to stay under. An
// import keeps little (a batch of plays, the file's play ids as hashes:
// about 40 MB at a million plays), but the collector lets the heap grow
// to twice what it keeps before it runs, and garbage from every batch
// piles up to that: 241 MB of RSS at a million plays without the limit.
const importMemoryLimit = 120 << 20

// softMemoryLimit asks the collector to keep the heap under limit, unless
// GOMEMLIMIT says otherwise. It is soft: a heap that needs more gets it
// (the runtime caps the collector's share of the CPU), it is only
// collected more often on the way.
func softMemoryLimit(getenv func(string) string, limit int64) {
	if getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(limit)
	}
}

// importProgress reports an import's progress on w, a line every so
// often and one at the end of each stage, so a long import shows it is
// moving.
func importProgress(w io.Writer, now func() time.Time, every time.Duration) func(models.ImportProgress) {
	last := now()
	return func(p models.ImportProgress) {
		done := p.Total > 0 && p.Plays == p.Total
		if !done && now().Sub(last) < every {
			return
		}
		last = now()
		switch {
		case p.Total == 0:
			fmt.Fprintf(w, "import: %s: %d plays read\n", p.Stage, p.Plays)
		default:
			fmt.Fprintf(w, "import: %s: %d of %d plays (%d%%)\n", p.Stage, p.Plays, p.Total, 100*p.Plays/p.Total)
		}
	}
}

// backup answers insectscore backup FILE: a consistent copy of the SQLite
// database, taken while the server runs, checked before it gets FILE's
// name.
func backup(e env) error {
	var cfg config
	var force bool
	fs := flags("backup", &cfg, e.getenv, e.stderr)
	fs.BoolVar(&force, "force", false, "replace FILE if it exists")
	if err := parse(fs, &cfg, e.args, 1); err != nil {
		return err
	}
	if err := existingDB(cfg.DB); err != nil {
		return err
	}
	dest := fs.Arg(0)
	start := time.Now()
	r, err := models.BackupSQLite(context.Background(), cfg.DB, dest, force)
	switch {
	case errors.Is(err, models.ErrBackupNotSQLite):
		return fmt.Errorf("backup copies a SQLite database, and %s is PostgreSQL: use pg_dump, e.g. pg_dump --format=custom --file=%s \"$INSECTSCORE_DB\"", redactURL(cfg.DB), dest)
	case errors.Is(err, models.ErrBackupExists):
		return fmt.Errorf("%s exists: name another file, or add -force to replace it", dest)
	case err != nil:
		return err
	}
	fmt.Fprintf(e.stdout, "backed up %s to %s in %s: %s, schema version %d, %s, %s; integrity check ok\n",
		cfg.DB, dest, time.Since(start).Round(time.Millisecond), byteSize(r.Bytes), r.SchemaVersion,
		count(r.Groups, "group"), count(r.Plays, "play"))
	return nil
}

// count writes n things: 1 play, 2 plays.
func count(n int64, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// byteSize writes n bytes for people: 512 B, 1.4 MB.
func byteSize(n int64) string {
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f, unit := float64(n)/1000, "kB"
	for _, u := range []string{"MB", "GB", "TB"} {
		if f < 1000 {
			break
		}
		f, unit = f/1000, u
	}
	return fmt.Sprintf("%.1f %s", f, unit)
}

// listGroups answers insectscore groups: a table of every group's id,
// name and number of plays. An id is the group's invite, so the list is
// for the server's operator.
func listGroups(e env) error {
	var cfg config
	if err := parse(flags("groups", &cfg, e.getenv, e.stderr), &cfg, e.args, 0); err != nil {
		return err
	}
	if err := existingDB(cfg.DB); err != nil {
		return err
	}
	var groups []models.GroupPlays
	err := withStore(cfg, e, func(ctx context.Context, store *models.Store) (err error) {
		groups, err = store.GroupsWithCounts(ctx)
		return err
	})
	if err != nil {
		return err
	}
	// Columns as wide as their widest cell; the counts aligned right.
	rows := [][3]string{{"ID", "NAME", "PLAYS"}}
	for _, g := range groups {
		rows = append(rows, [3]string{g.ID, printable(g.Name), strconv.FormatInt(g.Plays, 10)})
	}
	var width [3]int
	for _, r := range rows {
		for i, cell := range r {
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		pad := func(s string, n int) string { return strings.Repeat(" ", n-utf8.RuneCountInString(s)) }
		fmt.Fprintf(&b, "%s%s  %s%s  %s%s\n", r[0], pad(r[0], width[0]), r[1], pad(r[1], width[1]), pad(r[2], width[2]), r[2])
	}
	_, err = io.WriteString(e.stdout, b.String())
	return err
}

// printable keeps a name typed by anyone from moving the cursor,
// recolouring the operator's terminal, or reordering or hiding the list: a
// name with a control character, a bidi control (a right-to-left override
// shows "bulc" as "club" and turns the columns after it round), another
// format character (zero-width ones hide), any other character that is not
// graphic, or bytes that are not UTF-8 is shown quoted, those characters
// escaped. Right-to-left letters alone are graphic and stay as typed.
func printable(name string) string {
	for _, r := range name {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) ||
			unicode.Is(unicode.Cf, r) || !unicode.IsGraphic(r) {
			return strconv.QuoteToGraphic(name)
		}
	}
	return name
}

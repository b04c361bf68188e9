// Command insectscore runs the insectscore server: the REST API and the
// embedded PWA on one port.
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
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"insectscore/api"
	"insectscore/models"
	_ "insectscore/scoring"
)

// config is the server's settings.
type config struct {
	Addr     string
	DB       string
	BaseURL  string
	LogLevel string
}

// parseConfig reads the environment, then the flags, which override it.
func parseConfig(args []string, getenv func(string) string, stderr io.Writer) (config, error) {
	env := func(key, def string) string {
		if v := getenv(key); v != "" {
			return v
		}
		return def
	}
	var cfg config
	fs := flag.NewFlagSet("insectscore", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.Addr, "addr", env("INSECTSCORE_ADDR", ":8080"), "listen address (INSECTSCORE_ADDR)")
	fs.StringVar(&cfg.DB, "db", env("INSECTSCORE_DB", "./insectscore.db"), "SQLite file or postgres:// URL (INSECTSCORE_DB)")
	fs.StringVar(&cfg.BaseURL, "base-url", env("INSECTSCORE_BASE_URL", ""), "public origin for join links, e.g. https://scores.example (INSECTSCORE_BASE_URL)")
	fs.StringVar(&cfg.LogLevel, "log-level", env("INSECTSCORE_LOG_LEVEL", "info"), "debug, info, warn or error (INSECTSCORE_LOG_LEVEL)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	return cfg, nil
}

func logLevel(s string) (slog.Level, error) {
	var l slog.Level
	err := l.UnmarshalText([]byte(s))
	if err != nil {
		return l, fmt.Errorf("log level %q: use debug, info, warn or error", s)
	}
	return l, nil
}

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "insectscore:", err)
			os.Exit(1)
		}
	}
}

// run starts the server and blocks until SIGINT or SIGTERM, then drains
// open requests for up to ten seconds.
func run(args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if err != nil {
		return err
	}
	level, err := logLevel(cfg.LogLevel)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	store, err := models.Open(ctx, cfg.DB, log)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer store.Close()
	broker := models.NewMemoryBroker()
	app, err := api.New(api.Config{BaseURL: cfg.BaseURL, Logger: log, Store: store, Broker: broker})
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() {
		log.Info("listening", "addr", cfg.Addr, "db", cfg.DB)
		errc <- app.Listen(cfg.Addr)
	}()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	broker.Close() // ends open event streams, which would hold the drain
	if err := app.ShutdownWithTimeout(10 * time.Second); err != nil {
		return err
	}
	return <-errc
}

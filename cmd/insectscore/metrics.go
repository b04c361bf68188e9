package main

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"time"

	"insectscore/api"
)

// serveMetrics serves the app's metrics at GET /metrics on a listener of
// their own, so that they are never public by accident: bind it to a
// private address. It returns once bound, with the function that stops it.
func serveMetrics(addr string, m *api.Metrics, log *slog.Logger) (stop func(), err error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s (-metrics-addr, INSECTSCORE_METRICS_ADDR): %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: 2 * time.Minute}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "err", err)
		}
	}()
	log.Info("serving metrics", "addr", ln.Addr().String(), "path", "/metrics")
	return func() { srv.Close() }, nil
}

// streamCaps reads -max-streams-per-client and -max-streams: whole
// numbers above zero, or empty for the defaults.
func streamCaps(cfg config) (perClient, total int, err error) {
	if perClient, err = positive("-max-streams-per-client (INSECTSCORE_MAX_STREAMS_PER_CLIENT)", cfg.MaxStreamsPerClient); err != nil {
		return 0, 0, err
	}
	total, err = positive("-max-streams (INSECTSCORE_MAX_STREAMS)", cfg.MaxStreams)
	return perClient, total, err
}

func positive(name, s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("%s %q: give a whole number above 0", name, s)
	}
	return n, nil
}

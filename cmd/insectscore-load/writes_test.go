//go:build linux

package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"insectscore/api"
	"insectscore/models"
	"insectscore/models/pgtest"
)

// TestWritesLoad runs the "writes" load for half a second against a server
// in the test, on a SQLite file and on PostgreSQL: the tables are made
// through the API, every PUT is answered 200, and the floor (a Go loop on
// SQLite, pgbench on PostgreSQL) and the saturated and paced runs report
// writes.
func TestWritesLoad(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		testWritesLoad(t, filepath.Join(t.TempDir(), "load.db"))
	})
	t.Run("postgres", func(t *testing.T) {
		base := os.Getenv("INSECTSCORE_TEST_POSTGRES")
		if base == "" {
			t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
		}
		testWritesLoad(t, pgtest.Schema(t, base))
	})
}

func testWritesLoad(t *testing.T, dsn string) {
	store, err := models.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	// The tables are made from many client addresses through 127.0.0.1.
	app, err := api.New(api.Config{Store: store, TrustedProxies: []string{"127.0.0.1"}, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	defer app.Shutdown()

	// Saturated against the floor, then paced at a rate a server built
	// with -race keeps up with, and on PostgreSQL pgbench at that rate.
	var floor, saturated, paced bool
	for _, args := range [][]string{{"-third=false"}, {"-third=false", "-rate", "20"}} {
		var out bytes.Buffer
		runs, err := writes(append([]string{"-target", "http://" + ln.Addr().String(), "-db", dsn, "-pid", strconv.Itoa(os.Getpid()),
			"-tables", "61", "-writers", "4", "-duration", "500ms", "-warmup", "100ms", "-floor-clients", "2"}, args...), &out)
		t.Log(out.String())
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			if r.Rate <= 0 || r.Label != "floor" && r.Writes == 0 {
				t.Errorf("%s (paced at %.0f/s) reports %.0f/s, %d writes", r.Label, r.Paced, r.Rate, r.Writes)
			}
			switch {
			case r.Label == "floor":
				floor = true
			case r.Paced > 0:
				paced = true
			default:
				saturated = true
				if r.ServerCPU <= 0 {
					t.Errorf("the saturated run reports the server's CPU as %.2f cores", r.ServerCPU)
				}
			}
		}
		if !strings.Contains(out.String(), "errors none") {
			t.Error("the report does not say the PUTs had no errors")
		}
	}
	if !floor || !saturated || !paced {
		t.Errorf("runs: floor %v, saturated %v, paced %v; want all three", floor, saturated, paced)
	}
}

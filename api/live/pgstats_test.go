package live

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"insectscore/models/pgtest"
)

func testPostgres(t *testing.T) string {
	t.Helper()
	dsn := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
	}
	return dsn
}

// testBroker is a PGBroker on dsn and channel, closed when the test ends.
func testBroker(t *testing.T, dsn, channel string) *PGBroker {
	t.Helper()
	b, err := NewPGBroker(context.Background(), dsn, channel, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// testChannel is a channel (and application name) of one test's own.
func testChannel() string {
	return "insectscore_test_" + strings.ToLower(rand.Text())
}

// waitFor polls cond for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("no %s within 10 s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestPGBrokerStats: a replica counts the notifications it sends, the
// others' it hears of, and the tables it reads again for its streams,
// and times each such change from the sender's NOTIFY.
func TestPGBrokerStats(t *testing.T) {
	dsn := testPostgres(t)
	channel := testChannel()
	a := testBroker(t, dsn, channel)
	b := testBroker(t, dsn, channel)
	b.SetSource(func(_ context.Context, code string, _ []byte) (Event, bool, error) {
		return Event{Version: 3, Data: []byte(code)}, true, nil
	})
	var mu sync.Mutex
	var lags []time.Duration
	b.ObserveDelivery(func(d time.Duration) {
		mu.Lock()
		lags = append(lags, d)
		mu.Unlock()
	})

	waitTelling(t, a, b)
	sub := b.Subscribe("ABC234")
	sent := time.Now()
	a.Publish("ABC234", Event{Version: 3, Data: []byte("a")})
	waitEvent(t, sub)
	took := time.Since(sent)
	a.Publish("XYZ789", Event{Version: 1, Data: []byte("a")}) // followed by no stream of b
	waitFor(t, "second notification at b", func() bool { return b.Stats().Received == 2 })

	if got, want := a.Stats(), (PGStats{Sent: 2, Telling: true}); got != want {
		t.Errorf("the sender's stats %+v, want %+v (its own notifications are not received)", got, want)
	}
	if got, want := b.Stats(), (PGStats{Received: 2, Refreshed: 1, Read: 1, Telling: true}); got != want {
		t.Errorf("the receiver's stats %+v, want %+v", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lags) != 1 || lags[0] < 0 || lags[0] > took+time.Millisecond {
		t.Errorf("delivery times %v, want one between 0 and %v", lags, took)
	}
}

// TestPGBrokerStatsReconnect: a replica whose connections PostgreSQL ends
// counts the notification it could not send and the reconnect of its
// listener, after which it reads its followed tables again.
func TestPGBrokerStatsReconnect(t *testing.T) {
	base := testPostgres(t)
	name := testChannel()
	ctx := context.Background()
	b := testBroker(t, pgtest.Named(t, base, name), name)
	b.SetSource(func(_ context.Context, code string, _ []byte) (Event, bool, error) {
		return Event{Version: 1}, true, nil
	})
	b.Subscribe("ABC234")
	b.Publish("ABC234", Event{Version: 1})

	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	var ended int
	if err := admin.QueryRow(ctx, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1", name).Scan(&ended); err != nil {
		t.Fatal(err)
	}
	if ended != 2 {
		t.Fatalf("ended %d connections of the replica, want 2 (LISTEN and NOTIFY)", ended)
	}
	waitFor(t, "reconnect", func() bool { return b.Stats().Reconnects == 1 })
	waitFor(t, "refresh after the reconnect", func() bool { return b.Stats().Refreshed == 1 })
	b.Publish("ABC234", Event{Version: 2}) // fails on the ended connection, sent on a new one
	b.Publish("ABC234", Event{Version: 3})
	if got, want := b.Stats(), (PGStats{Sent: 3, Failed: 1, Refreshed: 1, Reconnects: 1, Read: 1}); got != want {
		t.Errorf("stats %+v, want %+v", got, want)
	}
}

package api

import (
	"context"
	"crypto/rand"
	"os"
	"strings"
	"testing"
	"time"

	"insectscore/api/live"
	"insectscore/models/pgtest"
)

// TestMetricsNotify: on PostgreSQL with replicas, each replica's metrics
// show PostgreSQL's NOTIFY queue, the changes it told the others of, those
// it heard of and read again for its streams, and how long they took to
// arrive; on SQLite there are no such series.
func TestMetricsNotify(t *testing.T) {
	pg := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if pg == "" {
		t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
	}
	dsn := pgtest.Schema(t, pg)
	channel := "insectscore_test_" + strings.ToLower(rand.Text())
	var (
		bases   [2]string
		metrics [2]*Metrics
	)
	for i := range bases {
		broker, err := live.NewPGBroker(context.Background(), dsn, channel, nil)
		if err != nil {
			t.Fatal(err)
		}
		metrics[i] = NewMetrics()
		_, bases[i] = serveLive(t, Config{Store: openTestStore(t, dsn), Broker: broker, Metrics: metrics[i]})
	}
	ct, host, board := fullInsectaTable(t, bases[0])
	events := openEventsAt(t, bases[1]+"/api/v1/tables/"+ct.Code+"/events", "")
	wantRetry(t, events)
	nextEvent(t, events)
	// The notifications of the table's creation and boards are counted
	// once read, and read again if the stream followed the table by then.
	sent := func() float64 { return gaugeValue(t, metrics[0], "insectscore_notify_sent_total") }
	received := func() float64 { return gaugeValue(t, metrics[1], "insectscore_notify_received_total") }
	for end := time.Now().Add(eventWait); received() != sent(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(end) {
			t.Fatalf("the other replica received %v notifications, want %v", received(), sent())
		}
	}
	sent0, recv0 := sent(), received()
	refr0 := gaugeValue(t, metrics[1], "insectscore_notify_refreshed_total")
	read0 := gaugeValue(t, metrics[1], "insectscore_notify_read_total")
	carried0 := gaugeValue(t, metrics[0], "insectscore_notify_carried_total")
	del0 := gaugeValue(t, metrics[1], "insectscore_notify_delivery_seconds")

	mustHTTP(t, "PUT", bases[0]+boardPath(ct.Code, 0), board(0, 30), host, 200)
	for ev := nextEvent(t, events); idVersion(ev.id) != "6"; ev = nextEvent(t, events) {
	}
	families, _ := scrape(t, metrics[1])
	for _, tt := range []struct {
		name string
		want float64
	}{
		{"insectscore_notify_received_total", recv0 + 1},
		{"insectscore_notify_refreshed_total", refr0 + 1},
		// The board's event came in the notification: no read.
		{"insectscore_notify_read_total", read0},
		{"insectscore_notify_delivery_seconds", del0 + 1},
		{"insectscore_notify_sent_total", 0},
		{"insectscore_notify_failed_total", 0},
		{"insectscore_notify_listen_reconnects_total", 0},
	} {
		if got := metricValue(t, families, tt.name); got != tt.want {
			t.Errorf("the receiving replica's %s = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := gaugeValue(t, metrics[0], "insectscore_notify_carried_total"); got != carried0+1 {
		t.Errorf("the writing replica's insectscore_notify_carried_total = %v, want %v", got, carried0+1)
	}
	if got := sent(); got != sent0+1 {
		t.Errorf("the writing replica's insectscore_notify_sent_total = %v, want %v", got, sent0+1)
	}
	if u := metricValue(t, families, "insectscore_notify_queue_usage"); u < 0 || u > 1 {
		t.Errorf("insectscore_notify_queue_usage = %v, want a fraction", u)
	}

	sqlite := NewMetrics()
	newTestAppWith(t, Config{Metrics: sqlite})
	f, _ := scrape(t, sqlite)
	for name := range f {
		if strings.HasPrefix(name, "insectscore_notify_") {
			t.Errorf("SQLite with the in-process broker has %s", name)
		}
	}
}

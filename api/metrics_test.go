package api

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"insectscore/models"
)

// scrape reads m as Prometheus would.
func scrape(t *testing.T, m *Metrics) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d", rec.Code)
	}
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("Content-Type %q, want Prometheus text", ct)
	}
	text := rec.Body.String()
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("the metrics are not Prometheus text: %v", err)
	}
	return families, text
}

// metricValue is the value of the series of name whose labels include
// labels (name=value pairs); a histogram gives its count.
func metricValue(t *testing.T, families map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	t.Helper()
	f, ok := families[name]
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		match := true
		for i := 0; i+1 < len(labels); i += 2 {
			match = match && have[labels[i]] == labels[i+1]
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.Counter.GetValue()
		case m.Gauge != nil:
			return m.Gauge.GetValue()
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount())
		}
	}
	t.Fatalf("no series %s%v", name, labels)
	return 0
}

func gaugeValue(t *testing.T, m *Metrics, name string) float64 {
	t.Helper()
	families, _ := scrape(t, m)
	return metricValue(t, families, name)
}

// TestMetrics: after some traffic the metrics say what happened, by route
// pattern (never by code or group id), and each app counts apart.
func TestMetrics(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		m := NewMetrics()
		_, base := serveLive(t, Config{Store: store, Metrics: m})
		g := decodeJSON[groupView](t, mustHTTP(t, "POST", base+"/api/v1/groups", `{"name": "Club"}`, nil, 201))
		tbl := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
			`{"game": "insectarium", "players": ["Ana", "Ben"], "group": "`+g.ID+`"}`, nil, 201))
		events := openEvents(t, base, tbl.Code, "")
		wantRetry(t, events)
		for seat, rows := range []int{9, 12} {
			mustHTTP(t, "PUT", base+boardPath(tbl.Code, seat), fmt.Sprintf(`{"totals": {"rows": %d}}`, rows), bearer(tbl.HostToken), 200)
		}
		mustHTTP(t, "PUT", base+boardPath(tbl.Code, 0), `{"totals": {"rows": 10}}`, nil, 401)
		mustHTTP(t, "POST", base+"/api/v1/tables/"+tbl.Code+"/finish", "", bearer(tbl.HostToken), 200)
		play := `{"game": "insectarium", "finishedAt": "2026-11-20T21:00:00Z", "players": [{"name": "Ana", "board": {"totals": {"rows": 9}}}, {"name": "Ben", "board": {"totals": {"rows": 3}}}]}`
		key := map[string]string{"Idempotency-Key": "play-1"}
		mustHTTP(t, "POST", base+"/api/v1/plays?group="+g.ID, play, key, 201)
		mustHTTP(t, "POST", base+"/api/v1/plays?group="+g.ID, play, key, 201) // a replay
		mustHTTP(t, "GET", base+"/api/v1/tables/ZZZZZZ", "", nil, 404)

		families, text := scrape(t, m)
		for _, tt := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"insectscore_http_requests_total", []string{"method", "PUT", "route", "/api/v1/tables/:code/seats/:seat/board", "status", "200"}, 2},
			{"insectscore_http_requests_total", []string{"method", "PUT", "route", "/api/v1/tables/:code/seats/:seat/board", "status", "401"}, 1},
			{"insectscore_http_requests_total", []string{"method", "GET", "route", "/api/v1/tables/:code", "status", "404"}, 1},
			{"insectscore_http_requests_total", []string{"method", "POST", "route", "/api/v1/plays", "status", "201"}, 2},
			{"insectscore_http_request_duration_seconds", []string{"method", "PUT", "route", "/api/v1/tables/:code/seats/:seat/board"}, 3},
			{"insectscore_http_request_duration_seconds", []string{"method", "GET", "route", "/api/v1/tables/:code/events"}, 1},
			{"insectscore_event_streams_open", nil, 1},
			{"insectscore_board_writes_total", nil, 2},
			{"insectscore_plays_recorded_total", []string{"source", "table"}, 1},
			{"insectscore_plays_recorded_total", []string{"source", "logged"}, 1},
		} {
			if got := metricValue(t, families, tt.name, tt.labels...); got != tt.want {
				t.Errorf("%s%v = %v, want %v", tt.name, tt.labels, got, tt.want)
			}
		}
		for _, name := range []string{"insectscore_db_wait_seconds_total", "insectscore_db_waits_total", "insectscore_db_connections_in_use",
			"insectscore_db_connections_open", "go_goroutines", "process_resident_memory_bytes"} {
			metricValue(t, families, name)
		}
		if metricValue(t, families, "insectscore_db_connections_open", "pool", "write") < 1 {
			t.Error("no database connection open")
		}
		for _, secret := range []string{tbl.Code, g.ID, tbl.HostToken} {
			if strings.Contains(text, secret) {
				t.Errorf("the metrics hold %q", secret)
			}
		}
		// Another app's metrics are its own.
		other := NewMetrics()
		app2, _ := newTestAppWith(t, Config{Metrics: other})
		mustCall(t, app2, "GET", "/api/v1/games", "", nil, 200)
		f2, _ := scrape(t, other)
		if got := metricValue(t, f2, "insectscore_http_requests_total", "route", "/api/v1/games"); got != 1 {
			t.Errorf("the other app counted %v games requests, want 1", got)
		}
		if _, ok := f2["insectscore_board_writes_total"]; !ok || metricValue(t, f2, "insectscore_board_writes_total") != 0 {
			t.Error("the other app counts the first one's boards")
		}
	})
}

// TestMetricsPools: on a SQLite file, reads have a pool of their own, and
// the metrics show both.
func TestMetricsPools(t *testing.T) {
	store := openTestStore(t, filepath.Join(t.TempDir(), "pools.db"))
	m := NewMetrics()
	app, _ := newTestAppWith(t, Config{Store: store, Metrics: m})
	mustCall(t, app, "GET", "/api/v1/plays", "", nil, 200)
	families, _ := scrape(t, m)
	for _, pool := range []string{"write", "read"} {
		metricValue(t, families, "insectscore_db_wait_seconds_total", "pool", pool)
	}
}

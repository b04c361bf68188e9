package main

import (
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

var metricsLine = regexp.MustCompile(`msg="serving metrics" addr=(\S+)`)

// TestMetricsListener: -metrics-addr serves GET /metrics on its own
// listener, with what the server did; the public port does not.
func TestMetricsListener(t *testing.T) {
	s := startServer(t, "-db", filepath.Join(t.TempDir(), "m.db"), "-metrics-addr", "127.0.0.1:0")
	defer s.stop(t, 8*time.Second)
	m := metricsLine.FindStringSubmatch(s.log.String())
	if m == nil {
		t.Fatalf("no metrics address logged:\n%s", s.log)
	}
	resp, err := http.Post(s.base+"/api/v1/tables", "application/json", strings.NewReader(`{"game":"insecta","players":["Ana"]}`))
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create table: %v %v", resp, err)
	}
	resp.Body.Close()
	body := get(t, "http://"+m[1]+"/metrics", 200)
	for _, want := range []string{
		`insectscore_http_requests_total{method="POST",route="/api/v1/tables",status="201"} 1`,
		`insectscore_event_streams_open 0`,
		`insectscore_db_wait_seconds_total{pool="write"}`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	// The public port answers /metrics as any app route: the app's page.
	if body := get(t, s.base+"/metrics", 200); strings.Contains(body, "insectscore_http_requests_total") {
		t.Error("the public port serves the metrics")
	}
}

// TestNoMetricsByDefault: without -metrics-addr nothing is served.
func TestNoMetricsByDefault(t *testing.T) {
	s := startServer(t, "-db", filepath.Join(t.TempDir(), "m.db"))
	defer s.stop(t, 8*time.Second)
	if strings.Contains(s.log.String(), "serving metrics") {
		t.Errorf("metrics served though no address was given:\n%s", s.log)
	}
}

func get(t *testing.T, url string, status int) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d, want %d", url, resp.StatusCode, status)
	}
	return string(b)
}

// TestStreamCapSettings: the stream caps are whole numbers above zero, or
// left out for the defaults.
func TestStreamCapSettings(t *testing.T) {
	tests := []struct {
		perClient, total string
		wantPer, wantAll int
		ok               bool
	}{
		{"", "", 0, 0, true},
		{"8", "500", 8, 500, true},
		{"0", "", 0, 0, false},
		{"", "-1", 0, 0, false},
		{"many", "", 0, 0, false},
	}
	for _, tt := range tests {
		per, all, err := streamCaps(config{MaxStreamsPerClient: tt.perClient, MaxStreams: tt.total})
		if (err == nil) != tt.ok || per != tt.wantPer || all != tt.wantAll {
			t.Errorf("streamCaps(%q, %q) = %d, %d, %v", tt.perClient, tt.total, per, all, err)
		}
	}
	env := map[string]string{"INSECTSCORE_MAX_STREAMS_PER_CLIENT": "8", "INSECTSCORE_MAX_STREAMS": "500", "INSECTSCORE_METRICS_ADDR": "127.0.0.1:9090"}
	cfg, err := parseConfig([]string{"-max-streams", "600"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxStreamsPerClient != "8" || cfg.MaxStreams != "600" || cfg.MetricsAddr != "127.0.0.1:9090" {
		t.Errorf("config %+v: want 8 from the environment, 600 from the flag, the metrics address", cfg)
	}
	if err := run([]string{"serve", "-max-streams", "0", "-db", filepath.Join(t.TempDir(), "x.db")}, func(string) string { return "" }, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "max-streams") {
		t.Errorf("serve -max-streams 0: %v, want a refusal naming the flag", err)
	}
}

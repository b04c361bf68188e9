package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// logBuffer keeps what a JSON slog handler writes, line by line.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// take returns the lines logged since the last call.
func (b *logBuffer) take(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(b.buf.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	b.buf.Reset()
	return out
}

// TestRequestLog: each request is logged once at info with its method,
// route pattern, path, status, duration and client; group ids and tokens
// never reach the log; 401s and 429s are warnings.
func TestRequestLog(t *testing.T) {
	logs := &logBuffer{}
	app, _ := newTestAppWith(t, Config{TrustedProxies: []string{"0.0.0.0/8"},
		Logger: slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	g := makeGroup(t, app, "Club")
	tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana"]}`)
	play := `{"game": "insectarium", "finishedAt": "2026-11-20T21:00:00Z", "players": [{"name": "Ana", "board": {"totals": {"rows": 9}}}]}`
	logs.take(t)
	tests := []struct {
		name, method, path, body string
		header                   map[string]string
		status                   int
		// want are the fields the log line must hold.
		want map[string]any
	}{
		{"a group's export", "GET", "/api/v1/groups/" + g.ID + "/export", "", nil, 200,
			map[string]any{"level": "INFO", "msg": "request", "method": "GET", "route": "/api/v1/groups/:id/export", "path": "/api/v1/groups/…/export", "status": 200.0, "client": "0.0.0.0"}},
		{"?group=", "GET", "/api/v1/plays?limit=5&group=" + g.ID, "", nil, 200,
			map[string]any{"route": "/api/v1/plays", "path": "/api/v1/plays?limit=5&group=…"}},
		{"in capitals", "GET", "/API/V1/GROUPS/" + strings.ToUpper(g.ID), "", nil, 200,
			map[string]any{"route": "/api/v1/groups/:id", "path": "/API/V1/GROUPS/…"}},
		{"the app's invite route", "GET", "/g/" + g.ID, "", nil, 200,
			map[string]any{"route": "/*", "path": "/g/…"}},
		{"a board with the host token", "PUT", boardPath(tbl.Code, 0), `{"track": 3}`, bearer(tbl.HostToken), 200,
			map[string]any{"level": "INFO", "route": "/api/v1/tables/:code/seats/:seat/board", "status": 200.0}},
		{"a 401", "PUT", boardPath(tbl.Code, 0), `{"track": 3}`, bearer("nope" + tbl.HostToken), 401,
			map[string]any{"level": "WARN", "status": 401.0}},
		{"a 415 answered before the route", "POST", "/api/v1/plays", play, map[string]string{"Content-Type": "text/plain"}, 415,
			map[string]any{"level": "INFO", "route": "/api/v1/plays", "status": 415.0}},
		{"a first play", "POST", "/api/v1/plays", play, map[string]string{"Idempotency-Key": "k1"}, 201,
			map[string]any{"route": "/api/v1/plays", "status": 201.0}},
		{"its replay", "POST", "/api/v1/plays", play, map[string]string{"Idempotency-Key": "k1"}, 201,
			map[string]any{"route": "/api/v1/plays", "status": 201.0, "replayed": true}},
		{"behind the proxy", "GET", "/api/v1/games", "", map[string]string{"X-Forwarded-For": "198.51.100.1, 203.0.113.7"}, 200,
			map[string]any{"route": "/api/v1/games", "client": "203.0.113.7"}},
		{"no such endpoint", "GET", "/api/v1/nope", "", nil, 404,
			map[string]any{"route": "/api/*", "status": 404.0}},
		{"a token in the query", "PUT", boardPath(tbl.Code, 0) + "?access_token=" + tbl.HostToken, `{"track": 3}`, nil, 401,
			map[string]any{"level": "WARN", "path": "/api/v1/tables/" + tbl.Code + "/seats/0/board?access_token=…"}},
		{"the API's own parameters", "GET", "/api/v1/plays?limit=5&game=insecta&cursor=", "", nil, 200,
			map[string]any{"path": "/api/v1/plays?limit=5&game=insecta&cursor="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustCall(t, app, tt.method, tt.path, tt.body, tt.header, tt.status)
			lines := logs.take(t)
			if len(lines) != 1 {
				t.Fatalf("%d log lines, want 1: %v", len(lines), lines)
			}
			for k, want := range tt.want {
				if got := lines[0][k]; got != want {
					t.Errorf("%s = %#v, want %#v", k, got, want)
				}
			}
			if d, ok := lines[0]["duration"].(float64); !ok || d <= 0 {
				t.Errorf("duration %v", lines[0]["duration"])
			}
			raw, _ := json.Marshal(lines[0])
			for _, secret := range []string{g.ID, strings.ToUpper(g.ID), tbl.HostToken, "Bearer"} {
				if strings.Contains(string(raw), secret) {
					t.Errorf("the log holds %q: %s", secret, raw)
				}
			}
		})
	}
	t.Run("a 429", func(t *testing.T) {
		// The two 401s above were misses already.
		for i := range guessesPerMinute - 2 {
			mustCall(t, app, "GET", "/api/v1/tables/ZZZZ"+string(rune('A'+i%26))+string(rune('A'+i/26)), "", nil, 404)
		}
		logs.take(t)
		mustCall(t, app, "GET", "/api/v1/tables/ZZZZZZ", "", nil, 429)
		if lines := logs.take(t); len(lines) != 1 || lines[0]["level"] != "WARN" {
			t.Errorf("a 429 logged as %v, want one WARN", lines)
		}
	})
}

// TestRedactGroupPath: where group ids are hidden.
func TestRedactGroupPath(t *testing.T) {
	for path, want := range map[string]string{
		"/api/v1/groups/abc":        "/api/v1/groups/…",
		"/api/v1/groups/abc/":       "/api/v1/groups/…/",
		"/api/v1/groups/abc/qr.svg": "/api/v1/groups/…/qr.svg",
		"/Api/V1/Groups/ABC/export": "/Api/V1/Groups/…/export",
		"/api/v1/groups/import":     "/api/v1/groups/import",
		"/api/v1/groups":            "/api/v1/groups",
		"/api/v1/groups/":           "/api/v1/groups/",
		"/g/abc":                    "/g/…",
		"/G/abc/x":                  "/G/…/x",
		"/g/":                       "/g/",
		"/api/v1/tables/ABC234":     "/api/v1/tables/ABC234",
		"/api/v1/players/p1":        "/api/v1/players/p1",
		"/assets/123/groups/abc":    "/assets/123/groups/abc",
		"/api/v2/groups/abc":        "/api/v2/groups/abc",
		"/t/ABC234":                 "/t/ABC234",
	} {
		if got := redactGroupPath(path); got != want {
			t.Errorf("redactGroupPath(%q) = %q, want %q", path, got, want)
		}
	}
}

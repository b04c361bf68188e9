package api

import (
	"fmt"
	"strings"
	"testing"
)

// TestGuessLimitBehindProxy: behind a trusted proxy each client has its own
// budget of failed lookups, read from X-Forwarded-For; a client that is not
// a trusted proxy cannot pick its address with that header.
func TestGuessLimitBehindProxy(t *testing.T) {
	from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }
	tests := []struct {
		name    string
		trusted []string
		// other is the status the second client gets once the first is out.
		other int
	}{
		{"trusted proxy: clients apart", []string{"0.0.0.0/8"}, 404},
		{"no trusted proxy: the header is ignored", nil, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, Config{TrustedProxies: tt.trusted})
			for i := range 30 {
				mustCall(t, app, "GET", fmt.Sprintf("/api/v1/tables/ZZZZ%02d", i), "", from("203.0.113.7"), 404)
			}
			mustCall(t, app, "GET", "/api/v1/tables/ZZZZZZ", "", from("203.0.113.7"), 429)
			mustCall(t, app, "GET", "/api/v1/tables/ZZZZZZ", "", from("198.51.100.9"), tt.other)
		})
	}
}

// TestJoinURLBehindProxy: a trusted proxy's X-Forwarded-Proto and -Host make
// the public origin of join links.
func TestJoinURLBehindProxy(t *testing.T) {
	header := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "scores.example"}
	for _, tt := range []struct {
		name    string
		trusted []string
		want    string
	}{
		{"trusted", []string{"0.0.0.0/8"}, "https://scores.example/t/"},
		{"not trusted", nil, "http://example.com/t/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, Config{TrustedProxies: tt.trusted})
			r := mustCall(t, app, "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"]}`, header, 201)
			got := decodeJSON[createdTable](t, r).JoinURL
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("joinUrl %q, want it to start with %q", got, tt.want)
			}
		})
	}
}

// TestCreateLimit: one address may create 60 things a minute.
func TestCreateLimit(t *testing.T) {
	app := newTestApp(t)
	for range createsPerMinute {
		mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Club"}`, nil, 201)
	}
	runScenarios(t, app, []scenario{
		{name: "one group too many", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, status: 429},
		{name: "tables share the budget", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta"}`, status: 429},
		{name: "reading is not limited", method: "GET", path: "/api/v1/games", status: 200},
	})
}

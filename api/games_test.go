package api

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestGamesAPI(t *testing.T) {
	app := newTestApp(t)
	runScenarios(t, app, []scenario{
		{name: "health", method: "GET", path: "/healthz", status: 200, want: map[string]any{"/status": "ok"}},
		{name: "unknown game", method: "GET", path: "/api/v1/games/chess", status: 404,
			want: map[string]any{"/status": 404, "/detail": `there is no game "chess"`}},
		{name: "score unknown game", method: "POST", path: "/api/v1/games/chess/score", body: `{"players":[]}`, status: 404},
		{name: "malformed JSON", method: "POST", path: "/api/v1/games/insecta/score", body: `{"players": [`, status: 400,
			want: map[string]any{"/title": "Bad Request"}},
		{name: "empty body", method: "POST", path: "/api/v1/games/insecta/score", status: 400},
		{name: "wrong type names the field", method: "POST", path: "/api/v1/games/insecta/score",
			body: `{"players": [{"name": 7}]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/0/name", "/type": "/api/problems/validation"}},
		{name: "unknown top-level field", method: "POST", path: "/api/v1/games/insecta/score",
			body: `{"players": [], "colour": 1}`, status: 422, want: map[string]any{"/errors/0/pointer": "/colour"}},
		{name: "no players", method: "POST", path: "/api/v1/games/insecta/score", body: `{"players": []}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players"}},
		{name: "unknown variant", method: "POST", path: "/api/v1/games/insectarium/score",
			body: `{"players": [{"name": "Ana"}], "variants": {"turbo": 1}}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/variants/turbo"}},
		{name: "duplicate names", method: "POST", path: "/api/v1/games/insectarium/score",
			body: `{"players": [{"name": "Ana"}, {"name": " ana "}]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/1/name"}},
		{name: "unknown API path", method: "GET", path: "/api/v1/nothing", status: 404},
	})
}

func TestBodyLimit(t *testing.T) {
	// The limit is enforced while reading from the connection, so this
	// needs a real listener rather than app.Test.
	base := serve(t, newTestApp(t))
	big := `{"players": [{"name": "` + strings.Repeat("a", BodyLimit) + `"}]}`
	resp, err := http.Post(base+"/api/v1/games/insecta/score", "application/json", strings.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 413 {
		t.Fatalf("status %d, want 413: %s", resp.StatusCode, body)
	}
	checkOpenAPI(t, "POST", "/api/v1/games/insecta/score", response{status: resp.StatusCode, header: resp.Header, body: body})
}

func TestSecurityHeaders(t *testing.T) {
	app := newTestApp(t)
	for _, path := range []string{"/", "/api/v1/games", "/api/v1/games/chess"} {
		r := call(t, app, "GET", path, "", nil)
		csp := r.header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "object-src 'none'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
			t.Errorf("%s: CSP allows unsafe code: %q", path, csp)
		}
		if got := r.header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", path, got)
		}
	}
}

package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"insectscore/scoring"
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

// TestGameRoutesSendWhatScoringGives: the three game routes send exactly
// the bytes of scoring's answer (json.Marshal of the value, or of
// scoring.ProblemOf the error), which is what the browser's engine
// (cmd/insectscore-engine) sends too; pwa's engine parity test compares the
// two in Chromium.
func TestGameRoutesSendWhatScoringGives(t *testing.T) {
	app := newTestApp(t)
	answer := func(v any, err error) (int, []byte) {
		status := 200
		if err != nil {
			p, _ := scoring.ProblemOf(err)
			v, status = p, p.Status
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return status, b
	}
	insecta := readTestdata(t, "insecta-example.json")
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/v1/games", ""},
		{"GET", "/api/v1/games/insectarium", ""},
		{"GET", "/api/v1/games/chess", ""},
		{"POST", "/api/v1/games/insecta/score", insecta},
		{"POST", "/api/v1/games/insecta/score", `{"players": [{"name": "<Ana & Ben>"}]}`},
		{"POST", "/api/v1/games/insecta/score", `{"players": [{"name": 7}]}`},
		{"POST", "/api/v1/games/insecta/score", `{"players": [`},
		{"POST", "/api/v1/games/insecta/score", ""},
		{"POST", "/api/v1/games/chess/score", `{}`},
	} {
		var status int
		var want []byte
		id, _, _ := strings.Cut(strings.TrimPrefix(tc.path, "/api/v1/games/"), "/")
		switch {
		case tc.path == "/api/v1/games":
			status, want = answer(scoring.GameList(), nil)
		case tc.method == "POST":
			status, want = answer(scoring.ScoreJSON(id, []byte(tc.body)))
		default:
			g, err := scoring.Find(id)
			if err != nil {
				status, want = answer(nil, err)
			} else {
				status, want = answer(g.Spec(), nil)
			}
		}
		r := call(t, app, tc.method, tc.path, tc.body, nil)
		if r.status != status || !bytes.Equal(r.body, want) {
			t.Errorf("%s %s %.40q: %d %s\nwant %d %s", tc.method, tc.path, tc.body, r.status, r.body, status, want)
		}
	}
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
	want413(t, "POST", "/api/v1/games/insecta/score", resp)
}

func TestSecurityHeaders(t *testing.T) {
	app := newTestApp(t)
	for _, path := range []string{"/", "/api/v1/games", "/api/v1/games/chess"} {
		r := call(t, app, "GET", path, "", nil)
		csp := r.header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'self'", "script-src 'self' 'wasm-unsafe-eval';", "object-src 'none'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", path, csp, want)
			}
		}
		// 'wasm-unsafe-eval' compiles WebAssembly only; JavaScript eval stays blocked.
		if strings.Contains(csp, "'unsafe-inline'") || strings.Contains(csp, "'unsafe-eval'") {
			t.Errorf("%s: CSP allows unsafe code: %q", path, csp)
		}
		if got := r.header.Get("X-Content-Type-Options"); got != "nosniff" {
			t.Errorf("%s: X-Content-Type-Options %q", path, got)
		}
	}
}

func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestScoreRulebookExamples scores the rulebooks' worked examples through
// the API.
func TestScoreRulebookExamples(t *testing.T) {
	app := newTestApp(t)
	hotel := `{"players": [
		{"name": "Ana", "board": {"hotel": "blue", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": 2}]}},
		{"name": "Ben", "board": {"hotel": "red", "floors": [{"species": "bee", "guests": 1}, {"species": "ladybird", "guests": 2}, {"species": "earwig", "guests": 0}]}}]}`
	runScenarios(t, app, []scenario{
		{name: "Insectarium/Example - End of Game Scoring", method: "POST", path: "/api/v1/games/insectarium/score",
			body: readTestdata(t, "insectarium-example.json"), status: 200,
			want: map[string]any{"/game": "insectarium", "/complete": true, "/winners": []int{0},
				"/results/0/total": 34, "/results/0/rank": 1, "/results/0/winner": true,
				"/results/0/breakdown/0/key": "rows", "/results/0/breakdown/0/points": 15,
				// Why this score: the cards that score in the rows, with
				// what each scores there (2 + 8 + 5).
				"/results/0/breakdown/0/sources": []map[string]any{
					{"pointer": "/grid/0/0", "points": 1}, {"pointer": "/grid/0/1", "points": 1},
					{"pointer": "/grid/1/0", "points": 3}, {"pointer": "/grid/1/1", "points": 2}, {"pointer": "/grid/1/2", "points": 3},
					{"pointer": "/grid/2/0", "points": 5}},
				"/results/0/entered":            "board",
				"/results/0/breakdown/1/points": 13, "/results/0/breakdown/2/points": 1, "/results/0/breakdown/3/points": 5,
				"/results/0/tiebreaks/0/key": "displayTools", "/soloRating": "decent"}},
		{name: "Insecta/End of the game: Laura 32, George 31", method: "POST", path: "/api/v1/games/insecta/score",
			body: readTestdata(t, "insecta-example.json"), status: 200,
			want: map[string]any{"/complete": true, "/winners": []int{0},
				"/results/0/name": "Laura", "/results/0/total": 32, "/results/0/rank": 1,
				"/results/1/name": "George", "/results/1/total": 31, "/results/1/rank": 2, "/results/1/winner": false,
				"/results/0/breakdown/3": map[string]any{"key": "fragments", "label": "Journal fragments", "points": 4,
					"sources": []any{map[string]any{"pointer": "/fragments", "points": 4}}},
				"/results/1/breakdown/2/key": "continents", "/results/1/breakdown/2/points": 5}},
		{name: "Insecta/oneFragment variant", method: "POST", path: "/api/v1/games/insecta/score",
			body:   `{"players":[{"name":"Ana","board":{"researcher":"mary-kingsley","track":10,"fragments":1}},{"name":"Ben"}],"variants":{"oneFragment":1}}`,
			status: 200, want: map[string]any{"/results/0/total": 11, "/complete": false, "/winners": []int{}}},
		{name: "Insektenhotel/the first full hotel wins", method: "POST", path: "/api/v1/games/insektenhotel/score",
			body: hotel, status: 200,
			want: map[string]any{"/complete": true, "/winners": []int{0}, "/results/0/total": 6, "/results/1/total": 3,
				"/results/1/rank": 2, "/results/0/breakdown/0/key": "guests"}},
		{name: "a rule violation names the field", method: "POST", path: "/api/v1/games/insectarium/score",
			body:   `{"players":[{"name":"Ana","board":{"grid":[[null,null,{"color":"red","insect":"moth","points":12}]]}}]}`,
			status: 422, want: map[string]any{"/status": 422, "/errors/0/pointer": "/players/0/board/grid/0/2/points"}},
	})
}

func TestCompressedBodyRefused(t *testing.T) {
	app := newTestApp(t)
	r := call(t, app, "POST", "/api/v1/games/insecta/score", `{"players": []}`, map[string]string{"Content-Encoding": "gzip"})
	if r.status != 415 {
		t.Fatalf("status %d, want 415: %s", r.status, r.body)
	}
}

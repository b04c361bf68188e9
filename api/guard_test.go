package api

import (
	"strings"
	"testing"
)

// TestCrossSiteWrites: a page of another site cannot write here. A body
// must be declared JSON, which a form or a "simple" fetch cannot do, and a
// write that carries an Origin must carry this server's.
func TestCrossSiteWrites(t *testing.T) {
	app := newTestApp(t)
	play := `{"game": "insectarium", "finishedAt": "2026-11-20T21:00:00Z", "players": [{"name": "Ana", "board": {"totals": {"rows": 9}}}]}`
	ctype := func(v string) map[string]string { return map[string]string{"Content-Type": v} }
	origin := func(v string) map[string]string { return map[string]string{"Origin": v} }
	tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben"]}`)
	claim := "/api/v1/tables/" + tbl.Code + "/seats/1/claim"
	runScenarios(t, app, []scenario{
		// The reproduction of the issue: text/plain was recorded.
		{name: "text/plain", method: "POST", path: "/api/v1/plays", body: play, header: ctype("text/plain"), status: 415,
			want: map[string]any{"/status": 415}, check: detailHas("application/json")},
		{name: "no Content-Type", method: "POST", path: "/api/v1/plays", body: play, header: ctype(""), status: 415},
		{name: "a form", method: "POST", path: "/api/v1/groups", body: "name=Club", header: ctype("application/x-www-form-urlencoded"), status: 415},
		{name: "multipart", method: "POST", path: "/api/v1/groups", body: "--x\r\nContent-Disposition: form-data; name=\"name\"\r\n\r\nClub\r\n--x--\r\n",
			header: ctype("multipart/form-data; boundary=x"), status: 415},
		{name: "another JSON type", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: ctype("application/problem+json"), status: 415},
		{name: "a charset other than UTF-8", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: ctype("application/json; charset=iso-8859-1"), status: 415},
		{name: "an unknown parameter", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: ctype("application/json; boundary=x"), status: 415},
		{name: "the import as text", method: "POST", path: "/api/v1/groups/import", body: `{}`, header: ctype("text/plain"), status: 415},
		{name: "a board as text", method: "PUT", path: boardPath(tbl.Code, 0), body: `{"track": 3}`,
			header: withHeader(bearer(tbl.HostToken), "Content-Type", "text/plain;charset=utf-8"), status: 415},
		{name: "nothing was recorded", method: "GET", path: "/api/v1/plays", status: 200, check: countPlays(0)},
		{name: "JSON", method: "POST", path: "/api/v1/plays", body: play, status: 201},
		{name: "JSON in UTF-8", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: ctype("application/json; charset=UTF-8"), status: 201},
		{name: "JSON, spaced and in capitals", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: ctype("Application/JSON ;charset=\"utf-8\""), status: 201},

		// Origin: this server's (the test requests go to http://example.com).
		{name: "another site's page", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: origin("https://evil.example"), status: 403,
			want: map[string]any{"/status": 403}, check: detailHas("another site")},
		{name: "a sandboxed page (Origin null)", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: origin("null"), status: 403},
		{name: "this host over another scheme", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: origin("https://example.com"), status: 403},
		{name: "this host on another port", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: origin("http://example.com:8080"), status: 403},
		{name: "a claim without a body", method: "POST", path: claim, header: origin("https://evil.example"), status: 403},
		{name: "a delete", method: "DELETE", path: "/api/v1/plays/nope", header: origin("https://evil.example"), status: 403},
		{name: "this server's own page", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: origin("http://example.com"), status: 201},
		{name: "its default port spelled out, in capitals", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, header: origin("HTTP://Example.COM:80"), status: 201},
		{name: "reads are not refused", method: "GET", path: "/api/v1/tables/" + tbl.Code, header: origin("https://evil.example"), status: 200},
		{name: "a body-less write needs no Content-Type", method: "POST", path: claim, header: ctype("text/plain"), status: 200},
	})
}

// TestOriginBehindProxy: the server's own origin is the one the request
// was sent to: the public one a trusted proxy names, or the base URL's.
func TestOriginBehindProxy(t *testing.T) {
	proxied := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "scores.example", "Origin": "https://scores.example"}
	tests := []struct {
		name    string
		cfg     Config
		header  map[string]string
		status  int
		explain string
	}{
		{"a trusted proxy's origin", Config{TrustedProxies: []string{"0.0.0.0/8"}}, proxied, 201, ""},
		{"an untrusted proxy's", Config{}, proxied, 403, "X-Forwarded-* of anyone else are ignored"},
		{"the base URL's", Config{BaseURL: "https://scores.example/"}, map[string]string{"Origin": "https://scores.example"}, 201, ""},
		{"not the base URL's", Config{BaseURL: "https://scores.example"}, map[string]string{"Origin": "https://other.example"}, 403, ""},
		{"the request's own beside a base URL", Config{BaseURL: "https://scores.example"}, map[string]string{"Origin": "http://example.com"}, 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, tt.cfg)
			mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Club"}`, tt.header, tt.status)
		})
	}
}

// TestJSONType: which Content-Type values count as JSON.
func TestJSONType(t *testing.T) {
	for header, want := range map[string]bool{
		"application/json":                   true,
		"application/json; charset=utf-8":    true,
		"APPLICATION/JSON;CHARSET=UTF-8":     true,
		"application/json; charset=latin1":   false,
		"application/json; charset=utf-8; x": false,
		"application/jsonx":                  false,
		"text/json":                          false,
		"application/vnd.api+json":           false,
		"text/plain":                         false,
		"":                                   false,
		"application/json, text/plain":       false,
	} {
		if got := isJSONType(header); got != want {
			t.Errorf("isJSONType(%q) = %v, want %v", header, got, want)
		}
	}
}

// routeCase is a documented route with its parameters filled in.
type routeCase struct {
	method, pattern, path string
}

// documentedRoutes lists every API route of the app with made-up
// parameters: the shared middleware answers before any handler looks at
// them.
func documentedRoutes(t *testing.T) []routeCase {
	t.Helper()
	params := strings.NewReplacer(":code", "ABC234", ":seat", "0", ":id", "x1", ":game", "insecta")
	var out []routeCase
	for _, r := range newTestApp(t).GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/api/v1/") && r.Path != "/healthz" && r.Path != "/readyz" || r.Method == "HEAD" || strings.Contains(r.Path, "*") {
			continue
		}
		out = append(out, routeCase{r.Method, r.Path, params.Replace(r.Path)})
	}
	if len(out) < 30 {
		t.Fatalf("only %d routes found", len(out))
	}
	return out
}

// TestSharedStatusesDocumented walks every route and sends it what any
// route refuses the same way: a body that is not JSON, a compressed body,
// a body over the limit and, to writes, another site's Origin. Each
// answer must be the status the middleware gives, and documented for that
// route (call checks it against openapi.json).
func TestSharedStatusesDocumented(t *testing.T) {
	app := newTestApp(t)
	big := `{"name": "` + strings.Repeat("a", BodyLimit) + `"}`
	for _, rc := range documentedRoutes(t) {
		t.Run(rc.method+" "+rc.pattern, func(t *testing.T) {
			mustCall(t, app, rc.method, rc.path, `{}`, map[string]string{"Content-Type": "text/plain"}, 415)
			mustCall(t, app, rc.method, rc.path, `{}`, map[string]string{"Content-Encoding": "gzip"}, 415)
			if rc.pattern != "/api/v1/groups/import" { // 16 MiB: TestImportOver16MiB
				mustCall(t, app, rc.method, rc.path, big, nil, 413)
			}
			if rc.method != "GET" {
				mustCall(t, app, rc.method, rc.path, `{}`, map[string]string{"Origin": "https://evil.example"}, 403)
			}
		})
	}
}

// TestNoStore: answers that carry a token, a group id or anything of a
// group are never kept by a browser or a proxy; only the games, which hold
// nothing of anyone's, may be.
func TestNoStore(t *testing.T) {
	app := newTestApp(t)
	g := makeGroup(t, app, "Club")
	tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben"], "group": "`+g.ID+`"}`)
	table := "/api/v1/tables/" + tbl.Code
	logTestPlay(t, app, g.ID, playBody("insectarium", day(1, 20, 0), day(1, 21, 0), seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(7)}))
	player := playerIDOf(t, app, g.ID, "Ana")
	export := string(exportOf(t, app, g.ID))
	store := map[string]string{"Cache-Control": "no-store"}
	runScenarios(t, app, []scenario{
		{name: "a new table (host token)", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta", "players": ["Ana"]}`, status: 201, wantHeader: store},
		{name: "a join (seat token)", method: "POST", path: table + "/seats", body: `{"name": "Cleo"}`, status: 201, wantHeader: store},
		{name: "a claim (seat token)", method: "POST", path: table + "/seats/1/claim", status: 200, wantHeader: store},
		{name: "a board", method: "PUT", path: boardPath(tbl.Code, 0), body: `{"track": 3}`, header: bearer(tbl.HostToken), status: 200, wantHeader: store},
		{name: "the table", method: "GET", path: table, status: 200, wantHeader: store},
		{name: "its QR code", method: "GET", path: table + "/qr.svg", status: 200, wantHeader: store},
		{name: "a new group (its id)", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, status: 201, wantHeader: store},
		{name: "the group", method: "GET", path: "/api/v1/groups/" + g.ID, status: 200, wantHeader: store},
		{name: "its invite as a QR code", method: "GET", path: "/api/v1/groups/" + g.ID + "/qr.png", status: 200, wantHeader: store},
		{name: "its players", method: "GET", path: "/api/v1/groups/" + g.ID + "/players", status: 200, wantHeader: store},
		{name: "its export", method: "GET", path: "/api/v1/groups/" + g.ID + "/export", status: 200, wantHeader: store},
		{name: "its CSV", method: "GET", path: "/api/v1/groups/" + g.ID + "/plays.csv", status: 200, wantHeader: store},
		{name: "an import", method: "POST", path: "/api/v1/groups/import", body: export, status: 409, wantHeader: store},
		{name: "the plays", method: "GET", path: "/api/v1/plays?group=" + g.ID, status: 200, wantHeader: store},
		{name: "a player", method: "GET", path: "/api/v1/players/" + player + "?group=" + g.ID, status: 200, wantHeader: store},
		{name: "a leaderboard", method: "GET", path: "/api/v1/leaderboards/insectarium?group=" + g.ID, status: 200, wantHeader: store},
		{name: "an error", method: "GET", path: "/api/v1/tables/ZZZZZZ", status: 404, wantHeader: store},
		{name: "a refusal before any route", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`,
			header: map[string]string{"Origin": "https://evil.example"}, status: 403, wantHeader: store},
		{name: "a body not JSON", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`,
			header: map[string]string{"Content-Type": "text/plain"}, status: 415, wantHeader: store},
		{name: "a score", method: "POST", path: "/api/v1/games/insecta/score", body: `{"players": [{"name": "Ana", "board": {"totals": {"track": 3}}}]}`, status: 200, wantHeader: store},
		{name: "the games", method: "GET", path: "/api/v1/games", status: 200, wantHeader: map[string]string{"Cache-Control": "no-cache"}},
		{name: "a game", method: "GET", path: "/api/v1/games/insecta", status: 200, wantHeader: map[string]string{"Cache-Control": "no-cache"}},
	})
	if r := call(t, app, "GET", "/api/openapi.json", "", nil); r.header.Get("Cache-Control") != "no-cache" {
		t.Errorf("openapi.json Cache-Control %q, want no-cache", r.header.Get("Cache-Control"))
	}
}

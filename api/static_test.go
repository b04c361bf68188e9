package api

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"html"
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"insectscore/scoring"
)

func TestAppShell(t *testing.T) {
	app := newTestApp(t)
	index := call(t, app, "GET", "/", "", nil)
	if index.status != 200 || !strings.Contains(string(index.body), "<!doctype html>") {
		t.Fatalf("GET / = %d %.80s", index.status, index.body)
	}
	if got := index.header.Get("Cache-Control"); got != "no-cache" {
		t.Errorf("index Cache-Control %q, want no-cache", got)
	}
	m := regexp.MustCompile(`/assets/([0-9a-f]{12})/app\.js`).FindSubmatch(index.body)
	if m == nil {
		t.Fatalf("index.html does not load a versioned app.js: %s", index.body)
	}
	version := string(m[1])

	tests := []struct {
		path, wantType, wantCache string
		status                    int
	}{
		{"/assets/" + version + "/app.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"/assets/0123456789ab/app.js", "text/javascript; charset=utf-8", "no-cache", 200},
		{"/assets/" + version + "/engine/engine.js", "text/javascript; charset=utf-8", "public, max-age=31536000, immutable", 200},
		{"/assets/" + version + "/engine/engine.wasm", "application/wasm", "public, max-age=31536000, immutable", 200},
		{"/sw.js", "text/javascript; charset=utf-8", "no-cache", 200},
		{"/manifest.webmanifest", "application/manifest+json", "no-cache", 200},
		{"/t/ABC234", "text/html; charset=utf-8", "no-cache", 200},
		{"/score/insecta", "text/html; charset=utf-8", "no-cache", 200},
		{"/missing.txt", "application/problem+json", "no-cache", 404},
		{"/assets/" + version + "/missing.js", "application/problem+json", "no-cache", 404},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			r := call(t, app, "GET", tt.path, "", nil)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d", r.status, tt.status)
			}
			if got := r.header.Get("Content-Type"); got != tt.wantType {
				t.Errorf("Content-Type %q, want %q", got, tt.wantType)
			}
			if got := r.header.Get("Cache-Control"); got != tt.wantCache {
				t.Errorf("Cache-Control %q, want %q", got, tt.wantCache)
			}
		})
	}
	sw := call(t, app, "GET", "/sw.js", "", nil)
	if strings.Contains(string(sw.body), "__VERSION__") {
		t.Error("sw.js still holds the __VERSION__ placeholder")
	}
	// Each game's form is in the list the worker keeps, as every file
	// there: once, versioned.
	if strings.Contains(string(sw.body), "__FORMS__") {
		t.Error("sw.js still holds the __FORMS__ placeholder")
	}
	a, err := loadAssets()
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range scoring.GameList() {
		if line := "  '/assets/" + a.version + "/" + g.Form + "',\n"; strings.Count(string(sw.body), line) != 1 {
			t.Errorf("sw.js does not list %s's form once as %q:\n%s", g.ID, line, sw.body)
		}
	}
}

// TestAppCompressed: every text asset and the engine go out brotli- or
// gzip-compressed as the client accepts, and decode to the same bytes as
// the plain answer.
func TestAppCompressed(t *testing.T) {
	app := newTestApp(t)
	version := regexp.MustCompile(`/assets/([0-9a-f]{12})/app\.js`).FindStringSubmatch(string(call(t, app, "GET", "/", "", nil).body))[1]
	decoders := map[string]func(io.Reader) (io.Reader, error){
		"br":   func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil },
		"gzip": func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) },
		"":     func(r io.Reader) (io.Reader, error) { return r, nil },
	}
	for _, path := range []string{"/", "/sw.js", "/manifest.webmanifest", "/t/ABC234",
		"/assets/" + version + "/app.js", "/assets/" + version + "/app.css", "/assets/" + version + "/icon.svg",
		"/assets/" + version + "/engine/engine.wasm", "/assets/0123456789ab/app.js"} {
		plain := call(t, app, "GET", path, "", nil)
		if plain.status != 200 || plain.header.Get("Content-Encoding") != "" {
			t.Fatalf("GET %s without Accept-Encoding = %d, Content-Encoding %q", path, plain.status, plain.header.Get("Content-Encoding"))
		}
		for _, tt := range []struct{ accept, want string }{
			{"gzip, deflate, br, zstd", "br"},
			{"br;q=1.0, gzip;q=0.8", "br"},
			{"gzip", "gzip"},
			{"br;q=0, gzip", "gzip"},
			{"*", "br"},
			{"*;q=0", ""},
			{"identity", ""},
			{"deflate", ""},
		} {
			t.Run(path+" "+tt.accept, func(t *testing.T) {
				r := call(t, app, "GET", path, "", map[string]string{"Accept-Encoding": tt.accept})
				if got := r.header.Get("Content-Encoding"); got != tt.want {
					t.Fatalf("Content-Encoding %q, want %q", got, tt.want)
				}
				// index.html is in the language the browser asks for.
				want := "Accept-Encoding"
				if !strings.Contains(path, ".") {
					want = "Accept-Language, Cookie, Accept-Encoding"
				}
				if got := r.header.Get("Vary"); got != want {
					t.Errorf("Vary %q, want %s", got, want)
				}
				if got, want := r.header.Get("Cache-Control"), plain.header.Get("Cache-Control"); got != want {
					t.Errorf("Cache-Control %q, want %q as uncompressed", got, want)
				}
				if tt.want != "" && len(r.body) >= len(plain.body) {
					t.Errorf("%s body is %d bytes, the plain one %d", tt.want, len(r.body), len(plain.body))
				}
				rd, err := decoders[tt.want](bytes.NewReader(r.body))
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rd)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, plain.body) {
					t.Errorf("the %q body decodes to %d bytes that differ from the plain %d", tt.want, len(got), len(plain.body))
				}
			})
		}
		head := call(t, app, "HEAD", path, "", map[string]string{"Accept-Encoding": "br"})
		if head.status != 200 || head.header.Get("Content-Encoding") != "br" || len(head.body) != 0 {
			t.Errorf("HEAD %s = %d, Content-Encoding %q, %d body bytes", path, head.status, head.header.Get("Content-Encoding"), len(head.body))
		}
	}
	// A PNG is compressed already: it goes out as it is, whatever is accepted.
	png := call(t, app, "GET", "/assets/"+version+"/icon-192.png", "", map[string]string{"Accept-Encoding": "br, gzip"})
	if png.status != 200 || png.header.Get("Content-Encoding") != "" {
		t.Errorf("icon-192.png = %d, Content-Encoding %q; want 200 uncompressed", png.status, png.header.Get("Content-Encoding"))
	}
}

// TestRoutesDocumented checks every API route is in the OpenAPI document.
func TestRoutesDocumented(t *testing.T) {
	loadSpec()
	if specErr != nil {
		t.Fatal(specErr)
	}
	paths := specDoc["paths"].(map[string]any)
	for _, r := range newTestApp(t).GetRoutes(true) {
		if !strings.HasPrefix(r.Path, "/api/v1/") && r.Path != "/healthz" || r.Method == "HEAD" {
			continue
		}
		tmpl := regexp.MustCompile(`:(\w+)`).ReplaceAllString(r.Path, "{$1}")
		ops, ok := paths[tmpl].(map[string]any)
		if !ok {
			t.Errorf("route %s %s is not in openapi.json (as %s)", r.Method, r.Path, tmpl)
			continue
		}
		if _, ok := ops[strings.ToLower(r.Method)]; !ok {
			t.Errorf("route %s %s: openapi.json lacks the method", r.Method, r.Path)
		}
	}
}

// TestAppPageLanguage: index.html comes in the language chosen in the app
// (its cookie), else the browser's Accept-Language negotiated against
// English, German and Spanish, else English; it says so in <html lang>,
// Content-Language, and carries that language's UI messages only.
func TestAppPageLanguage(t *testing.T) {
	app := newTestApp(t)
	for _, tt := range []struct {
		name, accept, cookie, want, message, loading string
	}{
		{"no preference", "", "", "en", "Score a game", "Loading…"},
		{"German", "de-DE,de;q=0.9,en;q=0.8", "", "de", "Ein Spiel werten", "Wird geladen…"},
		{"Austrian German", "de-AT", "", "de", "Ein Spiel werten", "Wird geladen…"},
		{"Spanish after French", "fr-FR, es;q=0.8", "", "es", "Puntuar una partida", "Cargando…"},
		{"unsupported only", "fr, it", "", "en", "Score a game", "Loading…"},
		{"cookie over header", "de", "lang=es", "es", "Puntuar una partida", "Cargando…"},
		{"unknown cookie", "de", "lang=xx", "de", "Ein Spiel werten", "Wird geladen…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			headers := map[string]string{}
			if tt.accept != "" {
				headers["Accept-Language"] = tt.accept
			}
			if tt.cookie != "" {
				headers["Cookie"] = tt.cookie
			}
			r := call(t, app, "GET", "/history", "", headers)
			body := string(r.body)
			if r.status != 200 {
				t.Fatalf("status %d", r.status)
			}
			if got := r.header.Get("Content-Language"); got != tt.want {
				t.Errorf("Content-Language %q, want %q", got, tt.want)
			}
			if !strings.Contains(body, `<html lang="`+tt.want+`">`) {
				t.Errorf("the page's <html> is not lang=%q", tt.want)
			}
			m := regexp.MustCompile(`<script type="application/json" id="catalog" data-lang="(\w+)">([^<]*)</script>`).FindStringSubmatch(body)
			if m == nil {
				t.Fatal("the page carries no catalog")
			}
			if m[1] != tt.want {
				t.Errorf("catalog data-lang %q, want %q", m[1], tt.want)
			}
			var msgs map[string]string
			if err := json.Unmarshal([]byte(m[2]), &msgs); err != nil {
				t.Fatalf("the catalog is not JSON: %v", err)
			}
			if got := msgs["ui.home.title"]; got != tt.message {
				t.Errorf("ui.home.title = %q, want %q", got, tt.message)
			}
			// What shows before the app runs, and without JavaScript.
			if want := `data-i18n="ui.boot.loading">` + tt.loading + `<`; !strings.Contains(body, want) {
				t.Errorf("the page does not say %q before the app runs", want)
			}
			if want := `data-i18n="ui.boot.noScript">` + html.EscapeString(msgs["ui.boot.noScript"]) + `<`; !strings.Contains(body, want) {
				t.Errorf("the page's noscript line is not %q", want)
			}
			for k := range msgs {
				if !strings.HasPrefix(k, "ui.") {
					t.Errorf("the page carries %q: only the UI's messages belong in it", k)
				}
			}
		})
	}
}

// TestNoSuchFileSaysItsLanguage: a 404 outside /api is written in the
// request's language and says so, varies by Accept-Language, and is not
// kept by caches.
func TestNoSuchFileSaysItsLanguage(t *testing.T) {
	app := newTestApp(t)
	for _, path := range []string{"/assets/nope/missing.js", "/missing.txt"} {
		r := mustCall(t, app, "GET", path, "", map[string]string{"Accept-Language": "de"}, 404)
		if got := r.header.Get("Content-Language"); got != "de" {
			t.Errorf("%s: Content-Language %q, want de", path, got)
		}
		if got := r.header.Get("Vary"); !strings.Contains(got, "Accept-Language") {
			t.Errorf("%s: Vary %q, want Accept-Language in it", path, got)
		}
		if got := r.header.Get("Cache-Control"); got != "no-cache" {
			t.Errorf("%s: Cache-Control %q, want no-cache", path, got)
		}
	}
}

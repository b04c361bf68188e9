package api

import (
	"regexp"
	"strings"
	"testing"
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
		{"/missing.txt", "application/problem+json", "", 404},
		{"/assets/" + version + "/missing.js", "application/problem+json", "", 404},
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

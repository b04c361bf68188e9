package pwa_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"insectscore/pwa"
	"insectscore/scoring"
)

// These tests hold the embedded app to the layout the server relies on
// (api/static.go) and to the CSP: no inline script, style or handlers.

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := fs.ReadFile(pwa.Files, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// assetFiles lists every file under assets/.
func assetFiles(t *testing.T) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(pwa.Files, "assets", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestShellHasNoInlineCode(t *testing.T) {
	html := read(t, "index.html")
	for _, m := range regexp.MustCompile(`(?s)(<script\b[^>]*>)(.*?)</script>`).FindAllStringSubmatch(html, -1) {
		if !strings.Contains(m[1], " src=") || strings.TrimSpace(m[2]) != "" {
			t.Errorf("index.html has an inline script: %q", m[0])
		}
	}
	for _, tc := range []struct {
		name string
		re   *regexp.Regexp
	}{
		{"style element", regexp.MustCompile(`<style\b`)},
		{"style attribute", regexp.MustCompile(`\sstyle\s*=`)},
		{"event handler attribute", regexp.MustCompile(`\son[a-z]+\s*=`)},
		{"javascript: URL", regexp.MustCompile(`(?i)javascript:`)},
	} {
		if m := tc.re.FindString(html); m != "" {
			t.Errorf("index.html has a %s: %q", tc.name, m)
		}
	}
}

// assetRef matches an /assets/ path in the shell files.
var assetRef = regexp.MustCompile(`/assets/[A-Za-z0-9._/-]+`)

func TestShellReferencesExist(t *testing.T) {
	for _, name := range []string{"index.html", "sw.js", "manifest.webmanifest"} {
		for _, ref := range assetRef.FindAllString(read(t, name), -1) {
			if ref == "/assets/" {
				continue
			}
			if _, err := fs.Stat(pwa.Files, strings.TrimPrefix(ref, "/")); err != nil {
				t.Errorf("%s refers to %s, which is not embedded", name, ref)
			}
		}
	}
}

// The service worker precaches the whole shell, so the app opens offline;
// a new asset must be added to its list. The games' forms are not in it:
// the server writes them where it says __FORMS__, from each game's Info
// (api's TestServiceWorkerListsEveryForm).
func TestServiceWorkerCachesEveryAsset(t *testing.T) {
	sw := read(t, "sw.js")
	listed := assetRef.FindAllString(sw, -1)
	if !strings.Contains(sw, "\n  // __FORMS__\n") {
		t.Error("sw.js has no line for the server to list the games' forms on")
	}
	for _, g := range scoring.GameList() {
		if _, err := fs.Stat(pwa.Files, "assets/"+g.Form); err != nil {
			t.Errorf("%s's form %s is not embedded", g.ID, g.Form)
		}
		listed = append(listed, "/assets/"+g.Form)
	}
	seen := map[string]bool{}
	for _, u := range listed {
		if seen[u] {
			// cache.addAll refuses a list with a request twice: the
			// service worker would never install.
			t.Errorf("sw.js lists %s twice", u)
		}
		seen[u] = true
	}
	for _, f := range assetFiles(t) {
		if !slices.Contains(listed, "/"+f) {
			t.Errorf("sw.js does not precache /%s", f)
		}
	}
	for _, want := range []string{"__VERSION__", "'/api/'", "caches.delete", "'navigate'"} {
		if !strings.Contains(sw, want) {
			t.Errorf("sw.js lacks %s", want)
		}
	}
}

// staticImport matches `import … from './x.js'` and `import './x.js'`.
var staticImport = regexp.MustCompile(`(?m)^\s*import\s+(?:[^'"]*?\s+from\s+)?['"]([^'"]+)['"]`)

func TestModulesImportEachOtherRelatively(t *testing.T) {
	for _, f := range assetFiles(t) {
		if path.Ext(f) != ".js" {
			continue
		}
		for _, m := range staticImport.FindAllStringSubmatch(read(t, f), -1) {
			spec := m[1]
			if !strings.HasPrefix(spec, "./") && !strings.HasPrefix(spec, "../") {
				t.Errorf("%s imports %q; modules import each other by relative paths (the server versions the directory)", f, spec)
				continue
			}
			target := path.Join(path.Dir(f), spec)
			if !strings.HasPrefix(target, "assets/") {
				t.Errorf("%s imports %q, which is outside assets/", f, spec)
				continue
			}
			if _, err := fs.Stat(pwa.Files, target); err != nil {
				t.Errorf("%s imports %q, which is not embedded", f, spec)
			}
		}
	}
}

// TestShellLinksTheManifest: index.html itself links the manifest, as
// installability checks, crawlers and "Add to Home Screen" read the HTML;
// browsers fetch it off the critical path.
func TestShellLinksTheManifest(t *testing.T) {
	if !regexp.MustCompile(`<link rel="manifest" href="/manifest\.webmanifest">`).MatchString(read(t, "index.html")) {
		t.Error("index.html does not link /manifest.webmanifest")
	}
}

func TestManifest(t *testing.T) {
	var m struct {
		Name            string `json:"name"`
		ShortName       string `json:"short_name"`
		StartURL        string `json:"start_url"`
		Display         string `json:"display"`
		ThemeColor      string `json:"theme_color"`
		BackgroundColor string `json:"background_color"`
		Icons           []struct {
			Src, Sizes, Type, Purpose string
		} `json:"icons"`
	}
	if err := json.Unmarshal([]byte(read(t, "manifest.webmanifest")), &m); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	for field, got := range map[string]string{"name": m.Name, "short_name": m.ShortName, "theme_color": m.ThemeColor, "background_color": m.BackgroundColor} {
		if got == "" {
			t.Errorf("manifest has no %s", field)
		}
	}
	if m.StartURL != "/" || m.Display != "standalone" {
		t.Errorf("start_url %q, display %q; want \"/\" and standalone", m.StartURL, m.Display)
	}
	seen := map[string]bool{}
	for _, ic := range m.Icons {
		seen[ic.Sizes+" "+ic.Purpose] = true
		if ic.Type != "image/png" {
			continue
		}
		b, err := fs.ReadFile(pwa.Files, strings.TrimPrefix(ic.Src, "/"))
		if err != nil {
			t.Errorf("icon %s: %v", ic.Src, err)
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("icon %s is not a PNG: %v", ic.Src, err)
			continue
		}
		if got := fmt.Sprintf("%dx%d", img.Bounds().Dx(), img.Bounds().Dy()); got != ic.Sizes {
			t.Errorf("icon %s is %s, the manifest says %s", ic.Src, got, ic.Sizes)
		}
	}
	for _, want := range []string{"192x192 any", "512x512 any", "512x512 maskable", "any any"} {
		if !seen[want] {
			t.Errorf("manifest has no icon %q", want)
		}
	}
}

// The CSP has no 'unsafe-inline' and no 'unsafe-eval': markup parsed from
// strings could carry inline handlers or styles the browser then refuses,
// and eval is blocked outright. Modules build elements with dom.js instead.
func TestModulesAvoidWhatTheCSPBlocks(t *testing.T) {
	for _, tc := range []struct {
		name string
		re   *regexp.Regexp
	}{
		{"HTML parsed from a string", regexp.MustCompile(`\.(innerHTML|outerHTML)\s*=|insertAdjacentHTML|document\.write`)},
		{"eval", regexp.MustCompile(`\beval\s*\(|new\s+Function\s*\(|setTimeout\(\s*['"\x60]`)},
		{"style attribute", regexp.MustCompile(`setAttribute\(\s*['"]style['"]|cssText`)},
		{"inline event handler", regexp.MustCompile(`setAttribute\(\s*['"]on[a-z]+['"]|['"]on[a-z]+['"]\s*:`)},
	} {
		for _, f := range assetFiles(t) {
			if path.Ext(f) != ".js" {
				continue
			}
			if m := tc.re.FindString(read(t, f)); m != "" {
				t.Errorf("%s has %s: %q", f, tc.name, m)
			}
		}
	}
}

// dynamicImport matches `=> import('./x.js')` and `await import('./x.js')`,
// not the `{import('./x.js').T}` of a JSDoc type.
var dynamicImport = regexp.MustCompile(`(?:=>|await|return)\s+import\(\s*['"]([^'"]+)['"]\s*\)`)

// workerScript matches `new Worker(new URL('./x.js', import.meta.url)`: a
// module that runs in a worker of its own (the rules engine's).
var workerScript = regexp.MustCompile(`new\s+Worker\(\s*new\s+URL\(\s*['"]([^'"]+)['"]\s*,\s*import\.meta\.url\s*\)`)

// imports lists the modules a module imports, statically or when a screen
// opens, as paths under assets/.
func imports(t *testing.T, f string, re *regexp.Regexp) []string {
	t.Helper()
	var out []string
	for _, m := range re.FindAllStringSubmatch(read(t, f), -1) {
		target := path.Join(path.Dir(f), m[1])
		if _, err := fs.Stat(pwa.Files, target); err != nil {
			t.Errorf("%s imports %q, which is not embedded", f, m[1])
			continue
		}
		out = append(out, target)
	}
	return out
}

// closure is every module reached from app.js by the given imports.
func closure(t *testing.T, res ...*regexp.Regexp) map[string]bool {
	t.Helper()
	return closureFrom(t, "assets/app.js", res...)
}

// closureFrom is every module reached from start by the given imports.
func closureFrom(t *testing.T, start string, res ...*regexp.Regexp) map[string]bool {
	t.Helper()
	seen := map[string]bool{start: true}
	for todo := []string{start}; len(todo) > 0; {
		f := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		for _, re := range res {
			for _, g := range imports(t, f, re) {
				if !seen[g] {
					seen[g] = true
					todo = append(todo, g)
				}
			}
		}
	}
	return seen
}

// The shell preloads exactly what the home screen runs (app.js and what it
// imports statically), so the first load never waits on a chain of imports
// and carries no other screen. Every other module loads when its screen
// opens (a dynamic import), except the board forms, which load per game
// (the module its Info names, with what it imports),
// and the engine's worker and runtime, which load with the engine after the
// first paint. The service worker precaches them all (TestServiceWorkerCachesEveryAsset).
func TestShellPreloadsTheHomeScreen(t *testing.T) {
	html := read(t, "index.html")
	home := closure(t, staticImport)
	loaded := closure(t, staticImport, dynamicImport, workerScript)
	byForm := strings.Contains(read(t, "assets/games/forms.js"), "import(`../${game.form}`)")
	for _, g := range scoring.GameList() {
		loaded["assets/"+g.Form] = byForm
		// What a form imports loads with it.
		for f := range closureFrom(t, "assets/"+g.Form, staticImport) {
			loaded[f] = loaded[f] || byForm
		}
	}
	for _, f := range assetFiles(t) {
		if path.Ext(f) != ".js" {
			continue
		}
		preloaded := strings.Contains(html, `<link rel="modulepreload" href="/`+f+`">`) || strings.Contains(html, `<script type="module" src="/`+f+`">`)
		switch {
		case home[f] && !preloaded:
			t.Errorf("the home screen imports /%s, which index.html does not preload", f)
		case !home[f] && preloaded:
			t.Errorf("index.html preloads /%s, which the home screen does not import", f)
		case !loaded[f]:
			t.Errorf("/%s is neither imported by the home screen nor loaded when a screen opens", f)
		}
	}
	for _, f := range []string{"assets/games/score.js", "assets/table/table.js", "assets/history/plays.js", "assets/ui/widgets.js"} {
		if home[f] {
			t.Errorf("the home screen imports /%s, another screen's module", f)
		}
	}
}

// The home screen draws the app's icon inline, to spare the first load a
// request: it must stay the same picture as icon.svg.
func TestHomeIconIsTheAppIcon(t *testing.T) {
	icon := strings.TrimSpace(read(t, "assets/icon.svg"))
	app := read(t, "assets/app.js")
	if !strings.Contains(app, "`data:image/svg+xml,${encodeURIComponent(`"+icon+"`)}`") {
		t.Error("app.js does not draw icon.svg as it is: copy assets/icon.svg into its iconURL")
	}
}

// The live table's pieces must agree with the server: the table routes are
// app routes, the stream's event is named "table", and a table's tokens are
// kept under the key the browser tests (and a reload) look for.
func TestTableWiring(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"assets/app.js", `/^\/t\/([A-Za-z0-9]+)\/?$/`},
		{"assets/app.js", `/^\/t\/([A-Za-z0-9]+)\/seats\/(\d+)\/?$/`},
		{"assets/app.js", `/^\/tables\/new\/?$/`},
		{"assets/table/live.js", `new EventSource(`},
		{"assets/table/live.js", `addEventListener('table'`},
		{"assets/table/live.js", `addEventListener('online'`},
		{"assets/table/live.js", `'visibilitychange'`},
		{"assets/sync/kept.js", "`insectscore.table.${"},
		{"assets/sync/tables.js", `'If-Match'`},
		{"assets/sync/tables.js", "`Bearer ${token}`"},
	} {
		if !strings.Contains(read(t, tc.file), tc.want) {
			t.Errorf("%s lacks %s", tc.file, tc.want)
		}
	}
}

// The history screens must agree with the server and with each other: the
// invite link the server hands out (/g/<id>) is an app route, the history
// routes are registered, "new" is matched before a play id, tables are
// started in the current group, and the group is kept under one key.
func TestHistoryWiring(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"assets/app.js", `...historyRoutes`},
		{"assets/history/history.js", `/^\/g\/([A-Za-z0-9]+)\/?$/`},
		{"assets/history/history.js", `/^\/history\/?$/`},
		{"assets/history/history.js", `/^\/plays\/new\/?$/`},
		{"assets/history/history.js", `/^\/leaderboards\/([a-z0-9-]+)\/?$/`},
		{"assets/history/history.js", `/^\/players\/([a-z0-9]+)\/?$/`},
		{"assets/history/history.js", `/^\/groups\/([a-z0-9]+)\/?$/`},
		{"assets/sync/tables.js", `{ group: currentGroup(), ...req }`},
		{"assets/sync/history.js", `new URLSearchParams({ group })`},
		{"assets/sync/kept.js", `const currentKey = 'insectscore.group';`},
		{"assets/ui/charts.js", `document.createElementNS(NS, tag)`},
		{"assets/ui/charts.js", `role: 'img', 'aria-labelledby'`},
	} {
		if !strings.Contains(read(t, tc.file), tc.want) {
			t.Errorf("%s lacks %s", tc.file, tc.want)
		}
	}
	routes := read(t, "assets/history/history.js")
	if strings.Index(routes, `/^\/plays\/new\/?$/`) > strings.Index(routes, `/^\/plays\/([a-z0-9]+)\/?$/`) {
		t.Error("history.js matches /plays/<id> before /plays/new: logging a play would open a play called new")
	}
}

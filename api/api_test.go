package api

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"insectscore/models"
	_ "insectscore/scoring"
)

// scenario is one API call and what must come back.
type scenario struct {
	name   string
	method string
	path   string
	body   string
	header map[string]string
	status int
	// want maps JSON Pointers into the response to the values they must hold.
	want map[string]any
	// wantHeader maps response header names to the values they must hold.
	wantHeader map[string]string
	// check, if set, asserts or keeps anything else of the response.
	check func(t *testing.T, r response)
	// before, if set, runs before the request: settled waits there for
	// the store's background work.
	before func(t *testing.T)
}

// settled returns a scenario's before that waits until the store's
// background rebuilds are done, so the request reads final figures.
func settled(store *models.Store) func(t *testing.T) {
	return func(t *testing.T) {
		t.Helper()
		if err := store.WaitRebuilds(t.Context()); err != nil {
			t.Fatalf("WaitRebuilds: %v", err)
		}
	}
}

// response is what a test request got back.
type response struct {
	status int
	header http.Header
	body   []byte
}

// newTestApp builds the real app on a fresh in-memory SQLite database.
func newTestApp(t testing.TB) *fiber.App {
	t.Helper()
	app, _ := newTestAppWith(t, Config{})
	return app
}

// newTestAppWith is newTestApp with settings; it returns the store too.
func newTestAppWith(t testing.TB, cfg Config) (*fiber.App, *models.Store) {
	t.Helper()
	if cfg.Store == nil {
		store, err := models.Open(context.Background(), ":memory:", nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { store.Close() })
		cfg.Store = store
	}
	if cfg.LANAddr == nil {
		cfg.LANAddr = func() string { return "192.168.1.23" }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler) // every request is logged at info
	}
	app, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return app, cfg.Store
}

// call sends one request to app, checks the response against the OpenAPI
// document, and returns it.
func call(t testing.TB, app *fiber.App, method, path, body string, header map[string]string) response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, path, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	if h, ok := header["Host"]; ok {
		req.Host = h // net/http sends req.Host, not a Host header
	}
	resp, err := app.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	r := response{status: resp.StatusCode, header: resp.Header, body: b}
	if strings.HasPrefix(path, "/api/v1/") || path == "/healthz" || path == "/readyz" {
		checkOpenAPI(t, method, path, r)
	}
	return r
}

func runScenarios(t *testing.T, app *fiber.App, scenarios []scenario) {
	t.Helper()
	for _, sc := range scenarios {
		t.Run(sc.name, func(t *testing.T) {
			if sc.before != nil {
				sc.before(t)
			}
			r := call(t, app, sc.method, sc.path, sc.body, sc.header)
			if r.status != sc.status {
				t.Fatalf("%s %s: status %d, want %d; body %s", sc.method, sc.path, r.status, sc.status, r.body)
			}
			checkJSON(t, r.body, sc.want)
			for k, v := range sc.wantHeader {
				if got := r.header.Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
			if sc.check != nil {
				sc.check(t, r)
			}
		})
	}
}

// checkJSON asserts each pointer of want holds its value in body.
func checkJSON(t testing.TB, body []byte, want map[string]any) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatalf("response is not JSON: %v: %s", err, body)
	}
	for ptr, w := range want {
		got, ok := lookupPointer(doc, ptr)
		if !ok {
			t.Errorf("%s: missing in %s", ptr, body)
			continue
		}
		wb, _ := json.Marshal(w)
		gb, _ := json.Marshal(got)
		if !bytes.Equal(wb, gb) {
			t.Errorf("%s = %s, want %s", ptr, gb, wb)
		}
	}
}

func lookupPointer(doc any, ptr string) (any, bool) {
	if ptr == "" {
		return doc, true
	}
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		switch n := doc.(type) {
		case map[string]any:
			v, ok := n[tok]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(n) {
				return nil, false
			}
			doc = n[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

var (
	specOnce  sync.Once
	specDoc   map[string]any
	specC     *jsonschema.Compiler
	specErr   error
	schemaMu  sync.Mutex
	schemaFor = map[string]*jsonschema.Schema{}
)

func loadSpec() {
	specOnce.Do(func() {
		if specErr = json.Unmarshal(openAPIDoc, &specDoc); specErr != nil {
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIDoc))
		if err != nil {
			specErr = err
			return
		}
		specC = jsonschema.NewCompiler()
		specErr = specC.AddResource("openapi.json", doc)
	})
}

// specPath finds the OpenAPI path template that matches a concrete path.
// Of several (/api/v1/groups/import and /api/v1/groups/{id}), the one with
// the fewest parameters wins, as in the router.
func specPath(path string) (string, bool) {
	path, _, _ = strings.Cut(path, "?")
	paths := specDoc["paths"].(map[string]any)
	best, params := "", -1
	for tmpl := range paths {
		re := "^" + regexp.MustCompile(`\\\{[^}]+\\\}`).ReplaceAllString(regexp.QuoteMeta(tmpl), `[^/]+`) + "$"
		if n := strings.Count(tmpl, "{"); regexp.MustCompile(re).MatchString(path) && (params < 0 || n < params) {
			best, params = tmpl, n
		}
	}
	return best, params >= 0
}

// checkOpenAPI validates a response against the schema the OpenAPI document
// gives for its path, method, status and content type. An undocumented
// path, method, status or content type is a failure too.
func checkOpenAPI(t testing.TB, method, path string, r response) {
	t.Helper()
	loadSpec()
	if specErr != nil {
		t.Fatalf("openapi.json: %v", specErr)
	}
	tmpl, ok := specPath(path)
	if !ok {
		// Undocumented paths must not exist: they answer 404 problem+json.
		if ct := r.header.Get("Content-Type"); r.status != 404 || ct != "application/problem+json" {
			t.Fatalf("openapi.json documents no path matching %s, which answered %d %s", path, r.status, ct)
		}
		return
	}
	op, ok := specDoc["paths"].(map[string]any)[tmpl].(map[string]any)[strings.ToLower(method)]
	if !ok {
		t.Fatalf("openapi.json documents no %s %s", method, tmpl)
	}
	status := strconv.Itoa(r.status)
	documented, ok := op.(map[string]any)["responses"].(map[string]any)[status].(map[string]any)
	if !ok {
		t.Fatalf("openapi.json documents no %s response for %s %s (body %s)", status, method, tmpl, r.body)
	}
	ctype, _, _ := strings.Cut(r.header.Get("Content-Type"), ";")
	esc := strings.NewReplacer("~", "~0", "/", "~1")
	loc := "openapi.json#/paths/" + esc.Replace(tmpl) + "/" + strings.ToLower(method) + "/responses/" + status
	if ref, ok := documented["$ref"].(string); ok {
		// A shared response: #/components/responses/<name>.
		name, ok := strings.CutPrefix(ref, "#/components/responses/")
		if documented, ok = specDoc["components"].(map[string]any)["responses"].(map[string]any)[name].(map[string]any); !ok {
			t.Fatalf("openapi.json: %s %s %s refers to %s, which it lacks", method, tmpl, status, ref)
		}
		loc = "openapi.json#/components/responses/" + esc.Replace(name)
	}
	contents, _ := documented["content"].(map[string]any)
	if len(contents) == 0 {
		return
	}
	if _, ok := contents[ctype]; !ok {
		t.Fatalf("openapi.json documents no %s body for %s %s %s", ctype, status, method, tmpl)
	}
	if !strings.Contains(ctype, "json") {
		return
	}
	loc += "/content/" + esc.Replace(ctype) + "/schema"
	schemaMu.Lock()
	sch, ok := schemaFor[loc]
	if !ok {
		var err error
		if sch, err = specC.Compile(loc); err != nil {
			schemaMu.Unlock()
			t.Fatalf("compile %s: %v", loc, err)
		}
		schemaFor[loc] = sch
	}
	schemaMu.Unlock()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(r.body))
	if err != nil {
		t.Fatalf("%s %s: body is not JSON: %v", method, path, err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("%s %s → %s does not match openapi.json: %v\nbody: %s", method, path, status, err, r.body)
	}
}

// serve runs app on a loopback port until the test ends and returns its
// base URL.
func serve(t testing.TB, app *fiber.App) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

// want413 reads a response that must be a documented 413 problem.
func want413(t testing.TB, method, path string, resp *http.Response) {
	t.Helper()
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 413 {
		t.Fatalf("status %d, want 413: %s", resp.StatusCode, body)
	}
	checkOpenAPI(t, method, path, response{status: resp.StatusCode, header: resp.Header, body: body})
}

package api

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// redoclyVersion is the @redocly/cli that .ci/run installs under
// .ci/tools; keep the two in step.
const redoclyVersion = "2.77.0"

// TestOpenAPILint runs Redocly's linter with its recommended rules on
// api/openapi.json: 0 errors (warnings may stay). It runs when the linter
// is installed (.ci/run does it: npm install --prefix .ci/tools
// @redocly/cli@2.77.0), and with INSECTSCORE_REQUIRE_TOOLS=1 a missing
// linter fails rather than skips.
func TestOpenAPILint(t *testing.T) {
	bin, err := filepath.Abs(filepath.Join("..", ".ci", "tools", "node_modules", ".bin", "redocly"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		msg := "redocly is not installed: npm install --prefix .ci/tools @redocly/cli@" + redoclyVersion
		if os.Getenv("INSECTSCORE_REQUIRE_TOOLS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	cmd := exec.Command(bin, "lint", "--extends=recommended", "openapi.json")
	// No usage reports, no update check: the run needs no network.
	cmd.Env = append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("redocly lint api/openapi.json: %v\n%s", err, out)
	}
}

// TestOperationsDeclareSecurity: every operation says who may call it. A
// route that answers 401 without a token declares the bearer scheme; every
// other declares none (security: []). Each route is tried with a real
// table's code, seat 0 and a JSON body, and no token.
func TestOperationsDeclareSecurity(t *testing.T) {
	loadSpec()
	if specErr != nil {
		t.Fatal(specErr)
	}
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	paths := specDoc["paths"].(map[string]any)
	for _, rc := range documentedRoutes(t) {
		t.Run(rc.method+" "+rc.pattern, func(t *testing.T) {
			tmpl := strings.NewReplacer(":code", "{code}", ":seat", "{seat}", ":id", "{id}", ":game", "{game}").Replace(rc.pattern)
			ops, _ := paths[tmpl].(map[string]any)
			op, ok := ops[strings.ToLower(rc.method)].(map[string]any)
			if !ok {
				t.Fatalf("%s %s is not in openapi.json", rc.method, tmpl)
			}
			security, ok := op["security"].([]any)
			if !ok {
				t.Fatalf("%s %s declares no security", rc.method, tmpl)
			}
			path := strings.Replace(rc.path, "ABC234", tbl.Code, 1)
			if strings.HasSuffix(rc.pattern, "/events") {
				path = rc.path // a real table's stream would never end
			}
			body := ""
			if rc.method != "GET" {
				body = `{}`
			}
			r := call(t, app, rc.method, path, body, nil)
			bearer := len(security) == 1 && security[0].(map[string]any)["bearer"] != nil
			if takesToken := r.status == 401; takesToken != bearer {
				t.Errorf("%s %s answered %d without a token, and declares security %v", rc.method, tmpl, r.status, security)
			}
		})
	}
}

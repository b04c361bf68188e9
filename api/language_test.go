package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

var updateCatalog = flag.Bool("update-catalog", false, "add the server's missing messages to the English catalog")

// enCatalog is the path of the English catalog.
const enCatalog = "../pwa/assets/i18n/en.json"

// messageArgs are the functions that take a message of the server's own,
// and the index of its English text among their arguments.
var messageArgs = map[string]int{"errorf": 1, "newProblem": 1, "newProblemf": 2}

// serverMessages finds, in the package's source, every message given as a
// literal to messageArgs, every literal detail of a scoring.FieldError,
// and the literal details assigned to a variable named detail; each comes
// back by its catalog key, "api." + its English text (or format).
func serverMessages(t *testing.T) map[string]string {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out["api."+s] = s
			}
		}
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if id, ok := n.Fun.(*ast.Ident); ok {
					if i, ok := messageArgs[id.Name]; ok && i < len(n.Args) {
						add(n.Args[i])
					}
				}
				// A problem of a field goes out as the rules' do
				// (Catalog.FieldErrors): keyed "rules.".
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Add" && len(n.Args) > 1 {
					if recv, ok := sel.X.(*ast.Ident); ok && recv.Name == "verr" {
						if lit, ok := n.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							if s, err := strconv.Unquote(lit.Value); err == nil && s != "%s" {
								out["rules."+s] = s
							}
						}
					}
				}
			case *ast.KeyValueExpr:
				if id, ok := n.Key.(*ast.Ident); ok && id.Name == "Detail" {
					add(n.Value)
				}
			case *ast.AssignStmt:
				if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "detail" && len(n.Rhs) == 1 {
					add(n.Rhs[0])
				}
			}
			return true
		})
	}
	// Messages passed on as text, which Catalog reads back by format.
	passedOn := []string{notFoundDetail(errors.New("")), "a player cannot be merged into themselves", "%q is already at this table"}
	for _, m := range append(storeReasons, passedOn...) {
		out["api."+m] = m
	}
	// The store's reasons for text it cannot keep that name no value.
	for _, w := range []string{"it shows nothing", "it is not text (invalid UTF-8)"} {
		out["api.word."+w] = w
	}
	for _, g := range []string{"insectarium", "insecta", "insektenhotel", ""} {
		w := endCondition(g)
		out["api.word."+w] = w
	}
	return out
}

// TestCatalogHasTheServer checks that the English catalog holds every
// message of the server's own, word for word. Add the missing ones with
//
//	go test ./api -run TestCatalogHasTheServer -update-catalog
//
// and translate them in the other catalogs.
func TestCatalogHasTheServer(t *testing.T) {
	want := serverMessages(t)
	raw, err := os.ReadFile(enCatalog)
	if err != nil {
		t.Fatal(err)
	}
	var en map[string]string
	if err := json.Unmarshal(raw, &en); err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got, ok := en[k]; !ok {
			missing = append(missing, k)
		} else if got != want[k] {
			t.Errorf("en.json: %q is %q, but the server says %q", k, got, want[k])
		}
	}
	if len(missing) == 0 {
		return
	}
	if !*updateCatalog {
		t.Fatalf("en.json lacks %d messages of the server (add them with -update-catalog):\n%s", len(missing), strings.Join(missing, "\n"))
	}
	for _, k := range missing {
		en[k] = want[k]
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(en); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(enCatalog, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

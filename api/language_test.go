package api

import (
	"bytes"
	"encoding/json"
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

	"github.com/gofiber/fiber/v2/utils"
)

var updateCatalog = flag.Bool("update-catalog", false, "add the server's missing messages to the English catalog")

// enCatalog is the path of the English catalog.
const enCatalog = "../pwa/assets/i18n/en.json"

// messageArgs are the functions that take a message of the server's own,
// and the index of its English text among their arguments.
var messageArgs = map[string]int{"errorf": 1, "say": 0}

// storeMessageArgs are the functions of the store (models) that take a
// sentence for the user, which the API writes in the client's language
// (a scoring.Message keyed "api."), and the index of its English format.
var storeMessageArgs = map[string]int{"messagef": 0, "refuse": 1, "textErrorf": 0, "conflictf": 1, "badImport": 0, "badImportAt": 1, "notFound": 0}

// sourceMessages adds to out the string literals given, in the non-test
// Go files of dir, as argument i of a function funcs[name] = i, keyed
// "api." + the literal; a concatenation of literals counts as one.
func sourceMessages(t *testing.T, dir string, funcs map[string]int, out map[string]string) {
	t.Helper()
	inspectSources(t, dir, func(fset *token.FileSet, n ast.Node) {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return
		}
		if id, ok := call.Fun.(*ast.Ident); ok {
			if i, ok := funcs[id.Name]; ok && i < len(call.Args) {
				if s, ok := literal(call.Args[i]); ok {
					out["api."+s] = s
				} else if _, passed := call.Args[i].(*ast.Ident); !passed {
					// A format passed on (badImport's to
					// messagef) is counted where it is written.
					t.Errorf("%s: %s takes a message that is not a literal", fset.Position(call.Pos()), id.Name)
				}
			}
		}
	})
}

// inspectSources calls fn on every node of the non-test Go files of dir.
func inspectSources(t *testing.T, dir string, fn func(*token.FileSet, ast.Node)) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
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
			fn(fset, n)
			return true
		})
	}
}

// literal is the string a literal or a concatenation of literals is.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		if e.Kind != token.STRING {
			return "", false
		}
		s, err := strconv.Unquote(e.Value)
		return s, err == nil
	case *ast.BinaryExpr:
		if e.Op != token.ADD {
			return "", false
		}
		a, ok := literal(e.X)
		b, ok2 := literal(e.Y)
		return a + b, ok && ok2
	case *ast.ParenExpr:
		return literal(e.X)
	}
	return "", false
}

// serverMessages finds, in the package's source, every message given as a
// literal to messageArgs, every literal detail of a scoring.FieldError,
// and the literal details assigned to a variable named detail; each comes
// back by its catalog key, "api." + its English text (or format).
func serverMessages(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	add := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			if s, err := strconv.Unquote(lit.Value); err == nil {
				out["api."+s] = s
			}
		}
	}
	inspectSources(t, ".", func(_ *token.FileSet, n ast.Node) {
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
	})
	// The store's sentences, and the words they take.
	sourceMessages(t, "../models", storeMessageArgs, out)
	for _, w := range []string{"play", "player"} {
		out["api.word."+w] = w
	}
	// The title of every error status a problem can have.
	for code := 400; code < 600; code++ {
		if utils.StatusMessage(code) != "" {
			out["status."+strconv.Itoa(code)] = plainProblem(code, "", nil).Title
		}
	}
	// The seats of phones with unsent changes: "Ana's and Ben's".
	out["api.%s's"] = "%s's"
	out["api.word.and"] = "and"
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

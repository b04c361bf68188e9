package pwa_test

import (
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"

	"insectscore/pwa"
)

// maxModuleLines is how long a module may grow before it holds more than
// one concern (STYLE.md: "none over about 500 lines").
const maxModuleLines = 500

// longModules are the modules allowed over maxModuleLines, each with why.
var longModules = map[string]string{
	"assets/engine/wasm_exec.js": "Go's own runtime glue, copied from the Go distribution as it is",
}

var (
	// blockComment and lineComment are left out before imports are read:
	// JSDoc's import('…').Type names a type, not a module loaded.
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`(?m)(^|[^:\\])//.*$`)
	// anyStaticImport is `import … from '…'` and `import '…'`.
	anyStaticImport = regexp.MustCompile(`(?m)^\s*import\s+(?:[^'"()]*?\s+from\s+)?['"]([^'"]+)['"]`)
	// anyDynamicImport is `import('…')` with a literal specifier, wherever
	// it stands; one built at run time (a game's form: `../${game.form}`)
	// names a form module, which imports only ui/.
	anyDynamicImport = regexp.MustCompile(`\bimport\(\s*['"]([^'"]+)['"]\s*\)`)
)

// moduleGraph reads every module's static and dynamic imports under
// assets/, as paths under assets/.
func moduleGraph(t *testing.T) map[string][]string {
	t.Helper()
	graph := map[string][]string{}
	for _, f := range assetFiles(t) {
		if path.Ext(f) != ".js" {
			continue
		}
		code := lineComment.ReplaceAllString(blockComment.ReplaceAllString(read(t, f), ""), "$1")
		graph[f] = nil
		for _, re := range []*regexp.Regexp{anyStaticImport, anyDynamicImport} {
			for _, m := range re.FindAllStringSubmatch(code, -1) {
				target := path.Join(path.Dir(f), m[1])
				if _, err := fs.Stat(pwa.Files, target); err != nil {
					t.Errorf("%s imports %q, which is not embedded", f, m[1])
					continue
				}
				if !slices.Contains(graph[f], target) {
					graph[f] = append(graph[f], target)
				}
			}
		}
	}
	return graph
}

// circles finds the import circles of graph, each once, as the path that
// closes it (a → b → a).
func circles(graph map[string][]string) [][]string {
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var stack []string
	var found [][]string
	var visit func(f string)
	visit = func(f string) {
		state[f] = open
		stack = append(stack, f)
		for _, g := range graph[f] {
			switch state[g] {
			case unseen:
				visit(g)
			case open:
				at := slices.Index(stack, g)
				found = append(found, append(slices.Clone(stack[at:]), g))
			}
		}
		stack = stack[:len(stack)-1]
		state[f] = done
	}
	files := make([]string, 0, len(graph))
	for f := range graph {
		files = append(files, f)
	}
	slices.Sort(files)
	for _, f := range files {
		if state[f] == unseen {
			visit(f)
		}
	}
	return found
}

// TestModulesHaveNoImportCircles holds the app's modules to layers: ui/
// at the bottom, then sync/, games/, history/ and table/, with the router
// and app.js on top. A module imports (statically, or when a screen opens)
// only what sits below it, so no two modules import each other, however
// long the way round. And no module grows past maxModuleLines unless
// longModules says why.
func TestModulesHaveNoImportCircles(t *testing.T) {
	graph := moduleGraph(t)
	if len(graph) < 20 || len(graph["assets/app.js"]) == 0 {
		t.Fatalf("read %d modules, app.js importing %v: the imports were not read", len(graph), graph["assets/app.js"])
	}
	for _, c := range circles(graph) {
		t.Errorf("import circle: %s", strings.Join(c, " → "))
	}
	for f := range graph {
		n := strings.Count(read(t, f), "\n")
		why, long := longModules[f]
		switch {
		case n > maxModuleLines && !long:
			t.Errorf("%s has %d lines, over %d: split it by concern (or list it in longModules with the reason)", f, n, maxModuleLines)
		case n <= maxModuleLines && long:
			t.Errorf("%s has %d lines now: take it off longModules (%s)", f, n, why)
		}
	}
}

// TestCirclesAreFound: the search the test above relies on finds a circle
// of one, of two and of three modules, and none in a graph without.
func TestCirclesAreFound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		graph map[string][]string
		want  int
	}{
		{"none", map[string][]string{"a": {"b", "c"}, "b": {"c"}, "c": nil}, 0},
		{"self", map[string][]string{"a": {"a"}}, 1},
		{"two", map[string][]string{"a": {"b"}, "b": {"a"}}, 1},
		{"three", map[string][]string{"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := circles(tc.graph); len(got) != tc.want {
				t.Errorf("circles(%v) = %v, want %d", tc.graph, got, tc.want)
			}
		})
	}
}

package pwa_test

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEngineIsGenerated rebuilds the browser's rules engine with the
// commands of generate.go, into a temporary directory, and wants the
// committed files to be the same bytes: a change to scoring/ must come with
// a fresh engine.wasm, or the PWA would score by old rules.
func TestEngineIsGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the engine; not in -short")
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	env := map[string]string{"GOROOT": strings.TrimSpace(string(goroot)), "DOLLAR": "$"}
	out := t.TempDir()
	var cmds [][]string
	for _, args := range generateCommands(t, "generate.go") {
		// The engine's lines write under assets/engine/; the compressed
		// forms have a test of their own (compressed_test.go).
		if slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "assets/engine/") }) {
			cmds = append(cmds, args)
		}
	}
	if len(cmds) == 0 {
		t.Fatal("generate.go has no //go:generate lines writing the engine")
	}
	for _, args := range cmds {
		for i, a := range args {
			a = os.Expand(a, func(k string) string {
				if v, ok := env[k]; ok {
					return v
				}
				return os.Getenv(k)
			})
			if rest, ok := strings.CutPrefix(a, "assets/engine/"); ok {
				a = filepath.Join(out, rest)
			}
			args[i] = a
		}
		cmd := exec.Command(args[0], args[1:]...)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, msg)
		}
	}
	built, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range built {
		want, err := os.ReadFile(filepath.Join(out, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("assets", "engine", f.Name()))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("pwa/assets/engine/%s is not what generate.go builds from this source (%d bytes committed, %d built): run `go generate ./...` and commit it", f.Name(), len(got), len(want))
		}
	}
	if len(built) != 2 {
		t.Errorf("generate.go made %d files, want engine.wasm and wasm_exec.js", len(built))
	}
}

// generateCommands reads the //go:generate lines of a file, each split into
// words as go generate splits them: at spaces, a double-quoted Go string
// being one word.
func generateCommands(t *testing.T, name string) [][]string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds [][]string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "//go:generate ")
		if !ok {
			continue
		}
		var words []string
		for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
			if line[0] == '"' {
				q, err := strconv.QuotedPrefix(line)
				if err != nil {
					t.Fatalf("%s: %v in %q", name, err, line)
				}
				w, _ := strconv.Unquote(q)
				words = append(words, w)
				line = line[len(q):]
				continue
			}
			w, rest, _ := strings.Cut(line, " ")
			words = append(words, w)
			line = rest
		}
		cmds = append(cmds, words)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

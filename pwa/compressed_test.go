package pwa_test

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"

	"insectscore/pwa"
	"insectscore/pwa/precompress"
)

// TestCompressedFormsAreFresh: every file under assets/ worth compressing
// has its brotli and gzip forms under compressed/, made from it as it is
// (go generate -run precompress ./pwa makes them), and each decodes to
// it; compressed/ holds nothing else.
func TestCompressedFormsAreFresh(t *testing.T) {
	want := map[string]bool{}
	for _, f := range assetFiles(t) {
		name := strings.TrimPrefix(f, "assets/")
		if !precompress.Worth(name) {
			continue
		}
		raw := []byte(read(t, f))
		sum := sha256.Sum256(raw)
		br, gz := pwa.Forms(name, sum)
		brName, gzName := precompress.Names(name, sum)
		for _, form := range []struct {
			name, found, coding string
			decode              func(io.Reader) (io.Reader, error)
		}{
			{brName, br, "brotli", func(r io.Reader) (io.Reader, error) { return brotli.NewReader(r), nil }},
			{gzName, gz, "gzip", func(r io.Reader) (io.Reader, error) { return gzip.NewReader(r) }},
		} {
			want[form.name] = true
			if form.found == "" {
				// A form is left out only where it does not pay, which a
				// file of some size never is.
				if len(raw) > 4096 || pays(form.coding, raw) {
					t.Errorf("%s has no %s form made from it as it is (compressed/%s): run `go generate -run precompress ./pwa` and commit compressed/", f, form.coding, form.name)
				}
				continue
			}
			b, err := fs.ReadFile(pwa.Compressed, form.found)
			if err != nil {
				t.Fatal(err)
			}
			rd, err := form.decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("compressed/%s: %v", form.name, err)
			}
			got, err := io.ReadAll(rd)
			if err != nil || !bytes.Equal(got, raw) {
				t.Errorf("compressed/%s does not decode to %s (%d bytes, %v): delete it and run `go generate -run precompress ./pwa`", form.name, f, len(got), err)
			}
		}
	}
	err := fs.WalkDir(os.DirFS("compressed"), ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !want[p] {
			t.Errorf("compressed/%s is the form of no file as it is now: run `go generate -run precompress ./pwa`, which deletes it", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// pays reports whether a file's form in coding is smaller than it.
func pays(coding string, raw []byte) bool {
	br, gz := precompress.Forms(raw)
	if coding == "brotli" {
		return br != nil
	}
	return gz != nil
}

// TestCompressedFormsAreGenerated runs generate.go's precompress command
// into a temporary directory and wants the same files, byte for byte, as
// committed: the forms are what the command makes, and it makes the same
// bytes every time.
func TestCompressedFormsAreGenerated(t *testing.T) {
	if testing.Short() {
		t.Skip("compresses every file again, the engine at brotli's quality 11 (about 10 s of CPU); not in -short")
	}
	out := t.TempDir()
	var args []string
	for _, cmd := range generateCommands(t, "generate.go") {
		if slices.Contains(cmd, "./precompress/gen") {
			args = cmd
		}
	}
	i := slices.Index(args, "-out")
	if i < 0 || i+1 >= len(args) || args[i+1] != "compressed" {
		t.Fatalf("generate.go has no line `go run ./precompress/gen … -out compressed` (%q)", args)
	}
	args[i+1] = out
	if msg, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	built := files(t, out)
	committed := files(t, "compressed")
	for name, b := range built {
		if c, ok := committed[name]; !ok || !bytes.Equal(c, b) {
			t.Errorf("compressed/%s is not what generate.go makes (%d bytes committed, %d made): run `go run ./precompress/gen -force` in pwa/ and commit it", name, len(c), len(b))
		}
	}
	for name := range committed {
		if _, ok := built[name]; !ok {
			t.Errorf("compressed/%s is committed, and generate.go does not make it", name)
		}
	}
}

// files reads every file under dir, by its slash-separated path in it.
func files(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(rel)], err = os.ReadFile(p)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

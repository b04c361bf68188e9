// Package precompress makes the brotli and gzip forms of the app's files,
// the same way for both of their makers: go generate, which writes the
// forms of the files under pwa/assets once at build time (the command in
// ./gen; they are committed and embedded, so the server compresses none of
// them), and the server, which at start compresses the few small files it
// writes itself (index.html in each language, sw.js and the manifest with
// this build's version in them).
package precompress

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"sync"

	"github.com/andybalholm/brotli"
)

// worth lists the types worth sending compressed: text, and the
// WebAssembly engine (3.96 MB that brotli takes to 0.82 MB). Images are
// compressed already.
var worth = map[string]bool{
	".js": true, ".css": true, ".html": true, ".svg": true, ".webmanifest": true,
	".json": true, ".txt": true, ".wasm": true,
}

// Worth reports whether a file of this name is worth compressing.
func Worth(name string) bool {
	return worth[path.Ext(name)]
}

// Forms returns the brotli (quality 11) and gzip (best) forms of raw, each
// nil where it is not smaller than raw. Both are the same bytes for the
// same input on every run. Brotli's window is the smallest that holds raw:
// the encoder's tables grow with the window, 33 MB at the default for
// even a 4 KB file, and a decoder needs no more than the window either.
func Forms(raw []byte) (br, gz []byte) {
	var b, g bytes.Buffer
	bw := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: brotli.BestCompression, LGWin: window(len(raw))})
	// Writes to a bytes.Buffer do not fail.
	_, _ = bw.Write(raw)
	_ = bw.Close()
	gw, _ := gzip.NewWriterLevel(&g, gzip.BestCompression)
	_, _ = gw.Write(raw)
	_ = gw.Close()
	if b.Len() < len(raw) {
		br = b.Bytes()
	}
	if g.Len() < len(raw) {
		gz = g.Bytes()
	}
	return br, gz
}

// window is the base 2 logarithm of the smallest brotli window (its size
// is 2^lgwin − 16) that holds n bytes, within brotli's 10 to 24.
func window(n int) int {
	lg := 10
	for lg < 24 && 1<<lg-16 < n {
		lg++
	}
	return lg
}

// Names returns where the brotli and gzip forms of the file name (a path
// under assets/) are kept, sum being the SHA-256 of the content they are
// made from: name.<sum>.br and name.<sum>.gz, with sum's first 16 hex
// digits. A form made from an older content has another name, so an edit
// not followed by go generate leaves the file uncompressed, never served
// as it was.
func Names(name string, sum [sha256.Size]byte) (br, gz string) {
	base := name + "." + hex.EncodeToString(sum[:8])
	return base + ".br", base + ".gz"
}

// Generate writes into the directory out the forms of every file under
// src worth compressing, named as Names says, and deletes every other file
// under out: the forms of files since changed or gone. A file whose forms
// are there already is not compressed again unless force is set
// (brotli's quality 11 takes about 16 s of CPU for the engine).
func Generate(src, out string, force bool) error {
	type job struct {
		raw        []byte
		brAt, gzAt string
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var jobs []job
	keep := map[string]bool{}
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !Worth(p) {
			return err
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		br, gz := Names(filepath.ToSlash(rel), sha256.Sum256(raw))
		br, gz = filepath.Join(out, filepath.FromSlash(br)), filepath.Join(out, filepath.FromSlash(gz))
		made := false
		for _, f := range []string{br, gz} {
			if _, err := os.Stat(f); err == nil {
				keep[f], made = true, true
			}
		}
		if force || !made {
			jobs = append(jobs, job{raw: raw, brAt: br, gzAt: gz})
		}
		return nil
	})
	if err != nil {
		return err
	}
	// The largest first, so the engine does not start last.
	slices.SortFunc(jobs, func(a, b job) int { return len(b.raw) - len(a.raw) })
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
		next = make(chan job)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for j := range next {
				br, gz := Forms(j.raw)
				for _, f := range []struct {
					at string
					b  []byte
				}{{j.brAt, br}, {j.gzAt, gz}} {
					// One that does not pay is not written (and a
					// form made before goes in prune).
					var err error
					if f.b != nil {
						err = writeFile(f.at, f.b)
					}
					mu.Lock()
					keep[f.at] = f.b != nil
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		})
	}
	for _, j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return prune(out, keep)
}

func writeFile(name string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	return os.WriteFile(name, b, 0o644)
}

// prune deletes the files under out not in keep, and the directories left
// empty.
func prune(out string, keep map[string]bool) error {
	var dirs []string
	err := filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir():
			dirs = append(dirs, p)
			return nil
		case keep[p]:
			return nil
		}
		return os.Remove(p)
	})
	if err != nil {
		return err
	}
	// Deepest first; a directory with files in it stays.
	slices.Reverse(dirs)
	for _, d := range dirs[:len(dirs)-1] {
		if entries, err := os.ReadDir(d); err == nil && len(entries) == 0 {
			if err := os.Remove(d); err != nil {
				return err
			}
		}
	}
	return nil
}

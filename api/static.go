package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"path"
	"sort"
	"strings"

	"github.com/gofiber/fiber/v2"

	"insectscore/pwa"
)

// assets is the embedded PWA, prepared once at start-up. Files under
// assets/ are served below /assets/<version>/, where version hashes every
// file of the app: a new build gets new URLs, so they can be immutable,
// while index.html, sw.js and the manifest are revalidated on every load.
type assets struct {
	version string
	// shell holds the files served at the top level, with /assets/ paths
	// rewritten to the versioned ones.
	shell map[string][]byte
	files map[string][]byte
}

var shellFiles = []string{"index.html", "sw.js", "manifest.webmanifest"}

func loadAssets() (*assets, error) {
	a := &assets{shell: map[string][]byte{}, files: map[string][]byte{}}
	h := sha256.New()
	var names []string
	err := fs.WalkDir(pwa.Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || path.Ext(p) == ".go" {
			return err
		}
		names = append(names, p)
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	for _, p := range names {
		b, err := fs.ReadFile(pwa.Files, p)
		if err != nil {
			return nil, err
		}
		h.Write([]byte(p))
		h.Write(b)
		if rest, ok := strings.CutPrefix(p, "assets/"); ok {
			a.files[rest] = b
		}
	}
	a.version = hex.EncodeToString(h.Sum(nil))[:12]
	for _, name := range shellFiles {
		b, err := fs.ReadFile(pwa.Files, name)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte("/assets/"), []byte("/assets/"+a.version+"/"))
		a.shell[name] = bytes.ReplaceAll(b, []byte("__VERSION__"), []byte(a.version))
	}
	return a, nil
}

// serveApp answers every other GET: the app shell, versioned assets, and
// index.html for the app's own routes (/t/CODE, /score/insecta, …).
func (s *server) serveApp(c *fiber.Ctx) error {
	p := c.Path()
	if rest, ok := strings.CutPrefix(p, "/assets/"); ok {
		version, name, _ := strings.Cut(rest, "/")
		b, ok := s.assets.files[name]
		if !ok {
			return errorf(fiber.StatusNotFound, "no such file")
		}
		if version == s.assets.version {
			c.Set(fiber.HeaderCacheControl, "public, max-age=31536000, immutable")
		} else {
			c.Set(fiber.HeaderCacheControl, "no-cache")
		}
		return sendFile(c, name, b)
	}
	name := strings.TrimPrefix(p, "/")
	if name == "" || !strings.Contains(path.Base(name), ".") {
		name = "index.html"
	}
	b, ok := s.assets.shell[name]
	if !ok {
		return errorf(fiber.StatusNotFound, "no such file")
	}
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return sendFile(c, name, b)
}

func sendFile(c *fiber.Ctx, name string, b []byte) error {
	ctype := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js":
		ctype = "text/javascript; charset=utf-8"
	case ".webmanifest":
		ctype = "application/manifest+json"
	case ".wasm":
		// WebAssembly.instantiateStreaming refuses any other type, and the
		// system's MIME tables need not know .wasm.
		ctype = "application/wasm"
	case "":
		ctype = "application/octet-stream"
	}
	c.Set(fiber.HeaderContentType, ctype)
	return c.Send(b)
}

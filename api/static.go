package api

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html"
	"io/fs"
	"mime"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/andybalholm/brotli"
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
	shell map[string]*asset
	// pages holds index.html in each of the app's languages, keyed by
	// language: the page carries that language's UI messages, so the app
	// draws its first screen without fetching a catalog.
	pages map[string]*asset
	files map[string]*asset
	// compressed is closed once every compressible file has its forms.
	compressed chan struct{}
}

// asset is one file and, once compressed in the background, its
// compressed forms.
type asset struct {
	raw []byte
	// packed holds the brotli and gzip forms once made; until then (and
	// for files compressing does not pay for, as PNG) the file goes as it is.
	packed atomic.Pointer[packed]
	// compressible says the file is worth compressing (so answers vary by
	// Accept-Encoding, even before its forms are ready).
	compressible bool
}

// packed is a file's compressed forms; nil where that coding does not pay.
type packed struct {
	br, gz []byte
}

var shellFiles = []string{"index.html", "sw.js", "manifest.webmanifest"}

// compressible lists the text types (and the WebAssembly engine, 3.8 MB
// that brotli takes to 0.9 MB) worth sending compressed.
var compressible = map[string]bool{
	".js": true, ".css": true, ".html": true, ".svg": true, ".webmanifest": true,
	".json": true, ".txt": true, ".wasm": true,
}

// loadAssets prepares the embedded app once per process: the files never
// change while it runs. Compressing them costs about a second of CPU (much
// more under the race detector), so it runs in the background: start-up
// does not wait for it, and a file goes uncompressed until its forms are
// ready.
var loadAssets = sync.OnceValues(buildAssets)

func buildAssets() (*assets, error) {
	a := &assets{shell: map[string]*asset{}, pages: map[string]*asset{}, files: map[string]*asset{}}
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
			a.files[rest] = &asset{raw: b}
		}
	}
	a.version = hex.EncodeToString(h.Sum(nil))[:12]
	for _, name := range shellFiles {
		b, err := fs.ReadFile(pwa.Files, name)
		if err != nil {
			return nil, err
		}
		b = bytes.ReplaceAll(b, []byte("/assets/"), []byte("/assets/"+a.version+"/"))
		a.shell[name] = &asset{raw: bytes.ReplaceAll(b, []byte("__VERSION__"), []byte(a.version))}
	}
	for _, l := range languages {
		page, err := pageIn(a.shell["index.html"].raw, a.files["i18n/"+l+".json"], l)
		if err != nil {
			return nil, err
		}
		a.pages[l] = &asset{raw: page}
	}
	// Small text first, so the first screen's files are soon compressed,
	// then the engine; one goroutine, so requests keep a core.
	var queue []*asset
	var engines []*asset
	pages := map[string]*asset{}
	for l, f := range a.pages {
		pages[l+".html"] = f
	}
	for _, m := range []map[string]*asset{pages, a.shell, a.files} {
		for name, f := range m {
			if !compressible[path.Ext(name)] {
				continue
			}
			f.compressible = true
			if path.Ext(name) == ".wasm" {
				engines = append(engines, f)
			} else {
				queue = append(queue, f)
			}
		}
	}
	a.compressed = make(chan struct{})
	go func() {
		defer close(a.compressed)
		for _, f := range queue {
			f.compress(false)
		}
		for _, f := range engines {
			f.compress(true)
		}
	}()
	return a, nil
}

// compress makes the brotli and gzip forms, at the highest quality for
// text (a few hundred KB in all) and a quicker one for the engine, for
// which quality 11 takes 13 s of CPU at start for 12% fewer bytes.
func (f *asset) compress(large bool) {
	brQuality, gzLevel := brotli.BestCompression, gzip.BestCompression
	if large {
		brQuality, gzLevel = 9, gzip.DefaultCompression
	}
	var br, gz bytes.Buffer
	bw := brotli.NewWriterLevel(&br, brQuality)
	gw, _ := gzip.NewWriterLevel(&gz, gzLevel)
	// Writes to a bytes.Buffer do not fail.
	_, _ = bw.Write(f.raw)
	_ = bw.Close()
	_, _ = gw.Write(f.raw)
	_ = gw.Close()
	var p packed
	if br.Len() < len(f.raw) {
		p.br = br.Bytes()
	}
	if gz.Len() < len(f.raw) {
		p.gz = gz.Bytes()
	}
	f.packed.Store(&p)
}

// serveApp answers every other GET: the app shell, versioned assets, and
// index.html for the app's own routes (/t/CODE, /score/insecta, …).
func (s *server) serveApp(c *fiber.Ctx) error {
	p := c.Path()
	if rest, ok := strings.CutPrefix(p, "/assets/"); ok {
		version, name, _ := strings.Cut(rest, "/")
		b, ok := s.assets.files[name]
		if !ok {
			return noSuchFile(c)
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
		return noSuchFile(c)
	}
	if name == "index.html" {
		l := pageLanguage(c.Cookies("lang"), c.Get(fiber.HeaderAcceptLanguage))
		b = s.assets.pages[l]
		c.Vary(fiber.HeaderAcceptLanguage, fiber.HeaderCookie)
		c.Set(fiber.HeaderContentLanguage, l)
	}
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return sendFile(c, name, b)
}

// noSuchFile is the 404 of a file the app does not have: written in the
// request's language, so it says which and that it varies by it, and not
// to be kept by caches (the file may come with the next version).
func noSuchFile(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentLanguage, langOf(c))
	c.Vary(fiber.HeaderAcceptLanguage)
	c.Set(fiber.HeaderCacheControl, "no-cache")
	return errorf(fiber.StatusNotFound, "no such file")
}

// pageLanguage picks the language of index.html: the one chosen in the
// app (its "lang" cookie), else the browser's Accept-Language negotiated
// as for every API answer.
func pageLanguage(cookie, accept string) string {
	if slices.Contains(languages, cookie) {
		return cookie
	}
	return negotiate(accept)
}

// pageIn writes index.html in a language: <html lang> and the catalog's
// UI messages ("ui." keys; the game's words come from the server and the
// engine) as a JSON data block the app reads before it draws.
func pageIn(page []byte, catalog *asset, lang string) ([]byte, error) {
	if catalog == nil {
		return nil, fmt.Errorf("pwa: no catalog for %s", lang)
	}
	var all map[string]string
	if err := json.Unmarshal(catalog.raw, &all); err != nil {
		return nil, fmt.Errorf("pwa: catalog %s: %w", lang, err)
	}
	ui := map[string]string{}
	for k, v := range all {
		if strings.HasPrefix(k, "ui.") {
			ui[k] = v
		}
	}
	// encoding/json escapes <, > and &, so the block cannot end early.
	msgs, err := json.Marshal(ui)
	if err != nil {
		return nil, err
	}
	page = bytes.Replace(page, []byte(`<html lang="en">`), []byte(`<html lang="`+lang+`">`), 1)
	page, err = translateMarked(page, ui)
	if err != nil {
		return nil, err
	}
	block := []byte(`<script type="application/json" id="catalog" data-lang="` + lang + `">` + string(msgs) + "</script>\n</head>")
	if !bytes.Contains(page, []byte("</head>")) {
		return nil, fmt.Errorf("pwa: index.html has no </head>")
	}
	return bytes.Replace(page, []byte("</head>"), block, 1), nil
}

// translateMarked writes the text of each element of page marked
// data-i18n="ui.<key>" (what shows before the app runs, or without
// JavaScript) as the catalog msgs has it, escaped for HTML; the English
// stays where msgs has none.
func translateMarked(page []byte, msgs map[string]string) ([]byte, error) {
	const mark = ` data-i18n="`
	var out []byte
	for {
		i := bytes.Index(page, []byte(mark))
		if i < 0 {
			return append(out, page...), nil
		}
		key, rest, ok := bytes.Cut(page[i+len(mark):], []byte(`">`))
		end := bytes.IndexByte(rest, '<')
		if !ok || end < 0 {
			return nil, fmt.Errorf("pwa: index.html: a data-i18n mark without its text")
		}
		text := string(rest[:end])
		if msg, ok := msgs[string(key)]; ok {
			text = html.EscapeString(msg)
		}
		out = append(append(append(out, page[:i+len(mark)]...), key...), `">`+text...)
		page = rest[end:]
	}
}

// sendFile answers with the file in the best encoding the client takes:
// brotli, then gzip, else as it is.
func sendFile(c *fiber.Ctx, name string, f *asset) error {
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
	b := f.raw
	if f.compressible {
		c.Vary(fiber.HeaderAcceptEncoding)
	}
	if p := f.packed.Load(); p != nil {
		accept := c.Get(fiber.HeaderAcceptEncoding)
		switch {
		case p.br != nil && accepts(accept, "br"):
			c.Set(fiber.HeaderContentEncoding, "br")
			b = p.br
		case p.gz != nil && accepts(accept, "gzip"):
			c.Set(fiber.HeaderContentEncoding, "gzip")
			b = p.gz
		}
	}
	return c.Send(b)
}

// accepts reports whether an Accept-Encoding header takes a coding with a
// q-value above 0, by its name or else by "*".
func accepts(header, coding string) bool {
	named, star := -1.0, -1.0
	for item := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(item, ";")
		name = strings.TrimSpace(name)
		if !strings.EqualFold(name, coding) && name != "*" {
			continue
		}
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
				q, _ = strconv.ParseFloat(v, 64)
			}
		}
		if name == "*" {
			star = q
		} else {
			named = q
		}
	}
	if named >= 0 {
		return named > 0
	}
	return star > 0
}

// AssetsCompressed is closed once every embedded file has its compressed
// forms. Serving never waits for it; what measures the bytes sent does.
func AssetsCompressed() <-chan struct{} {
	a, err := loadAssets()
	if err != nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return a.compressed
}

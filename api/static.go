package api

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"mime"
	"path"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"

	"insectscore/pwa"
	"insectscore/pwa/precompress"
	"insectscore/scoring"
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
}

// asset is one file as served: as it is and, where that coding pays,
// its brotli and gzip forms (nil where not, or, for a file under assets/,
// where none was made from it as it is: edited since go generate).
type asset struct {
	raw, br, gz *body
	// pack, for a file the server writes itself, makes br and gz from
	// raw the first time the file is sent: not before the server
	// listens, since brotli's best takes a tenth of a second or more on
	// each page (seconds under the race detector).
	pack *sync.Once
}

// forms returns the brotli and gzip forms of f, making them first if
// they are made on demand.
func (f *asset) forms() (br, gz *body) {
	if f.pack != nil {
		f.pack.Do(func() {
			br, gz := precompress.Forms(f.raw.b)
			f.br, f.gz = held(br), held(gz)
			// Brotli's tables were megabytes of garbage: give them
			// back now, or an idle server keeps them resident until
			// its next collection, minutes away.
			debug.FreeOSMemory()
		})
	}
	return f.br, f.gz
}

// body is the bytes of one form of a file: held, for what the server
// writes itself, or embedded in the binary, read from there as it is sent
// rather than copied into the heap at start (the engine alone is 3.96 MB,
// and 1.9 MB of forms).
type body struct {
	b []byte
	// fsys and name say where an embedded body is, size how long.
	fsys fs.FS
	name string
	size int
}

// embedded is the body of the file name in fsys; nil if name is "".
func embedded(fsys fs.FS, name string) (*body, error) {
	if name == "" {
		return nil, nil
	}
	info, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	return &body{fsys: fsys, name: name, size: int(info.Size())}, nil
}

// send makes b the answer's body.
func (b *body) send(c *fiber.Ctx) error {
	if b.fsys == nil {
		return c.Send(b.b)
	}
	f, err := b.fsys.Open(b.name)
	if err != nil {
		return err
	}
	// fasthttp closes it once written.
	c.Response().SetBodyStream(f, b.size)
	return nil
}

var shellFiles = []string{"index.html", "sw.js", "manifest.webmanifest"}

// loadAssets prepares the embedded app once per process: the files never
// change while it runs. The files under assets/ have their forms made at
// build time (pwa.Compressed), the engine's 0.82 MB of brotli among them,
// and stay in the binary; only the few small files written here, index.html
// in each language, sw.js and the manifest, are compressed by the server,
// each when it is first sent (about 0.05 s of CPU each, 30 KB of forms in
// all), so a server starts at once and its first answer is compressed.
var loadAssets = sync.OnceValues(buildAssets)

func buildAssets() (*assets, error) {
	a := &assets{shell: map[string]*asset{}, pages: map[string]*asset{}, files: map[string]*asset{}}
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
	// The version hashes each file's path and SHA-256, which also names
	// the forms made from it.
	version := sha256.New()
	buf := make([]byte, 32<<10)
	for _, p := range names {
		sum, err := fileSum(p, buf)
		if err != nil {
			return nil, err
		}
		version.Write([]byte(p))
		version.Write(sum[:])
		rest, ok := strings.CutPrefix(p, "assets/")
		if !ok {
			continue
		}
		brName, gzName := pwa.Forms(rest, sum)
		raw, err := embedded(pwa.Files, p)
		br, brErr := embedded(pwa.Compressed, brName)
		gz, gzErr := embedded(pwa.Compressed, gzName)
		if err := errors.Join(err, brErr, gzErr); err != nil {
			return nil, err
		}
		a.files[rest] = &asset{raw: raw, br: br, gz: gz}
	}
	a.version = hex.EncodeToString(version.Sum(nil))[:12]
	for _, name := range shellFiles {
		b, err := fs.ReadFile(pwa.Files, name)
		if err != nil {
			return nil, err
		}
		if name == "sw.js" {
			b = bytes.Replace(b, []byte(formsMark), formList(), 1)
		}
		b = bytes.ReplaceAll(b, []byte("/assets/"), []byte("/assets/"+a.version+"/"))
		b = bytes.ReplaceAll(b, []byte("__VERSION__"), []byte(a.version))
		if name == "index.html" {
			// Served as the pages made from it, not as it is.
			a.shell[name] = &asset{raw: held(b)}
			continue
		}
		a.shell[name] = packed(b)
	}
	for _, l := range languages {
		catalog, err := fs.ReadFile(pwa.Files, "assets/i18n/"+l+".json")
		if err != nil {
			return nil, fmt.Errorf("pwa: no catalog for %s: %w", l, err)
		}
		page, err := pageIn(a.shell["index.html"].raw.b, catalog, l)
		if err != nil {
			return nil, err
		}
		a.pages[l] = packed(page)
	}
	return a, nil
}

// formsMark is the line of sw.js where the server lists each game's form,
// which the service worker keeps with the rest of the shell: which forms
// there are is the games' to say (scoring.Info.Form), not the worker's.
const formsMark = "  // __FORMS__"

// formList is the lines of sw.js's list that name each game's form.
func formList() []byte {
	var b []byte
	for _, g := range scoring.GameList() {
		b = fmt.Appendf(b, "  '/assets/%s',\n", g.Form)
	}
	return bytes.TrimSuffix(b, []byte("\n"))
}

// fileSum is the SHA-256 of an embedded file, read through buf.
func fileSum(name string, buf []byte) ([sha256.Size]byte, error) {
	var sum [sha256.Size]byte
	f, err := pwa.Files.Open(name)
	if err != nil {
		return sum, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, f, buf); err != nil {
		return sum, err
	}
	h.Sum(sum[:0])
	return sum, nil
}

// packed is a file the server writes itself, with its forms.
func packed(raw []byte) *asset {
	return &asset{raw: held(raw), pack: new(sync.Once)}
}

// held is the body of b; nil if b is.
func held(b []byte) *body {
	if b == nil {
		return nil
	}
	return &body{b: b}
}

// serveApp answers every other GET: the app shell, versioned assets, and
// index.html for the app's own routes (/t/CODE, /score/GAME, …).
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
func pageIn(page, catalog []byte, lang string) ([]byte, error) {
	var all map[string]string
	if err := json.Unmarshal(catalog, &all); err != nil {
		return nil, fmt.Errorf("pwa: catalog %s: %w", lang, err)
	}
	ui := map[string]string{}
	for k, v := range all {
		if strings.HasPrefix(k, "ui.") {
			ui[k] = v
		}
	}
	// marshalJSON escapes <, > and & as encoding/json does, so the block
	// cannot end early.
	msgs, err := marshalJSON(ui)
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
	br, gz := f.forms()
	if br == nil && gz == nil {
		return f.raw.send(c)
	}
	c.Vary(fiber.HeaderAcceptEncoding)
	accept := c.Get(fiber.HeaderAcceptEncoding)
	switch {
	case br != nil && accepts(accept, "br"):
		c.Set(fiber.HeaderContentEncoding, "br")
		return br.send(c)
	case gz != nil && accepts(accept, "gzip"):
		c.Set(fiber.HeaderContentEncoding, "gzip")
		return gz.send(c)
	}
	return f.raw.send(c)
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

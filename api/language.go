package api

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/text/language"

	"insectscore/pwa"
	"insectscore/scoring"
)

// Languages: every API answer is in the language the request's
// Accept-Language picks among English, German and Spanish (English
// otherwise), and says so in Content-Language. The labels of specs and
// results, the sentences of the rules and the details of problems are
// translated; ids, keys and pointers never are. English costs nothing
// more than before: the rules speak it, and a catalog relabels their
// answer only for German and Spanish. The catalogs are the app's own
// (pwa/assets/i18n), so the browser's engine answers in the same words.

// languages are the languages the server speaks, English first: it is
// what an Accept-Language naming none of them gets.
var languages = []string{"en", "de", "es"}

// languageMatcher picks one of languages for an Accept-Language list,
// with its q-values and region fallbacks (de-AT is German).
var languageMatcher = language.NewMatcher([]language.Tag{language.English, language.German, language.Spanish})

// negotiated caches the language of the Accept-Language values seen, as
// a browser sends the same one on every request; up to
// negotiatedMax of them, so that odd values cannot fill memory.
var (
	negotiated  sync.Map // string → string
	negotiatedN atomic.Int32
)

const negotiatedMax = 1024

// negotiate is the language for an Accept-Language header value.
func negotiate(header string) string {
	if header == "" {
		return "en"
	}
	if lang, ok := negotiated.Load(header); ok {
		return lang.(string)
	}
	lang := "en"
	if tags, _, err := language.ParseAcceptLanguage(header); err == nil && len(tags) > 0 {
		if _, i, conf := languageMatcher.Match(tags...); conf != language.No {
			lang = languages[i]
		}
	}
	if negotiatedN.Load() < negotiatedMax {
		if _, loaded := negotiated.LoadOrStore(header, lang); !loaded {
			negotiatedN.Add(1)
		}
	}
	return lang
}

// langOf is the language of the request's answer.
func langOf(c *fiber.Ctx) string {
	return negotiate(string(c.Request().Header.Peek(fiber.HeaderAcceptLanguage)))
}

// catalogOf is the catalog to relabel the request's answer with: nil for
// English, which the rules speak.
func catalogOf(c *fiber.Ctx) scoring.Catalog {
	return catalogFor(langOf(c))
}

// catalogFor is the catalog of lang, nil for English.
func catalogFor(lang string) scoring.Catalog {
	if lang == "en" {
		return nil
	}
	return catalogs()[lang]
}

// catalogs reads the catalogs of the languages other than English, once.
// They are embedded, and tested to be complete: one that cannot be read
// is a broken build.
var catalogs = sync.OnceValue(func() map[string]scoring.Catalog {
	out := map[string]scoring.Catalog{}
	for _, lang := range languages[1:] {
		raw, err := fs.ReadFile(pwa.Files, "assets/i18n/"+lang+".json")
		if err != nil {
			panic(fmt.Sprintf("api: the %s catalog: %v", lang, err))
		}
		var c scoring.Catalog
		if err := json.Unmarshal(raw, &c); err != nil {
			panic(fmt.Sprintf("api: the %s catalog: %v", lang, err))
		}
		out[lang] = c
	}
	return out
})

// contentLanguage says in which language every API answer is, and that
// the answer depends on Accept-Language (the problems of every route do).
func contentLanguage(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentLanguage, langOf(c))
	c.Vary(fiber.HeaderAcceptLanguage)
	return c.Next()
}

package pwa_test

import (
	"encoding/json"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The app's languages; en.json is the reference the others follow.
var catalogLanguages = []string{"en", "de", "es"}

// uiKey matches a UI message's key written in the app's JavaScript: every
// UI string is looked up by a literal key, so the sources name them all.
var uiKey = regexp.MustCompile(`['"](ui\.[A-Za-z0-9_.]+)['"]`)

// placeholder matches a {name} placeholder in a message.
var placeholder = regexp.MustCompile(`\{(\w+)\}`)

// pluralForms are the forms every plural message has in every language
// (i18n.js falls back to "other" for any other form a language's rules
// name); pluralExtra are the other forms a message may have (the ordinals'
// "two" and "few" of English).
var (
	pluralForms = []string{"one", "other"}
	pluralExtra = []string{"zero", "two", "few", "many"}
)

// uiCatalog reads a language's catalog, its "ui." keys only (the game's,
// rules' and API's keys are the server's).
func uiCatalog(t *testing.T, lang string) map[string]string {
	t.Helper()
	var all map[string]string
	if err := json.Unmarshal([]byte(read(t, "assets/i18n/"+lang+".json")), &all); err != nil {
		t.Fatalf("%s.json is not one flat JSON object of strings: %v", lang, err)
	}
	ui := map[string]string{}
	for k, v := range all {
		if strings.HasPrefix(k, "ui.") {
			ui[k] = v
		}
	}
	if len(ui) == 0 {
		t.Fatalf("%s.json has no ui. messages", lang)
	}
	return ui
}

// usedKeys lists the UI keys the JavaScript names, and in which file.
func usedKeys(t *testing.T) map[string]string {
	t.Helper()
	used := map[string]string{}
	for _, f := range assetFiles(t) {
		if path.Ext(f) != ".js" {
			continue
		}
		for _, m := range uiKey.FindAllStringSubmatch(read(t, f), -1) {
			used[m[1]] = f
		}
	}
	// What shows before the app runs, written by the server (data-i18n).
	for _, m := range uiKey.FindAllStringSubmatch(read(t, "index.html"), -1) {
		used[m[1]] = "index.html"
	}
	return used
}

// TestUIKeysUsedAreInTheCatalog: every key the app looks up is in en.json
// (for a plural, each of its forms), so no UI string shows as its key; and
// every UI message of en.json is looked up somewhere, so none is dead.
func TestUIKeysUsedAreInTheCatalog(t *testing.T) {
	en := uiCatalog(t, "en")
	used := usedKeys(t)
	if len(used) < 50 {
		t.Fatalf("the sources name only %d UI keys: the pattern no longer finds them", len(used))
	}
	for key, file := range used {
		if _, ok := en[key]; ok {
			continue
		}
		for _, form := range pluralForms {
			if _, ok := en[key+"."+form]; !ok {
				t.Errorf("%s looks up %q, which en.json lacks", file, key)
				break
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(en)) {
		if _, ok := used[key]; ok {
			continue
		}
		base := key[:strings.LastIndex(key, ".")]
		if _, ok := used[base]; ok && (slices.Contains(pluralForms, key[len(base)+1:]) || slices.Contains(pluralExtra, key[len(base)+1:])) {
			continue
		}
		t.Errorf("en.json has %q, which no JavaScript looks up", key)
	}
}

// TestUICatalogsAgree: German and Spanish have every UI message English
// has, no other, each with the same placeholders, and none left empty.
func TestUICatalogsAgree(t *testing.T) {
	en := uiCatalog(t, "en")
	for _, lang := range catalogLanguages[1:] {
		other := uiCatalog(t, lang)
		for key, msg := range en {
			got, ok := other[key]
			if !ok {
				t.Errorf("%s.json lacks %q", lang, key)
				continue
			}
			if strings.TrimSpace(got) == "" {
				t.Errorf("%s.json has %q empty", lang, key)
			}
			if a, b := placeholders(msg), placeholders(got); !slices.Equal(a, b) {
				t.Errorf("%s.json %q has placeholders %v; en.json has %v", lang, key, b, a)
			}
		}
		for key := range other {
			if _, ok := en[key]; !ok {
				t.Errorf("%s.json has %q, which en.json lacks", lang, key)
			}
		}
	}
}

// placeholders lists a message's placeholder names, sorted and unique.
func placeholders(msg string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(msg, -1) {
		out = append(out, m[1])
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// shadowsT matches a local variable or parameter named t.
var shadowsT = regexp.MustCompile(`\b(?:const|let|var)\s+t\b|\(t\)\s*=>|\bt\s*=>|\(t,|,\s*t\)|function\s*\w*\s*\(t\b`)

// TestTranslateIsNotShadowed: a module that imports i18n's t has no local
// t, which would turn a lookup into a call of something else.
func TestTranslateIsNotShadowed(t *testing.T) {
	importsT := regexp.MustCompile(`import\s*\{[^}]*\bt\b[^}]*\}\s*from\s*'[./]*(?:ui/)?i18n\.js'`)
	n := 0
	for _, f := range assetFiles(t) {
		src := read(t, f)
		if path.Ext(f) != ".js" || !importsT.MatchString(src) {
			continue
		}
		n++
		if m := shadowsT.FindString(src); m != "" {
			t.Errorf("%s imports t from i18n.js and declares its own t (%q)", f, m)
		}
	}
	if n == 0 {
		t.Fatal("no module imports t from i18n.js: the pattern no longer finds them")
	}
}

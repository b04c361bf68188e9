package pwa

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// catalogs is where the message catalogs live, one flat JSON object per
// language (key → message), English the reference.
const catalogs = "assets/i18n"

// readCatalogs reads every catalog of Files, by language.
func readCatalogs(t *testing.T) map[string]map[string]string {
	t.Helper()
	names, err := fs.Glob(Files, catalogs+"/*.json")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]string{}
	for _, name := range names {
		raw, err := fs.ReadFile(Files, name)
		if err != nil {
			t.Fatal(err)
		}
		var c map[string]string
		if err := json.Unmarshal(raw, &c); err != nil {
			t.Fatalf("%s is not one JSON object of strings: %v", name, err)
		}
		out[strings.TrimSuffix(path.Base(name), ".json")] = c
	}
	return out
}

// fmtVerb is a verb of a Go format: %[flags][width][.prec]verb, with an
// optional explicit argument index ([n]) before the width or the verb.
var fmtVerb = regexp.MustCompile(`%[+\-# 0]*(?:\[(\d+)\])?(?:\d+|\*)?(?:\.(?:\d+|\*)?)?(?:\[(\d+)\])?([a-zA-Z%])`)

// uiPlaceholder is a placeholder of the app's own messages: {name}.
var uiPlaceholder = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// placeholders lists what the message of key fills in: each fmt verb with
// the argument it formats ("2:s" for %[2]s or a second %s), and each
// {name}, sorted and without repeats, so that two translations compare
// equal when they take the same arguments the same way in any order. The
// app's own messages (ui.) are filled in by name only: a percent sign in
// them is text ("% vict.").
func placeholders(key, msg string) []string {
	set := map[string]bool{}
	arg := 1
	verbs := fmtVerb.FindAllStringSubmatch(msg, -1)
	if strings.HasPrefix(key, "ui.") {
		verbs = nil
	}
	for _, m := range verbs {
		if m[3] == "%" {
			continue // %% is a literal percent sign
		}
		for _, idx := range []string{m[1], m[2]} {
			if idx != "" {
				arg, _ = strconv.Atoi(idx)
			}
		}
		set[fmt.Sprintf("%d:%s", arg, m[3])] = true
		arg++
	}
	for _, m := range uiPlaceholder.FindAllStringSubmatch(msg, -1) {
		set["{"+m[1]+"}"] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// TestCatalogsComplete checks every catalog against English: the same
// keys (none missing, none extra), no empty message, and the same
// placeholders in every translation of a message.
func TestCatalogsComplete(t *testing.T) {
	all := readCatalogs(t)
	en, ok := all["en"]
	if !ok {
		t.Fatalf("no %s/en.json, the reference catalog", catalogs)
	}
	if len(all) < 3 {
		t.Errorf("catalogs %v, want at least en, de and es", slices.Sorted(maps.Keys(all)))
	}
	for _, lang := range slices.Sorted(maps.Keys(all)) {
		c := all[lang]
		for _, k := range slices.Sorted(maps.Keys(en)) {
			msg, ok := c[k]
			switch {
			case !ok:
				t.Errorf("%s.json lacks %q", lang, k)
			case strings.TrimSpace(msg) == "":
				t.Errorf("%s.json: %q is empty", lang, k)
			case lang != "en":
				if got, want := placeholders(k, msg), placeholders(k, en[k]); !slices.Equal(got, want) {
					t.Errorf("%s.json: %q fills in %v, English %v", lang, k, got, want)
				}
			}
		}
		for _, k := range slices.Sorted(maps.Keys(c)) {
			if _, ok := en[k]; !ok {
				t.Errorf("%s.json has %q, which English has not", lang, k)
			}
		}
	}
}

// TestPlaceholders pins how placeholders are read, as the catalog test's
// verdicts rest on it.
func TestPlaceholders(t *testing.T) {
	tests := []struct {
		msg  string
		want []string
	}{
		{"no placeholder, 100%% sure", nil},
		{"%s is for at most %d players, not %d", []string{"1:s", "2:d", "3:d"}},
		{"%[2]s de %[1]s", []string{"1:s", "2:s"}},
		{"%[2]s then %s", []string{"2:s", "3:s"}},
		{"%q, %v and %5.2f", []string{"1:q", "2:v", "3:f"}},
		{"Hello {name}, {count} plays, {name} again", []string{"{count}", "{name}"}},
	}
	for _, tt := range tests {
		if got := placeholders("rules."+tt.msg, tt.msg); !slices.Equal(got, tt.want) && len(got)+len(tt.want) > 0 {
			t.Errorf("placeholders(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
	if got := placeholders("ui.lb.winRateShort", "% vict. {n}"); !slices.Equal(got, []string{"{n}"}) {
		t.Errorf("an app message's percent sign read as a verb: %v", got)
	}
	if a, b := placeholders("rules.x", "%s and %d"), placeholders("rules.x", "%d and %s"); slices.Equal(a, b) {
		t.Errorf("%%s and %%d, %%d and %%s read alike: %v", a)
	}
}

package scoring

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// Languages. The rules speak English as they are written; a Catalog of
// another language relabels what they produce after the fact, by key, so
// that scoring in English costs nothing for the translations, and a result
// stored with its messages (a play in the database) can be shown in German
// later. Every sentence is a Message, its key and arguments kept from
// where it is made: nothing is read back from its English.
//
// A catalog is one flat JSON object, key → message (pwa/assets/i18n/*.json,
// shared with the app's own strings). The keys of the rules are:
//
//   - game.<game>.enum.<enum>.<id>: the label of an option of an
//     enumeration of the game's Spec;
//   - game.<game>.variant.<key>, game.<game>.breakdown.<key> and
//     game.<game>.tiebreak.<key>: the labels of a variant, a score line and
//     a tiebreak; a line of the totals sheet takes its breakdown or tiebreak
//     key's label;
//   - game.<game>.end (its Info's End): when the game is over, for the
//     refusal to finish a table or log a play earlier;
//   - game.<game>.unit (its Info's Unit): what the game's total counts,
//     in sentences ("points");
//   - rules.<English format>: a Message of the rules (an error, a warning,
//     a sentence), keyed by its English fmt format itself, as gettext does.
//     A translation keeps the format's verbs and may reorder them with
//     explicit indexes (%[2]s). Editing an English message makes its
//     translations missing, which the catalogs' test reports;
//   - rules.word.<English word>: a word a message takes as an argument
//     ("continent" in "choose the %s");
//   - status.<HTTP status>: the title of a problem ("status.422").
//
// Game names are not translated: they stay as printed on the box.
type Catalog map[string]string

// text is the message of key in c, or en when c has none (or c is nil,
// which is English).
func (c Catalog) text(key, en string) string {
	if s, ok := c[key]; ok && s != "" {
		return s
	}
	return en
}

// args translates the arguments of a message that are words.
func (c Catalog) args(args []any) []any {
	var out []any
	for i, a := range args {
		if l, ok := a.(Localizer); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			out[i] = l.In(c)
		}
		if w, ok := a.(word); ok {
			if out == nil {
				out = slices.Clone(args)
			}
			if w.totals != "" {
				out[i] = c.totalsLabel(w.totals, w.key, w.en)
			} else {
				out[i] = c.text(w.key, w.en)
			}
		}
	}
	if out == nil {
		return args
	}
	return out
}

// word is an argument of a message that is a word to translate itself:
// a label of the game's vocabulary, or a term of the rules. It prints as
// its English text.
type word struct {
	key, en string
	// totals, when set, is the game whose totals line key the word
	// names (TotalsField.word).
	totals string
}

func (w word) String() string { return w.en }

// term is the word en, keyed rules.word.<en>.
func term(en string) word { return word{key: "rules.word." + en, en: en} }

// enumWord is the label of option o of enumeration enum of game.
func enumWord(game, enum string, o Option) word {
	return word{key: "game." + game + ".enum." + enum + "." + o.ID, en: o.Label}
}

// A Localizer is an argument of a message that writes itself in a
// catalog's language: a Message of its own passed into another, or a
// list. It prints in English with %s or %v, as its String method says.
type Localizer interface {
	In(c Catalog) string
}

// orList is a list of ids for a message, "a, b or c": its ids stay, and
// its "or" is translated (rules.word.or).
type orList string

// In is l in c's language.
func (l orList) In(c Catalog) string {
	// An id holds no spaces: the list's one " or " is its last.
	head, last, ok := strings.Cut(string(l), " or ")
	if !ok {
		return string(l)
	}
	return head + " " + c.text("rules.word.or", "or") + " " + last
}

// Word is a word for a message of Format: the text en, translated by the
// catalog's prefix+en.
func Word(prefix, en string) any { return word{key: prefix + en, en: en} }

// Spec returns a copy of s with its labels in c's language. The name of
// the game stays as printed on the box, and ids never change.
func (c Catalog) Spec(s Spec) Spec {
	if c == nil {
		return s
	}
	g := "game." + s.ID + "."
	out := s
	out.Enums = make(map[string][]Option, len(s.Enums))
	for name, opts := range s.Enums {
		out.Enums[name] = c.options(g+"enum."+name+".", opts)
	}
	out.Variants = make([]VariantSpec, len(s.Variants))
	for i, v := range s.Variants {
		v.Label = c.text(g+"variant."+v.Key, v.Label)
		out.Variants[i] = v
	}
	out.Breakdown = c.options(g+"breakdown.", s.Breakdown)
	out.Tiebreaks = c.options(g+"tiebreak.", s.Tiebreaks)
	out.Totals = make([]TotalsField, len(s.Totals))
	for i, f := range s.Totals {
		f.Label = c.totalsLabel(s.ID, f.ID, f.Label)
		out.Totals[i] = f
	}
	return out
}

// options relabels opts by the keys prefix + id.
func (c Catalog) options(prefix string, opts []Option) []Option {
	out := make([]Option, len(opts))
	for i, o := range opts {
		out[i] = Option{ID: o.ID, Label: c.text(prefix+o.ID, o.Label)}
	}
	return out
}

// totalsLabel is the label of the totals line id of game: its breakdown
// key's, or its tiebreak key's.
func (c Catalog) totalsLabel(game, id, en string) string {
	g := "game." + game + "."
	if s, ok := c[g+"breakdown."+id]; ok && s != "" {
		return s
	}
	return c.text(g+"tiebreak."+id, en)
}

// Result returns a copy of r (r itself for English, a nil c) with its
// labels, warnings and tie sentence in c's language. Labels are found by
// the keys of the lines and tiebreaks; warnings and the tie sentence by
// their messages, which a result read back from JSON has once its stored
// messages are put back (SetMessages): without them they stay in English.
// r is not changed.
func (c Catalog) Result(r *Result) *Result {
	if r == nil || c == nil {
		return r
	}
	out := *r
	g := "game." + r.Game + "."
	sources := sourceWords[r.Game]
	out.Results = make([]PlayerResult, len(r.Results))
	for i, p := range r.Results {
		p.Breakdown = c.Lines(r.Game, p.Breakdown)
		p.Tiebreaks = slices.Clone(p.Tiebreaks)
		for k := range p.Tiebreaks {
			tb := &p.Tiebreaks[k]
			tb.Label = c.text(g+"tiebreak."+tb.Key, tb.Label)
			tb.Sources = c.sources(sources[tb.Key], tb.Sources)
		}
		p.Warnings = c.FieldErrors(p.Warnings)
		out.Results[i] = p
	}
	if !r.tie.IsZero() {
		out.Tiebreak = r.tie.In(c)
	}
	return &out
}

// Lines returns a copy of the score lines of game with their labels (and
// their sources' labels) in c's language, as Result relabels them.
func (c Catalog) Lines(game string, lines []Line) []Line {
	if c == nil {
		return lines
	}
	g, sources := "game."+game+".breakdown.", sourceWords[game]
	out := slices.Clone(lines)
	for k := range out {
		l := &out[k]
		l.Label = c.text(g+l.Key, l.Label)
		l.Sources = c.sources(sources[l.Key], l.Sources)
	}
	return out
}

// Title is the title of a problem of status in c's language, en being
// its English title (key status.<status>: "status.422").
func (c Catalog) Title(status int, en string) string {
	return c.text("status."+strconv.Itoa(status), en)
}

// Text is the message of key in c's language, or en when c has none.
func (c Catalog) Text(key, en string) string { return c.text(key, en) }

// sourceWords says, per game and line or tiebreak key, which words the
// labels of its sources are made of: a label is a list of them joined by
// ", " (the options of a game's enumerations, as a game says with
// addSourceWords). A label with any other part (a name, as entered) is
// left as it is.
var sourceWords = map[string]map[string]map[string]string{}

// addSourceWords lets a game say that the sources of its line or tiebreak
// key are labelled with the options of the given enumerations.
func addSourceWords(game, key string, enums map[string][]Option) {
	if sourceWords[game] == nil {
		sourceWords[game] = map[string]map[string]string{}
	}
	words := map[string]string{}
	for name, opts := range enums {
		for _, o := range opts {
			words[o.Label] = "game." + game + ".enum." + name + "." + o.ID
		}
	}
	sourceWords[game][key] = words
}

// sources relabels the sources whose labels are made of words.
func (c Catalog) sources(words map[string]string, src []Source) []Source {
	if len(words) == 0 || len(src) == 0 {
		return src
	}
	out := slices.Clone(src)
	for i, s := range out {
		if s.Label == "" {
			continue
		}
		parts := strings.Split(s.Label, ", ")
		ok := true
		for k, p := range parts {
			key, known := words[p]
			if !known {
				ok = false
				break
			}
			parts[k] = c.text(key, p)
		}
		if ok {
			out[i].Label = strings.Join(parts, ", ")
		}
	}
	return out
}

// FieldErrors returns a copy of errs in c's language, each written from
// its message. A problem read back from JSON without its message stays as
// it is.
func (c Catalog) FieldErrors(errs []FieldError) []FieldError {
	if errs == nil || c == nil {
		return errs
	}
	out := make([]FieldError, len(errs))
	for i, fe := range errs {
		if !fe.msg.IsZero() {
			fe.Detail = fe.msg.In(c)
		}
		out[i] = fe
	}
	return out
}

// Error returns err with its messages in c's language when it is an error
// of the rules (a *ValidationError or *RequestError), and err otherwise.
func (c Catalog) Error(err error) error {
	if c == nil {
		return err
	}
	var (
		verr *ValidationError
		rerr *RequestError
	)
	switch {
	case errors.As(err, &verr):
		return &ValidationError{Errors: c.FieldErrors(verr.Errors)}
	case errors.As(err, &rerr):
		out := *rerr
		if !rerr.msg.IsZero() {
			out.Detail = rerr.msg.In(c)
		}
		out.Errors = c.FieldErrors(rerr.Errors)
		return &out
	}
	return err
}

// Problem is ProblemOf in c's language.
func (c Catalog) Problem(err error) (Problem, bool) {
	p, ok := ProblemOf(c.Error(err))
	p.Title = c.Title(p.Status, p.Title)
	if p.Detail == validationDetail {
		p.Detail = rules(validationDetail).In(c)
	}
	return p, ok
}

package scoring

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Languages. The rules speak English as they are written; a Catalog of
// another language relabels what they produce after the fact, by key, so
// that scoring in English costs nothing for the translations, and a result
// stored in English (a play in the database) can be shown in German later.
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
//   - game.<game>.unit (its Info's Unit): what the game's total counts,
//     in sentences ("points");
//   - rules.<English format>: a message of the rules (an error, a warning,
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

// sprintf formats the message whose English format is format, in c's
// language; its arguments that are words are translated too.
func (c Catalog) sprintf(format string, args ...any) string {
	if c == nil {
		return fmt.Sprintf(format, args...)
	}
	return fmt.Sprintf(c.text("rules."+format, format), c.args(args)...)
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
// catalog's language: a sentence of its own passed into another (the
// store's reason why a text cannot be kept), or a list. It prints in
// English with %s or %v, as its String method says.
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

// Result returns a copy of r (r itself for English, a nil c) with its labels, warnings and tie sentence in
// c's language. Labels are found by the keys of the lines and tiebreaks,
// so a result stored in English, before this existed, is relabelled too.
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
	if r.Tiebreak != "" {
		info, _ := InfoOf(r.Game)
		out.Tiebreak = explainTie(&out, c.text(info.Unit, "points"), c)
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

// Format is the message keyed prefix+format in c's language, formatted
// with args: a message of the server's own ("api.") kept as the rules
// keep theirs. Without a translation it is the English format's.
func (c Catalog) Format(prefix, format string, args ...any) string {
	return fmt.Sprintf(c.text(prefix+format, format), c.args(args)...)
}

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

// FieldErrors returns a copy of errs in c's language. A problem read back
// from JSON has no format to write again: it is translated only when its
// detail is a message of its own (one without arguments).
func (c Catalog) FieldErrors(errs []FieldError) []FieldError {
	if errs == nil || c == nil {
		return errs
	}
	out := make([]FieldError, len(errs))
	for i, fe := range errs {
		fe.Detail = c.detail(fe.Detail, fe.format, fe.args)
		out[i] = fe
	}
	return out
}

// detail is a message in c's language, from its English format and
// arguments, or from the English text when it has no format.
func (c Catalog) detail(en, format string, args []any) string {
	if format == "" {
		// The server's own messages ("api.") are found by the same
		// text when they come as problems of a field.
		if s, ok := c["rules."+en]; ok && s != "" {
			return s
		}
		if s, ok := c["api."+en]; ok && s != "" {
			return s
		}
		return c.reformat(en)
	}
	if format == "%s" && len(args) == 1 {
		if msg, ok := args[0].(string); ok {
			// A message of its own passed on ("%s", NameProblem(name)).
			return c.detail(msg, "", nil)
		}
	}
	return c.sprintf(format, args...)
}

// reformat writes again in c's language a message that comes without its
// format (a warning of a result stored before formats were kept, read back
// from the database; a reason the server passes on as text): it finds the
// English format of the rules or of the server ("api.") that wrote
// en, reads the arguments back, and formats them with the translation,
// translating an argument that is a word of the rules. Only a format that
// writes en again from the arguments read counts; en stays as it is when
// none does.
func (c Catalog) reformat(en string) string {
	// The format that says most in its own words wins, and one that says
	// little ("%s and %s") reads back from too many sentences: it must
	// say 10 bytes or more.
	best, bestLen := "", 9
	var bestArgs []any
	for key := range c {
		prefix, format, ok := strings.Cut(key, ".")
		if !ok || prefix != "rules" && prefix != "api" || strings.HasPrefix(format, "word.") || !strings.Contains(format, "%") {
			continue
		}
		lead, _, _ := strings.Cut(format, "%")
		if !strings.HasPrefix(en, lead) {
			continue
		}
		_, verbs := splitVerbs(format)
		literal := len(format) - 2*len(verbs)
		if literal <= bestLen {
			continue
		}
		if args, ok := readBack(format, en); ok {
			best, bestLen, bestArgs = key, literal, args
		}
	}
	if best == "" {
		return en
	}
	for i, a := range bestArgs {
		if w, ok := a.(string); ok {
			if t := c.text("rules.word."+w, c.text("api.word."+w, "")); t != "" {
				bestArgs[i] = t
			}
		}
	}
	return fmt.Sprintf(c[best], bestArgs...)
}

// splitVerbs cuts a format of the rules at its verbs (%d, %s, %q, %v):
// parts holds the text around them, one more than verbs.
func splitVerbs(format string) (parts []string, verbs []byte) {
	start := 0
	for i := 0; i+1 < len(format); i++ {
		if format[i] == '%' && strings.IndexByte("dsqv", format[i+1]) >= 0 {
			parts, verbs = append(parts, format[start:i]), append(verbs, format[i+1])
			start = i + 2
			i++
		}
	}
	return append(parts, format[start:]), verbs
}

// readBack reads the arguments format wrote into text: %d as an int, %q
// as the string it quotes, %s and %v as strings. ok says format writes
// text again from them. (By hand rather than with regexp, which would
// add about 0.6 MB to the browser's engine.)
func readBack(format, text string) (args []any, ok bool) {
	parts, verbs := splitVerbs(format)
	if len(verbs) == 0 || strings.Contains(format, "%[") || strings.Contains(format, "%%") {
		return nil, false
	}
	args = make([]any, len(verbs))
	if !matchVerbs(text, parts, verbs, args) {
		return nil, false
	}
	return args, fmt.Sprintf(format, args...) == text
}

// matchVerbs matches text against parts[0], then each verb followed by
// the part after it, filling in args; %s and %v take as little as they
// can, trying longer when the rest does not match, and %d takes a sign and
// every digit after it, as fmt writes them.
func matchVerbs(text string, parts []string, verbs []byte, args []any) bool {
	rest, ok := strings.CutPrefix(text, parts[0])
	if !ok {
		return false
	}
	if len(verbs) == 0 {
		return rest == ""
	}
	next := func(n int, arg any) bool {
		args[0] = arg
		return matchVerbs(rest[n:], parts[1:], verbs[1:], args[1:])
	}
	switch verbs[0] {
	case 'd':
		// As fmt writes it: a sign, then every digit there is.
		n := len(rest) - len(strings.TrimLeft(strings.TrimPrefix(rest, "-"), "0123456789"))
		v, err := strconv.Atoi(rest[:n])
		return err == nil && next(n, v)
	case 'q':
		if !strings.HasPrefix(rest, `"`) {
			return false
		}
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				v, err := strconv.Unquote(rest[:i+1])
				return err == nil && next(i+1, v)
			}
		}
	default:
		for n := 0; n <= len(rest); n++ {
			if next(n, rest[:n]) {
				return true
			}
		}
	}
	return false
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
		out.Detail = c.detail(rerr.Detail, rerr.format, rerr.args)
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
		p.Detail = c.text("rules."+validationDetail, validationDetail)
	}
	return p, ok
}

package scoring

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Text a request may hold: valid UTF-8 without the NUL character. Both
// are errors a database reports only as its own failure (PostgreSQL
// stores no NUL in text and no invalid UTF-8), and neither is anything a
// person types, so they are refused where a request is read, each at its
// place in the body.

// CheckText refuses a JSON body holding invalid UTF-8 (a 400
// RequestError) or a string with a NUL character, as a key or a value (a
// 422 ValidationError); each error points at the value that holds it. A
// body that is not JSON at all is left to the decoder to refuse.
func CheckText(body []byte) error {
	if utf8.Valid(body) && !bytes.Contains(body, []byte(`\u0000`)) {
		return nil
	}
	ptr, nul, ok := findBadText(body)
	switch {
	case !ok:
		return nil
	case nul:
		return &ValidationError{Errors: []FieldError{newFieldError(ptr, "text cannot hold the NUL character (\\u0000)")}}
	}
	rerr := requestErrorf(400, "the body is not valid UTF-8 text")
	rerr.Errors = []FieldError{newFieldError(ptr, "this text is not valid UTF-8")}
	return rerr
}

// findBadText reads the JSON body token by token and returns the pointer
// of the first string that holds invalid UTF-8 (the decoder reads it as
// U+FFFD, so its bytes in the body are checked) or a NUL (nul then true).
// A key's pointer is its member's.
func findBadText(body []byte) (pointer string, nul, ok bool) {
	dec := jsontext.NewDecoder(bytes.NewReader(body), jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	for {
		if dec.PeekKind() != '"' {
			if _, err := dec.ReadToken(); err != nil {
				return "", false, false
			}
			continue
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return "", false, false
		}
		invalid := !utf8.Valid(raw)
		if text, _ := jsontext.AppendUnquote(nil, raw); invalid || bytes.IndexByte(text, 0) >= 0 {
			return string(dec.StackPointer()), !invalid, true
		}
	}
}

// invisible reports whether r shows nothing: control and format
// characters (zero-width space and joiners, the byte order mark, direction
// marks, the soft hyphen), variation selectors and the other characters
// Unicode says to ignore when they cannot be shown (the Hangul fillers
// among them). A name of such characters only is no name, and two names
// that differ only by them are one name (NameKey). The tables are the
// standard library's, so the engine in the browser stays small.
func invisible(r rune) bool {
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}

// NameProblem says what is wrong with a player's name, or is the zero
// Message: every name needs something to show, and at most MaxNameLength
// characters. Score asks it of every player; the server asks it of names
// at tables.
func NameProblem(name string) Message {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return rules("every player needs a name")
	case !plainName(name) && NameKey(name) == "": // a plain name's key is the name in lower case
		return rules("a name needs a letter or a sign that shows; this one is only spaces or invisible characters")
	case utf8.RuneCountInString(name) > MaxNameLength:
		// The key names the length, as the catalogs have it.
		return rules("a name can be at most " + strconv.Itoa(MaxNameLength) + " characters")
	}
	return Message{}
}

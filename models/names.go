package models

import (
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"insectscore/scoring"
)

// Names are kept as typed, trimmed and in Unicode NFC, so that "é" typed
// as one character or as "e" and an accent is one name; they are matched
// by scoring.NameKey, which also ignores case, spacing and characters that
// show nothing. A name of such characters only is no name.

// ErrBadName means a name the store was asked to keep is not one: empty,
// only invisible characters, too long, or not text. The API checks names
// first and says why at the field; this is the store's own guard.
var ErrBadName = errors.New("models: not a valid name")

// NameError is an ErrBadName that says why.
type NameError struct {
	scoring.Message
}

func (e *NameError) Error() string { return ErrBadName.Error() + ": " + e.String() }

// Unwrap makes errors.Is(err, ErrBadName) hold.
func (e *NameError) Unwrap() error { return ErrBadName }

// cleanName is name as the store keeps it, or a *NameError saying why
// not: longest is the most characters it may have.
func cleanName(name string, longest int) (string, error) {
	if !utf8.ValidString(name) || strings.IndexByte(name, 0) >= 0 {
		return "", &NameError{messagef("it is not text (invalid UTF-8 or a NUL character)")}
	}
	name = strings.TrimSpace(norm.NFC.String(name))
	switch {
	case name == "":
		return "", &NameError{messagef("it is empty")}
	case scoring.NameKey(name) == "":
		return "", &NameError{messagef("it shows nothing")}
	case utf8.RuneCountInString(name) > longest:
		return "", &NameError{messagef("it is longer than %d characters", longest)}
	}
	return name, nil
}

// nameKey is how the store matches a name: scoring.NameKey of its NFC
// form.
func nameKey(name string) string {
	return scoring.NameKey(norm.NFC.String(name))
}

// CleanName is a player's or group's name as the store keeps it (trimmed,
// in NFC), for the API to check and score the same names the store will
// record.
func CleanName(name string) string {
	if !utf8.ValidString(name) {
		return name
	}
	return strings.TrimSpace(norm.NFC.String(name))
}

// idPattern is what ids of groups, players and plays look like: what this
// server draws, "default", and nothing that needs escaping in a URL.
var idPattern = regexp.MustCompile(`^[a-z0-9]{1,64}$`)

// validID reports whether id can be an id at all. Anything else is
// answered as not found without asking the database, which would refuse
// text that is not UTF-8 or holds a NUL with an error of its own.
func validID(id string) bool {
	return idPattern.MatchString(id)
}

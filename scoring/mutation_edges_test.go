package scoring

import (
	"strings"
	"testing"
)

// Tests at the edges gremlins (mutation testing, see the README) found
// unguarded: each fails if a bound or an operator in the code it names
// moves by one.

// TestPlainName holds plainName to its definition, at each end of the
// printable ASCII range and with a space at each place, and NameKey to
// the same key whichever way it takes.
func TestPlainName(t *testing.T) {
	for _, tt := range []struct {
		name  string
		plain bool
	}{
		{"", true}, {"Ana", true}, {"Ana Lena", true}, {"A B C", true}, {"!", true}, {"~", true}, {"a~b!", true},
		{" ", false}, {" Ana", false}, {"Ana ", false}, {"Ana  Lena", false}, {"A\tB", false}, {"A\x1fB", false},
		{"A\x7fB", false}, {"Zoë", false}, {"A\u200bna", false},
	} {
		if got := plainName(tt.name); got != tt.plain {
			t.Errorf("plainName(%q) = %v, want %v", tt.name, got, tt.plain)
		}
		folded := strings.Map(func(r rune) rune {
			if invisible(r) {
				return -1
			}
			return r
		}, tt.name)
		if got, want := NameKey(tt.name), strings.ToLower(strings.Join(strings.Fields(folded), " ")); got != want {
			t.Errorf("NameKey(%q) = %q, want %q", tt.name, got, want)
		}
	}
}

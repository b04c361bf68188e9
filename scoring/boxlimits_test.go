package scoring

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
)

// boxCase is a table at a limit of the box (issue 11): legal when want is
// empty, or refused with exactly one problem at want, naming every field
// in pointers and saying detail.
type boxCase struct {
	name     string
	boards   []string
	want     string   // the problem's pointer; "" for a legal table
	pointers []string // every field the problem names, want first
	detail   string   // words the message must contain
	warning  string   // for a legal table: words a warning must contain, at warnAt
	warnAt   string
}

// runBoxCases scores each case as a table of game.
func runBoxCases(t *testing.T, game string, cases []boxCase) {
	t.Helper()
	g, ok := Lookup(game)
	if !ok {
		t.Fatalf("no game %q", game)
	}
	names := []string{"Ana", "Ben", "Cleo", "Dev"}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			var req Request
			for i, b := range tt.boards {
				req.Players = append(req.Players, PlayerInput{Name: names[i], Board: json.RawMessage(b)})
			}
			res, err := scoreCase(t, g, req)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Score: %v, want a legal table", err)
				}
				checkBoxWarning(t, res, tt)
				return
			}
			var verr *ValidationError
			if !errors.As(err, &verr) {
				t.Fatalf("Score = %+v, %v; want a *ValidationError", res, err)
			}
			if len(verr.Errors) != 1 {
				t.Fatalf("errors = %v, want one at %s", verr.Errors, tt.want)
			}
			got := verr.Errors[0]
			if got.Pointer != tt.want || !slices.Equal(got.Pointers, tt.pointers) {
				t.Errorf("error at %s naming %q, want at %s naming %q", got.Pointer, got.Pointers, tt.want, tt.pointers)
			}
			if !strings.Contains(got.Detail, tt.detail) {
				t.Errorf("detail = %q, want it to contain %q", got.Detail, tt.detail)
			}
		})
	}
}

// checkBoxWarning wants the case's warning, or no warning at all about
// the limit's words when the case names none.
func checkBoxWarning(t *testing.T, res *Result, tt boxCase) {
	t.Helper()
	var found bool
	for _, r := range res.Results {
		for _, w := range r.Warnings {
			if tt.warning != "" && w.Pointer == tt.warnAt && strings.Contains(w.Detail, tt.warning) {
				found = true
			}
		}
	}
	if tt.warning != "" && !found {
		t.Errorf("no warning at %s saying %q in %+v", tt.warnAt, tt.warning, res.Results)
	}
}

package scoring

import (
	"errors"
	"testing"
)

func TestDecodeStrictPointers(t *testing.T) {
	type card struct {
		Points int      `json:"points"`
		Tools  []string `json:"tools"`
	}
	type board struct {
		Grid   [][]*card `json:"grid"`
		Supply int       `json:"supply"`
	}
	tests := []struct {
		name, in, want string
	}{
		{"wrong type in a nested list", `{"grid":[[null,{"points":"x"}]]}`, "/b/grid/0/1/points"},
		{"the decimal among whole numbers", `{"grid":[[{"points":1},{"points":2.5}]]}`, "/b/grid/0/1/points"},
		{"a number too large", `{"grid":[[{"points":1}],[{"points":1e30}]]}`, "/b/grid/1/0/points"},
		{"unknown field named like a field elsewhere", `{"supply":1,"grid":[[{"points":1,"supply":2}]]}`, "/b/grid/0/0/supply"},
		{"unknown top-level field", `{"colour":1}`, "/b/colour"},
		{"a list where an object belongs", `[1]`, "/b"},
		{"text in a list of text", `{"grid":[[{"tools":["pin",3]}]]}`, "/b/grid/0/0/tools/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b board
			err := DecodeStrict([]byte(tt.in), "/b", &b)
			var verr *ValidationError
			if !errors.As(err, &verr) || len(verr.Errors) != 1 {
				t.Fatalf("err = %v, want one field error", err)
			}
			if got := verr.Errors[0].Pointer; got != tt.want {
				t.Errorf("pointer %q, want %q (%s)", got, tt.want, verr.Errors[0].Detail)
			}
		})
	}
	var b board
	if err := DecodeStrict([]byte(" null "), "/b", &b); err != nil {
		t.Errorf("a null board is an empty board, got %v", err)
	}
}

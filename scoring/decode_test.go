package scoring

import (
	"encoding/json"
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

// scoreJSONAnswer is ScoreJSON's answer, result or error, as text.
func scoreJSONAnswer(game string, body []byte) string {
	res, err := ScoreJSON(game, body)
	b, _ := json.Marshal(struct {
		Res *Result
		Err error
	}{res, err})
	return string(b)
}

// TestOnePassDecodeAgrees scores every recorded request, and requests the
// one-pass decoder refuses where encoding/json does not, with and without
// the one-pass decoder, and wants the same answer, error for error.
func TestOnePassDecodeAgrees(t *testing.T) {
	cases := recordedRequests(t)
	board := `{"researcher":"mary-kingsley","track":3,"tiles":[{"row":0,"col":0,"kind":"insect","continent":"asia"}]}`
	for _, body := range []string{
		`{"players":[{"name":"Ana","board":null},{"name":"Ben"}]}`,
		`{"PLAYERS":[{"Name":"Ana","Board":` + board + `},{"name":"Ben"}]}`,
		`{"players":[{"name":"Ana","board":{"TRACK":3,"Tiles":[{"ROW":0,"col":0,"kind":"insect","continent":"asia"}]}},{"name":"Ben"}]}`,
		`{"players":[{"name":"Ana","name":"Cleo","board":` + board + `},{"name":"Ben"}]}`,
		`{"players":[{"name":"Ana","board":{"track":3,"track":4}},{"name":"Ben"}],"variants":{"oneFragment":1,"oneFragment":-1}}`,
		`{"players":[{"name":"An\u0000a"},{"name":"Ben"}]}`,
		"{\"players\":[{\"name\":\"An\xffa\"},{\"name\":\"Ben\"}]}",
		`{"players":[{"name":"Ana","board":{"track":"3"}},{"name":"Ben"}]}`,
		`{"players":[{"name":"Ana","board":{"track":1e2}},{"name":"Ben"}]}`,
		`{"players":[{"name":"Ana","board":{"track":-0}},{"name":"Ben","board":{"name":"\ud800"}}]}`,
		`{"players":[{"name":"Ana","board":{"totals":{"track":3,"track":4}}},{"name":"Ben"}]}`,
		`{"players":[{"name":"Ana","board":[]},{"name":"Ben","board":7}]} `,
		`{"players":[{"name":"Ana"}]} {}`,
	} {
		for _, game := range []string{"insecta", "insectarium", "insektenhotel"} {
			cases = append(cases, recordedRequest{Name: "extra " + game + " " + body, Game: game, Body: body})
		}
	}
	answer := func(c recordedRequest) string { return scoreJSONAnswer(c.Game, []byte(c.Body)) }
	defer func() { onePass = true }()
	for _, c := range cases {
		onePass = true
		got := answer(c)
		onePass = false
		want := answer(c)
		if got != want {
			t.Errorf("%s:\none pass %s\nold way  %s", c.Name, got, want)
		}
	}
}

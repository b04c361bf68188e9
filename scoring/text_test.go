package scoring

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

func TestNameKey(t *testing.T) {
	tests := []struct{ name, want string }{
		{"Ana", "ana"},
		{"  ANA  ", "ana"},
		{"Ana  Lena", "ana lena"},
		{"\u00a0Ana\u3000", "ana"},
		{"A\u200bna", "ana"},               // zero-width space
		{"\ufeffAna\u200d", "ana"},         // byte order mark, zero-width joiner
		{"An\u00ada", "ana"},               // soft hyphen
		{"A\u2060n\u200ea", "ana"},         // word joiner, left-to-right mark
		{"Ana\ufe0f", "ana"},               // variation selector
		{"A\u0007na", "ana"},               // a control character
		{"Zoë", "zoë"},                     // letters stay
		{"Ana \u200b Lena", "ana lena"},    // a zero-width space between spaces is no word
		{"\u200b", ""},                     // nothing that shows
		{"\u3164\u115f", ""},               // Hangul fillers
		{" \u200b\u200c\u2060\ufeff ", ""}, // only invisible characters
	}
	for _, tt := range tests {
		if got := NameKey(tt.name); got != tt.want {
			t.Errorf("NameKey(%+q) = %+q, want %+q", tt.name, got, tt.want)
		}
	}
}

// TestInvisibleNames: a name that shows nothing is no name, and a name
// that differs from another only by invisible characters is the same
// name, at the score endpoint and at a tracked Insektenhotel table.
func TestInvisibleNames(t *testing.T) {
	g, _ := Lookup("insectarium")
	tests := []struct {
		name  string
		names []string
		want  []FieldError
	}{
		{"zero-width space", []string{"\u200b", "Ben"},
			[]FieldError{{Pointer: "/players/0/name", Detail: "a name needs a letter or a sign that shows; this one is only spaces or invisible characters"}}},
		{"Hangul filler", []string{"Ana", " \u3164 "},
			[]FieldError{{Pointer: "/players/1/name", Detail: "a name needs a letter or a sign that shows; this one is only spaces or invisible characters"}}},
		{"a zero-width space inside", []string{"Ana", "A\u200bna"},
			[]FieldError{{Pointer: "/players/1/name", Detail: `"A\u200bna" is already player 1; give each player their own name`}}},
		{"joiners in an emoji name", []string{"👩\u200d🔬", "👩🔬"},
			[]FieldError{{Pointer: "/players/1/name", Detail: "\"👩🔬\" is already player 1; give each player their own name"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := Request{}
			for _, n := range tt.names {
				req.Players = append(req.Players, PlayerInput{Name: n})
			}
			_, err := scoreCase(t, g, req)
			var verr *ValidationError
			if !errors.As(err, &verr) || !reflect.DeepEqual(shown(verr.Errors), tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

// TestCheckText: invalid UTF-8 is a 400 and a NUL a 422, each pointing at
// the string that holds it, key or value, at any depth.
func TestCheckText(t *testing.T) {
	tests := []struct {
		name    string
		body    string
		status  int // 0: accepted
		pointer string
	}{
		{"plain", `{"players": [{"name": "Zoë \u00e9"}]}`, 0, ""},
		{"an escaped backslash before u0000", `{"players": [{"name": "a\\u0000"}]}`, 0, ""},
		{"not JSON", "{\"a\": \"\xff", 0, ""},
		{"NUL in a name", `{"players": [{"name": "a\u0000b"}]}`, 422, "/players/0/name"},
		{"NUL in the second name", `{"players": ["Ana", "b\u0000"]}`, 422, "/players/1"},
		{"NUL in a board", `{"players": [{"name": "Ana", "board": {"tiles": [{"row": 1}, {"name": "x\u0000"}]}}]}`, 422, "/players/0/board/tiles/1/name"},
		{"NUL in a key", `{"players": [], "va\u0000r": 1}`, 422, "/va\x00r"},
		{"NUL after an object", `{"a": {"b": [1, {"c": null}]}, "d": "\u0000"}`, 422, "/d"},
		{"invalid UTF-8 in a name", "{\"players\": [{\"name\": \"a\xffb\"}]}", 400, "/players/0/name"},
		{"invalid UTF-8 deep in a board", "{\"players\": [{\"name\": \"A\", \"board\": {\"grid\": [[null, {\"name\": \"\xc3\"}]]}}]}", 400, "/players/0/board/grid/0/1/name"},
		{"invalid UTF-8 in a key", "{\"game\": \"x\", \"pl\xe2\x82yers\": []}", 400, "/pl\ufffd\ufffdyers"},
		{"a NUL before invalid UTF-8", "{\"a\": \"\\u0000\", \"b\": \"\xff\"}", 422, "/a"},
		{"invalid UTF-8 before a NUL", "{\"a\": [\"\xff\"], \"b\": \"\\u0000\"}", 400, "/a/0"},
		{"invalid UTF-8 as the first character", "{\"\xe9\": 1}", 400, "/\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckText([]byte(tt.body))
			if tt.status == 0 {
				if err != nil {
					t.Fatalf("err = %v, want none", err)
				}
				return
			}
			p, known := ProblemOf(err)
			if !known || p.Status != tt.status || len(p.Errors) != 1 || p.Errors[0].Pointer != tt.pointer {
				t.Fatalf("problem = %+v (%v), want %d at %q", p, err, tt.status, tt.pointer)
			}
			if tt.status == 400 {
				var rerr *RequestError
				if !errors.As(DecodeRequest([]byte(tt.body), &Request{}), &rerr) {
					t.Errorf("DecodeRequest does not refuse it")
				}
			}
		})
	}
}

// TestScoreJSONText: the score endpoint, on the server and in the browser,
// refuses a NUL where it reads the body. The requests are recorded for
// the engine's parity test (invalid UTF-8 cannot be: the file is JSON).
func TestScoreJSONText(t *testing.T) {
	for _, body := range []string{
		`{"players": [{"name": "a\u0000b", "board": null}]}`,
		`{"players": [{"name": "Ana", "board": {"grid": [[{"name": "\u0000"}]]}}]}`,
	} {
		recordBody(t, "insectarium", []byte(body))
		_, err := ScoreJSON("insectarium", []byte(body))
		var verr *ValidationError
		if !errors.As(err, &verr) {
			t.Errorf("ScoreJSON(%s) = %v, want a ValidationError", body, err)
		}
	}
	var req Request
	if err := json.Unmarshal([]byte(`{"players": []}`), &req); err != nil {
		t.Fatal(err)
	}
}

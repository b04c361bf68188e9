package scoring

import (
	"encoding/json"
	"errors"
	"testing"
)

// TestProblemOf pins the problems of the three stateless operations, which
// the server and the browser's engine both send.
func TestProblemOf(t *testing.T) {
	score := func(game, body string) error {
		_, err := ScoreJSON(game, []byte(body))
		return err
	}
	tests := []struct {
		name  string
		err   error
		known bool
		want  string
	}{
		{"unknown game", score("chess", `{}`), true,
			`{"type":"about:blank","title":"Not Found","status":404,"detail":"there is no game \"chess\""}`},
		{"no body", score("insecta", ""), true,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"the request needs a JSON body"}`},
		{"malformed JSON", score("insecta", `{"players":`), true,
			`{"type":"about:blank","title":"Bad Request","status":400,"detail":"the body is not valid JSON"}`},
		{"a wrong type", score("insecta", `{"players":[{"name":7}]}`), true,
			`{"type":"/api/problems/validation","title":"Unprocessable Content","status":422,"detail":"some entries break the rules","errors":[{"pointer":"/players/0/name","detail":"expected text, got a number"}]}`},
		{"a broken rule", score("insectarium", `{"players":[]}`), true,
			`{"type":"/api/problems/validation","title":"Unprocessable Content","status":422,"detail":"some entries break the rules","errors":[{"pointer":"/players","detail":"add at least one player"}]}`},
		{"anything else", errors.New("disk on fire"), false,
			`{"type":"about:blank","title":"Internal Server Error","status":500,"detail":"internal error"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, known := ProblemOf(tt.err)
			got, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want || known != tt.known {
				t.Errorf("ProblemOf(%v) = %s, %v\nwant %s, %v", tt.err, got, known, tt.want, tt.known)
			}
		})
	}
}

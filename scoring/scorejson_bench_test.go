//go:build !js

package scoring

import (
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkScoreJSON scores the body the score endpoint's bench sends (a
// 4-player Insecta request, api/testdata/insecta-example.json's two boards
// twice over), from its bytes to the answer's, as the endpoint does
// without its HTTP stack.
func BenchmarkScoreJSON(b *testing.B) {
	body := fourPlayerInsecta(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	var buf []byte
	for b.Loop() {
		res, err := ScoreJSON("insecta", body)
		if err != nil {
			b.Fatal(err)
		}
		buf = res.AppendJSON(buf[:0])
	}
}

// fourPlayerInsecta is the body of api's BenchmarkScoreEndpoint: the
// Insecta example's two boards twice over, the copies with researchers of
// their own, written compactly with members in name order.
func fourPlayerInsecta(b *testing.B) []byte {
	b.Helper()
	var req struct {
		Players []struct {
			Name  string         `json:"name"`
			Board map[string]any `json:"board"`
		} `json:"players"`
	}
	raw, err := os.ReadFile("../api/testdata/insecta-example.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		b.Fatal(err)
	}
	others := []string{"ida-laura-pfeiffer", "louise-caroline-daumont"}
	for i := range 2 {
		p := req.Players[i]
		copied, _ := json.Marshal(p.Board)
		var board map[string]any
		_ = json.Unmarshal(copied, &board)
		board["researcher"] = others[i]
		req.Players = append(req.Players, struct {
			Name  string         `json:"name"`
			Board map[string]any `json:"board"`
		}{p.Name + " II", board})
	}
	out, err := json.Marshal(req)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

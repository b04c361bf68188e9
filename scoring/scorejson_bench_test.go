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
	for b.Loop() {
		res, err := ScoreJSON("insecta", body)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(res); err != nil {
			b.Fatal(err)
		}
	}
}

// fourPlayerInsecta is the body of api's BenchmarkScoreEndpoint: the
// Insecta example's two boards twice over, the copies with researchers of
// their own, written compactly with members in name order.
func fourPlayerInsecta(tb testing.TB) []byte {
	tb.Helper()
	body, err := os.ReadFile("../api/testdata/insecta-four-players.json")
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

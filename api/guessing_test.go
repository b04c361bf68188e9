package api

import (
	"bytes"
	"fmt"
	"net/http"
	"testing"

	"insectscore/models"
)

// TestTokenRoutesCannotProbeCodes: the table writes that need a token
// answer a code no table has exactly as they answer a token no one at a
// real table holds, and each such answer counts against the address's
// budget of misses, so that after guessesPerMinute of them every route
// that takes a code answers 429.
func TestTokenRoutesCannotProbeCodes(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
		routes := []struct{ method, path, body string }{
			{"PUT", "/seats/0/board", hotelJSON("blue", "bee:0", "ant:0", "fly:0")},
			{"PUT", "/seats/0/sync", `{"unsent": 1, "unsentSeconds": 3}`},
			{"POST", "/finish", ""},
			{"POST", "/moves", `{"type": "draw", "card": "bee"}`},
			{"DELETE", "/moves/last", ""},
		}
		stranger := bearer("a-token-of-no-one-at-any-table")
		misses := 0
		for _, r := range routes {
			real := call(t, app, r.method, "/api/v1/tables/"+tbl.Code+r.path, r.body, stranger)
			unknown := call(t, app, r.method, "/api/v1/tables/ZZZZZZ"+r.path, r.body, stranger)
			misses += 2
			if real.status != unknown.status || !bytes.Equal(real.body, unknown.body) ||
				real.header.Get("WWW-Authenticate") != unknown.header.Get("WWW-Authenticate") {
				t.Errorf("%s %s: a real code with a stranger's token answers %d %s (%q), an unknown code %d %s (%q); want one answer",
					r.method, r.path, real.status, real.body, real.header.Get("WWW-Authenticate"),
					unknown.status, unknown.body, unknown.header.Get("WWW-Authenticate"))
			}
			if real.status != http.StatusUnauthorized {
				t.Errorf("%s %s with a stranger's token: %d, want 401", r.method, r.path, real.status)
			}
		}
		for ; misses < guessesPerMinute; misses++ {
			mustCall(t, app, "PUT", fmt.Sprintf("/api/v1/tables/ZZZZ%02d/seats/0/sync", misses), `{"unsent": 0}`, stranger, 401)
		}
		for _, r := range routes {
			mustCall(t, app, r.method, "/api/v1/tables/"+tbl.Code+r.path, r.body, bearer(tbl.HostToken), 429)
		}
		mustCall(t, app, "GET", "/api/v1/tables/"+tbl.Code, "", nil, 429)
	})
}

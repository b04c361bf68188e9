package api

import (
	"testing"

	"insectscore/models"
)

// TestSeatNumbersOutOfRange: a seat number no table can have, up to past
// a database integer, is a 404 on every seat route, before any query. It
// was a 500 on PostgreSQL ("int4" encode error) for 2^31 and more.
func TestSeatNumbersOutOfRange(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newTestAppWith(t, Config{Store: store})
		tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben"]}`)
		host := bearer(tbl.HostToken)
		for _, seat := range []string{"4", "2147483647", "2147483648", "9223372036854775807", "99999999999999999999"} {
			base := "/api/v1/tables/" + tbl.Code + "/seats/" + seat
			mustCall(t, app, "POST", base+"/claim", "", nil, 404)
			mustCall(t, app, "PUT", base+"/board", `{}`, host, 404)
			mustCall(t, app, "PUT", base+"/sync", `{"unsent": 0}`, host, 404)
		}
	})
}

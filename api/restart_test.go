package api

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// openFileApp opens a store on the SQLite file at path and an app on it, as
// a start of the server does.
func openFileApp(t *testing.T, path string) (*fiber.App, *models.Store) {
	t.Helper()
	store, err := models.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return newTestAppWith(t, Config{Store: store})
}

// TestRestart: tables, seats, tokens, boards, moves and a finished result
// survive a restart of the server on the same database file.
func TestRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "insectscore.db")
	app, store := openFileApp(t, path)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("no database file: %v", err)
	}

	// A finished Insecta table: the rulebook's end-of-game example, with
	// Laura named by the host and George joining from his own phone.
	var example struct {
		Players []struct {
			Name  string          `json:"name"`
			Board json.RawMessage `json:"board"`
		} `json:"players"`
	}
	if err := json.Unmarshal([]byte(readTestdata(t, "insecta-example.json")), &example); err != nil {
		t.Fatal(err)
	}
	done := startTable(t, app, `{"game": "insecta", "players": ["Laura"]}`)
	laura := claimTestSeat(t, app, done.Code, 0)
	joined := decodeJSON[struct {
		Seat      int
		SeatToken string
	}](t, mustCall(t, app, "POST", "/api/v1/tables/"+done.Code+"/seats", `{"name": "George"}`, nil, 201))
	putTestBoard(t, app, done.Code, 0, laura, string(example.Players[0].Board))
	putTestBoard(t, app, done.Code, joined.Seat, joined.SeatToken, string(example.Players[1].Board))
	fin := mustCall(t, app, "POST", "/api/v1/tables/"+done.Code+"/finish", "", bearer(done.HostToken), 200)
	finished := decodeJSON[struct {
		PlayID    string
		Standings json.RawMessage
	}](t, fin)
	checkJSON(t, fin.body, map[string]any{"/standings/winners": []int{0},
		"/standings/results/0/total": 32, "/standings/results/1/total": 31})
	doneBefore := mustCall(t, app, "GET", "/api/v1/tables/"+done.Code, "", nil, 200)

	// An open Insectarium table with a partial board and a claimed seat.
	open := startTable(t, app, `{"game": "insectarium", "players": ["Ana", "Ben"]}`)
	ana := claimTestSeat(t, app, open.Code, 0)
	putTestBoard(t, app, open.Code, 0, ana, `{"grid": [[{"name": "Cuckoo Wasp", "color": "green", "insect": "bee", "points": 3, "tools": ["pin"]}, null, null], [null, null, null], [null, null, null]], "rowTokens": ["green", null, null], "supply": 4}`)
	openVersion := putTestBoard(t, app, open.Code, 1, open.HostToken, `{"supply": 2}`)
	openBefore := mustCall(t, app, "GET", "/api/v1/tables/"+open.Code, "", nil, 200)

	// An Insektenhotel table played move by move.
	hotel := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	putTestBoard(t, app, hotel.Code, 0, hotel.HostToken, hotelJSON("blue", "bee:0", "ant:0", "fly:0"))
	putTestBoard(t, app, hotel.Code, 1, hotel.HostToken, hotelJSON("red", "bee:0", "ladybird:0", "earwig:0"))
	for _, m := range []string{`{"type": "draw", "card": "bee"}`, `{"type": "draw", "card": "honey"}`, `{"type": "draw", "card": "bee"}`} {
		mustCall(t, app, "POST", "/api/v1/tables/"+hotel.Code+"/moves", m, bearer(hotel.HostToken), 201)
	}
	hotelBefore := mustCall(t, app, "GET", "/api/v1/tables/"+hotel.Code, "", nil, 200)

	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	app, store = openFileApp(t, path)
	t.Cleanup(func() { store.Close() })

	t.Run("the finished table", func(t *testing.T) {
		after := mustCall(t, app, "GET", "/api/v1/tables/"+done.Code, "", nil, 200)
		sameJSON(t, "the table after the restart", after.body, doneBefore.body)
		checkJSON(t, after.body, map[string]any{"/status": "finished", "/seats/1/name": "George",
			"/standings/results/0/total": 32})
		sameJSON(t, "Laura's board", []byte(decodeJSON[tableView](t, after).Seats[0].Board), example.Players[0].Board)
		got, err := store.FindTableByCode(context.Background(), done.Code)
		if err != nil {
			t.Fatal(err)
		}
		if got.PlayID != finished.PlayID {
			t.Errorf("play id %q after the restart, want %q", got.PlayID, finished.PlayID)
		}
		sameJSON(t, "the recorded standings", got.Standings, finished.Standings)
		// The host's token still names the host: refused for being
		// finished (409), not for being unknown (401).
		runScenarios(t, app, []scenario{
			{name: "put", method: "PUT", path: boardPath(done.Code, 0), body: `{"track": 1}`, status: 409,
				header: bearer(done.HostToken), check: detailHas("finished")},
			{name: "join", method: "POST", path: "/api/v1/tables/" + done.Code + "/seats", body: `{"name": "Ida"}`, status: 409},
			{name: "finish", method: "POST", path: "/api/v1/tables/" + done.Code + "/finish", status: 409, header: bearer(done.HostToken)},
		})
	})

	t.Run("the open table", func(t *testing.T) {
		after := mustCall(t, app, "GET", "/api/v1/tables/"+open.Code, "", nil, 200)
		sameJSON(t, "the table after the restart", after.body, openBefore.body)
		if got := decodeJSON[tableView](t, after).Version; got != openVersion {
			t.Errorf("version %d after the restart, want %d", got, openVersion)
		}
		etag := `"` + strconv.Itoa(openVersion) + `"`
		next := strconv.Itoa(openVersion + 1)
		runScenarios(t, app, []scenario{
			{name: "etag", method: "GET", path: "/api/v1/tables/" + open.Code, status: 200, wantHeader: map[string]string{"ETag": etag}},
			{name: "a seat token still holds only its seat", method: "PUT", path: boardPath(open.Code, 1), body: `{"supply": 1}`,
				status: 403, header: bearer(ana)},
			{name: "a stale version is still stale", method: "PUT", path: boardPath(open.Code, 0), body: `{"supply": 1}`,
				status: 409, header: withHeader(bearer(ana), "If-Match", `"1"`), want: map[string]any{"/currentVersion": openVersion}},
			{name: "put by the seat", method: "PUT", path: boardPath(open.Code, 0), body: `{"supply": 1}`, status: 200,
				header: withHeader(bearer(ana), "If-Match", etag), wantHeader: map[string]string{"ETag": `"` + next + `"`},
				want: map[string]any{"/version": openVersion + 1}},
			{name: "the seat is still claimed", method: "POST", path: "/api/v1/tables/" + open.Code + "/seats/0/claim", status: 409},
			{name: "the other seat can be claimed", method: "POST", path: "/api/v1/tables/" + open.Code + "/seats/1/claim", status: 200},
			{name: "the new board and the old one", method: "GET", path: "/api/v1/tables/" + open.Code, status: 200,
				want: map[string]any{"/status": "open", "/seats/0/board": map[string]any{"supply": 1}, "/seats/1/board": map[string]any{"supply": 2}}},
		})
	})

	t.Run("the table played move by move", func(t *testing.T) {
		after := mustCall(t, app, "GET", "/api/v1/tables/"+hotel.Code, "", nil, 200)
		sameJSON(t, "the table after the restart", after.body, hotelBefore.body)
		runScenarios(t, app, []scenario{
			{name: "the turn goes on", method: "POST", path: "/api/v1/tables/" + hotel.Code + "/moves", body: `{"type": "draw", "card": "ant"}`,
				status: 201, header: bearer(hotel.HostToken), want: map[string]any{"/hotel/turn": 1, "/hotel/round": 2,
					"/hotel/players/1/honey": 1, "/hotel/players/1/honeyUsable": 1, "/hotel/players/0/guests": 2}},
			{name: "undo", method: "DELETE", path: "/api/v1/tables/" + hotel.Code + "/moves/last", status: 200,
				header: bearer(hotel.HostToken), want: map[string]any{"/hotel/turn": 0, "/hotel/players/0/guests": 1}},
		})
	})
}

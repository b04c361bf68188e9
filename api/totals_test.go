package api

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"insectscore/models"
)

// Boards entered as totals sheets (issue 8) go everywhere a board goes:
// the score endpoint, a table's seats and its finish, logged plays and
// their edits, the leaderboards, the export and the CSV. A totals board
// and a board sit side by side at one table, and each result says how it
// was entered.

// The Insecta rulebook's "End of the game" as totals sheets: Laura 32,
// George 31.
const (
	lauraTotals  = `{"totals": {"track": 24, "favourites": 4, "continents": 0, "fragments": 4, "distinctInsects": 6}}`
	georgeTotals = `{"totals": {"track": 15, "favourites": 2, "continents": 5, "fragments": 9, "distinctInsects": 5}}`
)

// exampleBoard returns the board of player i of an API test example.
func exampleBoard(t *testing.T, name string, i int) string {
	t.Helper()
	var ex struct {
		Players []struct {
			Board json.RawMessage `json:"board"`
		} `json:"players"`
	}
	if err := json.Unmarshal([]byte(readTestdata(t, name)), &ex); err != nil {
		t.Fatal(err)
	}
	return string(ex.Players[i].Board)
}

func TestTotalsSpecAndScore(t *testing.T) {
	app := newTestApp(t)
	display := exampleBoard(t, "insectarium-example.json", 0)
	runScenarios(t, app, []scenario{
		{name: "each spec has its totals sheet", method: "GET", path: "/api/v1/games/insecta", status: 200, want: map[string]any{
			"/totals/0":    map[string]any{"id": "track", "label": "Scoring track", "min": 0, "max": 300, "step": 1},
			"/totals/2":    map[string]any{"id": "continents", "label": "Five continents", "min": 0, "max": 5, "step": 5},
			"/totals/3":    map[string]any{"id": "fragments", "label": "Journal fragments", "min": -1, "max": 9, "step": 1},
			"/totals/4/id": "distinctInsects"}},
		{name: "Insectarium's sheet", method: "GET", path: "/api/v1/games/insectarium", status: 200, want: map[string]any{
			"/totals/3": map[string]any{"id": "toolBonus", "label": "Display Tool bonuses", "min": 0, "max": 50, "step": 5},
			"/totals/4": map[string]any{"id": "displayTools", "label": "display tools", "min": 0, "max": 27, "step": 1}}},
		{name: "Insektenhotel's sheet", method: "GET", path: "/api/v1/games/insektenhotel", status: 200, want: map[string]any{
			"/totals": []map[string]any{{"id": "guests", "label": "Guests", "min": 0, "max": 6, "step": 1}}}},
		{name: "a sheet beside a board: ranked and tie-broken alike", method: "POST", path: "/api/v1/games/insectarium/score",
			body:   `{"players": [{"name": "Ana", "board": {"totals": {"rows": 15, "columns": 13, "supply": 1, "toolBonus": 5}}}, {"name": "Ben", "board": ` + display + `}]}`,
			status: 200, want: map[string]any{
				"/complete": true, "/winners": []int{1}, "/results/0/total": 34, "/results/1/total": 34,
				"/results/0/entered": "totals", "/results/1/entered": "board",
				"/results/0/breakdown/0/sources": []map[string]any{{"pointer": "/totals/rows", "points": 15}},
				"/results/0/tiebreaks/0":         map[string]any{"key": "displayTools", "label": "display tools", "value": 0, "sources": []any{}},
				"/results/0/warnings": []map[string]any{{"pointer": "/players/0/board/totals/displayTools",
					"detail": "no display tools entered: counted as 0 for the tiebreak"}},
				"/tiebreak": "Ben wins the tie on 34 points: 6 display tools to 0"}},
		{name: "a value its line can't take", method: "POST", path: "/api/v1/games/insecta/score",
			body: `{"players": [{"name": "Ana", "board": {"totals": {"continents": 3, "fragments": 1}}}, {"name": "Ben"}],
			        "variants": {"oneFragment": -1}}`,
			status: 422, want: map[string]any{
				"/errors/0/pointer": "/players/0/board/totals/continents", "/errors/0/detail": "Five continents is either 0 or 5, not 3",
				"/errors/1/pointer": "/players/0/board/totals/fragments"}},
		{name: "an unknown line is refused by name", method: "POST", path: "/api/v1/games/insektenhotel/score",
			body:   `{"players": [{"name": "Ana", "board": {"totals": {"pairs": 3}}}, {"name": "Ben"}]}`,
			status: 422, want: map[string]any{"/errors/0/pointer": "/players/0/board/totals/pairs",
				"/errors/0/detail": `"pairs" is not a line of the Insektenhotel totals sheet; use guests`}},
		{name: "a wrong type, as for a board", method: "POST", path: "/api/v1/games/insectarium/score",
			body:   `{"players": [{"name": "Ana", "board": {"totals": {"rows": "15"}}}]}`,
			status: 422, want: map[string]any{"/errors/0/pointer": "/players/0/board/totals/rows",
				"/errors/0/detail": "expected a whole number, got text"}},
		{name: "Insecta tiles without the fields that change no score", method: "POST", path: "/api/v1/games/insecta/score",
			body: `{"players": [{"name": "Ana", "board": {"researcher": "mary-kingsley", "track": 3, "tiles": [
				{"row": 0, "col": 0, "kind": "insect", "continent": "africa", "wreath": "mary-kingsley"},
				{"row": 0, "col": 1, "kind": "mail", "scored": true}]}}, {"name": "Ben"}]}`,
			status: 200, want: map[string]any{"/results/0/total": 5,
				"/results/0/breakdown/1/sources": []map[string]any{{"pointer": "/tiles/0", "points": 2}},
				"/results/0/tiebreaks/0/sources": []map[string]any{{"pointer": "/tiles/0", "points": 1, "label": "Africa"}}}},
	})
}

// TestTotalsEverywhere plays tables, logs and edits plays with totals
// boards and boards mixed, then reads the leaderboards, a play, the export
// and the CSV, on every database.
func TestTotalsEverywhere(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{})
		george := exampleBoard(t, "insecta-example.json", 1)

		// An Insecta table: Ana enters totals, Ben his collection.
		tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben"]}`)
		host, base := bearer(tbl.HostToken), "/api/v1/tables/"+tbl.Code
		putTestBoard(t, app, tbl.Code, 1, tbl.HostToken, george)
		var playID string
		runScenarios(t, app, []scenario{
			{name: "a sheet a seat can't take is saved and explained", method: "PUT", path: boardPath(tbl.Code, 0),
				body: `{"totals": {"track": 24, "continents": 4}}`, header: host, status: 200, want: map[string]any{
					"/standings": nil, "/errors/0/pointer": "/players/0/board/totals/continents"}},
			{name: "and finishing refuses it", method: "POST", path: base + "/finish", header: host, status: 422,
				want: map[string]any{"/errors/0/pointer": "/players/0/board/totals/continents"}},
			{name: "Laura's totals at seat 0", method: "PUT", path: boardPath(tbl.Code, 0), body: lauraTotals, header: host, status: 200,
				want: map[string]any{"/standings/complete": true, "/standings/winners": []int{0}, "/errors": []any{},
					"/standings/results/0/entered": "totals", "/standings/results/1/entered": "board"}},
			{name: "the table shows both", method: "GET", path: base, status: 200, want: map[string]any{
				"/seats/0/board":             map[string]any{"totals": map[string]any{"track": 24, "favourites": 4, "continents": 0, "fragments": 4, "distinctInsects": 6}},
				"/standings/results/0/total": 32, "/standings/results/1/total": 31,
				"/standings/results/0/breakdown/1/sources": []map[string]any{{"pointer": "/totals/favourites", "points": 4}},
				"/standings/results/1/breakdown/1/sources": []map[string]any{{"pointer": "/tiles/2", "points": 2, "label": "Fulgora laternaria"}}}},
			{name: "finish", method: "POST", path: base + "/finish", header: host, status: 200,
				want:  map[string]any{"/standings/results/0/entered": "totals", "/standings/winners": []int{0}},
				check: func(t *testing.T, r response) { playID = decodeJSON[struct{ PlayID string }](t, r).PlayID }},
		})
		runScenarios(t, app, []scenario{
			{name: "the play keeps the sheet and says who entered totals", method: "GET", path: "/api/v1/plays/" + playID, status: 200,
				want: map[string]any{"/results/0/board/totals/track": 24, "/results/0/total": 32, "/results/0/winner": true,
					"/results/0/breakdown/0": map[string]any{"key": "track", "label": "Scoring track", "points": 24,
						"sources": []map[string]any{{"pointer": "/totals/track", "points": 24}}},
					"/standings/results/0/entered": "totals", "/standings/results/1/entered": "board", "/results/1/total": 31}},
		})

		// An Insektenhotel table: a sheet's six guests fill a hotel.
		hotel := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
		hhost, hbase := bearer(hotel.HostToken), "/api/v1/tables/"+hotel.Code
		putTestBoard(t, app, hotel.Code, 1, hotel.HostToken, hotelJSON("blue", "bee:2", "ant:2", "fly:2"))
		runScenarios(t, app, []scenario{
			{name: "a sheet of six beside a full hotel: two full hotels", method: "PUT", path: boardPath(hotel.Code, 0),
				body: `{"totals": {"guests": 6}}`, header: hhost, status: 200, want: map[string]any{
					"/standings": nil, "/errors/0/pointer": "/players/1/board/floors",
					"/errors/0/detail": "only one hotel can fill first: the game ended when the first hotel was full"}},
			{name: "not finished while two hotels are full", method: "POST", path: hbase + "/finish", header: hhost, status: 422},
			{name: "moves need hotels, not sheets", method: "POST", path: hbase + "/moves", body: `{"type": "draw", "card": "bee"}`,
				header: hhost, status: 422, want: map[string]any{"/errors/0/pointer": "/players/0/hotel"}, check: detailHas("its board set up before the first move")},
			{name: "Ben had five", method: "PUT", path: boardPath(hotel.Code, 1), body: hotelJSON("blue", "bee:2", "ant:2", "fly:1"),
				header: hhost, status: 200, want: map[string]any{"/standings/complete": true, "/standings/winners": []int{0},
					"/standings/results/1/breakdown/0/sources": []map[string]any{
						{"pointer": "/floors/0", "points": 2}, {"pointer": "/floors/1", "points": 2}, {"pointer": "/floors/2", "points": 1}}}},
			{name: "finish the hotel", method: "POST", path: hbase + "/finish", header: hhost, status: 200,
				want: map[string]any{"/standings/results/0/total": 6, "/standings/results/0/entered": "totals"}},
		})

		// Logged plays: one all sheets, one mixed, then an edit.
		clk.Set(day(20, 21, 0))
		logged := logTestPlay(t, app, "default", playBody("insecta", time.Time{}, time.Time{},
			seat{"Ana", georgeTotals}, seat{"Ben", lauraTotals}))
		runScenarios(t, app, []scenario{
			{name: "a logged sheet with an unknown line", method: "POST", path: "/api/v1/plays", status: 422,
				body: playBody("insecta", time.Time{}, time.Time{}, seat{"Ana", `{"totals": {"medals": 2}}`}, seat{"Ben", lauraTotals}),
				want: map[string]any{"/errors/0/pointer": "/players/0/board/totals/medals"}},
			{name: "a logged Insectarium play with an unfinished display", method: "POST", path: "/api/v1/plays", status: 422,
				body:  playBody("insectarium", time.Time{}, time.Time{}, seat{"Ana", `{"totals": {"rows": 9}}`}, seat{"Ben", `{"supply": 4}`}),
				check: fieldDetailHas("the game is not over yet")},
			{name: "the leaderboard counts sheets like boards", method: "GET", path: "/api/v1/leaderboards/insecta", status: 200,
				check: standing(map[string]totalsRecord{"Ana": {2, 1, 31.5, 32}, "Ben": {2, 1, 31.5, 32}})},
			{name: "edit: Ben's sheet becomes his collection", method: "PUT", path: "/api/v1/plays/" + logged, status: 200,
				body: playBody("insecta", time.Time{}, time.Time{}, seat{"Ana", georgeTotals}, seat{"Ben", george}),
				want: map[string]any{"/results/1/total": 31, "/results/0/total": 31, "/standings/results/1/entered": "board",
					"/standings/winners": []int{0, 1}, "/standings/tiebreak": "Ana and Ben share the victory: level on 31 points and on every tiebreak"}},
			{name: "the leaderboard follows", method: "GET", path: "/api/v1/leaderboards/insecta", status: 200, before: settled(store),
				check: standing(map[string]totalsRecord{"Ana": {2, 2, 31.5, 32}, "Ben": {2, 1, 31, 31}})},
			{name: "the hotel leaderboard", method: "GET", path: "/api/v1/leaderboards/insektenhotel", status: 200, want: map[string]any{
				"/entries/0/player": "Ana", "/entries/0/wins": 1, "/entries/0/avgScore": nil}},
		})

		// The export keeps the sheets and reads back byte for byte.
		exported := exportOf(t, app, "default")
		if !bytes.Contains(exported, []byte(`"totals"`)) {
			t.Errorf("the export lost the totals boards: %s", exported)
		}
		fresh := newHistoryAppOnly(t)
		mustCall(t, fresh, "POST", "/api/v1/groups/import", string(exported), nil, 201)
		if again := exportOf(t, fresh, "default"); !bytes.Equal(again, exported) {
			t.Errorf("the export of the import differs:\n%s\nwant\n%s", again, exported)
		}
		for _, path := range []string{"/api/v1/leaderboards/insecta", "/api/v1/plays/" + logged} {
			if got, want := mustCall(t, fresh, "GET", path, "", nil, 200).body, mustCall(t, app, "GET", path, "", nil, 200).body; !bytes.Equal(got, want) {
				t.Errorf("%s after the import:\n%s\nwant\n%s", path, got, want)
			}
		}
		csv := string(mustCall(t, app, "GET", "/api/v1/groups/default/plays.csv", "", nil, 200).body)
		for _, row := range []string{playID + ",", ",insecta,Ana,32,1,true", ",insecta,Ben,31,2,false", ",insektenhotel,Ana,6,1,true"} {
			if !strings.Contains(csv, row) {
				t.Errorf("plays.csv lacks %q:\n%s", row, csv)
			}
		}
	})
}

// totalsRecord is a player's plays, wins, average and best score on a
// leaderboard.
type totalsRecord struct {
	plays, wins int
	avg         float64
	best        int
}

// standing returns a check that wants each named player's record on a
// leaderboard, wherever the ratings place them.
func standing(want map[string]totalsRecord) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		lb := decodeJSON[leaderboard](t, r)
		for name, w := range want {
			e := entryOf(t, lb, name)
			got := totalsRecord{plays: e.Plays, wins: e.Wins}
			if e.AvgScore != nil && e.BestScore != nil {
				got.avg, got.best = *e.AvgScore, *e.BestScore
			}
			if got != w {
				t.Errorf("%s: %+v, want %+v", name, got, w)
			}
		}
	}
}

// TestResultsFromBeforeSources: plays recorded before results had sources
// and entered are served as recorded, and still match the OpenAPI
// document; an export written then is scored again when imported, and
// gains them.
func TestResultsFromBeforeSources(t *testing.T) {
	path := filepath.Join(t.TempDir(), "insectscore.db")
	app, store := openFileApp(t, path)
	id := logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(1, 21, 0), seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(7)}))
	var doc any
	if err := json.Unmarshal(exportOf(t, app, "default"), &doc); err != nil {
		t.Fatal(err)
	}
	if dropKeys(doc, "sources", "entered") == 0 {
		t.Fatal("the export has no sources or entered to drop")
	}
	old, _ := json.Marshal(doc)
	fresh := newHistoryAppOnly(t)
	mustCall(t, fresh, "POST", "/api/v1/groups/import", string(old), nil, 201)
	r := mustCall(t, fresh, "GET", "/api/v1/plays/"+id, "", nil, 200)
	checkJSON(t, r.body, map[string]any{"/results/1/total": 7, "/standings/results/1/winner": true, "/standings/results/1/entered": "board",
		"/results/1/breakdown/2": map[string]any{"key": "supply", "label": "Unused tokens", "points": 7,
			"sources": []any{map[string]any{"pointer": "/supply", "points": 7}}}})

	// The rows as a release before sources wrote them.
	store.Close()
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	strip := func(table, column, where string) {
		t.Helper()
		rows, err := db.Query("SELECT rowid, " + column + " FROM " + table + " WHERE " + where)
		if err != nil {
			t.Fatal(err)
		}
		texts := map[int64]string{}
		for rows.Next() {
			var (
				rowid int64
				text  string
			)
			rows.Scan(&rowid, &text)
			var v any
			json.Unmarshal([]byte(text), &v)
			dropKeys(v, "sources", "entered")
			b, _ := json.Marshal(v)
			texts[rowid] = string(b)
		}
		rows.Close()
		for rowid, text := range texts {
			if _, err := db.Exec("UPDATE "+table+" SET "+column+" = ? WHERE rowid = ?", text, rowid); err != nil {
				t.Fatal(err)
			}
		}
	}
	strip("plays", "standings", "id = '"+id+"'")
	strip("play_players", "breakdown", "play_id = '"+id+"'")
	app, _ = openFileApp(t, path)
	r = mustCall(t, app, "GET", "/api/v1/plays/"+id, "", nil, 200)
	if bytes.Contains(r.body, []byte(`"sources"`)) || bytes.Contains(r.body, []byte(`"entered"`)) {
		t.Errorf("a play recorded without sources gained some: %s", r.body)
	}
	checkJSON(t, r.body, map[string]any{"/results/1/total": 7, "/standings/results/1/winner": true,
		"/results/1/breakdown/2": map[string]any{"key": "supply", "label": "Unused tokens", "points": 7}})
}

// dropKeys deletes the named object members anywhere in v and returns how
// many it deleted.
func dropKeys(v any, keys ...string) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			if _, ok := x[k]; ok {
				delete(x, k)
				n++
			}
		}
		for _, c := range x {
			n += dropKeys(c, keys...)
		}
	case []any:
		for _, c := range x {
			n += dropKeys(c, keys...)
		}
	}
	return n
}

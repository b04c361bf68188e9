package api

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"insectscore/models"
)

// TestTextEverywhere: a NUL character or text that is not UTF-8, sent to
// any route that takes text (names, group names, boards, ids in the path
// and the query, cursors), is a 400 or 422 at its place, never a 500, on
// both databases. PostgreSQL refuses such text with an error of its own
// (SQLSTATE 22021), so it must never get that far.
func TestTextEverywhere(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, clk := newClockApp(t, store, Config{})
		g := makeGroup(t, app, "Club")
		tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
		clk.Advance(time.Hour)
		full, part := hotelJSON("blue", "bee:2", "ant:2", "fly:2"), hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")
		playID := logTestPlay(t, app, "default", playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", full}, seat{"Ben", part}))
		ana := playerIDOf(t, app, "default", "Ana")
		host := bearer(tbl.HostToken)
		exported := string(exportOf(t, app, "default"))

		const nul, bad = `a\u0000b`, "a\xffb" // NUL as JSON writes it; a byte that is no UTF-8
		badJSON := func(s string) string { return `"` + s + `"` }
		nulIn := func(s string) string { return strings.Replace(s, `"Ana"`, badJSON(nul), 1) }
		badIn := func(s string) string { return strings.Replace(s, `"Ana"`, badJSON(bad), 1) }
		logged := playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Ana", full}, seat{"Ben", part})
		tableBody := `{"game": "insecta", "players": ["Ana", "Ben"]}`
		hotelBoard := strings.Replace(full, `"bee"`, badJSON(nul), 1)
		importNUL := strings.Replace(exported, `"name": "Ana"`, `"name": "`+nul+`"`, 1)
		importBad := strings.Replace(exported, `"name": "Ana"`, `"name": "`+bad+`"`, 1)
		if importNUL == exported || importBad == exported {
			t.Fatal("the export names no Ana")
		}
		anaAt := fmt.Sprintf("/players/%d/name", strings.Count(exported[:strings.Index(exported, `"name": "Ana"`)], `"createdAt"`)-1)
		cursor := base64.RawURLEncoding.EncodeToString([]byte("2026-03-20T19:00:00Z a\x00b"))
		badCursor := base64.RawURLEncoding.EncodeToString([]byte("2026-03-20T19:00:00Z a\xffb"))

		body := func(name, method, path, body string, status int, pointer string, header map[string]string) scenario {
			sc := scenario{name: name, method: method, path: path, body: body, status: status, header: header}
			if pointer != "" {
				sc.want = map[string]any{"/errors/0/pointer": pointer}
			}
			return sc
		}
		runScenarios(t, app, []scenario{
			body("a table's player named with a NUL", "POST", "/api/v1/tables", nulIn(tableBody), 422, "/players/0", nil),
			body("a table's player named in bad UTF-8", "POST", "/api/v1/tables", badIn(tableBody), 400, "/players/0", nil),
			body("a table's group with a NUL", "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"], "group": "`+nul+`"}`, 422, "/group", nil),
			body("a table's group in bad UTF-8", "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"], "group": "`+bad+`"}`, 400, "/group", nil),
			body("a variant with a NUL", "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"], "variants": {"`+nul+`": 1}}`, 422, "/variants/a\x00b", nil),
			body("joining with a NUL", "POST", "/api/v1/tables/"+tbl.Code+"/seats", `{"name": "`+nul+`"}`, 422, "/name", nil),
			body("joining in bad UTF-8", "POST", "/api/v1/tables/"+tbl.Code+"/seats", `{"name": "`+bad+`"}`, 400, "/name", nil),
			body("a board with a NUL", "PUT", boardPath(tbl.Code, 0), hotelBoard, 422, "/floors/0/species", host),
			body("a board in bad UTF-8", "PUT", boardPath(tbl.Code, 0), `{"hotel": "`+bad+`"}`, 400, "/hotel", host),
			body("a sync report with a NUL key", "PUT", syncPath(tbl.Code, 0), `{"unsent": 1, "`+nul+`": 1}`, 422, "/a\x00b", host),
			body("a move with a NUL", "POST", "/api/v1/tables/"+tbl.Code+"/moves", `{"kind": "`+nul+`"}`, 422, "/kind", host),
			body("a finish with bad UTF-8", "POST", "/api/v1/tables/"+tbl.Code+"/finish", `{"force": true, "`+bad+`": 1}`, 400, "/a\ufffdb", host),
			body("a group named with a NUL", "POST", "/api/v1/groups", `{"name": "`+nul+`"}`, 422, "/name", nil),
			body("a group named in bad UTF-8", "POST", "/api/v1/groups", `{"name": "`+bad+`"}`, 400, "/name", nil),
			body("an import naming a player with a NUL", "POST", "/api/v1/groups/import", importNUL, 422, anaAt, nil),
			body("an import naming a player in bad UTF-8", "POST", "/api/v1/groups/import", importBad, 400, anaAt, nil),
			body("a logged player with a NUL", "POST", "/api/v1/plays", nulIn(logged), 422, "/players/0/name", nil),
			body("a logged player in bad UTF-8", "POST", "/api/v1/plays", badIn(logged), 400, "/players/0/name", nil),
			body("a logged board with a NUL", "POST", "/api/v1/plays", strings.Replace(logged, `"bee"`, badJSON(nul), 1), 422, "/players/0/board/floors/0/species", nil),
			body("an edit with a NUL", "PUT", "/api/v1/plays/"+playID, nulIn(logged), 422, "/players/0/name", nil),
			body("a rename with a NUL", "PATCH", "/api/v1/players/"+ana, `{"name": "`+nul+`"}`, 422, "/name", nil),
			body("a rename in bad UTF-8", "PATCH", "/api/v1/players/"+ana, `{"name": "`+bad+`"}`, 400, "/name", nil),
			body("a merge into a NUL", "POST", "/api/v1/players/"+ana+"/merge", `{"into": "`+nul+`"}`, 422, "/into", nil),
			body("a score with a NUL", "POST", "/api/v1/games/insektenhotel/score", nulIn(logged), 422, "/players/0/name", nil),
			body("a score in bad UTF-8", "POST", "/api/v1/games/insektenhotel/score", badIn(logged), 400, "/players/0/name", nil),
		})

		var queries []scenario
		for _, path := range []string{"/api/v1/plays", "/api/v1/plays/" + playID, "/api/v1/leaderboards/insecta", "/api/v1/players/" + ana,
			"/api/v1/groups/" + g.ID + "/players", "/api/v1/games", "/api/v1/tables/" + tbl.Code} {
			for _, q := range []string{"group=a%00b", "group=%ff", "x=%00"} {
				queries = append(queries, scenario{name: path + "?" + q, method: "GET", path: path + "?" + q, status: 400,
					check: detailHas("the query parameter")})
			}
		}
		queries = append(queries,
			scenario{name: "a DELETE with a NUL group", method: "DELETE", path: "/api/v1/plays/" + playID + "?group=%00", status: 400},
			scenario{name: "a player filter with a NUL", method: "GET", path: "/api/v1/plays?player=a%00b", status: 400},
			scenario{name: "a game filter in bad UTF-8", method: "GET", path: "/api/v1/plays?game=%ff", status: 400},
			scenario{name: "a cursor hiding a NUL", method: "GET", path: "/api/v1/plays?cursor=" + cursor, status: 400, check: detailHas("cursor")},
			scenario{name: "a cursor hiding bad UTF-8", method: "GET", path: "/api/v1/plays?cursor=" + badCursor, status: 400, check: detailHas("cursor")},
			scenario{name: "a group id with an escaped NUL", method: "GET", path: "/api/v1/groups/a%00b", status: 404},
			scenario{name: "its players", method: "GET", path: "/api/v1/groups/a%00b/players", status: 404},
			scenario{name: "its export", method: "GET", path: "/api/v1/groups/%ff%fe/export", status: 404},
			scenario{name: "a table code with an escaped NUL", method: "GET", path: "/api/v1/tables/AB%00CD", status: 404},
			scenario{name: "a play id with an escaped NUL", method: "GET", path: "/api/v1/plays/a%00b", status: 404},
			scenario{name: "a player id in escaped bad UTF-8", method: "GET", path: "/api/v1/players/%ff", status: 404},
			scenario{name: "a board of a code in escaped bad UTF-8", method: "PUT", path: boardPath("%FF%00", 0), body: full, header: host, status: 401},
		)
		runScenarios(t, app, queries)

		// Raw bytes that are not UTF-8 in the path, as a client may send.
		r := call(t, app, "GET", "/api/v1/groups/"+url.PathEscape("x")+"\xff", "", nil)
		if r.status != 400 && r.status != 404 {
			t.Errorf("a path in bad UTF-8: status %d, want 400 or 404: %s", r.status, r.body)
		}
		// Nothing was written by any of them.
		mustCall(t, app, "GET", fmt.Sprintf("/api/v1/plays?limit=%d", models.MaxPlayLimit), "", nil, 200)
		if got := len(decodeJSON[playList](t, mustCall(t, app, "GET", "/api/v1/plays", "", nil, 200)).Plays); got != 1 {
			t.Errorf("%d plays, want the one logged", got)
		}
	})
}

// TestInvisibleNamesAPI: a name that shows nothing is refused at its
// field; names that differ only by invisible characters or by how an
// accent is typed are one name at a table, in a logged play and in the
// group, on both databases.
func TestInvisibleNamesAPI(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		full, part := hotelJSON("blue", "bee:2", "ant:2", "fly:2"), hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")
		tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana"]}`)
		shows := "a name needs a letter or a sign that shows"
		runScenarios(t, app, []scenario{
			{name: "a seat named with a zero-width space", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta", "players": ["Ana", "\u200b"]}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/players/1"}, check: fieldDetailHas(shows)},
			{name: "a seat named with a Hangul filler", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta", "players": ["\u3164"]}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/players/0"}},
			{name: "Ana with a zero-width space beside Ana", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta", "players": ["Ana", "A\u200bna"]}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/players/1"}},
			{name: "joining as Ana with a BOM", method: "POST", path: "/api/v1/tables/" + tbl.Code + "/seats", body: `{"name": "\ufeffAna"}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/name"}},
			{name: "joining as only a word joiner", method: "POST", path: "/api/v1/tables/" + tbl.Code + "/seats", body: `{"name": "\u2060"}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/name"}, check: fieldDetailHas(shows)},
			{name: "a logged player who shows nothing", method: "POST", path: "/api/v1/plays",
				body:   playBody("insektenhotel", time.Time{}, time.Time{}, seat{"\u200b\u200c", full}, seat{"Ben", part}),
				status: 422, want: map[string]any{"/errors/0/pointer": "/players/0/name"}, check: fieldDetailHas(shows)},
			{name: "a group named with a zero-width space", method: "POST", path: "/api/v1/groups", body: `{"name": " \u200b "}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/name"}},
			{name: "Zoe with a combining diaeresis", method: "POST", path: "/api/v1/plays",
				body: playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Zoe\u0308", full}, seat{"A\u200bna", part}), status: 201,
				want: map[string]any{"/results/0/player": "Zoë", "/results/1/nameAsEntered": "A\u200bna"}},
			{name: "Zoë typed as one letter, and Ana", method: "POST", path: "/api/v1/plays",
				body: playBody("insektenhotel", time.Time{}, time.Time{}, seat{"Zoë", full}, seat{"Ana", part}), status: 201},
			{name: "one Zoë and one Ana", method: "GET", path: "/api/v1/groups/default/players", status: 200,
				check: func(t *testing.T, r response) {
					var got []string
					for _, p := range decodeJSON[struct{ Players []playerRef }](t, r).Players {
						got = append(got, p.Name)
					}
					if strings.Join(got, ",") != "A\u200bna,Zoë" {
						t.Errorf("players %+q, want A\\u200bna and Zoë", got)
					}
				}},
		})
		ana := playerIDOf(t, app, "default", "A\u200bna")
		runScenarios(t, app, []scenario{
			{name: "a rename to invisible characters", method: "PATCH", path: "/api/v1/players/" + ana, body: `{"name": "\u200b\u200d"}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/name"}},
			{name: "a rename to Zoë with a zero-width joiner", method: "PATCH", path: "/api/v1/players/" + ana, body: `{"name": "Zo\u200dë"}`,
				status: 409, check: func(t *testing.T, r response) {
					if p := decodeJSON[problem](t, r); p.MergeInto == "" {
						t.Errorf("no mergeInto: %s", r.body)
					}
				}},
			{name: "a rename to Ana", method: "PATCH", path: "/api/v1/players/" + ana, body: `{"name": "Ana"}`, status: 200,
				want: map[string]any{"/name": "Ana"}},
		})
	})
}

package api

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// hostileHistory is the export of a group with plays of every game,
// logged and finished at a table, with and without a start, for the
// import tests to spoil.
func hostileHistory(t *testing.T) (exported map[string]any, group string) {
	t.Helper()
	app, _, clk := newHistoryApp(t)
	g := makeGroup(t, app, "Hostile club")
	playedTable(t, app, clk, g.ID, "insectarium", day(1, 20, 0), day(1, 21, 0), seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(7)})
	clk.Set(day(20, 12, 0))
	logTestPlay(t, app, g.ID, `{"game": "insecta", "finishedAt": "2026-03-02T21:00:00Z", "startedAt": "2026-03-02T20:00:00Z", "players": `+insectaPlayers(t)+`}`)
	full, part := hotelJSON("blue", "bee:2", "ant:2", "fly:2"), hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")
	logTestPlay(t, app, g.ID, playBody("insektenhotel", time.Time{}, day(3, 21, 0), seat{"Cy", full}, seat{"ana", part}))
	logTestPlay(t, app, g.ID, playBody("insectarium", day(4, 20, 0), day(4, 21, 0), seat{"Ana", wildBoard(12)}))
	if err := json.Unmarshal(exportOf(t, app, g.ID), &exported); err != nil {
		t.Fatal(err)
	}
	return exported, g.ID
}

// pastYear9999 is the last second of the year 9999 at UTC-14: the year
// 10000 in UTC.
const pastYear9999 = "9999-12-31T23:59:59-14:00"

// respoil returns a copy of the whole file with fn applied.
func respoil(t *testing.T, f map[string]any, fn func(f map[string]any)) string {
	t.Helper()
	b, _ := json.Marshal(f)
	var c map[string]any
	json.Unmarshal(b, &c)
	fn(c)
	out, _ := json.Marshal(c)
	return string(out)
}

// spoil returns a copy of the file with fn applied.
func spoil(t *testing.T, f map[string]any, fn func(plays []any)) string {
	t.Helper()
	b, _ := json.Marshal(f)
	var c map[string]any
	json.Unmarshal(b, &c)
	fn(c["plays"].([]any))
	out, _ := json.Marshal(c)
	return string(out)
}

// TestImportHostileFiles: a file that lies about standings, ranks and
// totals, or leaves out when a play started, is imported with what the
// rules make of its boards, and every history answer about it matches the
// OpenAPI document; a file with an impossible play is refused with a
// pointer to it. On both databases.
func TestImportHostileFiles(t *testing.T) {
	file, group := hostileHistory(t)
	lying := spoil(t, file, func(plays []any) {
		for i, p := range plays {
			p := p.(map[string]any)
			p["standings"] = map[string]any{}
			switch i % 3 {
			case 0:
				delete(p, "startedAt")
			case 1:
				p["startedAt"] = "0001-01-01T00:00:00Z"
			case 2:
				p["startedAt"] = nil
			}
			for _, pp := range p["players"].([]any) {
				pp := pp.(map[string]any)
				pp["rank"], pp["total"], pp["winner"], pp["breakdown"] = 0, -40, true, []any{}
			}
		}
	})
	refused := []struct {
		name, file, pointer string
	}{
		{"five players", spoil(t, file, func(plays []any) {
			p := plays[0].(map[string]any)
			ps := p["players"].([]any)
			p["players"] = append(ps, ps[0], ps[1], ps[0])
		}), "/plays/0/players"},
		{"Insecta for one", spoil(t, file, func(plays []any) {
			for _, p := range plays {
				if p := p.(map[string]any); p["game"] == "insecta" {
					p["players"] = p["players"].([]any)[:1]
				}
			}
		}), "/plays/1/players"},
		{"an unknown game", spoil(t, file, func(plays []any) { plays[2].(map[string]any)["game"] = "chess" }), "/plays/2/game"},
		{"a board that does not score", spoil(t, file, func(plays []any) {
			plays[0].(map[string]any)["players"].([]any)[1].(map[string]any)["board"] = map[string]any{"supply": 99}
		}), "/plays/0/players/1/board/supply"},
		{"boards of a game not over", spoil(t, file, func(plays []any) {
			plays[0].(map[string]any)["players"].([]any)[1].(map[string]any)["board"] = map[string]any{"supply": 2}
		}), "/plays/0/players"},
		// Past the year 9999 once in UTC: a 500 at b927086, with the group
		// saved anyway and every later read of it a 500 on PostgreSQL.
		{"a finish past the year 9999", spoil(t, file, func(plays []any) {
			plays[0].(map[string]any)["finishedAt"] = pastYear9999
		}), "/plays/0/finishedAt"},
		{"a start past the year 9999", spoil(t, file, func(plays []any) {
			plays[0].(map[string]any)["startedAt"] = pastYear9999
		}), "/plays/0/startedAt"},
		{"a group made past the year 9999", respoil(t, file, func(f map[string]any) {
			f["group"].(map[string]any)["createdAt"] = pastYear9999
		}), "/group/createdAt"},
		{"a player made past the year 9999", respoil(t, file, func(f map[string]any) {
			f["players"].([]any)[0].(map[string]any)["createdAt"] = pastYear9999
		}), "/players/0/createdAt"},
	}
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		for _, tt := range refused {
			runScenarios(t, app, []scenario{{name: tt.name, method: "POST", path: "/api/v1/groups/import", body: tt.file, status: 422,
				want: map[string]any{"/errors/0/pointer": tt.pointer}}})
		}
		mustCall(t, app, "GET", "/api/v1/groups/"+group, "", nil, 404)
		mustCall(t, app, "POST", "/api/v1/groups/import", lying, nil, 201)
		checkHistory(t, app, group)
	})
}

// checkHistory reads every history answer about group, each checked
// against the OpenAPI document by call, and wants ranks from 1 and
// unknown starts served as null.
func checkHistory(t *testing.T, app *fiber.App, group string) {
	t.Helper()
	q := "?group=" + url.QueryEscape(group)
	list := decodeJSON[playList](t, mustCall(t, app, "GET", "/api/v1/plays"+q, "", nil, 200))
	if len(list.Plays) != 4 {
		t.Fatalf("%d plays, want 4", len(list.Plays))
	}
	players := map[string]bool{}
	unknown := 0
	for _, p := range list.Plays {
		r := mustCall(t, app, "GET", "/api/v1/plays/"+p.ID+q, "", nil, 200)
		d := decodeJSON[struct {
			StartedAt       *time.Time
			DurationSeconds *int64
			Results         []playResult
			Standings       struct {
				Results []struct{ Rank, Total int }
			}
		}](t, r)
		if (d.StartedAt == nil) != (d.DurationSeconds == nil) {
			t.Errorf("play %s: startedAt %v, durationSeconds %v", p.ID, d.StartedAt, d.DurationSeconds)
		}
		if d.StartedAt == nil {
			unknown++
		}
		if len(d.Standings.Results) != len(d.Results) {
			t.Errorf("play %s: %d standings for %d players", p.ID, len(d.Standings.Results), len(d.Results))
		}
		for i, res := range d.Results {
			players[res.PlayerID] = true
			if res.Rank < 1 || res.Total < 0 || res.Total != d.Standings.Results[i].Total {
				t.Errorf("play %s: result %+v, standings %+v", p.ID, res, d.Standings.Results[i])
			}
		}
	}
	if unknown != 4 {
		t.Errorf("%d plays of unknown start, want all 4", unknown)
	}
	for id := range players {
		mustCall(t, app, "GET", "/api/v1/players/"+id+q, "", nil, 200)
	}
	for _, game := range []string{"insecta", "insectarium", "insektenhotel"} {
		mustCall(t, app, "GET", "/api/v1/leaderboards/"+game+q, "", nil, 200)
	}
	mustCall(t, app, "GET", "/api/v1/groups/"+group+"/players", "", nil, 200)
	mustCall(t, app, "GET", "/api/v1/groups/"+group+"/plays.csv", "", nil, 200)
	exportOf(t, app, group)
}

// TestImportAnotherGroupsIDs: a file whose players and plays are already
// here under another group (imported before, its group id changed since)
// is a 409 that says so, not "the seat is claimed or the name is taken".
func TestImportAnotherGroupsIDs(t *testing.T) {
	file, group := hostileHistory(t)
	b, _ := json.Marshal(file)
	renamed := strings.ReplaceAll(string(b), `"id":"`+group+`"`, `"id":"othergroup"`)
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		mustCall(t, app, "POST", "/api/v1/groups/import", string(b), nil, 201)
		runScenarios(t, app, []scenario{
			{name: "the same file under another group id", method: "POST", path: "/api/v1/groups/import", body: renamed, status: 409,
				check: both(detailHas("belongs to another group on this server"), lacks("mergeInto"))},
			{name: "and the same file again", method: "POST", path: "/api/v1/groups/import", body: string(b), status: 409,
				check: detailHas("already on this server with its own history")},
		})
		mustCall(t, app, "GET", "/api/v1/groups/othergroup", "", nil, 404)
	})
}

// TestPlayerCounts: every play recorded has its game's number of
// players: logged, edited, finished at a table or imported, on both
// databases.
func TestPlayerCounts(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		full, part := hotelJSON("blue", "bee:2", "ant:2", "fly:2"), hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")
		five := []seat{{"Ana", full}, {"Ben", part}, {"Cy", part}, {"Dan", part}, {"Eve", part}}
		id := logTestPlay(t, app, "default", playBody("insektenhotel", time.Time{}, time.Time{}, five[:2]...))
		one := startTable(t, app, `{"game": "insecta", "players": ["Ana"]}`)
		putTestBoard(t, app, one.Code, 0, one.HostToken, `{"totals": {"track": 3}}`)
		runScenarios(t, app, []scenario{
			{name: "logged with five", method: "POST", path: "/api/v1/plays", body: playBody("insektenhotel", time.Time{}, time.Time{}, five...),
				status: 422, want: map[string]any{"/errors/0/pointer": "/players"}},
			{name: "logged alone", method: "POST", path: "/api/v1/plays", body: playBody("insektenhotel", time.Time{}, time.Time{}, five[0]),
				status: 422, want: map[string]any{"/errors/0/pointer": "/players"}},
			{name: "edited to five", method: "PUT", path: "/api/v1/plays/" + id, body: playBody("insektenhotel", time.Time{}, time.Time{}, five...),
				status: 422, want: map[string]any{"/errors/0/pointer": "/players"}},
			{name: "a table of one finished", method: "POST", path: "/api/v1/tables/" + one.Code + "/finish", header: bearer(one.HostToken),
				status: 422, check: detailHas("needs at least 2 players")},
			{name: "a table of five", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta", "players": ["A", "B", "C", "D", "E"]}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/players"}},
		})
		p := decodeJSON[struct{ Results []playResult }](t, mustCall(t, app, "GET", "/api/v1/plays/"+id, "", nil, 200))
		if len(p.Results) != 2 {
			t.Errorf("the play has %d players after refused edits, want 2", len(p.Results))
		}
	})
}

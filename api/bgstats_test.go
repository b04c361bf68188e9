package api

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"insectscore/models"
)

// playWithLink is the part of a play's JSON these tests read.
type playWithLink struct {
	ID      string `json:"id"`
	Results []struct {
		PlayerID string `json:"playerId"`
	} `json:"results"`
	Notes       string `json:"notes"`
	Location    string `json:"location"`
	StartPlayer *int   `json:"startPlayer"`
	Links       struct {
		BGStats string `json:"bgStats"`
	} `json:"links"`
}

// decodeBGStats takes a createPlay link apart: the page, and its data
// parameter as JSON. The data must read the same whether the page decodes
// it as a query (URLSearchParams) or with decodeURIComponent, so it may
// hold no "+".
func decodeBGStats(t *testing.T, link string) map[string]any {
	t.Helper()
	const page = "https://app.bgstatsapp.com/createPlay.html?data="
	if !strings.HasPrefix(link, page) {
		t.Fatalf("link %q is not BG Stats' createPlay page", link)
	}
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	if len(u.Query()) != 1 {
		t.Errorf("link has the parameters %v, want data alone", u.Query())
	}
	data := u.Query().Get("data")
	raw, err := url.PathUnescape(strings.TrimPrefix(link, page))
	if err != nil || raw != data {
		t.Errorf("data decodes as %q with decodeURIComponent, %q as a query (%v)", raw, data, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(data), &out); err != nil {
		t.Fatalf("data is not JSON: %v: %s", err, data)
	}
	return out
}

// TestBGStatsLink: every answer that carries a play carries its createPlay
// link, and the link's JSON is the play, field by field, as BG Stats
// documents it.
func TestBGStatsLink(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		started, finished := day(14, 19, 30), day(14, 20, 57).Add(40e9) // 87 min 40 s: 88 minutes
		body := strings.TrimSuffix(playBody("insectarium", started, finished,
			seat{"Ana & Bo", wildBoard(10)}, seat{"Ben+1 ü", wildBoard(12)}), "}") +
			`, "notes": "  Close one.\nRematch soon? 100% yes  ", "location": " Café \"Zum Käfer\" ", "startPlayer": 1}`
		r := mustCall(t, app, "POST", "/api/v1/plays", body, nil, 201)
		logged := decodeJSON[playWithLink](t, r)
		if logged.Notes != "Close one.\nRematch soon? 100% yes" || logged.Location != `Café "Zum Käfer"` || logged.StartPlayer == nil || *logged.StartPlayer != 1 {
			t.Errorf("logged notes %q, location %q, start %v", logged.Notes, logged.Location, logged.StartPlayer)
		}
		ana, ben := logged.Results[0].PlayerID, logged.Results[1].PlayerID
		want := map[string]any{
			"sourceName":   "insectscore",
			"sourcePlayId": logged.ID,
			"playDate":     "2026-03-14 19:30:00",
			"durationMin":  88.0,
			"location":     `Café "Zum Käfer"`,
			"comments":     "Close one.\nRematch soon? 100% yes",
			"game": map[string]any{
				"name": "Insectarium", "sourceGameId": "insectarium", "highestWins": true, "noPoints": false,
			},
			"players": []any{
				map[string]any{"name": "Ana & Bo", "sourcePlayerId": ana, "score": 10.0, "rank": 2.0, "winner": false, "startPlayer": false},
				map[string]any{"name": "Ben+1 ü", "sourcePlayerId": ben, "score": 12.0, "rank": 1.0, "winner": true, "startPlayer": true},
			},
		}
		compareBGStats(t, "the logged play", decodeBGStats(t, logged.Links.BGStats), want)

		got := decodeJSON[playWithLink](t, mustCall(t, app, "GET", "/api/v1/plays/"+logged.ID, "", nil, 200))
		if got.Links.BGStats != logged.Links.BGStats {
			t.Errorf("GET the play: link\n%s\nwant\n%s", got.Links.BGStats, logged.Links.BGStats)
		}
		list := decodeJSON[struct{ Plays []playWithLink }](t, mustCall(t, app, "GET", "/api/v1/plays", "", nil, 200))
		if len(list.Plays) != 1 || list.Plays[0].Links.BGStats != logged.Links.BGStats {
			t.Errorf("the list's link differs from the play's: %+v", list.Plays)
		}

		// An edit: a play of no points, start unknown, no notes.
		hotel := playBody("insektenhotel", time.Time{}, finished,
			seat{"Ana & Bo", hotelJSON("blue", "bee:2", "ant:2", "fly:2")}, seat{"Cy", hotelJSON("red", "ladybird:1", "butterfly:2", "earwig:0")})
		hotel = strings.TrimSuffix(hotel, "}") + `, "startPlayer": 0}`
		edited := decodeJSON[playWithLink](t, mustCall(t, app, "PUT", "/api/v1/plays/"+logged.ID, hotel, nil, 200))
		cy := edited.Results[1].PlayerID
		want = map[string]any{
			"sourceName":   "insectscore",
			"sourcePlayId": logged.ID,
			"playDate":     "2026-03-14 20:57:40",
			"game": map[string]any{
				"name": "Insektenhotel", "sourceGameId": "insektenhotel", "highestWins": true, "noPoints": true,
			},
			"players": []any{
				map[string]any{"name": "Ana & Bo", "sourcePlayerId": ana, "score": 6.0, "rank": 1.0, "winner": true, "startPlayer": true},
				map[string]any{"name": "Cy", "sourcePlayerId": cy, "score": 3.0, "rank": 2.0, "winner": false, "startPlayer": false},
			},
		}
		compareBGStats(t, "the edited play", decodeBGStats(t, edited.Links.BGStats), want)
		if edited.Notes != "" || edited.Location != "" {
			t.Errorf("an edit without notes kept %q, %q", edited.Notes, edited.Location)
		}
	})
}

// compareBGStats compares the createPlay JSON with want, field by field.
func compareBGStats(t *testing.T, what string, got, want map[string]any) {
	t.Helper()
	for k, w := range want {
		if g, ok := got[k]; !ok || !reflect.DeepEqual(g, w) {
			t.Errorf("%s: %s = %#v, want %#v", what, k, g, w)
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: %s = %#v, want no such field", what, k, g)
		}
	}
}

// TestPlayNotesAPI: notes, location and start player are checked at their
// fields, and the history filters by location a page at a time.
func TestPlayNotesAPI(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		two := func(extra string) string {
			b := playBody("insectarium", day(14, 19, 0), day(14, 20, 0), seat{"Ana", wildBoard(10)}, seat{"Ben", wildBoard(12)})
			return strings.TrimSuffix(b, "}") + ", " + extra + "}"
		}
		var atHome []string
		for i, place := range []string{"Home", "Club", "home", "  HOME ", "Club"} {
			b := playBody("insectarium", day(14, 10+i, 0), day(14, 11+i, 0), seat{"Ana", wildBoard(10)}, seat{"Ben", wildBoard(12)})
			id := logTestPlay(t, app, "default", strings.TrimSuffix(b, "}")+fmt.Sprintf(`, "location": %q}`, place))
			if strings.EqualFold(strings.TrimSpace(place), "home") {
				atHome = append([]string{id}, atHome...)
			}
		}
		runScenarios(t, app, []scenario{
			{name: "notes too long", method: "POST", path: "/api/v1/plays", body: two(fmt.Sprintf(`"notes": %q`, strings.Repeat("n", 2001))), status: 422,
				want: map[string]any{"/errors/0/pointer": "/notes"}, check: fieldDetailHas("at most 2000")},
			{name: "a location too long", method: "POST", path: "/api/v1/plays", body: two(fmt.Sprintf(`"location": %q`, strings.Repeat("l", 81))), status: 422,
				want: map[string]any{"/errors/0/pointer": "/location"}},
			{name: "a location on two lines", method: "POST", path: "/api/v1/plays", body: two(`"location": "a\nb"`), status: 422,
				want: map[string]any{"/errors/0/pointer": "/location"}},
			{name: "a start player not at the table", method: "POST", path: "/api/v1/plays", body: two(`"startPlayer": 2`), status: 422,
				want: map[string]any{"/errors/0/pointer": "/startPlayer"}, check: fieldDetailHas("0 to 1, not 2")},
			{name: "everything wrong at once", method: "PUT", path: "/api/v1/plays/" + atHome[0],
				body: two(fmt.Sprintf(`"notes": %q, "startPlayer": -1`, strings.Repeat("é", 2001))), status: 422,
				want: map[string]any{"/errors/0/pointer": "/notes", "/errors/1/pointer": "/startPlayer"}},
			{name: "the longest that can be kept", method: "POST", path: "/api/v1/plays",
				body: two(fmt.Sprintf(`"notes": %q, "location": %q, "startPlayer": null`, strings.Repeat("é", 2000), strings.Repeat("l", 80))), status: 201},
			{name: "a location filter too long", method: "GET", path: "/api/v1/plays?location=" + strings.Repeat("l", 81), status: 400},
		})
		var got []string
		path := "/api/v1/plays?limit=2&location=" + url.QueryEscape(" hOmE")
		for pages := 0; path != ""; pages++ {
			if pages > 3 {
				t.Fatal("the pages do not end")
			}
			page := decodeJSON[struct {
				Plays []playWithLink
				Next  *string
			}](t, mustCall(t, app, "GET", path, "", nil, 200))
			for _, p := range page.Plays {
				got = append(got, p.ID)
				if !strings.EqualFold(p.Location, "home") {
					t.Errorf("the filter listed a play at %q", p.Location)
				}
			}
			path = ""
			if page.Next != nil {
				path = "/api/v1/plays?limit=2&location=home&cursor=" + url.QueryEscape(*page.Next)
			}
		}
		if strings.Join(got, " ") != strings.Join(atHome, " ") {
			t.Errorf("plays at home %v, want %v", got, atHome)
		}
	})
}

// TestImportFormat1API: the import route reads a file of export format 1
// (written by the insectscore before format 2); its plays have no notes,
// location or start player, and links to BG Stats like any other.
func TestImportFormat1API(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		app, _ := newClockApp(t, store, Config{})
		data, err := os.ReadFile(filepath.Join("..", "models", "testdata", "group-format1.json"))
		if err != nil {
			t.Fatal(err)
		}
		g := decodeJSON[struct{ ID string }](t, mustCall(t, app, "POST", "/api/v1/groups/import", string(data), nil, 201))
		list := decodeJSON[struct{ Plays []playWithLink }](t, mustCall(t, app, "GET", "/api/v1/plays?group="+g.ID, "", nil, 200))
		if len(list.Plays) != 2 {
			t.Fatalf("%d plays, want 2", len(list.Plays))
		}
		for _, p := range list.Plays {
			if p.Notes != "" || p.Location != "" || p.StartPlayer != nil {
				t.Errorf("play %s: notes %q, location %q, start %v", p.ID, p.Notes, p.Location, p.StartPlayer)
			}
			if d := decodeBGStats(t, p.Links.BGStats); d["sourcePlayId"] != p.ID {
				t.Errorf("play %s links to %v", p.ID, d)
			}
		}
		exported := mustCall(t, app, "GET", "/api/v1/groups/"+g.ID+"/export", "", nil, 200)
		if !strings.Contains(string(exported.body), `"formatVersion": 2,`) {
			t.Errorf("the export is not of format 2:\n%s", exported.body)
		}
	})
}

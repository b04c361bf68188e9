package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Groups: made, found by their invite link and QR code, kept apart, and
// moved between servers by export and import.

// groupIDPattern is a new group's id: 160 random bits in lower-case base32.
var groupIDPattern = regexp.MustCompile(`^[a-z2-7]{32}$`)

// makeGroup creates a group through the API.
func makeGroup(t testing.TB, app *fiber.App, name string) groupView {
	t.Helper()
	return decodeJSON[groupView](t, mustCall(t, app, "POST", "/api/v1/groups", fmt.Sprintf(`{"name": %q}`, name), nil, 201))
}

func TestGroups(t *testing.T) {
	app, _, clk := newHistoryApp(t)
	local := map[string]string{"Host": "localhost:8080"}
	var g groupView
	runScenarios(t, app, []scenario{
		{name: "a new group", method: "POST", path: "/api/v1/groups", body: `{"name": " Friday club "}`, header: local, status: 201,
			want: map[string]any{"/name": "Friday club", "/createdAt": "2026-03-20T12:00:00Z"},
			check: func(t *testing.T, r response) {
				g = decodeJSON[groupView](t, r)
				if !groupIDPattern.MatchString(g.ID) {
					t.Errorf("id %q is not 32 characters of base32", g.ID)
				}
				if want := "http://192.168.1.23:8080/g/" + g.ID; g.InviteURL != want {
					t.Errorf("inviteUrl %q, want %q", g.InviteURL, want)
				}
				if got, want := r.header.Get("Location"), "/api/v1/groups/"+g.ID; got != want {
					t.Errorf("Location %q, want %q", got, want)
				}
			}},
		{name: "no name", method: "POST", path: "/api/v1/groups", body: `{"name": "  "}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/name"}},
		{name: "a name too long", method: "POST", path: "/api/v1/groups", body: `{"name": "` + strings.Repeat("é", 61) + `"}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/name"}},
		{name: "an unknown field", method: "POST", path: "/api/v1/groups", body: `{"name": "A", "owner": "me"}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/owner"}},
		{name: "malformed JSON", method: "POST", path: "/api/v1/groups", body: `{"name": `, status: 400},
	})
	runScenarios(t, app, []scenario{
		{name: "the group by its id", method: "GET", path: "/api/v1/groups/" + g.ID, header: local, status: 200,
			want: map[string]any{"": map[string]any{"id": g.ID, "name": "Friday club", "createdAt": "2026-03-20T12:00:00Z", "inviteUrl": g.InviteURL}}},
		{name: "an id read aloud in capitals", method: "GET", path: "/api/v1/groups/" + strings.ToUpper(g.ID), status: 200,
			want: map[string]any{"/id": g.ID}},
		{name: "the default group", method: "GET", path: "/api/v1/groups/default", status: 200,
			want: map[string]any{"/id": "default", "/name": "Our group"}},
		{name: "an unknown group", method: "GET", path: "/api/v1/groups/nosuchgroup", status: 404,
			wantHeader: map[string]string{"Content-Type": "application/problem+json"}, check: detailHas("invite link")},
		{name: "an unknown group's QR code", method: "GET", path: "/api/v1/groups/nosuchgroup/qr.svg", status: 404},
		{name: "an unknown group's players", method: "GET", path: "/api/v1/groups/nosuchgroup/players", status: 404},
		{name: "an unknown group's export", method: "GET", path: "/api/v1/groups/nosuchgroup/export", status: 404},
		{name: "an unknown group's CSV", method: "GET", path: "/api/v1/groups/nosuchgroup/plays.csv", status: 404},
		{name: "an unknown group's plays", method: "GET", path: "/api/v1/plays?group=nosuchgroup", status: 404, check: detailHas("no group")},
		{name: "an unknown group's leaderboard", method: "GET", path: "/api/v1/leaderboards/insecta?group=nosuchgroup", status: 404},
		{name: "a new group has no players", method: "GET", path: "/api/v1/groups/" + g.ID + "/players", status: 200,
			want: map[string]any{"/players": []any{}}},
	})

	t.Run("QR codes", func(t *testing.T) {
		r := mustCall(t, app, "GET", "/api/v1/groups/"+g.ID+"/qr.png", "", local, 200)
		img, err := png.Decode(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		if got := decodeQR(t, img); got != g.InviteURL {
			t.Errorf("qr.png reads %q, want %q", got, g.InviteURL)
		}
		r = mustCall(t, app, "GET", "/api/v1/groups/"+g.ID+"/qr.svg", "", local, 200)
		if got := r.header.Get("Content-Type"); got != "image/svg+xml" {
			t.Errorf("Content-Type %q", got)
		}
		if got := decodeQR(t, rasterSVG(t, string(r.body), 8)); got != g.InviteURL {
			t.Errorf("qr.svg reads %q, want %q", got, g.InviteURL)
		}
	})

	// A table and a logged play of the group stay in the group.
	tablePlay, _ := playedTable(t, app, clk, g.ID, "insectarium", day(1, 20, 0), day(1, 21, 0),
		seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(7)})
	clk.Set(day(20, 12, 0))
	logged := logTestPlay(t, app, g.ID, playBody("insectarium", time.Time{}, day(2, 21, 0), seat{"Ana", wildBoard(9)}, seat{"Zoe", wildBoard(1)}))
	logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(3, 21, 0), seat{"Ana", wildBoard(2)}, seat{"Ben", wildBoard(3)}))
	q := "?group=" + g.ID
	runScenarios(t, app, []scenario{
		{name: "the group's plays", method: "GET", path: "/api/v1/plays" + q, status: 200,
			want: map[string]any{"/plays/0/id": logged, "/plays/1/id": tablePlay}, check: countPlays(2)},
		{name: "the default group's plays", method: "GET", path: "/api/v1/plays", status: 200, check: func(t *testing.T, r response) {
			for _, p := range decodeJSON[playList](t, r).Plays {
				if p.ID == logged || p.ID == tablePlay {
					t.Errorf("play %s of the group is in the default group's list", p.ID)
				}
			}
		}, want: map[string]any{"/plays/0/results/0/player": "Ana"}},
		{name: "a group's play outside the group", method: "GET", path: "/api/v1/plays/" + logged, status: 404},
		{name: "a group's play cannot be deleted from outside", method: "DELETE", path: "/api/v1/plays/" + logged, status: 404},
		{name: "a group's play in the group", method: "GET", path: "/api/v1/plays/" + logged + q, status: 200,
			want: map[string]any{"/results/1/player": "Zoe"}},
		{name: "the group's leaderboard", method: "GET", path: "/api/v1/leaderboards/insectarium" + q, status: 200,
			want: map[string]any{"/entries/0/player": "Ana", "/entries/0/plays": 2}},
		{name: "the default group's leaderboard", method: "GET", path: "/api/v1/leaderboards/insectarium", status: 200,
			want: map[string]any{"/entries/0/plays": 1, "/entries/1/plays": 1}, check: func(t *testing.T, r response) {
				if len(decodeJSON[leaderboard](t, r).Entries) != 2 {
					t.Errorf("entries %s, want Ana and Ben of the default group only", r.body)
				}
			}},
		{name: "the group's players", method: "GET", path: "/api/v1/groups/" + g.ID + "/players", status: 200,
			want: map[string]any{"/players/0/name": "Ana", "/players/1/name": "Ben", "/players/2/name": "Zoe"}},
		{name: "a player of the group outside it", method: "GET", path: "/api/v1/players/" + playerIDOf(t, app, g.ID, "Zoe"), status: 404},
	})
}

// TestGroupGuessLimit: failed group lookups count towards the guess limit.
func TestGroupGuessLimit(t *testing.T) {
	app := newTestApp(t)
	for i := range 30 {
		mustCall(t, app, "GET", "/api/v1/groups/default", "", nil, 200)
		mustCall(t, app, "GET", fmt.Sprintf("/api/v1/groups/guess%02d/players", i), "", nil, 404)
	}
	runScenarios(t, app, []scenario{
		{name: "the 31st failure", method: "GET", path: "/api/v1/groups/guess99", status: 429, check: detailHas("group link")},
		{name: "and the QR code of a guess", method: "GET", path: "/api/v1/groups/guess99/qr.svg", status: 429},
	})
}

// exportOf downloads a group's export and checks its headers.
func exportOf(t *testing.T, app *fiber.App, group string) []byte {
	t.Helper()
	r := mustCall(t, app, "GET", "/api/v1/groups/"+group+"/export", "", nil, 200)
	if got, want := r.header.Get("Content-Disposition"), `attachment; filename="insectscore-`+group+`.json"`; got != want {
		t.Errorf("Content-Disposition %q, want %q", got, want)
	}
	if got := r.header.Get("Content-Type"); got != "application/json" {
		t.Errorf("Content-Type %q", got)
	}
	return r.body
}

// TestExportImport moves a group to a fresh server and back out again,
// byte for byte, with its leaderboards and player pages.
func TestExportImport(t *testing.T) {
	app, _, clk := newHistoryApp(t)
	g := makeGroup(t, app, "Friday club")
	q := "?group=" + g.ID
	play1, _ := playedTable(t, app, clk, g.ID, "insectarium", day(1, 20, 0), day(1, 21, 0),
		seat{"Ana", wildBoard(5)}, seat{"Ben <&>", wildBoard(7)})
	clk.Set(day(20, 12, 0))
	logTestPlay(t, app, g.ID, `{"game": "insecta", "variants": {"oneFragment": 1}, "finishedAt": "2026-03-02T21:00:00Z", `+
		`"startedAt": "2026-03-02T20:00:00.123456Z", "players": `+insectaPlayers(t)+`}`)
	play3 := logTestPlay(t, app, g.ID, playBody("insektenhotel", time.Time{}, day(3, 21, 0),
		seat{"ana", hotelJSON("blue", "bee:2", "ant:2", "fly:2")}, seat{"Cy", hotelJSON("red", "ladybird:1", "butterfly:0", "earwig:2")}))
	cy := playerIDOf(t, app, g.ID, "Cy")
	mustCall(t, app, "PATCH", "/api/v1/players/"+cy+q, `{"name": "=Cy"}`, nil, 200)
	exported := exportOf(t, app, g.ID)

	fresh, _, _ := newHistoryApp(t)
	runScenarios(t, fresh, []scenario{
		{name: "import", method: "POST", path: "/api/v1/groups/import", body: string(exported), status: 201,
			header: map[string]string{"Host": "scores.example.org"},
			want: map[string]any{"": map[string]any{"id": g.ID, "name": "Friday club", "createdAt": g.CreatedAt.Format(time.RFC3339Nano),
				"inviteUrl": "http://scores.example.org/g/" + g.ID}},
			wantHeader: map[string]string{"Location": "/api/v1/groups/" + g.ID}},
		{name: "the same group again", method: "POST", path: "/api/v1/groups/import", body: string(exported), status: 409,
			check: both(detailHas("already"), lacks("mergeInto"))},
	})
	if again := exportOf(t, fresh, g.ID); !bytes.Equal(again, exported) {
		t.Errorf("the export of the import differs:\n%s\nwant\n%s", again, exported)
	}
	for _, path := range []string{"/api/v1/leaderboards/insectarium" + q, "/api/v1/leaderboards/insecta" + q,
		"/api/v1/leaderboards/insektenhotel" + q, "/api/v1/plays" + q, "/api/v1/plays/" + play1 + q, "/api/v1/plays/" + play3 + q,
		"/api/v1/players/" + cy + q} {
		want := mustCall(t, app, "GET", path, "", nil, 200).body
		got := mustCall(t, fresh, "GET", path, "", nil, 200).body
		if path == "/api/v1/plays/"+play1+q { // the table is only on the first server
			want = regexp.MustCompile(`,"tableCode":"\w+"`).ReplaceAll(want, nil)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s after the import:\n%s\nwant\n%s", path, got, want)
		}
	}

	newer := bytes.Replace(exported, []byte(`"formatVersion": 2`), []byte(`"formatVersion": 3`), 1)
	runScenarios(t, newHistoryAppOnly(t), []scenario{
		{name: "a newer format", method: "POST", path: "/api/v1/groups/import", body: string(newer), status: 422,
			check: detailHas("written by a newer insectscore (format 3)")},
		{name: "not an export", method: "POST", path: "/api/v1/groups/import", body: `{"players": []}`, status: 422,
			check: detailHas("not an insectscore group export")},
		{name: "not JSON", method: "POST", path: "/api/v1/groups/import", body: `{"format": `, status: 400},
		{name: "no body", method: "POST", path: "/api/v1/groups/import", status: 400},
		{name: "a broken play", method: "POST", path: "/api/v1/groups/import", status: 422,
			body: strings.Replace(string(exported), `"game": "insecta"`, `"game": "chess"`, 1), check: detailHas(`the game "chess"`)},
	})
}

// newHistoryAppOnly is newHistoryApp for tests that need the app alone.
func newHistoryAppOnly(t *testing.T) *fiber.App {
	app, _, _ := newHistoryApp(t)
	return app
}

// insectaPlayers is the players of the Insecta rulebook example.
func insectaPlayers(t *testing.T) string {
	var example struct {
		Players json.RawMessage `json:"players"`
	}
	if err := json.Unmarshal([]byte(readTestdata(t, "insecta-example.json")), &example); err != nil {
		t.Fatal(err)
	}
	return string(example.Players)
}

// TestImportIntoDefault: a self-hosted server's default group moves whole
// into a fresh server's empty default group.
func TestImportIntoDefault(t *testing.T) {
	app, _, _ := newHistoryApp(t)
	logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(1, 21, 0), seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(7)}))
	exported := exportOf(t, app, "default")
	fresh := newHistoryAppOnly(t)
	mustCall(t, fresh, "POST", "/api/v1/groups/import", string(exported), nil, 201)
	if again := exportOf(t, fresh, "default"); !bytes.Equal(again, exported) {
		t.Errorf("the export of the import differs:\n%s\nwant\n%s", again, exported)
	}
	runScenarios(t, fresh, []scenario{
		{name: "the default group has a history now", method: "POST", path: "/api/v1/groups/import", body: string(exported), status: 409},
	})
}

// TestPlaysCSV: a row per player per play, oldest play first, names safe
// from spreadsheet formulas.
func TestPlaysCSV(t *testing.T) {
	app, _, clk := newHistoryApp(t)
	g := makeGroup(t, app, "Club")
	play1, _ := playedTable(t, app, clk, g.ID, "insectarium", day(1, 20, 0), day(1, 21, 0),
		seat{"Ana", wildBoard(5)}, seat{"=Ben", wildBoard(5)})
	clk.Set(day(20, 12, 0))
	play2 := logTestPlay(t, app, g.ID, playBody("insektenhotel", time.Time{}, day(2, 21, 30),
		seat{"Cy, Jr.", hotelJSON("red", "ladybird:1", "butterfly:0", "earwig:2")}, seat{"ana", hotelJSON("blue", "bee:2", "ant:2", "fly:2")}))
	r := mustCall(t, app, "GET", "/api/v1/groups/"+g.ID+"/plays.csv", "", nil, 200)
	for k, v := range map[string]string{
		"Content-Type":        "text/csv; charset=utf-8",
		"Content-Disposition": `attachment; filename="insectscore-` + g.ID + `-plays.csv"`,
	} {
		if got := r.header.Get(k); got != v {
			t.Errorf("%s %q, want %q", k, got, v)
		}
	}
	want := strings.Join([]string{
		"play_id,finished_at,game,player,total,rank,winner,location,notes,start_player",
		play1 + ",2026-03-01T21:00:00Z,insectarium,Ana,5,1,true,,,",
		play1 + ",2026-03-01T21:00:00Z,insectarium,'=Ben,5,1,true,,,",
		play2 + `,2026-03-02T21:30:00Z,insektenhotel,"Cy, Jr.",3,2,false,,,`,
		play2 + ",2026-03-02T21:30:00Z,insektenhotel,Ana,6,1,true,,,",
		"",
	}, "\n")
	if string(r.body) != want {
		t.Errorf("plays.csv:\n%s\nwant\n%s", r.body, want)
	}
}

// TestImportBodyLimit: the import takes bodies far over the 64 KiB every
// other route keeps to, up to its own 16 MiB. The limits hold while
// reading from the connection, so this needs a real listener.
func TestImportBodyLimit(t *testing.T) {
	app, _, _ := newHistoryApp(t)
	logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(1, 21, 0), seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(7)}))
	exported := exportOf(t, app, "default")
	base := serve(t, newHistoryAppOnly(t))
	post := func(path string, body []byte) response {
		t.Helper()
		resp, err := http.Post(base+path, "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		r := response{status: resp.StatusCode, header: resp.Header, body: b}
		checkOpenAPI(t, "POST", path, r)
		return r
	}
	padded := append(bytes.Repeat([]byte(" "), 2*BodyLimit), exported...)
	tests := []struct {
		name, path string
		body       []byte
		status     int
	}{
		{"an export over 64 KiB", "/api/v1/groups/import", padded, 201},
		{"a play over 64 KiB", "/api/v1/plays", append(bytes.Repeat([]byte(" "), BodyLimit), `{"game": "insecta", "players": []}`...), 413},
		{"a group over 64 KiB", "/api/v1/groups", padded, 413},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := post(tt.path, tt.body)
			if r.status != tt.status {
				t.Fatalf("status %d, want %d: %.300s", r.status, tt.status, r.body)
			}
			if got := r.header.Get("Content-Type"); tt.status == 413 && got != "application/problem+json" {
				t.Errorf("Content-Type %q", got)
			}
		})
	}
}

// TestImportOver16MiB: a body over the import's limit is refused as soon
// as its length is known, before it is read. The request is written by
// hand: a client still sending 16 MiB would see the connection close
// rather than the answer.
func TestImportOver16MiB(t *testing.T) {
	base := serve(t, newHistoryAppOnly(t))
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/groups/import HTTP/1.1\r\nHost: insectscore\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n{", ImportBodyLimit+1)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	want413(t, "POST", "/api/v1/groups/import", resp)
}

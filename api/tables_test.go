package api

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// The table API: a live table session from start to finish, with every
// role's rights. Scenarios run in order on one table, so each table of
// scenarios starts where the one before it ended.

// codePattern is a table code: six characters without look-alikes.
var codePattern = regexp.MustCompile(`^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$`)

// minTokenLen is 128 random bits or more, base64url-encoded.
const minTokenLen = 43

// neverHeard is the sync state of a seat whose phone never reported.
var neverHeard = map[string]any{"state": "saved", "unsent": 0, "unsentSince": nil, "lastSeenAt": nil}

// bearer is the Authorization header of token.
func bearer(token string) map[string]string {
	return map[string]string{"Authorization": "Bearer " + token}
}

// withHeader returns h with k set to v, leaving h unchanged.
func withHeader(h map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for hk, hv := range h {
		out[hk] = hv
	}
	return out
}

// decodeJSON decodes a response body.
func decodeJSON[T any](t testing.TB, r response) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(r.body, &v); err != nil {
		t.Fatalf("decode %T: %v: %s", v, err, r.body)
	}
	return v
}

// mustCall is call that wants status.
func mustCall(t testing.TB, app *fiber.App, method, path, body string, header map[string]string, status int) response {
	t.Helper()
	r := call(t, app, method, path, body, header)
	if r.status != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", method, path, r.status, status, r.body)
	}
	return r
}

// startTable creates a table through the API.
func startTable(t testing.TB, app *fiber.App, body string) createdTable {
	t.Helper()
	return decodeJSON[createdTable](t, mustCall(t, app, "POST", "/api/v1/tables", body, nil, 201))
}

// claimTestSeat claims a named seat and returns its token.
func claimTestSeat(t testing.TB, app *fiber.App, code string, seat int) string {
	t.Helper()
	r := mustCall(t, app, "POST", fmt.Sprintf("/api/v1/tables/%s/seats/%d/claim", code, seat), "", nil, 200)
	return decodeJSON[struct{ SeatToken string }](t, r).SeatToken
}

// putTestBoard saves a board with token and returns the new version.
func putTestBoard(t testing.TB, app *fiber.App, code string, seat int, token, board string) int {
	t.Helper()
	r := mustCall(t, app, "PUT", boardPath(code, seat), board, bearer(token), 200)
	return decodeJSON[struct{ Version int }](t, r).Version
}

func boardPath(code string, seat int) string {
	return fmt.Sprintf("/api/v1/tables/%s/seats/%d/board", code, seat)
}

// hotelJSON is an insektenhotel board: a hotel colour and its three floors
// as "species:guests".
func hotelJSON(colour string, floors ...string) string {
	parts := make([]string, len(floors))
	for i, f := range floors {
		sp, guests, _ := strings.Cut(f, ":")
		parts[i] = fmt.Sprintf(`{"species": %q, "guests": %s}`, sp, guests)
	}
	return fmt.Sprintf(`{"hotel": %q, "floors": [%s]}`, colour, strings.Join(parts, ", "))
}

// keepToken returns a check that stores the response's seatToken in dst
// and wants it long enough to be unguessable.
func keepToken(dst *string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		tok := decodeJSON[struct{ SeatToken string }](t, r).SeatToken
		if len(tok) < minTokenLen {
			t.Errorf("seatToken %q has %d characters, want at least %d", tok, len(tok), minTokenLen)
		}
		*dst = tok
	}
}

// detailHas returns a check that wants the problem detail to contain s.
func detailHas(s string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		if d := decodeJSON[problem](t, r).Detail; !strings.Contains(d, s) {
			t.Errorf("detail %q does not say %q", d, s)
		}
	}
}

// fieldDetailHas returns a check that wants the first field error's detail
// to contain s.
func fieldDetailHas(s string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		p := decodeJSON[problem](t, r)
		if len(p.Errors) == 0 || !strings.Contains(p.Errors[0].Detail, s) {
			t.Errorf("errors %+v do not say %q", p.Errors, s)
		}
	}
}

// lacks returns a check that wants the top-level JSON key absent.
func lacks(key string) func(t *testing.T, r response) {
	return func(t *testing.T, r response) {
		if _, ok := decodeJSON[map[string]json.RawMessage](t, r)[key]; ok {
			t.Errorf("response has %q: %s", key, r.body)
		}
	}
}

func TestCreateTable(t *testing.T) {
	app := newTestApp(t)
	local := map[string]string{"Host": "localhost:8080"}
	var codes []string
	created := func(names ...string) func(t *testing.T, r response) {
		return func(t *testing.T, r response) {
			ct := decodeJSON[createdTable](t, r)
			if !codePattern.MatchString(ct.Code) {
				t.Errorf("code %q is not 6 characters of %s", ct.Code, codePattern)
			}
			if len(ct.HostToken) < minTokenLen {
				t.Errorf("hostToken %q has %d characters, want at least %d", ct.HostToken, len(ct.HostToken), minTokenLen)
			}
			if want := "http://192.168.1.23:8080/t/" + ct.Code; ct.JoinURL != want {
				t.Errorf("joinUrl %q, want %q", ct.JoinURL, want)
			}
			if got, want := r.header.Get("Location"), "/api/v1/tables/"+ct.Code; got != want {
				t.Errorf("Location %q, want %q", got, want)
			}
			if len(ct.Seats) != len(names) {
				t.Fatalf("seats %+v, want %q", ct.Seats, names)
			}
			for i, st := range ct.Seats {
				if st.Seat != i || st.Name != names[i] {
					t.Errorf("seat %d = %+v, want {%d %s}", i, st, i, names[i])
				}
			}
			codes = append(codes, ct.Code)
		}
	}
	runScenarios(t, app, []scenario{
		{name: "insecta with a variant", method: "POST", path: "/api/v1/tables", header: local,
			body:   `{"game": "insecta", "players": ["Ana", "Ben"], "variants": {"oneFragment": 1}}`,
			status: 201, want: map[string]any{"/version": 1}, check: created("Ana", "Ben")},
		{name: "names are trimmed", method: "POST", path: "/api/v1/tables", header: local,
			body: `{"game": "insektenhotel", "players": [" Ana ", "Ben\t"], "group": "default"}`, status: 201, check: created("Ana", "Ben")},
		{name: "an unknown group", method: "POST", path: "/api/v1/tables", header: local,
			body: `{"game": "insecta", "players": ["Ana"], "group": "friday"}`, status: 422, want: map[string]any{"/errors/0/pointer": "/group"}},
		{name: "no seats yet: players join later", method: "POST", path: "/api/v1/tables", header: local,
			body: `{"game": "insectarium"}`, status: 201, want: map[string]any{"/seats": []any{}}, check: created()},
		{name: "solo insectarium", method: "POST", path: "/api/v1/tables", header: local,
			body: `{"game": "insectarium", "players": ["Ana"]}`, status: 201, check: created("Ana")},
		{name: "unknown game", method: "POST", path: "/api/v1/tables", body: `{"game": "chess", "players": ["Ana"]}`, status: 422,
			want: map[string]any{"/type": "/api/problems/validation", "/errors/0/pointer": "/game"}},
		{name: "no game", method: "POST", path: "/api/v1/tables", body: `{"players": ["Ana"]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/game"}},
		{name: "too many players", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["A", "B", "C", "D", "E"]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players"}},
		{name: "empty and blank names", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana", "", "  "]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/1", "/errors/1/pointer": "/players/2"}},
		{name: "the same name typed differently", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana", " ana "]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/1"}, check: detailHas("rules")},
		{name: "name too long", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["` + strings.Repeat("n", 200) + `"]}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/0"}},
		{name: "unknown variant", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana"], "variants": {"turbo": 1}}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/variants/turbo"}},
		{name: "variant out of range", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana"], "variants": {"oneFragment": 7}}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/variants/oneFragment"}},
		{name: "every mistake at once", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insectarium", "players": ["", "Ana", "ANA"], "variants": {"x": 1}}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/players/0", "/errors/1/pointer": "/players/2", "/errors/2/pointer": "/variants/x"}},
		{name: "wrong type names the field", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": "Ana"}`, status: 422, want: map[string]any{"/errors/0/pointer": "/players"}},
		{name: "unknown field", method: "POST", path: "/api/v1/tables",
			body: `{"game": "insecta", "players": ["Ana"], "hostToken": "mine"}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/hostToken"}},
		{name: "malformed JSON", method: "POST", path: "/api/v1/tables", body: `{"game": `, status: 400},
		{name: "no body", method: "POST", path: "/api/v1/tables", status: 400},
	})
	seen := map[string]bool{}
	for _, c := range codes {
		if seen[c] {
			t.Errorf("code %s handed out twice: %q", c, codes)
		}
		seen[c] = true
	}
	if len(codes) != 4 {
		t.Errorf("%d tables created, want 4", len(codes))
	}
}

func TestCreateTableBaseURL(t *testing.T) {
	app, _ := newTestAppWith(t, Config{BaseURL: "https://scores.example"})
	ct := decodeJSON[createdTable](t, mustCall(t, app, "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"]}`,
		map[string]string{"Host": "localhost:8080"}, 201))
	if want := "https://scores.example/t/" + ct.Code; ct.JoinURL != want {
		t.Errorf("joinUrl %q, want %q", ct.JoinURL, want)
	}
}

// TestTableSession plays an untracked Insektenhotel table through every
// role: join, claim, the board matrix, finish, and the finished table.
func TestTableSession(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	other := startTable(t, app, `{"game": "insektenhotel", "players": ["Zoe"]}`)
	code, host := tbl.Code, bearer(tbl.HostToken)
	base := "/api/v1/tables/" + code
	var cleo, ana string

	t.Run("join and claim", func(t *testing.T) {
		runScenarios(t, app, []scenario{
			{name: "get", method: "GET", path: base, status: 200, wantHeader: map[string]string{"ETag": `"1"`},
				want: map[string]any{"/code": code, "/game": "insektenhotel", "/status": "open", "/version": 1,
					"/variants": map[string]any{}, "/errors": []any{},
					"/seats/0": map[string]any{"seat": 0, "name": "Ana", "claimed": false, "board": nil, "sync": neverHeard},
					"/seats/1": map[string]any{"seat": 1, "name": "Ben", "claimed": false, "board": nil, "sync": neverHeard}},
				check: lacks("hotel")},
			{name: "code in lower case", method: "GET", path: "/api/v1/tables/" + strings.ToLower(code), status: 200,
				want: map[string]any{"/code": code}},
			{name: "unknown code", method: "GET", path: "/api/v1/tables/ZZZZZZ", status: 404,
				want: map[string]any{"/status": 404, "/title": "Not Found"}},
			{name: "join as a new seat", method: "POST", path: base + "/seats", body: `{"name": " Cleo "}`, status: 201,
				want: map[string]any{"/seat": 2}, check: keepToken(&cleo)},
			{name: "join with a seated name typed differently", method: "POST", path: base + "/seats", body: `{"name": " ana "}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/name", "/type": "/api/problems/validation"}},
			{name: "join without a name", method: "POST", path: base + "/seats", body: `{"name": "   "}`, status: 422,
				want: map[string]any{"/errors/0/pointer": "/name"}},
			{name: "join with an unknown field", method: "POST", path: base + "/seats", body: `{"name": "Dan", "seat": 0}`,
				status: 422, want: map[string]any{"/errors/0/pointer": "/seat"}},
			{name: "join with malformed JSON", method: "POST", path: base + "/seats", body: `{"name": `, status: 400},
			{name: "join an unknown table", method: "POST", path: "/api/v1/tables/ZZZZZZ/seats", body: `{"name": "Dan"}`, status: 404},
			{name: "claim a named seat", method: "POST", path: base + "/seats/0/claim", status: 200, check: keepToken(&ana)},
			{name: "claim it again", method: "POST", path: base + "/seats/0/claim", status: 409,
				want: map[string]any{"/type": "/api/problems/conflict"}},
			{name: "claim a joined seat", method: "POST", path: base + "/seats/2/claim", status: 409},
			{name: "claim a seat that is not there", method: "POST", path: base + "/seats/7/claim", status: 404},
			{name: "claim seat -1", method: "POST", path: base + "/seats/-1/claim", status: 404},
			{name: "claim seat x", method: "POST", path: base + "/seats/x/claim", status: 404},
			{name: "claim at an unknown table", method: "POST", path: "/api/v1/tables/ZZZZZZ/seats/0/claim", status: 404},
			{name: "get after joining", method: "GET", path: base, status: 200, wantHeader: map[string]string{"ETag": `"3"`},
				want: map[string]any{"/version": 3, "/seats/0/claimed": true, "/seats/1/claimed": false,
					"/seats/2": map[string]any{"seat": 2, "name": "Cleo", "claimed": true, "board": nil, "sync": neverHeard}}},
		})
	})
	if cleo == "" || ana == "" {
		t.Fatal("no seat tokens to go on with")
	}

	anaBoard := hotelJSON("blue", "bee:1", "ant:0", "fly:0")
	benBoard := hotelJSON("red", "ladybird:2", "butterfly:1", "earwig:0")
	t.Run("boards", func(t *testing.T) {
		runScenarios(t, app, []scenario{
			{name: "no token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 401,
				wantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="insectscore"`, "Content-Type": "application/problem+json"}},
			{name: "not a bearer token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 401,
				header: map[string]string{"Authorization": "Basic " + tbl.HostToken}},
			{name: "empty bearer token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 401,
				header: map[string]string{"Authorization": "Bearer "}},
			{name: "garbage token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 401, header: bearer("garbage"),
				wantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="insectscore", error="invalid_token"`}},
			{name: "another table's host token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 401,
				header: bearer(other.HostToken)},
			{name: "another seat's token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 403,
				header: bearer(cleo), check: detailHas("own")},
			{name: "own seat's token", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 200, header: bearer(ana),
				wantHeader: map[string]string{"ETag": `"4"`},
				want: map[string]any{"/version": 4, "/errors": []any{}, "/standings/complete": false,
					"/standings/results/0/total": 1, "/standings/results/2/total": 0}},
			{name: "host on an unclaimed seat", method: "PUT", path: boardPath(code, 1), body: benBoard, status: 200, header: host,
				want: map[string]any{"/version": 5, "/standings/results/1/total": 3}},
			{name: "host on a claimed seat", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 200, header: host,
				want: map[string]any{"/version": 6}},
			{name: "stale If-Match", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 409,
				header: withHeader(host, "If-Match", `"5"`),
				want:   map[string]any{"/currentVersion": 6, "/type": "/api/problems/conflict"}},
			{name: "current If-Match", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 200,
				header: withHeader(bearer(ana), "If-Match", `"6"`), want: map[string]any{"/version": 7}},
			{name: "weak If-Match", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 200,
				header: withHeader(bearer(ana), "If-Match", `W/"7"`), want: map[string]any{"/version": 8}},
			{name: "If-Match star", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 200,
				header: withHeader(bearer(ana), "If-Match", `*`), want: map[string]any{"/version": 9}},
			{name: "If-Match that is no version", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 400,
				header: withHeader(bearer(ana), "If-Match", `"abc"`)},
			{name: "an array is no board", method: "PUT", path: boardPath(code, 0), body: `[1, 2]`, status: 400, header: bearer(ana)},
			{name: "a string is no board", method: "PUT", path: boardPath(code, 0), body: `"board"`, status: 400, header: bearer(ana)},
			{name: "malformed board", method: "PUT", path: boardPath(code, 0), body: `{"hotel": `, status: 400, header: bearer(ana)},
			{name: "no board", method: "PUT", path: boardPath(code, 0), status: 400, header: bearer(ana)},
			{name: "a seat that is not there", method: "PUT", path: boardPath(code, 7), body: anaBoard, status: 404, header: host},
			{name: "an unknown table: as a stranger's token", method: "PUT", path: boardPath("ZZZZZZ", 0), body: anaBoard, status: 401, header: host},
			{name: "a board breaking a rule is kept", method: "PUT", path: boardPath(code, 2), status: 200, header: bearer(cleo),
				body: hotelJSON("green", "bee:3", "ant:0", "fly:0"),
				want: map[string]any{"/version": 10, "/standings": nil, "/errors/0/pointer": "/players/2/board/floors/0/guests"}},
			{name: "get shows the kept board and why", method: "GET", path: base, status: 200,
				want: map[string]any{"/version": 10, "/standings": nil, "/errors/0/pointer": "/players/2/board/floors/0/guests",
					"/seats/2/board/floors/0/guests": 3, "/seats/2/board/hotel": "green", "/seats/0/board/floors/0/guests": 1}},
			{name: "finish refuses the broken board", method: "POST", path: base + "/finish", status: 422, header: host,
				want: map[string]any{"/errors/0/pointer": "/players/2/board/floors/0/guests"}},
			{name: "null clears a board", method: "PUT", path: boardPath(code, 2), body: `null`, status: 200, header: bearer(cleo),
				want: map[string]any{"/version": 11, "/errors": []any{}, "/standings/complete": false}},
		})
	})

	var playID string
	t.Run("finish", func(t *testing.T) {
		runScenarios(t, app, []scenario{
			{name: "by a seat", method: "POST", path: base + "/finish", status: 403, header: bearer(ana), check: detailHas("host")},
			{name: "without a token", method: "POST", path: base + "/finish", status: 401,
				wantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="insectscore"`}},
			{name: "with a garbage token", method: "POST", path: base + "/finish", status: 401, header: bearer("garbage")},
			{name: "an unknown table: as a stranger's token", method: "POST", path: "/api/v1/tables/ZZZZZZ/finish", status: 401, header: host},
			{name: "while no hotel is full", method: "POST", path: base + "/finish", status: 422, header: host,
				want: map[string]any{"/status": 422}, check: detailHas("one hotel must be full")},
			{name: "fill a hotel", method: "PUT", path: boardPath(code, 0), status: 200, header: bearer(ana),
				body: hotelJSON("blue", "bee:2", "ant:2", "fly:2"),
				want: map[string]any{"/version": 12, "/standings/complete": true, "/standings/winners": []int{0}}},
			{name: "complete", method: "POST", path: base + "/finish", status: 200, header: host,
				want: map[string]any{"/standings/complete": true, "/standings/winners": []int{0},
					"/standings/results/0/name": "Ana", "/standings/results/0/winner": true, "/standings/results/0/total": 6,
					"/standings/results/1/rank": 2},
				check: func(t *testing.T, r response) {
					playID = decodeJSON[struct{ PlayID string }](t, r).PlayID
					if playID == "" {
						t.Error("no playId")
					}
				}},
		})
	})

	t.Run("finished", func(t *testing.T) {
		runScenarios(t, app, []scenario{
			{name: "get", method: "GET", path: base, status: 200, wantHeader: map[string]string{"ETag": `"13"`},
				want: map[string]any{"/status": "finished", "/version": 13, "/standings/winners": []int{0},
					"/seats/0/board/floors/2/guests": 2},
				check: func(t *testing.T, r response) {
					if got := decodeJSON[struct{ PlayID string }](t, r).PlayID; got != playID {
						t.Errorf("playId %q, want the recorded %q", got, playID)
					}
				}},
			{name: "put by the host", method: "PUT", path: boardPath(code, 1), body: benBoard, status: 409, header: host,
				check: detailHas("finished")},
			{name: "put by a seat", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 409, header: bearer(ana)},
			{name: "put by another seat is still forbidden", method: "PUT", path: boardPath(code, 0), body: anaBoard, status: 403,
				header: bearer(cleo)},
			{name: "join", method: "POST", path: base + "/seats", body: `{"name": "Dan"}`, status: 409, check: detailHas("finished")},
			{name: "finish again", method: "POST", path: base + "/finish", status: 409, header: host, check: detailHas("finished")},
			{name: "claim the unclaimed seat", method: "POST", path: base + "/seats/1/claim", status: 409, check: detailHas("finished")},
			{name: "a move", method: "POST", path: base + "/moves", body: `{"type": "draw", "card": "bee"}`, status: 409, header: host},
			{name: "undo", method: "DELETE", path: base + "/moves/last", status: 409, header: host},
			{name: "nothing changed", method: "GET", path: base, status: 200, want: map[string]any{"/version": 13, "/seats/1/claimed": false}},
		})
	})
}

func TestJoinFullTable(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben", "Cleo"]}`)
	seats := "/api/v1/tables/" + tbl.Code + "/seats"
	runScenarios(t, app, []scenario{
		{name: "the last seat", method: "POST", path: seats, body: `{"name": "Dan"}`, status: 201, want: map[string]any{"/seat": 3}},
		{name: "one too many", method: "POST", path: seats, body: `{"name": "Eve"}`, status: 409,
			want: map[string]any{"/type": "/api/problems/conflict"}, check: detailHas("full")},
		{name: "a seated name is told first", method: "POST", path: seats, body: `{"name": "DAN"}`, status: 422,
			want: map[string]any{"/errors/0/pointer": "/name"}},
		{name: "four seats", method: "GET", path: "/api/v1/tables/" + tbl.Code, status: 200,
			want: map[string]any{"/version": 2, "/seats/3/name": "Dan"}},
	})
}

// TestFinishTooFewPlayers: a table may start below the game's minimum,
// but cannot finish there.
func TestFinishTooFewPlayers(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana"]}`)
	putTestBoard(t, app, tbl.Code, 0, tbl.HostToken, hotelJSON("blue", "bee:2", "ant:2", "fly:2"))
	runScenarios(t, app, []scenario{
		{name: "one player", method: "POST", path: "/api/v1/tables/" + tbl.Code + "/finish", status: 422,
			header: bearer(tbl.HostToken), check: detailHas("at least 2 players")},
	})
}

// TestHotelMoves plays an Insektenhotel table move by move to a full hotel.
func TestHotelMoves(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	code, host := tbl.Code, bearer(tbl.HostToken)
	moves := "/api/v1/tables/" + code + "/moves"
	ana, ben := claimTestSeat(t, app, code, 0), claimTestSeat(t, app, code, 1) // v2, v3
	draw := func(card string) string { return fmt.Sprintf(`{"type": "draw", "card": %q}`, card) }

	runScenarios(t, app, []scenario{
		{name: "before the hotels are set up", method: "POST", path: moves, body: draw("bee"), status: 422, header: bearer(ana),
			want: map[string]any{"/errors/0/pointer": "/players/0/hotel"}},
	})
	putTestBoard(t, app, code, 0, ana, hotelJSON("blue", "bee:0", "ant:0", "fly:0"))              // v4
	putTestBoard(t, app, code, 1, ben, hotelJSON("red", "ladybird:0", "butterfly:0", "earwig:0")) // v5

	runScenarios(t, app, []scenario{
		{name: "no hotel before the first move", method: "GET", path: "/api/v1/tables/" + code, status: 200, check: lacks("hotel")},
		{name: "by the seat not on turn", method: "POST", path: moves, body: draw("bee"), status: 403, header: bearer(ben)},
		{name: "without a token", method: "POST", path: moves, body: draw("bee"), status: 401,
			wantHeader: map[string]string{"WWW-Authenticate": `Bearer realm="insectscore"`}},
		{name: "with a garbage token", method: "POST", path: moves, body: draw("bee"), status: 401, header: bearer("garbage")},
		{name: "a card that is not in the game", method: "POST", path: moves, body: draw("dragon"), status: 422, header: bearer(ana),
			want: map[string]any{"/type": "/api/problems/validation", "/errors/0/pointer": "/card"}},
		{name: "a pass before drawing", method: "POST", path: moves, body: `{"type": "pass"}`, status: 422, header: bearer(ana),
			want: map[string]any{"/errors/0/pointer": "/type"}},
		{name: "a lure without honey", method: "POST", path: moves, body: `{"type": "lure", "target": 1, "species": "bee"}`,
			status: 422, header: bearer(ana), want: map[string]any{"/errors/0/pointer": "/type"}},
		{name: "an unknown field", method: "POST", path: moves, body: `{"type": "draw", "card": "bee", "colour": "red"}`,
			status: 422, header: bearer(ana), want: map[string]any{"/errors/0/pointer": "/colour"}},
		{name: "malformed JSON", method: "POST", path: moves, body: `{"type": `, status: 400, header: bearer(ana)},
		{name: "stale If-Match", method: "POST", path: moves, body: draw("bee"), status: 409,
			header: withHeader(bearer(ana), "If-Match", `"4"`), want: map[string]any{"/currentVersion": 5}},
		{name: "nothing to undo", method: "DELETE", path: moves + "/last", status: 404, header: host},
		{name: "the seat on turn", method: "POST", path: moves, body: draw("bee"), status: 201, header: bearer(ana),
			want: map[string]any{"/version": 6, "/hotel/turn": 1, "/hotel/round": 1, "/hotel/players/0/guests": 1,
				"/hotel/deck": 71, "/seats/0/board/floors/0/guests": 1, "/standings/results/0/total": 1}},
		{name: "no board edits once moves are made", method: "PUT", path: boardPath(code, 0), status: 409, header: bearer(ana),
			body: hotelJSON("blue", "bee:2", "ant:2", "fly:2"), check: detailHas("move by move")},
		{name: "undo by the seat that did not move", method: "DELETE", path: moves + "/last", status: 403, header: bearer(ben)},
		{name: "undo without a token", method: "DELETE", path: moves + "/last", status: 401},
		{name: "undo by the mover", method: "DELETE", path: moves + "/last", status: 200, header: bearer(ana),
			want: map[string]any{"/version": 7, "/seats/0/board/floors/0/guests": 0}, check: lacks("hotel")},
		{name: "undo with nothing left", method: "DELETE", path: moves + "/last", status: 404, header: bearer(ana)},
	})

	type step struct {
		who  map[string]string
		move string
	}
	game := []step{
		{bearer(ana), draw("bee")},      // Ana: bee 1
		{bearer(ben), draw("ladybird")}, // Ben: ladybird 1; round 2
		{bearer(ana), draw("honey")},    // Ana keeps a honey and draws on
		{bearer(ana), draw("bee")},      // Ana: bee 2
		{bearer(ben), draw("ladybird")}, // Ben: ladybird 2; round 3
		{bearer(ana), draw("ant")},      // Ana: ant 1, a single guest
	}
	rest := []step{
		{bearer(ben), `{"type": "draw", "card": "spider", "evict": {"player": 0, "species": "ant"}}`}, // Ana: ant 0
		{bearer(ana), draw("ant")},       // Ana: ant 1
		{bearer(ben), draw("butterfly")}, // Ben: butterfly 1
		{bearer(ana), draw("ant")},       // Ana: ant 2
		{host, draw("butterfly")},        // the host plays Ben's turn: butterfly 2
		{bearer(ana), draw("fly")},       // Ana: fly 1
		{bearer(ben), draw("earwig")},    // Ben: earwig 1
	}
	play := func(t *testing.T, steps []step) {
		t.Helper()
		for _, s := range steps {
			mustCall(t, app, "POST", moves, s.move, s.who, 201)
		}
	}
	play(t, game)
	runScenarios(t, app, []scenario{
		{name: "a spider must scare the single guest", method: "POST", path: moves, status: 422, header: bearer(ben),
			body: draw("spider"), want: map[string]any{"/errors/0/pointer": "/evict"}},
		{name: "a pair is safe from the spider", method: "POST", path: moves, status: 422, header: bearer(ben),
			body: `{"type": "draw", "card": "spider", "evict": {"player": 0, "species": "bee"}}`,
			want: map[string]any{"/errors/0/pointer": "/evict/species"}},
		{name: "the state between turns", method: "GET", path: "/api/v1/tables/" + code, status: 200,
			want: map[string]any{"/hotel/turn": 1, "/hotel/players/0/honey": 1, "/hotel/round": 3}},
	})
	play(t, rest)
	runScenarios(t, app, []scenario{
		{name: "the last room", method: "POST", path: moves, body: draw("fly"), status: 201, header: bearer(ana),
			want: map[string]any{"/hotel/finished": true, "/hotel/winner": 0, "/hotel/players/0/guests": 6,
				"/hotel/players/1/guests": 5, "/hotel/discard": 2, "/standings/complete": true, "/standings/winners": []int{0},
				"/seats/0/board/floors/1": map[string]any{"species": "ant", "guests": 2}}},
		{name: "no move after the game", method: "POST", path: moves, body: draw("bee"), status: 422, header: bearer(ana),
			want: map[string]any{"/errors/0/pointer": ""}, check: fieldDetailHas("the game is over")},
		{name: "finish", method: "POST", path: "/api/v1/tables/" + code + "/finish", status: 200, header: host,
			want: map[string]any{"/standings/winners": []int{0}, "/standings/results/0/total": 6, "/standings/results/1/total": 5}},
		{name: "a move on the finished table", method: "POST", path: moves, body: draw("bee"), status: 409, header: bearer(ben)},
		{name: "undo on the finished table", method: "DELETE", path: moves + "/last", status: 409, header: host},
		{name: "the finished table keeps its hotels", method: "GET", path: "/api/v1/tables/" + code, status: 200,
			want: map[string]any{"/status": "finished", "/hotel/winner": 0, "/seats/1/board/floors/1/guests": 2}},
	})
}

func TestMovesOnOtherGames(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana", "Ben"]}`)
	moves := "/api/v1/tables/" + tbl.Code + "/moves"
	runScenarios(t, app, []scenario{
		{name: "move", method: "POST", path: moves, body: `{"type": "draw", "card": "bee"}`, status: 404,
			header: bearer(tbl.HostToken), check: detailHas("played move by move")},
		{name: "undo", method: "DELETE", path: moves + "/last", status: 404, header: bearer(tbl.HostToken)},
		{name: "unknown table: as a stranger's token", method: "POST", path: "/api/v1/tables/ZZZZZZ/moves", body: `{"type": "pass"}`, status: 401,
			header: bearer(tbl.HostToken)},
	})
}

// TestGuessLimit: more than 30 failed lookups a minute from one client get
// 429; lookups that succeed do not count.
func TestGuessLimit(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana"]}`)
	for i := range 30 {
		mustCall(t, app, "GET", "/api/v1/tables/"+tbl.Code, "", nil, 200)
		path := fmt.Sprintf("/api/v1/tables/ZZZZ%02d", i)
		if i%3 == 0 {
			mustCall(t, app, "POST", path+"/seats", `{"name": "Eve"}`, nil, 404)
		} else {
			mustCall(t, app, "GET", path, "", nil, 404)
		}
	}
	runScenarios(t, app, []scenario{
		{name: "the 31st failure", method: "GET", path: "/api/v1/tables/ZZZZZZ", status: 429,
			want:       map[string]any{"/status": 429, "/title": "Too Many Requests"},
			wantHeader: map[string]string{"Content-Type": "application/problem+json"},
			check: func(t *testing.T, r response) {
				if r.header.Get("Retry-After") == "" {
					t.Error("no Retry-After")
				}
			}},
		{name: "and the QR code of a guess", method: "GET", path: "/api/v1/tables/ZZZZZZ/qr.png", status: 429},
	})
}

// TestConcurrentJoins: phones joining at once never overfill a table or
// seat one name twice, and each gets a clear answer rather than a 500.
func TestConcurrentJoins(t *testing.T) {
	app := newTestApp(t)
	join := func(code string, names []string) map[int]int {
		statuses := make(chan int, len(names))
		var wg sync.WaitGroup
		for _, name := range names {
			wg.Go(func() {
				req := httptest.NewRequest("POST", "/api/v1/tables/"+code+"/seats", strings.NewReader(`{"name": "`+name+`"}`))
				req.Header.Set("Content-Type", "application/json")
				resp, err := app.Test(req, -1)
				if err != nil {
					t.Error(err)
					return
				}
				resp.Body.Close()
				statuses <- resp.StatusCode
			})
		}
		wg.Wait()
		close(statuses)
		count := map[int]int{}
		for s := range statuses {
			count[s]++
		}
		return count
	}

	t.Run("one name", func(t *testing.T) {
		tbl := startTable(t, app, `{"game": "insecta", "players": ["Ana"]}`)
		got := join(tbl.Code, []string{"Dan", "dan", " Dan", "DAN ", "Dan", "dan"})
		if got[201] != 1 || got[409]+got[422] != 5 {
			t.Errorf("statuses %v, want one 201 and five 409 or 422", got)
		}
		v := decodeJSON[tableView](t, mustCall(t, app, "GET", "/api/v1/tables/"+tbl.Code, "", nil, 200))
		if len(v.Seats) != 2 {
			t.Errorf("%d seats, want 2", len(v.Seats))
		}
	})
	t.Run("more phones than seats", func(t *testing.T) {
		tbl := startTable(t, app, `{"game": "insektenhotel"}`)
		got := join(tbl.Code, []string{"Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus"})
		if got[201] != 4 || got[409] != 3 {
			t.Errorf("statuses %v, want four 201 and three 409", got)
		}
		v := decodeJSON[tableView](t, mustCall(t, app, "GET", "/api/v1/tables/"+tbl.Code, "", nil, 200))
		if len(v.Seats) != 4 {
			t.Errorf("%d seats, want 4", len(v.Seats))
		}
		for i, st := range v.Seats {
			if st.Seat != i {
				t.Errorf("seat %d numbered %d", i, st.Seat)
			}
		}
	})
}

// TestMovesNeedATokenFirst: without a token, moves and undo answer 401
// before anything about the table's state leaks.
func TestMovesNeedATokenFirst(t *testing.T) {
	app := newTestApp(t)
	tbl := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	moves := "/api/v1/tables/" + tbl.Code + "/moves"
	runScenarios(t, app, []scenario{
		{name: "move before setup", method: "POST", path: moves, body: `{"type": "draw", "card": "bee"}`, status: 401},
		{name: "malformed move", method: "POST", path: moves, body: `{"type": `, status: 401},
		{name: "undo with nothing to undo", method: "DELETE", path: moves + "/last", status: 401},
		{name: "move before setup with the host token", method: "POST", path: moves, body: `{"type": "draw", "card": "bee"}`,
			header: bearer(tbl.HostToken), status: 422},
	})
}

package api

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"insectscore/models"
	"insectscore/models/pgtest"
)

// Races: two phones tap at the same instant. Each test runs raceTrials
// trials on a SQLite file and on PostgreSQL, each trial two requests sent
// together over real connections, and wants one winner and a whole table
// every time. Before a change owned its transaction (the move checked
// against a table read before it), two winning draws were both taken in
// about one trial of 45.

// raceTrials is how many times each race is run per database.
const raceTrials = 400

// raceBackends runs fn on a server over a SQLite file and, when
// INSECTSCORE_TEST_POSTGRES is set, one over PostgreSQL.
func raceBackends(t *testing.T, fn func(t *testing.T, store *models.Store, base string)) {
	t.Helper()
	dsns := map[string]string{"sqlite": filepath.Join(t.TempDir(), "races.db")}
	if pg := os.Getenv("INSECTSCORE_TEST_POSTGRES"); pg != "" {
		dsns["postgres"] = pgtest.Schema(t, pg)
	}
	for name, dsn := range dsns {
		t.Run(name, func(t *testing.T) {
			store := openTestStore(t, dsn)
			_, base := serveLive(t, Config{Store: store})
			fn(t, store, base)
		})
	}
}

// together sends two requests at the same instant and returns both
// answers.
func together(t *testing.T, a, b func() response) (response, response) {
	t.Helper()
	var (
		ra, rb response
		wg     sync.WaitGroup
		start  = make(chan struct{})
	)
	wg.Add(2)
	go func() { defer wg.Done(); <-start; ra = a() }()
	go func() { defer wg.Done(); <-start; rb = b() }()
	close(start)
	wg.Wait()
	return ra, rb
}

// request is httpCall that reports, not fails: it runs off the test's
// goroutine.
func request(t *testing.T, method, url, body string, header map[string]string) func() response {
	return func() response { return httpCall(t, method, url, body, header) }
}

// oneWinner wants exactly one of two answers to be win and the other one
// of lose.
func oneWinner(t *testing.T, trial int, ra, rb response, win int, lose ...int) bool {
	t.Helper()
	if ra.status == win && rb.status == win {
		t.Errorf("trial %d: both answered %d", trial, win)
		return false
	}
	other := ra
	if ra.status == win {
		other = rb
	} else if rb.status != win {
		t.Errorf("trial %d: neither answered %d: %d %s, %d %s", trial, win, ra.status, ra.body, rb.status, rb.body)
		return false
	}
	for _, l := range lose {
		if other.status == l {
			return true
		}
	}
	t.Errorf("trial %d: the loser answered %d %s, want one of %v", trial, other.status, other.body, lose)
	return false
}

// TestRaceWinningDraws: on an Insektenhotel table's last move the seat on
// turn and the host send the winning draw at once, without If-Match, as
// the app sends moves: one is taken, the other is told the game is over,
// and the table keeps its hotel.
func TestRaceWinningDraws(t *testing.T) {
	raceBackends(t, func(t *testing.T, store *models.Store, base string) {
		ctx := context.Background()
		for trial := range raceTrials {
			tb, host, err := store.CreateTable(ctx, models.NewTable{Game: "insektenhotel", Names: []string{"Ana", "Ben"},
				Boards: []json.RawMessage{
					json.RawMessage(hotelJSON("blue", "bee:0", "ant:0", "fly:0")),
					json.RawMessage(hotelJSON("red", "ladybird:0", "butterfly:0", "earwig:0"))}})
			if err != nil {
				t.Fatal(err)
			}
			ana, err := store.ClaimSeat(ctx, tb.Code, 0)
			if err != nil {
				t.Fatal(err)
			}
			moves := base + "/api/v1/tables/" + tb.Code + "/moves"
			for _, card := range []string{"bee", "ladybird", "bee", "ladybird", "ant", "butterfly", "ant", "butterfly", "fly", "earwig"} {
				mustHTTP(t, "POST", moves, fmt.Sprintf(`{"type": "draw", "card": %q}`, card), bearer(host), 201)
			}
			last := `{"type": "draw", "card": "fly"}`
			ra, rb := together(t, request(t, "POST", moves, last, bearer(ana)), request(t, "POST", moves, last, bearer(host)))
			ok := oneWinner(t, trial, ra, rb, 201, 409, 422)
			var table struct {
				Version int
				Hotel   *struct{ Finished bool }
			}
			if err := json.Unmarshal(mustHTTP(t, "GET", base+"/api/v1/tables/"+tb.Code, "", nil, 200).body, &table); err != nil {
				t.Fatal(err)
			}
			if table.Hotel == nil {
				t.Fatalf("trial %d: the table lost its hotel", trial)
			}
			if !table.Hotel.Finished || table.Version != 13 {
				t.Fatalf("trial %d: finished %v at version %d, want the game over at 13 (11 moves)", trial, table.Hotel.Finished, table.Version)
			}
			if !ok {
				return
			}
		}
	})
}

// TestRaceBoardAndFinish: a seat saves its board while the host finishes.
// Either the board is saved first and the play records it, or the finish
// is first and the board is refused; the play always holds the boards the
// table shows.
func TestRaceBoardAndFinish(t *testing.T) {
	raceBackends(t, func(t *testing.T, store *models.Store, base string) {
		ctx := context.Background()
		board := exampleInsectaBoard(t)
		for trial := range raceTrials {
			tb, hostToken, err := store.CreateTable(ctx, models.NewTable{Game: "insecta", Names: []string{"Ana", "Ben"},
				Boards: []json.RawMessage{json.RawMessage(board(0, 10)), json.RawMessage(board(1, 10))}})
			if err != nil {
				t.Fatal(err)
			}
			ben, err := store.ClaimSeat(ctx, tb.Code, 1)
			if err != nil {
				t.Fatal(err)
			}
			ct, host := createdTable{Code: tb.Code}, bearer(hostToken)
			put, fin := together(t, request(t, "PUT", base+boardPath(ct.Code, 1), board(1, 30), bearer(ben)),
				request(t, "POST", base+"/api/v1/tables/"+ct.Code+"/finish", "", host))
			if fin.status != 200 {
				t.Fatalf("trial %d: finish %d %s", trial, fin.status, fin.body)
			}
			if put.status != 200 && put.status != 409 {
				t.Fatalf("trial %d: board %d %s", trial, put.status, put.body)
			}
			playID := decodeJSON[struct{ PlayID string }](t, fin).PlayID
			var play struct {
				Results []struct{ Board json.RawMessage }
			}
			if err := json.Unmarshal(mustHTTP(t, "GET", base+"/api/v1/plays/"+playID, "", nil, 200).body, &play); err != nil {
				t.Fatal(err)
			}
			var table struct {
				Status string
				Seats  []struct{ Board json.RawMessage }
			}
			if err := json.Unmarshal(mustHTTP(t, "GET", base+"/api/v1/tables/"+ct.Code, "", nil, 200).body, &table); err != nil {
				t.Fatal(err)
			}
			if table.Status != "finished" {
				t.Fatalf("trial %d: table %s", trial, table.Status)
			}
			track := func(b json.RawMessage) int {
				var v struct{ Track int }
				_ = json.Unmarshal(b, &v)
				return v.Track
			}
			got, shown := track(play.Results[1].Board), track(table.Seats[1].Board)
			if got != shown {
				t.Fatalf("trial %d: the play recorded track %d, the table shows %d", trial, got, shown)
			}
			if want := map[int]int{200: 30, 409: 10}[put.status]; got != want {
				t.Fatalf("trial %d: board answered %d, the play has track %d, want %d", trial, put.status, got, want)
			}
		}
	})
}

// TestRaceLastSeat: two phones join a table with one seat left; one
// sits, the other is told the table is full.
func TestRaceLastSeat(t *testing.T) {
	raceBackends(t, func(t *testing.T, store *models.Store, base string) {
		ctx := context.Background()
		for trial := range raceTrials {
			tb, _, err := store.CreateTable(ctx, models.NewTable{Game: "insecta", Names: []string{"Ana", "Ben", "Cleo"}})
			if err != nil {
				t.Fatal(err)
			}
			seats := base + "/api/v1/tables/" + tb.Code + "/seats"
			ra, rb := together(t, request(t, "POST", seats, `{"name": "Dan"}`, nil), request(t, "POST", seats, `{"name": "Eve"}`, nil))
			ok := oneWinner(t, trial, ra, rb, 201, 409)
			got, err := store.FindTableByCode(ctx, tb.Code)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Seats) != 4 || got.Version != 2 {
				t.Fatalf("trial %d: %d seats at version %d, want 4 at 2", trial, len(got.Seats), got.Version)
			}
			if !ok {
				return
			}
		}
	})
}

// TestRaceClaim: two phones claim one seat; one gets its token, the other
// is told it is taken, and only the winner's token writes the seat.
func TestRaceClaim(t *testing.T) {
	raceBackends(t, func(t *testing.T, store *models.Store, base string) {
		ctx := context.Background()
		for trial := range raceTrials {
			tb, _, err := store.CreateTable(ctx, models.NewTable{Game: "insecta", Names: []string{"Ana", "Ben"}})
			if err != nil {
				t.Fatal(err)
			}
			claim := base + "/api/v1/tables/" + tb.Code + "/seats/1/claim"
			ra, rb := together(t, request(t, "POST", claim, "", nil), request(t, "POST", claim, "", nil))
			if !oneWinner(t, trial, ra, rb, 200, 409) {
				return
			}
			win := ra
			if rb.status == 200 {
				win = rb
			}
			token := decodeJSON[struct{ SeatToken string }](t, win).SeatToken
			mustHTTP(t, "PUT", base+boardPath(tb.Code, 1), `{}`, bearer(token), 200)
			got, err := store.FindTableByCode(ctx, tb.Code)
			if err != nil {
				t.Fatal(err)
			}
			if got.Version != 3 {
				t.Fatalf("trial %d: version %d, want 3 (one claim, one board)", trial, got.Version)
			}
		}
	})
}

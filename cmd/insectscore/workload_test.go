package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/base32"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"insectscore/models/pgtest"
)

// TestKeptFiguresAcrossKills: 8 writers log, edit and delete plays,
// rename and merge players, finish tables and import groups through a
// server that is killed (SIGKILL) at random moments, a seeded workload.
// After every kill, and while the rating rebuild the changes asked for
// runs at the next start, the kept figures of every player equal a
// recount over play_players; after the rebuild they equal what
// `insectscore recompute` rebuilds. Before a change kept them in its own
// transaction, 10 to 90 rows differed after each kill.
func TestKeptFiguresAcrossKills(t *testing.T) {
	type backend struct{ driver, dsn string }
	backends := map[string]backend{"sqlite": {"sqlite3", filepath.Join(t.TempDir(), "kills.db")}}
	if pg := os.Getenv("INSECTSCORE_TEST_POSTGRES"); pg != "" {
		backends["postgres"] = backend{"pgx", pgtest.Schema(t, pg)}
	}
	for name, b := range backends {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			conn, err := sql.Open(b.driver, b.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			r := rand.New(rand.NewPCG(21, 2026))
			group := ""
			for cycle := range 6 {
				srv := startMain(t, dir, nil, "-db", b.dsn, "-addr", "127.0.0.1:0")
				w := &workload{base: "http://" + srv.listenAddr(t), group: group}
				if group == "" {
					w.group = w.newGroup(t)
					group = w.group
				}
				stop := make(chan struct{})
				var wg sync.WaitGroup
				for i := range 8 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						w.run(rand.New(rand.NewPCG(uint64(cycle), uint64(i))), stop)
					}()
				}
				time.Sleep(time.Duration(300+r.IntN(1200)) * time.Millisecond)
				if err := srv.cmd.Process.Kill(); err != nil {
					t.Fatal(err)
				}
				srv.wait(t, 10*time.Second)
				close(stop)
				wg.Wait()
				if n := w.serverErrors(); n > 0 {
					t.Errorf("cycle %d: %d answers were 5xx: %s", cycle, n, w.firstError)
				}
				t.Logf("cycle %d: %d changes answered", cycle, w.changes)
				sameFiguresIn(t, conn, fmt.Sprintf("after kill %d", cycle+1))
			}

			// The next start carries on with the rebuilds the kills left.
			srv := startMain(t, dir, nil, "-db", b.dsn, "-addr", "127.0.0.1:0")
			srv.listenAddr(t)
			sameFiguresIn(t, conn, "while the rebuild runs")
			deadline := time.Now().Add(time.Minute)
			for rebuildsLeft(t, conn) > 0 {
				if time.Now().After(deadline) {
					t.Fatal("the rebuilds did not end within a minute")
				}
				time.Sleep(50 * time.Millisecond)
			}
			sameFiguresIn(t, conn, "after the rebuild")
			srv.cmd.Process.Signal(os.Interrupt)
			srv.wait(t, 15*time.Second)
			kept := figuresIn(t, conn, keptFigures)
			if _, err := runCmd(t, "recompute", "-db", b.dsn); err != nil {
				t.Fatal(err)
			}
			if diff := figuresDiff(kept, figuresIn(t, conn, keptFigures)); diff != "" {
				t.Errorf("the kept figures differ from what recompute rebuilds: %s", diff)
			}
		})
	}
}

// workload is the writers' view of one server.
type workload struct {
	base, group string

	mu         sync.Mutex
	changes    int
	errors5xx  int
	firstError string
}

var workloadClient = &http.Client{Timeout: 5 * time.Second}

// call sends a request and returns its status and body; 0 when the
// server did not answer (it was killed).
func (w *workload) call(method, path string, body any) (int, []byte) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, w.base+path, rd)
	if err != nil {
		return 0, nil
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := workloadClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case resp.StatusCode >= 500 && resp.StatusCode != 503:
		w.errors5xx++
		if w.firstError == "" {
			w.firstError = fmt.Sprintf("%s %s: %d %s", method, path, resp.StatusCode, out)
		}
	case resp.StatusCode < 300 && method != "GET":
		w.changes++
	}
	return resp.StatusCode, out
}

func (w *workload) serverErrors() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.errors5xx
}

func (w *workload) newGroup(t *testing.T) string {
	t.Helper()
	status, body := w.call("POST", "/api/v1/groups", map[string]string{"name": "Kill club"})
	var g struct{ ID string }
	if err := json.Unmarshal(body, &g); status != 201 || err != nil {
		t.Fatalf("new group: %d %s", status, body)
	}
	return g.ID
}

var workloadNames = []string{"Ana", "Ben", "Cleo", "Dan", "Eve", "Finn"}

// hotelPlay is a finished Insektenhotel play of 2 or 3 random players.
func hotelPlay(r *rand.Rand) []map[string]any {
	colours := []string{"blue", "red", "green"}
	perm := r.Perm(len(workloadNames))
	var players []map[string]any
	for i := range 2 + r.IntN(2) {
		fly := r.IntN(2)
		if i == 0 {
			fly = 2 // the first hotel is full: the game is over
		}
		players = append(players, map[string]any{"name": workloadNames[perm[i]], "board": json.RawMessage(fmt.Sprintf(
			`{"hotel": %q, "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": %d}]}`,
			colours[i], fly))})
	}
	return players
}

// run makes changes until stop.
func (w *workload) run(r *rand.Rand, stop <-chan struct{}) {
	q := "?group=" + w.group
	for {
		select {
		case <-stop:
			return
		default:
		}
		switch op := r.IntN(20); {
		case op < 7:
			finished := time.Date(2026, 1, 1, 20, 0, 0, 0, time.UTC).Add(time.Duration(r.IntN(5000)) * time.Minute)
			w.call("POST", "/api/v1/plays"+q, map[string]any{"game": "insektenhotel", "finishedAt": finished, "players": hotelPlay(r)})
		case op < 10:
			if id := w.pickPlay(r); id != "" {
				w.call("PUT", "/api/v1/plays/"+id+q, map[string]any{"game": "insektenhotel", "players": hotelPlay(r)})
			}
		case op < 12:
			if id := w.pickPlay(r); id != "" {
				w.call("DELETE", "/api/v1/plays/"+id+q, nil)
			}
		case op < 14:
			if a, _ := w.pickPlayers(r); a != "" {
				w.call("PATCH", "/api/v1/players/"+a+q, map[string]string{"name": fmt.Sprintf("%s %d", workloadNames[r.IntN(6)], r.IntN(4))})
			}
		case op < 15:
			if a, b := w.pickPlayers(r); a != "" && a != b {
				w.call("POST", "/api/v1/players/"+a+"/merge"+q, map[string]string{"into": b})
			}
		case op < 19:
			w.finishTable(r)
		default:
			w.importCopy(r)
		}
	}
}

func (w *workload) pickPlay(r *rand.Rand) string {
	status, body := w.call("GET", "/api/v1/plays?limit=50&group="+w.group, nil)
	var list struct{ Plays []struct{ ID string } }
	if status != 200 || json.Unmarshal(body, &list) != nil || len(list.Plays) == 0 {
		return ""
	}
	return list.Plays[r.IntN(len(list.Plays))].ID
}

func (w *workload) pickPlayers(r *rand.Rand) (string, string) {
	status, body := w.call("GET", "/api/v1/groups/"+w.group+"/players", nil)
	var list struct{ Players []struct{ ID string } }
	if status != 200 || json.Unmarshal(body, &list) != nil || len(list.Players) == 0 {
		return "", ""
	}
	return list.Players[r.IntN(len(list.Players))].ID, list.Players[r.IntN(len(list.Players))].ID
}

// finishTable plays a table of two from its start to its finish.
func (w *workload) finishTable(r *rand.Rand) {
	players := hotelPlay(r)[:2]
	status, body := w.call("POST", "/api/v1/tables", map[string]any{"game": "insektenhotel", "group": w.group,
		"players": []any{players[0]["name"], players[1]["name"]}})
	var ct struct{ Code, HostToken string }
	if status != 201 || json.Unmarshal(body, &ct) != nil {
		return
	}
	for seat, p := range players {
		req, _ := http.NewRequest("PUT", fmt.Sprintf("%s/api/v1/tables/%s/seats/%d/board", w.base, ct.Code, seat),
			bytes.NewReader(p["board"].(json.RawMessage)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+ct.HostToken)
		if resp, err := workloadClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}
	req, _ := http.NewRequest("POST", w.base+"/api/v1/tables/"+ct.Code+"/finish", nil)
	req.Header.Set("Authorization", "Bearer "+ct.HostToken)
	if resp, err := workloadClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// importCopy exports the group and imports it as a new one, every id
// drawn anew.
func (w *workload) importCopy(r *rand.Rand) {
	status, body := w.call("GET", "/api/v1/groups/"+w.group+"/export", nil)
	if status != 200 {
		return
	}
	var file map[string]any
	if json.Unmarshal(body, &file) != nil {
		return
	}
	ids := map[string]string{}
	fresh := func(old any, n int) string {
		s, _ := old.(string)
		if _, ok := ids[s]; !ok {
			b := make([]byte, n)
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			ids[s] = strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
		}
		return ids[s]
	}
	g := file["group"].(map[string]any)
	g["id"] = fresh(g["id"], 20)
	for _, p := range file["players"].([]any) {
		p.(map[string]any)["id"] = fresh(p.(map[string]any)["id"], 10)
	}
	for _, p := range file["plays"].([]any) {
		play := p.(map[string]any)
		play["id"] = fresh(play["id"], 10)
		for _, pp := range play["players"].([]any) {
			pp.(map[string]any)["playerId"] = fresh(pp.(map[string]any)["playerId"], 10)
		}
	}
	w.call("POST", "/api/v1/groups/import", file)
}

// keptFigures are every player's kept figures; recountedFigures the same
// counted over play_players.
const (
	keptFigures      = `SELECT group_id, game, player_id, plays, wins, score_sum, best_score, rated_plays FROM player_stats`
	recountedFigures = `SELECT p.group_id, p.game, pp.player_id, COUNT(*),
		SUM(CASE WHEN pp.winner THEN 1 ELSE 0 END), SUM(pp.total), MAX(pp.total),
		SUM(CASE WHEN (SELECT COUNT(*) FROM play_players o WHERE o.play_id = pp.play_id) > 1 THEN 1 ELSE 0 END)
		FROM play_players pp JOIN plays p ON p.id = pp.play_id
		JOIN groups g ON g.id = p.group_id WHERE g.importing_until IS NULL
		GROUP BY p.group_id, p.game, pp.player_id`
)

type figureKey struct{ group, game, player string }

type figureCounts struct{ plays, wins, scoreSum, best, rated int64 }

// figuresIn reads figure rows (keptFigures or recountedFigures) from a
// database or one of its transactions.
func figuresIn(t *testing.T, db interface {
	Query(string, ...any) (*sql.Rows, error)
}, q string) map[figureKey]figureCounts {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[figureKey]figureCounts{}
	for rows.Next() {
		var (
			k figureKey
			c figureCounts
		)
		if err := rows.Scan(&k.group, &k.game, &k.player, &c.plays, &c.wins, &c.scoreSum, &c.best, &c.rated); err != nil {
			t.Fatal(err)
		}
		out[k] = c
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// sameFiguresIn wants the kept figures of every group not being imported
// to equal a recount, read in one transaction.
func sameFiguresIn(t *testing.T, conn *sql.DB, when string) {
	t.Helper()
	tx, err := conn.BeginTx(context.Background(), &sql.TxOptions{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	importing := map[string]bool{}
	rows, err := tx.Query(`SELECT id FROM groups WHERE importing_until IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		rows.Scan(&id)
		importing[id] = true
	}
	rows.Close()
	kept := map[figureKey]figureCounts{}
	all := figuresIn(t, tx, keptFigures)
	for k, v := range all {
		if !importing[k.group] {
			kept[k] = v
		}
	}
	if diff := figuresDiff(kept, figuresIn(t, tx, recountedFigures)); diff != "" {
		t.Errorf("%s: the kept figures differ from a recount over play_players: %s", when, diff)
	}
}

func rebuildsLeft(t *testing.T, conn *sql.DB) int {
	t.Helper()
	var n int
	if err := conn.QueryRow(`SELECT COUNT(*) FROM rating_rebuilds`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// figuresDiff names the rows where kept and want differ, or "".
func figuresDiff(kept, want map[figureKey]figureCounts) string {
	var b strings.Builder
	n := 0
	for k, v := range want {
		if kept[k] != v {
			if n++; n <= 3 {
				fmt.Fprintf(&b, "\n  %v: kept %+v, want %+v", k, kept[k], v)
			}
		}
	}
	for k, v := range kept {
		if _, ok := want[k]; !ok {
			if n++; n <= 3 {
				fmt.Fprintf(&b, "\n  %v: kept %+v, want no row", k, v)
			}
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d rows%s", n, b.String())
}

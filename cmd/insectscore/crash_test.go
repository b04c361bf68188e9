package main

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"insectscore/models"
	"insectscore/models/pgtest"
)

// TestCrashBetweenChangeAndAnswer: a play logged with an Idempotency-Key
// and a server killed (SIGKILL) the moment the play commits. A retry with
// the same key after the pending timeout is a replay of the first answer,
// and the group holds one play. Before the answer was kept in the change's
// own transaction, the killed server left the key pending, the retry took
// it over and recorded the play again.
func TestCrashBetweenChangeAndAnswer(t *testing.T) {
	dsns := map[string]struct{ driver, dsn string }{
		"sqlite": {"sqlite3", filepath.Join(t.TempDir(), "crash.db")},
	}
	if pg := os.Getenv("INSECTSCORE_TEST_POSTGRES"); pg != "" {
		dsns["postgres"] = struct{ driver, dsn string }{"pgx", pgtest.Schema(t, pg)}
	}
	hotel := func(colour string, guests int) string {
		return `{"hotel": "` + colour + `", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": ` +
			string(rune('0'+guests)) + `}]}`
	}
	body := `{"game": "insektenhotel", "players": [{"name": "Ana", "board": ` + hotel("blue", 2) + `}, {"name": "Ben", "board": ` + hotel("red", 1) + `}]}`
	for name, db := range dsns {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			send := func(base string) (*http.Response, error) {
				req, err := http.NewRequest("POST", base+"/api/v1/plays", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", "crash-test-key")
				return http.DefaultClient.Do(req)
			}
			crashing := startMain(t, dir, []string{"INSECTSCORE_TEST_CRASH=after-change"}, "-db", db.dsn, "-addr", "127.0.0.1:0")
			base := "http://" + crashing.listenAddr(t)
			if resp, err := send(base); err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				t.Fatalf("the server answered %d %s; it was to die first", resp.StatusCode, b)
			}
			crashing.wait(t, 10*time.Second)

			// The pending timeout runs out: the key is as old as that.
			conn, err := sql.Open(db.driver, db.dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.Exec("UPDATE idempotency_keys SET created_at = $1", time.Now().UTC().Add(-models.PendingTimeout-time.Minute)); err != nil {
				t.Fatal(err)
			}

			restarted := startMain(t, dir, nil, "-db", db.dsn, "-addr", "127.0.0.1:0")
			base = "http://" + restarted.listenAddr(t)
			resp, err := send(base)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 201 || resp.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("the retry: %d, Idempotent-Replayed %q, want a replay of the 201: %s", resp.StatusCode, resp.Header.Get("Idempotent-Replayed"), b)
			}
			list, err := http.Get(base + "/api/v1/plays")
			if err != nil {
				t.Fatal(err)
			}
			defer list.Body.Close()
			var plays struct{ Plays []struct{ ID string } }
			if err := json.NewDecoder(list.Body).Decode(&plays); err != nil {
				t.Fatal(err)
			}
			if len(plays.Plays) != 1 {
				t.Errorf("%d plays after the crash and the retry, want 1", len(plays.Plays))
			}
			var first struct{ ID string }
			if err := json.Unmarshal(b, &first); err == nil && len(plays.Plays) == 1 && first.ID != plays.Plays[0].ID {
				t.Errorf("the replay names play %q, the group holds %q", first.ID, plays.Plays[0].ID)
			}
		})
	}
}

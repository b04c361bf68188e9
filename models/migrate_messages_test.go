package models

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"insectscore/scoring"
)

// recordedRequest is a score request the rules' tests recorded
// (scoring/testdata/requests.json).
func recordedRequest(t *testing.T, name string) (string, scoring.Request) {
	t.Helper()
	raw, err := os.ReadFile("../scoring/testdata/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var all []struct{ Name, Game, Body string }
	if err := json.Unmarshal(raw, &all); err != nil {
		t.Fatal(err)
	}
	for _, rc := range all {
		if rc.Name == name {
			var req scoring.Request
			if err := json.Unmarshal([]byte(rc.Body), &req); err != nil {
				t.Fatal(err)
			}
			return rc.Game, req
		}
	}
	t.Fatalf("no recorded request %q", name)
	return "", scoring.Request{}
}

// catalogOf is the app's catalog of lang.
func catalogOf(t *testing.T, lang string) scoring.Catalog {
	t.Helper()
	raw, err := os.ReadFile("../pwa/assets/i18n/" + lang + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var c scoring.Catalog
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestMigrationKeysStoredSentences opens a database as release 15 left
// it, with plays stored as that code stored them (the result's JSON, its
// sentences in English only), and migrates it: the warnings and tie
// sentences the boards write again are kept by key, and a German or
// Spanish reader gets them translated; a sentence whose stored English
// the boards do not write again, and a play that no longer scores, stay
// English text.
func TestMigrationKeysStoredSentences(t *testing.T) {
	shared := "TestInsectaTiebreak/End_of_the_game/still_tied,_the_players_share_the_victory"
	wins := "TestInsectaTiebreak/End_of_the_game/a_tile_without_a_name_counts_by_continent,_order_and_size"
	totals := "TestInsectariumTotals/issue_8/a_missing_line_counts_0,_a_missing_tiebreak_0_with_a_warning"
	eachBackend(t, func(t *testing.T, dsn string) {
		old := openList(t, dsn, migrations[:15])
		at := time.Date(2026, 5, 1, 19, 0, 0, 0, time.UTC)
		fresh := map[string]*scoring.Result{}
		store := func(id, recorded string, edit func(standings string) string) {
			game, req := recordedRequest(t, recorded)
			g, _ := scoring.Lookup(game)
			res, err := scoring.Score(g, req)
			if err != nil {
				t.Fatal(err)
			}
			fresh[id] = res
			standings, err := json.Marshal(res) // as release 15 stored it
			if err != nil {
				t.Fatal(err)
			}
			seats := make([]seatRow, len(req.Players))
			for i, p := range req.Players {
				b := string(p.Board)
				seats[i] = seatRow{Seat: i, Name: p.Name, Board: &b}
			}
			boards, _ := encodeBoards(seats)
			variants, _ := encodeVariants(req.Variants)
			if edit != nil {
				standings = []byte(edit(string(standings)))
			}
			if err := old.db.Exec(`INSERT INTO plays (id, group_id, game, variants, boards, standings, started_at, finished_at)
				VALUES (?, 'default', ?, ?, ?, ?, ?, ?)`, id, game, variants, boards, string(standings), at, at).Error; err != nil {
				t.Fatal(err)
			}
		}
		store("shared", shared, nil)
		store("wins", wins, nil)
		store("sheet", totals, nil)
		// Stored by an older wording: the tie sentence and one warning
		// are not what the rules write today.
		store("edited", wins, func(s string) string {
			s = strings.Replace(s, "wins the tie on", "won the tie on", 1)
			return strings.Replace(s, `"detail":"`, `"detail":"(old) `, 1)
		})
		// Boards that no longer score (a game this server does not know).
		store("gone", shared, func(s string) string { return s })
		if err := old.db.Exec(`UPDATE plays SET game = 'chess' WHERE id = 'gone'`).Error; err != nil {
			t.Fatal(err)
		}
		old.Close()

		s := openStore(t, dsn)
		var rows []struct {
			ID       string
			Messages *string
		}
		if err := s.db.Raw("SELECT id, messages FROM plays ORDER BY id").Scan(&rows).Error; err != nil {
			t.Fatal(err)
		}
		keyed := map[string]scoring.ResultMessages{}
		for _, r := range rows {
			if r.Messages != nil {
				keyed[r.ID] = decodeMessages(r.Messages)
			}
		}
		if len(keyed) != 4 || keyed["gone"].Tiebreak != nil {
			t.Fatalf("plays given messages: %v; want shared, wins, sheet and edited", keyed)
		}
		if m := keyed["edited"]; m.Tiebreak != nil || len(flat(m.Warnings)) != 2 || !flat(m.Warnings)[0].IsZero() || flat(m.Warnings)[1].IsZero() {
			t.Errorf("edited play's messages %+v: want the tie sentence and the first warning left, the second keyed", m)
		}
		for _, lang := range []string{"de", "es"} {
			cat := catalogOf(t, lang)
			for _, id := range []string{"shared", "wins", "sheet"} {
				p, err := s.FindPlay(ctx, DefaultGroup, id)
				if err != nil {
					t.Fatal(err)
				}
				var res scoring.Result
				if err := json.Unmarshal(p.Standings, &res); err != nil {
					t.Fatal(err)
				}
				res.SetMessages(p.Messages)
				got, want := cat.Result(&res), cat.Result(fresh[id])
				if got.Tiebreak != want.Tiebreak || got.Tiebreak == fresh[id].Tiebreak {
					t.Errorf("%s in %s: tie sentence %q, want %q", id, lang, got.Tiebreak, want.Tiebreak)
				}
				n := 0
				for i := range got.Results {
					for k, w := range got.Results[i].Warnings {
						n++
						if w.Detail != want.Results[i].Warnings[k].Detail || w.Detail == fresh[id].Results[i].Warnings[k].Detail {
							t.Errorf("%s in %s: warning %q, want %q", id, lang, w.Detail, want.Results[i].Warnings[k].Detail)
						}
					}
				}
				if n == 0 {
					t.Errorf("%s: no warning to translate", id)
				}
			}
			// Left as text: the English stored, whatever the language.
			p, err := s.FindPlay(ctx, DefaultGroup, "edited")
			if err != nil {
				t.Fatal(err)
			}
			var res scoring.Result
			if err := json.Unmarshal(p.Standings, &res); err != nil {
				t.Fatal(err)
			}
			res.SetMessages(p.Messages)
			got := cat.Result(&res)
			gw, sw := flat(warningsOf(got)), flat(warningsOf(&res))
			if got.Tiebreak != res.Tiebreak || gw[0].Detail != sw[0].Detail || gw[1].Detail == sw[1].Detail {
				t.Errorf("edited play in %s: %q, %+v", lang, got.Tiebreak, gw)
			}
		}
		// Once: opening again converts nothing more, and changes nothing.
		var before []string
		s.db.Raw("SELECT COALESCE(messages, '') FROM plays ORDER BY id").Scan(&before)
		s.Close()
		s = openStore(t, dsn)
		var after []string
		s.db.Raw("SELECT COALESCE(messages, '') FROM plays ORDER BY id").Scan(&after)
		if strings.Join(before, "\n") != strings.Join(after, "\n") {
			t.Errorf("a second open changed the messages")
		}
	})
}

// flat lists the items of lists in order.
func flat[T any](lists [][]T) []T {
	var out []T
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// warningsOf is each player's warnings.
func warningsOf(r *scoring.Result) [][]scoring.FieldError {
	out := make([][]scoring.FieldError, len(r.Results))
	for i, p := range r.Results {
		out[i] = p.Warnings
	}
	return out
}

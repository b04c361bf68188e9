package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

// buildHistory gives group a history that uses every part of the format:
// finished tables with boards and variants, logged plays, a rename, a
// merge, an edit and a delete, and names that JSON could mangle. Every
// play is scored by the rules, as an import scores it again.
func buildHistory(t *testing.T, s *Store, group string) {
	t.Helper()
	// The store's rebuild worker reads the clock too.
	var mu sync.Mutex
	clock := t0
	s.Now = func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(17*time.Minute + 123456*time.Microsecond)
		return clock
	}
	tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insecta", Group: group, Names: []string{"Ana <&>", "Ben"},
		Variants: map[string]int{"oneFragment": 1}, Boards: []json.RawMessage{
			json.RawMessage(`{"totals": {"track": 3, "fragments": 1, "distinctInsects": 2}}`),
			json.RawMessage(`{"totals": {"track": 30, "continents": 5}}`)}})
	if err != nil {
		t.Fatal(err)
	}
	finishScored(t, s, tbl.Code, host)
	tbl, host, _ = s.CreateTable(ctx, NewTable{Game: "insectarium", Group: group, Names: []string{"Zoë", "ana <&>", "Cleo"},
		Boards: []json.RawMessage{sheet("insectarium", 20), sheet("insectarium", 31), sheet("insectarium", 20)}})
	finishScored(t, s, tbl.Code, host)
	for _, p := range handHistory {
		logScoredPlay(t, s, group, p)
	}
	logScoredPlay(t, s, group, hplay{"insectarium", 30 * time.Minute, []string{"Anna"}, []int{44}})
	logScoredPlay(t, s, group, hplay{"insektenhotel", 90 * time.Minute, []string{"Dan", "Cleo"}, []int{6, 2}})
	gone := logScoredPlay(t, s, group, hplay{"insecta", 5 * time.Hour, []string{"Ben", "Cleo"}, []int{1, 2}})
	if err := s.DeletePlay(ctx, group, gone); err != nil {
		t.Fatal(err)
	}
	edited := logScoredPlay(t, s, group, hplay{"insecta", 6 * time.Hour, []string{"Ben", "Cleo"}, []int{1, 2}})
	lp, res := hplay{"insecta", 6 * time.Hour, []string{"Ben", "Cleo", "Dan"}, []int{9, 2, 4}}.scored(t)
	if err := s.EditPlay(ctx, group, edited, lp, res); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RenamePlayer(ctx, group, playerID(t, s, group, "Ben"), "Benedikt"); err != nil {
		t.Fatal(err)
	}
	if err := s.MergePlayers(ctx, group, playerID(t, s, group, "Anna"), playerID(t, s, group, "Ana")); err != nil {
		t.Fatal(err)
	}
	settle(t, s)
}

func export(t *testing.T, s *Store, group string) []byte {
	t.Helper()
	b, err := s.ExportGroup(ctx, group)
	if err != nil {
		t.Fatalf("ExportGroup: %v", err)
	}
	return b
}

// TestExportImportRoundTrip exports a group, imports it into an empty
// database and exports it again: the bytes must not change, and neither
// may anything the group's pages show.
func TestExportImportRoundTrip(t *testing.T) {
	type pair struct {
		name     string
		from, to func(t testing.TB) string
	}
	var pairs []pair
	for _, b := range backends() {
		pairs = append(pairs, pair{b.name, b.dsn, b.dsn})
	}
	if bs := backends(); len(bs) == 2 {
		pairs = append(pairs, pair{"sqlite to postgres", bs[0].dsn, bs[1].dsn}, pair{"postgres to sqlite", bs[1].dsn, bs[0].dsn})
	}
	for _, p := range pairs {
		t.Run(p.name, func(t *testing.T) {
			src := openStore(t, p.from(t))
			g, err := src.CreateGroup(ctx, "Thursday <club> & friends")
			if err != nil {
				t.Fatal(err)
			}
			buildHistory(t, src, g.ID)
			buildHistory(t, src, DefaultGroup)
			for _, group := range []string{g.ID, DefaultGroup} {
				want := export(t, src, group)
				dst := openStore(t, p.to(t))
				imported, err := dst.ImportGroup(ctx, want)
				if err != nil {
					t.Fatalf("ImportGroup: %v", err)
				}
				wantGroup, _ := src.FindGroup(ctx, group)
				if !reflect.DeepEqual(imported, wantGroup) {
					t.Errorf("imported group = %+v, want %+v", imported, wantGroup)
				}
				if got := export(t, dst, group); !bytes.Equal(got, want) {
					t.Errorf("export after import differs:\n got %s\nwant %s", got, want)
				}
				sameGroup(t, dst, src, group)
				_, err = dst.ImportGroup(ctx, want)
				var conflict *ConflictError
				if !errors.As(err, &conflict) {
					t.Errorf("import the same group twice: err = %v, want a *ConflictError", err)
				}
			}
		})
	}
}

// sameGroup compares what the pages of a group show in two stores.
func sameGroup(t *testing.T, got, want *Store, group string) {
	t.Helper()
	for _, game := range []string{"insecta", "insectarium", "insektenhotel"} {
		if g, w := leaderboard(t, got, group, game), leaderboard(t, want, group, game); !reflect.DeepEqual(g, w) {
			t.Errorf("%s leaderboard:\n got %s\nwant %s", game, show(g), show(w))
		}
	}
	players, _ := want.ListPlayers(ctx, group)
	if g, _ := got.ListPlayers(ctx, group); !reflect.DeepEqual(g, players) {
		t.Errorf("players:\n got %+v\nwant %+v", g, players)
	}
	for _, p := range players {
		g, err := got.PlayerStats(ctx, group, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.PlayerStats(ctx, group, p.ID)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("stats of %s:\n got %+v\nwant %+v", p.Name, g, w)
		}
	}
	plays, _, _ := want.ListPlays(ctx, PlayFilter{Group: group, Limit: MaxPlayLimit})
	for _, p := range plays {
		g, err := got.FindPlay(ctx, group, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		w, _ := want.FindPlay(ctx, group, p.ID)
		// The table stays on the server it was played at, and JSON is
		// stored without insignificant space.
		w.TableCode = ""
		for i := range w.Players {
			if w.Players[i].Board != nil {
				var b bytes.Buffer
				json.Compact(&b, w.Players[i].Board)
				w.Players[i].Board = b.Bytes()
			}
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("play %s:\n got %+v\nwant %+v", p.ID, g, w)
		}
	}
}

func TestExportFormat(t *testing.T) {
	s := openStore(t, backends()[0].dsn(t))
	s.Now = func() time.Time { return t0 }
	g, _ := s.CreateGroup(ctx, "Club")
	s.Rand = bytes.NewReader(make([]byte, 1000)) // player ids "aaaa…"
	logPlay(t, s, g.ID, hplay{"insectarium", time.Hour + 5*time.Microsecond, []string{"Ana"}, []int{38}})
	got := string(export(t, s, g.ID))
	want := `{
  "format": "insectscore-group",
  "formatVersion": 2,
  "group": {
    "id": "` + g.ID + `",
    "name": "Club",
    "createdAt": "2025-04-01T18:00:00Z"
  },
  "players": [
    {
      "id": "aaaaaaaaaaaaaaaa",
      "name": "Ana",
      "createdAt": "2025-04-01T18:00:00Z"
    }
  ],
  "plays": [
    {
      "id": "aaaaaaaaaaaaaaaa",
      "game": "insectarium",
      "variants": {},
      "startedAt": "2025-04-01T18:20:00.000005Z",
      "finishedAt": "2025-04-01T19:00:00.000005Z",
      "standings": {
        "game": "insectarium",
        "complete": true,
        "winners": [
          0
        ],
        "results": [
          {
            "name": "Ana",
            "total": 38,
            "rank": 1,
            "winner": true,
            "breakdown": [
              {
                "key": "track",
                "label": "Scoring track",
                "points": 38
              }
            ],
            "tiebreaks": [],
            "warnings": []
          }
        ]
      },
      "players": [
        {
          "seat": 0,
          "playerId": "aaaaaaaaaaaaaaaa",
          "nameAsEntered": "Ana",
          "total": 38,
          "rank": 1,
          "winner": true,
          "breakdown": [
            {
              "key": "track",
              "label": "Scoring track",
              "points": 38
            }
          ],
          "board": {
            "track": 38
          }
        }
      ],
      "notes": "",
      "location": "",
      "startPlayer": null
    }
  ]
}
`
	if got != want {
		t.Errorf("export:\n%s\nwant\n%s", got, want)
	}
	_, err := s.ExportGroup(ctx, "nosuchgroup")
	wantErr(t, "export of an unknown group", err, ErrNotFound)
}

// TestImportRefuses: a file that is not an export of this format, or whose
// plays are impossible, is refused with the reason and, when it is one
// place of the file, a pointer to it; a file that collides with groups
// already here is a conflict that says with what. Nothing of a refused
// file is kept.
func TestImportRefuses(t *testing.T) {
	src := openStore(t, backends()[0].dsn(t))
	g, _ := src.CreateGroup(ctx, "Club")
	buildHistory(t, src, g.ID)
	good := export(t, src, g.ID)
	edit := func(fn func(f map[string]any)) []byte {
		var f map[string]any
		if err := json.Unmarshal(good, &f); err != nil {
			t.Fatal(err)
		}
		fn(f)
		return marshal(t, f)
	}
	plays := func(f map[string]any) []any { return f["plays"].([]any) }
	// Plays 0 and 1 are the first two Insecta plays of the file, wherever
	// they are in it; P0 and P1 point at them.
	var index []int
	var whole map[string]any
	json.Unmarshal(good, &whole)
	for i, p := range plays(whole) {
		if p.(map[string]any)["game"] == "insecta" && len(index) < 2 {
			index = append(index, i)
		}
	}
	P0, P1 := fmt.Sprintf("/plays/%d", index[0]), fmt.Sprintf("/plays/%d", index[1])
	play := func(f map[string]any, i int) map[string]any { return plays(f)[index[i]].(map[string]any) }
	firstPlayer := func(f map[string]any) map[string]any {
		return play(f, 0)["players"].([]any)[0].(map[string]any)
	}
	tests := []struct {
		name    string
		data    []byte
		want    string // in the message
		pointer string // of the one error; "" for none
		clash   bool   // a *ConflictError
	}{
		{"newer format", edit(func(f map[string]any) { f["formatVersion"] = ExportFormatVersion + 1 }),
			"this file was written by a newer insectscore (format 3); this server reads format 2", "", false},
		{"not an export", []byte(`{"hello": "world"}`), "not an insectscore group export", "", false},
		{"not JSON", []byte(`insectscore`), "not an insectscore group export", "", false},
		{"no version", edit(func(f map[string]any) { delete(f, "formatVersion") }), "no valid format version", "", false},
		{"unknown field", edit(func(f map[string]any) { f["ratings"] = []int{} }), "does not read as format 2", "/ratings", false},
		{"unknown field of a player", edit(func(f map[string]any) { firstPlayer(f)["elo"] = 1 }), "not a field", P0 + "/players/0/elo", false},
		{"unknown player", edit(func(f map[string]any) { firstPlayer(f)["playerId"] = "nobody" }), "not in the file's players", P0 + "/players/0/playerId", false},
		{"unknown game", edit(func(f map[string]any) { play(f, 0)["game"] = "chess" }), `does not know the game "chess"`, P0 + "/game", false},
		{"bad group id", edit(func(f map[string]any) { f["group"].(map[string]any)["id"] = "../x" }), "group id", "/group/id", false},
		{"invisible group name", edit(func(f map[string]any) { f["group"].(map[string]any)["name"] = "\u200b" }), "name", "/group/name", false},
		{"same name twice", edit(func(f map[string]any) {
			ps := f["players"].([]any)
			ps[1].(map[string]any)["name"] = strings.ToUpper(ps[0].(map[string]any)["name"].(string))
		}), "same name", "/players/1/name", false},
		{"same name but for a zero-width space", edit(func(f map[string]any) {
			ps := f["players"].([]any)
			name := ps[0].(map[string]any)["name"].(string)
			ps[1].(map[string]any)["name"] = name[:1] + "\u200b" + name[1:]
		}), "same name", "/players/1/name", false},
		{"a NUL in a name", edit(func(f map[string]any) { f["players"].([]any)[0].(map[string]any)["name"] = "a\x00b" }), "not valid", "/players/0/name", false},
		{"a NUL in a board", edit(func(f map[string]any) { firstPlayer(f)["board"] = map[string]any{"totals": map[string]any{"x\x00": 1}} }),
			"NUL", P0 + "/players/0/board/totals/x\x00", false},
		{"five players", edit(func(f map[string]any) {
			ps := play(f, 0)["players"].([]any)
			play(f, 0)["players"] = append(ps, ps[0], ps[1], ps[0])
		}), "more than 4", P0 + "/players", false},
		{"one player of Insecta", edit(func(f map[string]any) { play(f, 0)["players"] = play(f, 0)["players"].([]any)[:1] }),
			"is played by 2 to 4 players, not 1", P0 + "/players", false},
		{"a board that breaks the rules", edit(func(f map[string]any) {
			firstPlayer(f)["board"] = map[string]any{"totals": map[string]any{"track": -5}}
		}), "Scoring track can be 0 to 300, not -5", P0 + "/players/0/board/totals/track", false},
		{"boards of a game not over", edit(func(f map[string]any) {
			for _, p := range play(f, 1)["players"].([]any) {
				p.(map[string]any)["board"] = nil
			}
		}), "do not make a finished game", P1 + "/players", false},
		{"a variant the game has not", edit(func(f map[string]any) { play(f, 0)["variants"] = map[string]any{"turbo": 1} }),
			"no variant", P0 + "/variants/turbo", false},
		{"a start after the finish", edit(func(f map[string]any) { play(f, 0)["startedAt"] = "2030-01-01T00:00:00Z" }),
			"cannot start after it finished", P0 + "/startedAt", false},
		{"no finish", edit(func(f map[string]any) { delete(play(f, 0), "finishedAt") }), "the time it finished", P0 + "/finishedAt", false},
		{"a seat out of order", edit(func(f map[string]any) { firstPlayer(f)["seat"] = 3 }), "has seat 3", P0 + "/players/0/seat", false},
		{"a play id twice", edit(func(f map[string]any) { play(f, 1)["id"] = play(f, 0)["id"] }), "listed twice", P1 + "/id", false},
		{"group already here", good, "already on this server with its own history", "", true},
		{"players of another group", edit(func(f map[string]any) { f["group"].(map[string]any)["id"] = "othergroup" }),
			"belongs to another group on this server", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := src.ImportGroup(ctx, tt.data)
			if tt.clash {
				var ce *ConflictError
				if !errors.As(err, &ce) || !strings.Contains(ce.String(), tt.want) {
					t.Errorf("ImportGroup: err = %v, want a *ConflictError saying %q", err, tt.want)
				}
			} else {
				var ie *ImportError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("ImportGroup: err = %v, want an *ImportError saying %q", err, tt.want)
				}
				var pointers []string
				for _, fe := range ie.Errors {
					pointers = append(pointers, fe.Pointer)
				}
				if want := []string{tt.pointer}; tt.pointer == "" && len(pointers) > 0 || tt.pointer != "" && !reflect.DeepEqual(pointers, want) {
					t.Errorf("pointers %q, want %q", pointers, tt.pointer)
				}
			}
			if _, err := src.FindGroup(ctx, "othergroup"); !errors.Is(err, ErrNotFound) {
				t.Errorf("a refused import left its group: %v", err)
			}
		})
	}
	if got := export(t, src, g.ID); !bytes.Equal(got, good) {
		t.Error("refused imports changed the group")
	}
}

func TestExportPlaysCSV(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		first := logPlay(t, s, DefaultGroup, hplay{"insecta", time.Hour, []string{"Ben, Jr.", "=SUM(A1)"}, []int{20, 30}})
		second := logPlay(t, s, DefaultGroup, hplay{"insektenhotel", 2 * time.Hour, []string{"Ana", "ben, jr."}, []int{6, 6}})
		var buf bytes.Buffer
		if err := s.ExportPlaysCSV(ctx, DefaultGroup, &buf); err != nil {
			t.Fatal(err)
		}
		want := "play_id,finished_at,game,player,total,rank,winner,location,notes,start_player\n" +
			first + ",2025-04-01T19:00:00Z,insecta,\"Ben, Jr.\",20,2,false,,,\n" +
			first + ",2025-04-01T19:00:00Z,insecta,'=SUM(A1),30,1,true,,,\n" +
			second + ",2025-04-01T20:00:00Z,insektenhotel,Ana,6,1,true,,,\n" +
			second + ",2025-04-01T20:00:00Z,insektenhotel,\"Ben, Jr.\",6,1,true,,,\n"
		if got := buf.String(); got != want {
			t.Errorf("CSV:\n%s\nwant\n%s", got, want)
		}
		wantErr(t, "CSV of an unknown group", s.ExportPlaysCSV(ctx, "nosuchgroup", &buf), ErrNotFound)
	})
}

// TestExportPlaysCSVPages writes more plays than one page of the export
// reads.
func TestExportPlaysCSVPages(t *testing.T) {
	s := openStore(t, backends()[0].dsn(t))
	n := csvPage + 3
	seedHistory(t, s, DefaultGroup, n, 4)
	var buf bytes.Buffer
	if err := s.ExportPlaysCSV(ctx, DefaultGroup, &buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if got, want := len(lines), 1+3*n; got != want {
		t.Fatalf("%d lines, want %d", got, want)
	}
	seen := map[string]bool{}
	for _, l := range lines[1:] {
		seen[strings.SplitN(l, ",", 2)[0]] = true
	}
	if len(seen) != n {
		t.Errorf("%d distinct plays, want %d", len(seen), n)
	}
}

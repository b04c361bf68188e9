package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// buildHistory gives group a history that uses every part of the format:
// finished tables with boards and variants, logged plays, a rename, a
// merge, an edit and a delete, and names that JSON could mangle.
func buildHistory(t *testing.T, s *Store, group string) {
	t.Helper()
	clock := t0
	s.Now = func() time.Time { clock = clock.Add(17*time.Minute + 123456*time.Microsecond); return clock }
	tbl, _, err := s.CreateTable(ctx, NewTable{Game: "insecta", Group: group, Names: []string{"Ana <&>", "Ben"},
		Variants: map[string]int{"oneFragment": 1}, Boards: []json.RawMessage{json.RawMessage(`{"track": 3, "tiles": []}`), nil}})
	if err != nil {
		t.Fatal(err)
	}
	finish(t, s, tbl.Code)
	tbl, _, _ = s.CreateTable(ctx, NewTable{Game: "insectarium", Group: group, Names: []string{"Zoë", "ana <&>", "Cleo"}})
	finish(t, s, tbl.Code)
	for _, p := range handHistory {
		logPlay(t, s, group, p)
	}
	logPlay(t, s, group, hplay{"insectarium", 30 * time.Minute, []string{"Anna"}, []int{44}})
	logPlay(t, s, group, hplay{"insektenhotel", 90 * time.Minute, []string{"Dan", "Cleo"}, []int{6, 2}})
	gone := logPlay(t, s, group, hplay{"insecta", 5 * time.Hour, []string{"Ben", "Cleo"}, []int{1, 2}})
	if err := s.DeletePlay(ctx, group, gone); err != nil {
		t.Fatal(err)
	}
	edited := logPlay(t, s, group, hplay{"insecta", 6 * time.Hour, []string{"Ben", "Cleo"}, []int{1, 2}})
	lp, res := hplay{"insecta", 6 * time.Hour, []string{"Ben", "Cleo", "Dan"}, []int{9, 2, 4}}.logged()
	if err := s.EditPlay(ctx, group, edited, lp, res); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RenamePlayer(ctx, group, playerID(t, s, group, "Ben"), "Benedikt"); err != nil {
		t.Fatal(err)
	}
	if err := s.MergePlayers(ctx, group, playerID(t, s, group, "Anna"), playerID(t, s, group, "Ana")); err != nil {
		t.Fatal(err)
	}
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
  "formatVersion": 1,
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
      ]
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
	firstPlayer := func(f map[string]any) map[string]any {
		return plays(f)[0].(map[string]any)["players"].([]any)[0].(map[string]any)
	}
	tests := []struct {
		name string
		data []byte
		want string // in the message; "" for ErrConflict
	}{
		{"newer format", edit(func(f map[string]any) { f["formatVersion"] = 2 }),
			"this file was written by a newer insectscore (format 2); this server reads format 1"},
		{"not an export", []byte(`{"hello": "world"}`), "not an insectscore group export"},
		{"not JSON", []byte(`insectscore`), "not an insectscore group export"},
		{"no version", edit(func(f map[string]any) { delete(f, "formatVersion") }), "no valid format version"},
		{"unknown field", edit(func(f map[string]any) { f["ratings"] = []int{} }), "does not read as format 1"},
		{"unknown player", edit(func(f map[string]any) { firstPlayer(f)["playerId"] = "nobody" }), "not in the file's players"},
		{"unknown game", edit(func(f map[string]any) { plays(f)[0].(map[string]any)["game"] = "chess" }), `does not know the game "chess"`},
		{"bad group id", edit(func(f map[string]any) { f["group"].(map[string]any)["id"] = "../x" }), "group id"},
		{"same name twice", edit(func(f map[string]any) {
			ps := f["players"].([]any)
			ps[1].(map[string]any)["name"] = strings.ToUpper(ps[0].(map[string]any)["name"].(string))
		}), "same name"},
		{"breakdown not an array", edit(func(f map[string]any) { firstPlayer(f)["breakdown"] = "x" }), "breakdown"},
		{"group already here", good, ""},
		{"players of another group", edit(func(f map[string]any) { f["group"].(map[string]any)["id"] = "othergroup" }), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := src.ImportGroup(ctx, tt.data)
			if tt.want == "" {
				wantErr(t, "ImportGroup", err, ErrConflict)
			} else if !errors.Is(err, ErrBadImport) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ImportGroup: err = %v, want an ErrBadImport saying %q", err, tt.want)
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
		want := "play_id,finished_at,game,player,total,rank,winner\n" +
			first + ",2025-04-01T19:00:00Z,insecta,\"Ben, Jr.\",20,2,false\n" +
			first + ",2025-04-01T19:00:00Z,insecta,'=SUM(A1),30,1,true\n" +
			second + ",2025-04-01T20:00:00Z,insektenhotel,Ana,6,1,true\n" +
			second + ",2025-04-01T20:00:00Z,insektenhotel,\"Ben, Jr.\",6,1,true\n"
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

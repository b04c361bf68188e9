package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"insectscore/scoring"
)

// importFileOf is an export of one group with plays of four Insecta
// players each, entered as totals sheets, in finish order: n plays among
// players players. hostile lets a test spoil what an import must not
// trust, play by play.
func importFileOf(t *testing.T, group string, n, players int, hostile func(i int, p map[string]any)) []byte {
	t.Helper()
	g, _ := scoring.Lookup("insecta")
	f := map[string]any{"format": ExportFormat, "formatVersion": 1,
		"group": map[string]any{"id": group, "name": "Imported", "createdAt": "2024-01-01T00:00:00Z"}}
	var ps, plays []any
	for i := range players {
		ps = append(ps, map[string]any{"id": fmt.Sprintf("p%04d%s", i, group), "name": fmt.Sprintf("Player %d", i), "createdAt": "2024-01-01T00:00:00Z"})
	}
	for i := range n {
		req := scoring.Request{}
		var ids []string
		for k := range 4 {
			j := (i*3 + k*7) % players
			ids = append(ids, fmt.Sprintf("p%04d%s", j, group))
			req.Players = append(req.Players, scoring.PlayerInput{Name: fmt.Sprintf("Player %d", j),
				Board: json.RawMessage(fmt.Sprintf(`{"totals": {"track": %d, "distinctInsects": %d}}`, 10+(i*7+k*5)%30, k))})
		}
		res, err := scoring.Score(g, req)
		if err != nil {
			t.Fatal(err)
		}
		finished := time.Date(2024, 1, 1, 20, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
		p := map[string]any{"id": fmt.Sprintf("play%05d%s", i, group), "game": "insecta", "variants": map[string]any{},
			"startedAt": finished.Add(-time.Hour), "finishedAt": finished, "standings": res}
		var pps []any
		for k, r := range res.Results {
			pps = append(pps, map[string]any{"seat": k, "playerId": ids[k], "nameAsEntered": r.Name, "total": r.Total,
				"rank": r.Rank, "winner": r.Winner, "breakdown": r.Breakdown, "board": req.Players[k].Board})
		}
		p["players"] = pps
		if hostile != nil {
			hostile(i, p)
		}
		plays = append(plays, p)
	}
	f["players"], f["plays"] = ps, plays
	return marshal(t, f)
}

// TestImportRescores: an import trusts none of the file's standings,
// totals, ranks or winners, and keeps an unknown start unknown. What the
// group then shows is what the rules make of the boards, the same as a
// rebuild from the rows would.
func TestImportRescores(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		honest := importFileOf(t, "honest", 6, 5, nil)
		hostile := importFileOf(t, "hostile", 6, 5, func(i int, p map[string]any) {
			switch i % 3 {
			case 0:
				p["standings"] = map[string]any{}
				delete(p, "startedAt")
			case 1:
				p["standings"] = "not even an object"
				p["startedAt"] = "0001-01-01T00:00:00Z"
			case 2:
				p["startedAt"] = nil
			}
			for _, pp := range p["players"].([]any) {
				pp.(map[string]any)["rank"], pp.(map[string]any)["total"], pp.(map[string]any)["winner"] = 0, 999, true
				pp.(map[string]any)["breakdown"] = "made up"
			}
		})
		for _, f := range [][]byte{honest, hostile} {
			if _, err := s.ImportGroup(ctx, f); err != nil {
				t.Fatalf("ImportGroup: %v", err)
			}
		}
		got, _, err := s.ListPlays(ctx, PlayFilter{Group: "hostile", Limit: MaxPlayLimit})
		if err != nil {
			t.Fatal(err)
		}
		want, _, _ := s.ListPlays(ctx, PlayFilter{Group: "honest", Limit: MaxPlayLimit})
		if len(got) != 6 || len(want) != 6 {
			t.Fatalf("%d and %d plays, want 6", len(got), len(want))
		}
		for i := range got {
			g, _ := s.FindPlay(ctx, "hostile", got[i].ID)
			w, _ := s.FindPlay(ctx, "honest", want[i].ID)
			if !bytes.Equal(g.Standings, w.Standings) {
				t.Errorf("play %d standings %s, want %s", i, g.Standings, w.Standings)
			}
			for k := range g.Players {
				gp, wp := g.Players[k], w.Players[k]
				if gp.Total != wp.Total || gp.Rank != wp.Rank || gp.Winner != wp.Winner || !reflect.DeepEqual(gp.Breakdown, wp.Breakdown) || gp.Rank < 1 {
					t.Errorf("play %d player %d: %+v, want %+v", i, k, gp, wp)
				}
			}
			if d := g.Duration(); i%3 == 1 || i%3 == 0 || i%3 == 2 {
				if d != 0 || !g.StartedAt.Equal(g.FinishedAt) {
					t.Errorf("play %d: started %v, lasted %v; want an unknown start", i, g.StartedAt, d)
				}
			}
		}
		for _, game := range []string{"insecta"} {
			if g, w := anonymous(leaderboard(t, s, "hostile", game)), anonymous(leaderboard(t, s, "honest", game)); !reflect.DeepEqual(g, w) {
				t.Errorf("leaderboard:\n got %s\nwant %s", show(g), show(w))
			}
		}
		// What the import computed is what a rebuild from the rows gives.
		before := leaderboard(t, s, "honest", "insecta")
		if err := s.RecomputeRatings(ctx); err != nil {
			t.Fatal(err)
		}
		if after := leaderboard(t, s, "honest", "insecta"); !reflect.DeepEqual(after, before) {
			t.Errorf("after a rebuild:\n got %s\nwant %s", show(after), show(before))
		}
	})
}

// TestImportCrowd: the play of 80,000 players is refused after its
// fifth player, before any work grows with the rest.
func TestImportCrowd(t *testing.T) {
	var buf bytes.Buffer
	const n = 80000
	buf.WriteString(`{"format": "insectscore-group", "formatVersion": 1, "group": {"id": "crowd", "name": "Crowd", "createdAt": "2020-01-01T00:00:00Z"}, "players": [`)
	for i := range n {
		if i > 0 {
			buf.WriteString(",")
		}
		fmt.Fprintf(&buf, `{"id":"p%d","name":"P%d","createdAt":"2020-01-01T00:00:00Z"}`, i, i)
	}
	buf.WriteString(`],"plays":[{"id":"crowd","game":"insecta","variants":{},"finishedAt":"2020-01-01T20:00:00Z","standings":{},"players":[`)
	for i := range n {
		if i > 0 {
			buf.WriteString(",")
		}
		fmt.Fprintf(&buf, `{"seat":%d,"playerId":"p%d","nameAsEntered":"P%d","total":%d,"rank":%d,"winner":false,"breakdown":[],"board":null}`, i, i, i, i, i+1)
	}
	buf.WriteString("]}]}")
	eachStore(t, func(t *testing.T, s *Store) {
		began := time.Now()
		_, err := s.ImportGroup(ctx, buf.Bytes())
		var ie *ImportError
		if !errors.As(err, &ie) || len(ie.Errors) != 1 || ie.Errors[0].Pointer != "/plays/0/players" {
			t.Fatalf("err = %v, want an ImportError at /plays/0/players", err)
		}
		if took := time.Since(began); took > 5*time.Second {
			t.Errorf("refused after %v", took)
		}
		if _, err := s.FindGroup(ctx, "crowd"); !errors.Is(err, ErrNotFound) {
			t.Errorf("the refused group is here: %v", err)
		}
	})
}

// TestImportInBatches: an import longer than one transaction hides its
// group until it ends, lets other writes in between its batches, and,
// cut short, leaves nothing behind.
func TestImportInBatches(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		const plays = 2*importPlaysPerTx + 17
		data := importFileOf(t, "big", plays, importPlayersPerTx+30, nil)
		tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insectarium", Names: []string{"Ana"}})
		if err != nil {
			t.Fatal(err)
		}
		batches, seen := 0, false
		s.importBatchDone = func() {
			batches++
			if batches != 3 {
				return
			}
			seen = true
			// Half-way: the group is hidden, its history cannot be
			// written, and other work goes on.
			if _, err := s.FindGroup(ctx, "big"); !errors.Is(err, ErrImporting) {
				t.Errorf("FindGroup half-way: %v, want ErrImporting", err)
			}
			if _, _, err := s.ListPlays(ctx, PlayFilter{Group: "big"}); !errors.Is(err, ErrImporting) || !errors.Is(err, ErrUnavailable) {
				t.Errorf("ListPlays half-way: %v, want ErrImporting", err)
			}
			if _, err := s.RenamePlayer(ctx, "big", "p0000big", "Someone else"); !errors.Is(err, ErrImporting) {
				t.Errorf("a write to the group half-way: %v, want ErrImporting", err)
			}
			if _, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: json.RawMessage(`{"supply": 1}`)}, nil); err != nil {
				t.Errorf("another write half-way: %v", err)
			}
		}
		if _, err := s.ImportGroup(ctx, data); err != nil {
			t.Fatal(err)
		}
		if !seen || batches < 6 {
			t.Fatalf("%d batches, want at least 6", batches)
		}
		list, _, err := s.ListPlays(ctx, PlayFilter{Group: "big", Limit: 1})
		if err != nil || len(list) != 1 {
			t.Fatalf("after the import: %v, %v", list, err)
		}
		if got := export(t, s, "big"); !bytes.Equal(got, exportOfImport(t, data)) {
			t.Error("the export differs from the file imported")
		}
		figuresMatchPlays(t, s, "after the import")

		// Cut short after the second batch: nothing stays.
		cut, cancel := context.WithCancel(ctx)
		batches = 0
		s.importBatchDone = func() {
			if batches++; batches == 2 {
				cancel()
			}
		}
		if _, err := s.ImportGroup(cut, importFileOf(t, "cut", plays, 40, nil)); err == nil {
			t.Fatal("an import cut short succeeded")
		}
		s.importBatchDone = nil
		if _, err := s.FindGroup(ctx, "cut"); !errors.Is(err, ErrNotFound) {
			t.Errorf("FindGroup of the import cut short: %v, want ErrNotFound", err)
		}
		for _, table := range []string{"plays", "players", "play_players", "player_stats", "rating_history", "player_scores", "head_to_head"} {
			var n int64
			q := "SELECT COUNT(*) FROM " + table + " WHERE " + map[bool]string{true: "play_id LIKE '%cut'", false: "group_id = 'cut'"}[table == "play_players"]
			if err := s.db.Raw(q).Scan(&n).Error; err != nil || n != 0 {
				t.Errorf("%s left: %d (%v)", table, n, err)
			}
		}
		if _, err := s.ImportGroup(ctx, importFileOf(t, "cut", 3, 40, nil)); err != nil {
			t.Errorf("importing the group again: %v", err)
		}
	})
}

// exportOfImport is data as an export writes it: indented, with the
// standings the rules give and each play's rows.
func exportOfImport(t *testing.T, data []byte) []byte {
	t.Helper()
	var f exportFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	// A file of an older format exports in today's.
	f.FormatVersion = ExportFormatVersion
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestAbandonedImport: an import whose server stopped half-way holds its
// lease no longer than importLease; the next start clears what it wrote,
// and the file imports again.
func TestAbandonedImport(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		now := t0
		s.Now = func() time.Time { return now }
		data := importFileOf(t, "gone", importPlaysPerTx+5, 10, nil)
		s.importBatchDone = func() { panic("the server stops") }
		func() {
			defer func() { recover() }()
			s.ImportGroup(ctx, data)
		}()
		s.importBatchDone = nil
		var n int64
		s.db.Raw("SELECT COUNT(*) FROM players WHERE group_id = 'gone'").Scan(&n)
		if n == 0 {
			t.Fatal("the abandoned import wrote nothing")
		}
		if _, err := s.ImportGroup(ctx, data); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "being imported") {
			t.Errorf("import while the lease holds: %v, want a conflict", err)
		}
		s.Close()

		now = now.Add(importLease + time.Second)
		s = openStore(t, dsn) // a start sweeps abandoned imports
		if _, err := s.FindGroup(ctx, "gone"); err != nil {
			t.Errorf("FindGroup after the sweep: %v, want the group, empty", err)
		}
		if list, _, err := s.ListPlays(ctx, PlayFilter{Group: "gone"}); err != nil || len(list) != 0 {
			t.Errorf("plays after the sweep: %d, %v; want none", len(list), err)
		}
		if _, err := s.ImportGroup(ctx, data); err != nil {
			t.Errorf("import after the sweep: %v", err)
		}
	})
}

// A group whose import is still being written is not listed among the groups.
func TestGroupsWithCountsLeavesImportsOut(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		ctx := context.Background()
		done, err := s.CreateGroup(ctx, "Done")
		if err != nil {
			t.Fatal(err)
		}
		busy, err := s.CreateGroup(ctx, "Busy")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.db.Model(&groupRow{}).Where("id = ?", busy.ID).Update("importing_until", time.Now().Add(time.Minute)).Error; err != nil {
			t.Fatal(err)
		}
		list, err := s.GroupsWithCounts(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, g := range list {
			names = append(names, g.Name)
			if g.ID == busy.ID {
				t.Errorf("the group being imported is listed: %+v", g)
			}
		}
		if !slices.Contains(names, done.Name) {
			t.Errorf("groups %q lack %q", names, done.Name)
		}
	})
}

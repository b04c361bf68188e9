package models

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func seatPtr(i int) *int { return &i }

// TestPlayNotes: a play keeps its notes, location and start player as
// cleaned, an edit replaces them, and what cannot be kept is refused.
func TestPlayNotes(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		lp, res := hplay{"insecta", time.Hour, []string{"Ana", "Ben"}, []int{30, 20}}.scored(t)
		lp.PlayNotes = PlayNotes{Notes: "  Close game.\nAna's first win  ", Location: " Cafe\u0301 Lupe ", StartSeat: seatPtr(1)}
		id, err := s.LogPlay(ctx, DefaultGroup, lp, res)
		if err != nil {
			t.Fatal(err)
		}
		p, err := s.FindPlay(ctx, DefaultGroup, id)
		if err != nil {
			t.Fatal(err)
		}
		want := PlayNotes{Notes: "Close game.\nAna's first win", Location: "Café Lupe", StartSeat: seatPtr(1)}
		if p.Notes != want.Notes || p.Location != want.Location || p.StartSeat == nil || *p.StartSeat != 1 {
			t.Errorf("play notes %+v (start %v), want %+v", p.PlayNotes, p.StartSeat, want)
		}

		lp.PlayNotes = PlayNotes{Location: "Home"}
		if err := s.EditPlay(ctx, DefaultGroup, id, lp, res); err != nil {
			t.Fatal(err)
		}
		p, _ = s.FindPlay(ctx, DefaultGroup, id)
		if p.Notes != "" || p.Location != "Home" || p.StartSeat != nil {
			t.Errorf("after the edit %+v, want only the location Home", p.PlayNotes)
		}

		for _, bad := range []PlayNotes{
			{StartSeat: seatPtr(2)},
			{StartSeat: seatPtr(-1)},
			{Notes: strings.Repeat("é", MaxNotesLength+1)},
			{Location: strings.Repeat("x", MaxLocationLength+1)},
			{Location: "two\nlines"},
			{Location: "\u200b"},
		} {
			lp.PlayNotes = bad
			if _, err := s.LogPlay(ctx, DefaultGroup, lp, res); !errors.Is(err, ErrBadPlayNotes) {
				t.Errorf("LogPlay with %+v: %v, want ErrBadPlayNotes", bad, err)
			}
			if err := s.EditPlay(ctx, DefaultGroup, id, lp, res); !errors.Is(err, ErrBadPlayNotes) {
				t.Errorf("EditPlay with %+v: %v, want ErrBadPlayNotes", bad, err)
			}
		}
		// The longest that may be kept is kept.
		lp.PlayNotes = PlayNotes{Notes: strings.Repeat("é", MaxNotesLength), Location: strings.Repeat("x", MaxLocationLength)}
		if _, err := s.LogPlay(ctx, DefaultGroup, lp, res); err != nil {
			t.Errorf("the longest notes and location: %v", err)
		}
	})
}

// TestListPlaysByLocation: the location filter matches as names do, and
// its pages cut by the cursor hold every play at the location once, in
// order, whatever the plays elsewhere between them.
func TestListPlaysByLocation(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		var home []string
		for i := range 7 {
			lp, res := hplay{"insecta", time.Duration(i+1) * time.Hour, []string{"Ana", "Ben"}, []int{30, 20}}.scored(t)
			lp.Location = []string{"Home", "Club", "home ", "HOME", "Café", "h o m e", "Home"}[i]
			id, err := s.LogPlay(ctx, DefaultGroup, lp, res)
			if err != nil {
				t.Fatal(err)
			}
			if nameKey(lp.Location) == "home" {
				home = append([]string{id}, home...) // newest first
			}
		}
		for _, q := range []string{"home", "  HoMe "} {
			var got []string
			cursor := ""
			for pages := 0; ; pages++ {
				if pages > 5 {
					t.Fatal("the pages do not end")
				}
				page, next, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Location: q, Limit: 2, Cursor: cursor})
				if err != nil {
					t.Fatal(err)
				}
				for _, p := range page {
					if nameKey(p.Location) != "home" {
						t.Errorf("filter %q listed a play at %q", q, p.Location)
					}
					got = append(got, p.ID)
				}
				if next == "" {
					break
				}
				cursor = next
			}
			if strings.Join(got, " ") != strings.Join(home, " ") {
				t.Errorf("filter %q: %v, want %v", q, got, home)
			}
		}
		page, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Location: "café", Game: "insecta"})
		if err != nil || len(page) != 1 || page[0].Location != "Café" {
			t.Errorf("café: %+v, %v", page, err)
		}
		page, _, err = s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Location: "nowhere"})
		if err != nil || len(page) != 0 {
			t.Errorf("nowhere: %+v, %v", page, err)
		}
	})
}

// TestFinishedTableStartPlayer: a play finished at an Insektenhotel table
// starts with the table's first seat; other tables name no start player.
func TestFinishedTableStartPlayer(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		full := json.RawMessage(`{"hotel": "blue", "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": 2}]}`)
		some := json.RawMessage(`{"hotel": "red", "floors": [{"species": "ladybird", "guests": 1}, {"species": "butterfly", "guests": 2}, {"species": "earwig", "guests": 0}]}`)
		tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insektenhotel", Names: []string{"Ana", "Ben", "Cy"}, First: 2})
		if err != nil {
			t.Fatal(err)
		}
		other := json.RawMessage(`{"hotel": "green", "floors": [{"species": "bee", "guests": 0}, {"species": "ant", "guests": 1}, {"species": "fly", "guests": 0}]}`)
		for i, b := range []json.RawMessage{some, other, full} {
			if _, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: i, Board: b}, nil); err != nil {
				t.Fatal(err)
			}
		}
		p, err := s.FindPlay(ctx, DefaultGroup, finishScored(t, s, tbl.Code, host))
		if err != nil {
			t.Fatal(err)
		}
		if p.StartSeat == nil || *p.StartSeat != 2 {
			t.Errorf("start seat %v, want 2", p.StartSeat)
		}

		tbl, host, err = s.CreateTable(ctx, NewTable{Game: "insectarium", Names: []string{"Ana"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.PutBoard(ctx, BoardPut{Code: tbl.Code, Token: host, Seat: 0, Board: sheet("insectarium", 20)}, nil); err != nil {
			t.Fatal(err)
		}
		p, _ = s.FindPlay(ctx, DefaultGroup, finishScored(t, s, tbl.Code, host))
		if p.StartSeat != nil {
			t.Errorf("an Insectarium table's play starts with seat %d, want none", *p.StartSeat)
		}
	})
}

// TestExportPlayNotes: format 2 carries the notes, location and start
// player, round trip, and the CSV has them on every row of the play.
func TestExportPlayNotes(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		g, _ := s.CreateGroup(ctx, "Club")
		lp, res := hplay{"insecta", time.Hour, []string{"Ana", "Ben"}, []int{30, 20}}.scored(t)
		lp.PlayNotes = PlayNotes{Notes: "=1+1 \"quoted\"\nsecond line", Location: "Ben's, upstairs", StartSeat: seatPtr(1)}
		id, err := s.LogPlay(ctx, g.ID, lp, res)
		if err != nil {
			t.Fatal(err)
		}
		data := export(t, s, g.ID)
		var f struct {
			FormatVersion int `json:"formatVersion"`
			Plays         []struct {
				Notes       string `json:"notes"`
				Location    string `json:"location"`
				StartPlayer *int   `json:"startPlayer"`
			} `json:"plays"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatal(err)
		}
		if f.FormatVersion != 2 || len(f.Plays) != 1 || f.Plays[0].Notes != lp.Notes || f.Plays[0].Location != lp.Location ||
			f.Plays[0].StartPlayer == nil || *f.Plays[0].StartPlayer != 1 {
			t.Errorf("export %s", data)
		}

		other := openStore(t, backends()[0].dsn(t))
		if _, err := other.ImportGroup(ctx, data); err != nil {
			t.Fatal(err)
		}
		if again := export(t, other, g.ID); !bytes.Equal(again, data) {
			t.Errorf("the export of the import differs:\n%s\nwant\n%s", again, data)
		}

		var buf bytes.Buffer
		if err := s.ExportPlaysCSV(ctx, g.ID, &buf); err != nil {
			t.Fatal(err)
		}
		want := "play_id,finished_at,game,player,total,rank,winner,location,notes,start_player\n" +
			id + ",2025-04-01T19:00:00Z,insecta,Ana,30,1,true,\"Ben's, upstairs\",\"'=1+1 \"\"quoted\"\"\nsecond line\",false\n" +
			id + ",2025-04-01T19:00:00Z,insecta,Ben,20,2,false,\"Ben's, upstairs\",\"'=1+1 \"\"quoted\"\"\nsecond line\",true\n"
		if got := buf.String(); got != want {
			t.Errorf("CSV:\n%s\nwant\n%s", got, want)
		}
	})
}

// TestImportFormat1 reads a file written by the insectscore before
// format 2 (testdata/group-format1.json, exported by it): its plays have
// no notes, location or start player, and it exports as format 2.
func TestImportFormat1(t *testing.T) {
	data, err := os.ReadFile("testdata/group-format1.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(`"formatVersion": 1,`)) {
		t.Fatal("testdata/group-format1.json is not of format 1")
	}
	eachStore(t, func(t *testing.T, s *Store) {
		g, err := s.ImportGroup(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		plays, _, err := s.ListPlays(ctx, PlayFilter{Group: g.ID})
		if err != nil || len(plays) != 2 {
			t.Fatalf("%d plays, %v; want 2", len(plays), err)
		}
		for _, p := range plays {
			if p.Notes != "" || p.Location != "" || p.StartSeat != nil {
				t.Errorf("play %s of a format 1 file has notes %+v", p.ID, p.PlayNotes)
			}
		}
		out := export(t, s, g.ID)
		if !bytes.Contains(out, []byte(`"formatVersion": 2,`)) || !bytes.Contains(out, []byte(`"startPlayer": null`)) {
			t.Errorf("the export of a format 1 file is not of format 2:\n%s", out)
		}
		// A format 1 file with a field of format 2 is refused at it.
		bad := bytes.Replace(data, []byte(`"game": "insecta",`), []byte(`"game": "insecta", "notes": "x",`), 1)
		_, err = openStore(t, backends()[0].dsn(t)).ImportGroup(ctx, bad)
		var ie *ImportError
		if !errors.As(err, &ie) || len(ie.Errors) != 1 || !strings.HasSuffix(ie.Errors[0].Pointer, "/notes") {
			t.Errorf("format 1 with notes: %v, want an error at its notes", err)
		}
	})
}

// TestImportPlayNotesRefused: format 2 notes that cannot be kept are
// refused at their field.
func TestImportPlayNotesRefused(t *testing.T) {
	s := openStore(t, backends()[0].dsn(t))
	g, _ := s.CreateGroup(ctx, "Club")
	lp, res := hplay{"insecta", time.Hour, []string{"Ana", "Ben"}, []int{30, 20}}.scored(t)
	if _, err := s.LogPlay(ctx, g.ID, lp, res); err != nil {
		t.Fatal(err)
	}
	data := string(export(t, s, g.ID))
	for field, value := range map[string]string{
		"startPlayer": "2",
		"location":    `"` + strings.Repeat("x", MaxLocationLength+1) + `"`,
		"notes":       `"` + strings.Repeat("x", MaxNotesLength+1) + `"`,
	} {
		old := `"` + field + `": ` + map[string]string{"startPlayer": "null", "location": `""`, "notes": `""`}[field]
		bad := strings.Replace(data, old, `"`+field+`": `+value, 1)
		_, err := openStore(t, backends()[0].dsn(t)).ImportGroup(ctx, []byte(bad))
		var ie *ImportError
		if !errors.As(err, &ie) || len(ie.Errors) != 1 || ie.Errors[0].Pointer != "/plays/0/"+field {
			t.Errorf("%s %s: %v, want an error at /plays/0/%s", field, value, err, field)
		}
	}
}

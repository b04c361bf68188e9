package models

import (
	"errors"
	"insectscore/scoring"
	"testing"
	"time"
)

// TestNamesMatchAsTheyShow: a name is kept in NFC and matched without the
// characters that show nothing, so names that look the same are one
// player; a name that shows nothing is refused, on both databases.
func TestNamesMatchAsTheyShow(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		logPlay(t, s, DefaultGroup, hplay{"insecta", time.Hour, []string{"Ana", "Zoe\u0308"}, []int{2, 1}})
		logPlay(t, s, DefaultGroup, hplay{"insecta", 2 * time.Hour, []string{"A\u200bna", "Zoë"}, []int{2, 1}})
		players, err := s.ListPlayers(ctx, DefaultGroup)
		if err != nil {
			t.Fatal(err)
		}
		if len(players) != 2 || players[0].Name != "Ana" || players[1].Name != "Zoë" {
			t.Fatalf("players %+v, want Ana and Zoë (in NFC)", players)
		}
		if _, err := s.RenamePlayer(ctx, DefaultGroup, players[1].ID, "\u200b\u2060"); !errors.Is(err, ErrBadName) {
			t.Errorf("rename to invisible characters: %v, want ErrBadName", err)
		}
		var conflict *ConflictError
		if _, err := s.RenamePlayer(ctx, DefaultGroup, players[1].ID, "An\ufeffa"); !errors.As(err, &conflict) || conflict.PlayerID != players[0].ID {
			t.Errorf("rename to Ana with a BOM inside: %v, want a conflict naming Ana", err)
		}
		_, _, err = s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Ben", "\u3164"}})
		if verr := (*scoring.ValidationError)(nil); !errors.As(err, &verr) || verr.Errors[0].Pointer != "/players/1" {
			t.Errorf("a seat named with a Hangul filler: %v, want the rules' refusal at /players/1", err)
		}
		tbl, _, err := s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Ben"}})
		if err != nil {
			t.Fatal(err)
		}
		_, _, err = s.JoinTable(ctx, tbl.Code, "B\u200ben", nil)
		wantNameError(t, "joining as B\\u200ben beside Ben", err)
		if _, err := s.CreateGroup(ctx, " \u200b "); !errors.Is(err, ErrBadName) {
			t.Errorf("a group named with a zero-width space: %v, want ErrBadName", err)
		}
		for _, name := range []string{"a\x00b", "a\xffb"} {
			if _, err := s.CreateGroup(ctx, name); !errors.Is(err, ErrBadName) {
				t.Errorf("a group named %+q: %v, want ErrBadName", name, err)
			}
		}
	})
}

// TestIDsThatCannotBe: ids, codes and cursors holding a NUL or text that
// is not UTF-8 find nothing, without the database (PostgreSQL refuses
// such text with an error of its own).
func TestIDsThatCannotBe(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		for _, bad := range []string{"a\x00b", "\xff\xfe", "default\x00"} {
			checks := map[string]error{}
			_, checks["FindGroup"] = s.FindGroup(ctx, bad)
			_, _, checks["ListPlays"] = s.ListPlays(ctx, PlayFilter{Group: bad})
			_, checks["FindPlay"] = s.FindPlay(ctx, DefaultGroup, bad)
			_, checks["PlayerStats"] = s.PlayerStats(ctx, DefaultGroup, bad)
			_, checks["Leaderboard"] = s.Leaderboard(ctx, bad, "insecta")
			_, checks["FindTableByCode"] = s.FindTableByCode(ctx, bad)
			checks["DeletePlay"] = s.DeletePlay(ctx, bad, "x")
			checks["MergePlayers"] = s.MergePlayers(ctx, DefaultGroup, bad, "x")
			_, _, checks["JoinTable"] = s.JoinTable(ctx, bad, "Ana", nil)
			_, checks["ReadTable"] = s.ReadTable(ctx, bad)
			for name, err := range checks {
				if !errors.Is(err, ErrNotFound) {
					t.Errorf("%s(%+q): %v, want ErrNotFound", name, bad, err)
				}
			}
			// With a token, a code no table has is refused as a stranger.
			if _, err := s.Authorize(ctx, bad, "token"); !errors.Is(err, errToken) {
				t.Errorf("Authorize(%+q): %v, want a stranger's refusal", bad, err)
			}
			if list, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, PlayerID: bad}); err != nil || len(list) != 0 {
				t.Errorf("plays of player %+q: %v, %v; want none", bad, list, err)
			}
			cursor := encodeCursor(t0, bad)
			if _, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Cursor: cursor}); !errors.Is(err, ErrBadCursor) {
				t.Errorf("a cursor holding %+q: %v, want ErrBadCursor", bad, err)
			}
		}
	})
}

package models

import (
	"errors"
	"reflect"
	"slices"
	"testing"
	"time"
)

// TestPlayerPlaysPaged pages through the plays of a player with more
// plays than sparsePlays and of one with a few, which ListPlays finds in
// two ways, and checks each gives every play of the player once, newest
// first, as the plain join gives them.
func TestPlayerPlaysPaged(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		seedHistory(t, s, DefaultGroup, 12000, 6) // 6,000 plays each
		for i := range 3 {
			logPlay(t, s, DefaultGroup, hplay{"insectarium", time.Duration(i) * time.Hour, []string{"Player 01", "Sam"}, []int{10, 20}})
		}
		for _, tt := range []struct {
			name, player, game string
			want               int
		}{
			{"many plays", seedPlayerID(DefaultGroup, 1), "", 6003},
			{"many plays, one game", seedPlayerID(DefaultGroup, 1), "insectarium", 3},
			{"few plays", playerNamed(t, s, "Sam"), "", 3},
			{"few plays, another game", playerNamed(t, s, "Sam"), "insecta", 0},
		} {
			t.Run(tt.name, func(t *testing.T) {
				var got []string
				f := PlayFilter{Group: DefaultGroup, PlayerID: tt.player, Game: tt.game, Limit: MaxPlayLimit}
				for {
					page, next, err := s.ListPlays(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					for _, p := range page {
						got = append(got, p.ID)
					}
					if next == "" {
						break
					}
					f.Cursor = next
				}
				q := s.db.Table("plays AS p").Joins("JOIN play_players pp ON pp.play_id = p.id").Where("pp.player_id = ?", tt.player)
				if tt.game != "" {
					q = q.Where("p.game = ?", tt.game)
				}
				var want []string
				if err := q.Order("p.finished_at DESC, p.id DESC").Pluck("p.id", &want).Error; err != nil {
					t.Fatal(err)
				}
				if len(got) != tt.want || !slices.Equal(got, want) {
					t.Errorf("paged %d plays, want the %d of the join (%d expected)", len(got), len(want), tt.want)
				}
			})
		}
	})
}

func playerNamed(t *testing.T, s *Store, name string) string {
	t.Helper()
	var ids []string
	if err := s.db.Model(&playerRow{}).Where("name = ?", name).Pluck("id", &ids).Error; err != nil || len(ids) != 1 {
		t.Fatalf("player %q: %v, %v", name, ids, err)
	}
	return ids[0]
}

// TestRatingHistoryPaged checks a player's page holds the newest
// RatingPage ratings, and that paging back from it with RatingHistory
// gives every rating once, in order.
func TestRatingHistoryPaged(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		seedHistory(t, s, DefaultGroup, 2*RatingPage+50, 3) // everyone in every play
		player := seedPlayerID(DefaultGroup, 1)
		var all []ratingRow
		if err := s.db.Where("player_id = ?", player).Order("finished_at, play_id").Find(&all).Error; err != nil {
			t.Fatal(err)
		}
		want := make([]RatingPoint, len(all))
		for i, r := range all {
			want[i] = RatingPoint{PlayID: r.PlayID, FinishedAt: r.FinishedAt.UTC(), Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal}
		}
		st, err := s.PlayerStats(ctx, DefaultGroup, player)
		if err != nil {
			t.Fatal(err)
		}
		got, next := st.Games[0].RatingHistory, st.Games[0].RatingNext
		if !reflect.DeepEqual(got, want[len(want)-RatingPage:]) || next == "" {
			t.Fatalf("player page: %d ratings, next %q; want the newest %d of %d", len(got), next, RatingPage, len(want))
		}
		for pages := 1; next != ""; pages++ {
			var page []RatingPoint
			if page, next, err = s.RatingHistory(ctx, DefaultGroup, player, "insecta", next, 0); err != nil {
				t.Fatal(err)
			}
			if len(page) == 0 || len(page) > RatingPage || pages > 3 {
				t.Fatalf("page %d: %d ratings", pages, len(page))
			}
			got = append(page, got...)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("paged back %d ratings, want %d in order", len(got), len(want))
		}
		page, next, err := s.RatingHistory(ctx, DefaultGroup, player, "insecta", "", 7)
		if err != nil || !reflect.DeepEqual(page, want[len(want)-7:]) || next == "" {
			t.Errorf("newest 7: %d ratings, next %q, %v", len(page), next, err)
		}
		if page, next, err := s.RatingHistory(ctx, DefaultGroup, player, "insectarium", "", 0); err != nil || len(page) != 0 || next != "" {
			t.Errorf("a game not played: %d ratings, next %q, %v", len(page), next, err)
		}
		for _, tt := range []struct {
			name, group, player, cursor string
			want                        error
		}{
			{"bad cursor", DefaultGroup, player, "nope", ErrBadCursor},
			{"no such player", DefaultGroup, "nobodyatallhere1", "", ErrNotFound},
			{"no such group", "nosuchgroupatall", player, "", ErrNotFound},
		} {
			if _, _, err := s.RatingHistory(ctx, tt.group, tt.player, "insecta", tt.cursor, 0); !errors.Is(err, tt.want) {
				t.Errorf("%s: %v, want %v", tt.name, err, tt.want)
			}
		}
	})
}

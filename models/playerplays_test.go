package models

import (
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

package models

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"insectscore/scoring"
)

// t0 is when the test histories start.
var t0 = time.Date(2025, 4, 1, 18, 0, 0, 0, time.UTC)

func marshal(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scored is the result scoring.Score gives players with these totals and
// no tiebreak: competition ranks, every rank 1 a winner, one breakdown
// line. The store takes results as given, so made-up boards will do.
func scored(game string, names []string, totals []int) *scoring.Result {
	res := &scoring.Result{Game: game, Complete: true, Winners: []int{}}
	for i, name := range names {
		rank := 1
		for _, o := range totals {
			if o > totals[i] {
				rank++
			}
		}
		res.Results = append(res.Results, scoring.PlayerResult{Name: name, Total: totals[i], Rank: rank, Winner: rank == 1,
			Breakdown: []scoring.Line{{Key: "track", Label: "Scoring track", Points: totals[i]}},
			Tiebreaks: []scoring.Tiebreak{}, Warnings: []scoring.FieldError{}})
		if rank == 1 {
			res.Winners = append(res.Winners, i)
		}
	}
	return res
}

// hplay is one play of a test history.
type hplay struct {
	game   string
	at     time.Duration // after t0
	names  []string
	totals []int
}

func (p hplay) logged() (LoggedPlay, *scoring.Result) {
	lp := LoggedPlay{Game: p.game, StartedAt: t0.Add(p.at - 40*time.Minute), FinishedAt: t0.Add(p.at)}
	for i, n := range p.names {
		lp.Players = append(lp.Players, LoggedPlayer{Name: n, Board: json.RawMessage(fmt.Sprintf(`{"track":%d}`, p.totals[i]))})
	}
	return lp, scored(p.game, p.names, p.totals)
}

// sheet is a board entered as the game's totals sheet, worth total points
// (guests, in Insektenhotel) in its first line.
func sheet(game string, total int) json.RawMessage {
	g, _ := scoring.Lookup(game)
	return json.RawMessage(fmt.Sprintf(`{"totals": {%q: %d}}`, g.Spec().Totals[0].ID, total))
}

// scored is logged with totals sheets for boards, and the result the
// rules give them: what an import scores again the same way.
func (p hplay) scored(t *testing.T) (LoggedPlay, *scoring.Result) {
	t.Helper()
	lp := LoggedPlay{Game: p.game, StartedAt: t0.Add(p.at - 40*time.Minute), FinishedAt: t0.Add(p.at)}
	req := scoring.Request{}
	for i, n := range p.names {
		lp.Players = append(lp.Players, LoggedPlayer{Name: n, Board: sheet(p.game, p.totals[i])})
		req.Players = append(req.Players, scoring.PlayerInput{Name: n, Board: sheet(p.game, p.totals[i])})
	}
	g, _ := scoring.Lookup(p.game)
	res, err := scoring.Score(g, req)
	if err != nil {
		t.Fatalf("score %+v: %v", p, err)
	}
	return lp, res
}

// logScoredPlay is logPlay with the play scored by the rules.
func logScoredPlay(t *testing.T, s *Store, group string, p hplay) string {
	t.Helper()
	lp, res := p.scored(t)
	id, err := s.LogPlay(ctx, group, lp, res)
	if err != nil {
		t.Fatalf("LogPlay %+v: %v", p, err)
	}
	return id
}

// finishScored finishes a table, for its host, with the standings the
// rules give its boards.
func finishScored(t *testing.T, s *Store, code, host string) string {
	t.Helper()
	f, _, err := s.Finish(ctx, code, host, false, nil)
	if err != nil {
		t.Fatalf("Finish: %v", err)
	}
	return f.PlayID
}

func logPlay(t *testing.T, s *Store, group string, p hplay) string {
	t.Helper()
	lp, res := p.logged()
	id, err := s.LogPlay(ctx, group, lp, res)
	if err != nil {
		t.Fatalf("LogPlay %+v: %v", p, err)
	}
	return id
}

// handHistory is four Insecta plays among three players, small enough to
// work out by hand. Play 3 is a shared win.
var handHistory = []hplay{
	{"insecta", 1 * time.Hour, []string{"Ana", "Ben", "Cleo"}, []int{30, 25, 20}},
	{"insecta", 2 * time.Hour, []string{"Ana", "Ben"}, []int{22, 28}},
	{"insecta", 3 * time.Hour, []string{"Ben", "Cleo", "Ana"}, []int{31, 31, 18}},
	{"insecta", 4 * time.Hour, []string{"Cleo", "Ana", "Ben"}, []int{40, 35, 19}},
}

func leaderboard(t *testing.T, s *Store, group, game string) []LeaderboardEntry {
	t.Helper()
	lb, err := s.Leaderboard(ctx, group, game)
	if err != nil {
		t.Fatalf("Leaderboard: %v", err)
	}
	return lb
}

// anonymous drops the player ids, which differ between two stores that
// recorded the same plays.
func anonymous(lb []LeaderboardEntry) []LeaderboardEntry {
	out := slices.Clone(lb)
	for i := range out {
		out[i].PlayerID = ""
	}
	return out
}

func playerID(t *testing.T, s *Store, group, name string) string {
	t.Helper()
	players, err := s.ListPlayers(ctx, group)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range players {
		if p.Name == name {
			return p.ID
		}
	}
	t.Fatalf("no player %q in %v", name, players)
	return ""
}

func fp(v float64) *float64 { return &v }

// settle waits for the store's background rebuilds, so that what is read
// next are the final figures.
func settle(t testing.TB, s *Store) {
	t.Helper()
	if err := s.WaitRebuilds(ctx); err != nil {
		t.Fatalf("WaitRebuilds: %v", err)
	}
}

// TestHandComputedHistory checks the leaderboard of handHistory against
// figures worked out by hand, and the ratings against RatePlackettLuce
// called play by play.
func TestHandComputedHistory(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		var ids []string
		for _, p := range handHistory {
			ids = append(ids, logPlay(t, s, DefaultGroup, p))
		}
		ratings := map[string]scoring.Rating{"Ana": scoring.NewRating(), "Ben": scoring.NewRating(), "Cleo": scoring.NewRating()}
		history := map[string][]RatingPoint{}
		for i, p := range handHistory {
			in := make([]scoring.Rating, len(p.names))
			ranks := make([]int, len(p.names))
			res := scored(p.game, p.names, p.totals)
			for j, n := range p.names {
				in[j], ranks[j] = ratings[n], res.Results[j].Rank
			}
			for j, r := range scoring.RatePlackettLuce(in, ranks) {
				ratings[p.names[j]] = r
				history[p.names[j]] = append(history[p.names[j]], RatingPoint{PlayID: ids[i], FinishedAt: t0.Add(p.at), Mu: r.Mu, Sigma: r.Sigma, Ordinal: r.Ordinal()})
			}
		}
		// Ana: 30 22 18 35, won play 1. Ben: 25 28 31 19, won 2 and shared 3.
		// Cleo: 20 31 40, shared 3 and won 4.
		want := []LeaderboardEntry{
			{Player: "Ana", Plays: 4, Wins: 1, WinRate: 0.25, AvgScore: fp(26.25), BestScore: intp(35), RatedPlays: 4},
			{Player: "Ben", Plays: 4, Wins: 2, WinRate: 0.5, AvgScore: fp(25.75), BestScore: intp(31), RatedPlays: 4},
			{Player: "Cleo", Plays: 3, Wins: 2, WinRate: 2.0 / 3, AvgScore: fp(91.0 / 3), BestScore: intp(40), RatedPlays: 3},
		}
		for i := range want {
			want[i].PlayerID = playerID(t, s, DefaultGroup, want[i].Player)
			want[i].Rating = fp(ratings[want[i].Player].Ordinal())
		}
		slices.SortFunc(want, func(a, b LeaderboardEntry) int {
			if *a.Rating > *b.Rating {
				return -1
			}
			return 1
		})
		got := leaderboard(t, s, DefaultGroup, "insecta")
		if !reflect.DeepEqual(got, want) {
			t.Errorf("leaderboard:\n got %s\nwant %s", show(got), show(want))
		}
		for _, name := range []string{"Ana", "Ben", "Cleo"} {
			st, err := s.PlayerStats(ctx, DefaultGroup, playerID(t, s, DefaultGroup, name))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Games[0].RatingHistory; !reflect.DeepEqual(got, history[name]) {
				t.Errorf("%s's rating history:\n got %+v\nwant %+v", name, got, history[name])
			}
		}
		if lb := leaderboard(t, s, DefaultGroup, "insectarium"); len(lb) != 0 {
			t.Errorf("leaderboard of a game nobody played = %s", show(lb))
		}
	})
}

// show prints leaderboard entries with their pointers followed.
func show(lb []LeaderboardEntry) string {
	var b strings.Builder
	for _, e := range lb {
		fmt.Fprintf(&b, "\n  {%s %s plays %d wins %d rate %v", e.PlayerID, e.Player, e.Plays, e.Wins, e.WinRate)
		if e.AvgScore != nil {
			fmt.Fprintf(&b, " avg %v best %d", *e.AvgScore, *e.BestScore)
		}
		if e.Rating != nil {
			fmt.Fprintf(&b, " rating %v", *e.Rating)
		}
		fmt.Fprintf(&b, " rated %d provisional %v}", e.RatedPlays, e.Provisional)
	}
	return b.String()
}

func TestProvisionalAndWinsOnly(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		logPlay(t, s, DefaultGroup, hplay{"insektenhotel", time.Hour, []string{"Ana", "Ben"}, []int{6, 4}})
		logPlay(t, s, DefaultGroup, hplay{"insektenhotel", 2 * time.Hour, []string{"Ana", "Ben"}, []int{5, 6}})
		logPlay(t, s, DefaultGroup, hplay{"insectarium", 3 * time.Hour, []string{"Ana"}, []int{38}})
		got := leaderboard(t, s, DefaultGroup, "insektenhotel")
		// Both provisional after two plays: by wins (1 each), plays, name.
		want := []LeaderboardEntry{
			{PlayerID: playerID(t, s, DefaultGroup, "Ana"), Player: "Ana", Plays: 2, Wins: 1, WinRate: 0.5, RatedPlays: 2, Provisional: true},
			{PlayerID: playerID(t, s, DefaultGroup, "Ben"), Player: "Ben", Plays: 2, Wins: 1, WinRate: 0.5, RatedPlays: 2, Provisional: true},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("insektenhotel leaderboard:\n got %s\nwant %s", show(got), show(want))
		}
		// A solo play counts as played and scored, but is not rated.
		got = leaderboard(t, s, DefaultGroup, "insectarium")
		want = []LeaderboardEntry{{PlayerID: playerID(t, s, DefaultGroup, "Ana"), Player: "Ana", Plays: 1, Wins: 1, WinRate: 1,
			AvgScore: fp(38), BestScore: intp(38), Provisional: true}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("solo leaderboard:\n got %s\nwant %s", show(got), show(want))
		}
		logPlay(t, s, DefaultGroup, hplay{"insektenhotel", 4 * time.Hour, []string{"Ben", "Ana"}, []int{6, 3}})
		got = leaderboard(t, s, DefaultGroup, "insektenhotel")
		if got[0].Player != "Ben" || got[0].Provisional || got[0].Rating == nil || got[1].Rating == nil {
			t.Errorf("after three plays both are rated, Ben first:%s", show(got))
		}
	})
}

// TestRatedBeforeProvisional: a rated player ranks above a provisional
// one with more wins.
func TestRatedBeforeProvisional(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		for i := range 3 {
			logPlay(t, s, DefaultGroup, hplay{"insecta", time.Duration(i) * time.Hour, []string{"Ana", "Ben"}, []int{10, 20}})
		}
		for i := range 2 {
			logPlay(t, s, DefaultGroup, hplay{"insecta", time.Duration(10+i) * time.Hour, []string{"Cleo", "Dan"}, []int{30, 20}})
		}
		var names []string
		for _, e := range leaderboard(t, s, DefaultGroup, "insecta") {
			names = append(names, e.Player)
		}
		if want := []string{"Ben", "Ana", "Cleo", "Dan"}; !reflect.DeepEqual(names, want) {
			t.Errorf("order = %v, want %v", names, want)
		}
	})
}

func TestGroups(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		def, err := s.FindGroup(ctx, DefaultGroup)
		if err != nil || def.Name != "Our group" {
			t.Fatalf("default group = %+v, %v; want \"Our group\"", def, err)
		}
		s.Now = func() time.Time { return t0 }
		g, err := s.CreateGroup(ctx, "  Thursday club ")
		if err != nil {
			t.Fatal(err)
		}
		if len(g.ID) != 32 || strings.Trim(g.ID, "abcdefghijklmnopqrstuvwxyz234567") != "" || g.Name != "Thursday club" || !g.CreatedAt.Equal(t0) {
			t.Errorf("CreateGroup = %+v; want a 32-character base32 id, the trimmed name, created at t0", g)
		}
		other, _ := s.CreateGroup(ctx, "Thursday club")
		if other.ID == g.ID {
			t.Error("two groups got one id")
		}
		found, err := s.FindGroup(ctx, g.ID)
		if err != nil || !reflect.DeepEqual(found, g) {
			t.Errorf("FindGroup = %+v, %v; want %+v", found, err, g)
		}
		_, err = s.FindGroup(ctx, "nosuchgroup")
		wantErr(t, "unknown group", err, ErrNotFound)
		if _, err := s.CreateGroup(ctx, " "); err == nil {
			t.Error("CreateGroup with no name: nil error")
		}
		_, _, err = s.CreateTable(ctx, NewTable{Game: "insecta", Group: "nosuchgroup", Names: []string{"Ana"}})
		wantErr(t, "table of an unknown group", err, ErrNotFound)

		// A table plays for its group: its play and players are the group's.
		tbl, host, err := s.CreateTable(ctx, NewTable{Game: "insecta", Group: g.ID, Names: []string{"Ana", "Ben"}})
		if err != nil {
			t.Fatal(err)
		}
		if tbl.Group != g.ID {
			t.Errorf("table group = %q, want %q", tbl.Group, g.ID)
		}
		playID := finish(t, s, tbl.Code, host)
		if _, err := s.FindPlay(ctx, g.ID, playID); err != nil {
			t.Errorf("FindPlay in the table's group: %v", err)
		}
		_, err = s.FindPlay(ctx, DefaultGroup, playID)
		wantErr(t, "FindPlay in another group", err, ErrNotFound)
		if lb := leaderboard(t, s, g.ID, "insecta"); len(lb) != 2 {
			t.Errorf("group leaderboard has %d entries, want 2", len(lb))
		}
		if lb := leaderboard(t, s, DefaultGroup, "insecta"); len(lb) != 0 {
			t.Errorf("default leaderboard has %d entries, want 0", len(lb))
		}
		// The same name in two groups is two players.
		logPlay(t, s, DefaultGroup, hplay{"insecta", time.Hour, []string{"ana", "Ben"}, []int{1, 2}})
		if a, b := playerID(t, s, g.ID, "Ana"), playerID(t, s, DefaultGroup, "ana"); a == b {
			t.Error("one player in two groups")
		}
		_, err = s.Leaderboard(ctx, "nosuchgroup", "insecta")
		wantErr(t, "leaderboard of an unknown group", err, ErrNotFound)
		_, _, err = s.ListPlays(ctx, PlayFilter{Group: "nosuchgroup"})
		wantErr(t, "plays of an unknown group", err, ErrNotFound)
		_, err = s.LogPlay(ctx, "nosuchgroup", LoggedPlay{Game: "insectarium", FinishedAt: t0, Players: []LoggedPlayer{{Name: "Ana"}}},
			scored("insectarium", []string{"Ana"}, []int{1}))
		wantErr(t, "LogPlay to an unknown group", err, ErrNotFound)
	})
}

// TestNamesTypedDifferently: however a name is typed, it is one player,
// who keeps the spelling first seen.
func TestNamesTypedDifferently(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		logPlay(t, s, DefaultGroup, hplay{"insecta", 1 * time.Hour, []string{"Ana Lu", "Ben"}, []int{10, 5}})
		logPlay(t, s, DefaultGroup, hplay{"insecta", 2 * time.Hour, []string{" ana  lu ", "BEN"}, []int{10, 5}})
		tbl, host := newTable(t, s, "ANA LU", "ben ")
		finish(t, s, tbl.Code, host)
		players, err := s.ListPlayers(ctx, DefaultGroup)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, p := range players {
			names = append(names, p.Name)
		}
		if want := []string{"Ana Lu", "Ben"}; !reflect.DeepEqual(names, want) {
			t.Errorf("players = %v, want %v", names, want)
		}
		lb := leaderboard(t, s, DefaultGroup, "insecta")
		if len(lb) != 2 || lb[0].Player != "Ana Lu" || lb[0].Plays != 2 || lb[0].Wins != 2 {
			t.Errorf("insecta leaderboard:%s\nwant Ana Lu with 2 plays, 2 wins first", show(lb))
		}
		if lb := leaderboard(t, s, DefaultGroup, "insectarium"); len(lb) != 2 || lb[0].Player != "Ana Lu" {
			t.Errorf("insectarium leaderboard:%s", show(lb))
		}
	})
}

// TestPlayersLastPlayed checks each player's last play across games, which
// forms use to offer the regulars first, and that it follows a deleted play.
func TestPlayersLastPlayed(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		logPlay(t, s, DefaultGroup, hplay{"insecta", 1 * time.Hour, []string{"Ana", "Ben"}, []int{10, 5}})
		logPlay(t, s, DefaultGroup, hplay{"insectarium", 3 * time.Hour, []string{"Ben", "Cy"}, []int{4, 6}})
		last := logPlay(t, s, DefaultGroup, hplay{"insecta", 2 * time.Hour, []string{"Ana", "Dee"}, []int{7, 8}})
		settle(t, s)
		lastPlayed := func() map[string]time.Time {
			players, err := s.ListPlayers(ctx, DefaultGroup)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]time.Time{}
			for _, p := range players {
				out[p.Name] = p.LastPlayedAt
			}
			return out
		}
		want := map[string]time.Time{"Ana": t0.Add(2 * time.Hour), "Ben": t0.Add(3 * time.Hour), "Cy": t0.Add(3 * time.Hour), "Dee": t0.Add(2 * time.Hour)}
		if got := lastPlayed(); !reflect.DeepEqual(got, want) {
			t.Errorf("last played = %v, want %v", got, want)
		}
		if err := s.DeletePlay(ctx, DefaultGroup, last); err != nil {
			t.Fatal(err)
		}
		settle(t, s)
		got := lastPlayed()
		if !got["Ana"].Equal(t0.Add(time.Hour)) {
			t.Errorf("after the delete Ana last played %v, want %v", got["Ana"], t0.Add(time.Hour))
		}
		if d, ok := got["Dee"]; ok && !d.IsZero() {
			t.Errorf("Dee, whose only play was deleted, last played %v, want never", d)
		}
	})
}

func TestRenamePlayer(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		id := logPlay(t, s, DefaultGroup, hplay{"insecta", time.Hour, []string{"Ana", "Ben"}, []int{10, 5}})
		ana, ben := playerID(t, s, DefaultGroup, "Ana"), playerID(t, s, DefaultGroup, "Ben")
		s.Now = func() time.Time { return t0 }
		p, err := s.RenamePlayer(ctx, DefaultGroup, ana, "  Anna ")
		if err != nil {
			t.Fatal(err)
		}
		if p.ID != ana || p.Name != "Anna" || p.Group != DefaultGroup {
			t.Errorf("RenamePlayer = %+v", p)
		}
		play, _ := s.FindPlay(ctx, DefaultGroup, id)
		if play.Players[0].Player != "Anna" || play.Players[0].NameAsEntered != "Ana" {
			t.Errorf("renamed player in the play: %+v; want Anna, entered as Ana", play.Players[0])
		}
		if lb := leaderboard(t, s, DefaultGroup, "insecta"); lb[0].Player != "Anna" {
			t.Errorf("leaderboard after rename:%s", show(lb))
		}
		// "Anna" is now who plays under that name.
		logPlay(t, s, DefaultGroup, hplay{"insecta", 2 * time.Hour, []string{"anna", "Ben"}, []int{10, 5}})
		if lb := leaderboard(t, s, DefaultGroup, "insecta"); lb[0].PlayerID != ana || lb[0].Plays != 2 {
			t.Errorf("a play under the new name went elsewhere:%s", show(lb))
		}
		if p, err := s.RenamePlayer(ctx, DefaultGroup, ana, "ANNA"); err != nil || p.Name != "ANNA" {
			t.Errorf("rename to the same name in capitals = %+v, %v", p, err)
		}

		_, err = s.RenamePlayer(ctx, DefaultGroup, ana, " ben")
		var conflict *ConflictError
		if !errors.As(err, &conflict) || !errors.Is(err, ErrConflict) || conflict.PlayerID != ben || !strings.Contains(conflict.String(), "merge") {
			t.Errorf("rename to another player's name: err = %v, want a *ConflictError naming Ben and suggesting a merge", err)
		}
		_, err = s.RenamePlayer(ctx, DefaultGroup, "nosuchplayer", "Zed")
		wantErr(t, "unknown player", err, ErrNotFound)
		g, _ := s.CreateGroup(ctx, "Other")
		_, err = s.RenamePlayer(ctx, g.ID, ana, "Zed")
		wantErr(t, "player of another group", err, ErrNotFound)
		if _, err := s.RenamePlayer(ctx, DefaultGroup, ana, " "); err == nil {
			t.Error("rename to nothing: nil error")
		}
	})
}

// TestMergePlayers merges a typo'd duplicate and checks the leaderboard
// is the one the plays would have made under one name.
func TestMergePlayers(t *testing.T) {
	typo := []hplay{
		{"insecta", 1 * time.Hour, []string{"Ana", "Ben"}, []int{30, 20}},
		{"insecta", 2 * time.Hour, []string{"Anna", "Ben", "Cleo"}, []int{30, 25, 26}},
		{"insectarium", 3 * time.Hour, []string{"Cleo", "Anna"}, []int{30, 25}},
		{"insecta", 4 * time.Hour, []string{"Ben", "Ana"}, []int{30, 20}},
		{"insecta", 5 * time.Hour, []string{"Anna", "Cleo"}, []int{30, 20}},
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		ref := openStore(t, backends()[0].dsn(t))
		for _, p := range typo {
			logPlay(t, s, DefaultGroup, p)
			p.names = slices.Clone(p.names)
			for i, n := range p.names {
				if n == "Anna" {
					p.names[i] = "Ana"
				}
			}
			logPlay(t, ref, DefaultGroup, p)
		}
		ana, anna := playerID(t, s, DefaultGroup, "Ana"), playerID(t, s, DefaultGroup, "Anna")
		if err := s.MergePlayers(ctx, DefaultGroup, anna, ana); err != nil {
			t.Fatal(err)
		}
		settle(t, s)
		for _, game := range []string{"insecta", "insectarium"} {
			got, want := anonymous(leaderboard(t, s, DefaultGroup, game)), anonymous(leaderboard(t, ref, DefaultGroup, game))
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s leaderboard after merge:\n got %s\nwant %s", game, show(got), show(want))
			}
		}
		plays, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, PlayerID: ana})
		if err != nil || len(plays) != 5 {
			t.Errorf("Ana's plays after merge = %d, %v; want 5", len(plays), err)
		}
		st, err := s.PlayerStats(ctx, DefaultGroup, ana)
		if err != nil || len(st.Games) != 2 || len(st.Games[0].RatingHistory) != 4 {
			t.Errorf("Ana's stats after merge = %+v, %v; want 2 games, 4 rated insecta plays", st, err)
		}
		_, err = s.PlayerStats(ctx, DefaultGroup, anna)
		wantErr(t, "the merged player", err, ErrNotFound)
		var n int64
		s.db.Table("rating_history").Where("player_id = ?", anna).Count(&n)
		if n != 0 {
			t.Errorf("%d rating history rows left for the merged player", n)
		}

		// Two players at one play are two people.
		logPlay(t, s, DefaultGroup, hplay{"insecta", 6 * time.Hour, []string{"Dan", "Dana"}, []int{30, 20}})
		dan, dana := playerID(t, s, DefaultGroup, "Dan"), playerID(t, s, DefaultGroup, "Dana")
		err = s.MergePlayers(ctx, DefaultGroup, dana, dan)
		var conflict *ConflictError
		if !errors.As(err, &conflict) || !strings.Contains(conflict.String(), "both played") {
			t.Errorf("merge of two who played together: err = %v, want a *ConflictError saying they both played", err)
		}
		if _, err := s.PlayerStats(ctx, DefaultGroup, dana); err != nil {
			t.Errorf("a refused merge deleted the player: %v", err)
		}
		wantErr(t, "merge into oneself", s.MergePlayers(ctx, DefaultGroup, dan, dan), ErrConflict)
		wantErr(t, "merge an unknown player", s.MergePlayers(ctx, DefaultGroup, "nosuchplayer", dan), ErrNotFound)
		g, _ := s.CreateGroup(ctx, "Other")
		wantErr(t, "merge in another group", s.MergePlayers(ctx, g.ID, dana, dan), ErrNotFound)
	})
}

// TestFinishTablesUpdateLeaderboard plays tables to the end and reads the
// history they leave.
func TestFinishTablesUpdateLeaderboard(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		s.Now = func() time.Time { return t0 }
		first, firstHost := newTable(t, s, "Ana", "Ben")
		s.Now = func() time.Time { return t0.Add(time.Hour) }
		firstID := finish(t, s, first.Code, firstHost)
		second, secondHost := newTable(t, s, "Ben", "Cleo", "ana")
		s.Now = func() time.Time { return t0.Add(2 * time.Hour) }
		finish(t, s, second.Code, secondHost)

		lb := leaderboard(t, s, "default", "insectarium")
		type line struct {
			Player          string
			Plays, Wins     int
			Avg             float64
			Best, RatedPlay int
		}
		var got []line
		for _, e := range lb {
			got = append(got, line{e.Player, e.Plays, e.Wins, *e.AvgScore, *e.BestScore, e.RatedPlays})
		}
		slices.SortFunc(got, func(a, b line) int { return strings.Compare(a.Player, b.Player) })
		// First table: Ana 20, Ben 10. Second: Ben 30, Cleo 20, Ana 10.
		want := []line{{"Ana", 2, 1, 15, 20, 2}, {"Ben", 2, 1, 20, 30, 2}, {"Cleo", 1, 0, 20, 20, 1}}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("leaderboard = %+v, want %+v", got, want)
		}
		play, err := s.FindPlay(ctx, DefaultGroup, firstID)
		if err != nil {
			t.Fatal(err)
		}
		// The boards were totals sheets, scored by the rules.
		_, res := hplay{"insectarium", 0, []string{"Ana", "Ben"}, []int{20, 10}}.scored(t)
		wantPlay := &Play{ID: firstID, Group: DefaultGroup, Game: "insectarium", Variants: map[string]int{},
			StartedAt: t0, FinishedAt: t0.Add(time.Hour), TableCode: first.Code,
			Players: []PlayPlayer{
				{Seat: 0, PlayerID: playerID(t, s, DefaultGroup, "Ana"), Player: "Ana", NameAsEntered: "Ana", Total: 20, Rank: 1, Winner: true,
					Breakdown: res.Results[0].Breakdown, Board: sheet("insectarium", 20)},
				{Seat: 1, PlayerID: playerID(t, s, DefaultGroup, "Ben"), Player: "Ben", NameAsEntered: "Ben", Total: 10, Rank: 2,
					Breakdown: res.Results[1].Breakdown, Board: sheet("insectarium", 10)},
			},
			Standings: marshal(t, res), Messages: res.Messages()}
		if !reflect.DeepEqual(play, wantPlay) {
			t.Errorf("FindPlay:\n got %+v\nwant %+v", play, wantPlay)
		}
		if play.Duration() != time.Hour {
			t.Errorf("duration = %v, want 1h", play.Duration())
		}
	})
}

// TestPastPlayRecomputes logs a play dated before the newest: the
// leaderboard and rating histories must be those of logging in order.
func TestPastPlayRecomputes(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		inOrder := openStore(t, dsn)
		late := openStore(t, backends()[0].dsn(t))
		for _, p := range handHistory {
			logPlay(t, inOrder, DefaultGroup, p)
		}
		for _, i := range []int{0, 1, 3, 2} {
			logPlay(t, late, DefaultGroup, handHistory[i])
		}
		settle(t, late)
		sameHistory(t, late, inOrder, "insecta")
	})
}

// sameHistory compares two stores' leaderboards and rating histories by
// player name.
func sameHistory(t *testing.T, got, want *Store, game string) {
	t.Helper()
	g, w := anonymous(leaderboard(t, got, DefaultGroup, game)), anonymous(leaderboard(t, want, DefaultGroup, game))
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s leaderboard:\n got %s\nwant %s", game, show(g), show(w))
	}
	ratings := func(s *Store) map[string][]float64 {
		out := map[string][]float64{}
		players, _ := s.ListPlayers(ctx, DefaultGroup)
		for _, p := range players {
			st, err := s.PlayerStats(ctx, DefaultGroup, p.ID)
			if err != nil {
				t.Fatal(err)
			}
			for _, gs := range st.Games {
				if gs.Game == game {
					for _, r := range gs.RatingHistory {
						out[p.Name] = append(out[p.Name], r.Mu, r.Sigma, r.Ordinal)
					}
				}
			}
		}
		return out
	}
	if g, w := ratings(got), ratings(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s rating histories:\n got %v\nwant %v", game, g, w)
	}
}

func TestEditAndDeletePlay(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		var ids []string
		for _, p := range handHistory {
			ids = append(ids, logPlay(t, s, DefaultGroup, p))
		}
		// Play 2 was entered wrong: Ana won it, and Cleo played too.
		fixed := hplay{"insecta", 2 * time.Hour, []string{"Ana", "Ben", "Cleo"}, []int{29, 28, 3}}
		lp, res := fixed.logged()
		if err := s.EditPlay(ctx, DefaultGroup, ids[1], lp, res); err != nil {
			t.Fatal(err)
		}
		settle(t, s)
		ref := openStore(t, backends()[0].dsn(t))
		for i, p := range handHistory {
			if i == 1 {
				p = fixed
			}
			logPlay(t, ref, DefaultGroup, p)
		}
		sameHistory(t, s, ref, "insecta")
		play, _ := s.FindPlay(ctx, DefaultGroup, ids[1])
		if len(play.Players) != 3 || play.Players[2].Total != 3 || play.ID != ids[1] {
			t.Errorf("edited play = %+v", play)
		}

		// Play 3 was Insectarium, not Insecta.
		moved := handHistory[2]
		moved.game = "insectarium"
		lp, res = moved.logged()
		if err := s.EditPlay(ctx, DefaultGroup, ids[2], lp, res); err != nil {
			t.Fatal(err)
		}
		if err := s.DeletePlay(ctx, DefaultGroup, ids[0]); err != nil {
			t.Fatal(err)
		}
		settle(t, s)
		ref = openStore(t, backends()[0].dsn(t))
		logPlay(t, ref, DefaultGroup, fixed)
		logPlay(t, ref, DefaultGroup, moved)
		logPlay(t, ref, DefaultGroup, handHistory[3])
		sameHistory(t, s, ref, "insecta")
		sameHistory(t, s, ref, "insectarium")

		_, err := s.FindPlay(ctx, DefaultGroup, ids[0])
		wantErr(t, "deleted play", err, ErrNotFound)
		wantErr(t, "delete twice", s.DeletePlay(ctx, DefaultGroup, ids[0]), ErrNotFound)
		g, _ := s.CreateGroup(ctx, "Other")
		wantErr(t, "delete from another group", s.DeletePlay(ctx, g.ID, ids[3]), ErrNotFound)
		wantErr(t, "edit in another group", s.EditPlay(ctx, g.ID, ids[3], lp, res), ErrNotFound)
		lp, _ = handHistory[3].logged()
		if err := s.EditPlay(ctx, DefaultGroup, ids[3], lp, scored("insecta", []string{"Zed", "Ana", "Ben"}, []int{1, 2, 3})); err == nil {
			t.Error("edit with another play's result: nil error")
		}
		// The deleted play's rows went with it.
		for _, table := range []string{"play_players", "rating_history"} {
			var n int64
			s.db.Table(table).Where("play_id = ?", ids[0]).Count(&n)
			if n != 0 {
				t.Errorf("%d %s rows of the deleted play (ON DELETE CASCADE)", n, table)
			}
		}
	})
}

func TestLogPlayChecks(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		good, res := hplay{"insecta", time.Hour, []string{"Ana", "Ben"}, []int{2, 1}}.logged()
		tests := []struct {
			name string
			edit func(lp *LoggedPlay, r *scoring.Result) *scoring.Result
		}{
			{"no result", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result { return nil }},
			{"result of another game", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result { r.Game = "insectarium"; return r }},
			{"no finish time", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result { lp.FinishedAt = time.Time{}; return r }},
			{"starts after it ends", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result {
				lp.StartedAt = lp.FinishedAt.Add(time.Minute)
				return r
			}},
			{"fewer results than players", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result { r.Results = r.Results[:1]; return r }},
			{"results of other names", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result { r.Results[1].Name = "Zed"; return r }},
			{"board not JSON", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result {
				lp.Players[0].Board = json.RawMessage(`{`)
				return r
			}},
			{"no players", func(lp *LoggedPlay, r *scoring.Result) *scoring.Result {
				lp.Players, r.Results = nil, nil
				return r
			}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				lp := good
				lp.Players = slices.Clone(good.Players)
				r := *res
				r.Results = slices.Clone(res.Results)
				if _, err := s.LogPlay(ctx, DefaultGroup, lp, tt.edit(&lp, &r)); err == nil {
					t.Error("nil error")
				}
			})
		}
		plays, _, _ := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup})
		players, _ := s.ListPlayers(ctx, DefaultGroup)
		if len(plays) != 0 || len(players) != 0 {
			t.Errorf("refused plays left %d plays and %d players", len(plays), len(players))
		}
		// A logged play without a start has no known duration; times are
		// kept in UTC to the microsecond, whatever zone they came in.
		lp := good
		lp.StartedAt = time.Time{}
		lp.FinishedAt = time.Date(2025, 4, 1, 20, 0, 0, 123456789, time.FixedZone("CEST", 2*3600))
		id, err := s.LogPlay(ctx, DefaultGroup, lp, res)
		if err != nil {
			t.Fatal(err)
		}
		play, _ := s.FindPlay(ctx, DefaultGroup, id)
		want := time.Date(2025, 4, 1, 18, 0, 0, 123456000, time.UTC)
		if !play.FinishedAt.Equal(want) || play.FinishedAt.Location() != time.UTC || play.Duration() != 0 {
			t.Errorf("finished %v, duration %v; want %v, 0", play.FinishedAt, play.Duration(), want)
		}
	})
}

func TestListPlays(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		other, _ := s.CreateGroup(ctx, "Other")
		logPlay(t, s, other.ID, hplay{"insecta", 0, []string{"Ana", "Ben"}, []int{1, 2}})
		// 105 plays; every third at the same time as the one before, so
		// pages also cut between plays that finished together.
		type rec struct {
			id   string
			at   time.Time
			game string
			ana  bool
		}
		var all []rec
		for i := range 105 {
			at := time.Duration(i) * time.Minute
			if i%3 == 2 {
				at -= time.Minute
			}
			game, names := "insecta", []string{"Ana", "Ben"}
			if i%4 == 0 {
				game, names = "insectarium", []string{"Ben", "Cleo"}
			}
			id := logPlay(t, s, DefaultGroup, hplay{game, at, names, []int{i, 50}})
			all = append(all, rec{id, t0.Add(at), game, names[0] == "Ana"})
		}
		slices.SortFunc(all, func(a, b rec) int {
			if c := b.at.Compare(a.at); c != 0 {
				return c
			}
			return strings.Compare(b.id, a.id)
		})
		ana := playerID(t, s, DefaultGroup, "Ana")
		tests := []struct {
			name   string
			filter PlayFilter
			keep   func(rec) bool
			pages  int
		}{
			{"default page size", PlayFilter{}, func(rec) bool { return true }, 6},
			{"pages of 7", PlayFilter{Limit: 7}, func(rec) bool { return true }, 15},
			{"over the maximum", PlayFilter{Limit: 1000}, func(rec) bool { return true }, 2},
			{"by game", PlayFilter{Game: "insectarium", Limit: 10}, func(r rec) bool { return r.game == "insectarium" }, 3},
			{"by player", PlayFilter{PlayerID: ana, Limit: 30}, func(r rec) bool { return r.ana }, 3},
			{"by game and player", PlayFilter{Game: "insectarium", PlayerID: ana}, func(rec) bool { return false }, 1},
			{"unknown player", PlayFilter{PlayerID: "nosuchplayer"}, func(rec) bool { return false }, 1},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var want, got []string
				for _, r := range all {
					if tt.keep(r) {
						want = append(want, r.id)
					}
				}
				f := tt.filter
				f.Group = DefaultGroup
				pages := 0
				for {
					plays, next, err := s.ListPlays(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					pages++
					size := f.Limit
					if size <= 0 {
						size = DefaultPlayLimit
					}
					if size = min(size, MaxPlayLimit); len(plays) > size || (next != "" && len(plays) != size) {
						t.Fatalf("page %d has %d plays with limit %d (next %q)", pages, len(plays), f.Limit, next)
					}
					for _, p := range plays {
						got = append(got, p.ID)
					}
					if next == "" {
						break
					}
					f.Cursor = next
				}
				if !slices.Equal(got, want) {
					t.Errorf("plays:\n got %v\nwant %v", got, want)
				}
				if pages != tt.pages {
					t.Errorf("%d pages, want %d", pages, tt.pages)
				}
			})
		}

		// The newest Insecta play is play 103, at minute 103.
		plays, _, _ := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Game: "insecta", Limit: 1})
		want := []PlayResult{{PlayerID: ana, Player: "Ana", Total: 103, Rank: 1, Winner: true},
			{PlayerID: playerID(t, s, DefaultGroup, "Ben"), Player: "Ben", Total: 50, Rank: 2}}
		if !reflect.DeepEqual(plays[0].Results, want) || plays[0].Game != "insecta" || !plays[0].FinishedAt.Equal(t0.Add(103*time.Minute)) {
			t.Errorf("newest play = %+v, want results %+v", plays[0], want)
		}

		for _, cursor := range []string{"!!", base64.RawURLEncoding.EncodeToString([]byte("yesterday abc")),
			base64.RawURLEncoding.EncodeToString([]byte("2025-04-01T18:00:00Z")), base64.RawURLEncoding.EncodeToString([]byte("2025-04-01T18:00:00Z "))} {
			_, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Cursor: cursor})
			wantErr(t, "cursor "+cursor, err, ErrBadCursor)
		}
	})
}

func TestPlayerStats(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		var ids []string
		for _, p := range handHistory {
			ids = append(ids, logPlay(t, s, DefaultGroup, p))
		}
		hotel := logPlay(t, s, DefaultGroup, hplay{"insektenhotel", 5 * time.Hour, []string{"Ben", "Ana"}, []int{6, 5}})
		ana, ben, cleo := playerID(t, s, DefaultGroup, "Ana"), playerID(t, s, DefaultGroup, "Ben"), playerID(t, s, DefaultGroup, "Cleo")
		st, err := s.PlayerStats(ctx, DefaultGroup, ana)
		if err != nil {
			t.Fatal(err)
		}
		if st.Player.ID != ana || st.Player.Name != "Ana" {
			t.Errorf("player = %+v", st.Player)
		}
		var games []string
		for _, g := range st.Games {
			games = append(games, g.Game)
		}
		if want := []string{"insecta", "insektenhotel"}; !reflect.DeepEqual(games, want) {
			t.Fatalf("games = %v, want %v", games, want)
		}
		insecta := st.Games[0]
		lb := leaderboard(t, s, DefaultGroup, "insecta")
		i := slices.IndexFunc(lb, func(e LeaderboardEntry) bool { return e.PlayerID == ana })
		if !reflect.DeepEqual(insecta.LeaderboardEntry, lb[i]) {
			t.Errorf("insecta record:\n got %s\nwant %s", show([]LeaderboardEntry{insecta.LeaderboardEntry}), show(lb[i:i+1]))
		}
		if !insecta.LastPlayedAt.Equal(t0.Add(4 * time.Hour)) {
			t.Errorf("last played %v", insecta.LastPlayedAt)
		}
		wantScores := []ScoreCount{{18, 1}, {22, 1}, {30, 1}, {35, 1}}
		if !reflect.DeepEqual(insecta.Scores, wantScores) {
			t.Errorf("scores = %v, want %v", insecta.Scores, wantScores)
		}
		// Against Ben: better in plays 1 and 4, worse in 2 and 3. Against
		// Cleo: better in 1, worse in 3 and 4.
		wantH2H := []HeadToHead{
			{OpponentID: ben, Opponent: "Ben", Plays: 4, Wins: 2, Losses: 2},
			{OpponentID: cleo, Opponent: "Cleo", Plays: 3, Wins: 1, Losses: 2},
		}
		if !reflect.DeepEqual(insecta.HeadToHead, wantH2H) {
			t.Errorf("head-to-head = %+v, want %+v", insecta.HeadToHead, wantH2H)
		}
		var played []string
		for _, r := range insecta.RatingHistory {
			played = append(played, r.PlayID)
		}
		if !slices.Equal(played, ids) {
			t.Errorf("rating history plays = %v, want %v", played, ids)
		}
		h := st.Games[1]
		if h.AvgScore != nil || h.BestScore != nil || len(h.Scores) != 0 || h.Plays != 1 || h.Wins != 0 {
			t.Errorf("insektenhotel record = %+v; want 1 play, no wins, no scores", h)
		}
		var recent []string
		for _, p := range st.Recent {
			recent = append(recent, p.ID)
		}
		if want := []string{hotel, ids[3], ids[2], ids[1], ids[0]}; !slices.Equal(recent, want) {
			t.Errorf("recent = %v, want %v", recent, want)
		}

		st, _ = s.PlayerStats(ctx, DefaultGroup, ben)
		// Ben against Cleo: better in play 1, level in 3, worse in 4.
		if got, want := st.Games[0].HeadToHead[1], (HeadToHead{OpponentID: cleo, Opponent: "Cleo", Plays: 3, Wins: 1, Losses: 1, Ties: 1}); got != want {
			t.Errorf("Ben against Cleo = %+v, want %+v", got, want)
		}
		_, err = s.PlayerStats(ctx, DefaultGroup, "nosuchplayer")
		wantErr(t, "unknown player", err, ErrNotFound)
	})
}

func TestRecomputeRatings(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		g, _ := s.CreateGroup(ctx, "Other")
		for _, p := range handHistory {
			logPlay(t, s, DefaultGroup, p)
			logPlay(t, s, g.ID, p)
		}
		want := leaderboard(t, s, DefaultGroup, "insecta")
		ana := playerID(t, s, DefaultGroup, "Ana")
		wantStats, _ := s.PlayerStats(ctx, DefaultGroup, ana)
		s.db.Exec("UPDATE player_stats SET wins = 99, mu = 1")
		s.db.Exec("DELETE FROM rating_history")
		s.db.Exec("INSERT INTO player_stats (group_id, game, player_id, plays, wins, score_sum, best_score, rated_plays, mu, sigma, ordinal, last_played_at) VALUES (?, 'insectarium', ?, 1, 1, 1, 1, 0, 25, 8, 1, ?)",
			DefaultGroup, ana, t0)
		if err := s.RecomputeRatings(ctx); err != nil {
			t.Fatal(err)
		}
		if got := leaderboard(t, s, DefaultGroup, "insecta"); !reflect.DeepEqual(got, want) {
			t.Errorf("after recompute:\n got %s\nwant %s", show(got), show(want))
		}
		if got := leaderboard(t, s, g.ID, "insecta"); !reflect.DeepEqual(anonymous(got), anonymous(want)) {
			t.Errorf("other group after recompute:%s", show(got))
		}
		if got := leaderboard(t, s, DefaultGroup, "insectarium"); len(got) != 0 {
			t.Errorf("stats of a game without plays survived:%s", show(got))
		}
		if got, _ := s.PlayerStats(ctx, DefaultGroup, ana); !reflect.DeepEqual(got, wantStats) {
			t.Errorf("player stats after recompute:\n got %+v\nwant %+v", got, wantStats)
		}
	})
}

// TestConcurrentPlays records plays of one group at once, in no
// particular order of their finish times: the players are created once,
// and the leaderboard is that of recording them one by one in order.
func TestConcurrentPlays(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		s := openStore(t, dsn)
		names := []string{"Ana", "Ben", "Cleo", "Dan"}
		var history []hplay
		for i := range 12 {
			history = append(history, hplay{"insecta", time.Duration((i*5)%12) * time.Minute,
				[]string{names[i%4], names[(i+1)%4], names[(i+2)%4]}, []int{i % 5, (i * 3) % 7, 4}})
		}
		var wg sync.WaitGroup
		for _, p := range history {
			wg.Go(func() {
				lp, res := p.logged()
				if _, err := s.LogPlay(ctx, DefaultGroup, lp, res); err != nil {
					t.Errorf("LogPlay: %v", err)
				}
			})
		}
		// A table of the group finishes meanwhile.
		tbl, host := newTable(t, s, "Ana", "Ben") // spelled as in history: which spelling creates a player first is a race
		putSheets(t, s, tbl.Code, host)
		wg.Go(func() {
			if _, _, err := s.Finish(ctx, tbl.Code, host, false, nil); err != nil {
				t.Errorf("Finish: %v", err)
			}
		})
		wg.Wait()
		settle(t, s)
		if players, _ := s.ListPlayers(ctx, DefaultGroup); len(players) != 4 {
			t.Errorf("%d players, want 4: %+v", len(players), players)
		}
		ref := openStore(t, backends()[0].dsn(t))
		slices.SortStableFunc(history, func(a, b hplay) int { return int(a.at - b.at) })
		for _, p := range history {
			logPlay(t, ref, DefaultGroup, p)
		}
		ids := func(s *Store) []string {
			plays, _, _ := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup, Game: "insecta", Limit: MaxPlayLimit})
			var out []string
			for _, p := range plays {
				out = append(out, p.ID)
			}
			return out
		}
		sameHistory(t, s, ref, "insecta")
		// And a rebuild changes nothing.
		want := leaderboard(t, s, DefaultGroup, "insecta")
		if err := s.RecomputeRatings(ctx); err != nil {
			t.Fatal(err)
		}
		if got := leaderboard(t, s, DefaultGroup, "insecta"); !reflect.DeepEqual(got, want) {
			t.Errorf("leaderboard kept while recording at once:%s\nrebuilt:%s", show(want), show(got))
		}
		if len(ids(s)) != len(history) {
			t.Errorf("%d plays, want %d", len(ids(s)), len(history))
		}
		if lb := leaderboard(t, s, DefaultGroup, "insectarium"); len(lb) != 2 || lb[0].Plays != 1 {
			t.Errorf("insectarium leaderboard:%s", show(lb))
		}
	})
}

package models

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"insectscore/scoring"
)

type appliedMigration struct {
	ID   int
	Name string
}

func appliedMigrations(t *testing.T, s *Store) []appliedMigration {
	t.Helper()
	var rows []appliedMigration
	if err := s.db.Raw("SELECT id, name FROM schema_migrations ORDER BY id").Scan(&rows).Error; err != nil {
		t.Fatal(err)
	}
	return rows
}

func wantApplied(list []migration) []appliedMigration {
	out := make([]appliedMigration, len(list))
	for i, m := range list {
		out[i] = appliedMigration{m.ID, m.Name}
	}
	return out
}

// TestMigrationsUpgrade builds a database as each release before play
// history left it, with the rows that release wrote (by SQL, as today's
// code writes today's schema), and opens it with every migration: tables
// and plays join the default group, and the plays' players are found.
func TestMigrationsUpgrade(t *testing.T) {
	for _, from := range []int{1, 2} {
		t.Run(fmt.Sprintf("from %d", from), func(t *testing.T) {
			eachBackend(t, func(t *testing.T, dsn string) { upgradeFrom(t, dsn, from) })
		})
	}
}

func upgradeFrom(t *testing.T, dsn string, from int) {
	ctx := context.Background()
	old := openList(t, dsn, migrations[:from])
	if got, want := appliedMigrations(t, old), wantApplied(migrations[:from]); !reflect.DeepEqual(got, want) {
		t.Fatalf("old database migrations = %v, want %v", got, want)
	}
	start := time.Date(2025, 3, 1, 19, 0, 0, 0, time.UTC)
	end := start.Add(50 * time.Minute)
	exec := func(q string, args ...any) {
		t.Helper()
		if err := old.db.Exec(q, args...).Error; err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	host := "host-token"
	addTable := func(code, status string, names ...string) int64 {
		var finished *time.Time
		if status == "finished" {
			finished = &end
		}
		exec(`INSERT INTO tables (code, game, host_token_hash, variants, status, version, created_at, updated_at, finished_at)
			VALUES (?, 'insectarium', ?, '{}', ?, 3, ?, ?, ?)`, code, hashToken(host), status, start, end, finished)
		var id int64
		old.db.Raw("SELECT id FROM tables WHERE code = ?", code).Scan(&id)
		for i, n := range names {
			exec(`INSERT INTO seats (table_id, seat, name, name_key, claimed, board, updated_at) VALUES (?, ?, ?, ?, FALSE, ?, ?)`,
				id, i, n, scoring.NameKey(n), fmt.Sprintf(`{"supply":%d}`, i), start)
		}
		return id
	}
	addPlay := func(id string, table int64, at time.Time, standings string, names ...string) {
		var boards []string
		for i, n := range names {
			boards = append(boards, fmt.Sprintf(`{"seat":%d,"name":%q,"board":{"supply":%d}}`, i, n, i))
		}
		exec(`INSERT INTO plays (id, table_id, game, variants, boards, standings, started_at, finished_at)
			VALUES (?, ?, 'insectarium', '{}', ?, ?, ?, ?)`, id, table, "["+strings.Join(boards, ",")+"]", standings, start, at)
	}
	first := addTable("ABCDEF", "finished", "Ana", "Ben")
	addPlay("playoneaaaaaaaaa", first, end, string(marshal(t, scored("insectarium", []string{"Ana", "Ben"}, []int{40, 30}))), "Ana", "Ben")
	second := addTable("BCDEFG", "finished", "ben", "ANA", "Cleo")
	addPlay("playtwoaaaaaaaaa", second, end.Add(time.Hour), string(marshal(t, scored("insectarium", []string{"ben", "ANA", "Cleo"}, []int{45, 20, 45}))), "ben", "ANA", "Cleo")
	// A play whose standings list no results: kept, counted for nobody.
	third := addTable("CDEFGH", "finished", "Dan")
	addPlay("playthreeaaaaaaa", third, end.Add(2*time.Hour), `{"winners":[0]}`, "Dan")
	addTable("DEFGHJ", "open", "Cleo", "Dan")
	old.Close()

	s := openStore(t, dsn)
	if got, want := appliedMigrations(t, s), wantApplied(migrations); !reflect.DeepEqual(got, want) {
		t.Errorf("upgraded migrations = %v, want %v", got, want)
	}
	for _, ti := range [][2]string{{"plays", "plays_finished_at"}, {"plays", "plays_group_game"}, {"play_players", "play_players_player_play"},
		{"player_stats", "player_stats_rating"}, {"rating_history", "rating_history_group_time"},
		{"head_to_head", "head_to_head_opponent"}, {"player_scores", "player_scores_group"},
		{"idempotency_keys", "idempotency_keys_created"}} {
		if !s.db.Migrator().HasIndex(ti[0], ti[1]) {
			t.Errorf("upgraded database lacks %s", ti[1])
		}
	}
	finished, err := s.FindTableByCode(ctx, "abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if finished.Group != DefaultGroup || finished.PlayID != "playoneaaaaaaaaa" || finished.Status != StatusFinished || len(finished.Seats) != 2 {
		t.Errorf("finished table after upgrade = %+v", finished)
	}
	if role, err := s.Authorize(ctx, "ABCDEF", host); err != nil || !role.Host {
		t.Errorf("host token after upgrade: %+v, %v", role, err)
	}
	play, err := s.FindPlay(ctx, DefaultGroup, "playoneaaaaaaaaa")
	if err != nil {
		t.Fatal(err)
	}
	if len(play.Players) != 2 || play.Players[0].Player != "Ana" || play.Players[0].Total != 40 || !play.Players[0].Winner ||
		string(play.Players[1].Board) != `{"supply":1}` || len(play.Players[1].Breakdown) != 1 || play.TableCode != "ABCDEF" {
		t.Errorf("first play after upgrade = %+v", play)
	}
	plays, _, err := s.ListPlays(ctx, PlayFilter{Group: DefaultGroup})
	if err != nil || len(plays) != 3 || plays[0].ID != "playthreeaaaaaaa" || len(plays[0].Results) != 0 || len(plays[1].Results) != 3 {
		t.Errorf("plays after upgrade = %+v, %v; want 3, the newest without results", plays, err)
	}
	// Ana and "ANA" are one player; Ben and "ben" too. Play two is a
	// shared win of Ben and Cleo.
	lb := leaderboard(t, s, DefaultGroup, "insectarium")
	type line struct {
		Player      string
		Plays, Wins int
	}
	var got []line
	for _, e := range lb {
		got = append(got, line{e.Player, e.Plays, e.Wins})
	}
	slices.SortFunc(got, func(a, b line) int { return strings.Compare(a.Player, b.Player) })
	if want := []line{{"Ana", 2, 1}, {"Ben", 2, 1}, {"Cleo", 1, 1}}; !reflect.DeepEqual(got, want) {
		t.Errorf("leaderboard after upgrade = %+v, want %+v", got, want)
	}
	// The ratings are those of recording the plays today.
	fresh := openStore(t, filepath.Join(t.TempDir(), "fresh.db"))
	logPlay(t, fresh, DefaultGroup, hplay{"insectarium", end.Sub(t0), []string{"Ana", "Ben"}, []int{40, 30}})
	logPlay(t, fresh, DefaultGroup, hplay{"insectarium", end.Add(time.Hour).Sub(t0), []string{"ben", "ANA", "Cleo"}, []int{45, 20, 45}})
	sameHistory(t, s, fresh, "insectarium")
	// The score counts and head-to-head records are counted from the
	// plays the upgraded database had (migration 12).
	if f := figuresOf(t, s.db); len(f.Scores) != 5 || len(f.Pairs) != 6 {
		t.Errorf("score counts and head-to-head after upgrade: %+v; want 5 and 6 rows", f)
	}
	figuresMatchPlays(t, s, "after upgrade")

	// Plays now belong to a group, by a reference both databases enforce.
	quiet := s.db.Session(&gorm.Session{Logger: logger.Discard})
	err = quiet.Exec(`INSERT INTO plays (id, group_id, game, variants, boards, standings, started_at, finished_at)
		VALUES ('x', 'nosuchgroup', 'insecta', '{}', '[]', '{}', ?, ?)`, start, end).Error
	if !errors.Is(err, gorm.ErrForeignKeyViolated) {
		t.Errorf("play of a missing group: err = %v, want a foreign key violation", err)
	}
	// The upgraded database takes writes: the open table finishes into
	// the default group's history.
	open, _ := s.FindTableByCode(ctx, "DEFGHJ")
	if open.Group != DefaultGroup {
		t.Errorf("open table's group = %q", open.Group)
	}
	id := finish(t, s, "DEFGHJ", host)
	if _, err := s.FindPlay(ctx, DefaultGroup, id); err != nil {
		t.Errorf("play finished after upgrade: %v", err)
	}
	if _, _, err := s.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Eve"}}); err != nil {
		t.Errorf("create a table after upgrade: %v", err)
	}
}

// TestMigrationsUpgradeSeatSync opens a database as the release with play
// history left it: its seats are saved (nothing unsent, never heard
// from), take sync reports, and idempotency keys can be kept.
func TestMigrationsUpgradeSeatSync(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		old := openList(t, dsn, migrations[:3])
		at := time.Date(2025, 9, 1, 19, 0, 0, 0, time.UTC)
		for _, q := range []string{
			`INSERT INTO tables (code, game, host_token_hash, variants, status, version, created_at, updated_at, group_id)
				VALUES ('EFGHJK', 'insecta', 'hash', '{}', 'open', 4, ?, ?, 'default')`,
			`INSERT INTO seats (table_id, seat, name, name_key, claimed, board, updated_at)
				SELECT id, 0, 'Ana', 'ana', FALSE, '{"track":3}', ? FROM tables WHERE code = 'EFGHJK'`,
		} {
			args := []any{at, at}[:strings.Count(q, "?")]
			if err := old.db.Exec(q, args...).Error; err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		old.Close()

		s := openStore(t, dsn)
		tbl, err := s.FindTableByCode(ctx, "EFGHJK")
		if err != nil {
			t.Fatal(err)
		}
		if got := tbl.Seats[0].Sync; got.Unsent != 0 || got.LastSeenAt != nil || got.UnsentSince != nil || got.State(at) != SyncSaved {
			t.Errorf("an old seat's sync = %+v, want saved and never heard from", got)
		}
		ana, err := s.ClaimSeat(ctx, "EFGHJK", 0)
		if err != nil {
			t.Fatalf("claim an old seat: %v", err)
		}
		if r, _, err := s.ReportSync(ctx, SyncReport{Code: "EFGHJK", Token: ana, Seat: 0, Unsent: 1, Since: at}, nil); err != nil || r.State == nil {
			t.Errorf("a report on an old seat = %+v, %v; want a change", r, err)
		}
		if a, err := s.BeginIdempotent(ctx, KeyClaim{Scope: "scope", Fingerprint: "fp", Now: at, TTL: time.Hour}); a != nil || err != nil {
			t.Errorf("an idempotency key after the upgrade = %+v, %v", a, err)
		}
	})
}

func TestMigrateTwiceIsNoop(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		type row struct {
			ID        int
			Name      string
			AppliedAt string
		}
		read := func(s *Store) []row {
			var rows []row
			if err := s.db.Raw("SELECT id, name, CAST(applied_at AS TEXT) AS applied_at FROM schema_migrations ORDER BY id").Scan(&rows).Error; err != nil {
				t.Fatal(err)
			}
			return rows
		}
		s := openStore(t, dsn)
		first := read(s)
		s.Close()
		s = openStore(t, dsn)
		if second := read(s); !reflect.DeepEqual(second, first) {
			t.Errorf("after a second Open: %v, want unchanged %v", second, first)
		}
		if err := migrate(context.Background(), s.db, migrations, s.now, testLogger(t)); err != nil {
			t.Errorf("migrate again: %v", err)
		}
		if got := len(read(s)); got != len(migrations) {
			t.Errorf("%d migrations recorded, want %d", got, len(migrations))
		}
	})
}

func TestMigrateRefusesNewerDatabase(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		openStore(t, dsn).Close()
		_, err := open(context.Background(), dsn, testLogger(t), migrations[:1])
		if err == nil || !strings.Contains(err.Error(), "newer") {
			t.Errorf("open with an older program: err = %v, want a 'newer' error", err)
		}
	})
}

// TestMigrateRefusesOneVersionAhead pins the check at its edge: a database
// one migration ahead of the program is refused with the clear error, not
// migrated from a position past the program's list.
func TestMigrateRefusesOneVersionAhead(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		openStore(t, dsn).Close()
		n := len(migrations)
		_, err := open(context.Background(), dsn, testLogger(t), migrations[:n-1])
		want := fmt.Sprintf("the database is at schema version %d, newer than this program's %d", n, n-1)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("open with a program one migration behind: err = %v, want %q", err, want)
		}
		s, err := open(context.Background(), dsn, testLogger(t), migrations)
		if err != nil {
			t.Fatalf("open with the program's own list: %v", err)
		}
		s.Close()
	})
}

// TestMigrationFailureRollsBack shows a failing step leaves no trace: its
// DDL is undone and it is not recorded, so a fixed program can run it.
func TestMigrationFailureRollsBack(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		boom := errors.New("boom")
		list := append(migrations[:1:1], migration{ID: 2, Name: "half done", Up: func(tx *gorm.DB) error {
			if err := tx.Exec("CREATE TABLE half_done (id INTEGER)").Error; err != nil {
				return err
			}
			return boom
		}})
		_, err := open(context.Background(), dsn, testLogger(t), list)
		if !errors.Is(err, boom) {
			t.Fatalf("open = %v, want the migration's error", err)
		}
		s := openList(t, dsn, migrations[:1])
		if got, want := appliedMigrations(t, s), wantApplied(migrations[:1]); !reflect.DeepEqual(got, want) {
			t.Errorf("recorded = %v, want %v", got, want)
		}
		if s.db.Migrator().HasTable("half_done") {
			t.Error("the failed migration's table exists")
		}
	})
}

func TestMigrationIDsAreSequential(t *testing.T) {
	list := []migration{{ID: 1, Name: "a", Up: execDDL()}, {ID: 3, Name: "c", Up: execDDL()}}
	_, err := open(context.Background(), ":memory:", testLogger(t), list)
	if err == nil || !strings.Contains(err.Error(), "want 2") {
		t.Errorf("open with a gap in ids: err = %v, want one naming id 2", err)
	}
}

// TestMigrationsUpgradeNamesAndStarts opens a database as the release
// before invisible characters left it: player keys are computed again
// where that merges no two players, so a name with a zero-width space
// alone finds its player; and a play imported without its start gets an
// unknown start, not the year 1.
func TestMigrationsUpgradeNamesAndStarts(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		old := openList(t, dsn, migrations[:5])
		at := time.Date(2025, 9, 1, 19, 0, 0, 0, time.UTC)
		players := []struct{ id, name, key string }{
			{"pana", "Ana", "ana"},
			{"pana2", "A\u200bna", "a\u200bna"}, // would be Ana's key: stays apart
			{"pben", "Ben\u200b", "ben\u200b"},
			{"pzoe", "Zoe\u0308", "zoe\u0308"},
		}
		for _, p := range players {
			if err := old.db.Exec("INSERT INTO players (id, group_id, name, name_key, created_at) VALUES (?, 'default', ?, ?, ?)",
				p.id, p.name, p.key, at).Error; err != nil {
				t.Fatal(err)
			}
		}
		if err := old.db.Exec(`INSERT INTO plays (id, group_id, game, variants, boards, standings, started_at, finished_at)
			VALUES ('oldplay', 'default', 'insecta', '{}', '[]', '{}', ?, ?)`, time.Time{}, at).Error; err != nil {
			t.Fatal(err)
		}
		old.Close()

		s := openStore(t, dsn)
		want := map[string]string{"pana": "ana", "pana2": "a\u200bna", "pben": "ben", "pzoe": "zoë"}
		for id, key := range want {
			var got string
			if err := s.db.Raw("SELECT name_key FROM players WHERE id = ?", id).Scan(&got).Error; err != nil || got != key {
				t.Errorf("key of %s = %+q, %v; want %+q", id, got, err, key)
			}
		}
		p, err := s.FindPlay(ctx, DefaultGroup, "oldplay")
		if err != nil {
			t.Fatal(err)
		}
		if !p.StartedAt.Equal(at) || p.Duration() != 0 {
			t.Errorf("started %v, lasted %v; want an unknown start", p.StartedAt, p.Duration())
		}
		logPlay(t, s, DefaultGroup, hplay{"insecta", time.Hour, []string{"Ben", "Zoë"}, []int{2, 1}})
		if list, _ := s.ListPlayers(ctx, DefaultGroup); len(list) != len(players) {
			t.Errorf("players after logging Ben and Zoë: %+v, want the %d there were", list, len(players))
		}
	})
}

// TestMigrationsUpgradeDefaultGroupName opens a database as migration 16
// left it: the default group, still named "Our table" as migration 3 made
// it, is now "Our group" ("table" is a live game); a group people named
// "Our table" themselves keeps its name.
func TestMigrationsUpgradeDefaultGroupName(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		old := openList(t, dsn, migrations[:16])
		if err := old.db.Exec(`INSERT INTO groups (id, name, created_at) VALUES ('theirsaaaaaaaaaaaaaaaaaaaaaaaaaa', 'Our table', ?)`,
			time.Date(2025, 9, 1, 19, 0, 0, 0, time.UTC)).Error; err != nil {
			t.Fatal(err)
		}
		old.Close()

		s := openStore(t, dsn)
		for id, want := range map[string]string{DefaultGroup: "Our group", "theirsaaaaaaaaaaaaaaaaaaaaaaaaaa": "Our table"} {
			if g, err := s.FindGroup(ctx, id); err != nil || g.Name != want {
				t.Errorf("group %s after the upgrade = %+v, %v; want it named %q", id, g, err, want)
			}
		}
	})
}

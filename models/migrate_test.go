package models

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"gorm.io/gorm"
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

// TestMigrationsUpgrade builds a database as the first release left it,
// with data, and opens it with every migration.
func TestMigrationsUpgrade(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		old := openList(t, dsn, migrations[:1])
		if got, want := appliedMigrations(t, old), wantApplied(migrations[:1]); !reflect.DeepEqual(got, want) {
			t.Fatalf("old database migrations = %v, want %v", got, want)
		}
		if old.db.Migrator().HasIndex("plays", "plays_finished_at") {
			t.Fatal("migration 1 alone already has migration 2's index")
		}
		tbl, host, err := old.CreateTable(ctx, NewTable{Game: "insectarium", Names: []string{"Ana", "Ben"}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := old.SaveBoard(ctx, tbl.Code, 0, json.RawMessage(`{"supply":3}`), nil); err != nil {
			t.Fatal(err)
		}
		playID, err := old.FinishTable(ctx, tbl.Code, 2, json.RawMessage(`{"winners":[0]}`))
		if err != nil {
			t.Fatal(err)
		}
		open, _, err := old.CreateTable(ctx, NewTable{Game: "insecta", Names: []string{"Cleo"}})
		if err != nil {
			t.Fatal(err)
		}
		wantFinished, _ := old.FindTableByCode(ctx, tbl.Code)
		wantOpen, _ := old.FindTableByCode(ctx, open.Code)
		old.Close()

		s := openStore(t, dsn)
		if got, want := appliedMigrations(t, s), wantApplied(migrations); !reflect.DeepEqual(got, want) {
			t.Errorf("upgraded migrations = %v, want %v", got, want)
		}
		if !s.db.Migrator().HasIndex("plays", "plays_finished_at") {
			t.Error("upgraded database lacks plays_finished_at")
		}
		for _, want := range []*Table{wantFinished, wantOpen} {
			got, err := s.FindTableByCode(ctx, want.Code)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("table %s after upgrade:\n got %+v\nwant %+v", want.Code, got, want)
			}
		}
		if wantFinished.PlayID != playID {
			t.Errorf("play id = %q, want %q", wantFinished.PlayID, playID)
		}
		if role, err := s.Authorize(ctx, tbl.Code, host); err != nil || !role.Host {
			t.Errorf("host token after upgrade: %+v, %v", role, err)
		}
		// The upgraded database takes writes.
		if _, err := s.SaveBoard(ctx, open.Code, 0, json.RawMessage(`{}`), nil); err != nil {
			t.Errorf("write after upgrade: %v", err)
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

package models

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// migration is one step of the schema's history. Once released, a
// migration never changes: a fix is a new migration at the end.
type migration struct {
	ID   int
	Name string
	Up   func(tx *gorm.DB) error
}

// migrations is the schema's history, oldest first. IDs are 1, 2, 3, …
//
// Each step is explicit SQL that runs on SQLite and PostgreSQL alike; the
// few words that differ are written {{pk}}, {{time}} and {{bytes}} and filled in per
// database by ddl. JSON is stored as TEXT on both, so bytes read back
// exactly as written.
var migrations = []migration{
	{ID: 1, Name: "live tables", Up: execDDL(
		`CREATE TABLE tables (
			id              {{pk}},
			code            TEXT NOT NULL UNIQUE,
			game            TEXT NOT NULL,
			host_token_hash TEXT NOT NULL,
			variants        TEXT NOT NULL DEFAULT '{}',
			status          TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'finished')),
			version         INTEGER NOT NULL DEFAULT 1,
			created_at      {{time}} NOT NULL,
			updated_at      {{time}} NOT NULL,
			finished_at     {{time}}
		)`,
		// name_key is scoring.NameKey(name): one name per table, however
		// it is typed, as scoring requires.
		`CREATE TABLE seats (
			id         {{pk}},
			table_id   BIGINT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
			seat       INTEGER NOT NULL,
			name       TEXT NOT NULL,
			name_key   TEXT NOT NULL,
			token_hash TEXT,
			claimed    BOOLEAN NOT NULL DEFAULT FALSE,
			board      TEXT,
			updated_at {{time}} NOT NULL,
			UNIQUE (table_id, seat),
			UNIQUE (table_id, name_key),
			CHECK (claimed = (token_hash IS NOT NULL))
		)`,
		`CREATE TABLE moves (
			id         {{pk}},
			table_id   BIGINT NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
			seq        INTEGER NOT NULL,
			body       TEXT NOT NULL,
			created_at {{time}} NOT NULL,
			UNIQUE (table_id, seq)
		)`,
		// A play is a finished game as history keeps it. It outlives its
		// table (SET NULL), and plays logged after the fact have none.
		// boards is the seats' final boards, standings the scored result.
		`CREATE TABLE plays (
			id          TEXT PRIMARY KEY,
			table_id    BIGINT UNIQUE REFERENCES tables (id) ON DELETE SET NULL,
			game        TEXT NOT NULL,
			variants    TEXT NOT NULL DEFAULT '{}',
			boards      TEXT NOT NULL,
			standings   TEXT NOT NULL,
			started_at  {{time}} NOT NULL,
			finished_at {{time}} NOT NULL
		)`,
	)},
	{ID: 2, Name: "plays by finish time", Up: execDDL(
		// History lists plays newest first and pages by (finished_at, id).
		`CREATE INDEX plays_finished_at ON plays (finished_at, id)`,
	)},
	{ID: 3, Name: "groups, players and leaderboards", Up: migrateHistory},
	{ID: 4, Name: "idempotency keys", Up: execDDL(
		// A write sent with an Idempotency-Key, and once it is answered
		// the answer, so a retry gets it again instead of running twice.
		// scope is the SHA-256 of the key with the method and URL it was
		// sent to (a key counts per route); fingerprint that of the
		// Authorization header and body, which must match on a retry.
		// status is NULL while the first request runs. created_at is when
		// that request started: keys expire from it.
		`CREATE TABLE idempotency_keys (
			scope        TEXT PRIMARY KEY,
			fingerprint  TEXT NOT NULL,
			status       INTEGER,
			content_type TEXT NOT NULL DEFAULT '',
			location     TEXT NOT NULL DEFAULT '',
			body         {{bytes}},
			created_at   {{time}} NOT NULL
		)`,
		`CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at)`,
	)},
	{ID: 5, Name: "seat sync state", Up: execDDL(
		// What a seat's phone last said about the changes it has not sent
		// yet: when it was last heard from, how many changes wait, and
		// since when (NULL when none wait).
		`ALTER TABLE seats ADD COLUMN last_seen_at {{time}}`,
		`ALTER TABLE seats ADD COLUMN unsent INTEGER NOT NULL DEFAULT 0 CHECK (unsent >= 0)`,
		`ALTER TABLE seats ADD COLUMN unsent_since {{time}}`,
	)},
	{ID: 6, Name: "imports in batches", Up: execDDL(
		// Set while an import writes a group's history, one short
		// transaction at a time: the group is hidden until then. Each
		// batch moves it on; one that has passed is an import abandoned.
		`ALTER TABLE groups ADD COLUMN importing_until {{time}}`,
		// A play whose start is unknown starts when it finishes; imports
		// kept the zero time instead, which read as 2,000 years of play.
		`UPDATE plays SET started_at = finished_at WHERE started_at < '1970-01-01'`,
	)},
	{ID: 7, Name: "names matched without invisible characters", Up: rekeyNames},
	{ID: 8, Name: "a table's starting seat", Up: execDDL(
		// The seat that plays first at a table played move by move ("the
		// last to stay in a hotel starts"): rounds count from it. Tables
		// before it started at seat 0.
		`ALTER TABLE tables ADD COLUMN first_seat INTEGER NOT NULL DEFAULT 0 CHECK (first_seat >= 0)`,
	)},
	// Rebuilds after a change to the past run in the background
	// (rebuild.go): what is left to do is kept here.
	{ID: 9, Name: "rating rebuilds in the background", Up: migrateRebuilds},
	{ID: 10, Name: "a player's plays and ratings by index", Up: execDDL(
		// A player's plays: the play ids come from the index alone.
		`CREATE INDEX play_players_player_play ON play_players (player_id, play_id)`,
		`DROP INDEX play_players_player`,
		// A player's rating history is paged by (finished_at, play_id).
		`CREATE INDEX rating_history_player_page ON rating_history (player_id, game, finished_at, play_id)`,
		`DROP INDEX rating_history_player`,
		// A background rebuild replaces a game's rating points from a
		// (finished_at, play_id) on: one index range, not the whole game.
		`CREATE INDEX rating_history_group_time ON rating_history (group_id, game, finished_at, play_id)`,
		`DROP INDEX rating_history_group`,
	)},
	{ID: 11, Name: "a play's notes, location and start player", Up: execDDL(
		// Free notes and where the play was, "" when not given;
		// location_key is the location matched as names are (nameKey),
		// for the history filter. start_seat is the seat of the player
		// who started, NULL when not known.
		`ALTER TABLE plays ADD COLUMN notes TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE plays ADD COLUMN location TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE plays ADD COLUMN location_key TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE plays ADD COLUMN start_seat INTEGER CHECK (start_seat >= 0)`,
		// History filtered by location, paged by (finished_at, id).
		`CREATE INDEX plays_group_location ON plays (group_id, location_key, finished_at, id)`,
	)},
	// A player's page reads score counts and head-to-head records kept
	// up to date by every change to the plays (figures.go).
	{ID: 12, Name: "score counts and head-to-head", Up: migrateFigures},
	{ID: 13, Name: "the language of a kept answer", Up: execDDL(
		// A retry of a write gets the first answer again, in the words
		// it was written in: its Content-Language goes with it ("" for
		// an answer kept before, whose language is not known).
		`ALTER TABLE idempotency_keys ADD COLUMN content_language TEXT NOT NULL DEFAULT ''`,
	)},
	{ID: 14, Name: "the ETag of a kept answer", Up: execDDL(
		// A replayed board write says the version it made, as the first
		// answer did ("" for an answer kept before, or one without).
		`ALTER TABLE idempotency_keys ADD COLUMN etag TEXT NOT NULL DEFAULT ''`,
	)},
	{ID: 15, Name: "the client of a kept answer", Up: execDDL(
		// Keys are capped per client address (KeyBounds): the address a
		// key came from, counted by its time ("" for a key kept before).
		`ALTER TABLE idempotency_keys ADD COLUMN client TEXT NOT NULL DEFAULT ''`,
		`CREATE INDEX idempotency_keys_client ON idempotency_keys (client, created_at)`,
	)},
	{ID: 16, Name: "a play's sentences by key", Up: migrateMessages},
	{ID: 17, Name: "the default group is a group, not a table", Up: execDDL(
		// Migration 3 named the default group "Our table", while a table
		// is a live game shared by its code. Groups cannot be renamed, so
		// a default group still named so carries the name the server gave
		// it: it takes the new one (the app shows either in its own
		// language). Every other group keeps the name its people chose.
		`UPDATE groups SET name = 'Our group' WHERE id = 'default' AND name = 'Our table'`,
	)},
}

// rekeyNames is migration 7: names are matched by nameKey now, which also
// brings them to NFC and leaves out characters that show nothing, so the
// keys of existing players and seats are computed again. Where two names
// of a group (or a table) would now have one key, both keep their old
// ones: they stay two players, to be merged by hand if they are one
// person. Like migration 3, it runs today's nameKey.
func rekeyNames(tx *gorm.DB) error {
	type named struct {
		ID      string
		Scope   string
		Name    string
		NameKey string
	}
	for _, t := range []struct{ table, scope string }{{"players", "group_id"}, {"seats", "table_id"}} {
		var rows []named
		err := tx.Raw("SELECT CAST(id AS TEXT) AS id, CAST(" + t.scope + " AS TEXT) AS scope, name, name_key FROM " + t.table + " ORDER BY id").
			Scan(&rows).Error
		if err != nil {
			return err
		}
		taken := map[string]bool{}
		for _, r := range rows {
			taken[r.Scope+"\x00"+r.NameKey] = true
		}
		for _, r := range rows {
			key := nameKey(r.Name)
			if key == "" || key == r.NameKey || taken[r.Scope+"\x00"+key] {
				continue
			}
			if err := tx.Exec("UPDATE "+t.table+" SET name_key = ? WHERE CAST(id AS TEXT) = ?", key, r.ID).Error; err != nil {
				return err
			}
			taken[r.Scope+"\x00"+r.NameKey], taken[r.Scope+"\x00"+key] = false, true
		}
	}
	return nil
}

// migrateHistory is migration 3: groups scope history, players are people
// within a group, and every play gets one row per player, from which the
// leaderboard aggregates are kept. Existing tables and plays join the
// default group, and existing plays get their player rows from the
// standings they recorded, so an upgraded server keeps its history.
func migrateHistory(tx *gorm.DB) error {
	err := execDDL(
		// The id of a group other than the default is its invite: it is
		// drawn with 160 random bits and never listed.
		`CREATE TABLE groups (
			id         TEXT PRIMARY KEY,
			name       TEXT NOT NULL,
			created_at {{time}} NOT NULL
		)`,
		// A self-hosted server works with no setup: everyone is in it.
		`INSERT INTO groups (id, name, created_at) VALUES ('default', 'Our table', CURRENT_TIMESTAMP)`,
		// Nullable because SQLite adds a REFERENCES column only with a NULL
		// default; the store writes it on every new table and reads NULL
		// as the default group.
		`ALTER TABLE tables ADD COLUMN group_id TEXT REFERENCES groups (id)`,
		`UPDATE tables SET group_id = 'default'`,
	)(tx)
	if err != nil {
		return err
	}
	if err := addPlayGroup(tx); err != nil {
		return err
	}
	err = execDDL(
		// Plays of one group, newest first, by game or all games.
		`CREATE INDEX plays_group ON plays (group_id, finished_at, id)`,
		`CREATE INDEX plays_group_game ON plays (group_id, game, finished_at, id)`,
		// name_key is scoring.NameKey(name): "Ana", "ana " and "ANA" are
		// one player of a group.
		`CREATE TABLE players (
			id         TEXT PRIMARY KEY,
			group_id   TEXT NOT NULL REFERENCES groups (id),
			name       TEXT NOT NULL,
			name_key   TEXT NOT NULL,
			created_at {{time}} NOT NULL,
			UNIQUE (group_id, name_key)
		)`,
		// One row per player of a play, in the order the play was scored
		// (seat). name_as_entered keeps the name typed at the table, which
		// a rename or merge of the player does not change.
		`CREATE TABLE play_players (
			play_id         TEXT NOT NULL REFERENCES plays (id) ON DELETE CASCADE,
			seat            INTEGER NOT NULL,
			player_id       TEXT NOT NULL REFERENCES players (id),
			name_as_entered TEXT NOT NULL,
			total           INTEGER NOT NULL,
			rank            INTEGER NOT NULL,
			winner          BOOLEAN NOT NULL,
			breakdown       TEXT NOT NULL DEFAULT '[]',
			board           TEXT,
			PRIMARY KEY (play_id, seat),
			UNIQUE (play_id, player_id)
		)`,
		`CREATE INDEX play_players_player ON play_players (player_id)`,
		// The leaderboard, kept up to date as plays are recorded, so that
		// reading it costs the same at any length of history. mu and sigma
		// are the OpenSkill rating, ordinal its conservative estimate.
		`CREATE TABLE player_stats (
			group_id       TEXT NOT NULL REFERENCES groups (id),
			game           TEXT NOT NULL,
			player_id      TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
			plays          INTEGER NOT NULL,
			wins           INTEGER NOT NULL,
			score_sum      BIGINT NOT NULL,
			best_score     INTEGER NOT NULL,
			rated_plays    INTEGER NOT NULL,
			mu             DOUBLE PRECISION NOT NULL,
			sigma          DOUBLE PRECISION NOT NULL,
			ordinal        DOUBLE PRECISION NOT NULL,
			last_played_at {{time}} NOT NULL,
			PRIMARY KEY (group_id, game, player_id)
		)`,
		`CREATE INDEX player_stats_rating ON player_stats (group_id, game, ordinal)`,
		// Each rated player's rating after each play, for the rating chart.
		`CREATE TABLE rating_history (
			play_id     TEXT NOT NULL REFERENCES plays (id) ON DELETE CASCADE,
			player_id   TEXT NOT NULL REFERENCES players (id) ON DELETE CASCADE,
			group_id    TEXT NOT NULL REFERENCES groups (id),
			game        TEXT NOT NULL,
			mu          DOUBLE PRECISION NOT NULL,
			sigma       DOUBLE PRECISION NOT NULL,
			ordinal     DOUBLE PRECISION NOT NULL,
			finished_at {{time}} NOT NULL,
			PRIMARY KEY (play_id, player_id)
		)`,
		`CREATE INDEX rating_history_player ON rating_history (player_id, game, finished_at)`,
		// A rebuild deletes one group's game.
		`CREATE INDEX rating_history_group ON rating_history (group_id, game)`,
	)(tx)
	if err != nil {
		return err
	}
	if err := backfillPlayPlayers(tx); err != nil {
		return err
	}
	// The aggregates are derived data, built by today's code. Should a
	// later migration change player_stats or rating_history, this call
	// fails on an old database in TestMigrationsUpgrade: then move it to
	// the newest migration.
	return rebuildGroup(tx, DefaultGroup, recomputePlays)
}

// addPlayGroup gives every play a group, the default one for the plays
// that exist. PostgreSQL adds the column with a default it then drops.
// SQLite cannot add a REFERENCES column with a non-NULL default to a table
// with rows, so it rebuilds the table, the way its documentation
// prescribes for such changes; nothing references plays yet.
func addPlayGroup(tx *gorm.DB) error {
	if tx.Dialector.Name() == "postgres" {
		return execDDL(
			`ALTER TABLE plays ADD COLUMN group_id TEXT NOT NULL DEFAULT 'default' REFERENCES groups (id)`,
			`ALTER TABLE plays ALTER COLUMN group_id DROP DEFAULT`,
		)(tx)
	}
	return execDDL(
		`CREATE TABLE plays_new (
			id          TEXT PRIMARY KEY,
			group_id    TEXT NOT NULL REFERENCES groups (id),
			table_id    BIGINT UNIQUE REFERENCES tables (id) ON DELETE SET NULL,
			game        TEXT NOT NULL,
			variants    TEXT NOT NULL DEFAULT '{}',
			boards      TEXT NOT NULL,
			standings   TEXT NOT NULL,
			started_at  {{time}} NOT NULL,
			finished_at {{time}} NOT NULL
		)`,
		`INSERT INTO plays_new (id, group_id, table_id, game, variants, boards, standings, started_at, finished_at)
			SELECT id, 'default', table_id, game, variants, boards, standings, started_at, finished_at FROM plays`,
		`DROP TABLE plays`,
		`ALTER TABLE plays_new RENAME TO plays`,
		`CREATE INDEX plays_finished_at ON plays (finished_at, id)`,
	)(tx)
}

// backfillPlayPlayers gives the plays recorded before migration 3 their
// player rows, read from the standings and boards they stored, creating
// the default group's players by name. A play whose standings do not list
// one result per board is left without rows: it stays in the history but
// counts for nobody. The code is frozen with the migration on purpose: it
// reads what release 1 wrote, not what the store writes today.
func backfillPlayPlayers(tx *gorm.DB) error {
	type legacyPlay struct {
		ID        string
		Boards    string
		Standings string
	}
	var plays []legacyPlay
	if err := tx.Raw("SELECT id, boards, standings FROM plays ORDER BY finished_at, id").Scan(&plays).Error; err != nil {
		return err
	}
	ids := map[string]string{} // name key → player id
	for _, p := range plays {
		var standings struct {
			Results []struct {
				Name      string          `json:"name"`
				Total     int             `json:"total"`
				Rank      int             `json:"rank"`
				Winner    bool            `json:"winner"`
				Breakdown json.RawMessage `json:"breakdown"`
			} `json:"results"`
		}
		var boards []struct {
			Seat  int             `json:"seat"`
			Board json.RawMessage `json:"board"`
		}
		if json.Unmarshal([]byte(p.Standings), &standings) != nil || json.Unmarshal([]byte(p.Boards), &boards) != nil ||
			len(standings.Results) == 0 || len(standings.Results) != len(boards) {
			continue
		}
		for i, r := range standings.Results {
			name := strings.TrimSpace(r.Name)
			key := scoring.NameKey(name)
			if key == "" {
				return fmt.Errorf("play %s: result %d has no name", p.ID, i)
			}
			id, ok := ids[key]
			if !ok {
				var err error
				if id, err = newPlayerID(rand.Reader); err != nil {
					return err
				}
				ids[key] = id
				if err := tx.Exec("INSERT INTO players (id, group_id, name, name_key, created_at) VALUES (?, 'default', ?, ?, CURRENT_TIMESTAMP)",
					id, name, key).Error; err != nil {
					return err
				}
			}
			breakdown := "[]"
			if len(r.Breakdown) > 0 && string(r.Breakdown) != "null" {
				breakdown = string(r.Breakdown)
			}
			board, err := boardText(boards[i].Board)
			if err != nil {
				return fmt.Errorf("play %s: %w", p.ID, err)
			}
			if err := tx.Exec(`INSERT INTO play_players (play_id, seat, player_id, name_as_entered, total, rank, winner, breakdown, board)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, p.ID, boards[i].Seat, id, name, r.Total, r.Rank, r.Winner, breakdown, board).Error; err != nil {
				return fmt.Errorf("play %s: %w", p.ID, err)
			}
		}
	}
	return nil
}

// ddlWords fills in the column types that differ between the databases.
var ddlWords = map[string]*strings.Replacer{
	"sqlite": strings.NewReplacer(
		// An INTEGER PRIMARY KEY is the rowid: no separate index.
		"{{pk}}", "INTEGER PRIMARY KEY",
		// go-sqlite3 parses DATETIME columns back into time.Time.
		"{{time}}", "DATETIME",
		"{{bytes}}", "BLOB",
	),
	"postgres": strings.NewReplacer(
		"{{pk}}", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
		"{{time}}", "TIMESTAMPTZ",
		"{{bytes}}", "BYTEA",
	),
}

// ddl rewrites a statement for tx's database.
func ddl(tx *gorm.DB, stmt string) (string, error) {
	r, ok := ddlWords[tx.Dialector.Name()]
	if !ok {
		return "", fmt.Errorf("models: no migrations for database %q", tx.Dialector.Name())
	}
	return r.Replace(stmt), nil
}

// execDDL returns a migration step that runs the statements in order.
func execDDL(stmts ...string) func(tx *gorm.DB) error {
	return func(tx *gorm.DB) error {
		for _, stmt := range stmts {
			q, err := ddl(tx, stmt)
			if err != nil {
				return err
			}
			if err := tx.Exec(q).Error; err != nil {
				return err
			}
		}
		return nil
	}
}

// migrate applies the migrations of list that the database has not
// recorded yet, each in its own transaction together with its record, so a
// failed step leaves the schema at the previous version. It refuses a
// database that a newer binary has migrated past list.
func migrate(ctx context.Context, db *gorm.DB, list []migration, now func() time.Time, log *slog.Logger) error {
	for i, m := range list {
		if m.ID != i+1 {
			return fmt.Errorf("models: migration %q has id %d, want %d", m.Name, m.ID, i+1)
		}
	}
	db = db.WithContext(ctx)
	err := db.Transaction(func(tx *gorm.DB) error {
		if err := lockMigrations(tx); err != nil {
			return err
		}
		q, err := ddl(tx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			id         INTEGER PRIMARY KEY,
			name       TEXT NOT NULL,
			applied_at {{time}} NOT NULL
		)`)
		if err != nil {
			return err
		}
		return tx.Exec(q).Error
	})
	if err != nil {
		return fmt.Errorf("models: create schema_migrations: %w", err)
	}
	current, err := schemaVersion(db)
	if err != nil {
		return err
	}
	if current > len(list) {
		return fmt.Errorf("models: the database is at schema version %d, newer than this program's %d; run a newer insectscore", current, len(list))
	}
	for _, m := range list[current:] {
		applied := false
		err := db.Transaction(func(tx *gorm.DB) error {
			if err := lockMigrations(tx); err != nil {
				return err
			}
			// Another replica may have applied it while we waited.
			var n int64
			if err := tx.Table("schema_migrations").Where("id = ?", m.ID).Count(&n).Error; err != nil || n > 0 {
				return err
			}
			if err := m.Up(tx); err != nil {
				return err
			}
			applied = true
			return tx.Exec("INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)", m.ID, m.Name, now()).Error
		})
		if err != nil {
			return fmt.Errorf("models: migration %d (%s): %w", m.ID, m.Name, err)
		}
		if applied {
			log.Info("applied migration", "id", m.ID, "name", m.Name)
		}
	}
	return nil
}

// lockMigrations serialises migrations across PostgreSQL replicas that
// start together; the lock ends with the transaction and is per schema.
// SQLite needs nothing: BEGIN IMMEDIATE already holds the only write lock.
func lockMigrations(tx *gorm.DB) error {
	if tx.Dialector.Name() != "postgres" {
		return nil
	}
	return tx.Exec("SELECT pg_advisory_xact_lock(hashtext('insectscore.migrate.' || current_schema()))").Error
}

// schemaVersion is the id of the newest migration applied.
func schemaVersion(db *gorm.DB) (int, error) {
	var v int
	err := db.Raw("SELECT COALESCE(MAX(id), 0) FROM schema_migrations").Scan(&v).Error
	if err != nil {
		return 0, fmt.Errorf("models: read schema version: %w", err)
	}
	return v, nil
}

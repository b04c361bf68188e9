package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"insectscore/models"
	"insectscore/scoring"
)

func TestParseConfig(t *testing.T) {
	env := map[string]string{"INSECTSCORE_ADDR": ":9000", "INSECTSCORE_BASE_URL": "https://scores.example/"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		args []string
		want config
	}{
		{"environment", nil, config{Addr: ":9000", DB: "./insectscore.db", BaseURL: "https://scores.example", LogLevel: "info"}},
		{"flags win", []string{"-addr", ":7000", "-db", "/tmp/x.db", "-log-level", "debug"},
			config{Addr: ":7000", DB: "/tmp/x.db", BaseURL: "https://scores.example", LogLevel: "debug"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseConfig(tt.args, getenv, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	if _, err := parseConfig([]string{"-nope"}, getenv, io.Discard); err == nil {
		t.Error("an unknown flag was accepted")
	}
	if _, err := logLevel("loud"); err == nil {
		t.Error("log level loud was accepted")
	}
}

// history is a database file with a group of two plays, made through the
// store as the server would.
func history(t *testing.T) (path, group string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "insectscore.db")
	ctx := context.Background()
	store, err := models.Open(ctx, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	g, err := store.CreateGroup(ctx, "Friday club")
	if err != nil {
		t.Fatal(err)
	}
	hotel := func(colour string, guests int) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"hotel": %q, "floors": [{"species": "bee", "guests": 2}, {"species": "ant", "guests": 2}, {"species": "fly", "guests": %d}]}`, colour, guests))
	}
	game, _ := scoring.Lookup("insektenhotel")
	for i, names := range [][2]string{{"Ana", "Ben"}, {"Ben", "ana"}} {
		players := []scoring.PlayerInput{{Name: names[0], Board: hotel("blue", 2)}, {Name: names[1], Board: hotel("red", 1)}}
		res, err := scoring.Score(game, scoring.Request{Players: players})
		if err != nil {
			t.Fatal(err)
		}
		lp := models.LoggedPlay{Game: "insektenhotel", FinishedAt: time.Date(2026, 3, 1+i, 21, 0, 0, 0, time.UTC),
			Players: []models.LoggedPlayer{{Name: names[0], Board: players[0].Board}, {Name: names[1], Board: players[1].Board}}}
		if _, err := store.LogPlay(ctx, g.ID, lp, res); err != nil {
			t.Fatal(err)
		}
	}
	return path, g.ID
}

// runCmd runs insectscore with args and no environment, and returns what
// it wrote to standard output and the error.
func runCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	err := run(args, func(string) string { return "" }, &stdout, &stderr)
	return stdout.String(), err
}

// leaderboardOf reads a group's Insektenhotel leaderboard from a file.
func leaderboardOf(t *testing.T, path, group string) []models.LeaderboardEntry {
	t.Helper()
	store, err := models.Open(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	lb, err := store.Leaderboard(context.Background(), group, "insektenhotel")
	if err != nil {
		t.Fatal(err)
	}
	return lb
}

// TestExportImportCommands moves a group to a fresh database with the
// commands and back out: the same bytes both times.
func TestExportImportCommands(t *testing.T) {
	path, group := history(t)
	file := filepath.Join(t.TempDir(), "friday.json")
	if _, err := runCmd(t, "export", "-db", path, "-group", group, "-o", file); err != nil {
		t.Fatal(err)
	}
	exported, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("the export is %v: it holds the invite, so it is the owner's only", st.Mode().Perm())
	}
	if out, err := runCmd(t, "export", "-db", path, "-group", group); err != nil || out != string(exported) {
		t.Errorf("export to standard output: %v\n%s\nwant\n%s", err, out, exported)
	}

	fresh := filepath.Join(t.TempDir(), "fresh.db")
	out, err := runCmd(t, "import", "-db", fresh, "-base-url", "https://scores.example/", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`imported group "Friday club" (id ` + group + ")", "invite link: https://scores.example/g/" + group} {
		if !strings.Contains(out, want) {
			t.Errorf("import says %q, want %q in it", out, want)
		}
	}
	again, err := runCmd(t, "export", "-db", fresh, "-group", group)
	if err != nil || again != string(exported) {
		t.Errorf("the export of the import differs (%v):\n%s\nwant\n%s", err, again, exported)
	}
	if got, want := leaderboardOf(t, fresh, group), leaderboardOf(t, path, group); !reflect.DeepEqual(got, want) {
		t.Errorf("leaderboard after the import %+v, want %+v", got, want)
	}

	newer := filepath.Join(t.TempDir(), "newer.json")
	if err := os.WriteFile(newer, bytes.Replace(exported, []byte(`"formatVersion": 2`), []byte(`"formatVersion": 7`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"the same group again", []string{"import", "-db", fresh, file}, "already on this server"},
		{"a newer format", []string{"import", "-db", fresh, newer}, "newer insectscore (format 7)"},
		{"no file", []string{"import", "-db", fresh}, "takes 1 argument"},
		{"a file that is not there", []string{"import", "-db", fresh, file + ".gone"}, "no such file"},
		{"flags after the file", []string{"import", file, "-db", fresh}, "takes 1 argument"},
		{"an unknown group", []string{"export", "-db", path, "-group", "nosuchgroup"}, `there is no group "nosuchgroup"`},
		{"an argument to export", []string{"export", "-db", path, "friday.json"}, "takes flags only"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCmd(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// TestImportFormat1Command: a file of export format 1, written by the
// insectscore before format 2, imports with the command and exports again
// in format 2, its plays without notes, location or start player.
func TestImportFormat1Command(t *testing.T) {
	file := filepath.Join("..", "..", "models", "testdata", "group-format1.json")
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	out, err := runCmd(t, "import", "-db", fresh, file)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if want := `imported group "Format one club"`; !strings.Contains(out, want) {
		t.Errorf("import says %q, want %q in it", out, want)
	}
	again, err := runCmd(t, "export", "-db", fresh, "-group", "5yrii7jzp6zdsa5eoopbjrn7cpoowrr3")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"formatVersion": 2,`, `"notes": "",`, `"location": "",`, `"startPlayer": null`} {
		if !strings.Contains(again, want) {
			t.Errorf("the export of the import lacks %s:\n%s", want, again)
		}
	}
}

// TestRecomputeCommand: recompute rebuilds aggregates that went wrong
// from the plays.
func TestRecomputeCommand(t *testing.T) {
	path, group := history(t)
	want := leaderboardOf(t, path, group)
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`UPDATE player_stats SET wins = 99, plays = 99`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got := leaderboardOf(t, path, group); reflect.DeepEqual(got, want) {
		t.Fatal("the broken aggregates read as before: the test breaks nothing")
	}
	out, err := runCmd(t, "recompute", "-db", path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "recomputed every group's leaderboards and rating histories in "+path) {
		t.Errorf("recompute says %q", out)
	}
	if got := leaderboardOf(t, path, group); !reflect.DeepEqual(got, want) {
		t.Errorf("leaderboard after recompute %+v, want %+v", got, want)
	}
}

func TestCommands(t *testing.T) {
	out, err := runCmd(t, "help")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range commands {
		if !strings.Contains(out, "  "+c.name+" ") {
			t.Errorf("help does not list %s:\n%s", c.name, out)
		}
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an unknown command", []string{"restore"}, `there is no command "restore"`},
		{"serve with a bad setting", []string{"serve", "-log-level", "loud"}, `log level "loud"`},
		{"no command is serve", []string{"-log-level", "loud"}, `log level "loud"`},
		{"serve takes no arguments", []string{"serve", "now"}, "takes flags only"},
		{"recompute with a bad setting", []string{"recompute", "-log-level", "loud"}, `log level "loud"`},
		{"a flag of another command", []string{"recompute", "-group", "x"}, "flag provided but not defined: -group"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := runCmd(t, tt.args...)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestTrustedProxies(t *testing.T) {
	got, err := trustedProxies(" 10.0.0.0/8, 192.0.2.1 ,,")
	if err != nil || len(got) != 2 || got[0] != "10.0.0.0/8" || got[1] != "192.0.2.1" {
		t.Errorf("got %q, %v; want [10.0.0.0/8 192.0.2.1]", got, err)
	}
	if got, err := trustedProxies(""); err != nil || len(got) != 0 {
		t.Errorf("empty list: %q, %v", got, err)
	}
	if _, err := trustedProxies("10.0.0.0/8,proxy.local"); err == nil {
		t.Error("a host name was accepted as a trusted proxy")
	}
}

// TestImportProgress: a long import says how far it is every so often,
// and at the end of each stage.
func TestImportProgress(t *testing.T) {
	var out strings.Builder
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	progress := importProgress(&out, func() time.Time { return now }, 2*time.Second)
	for _, step := range []struct {
		after time.Duration
		p     models.ImportProgress
	}{
		{time.Second, models.ImportProgress{Stage: "checking", Plays: 500}},
		{1500 * time.Millisecond, models.ImportProgress{Stage: "checking", Plays: 1000}},
		{100 * time.Millisecond, models.ImportProgress{Stage: "checking", Plays: 1200, Total: 1200}},
		{time.Second, models.ImportProgress{Stage: "writing", Plays: 200, Total: 1200}},
		{time.Second, models.ImportProgress{Stage: "writing", Plays: 1200, Total: 1200}},
	} {
		now = now.Add(step.after)
		progress(step.p)
	}
	want := "import: checking: 1000 plays read\n" +
		"import: checking: 1200 of 1200 plays (100%)\n" +
		"import: writing: 1200 of 1200 plays (100%)\n"
	if got := out.String(); got != want {
		t.Errorf("progress:\n%s\nwant\n%s", got, want)
	}
}

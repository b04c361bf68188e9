package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
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

// TestExportFile: export -o writes its file as backup does: a new file,
// readable by its owner only, given FILE's name by a rename once it is
// whole. A file or a symlink at FILE is refused unless -force, which
// replaces it: the link itself, never the file it points to.
func TestExportFile(t *testing.T) {
	path, group := history(t)
	want, err := runCmd(t, "export", "-db", path, "-group", group)
	if err != nil {
		t.Fatal(err)
	}
	const old = "an old export, readable by all\n"
	oldFile := func(t *testing.T, name string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(name, 0o644); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	tests := []struct {
		name string
		// at is what is at FILE before: nothing, an old 0644 file, a
		// symlink to one, or a symlink to nothing.
		at    string
		force bool
		// refused: the export fails and leaves FILE as it was.
		refused bool
	}{
		{"a new file", "", false, false},
		{"a new file, -force", "", true, false},
		{"a 0644 file", "file", false, true},
		{"a 0644 file, -force", "file", true, false},
		{"a symlink to a file", "link", false, true},
		{"a symlink to a file, -force", "link", true, false},
		{"a dangling symlink", "dangling", false, true},
		{"a dangling symlink, -force", "dangling", true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := filepath.Join(dir, "friday.json")
			target := filepath.Join(t.TempDir(), "elsewhere.json")
			switch tt.at {
			case "file":
				oldFile(t, file)
			case "link":
				oldFile(t, target)
				fallthrough
			case "dangling":
				if err := os.Symlink(target, file); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := os.Lstat(file)
			args := []string{"export", "-db", path, "-group", group, "-o", file}
			if tt.force {
				args = append(args, "-force")
			}
			_, err := runCmd(t, args...)

			if tt.refused {
				if want := file + " exists: name another file, or add -force to replace it"; err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("error %v, want one saying %q", err, want)
				}
				after, lerr := os.Lstat(file)
				if lerr != nil || after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
					t.Errorf("the refused export changed %s: now %v (%v), was %v", file, after.Mode(), lerr, before.Mode())
				}
				if tt.at == "file" {
					if got, _ := os.ReadFile(file); string(got) != old {
						t.Errorf("the refused export wrote into %s:\n%.200s", file, got)
					}
				}
			} else {
				if err != nil {
					t.Fatal(err)
				}
				st, err := os.Lstat(file)
				if err != nil {
					t.Fatal(err)
				}
				if !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 {
					t.Errorf("the export is %v, want a regular file of mode 0600: it holds the invite, so it is the owner's only", st.Mode())
				}
				if got, _ := os.ReadFile(file); string(got) != want {
					t.Errorf("the export holds\n%.200s\nwant\n%.200s", got, want)
				}
			}
			// A link at FILE is never written through.
			got, err := os.ReadFile(target)
			switch {
			case tt.at == "link" && (err != nil || string(got) != old):
				t.Errorf("the file a link pointed to holds %.200q (%v), want %q as before", got, err, old)
			case tt.at == "dangling" && err == nil:
				t.Errorf("the export made the file a dangling link pointed to")
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 1 {
				t.Errorf("the export left %d files in its directory, want FILE alone", len(entries))
			}
		})
	}

	// The refusal as the shell sees it: exit code 1 and the reason.
	file := filepath.Join(t.TempDir(), "friday.json")
	oldFile(t, file)
	c := startMain(t, t.TempDir(), nil, "export", "-db", path, "-group", group, "-o", file)
	if code := c.wait(t, 30*time.Second); code != 1 || !strings.Contains(c.stderr.String(), file+" exists") {
		t.Errorf("export -o to a file that exists: exit code %d, standard error %q; want 1 and the reason", code, c.stderr)
	}
}

// TestWriteFileNeverReplaces: without replace, a file or symlink that
// appears at dest after export looked is kept, not overwritten: the hard
// link that names the new file fails.
func TestWriteFileNeverReplaces(t *testing.T) {
	dir := t.TempDir()
	file, link := filepath.Join(dir, "there.json"), filepath.Join(dir, "link.json")
	if err := os.WriteFile(file, []byte("before"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere.json"), link); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{file, link} {
		if err := writeFile(dest, []byte("after"), false); !errors.Is(err, models.ErrBackupExists) {
			t.Errorf("writeFile(%s) = %v, want models.ErrBackupExists", dest, err)
		}
	}
	if got, _ := os.ReadFile(file); string(got) != "before" {
		t.Errorf("the file holds %q, want %q as before", got, "before")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("%d files in the directory, want the two that were there", len(entries))
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

package api

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"insectscore/api/live"
	"insectscore/models"
	"insectscore/scoring"
)

// TestToldTableReadsBackInEveryLanguage: the event one replica tells the
// others (toldView), read back, is the table its streams would have got
// in every language, for every request the scoring tests record
// (rulebook examples, refusals and warnings among them): scored, refused
// with errors, tied. A replica that rebuilt a table from it and wrote a
// message in English where the writer's replica wrote German would show
// a German phone English.
func TestToldTableReadsBackInEveryLanguage(t *testing.T) {
	raw, err := os.ReadFile("../scoring/testdata/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Name, Game string
		Body       string
	}
	if err := json.Unmarshal(raw, &recs); err != nil {
		t.Fatal(err)
	}
	var scored, refused, tied, warned int
	for _, rec := range recs {
		v := tableView{Code: "ABC234", Game: rec.Game, Status: "open", Variants: map[string]int{}, Version: 3, Errors: []scoring.FieldError{}}
		res, err := scoring.ScoreJSON(rec.Game, []byte(rec.Body))
		var verr *scoring.ValidationError
		switch {
		case errors.As(err, &verr):
			v.Errors = verr.Errors
			refused++
		case err != nil:
			continue // not a request of a game's boards
		default:
			v.Standings = res
			scored++
			if res.Tiebreak != "" {
				tied++
			}
			for _, p := range res.Results {
				if len(p.Warnings) > 0 {
					warned++
					break
				}
			}
		}
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, gotData, err := fromTold(told(v, data))
		if err != nil {
			t.Fatalf("%s: %v", rec.Name, err)
		}
		if !bytes.Equal(gotData, data) {
			t.Fatalf("%s: the JSON told is not the table's", rec.Name)
		}
		for _, lang := range languages {
			cat := catalogFor(lang)
			want, _ := json.Marshal(v.in(cat))
			have, _ := json.Marshal(got.in(cat))
			if !bytes.Equal(have, want) {
				t.Errorf("%s in %s: read back from what was told\n%s\nwant\n%s", rec.Name, lang, have, want)
			}
		}
	}
	if scored < 50 || refused < 20 || tied < 5 || warned < 5 {
		t.Errorf("the requests gave %d scored tables (%d tied, %d with warnings) and %d refused: too few to tell", scored, tied, warned, refused)
	}
	t.Logf("%d scored (%d tied, %d with warnings), %d refused, each the same in %v", scored, tied, warned, refused, languages)
}

// TestToldRefusesWhatItCannotRead: a notification whose event is not a
// told table (another version's, damaged, or inflating without end) is
// an error, and the replica reads the table instead.
func TestToldRefusesWhatItCannotRead(t *testing.T) {
	var bomb bytes.Buffer
	enc := base64.NewEncoder(base64.StdEncoding, &bomb)
	zw, _ := flate.NewWriter(enc, flate.BestCompression)
	zw.Write([]byte(`{"d":"`))
	zw.Write(bytes.Repeat([]byte(" "), 2*maxTold))
	zw.Close()
	enc.Close()
	for name, b := range map[string][]byte{
		"not base64":         []byte("{not base64}"),
		"not compressed":     []byte(base64.StdEncoding.EncodeToString([]byte(`{"d":{}}`))),
		"inflating past 1MB": bomb.Bytes(),
	} {
		if _, _, err := fromTold(b); err == nil {
			t.Errorf("%s: read back", name)
		}
	}
	if bomb.Len() > 8000 {
		t.Fatalf("the bomb is %d bytes told, more than a notification carries", bomb.Len())
	}
}

// BenchmarkTold: what telling a table costs the replica that changed it
// (told: once a change) and each replica that rebuilds it (fromTold),
// against a read of the table and its scoring, which it replaces.
func BenchmarkTold(b *testing.B) {
	body := `{"players":[{"name":"Ana","board":{"hotel":"blue","floors":[{"species":"bee","guests":2},{"species":"ant","guests":0},{"species":"fly","guests":0}]}},` +
		`{"name":"Ben","board":{"hotel":"green","floors":[{"species":"ladybird","guests":0},{"species":"butterfly","guests":0},{"species":"earwig","guests":0}]}}]}`
	res, err := scoring.ScoreJSON("insektenhotel", []byte(body))
	if err != nil {
		b.Fatal(err)
	}
	v := tableView{Code: "ABC234", Game: "insektenhotel", Standings: res, Version: 3}
	data, _ := json.Marshal(v)
	b.Run("told", func(b *testing.B) {
		for b.Loop() {
			told(v, data)
		}
	})
	t := told(v, data)
	b.Run("fromTold", func(b *testing.B) {
		for b.Loop() {
			if _, _, err := fromTold(t); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Logf("table JSON %d bytes, told %d", len(data), len(t))
}

// TestToldOnlyWhenNewer: a replica rebuilds a table from what another
// told only when it is of a version newer than the last built here. One it
// has built already may be older than it looks: a change that leaves the
// version alone (a seat's sync state) made here, or on a third replica,
// since; that table is read as it stands instead.
func TestToldOnlyWhenNewer(t *testing.T) {
	store := openTestStore(t, filepath.Join(t.TempDir(), "told.db"))
	s := &server{store: store, recent: live.NewRecent(), cfg: Config{Now: time.Now}, log: slog.New(slog.DiscardHandler)}
	ctx := context.Background()
	tbl, _, err := store.CreateTable(ctx, models.NewTable{Game: "insektenhotel", Names: []string{"Ana", "Ben"}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.ReadTable(ctx, tbl.Code)
	if err != nil {
		t.Fatal(err)
	}
	stored := view(st, time.Now())
	built, err := s.event(tbl.Code, stored)
	if err != nil {
		t.Fatal(err)
	}
	// What another replica told: the table with a seat's name that the
	// database does not hold, so the test sees which one was used.
	other := stored
	other.Seats = slices.Clone(stored.Seats)
	other.Seats[0].Name = "Told"
	tell := func(v tableView) []byte {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return told(v, data)
	}
	// Reading it counts as a read (insectscore_notify_read_total), as a
	// notification without an event does.
	ev, read, err := s.tableEvent(ctx, tbl.Code, tell(other))
	if err != nil || !read || !bytes.Equal(ev.Data, built.Data) {
		t.Errorf("told at the version built here: got %s (read %v, %v), want the table read as it stands %s", ev.Data, read, err, built.Data)
	}
	other.Version++
	ev, read, err = s.tableEvent(ctx, tbl.Code, tell(other))
	if err != nil || read || ev.Version != other.Version || !bytes.Contains(ev.Data, []byte(`"Told"`)) {
		t.Errorf("told at a newer version: got %s (read %v, %v), want what was told, not read", ev.Data, read, err)
	}
	if _, read, err = s.tableEvent(ctx, tbl.Code, nil); err != nil || !read {
		t.Errorf("nothing told: read %v (%v), want the table read", read, err)
	}
}

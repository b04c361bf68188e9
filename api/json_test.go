package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/gofiber/fiber/v2"

	"insectscore/scoring"
)

// TestMarshalJSONAsEncodingJSON: marshalJSON writes what encoding/json
// wrote, byte for byte, for what the app sends: a table in each language,
// with standings, with a rule broken, with boards kept as they were sent
// (spaces, HTML characters, escapes) and names that need escaping.
func TestMarshalJSONAsEncodingJSON(t *testing.T) {
	type example struct {
		Players []struct {
			Name  string          `json:"name"`
			Board json.RawMessage `json:"board"`
		} `json:"players"`
	}
	tables := map[string]string{
		"insecta":       "testdata/insecta-example.json",
		"insecta four":  "testdata/insecta-four-players.json",
		"insectarium":   "testdata/insectarium-example.json",
		"insecta again": "testdata/insecta-example.json", // the same boards twice: a rule broken
	}
	var views []tableView
	for name, path := range tables {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var ex example
		if err := json.Unmarshal(raw, &ex); err != nil {
			t.Fatal(err)
		}
		game := "insecta"
		if name == "insectarium" {
			game = "insectarium"
		}
		req := scoring.Request{}
		v := tableView{Code: "ABC234", Game: game, Status: "open", Variants: map[string]int{"z": 1, "a": 2}, Version: 7,
			Errors: []scoring.FieldError{}}
		for i, p := range ex.Players {
			if name == "insecta again" && i > 0 {
				p = ex.Players[0]
			}
			board := p.Board
			if i == 0 {
				// As a phone may send it: spaced, escaped, with HTML's
				// characters.
				board = append(append(json.RawMessage(" \n"), bytes.Replace(board, []byte("{"), []byte("{ "), 1)...), '\t')
			}
			req.Players = append(req.Players, scoring.PlayerInput{Name: p.Name, Board: p.Board})
			v.Seats = append(v.Seats, seatView{Seat: i, Name: p.Name + ` <b>&"é"` + "\u2028", Board: board})
		}
		g, _ := scoring.Lookup(game)
		res, err := scoring.Score(g, req)
		var verr *scoring.ValidationError
		switch {
		case errors.As(err, &verr):
			v.Errors = verr.Errors
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		default:
			v.Standings = res
		}
		if (name == "insecta again") != (v.Standings == nil) {
			t.Fatalf("%s: standings %v, errors %v", name, v.Standings != nil, v.Errors)
		}
		for _, lang := range languages {
			views = append(views, v.in(catalogFor(lang)))
		}
	}
	for _, v := range views {
		for _, x := range []any{v, fiber.Map{"version": v.Version, "standings": v.Standings, "errors": v.Errors}} {
			want, err := json.Marshal(x)
			if err != nil {
				t.Fatal(err)
			}
			got, err := marshalJSON(x)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s table: marshalJSON wrote\n%s\nencoding/json\n%s", v.Game, got, want)
			}
		}
	}
}

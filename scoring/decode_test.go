package scoring

import (
	"errors"
	"reflect"
	"testing"
)

// TestDecodeBoardPointers: a problem deep in a board is pointed at.
func TestDecodeBoardPointers(t *testing.T) {
	type card struct {
		Points int      `json:"points"`
		Tools  []string `json:"tools"`
	}
	type board struct {
		Grid   [][]*card `json:"grid"`
		Supply int       `json:"supply"`
	}
	tests := []struct {
		name, in, want string
	}{
		{"wrong type in a nested list", `{"grid":[[null,{"points":"x"}]]}`, "/b/grid/0/1/points"},
		{"the decimal among whole numbers", `{"grid":[[{"points":1},{"points":2.5}]]}`, "/b/grid/0/1/points"},
		{"a number too large", `{"grid":[[{"points":1}],[{"points":1e30}]]}`, "/b/grid/1/0/points"},
		{"unknown field named like a field elsewhere", `{"supply":1,"grid":[[{"points":1,"supply":2}]]}`, "/b/grid/0/0/supply"},
		{"unknown top-level field", `{"colour":1}`, "/b/colour"},
		{"a list where an object belongs", `[1]`, "/b"},
		{"text in a list of text", `{"grid":[[{"tools":["pin",3]}]]}`, "/b/grid/0/0/tools/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b board
			err := DecodeBoard([]byte(tt.in), "/b", &b)
			var verr *ValidationError
			if !errors.As(err, &verr) || len(verr.Errors) != 1 {
				t.Fatalf("err = %v, want one field error", err)
			}
			if got := verr.Errors[0].Pointer; got != tt.want {
				t.Errorf("pointer %q, want %q (%s)", got, tt.want, verr.Errors[0].Detail)
			}
		})
	}
	var b board
	if err := DecodeBoard([]byte(" null "), "/b", &b); err != nil {
		t.Errorf("a null board is an empty board, got %v", err)
	}
}

// TestDecodeErrors: what is wrong with a body is said where it is, as a
// JSON Pointer into the request, in words a player understands: an unknown
// member (the first one sent), a value of the wrong kind, a number that is
// not whole or too large, in a board, an optional value of a board, a
// totals sheet, the variants and the request itself.
func TestDecodeErrors(t *testing.T) {
	for _, tt := range []struct {
		game, body, pointer, detail string
	}{
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"row":0,"kind":"insect","bogus":1}]}}]}`, "/players/0/board/tiles/0/bogus", `"bogus" is not a field of this board`},
		{"insecta", `{"players":[{"name":"Ana","board":{"zz":1,"aa":2}}]}`, "/players/0/board/zz", `"zz" is not a field of this board`},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"bogus":1}],"track":"x"}}]}`, "/players/0/board/tiles/0/bogus", `"bogus" is not a field of this board`},
		{"insecta", `{"players":[{"name":"Ana","board":{"track":"3"}}]}`, "/players/0/board/track", "expected a whole number, got text"},
		{"insecta", `{"players":[{"name":"Ana","board":{"track":1e2}}]}`, "/players/0/board/track", "expected a whole number, got 1e2"},
		{"insecta", `{"players":[{"name":"Ana","board":{"track":true}}]}`, "/players/0/board/track", "expected a whole number, got true or false"},
		{"insecta", `{"players":[{"name":"Ana","board":{"researcher":7}}]}`, "/players/0/board/researcher", "expected text, got a number"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"row":"0"}]}}]}`, "/players/0/board/tiles/0/row", "expected a whole number, got text"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"row":0},{"row":1.5}]}}]}`, "/players/0/board/tiles/1/row", "expected a whole number, got 1.5"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"col":99999999999999999999}]}}]}`, "/players/0/board/tiles/0/col", "expected a whole number, got 99999999999999999999"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"row":[]}]}}]}`, "/players/0/board/tiles/0/row", "expected a whole number, got a list"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"scored":1}]}}]}`, "/players/0/board/tiles/0/scored", "expected true or false, got a number"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[{"name":{}}]}}]}`, "/players/0/board/tiles/0/name", "expected text, got an object"},
		{"insecta", `{"players":[{"name":"Ana","board":{"medals":[{"level":"x"}]}}]}`, "/players/0/board/medals/0/level", "expected a whole number, got text"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":{}}}]}`, "/players/0/board/tiles", "expected a list, got an object"},
		{"insecta", `{"players":[{"name":"Ana","board":{"tiles":[[1]]}}]}`, "/players/0/board/tiles/0", "expected an object, got a list"},
		{"insectarium", `{"players":[{"name":"Ana","board":{"grid":[[null,{"points":1,"bogus":2}]]}}]}`, "/players/0/board/grid/0/1/bogus", `"bogus" is not a field of this board`},
		{"insectarium", `{"players":[{"name":"Ana","board":{"grid":[[{"tools":["a",3]}]]}}]}`, "/players/0/board/grid/0/0/tools/1", "expected text, got a number"},
		{"insectarium", `{"players":[{"name":"Ana","board":{"rowTokens":[null,3]}}]}`, "/players/0/board/rowTokens/1", "expected text, got a number"},
		{"insektenhotel", `{"players":[{"name":"Ana","board":{"floors":[{"species":"bee","guests":"2"}]}}]}`, "/players/0/board/floors/0/guests", "expected a whole number, got text"},
		{"insektenhotel", `{"players":[{"name":"Ana","board":{"totals":{"guests":1.5}}}]}`, "/players/0/board/totals/guests", "expected a whole number, got 1.5"},
		{"insektenhotel", `{"players":[{"name":"Ana","board":{"totals":[]}}]}`, "/players/0/board/totals", "expected an object, got a list"},
		{"insektenhotel", `{"players":[{"name":"Ana"}],"variants":{"oneFragment":"1"}}`, "/variants/oneFragment", "expected a whole number, got text"},
		{"insektenhotel", `{"players":{}}`, "/players", "expected a list, got an object"},
		{"insektenhotel", `{"players":[{"name":7}]}`, "/players/0/name", "expected text, got a number"},
		{"insektenhotel", `{"players":[{"name":"Ana"}],"bogus":1}`, "/bogus", `"bogus" is not a field of this board`},
		{"insektenhotel", `[]`, "", "expected an object, got a list"},
		{"insektenhotel", `{"players":[{"name":"Ana\u0000","bogus":1}]}`, "/players/0/name", `text cannot hold the NUL character (\u0000)`},
	} {
		_, err := ScoreJSON(tt.game, []byte(tt.body))
		var verr *ValidationError
		if !errors.As(err, &verr) || len(verr.Errors) != 1 {
			t.Errorf("%s %s: %v, want one problem", tt.game, tt.body, err)
			continue
		}
		if got := verr.Errors[0]; got.Pointer != tt.pointer || got.Detail != tt.detail {
			t.Errorf("%s %s:\n got %q: %s\nwant %q: %s", tt.game, tt.body, got.Pointer, got.Detail, tt.pointer, tt.detail)
		}
	}
}

// TestDecodeRefusesTheBody: a body that is no JSON is a 400, even when a
// wrong value comes before what breaks it, and so is invalid UTF-8, which
// is pointed at, even past an unknown member.
func TestDecodeRefusesTheBody(t *testing.T) {
	for _, tt := range []struct {
		body, detail, pointer string
	}{
		{``, "the request needs a JSON body", ""},
		{` `, "the body is not valid JSON", ""},
		{`{"players":{},`, "the body is not valid JSON", ""},
		{`{"players":[{"name":7}]} {}`, "the body is not valid JSON", ""},
		{`{"bogus":1,"players":[{"name":"A` + "\xff" + `"}]}`, "the body is not valid UTF-8 text", "/players/0/name"},
	} {
		_, err := ScoreJSON("insecta", []byte(tt.body))
		var rerr *RequestError
		if !errors.As(err, &rerr) || rerr.Status != 400 || rerr.Detail != tt.detail {
			t.Errorf("%q: %v, want a 400: %s", tt.body, err, tt.detail)
			continue
		}
		if tt.pointer != "" && (len(rerr.Errors) != 1 || rerr.Errors[0].Pointer != tt.pointer) {
			t.Errorf("%q: %+v, want the problem at %s", tt.body, rerr.Errors, tt.pointer)
		}
	}
}

// TestDecodeReadsAsBefore: what encoding/json accepted is read as it was
// (decodeOptions): names in any case, a member given twice read into what
// the first gave, a null keeping a value, an escaped name.
func TestDecodeReadsAsBefore(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want hotelBoard
	}{
		{`{"HOTEL":"blue","Floors":[{"SPECIES":"bee","guests":2}]}`, hotelBoard{Hotel: "blue", Floors: []HotelFloor{{Species: "bee", Guests: 2}}}},
		{`{"floors":[{"species":"bee","guests":2}],"floors":[{"species":"ant"}]}`, hotelBoard{Floors: []HotelFloor{{Species: "ant", Guests: 2}}}},
		{`{"hotel":"blue","hotel":null}`, hotelBoard{Hotel: "blue"}},
		{`{"hot\u0065l":"red"}`, hotelBoard{Hotel: "red"}},
	} {
		var got hotelBoard
		if err := DecodeBoard([]byte(tt.raw), "/b", &got); err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("DecodeBoard(%s) = %+v, %v; want %+v", tt.raw, got, err, tt.want)
		}
	}
	var b insectaBoard
	raw := `{"tiles":[{"row":1,"row":null,"col":2,"Scored":true,"points":3,"points":4}]}`
	if err := DecodeBoard([]byte(raw), "/b", &b); err != nil {
		t.Fatal(err)
	}
	want := insectaTile{Col: optional[int]{2, true}, Scored: optional[bool]{true, true}, Points: optional[int]{4, true}}
	if len(b.Tiles) != 1 || b.Tiles[0] != want {
		t.Errorf("DecodeBoard(%s) = %+v, want one tile %+v", raw, b.Tiles, want)
	}
}

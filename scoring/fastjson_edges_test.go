//go:build !js

package scoring

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The fast readers at the edges of what they read: a body cut short at any
// byte, every digit at each place of a number, a value that ends the input,
// and a byte that cannot start a character.

// fastBodies are a score request and boards of each kind a fast reader
// reads, holding every construct they know, with white space between them.
var fastBodies = []struct {
	name string
	body string
	read func([]byte) (any, bool)
}{
	{"request", "{ \"players\" :\t[ {\"name\":\"Àna é\",\"board\":{\"x\":[ 0,-1,12,1.5,-0.25e3,1E+2,2e-1,true,false,null,\"a\",{\"y\":1},[] ]}},\n" +
		"{\"name\":null,\"board\":null} ] ,\"variants\":{\"v\":12,\"w\":-3,\"z\":0}\r}", func(raw []byte) (any, bool) {
		return readRequestFor(raw, "")
	}},
	{"insecta request", "{\"players\":[{\"name\":\"Ana\",\"board\":" + insectaEdgeBoard + "},{\"name\":\"Bo\",\"board\":{\"track\":1,\"x\":[1]}}," +
		"{\"name\":\"Cy\",\"board\": {\"track\" :-4} }],\"variants\":{\"oneFragment\":1}}", func(raw []byte) (any, bool) {
		return readRequestFor(raw, "insecta")
	}},
	{"insecta", insectaEdgeBoard,
		func(raw []byte) (any, bool) {
			var v insectaBoard
			return &v, readInsectaBoard(raw, &v)
		}},
	{"hotel", "{\"hotel\":\"blue\",\"floors\":[{\"species\":\"bee\",\"guests\":3},{\"species\":null,\"guests\":10}, {}]}",
		func(raw []byte) (any, bool) {
			var v hotelBoard
			return &v, readHotelBoard(raw, &v)
		}},
}

// insectaEdgeBoard is an Insecta board with every member, null where it
// may be, and white space.
const insectaEdgeBoard = "{\"researcher\":\"mary-kingsley\", \"track\" : 12,\"fragments\":-3,\"tiles\":[{\"row\":0,\"col\":-1,\"kind\":\"insect\"," +
	"\"name\":\"Goliath beetle\",\"continent\":\"africa\",\"order\":null,\"size\":\"large\",\"wreath\":\"\"},{\"kind\":\"mail\"," +
	"\"institution\":\"x\",\"points\":4,\"scored\":true},{\"scored\":false,\"row\":null}],\"medals\":[{\"medal\":\"size:small\",\"level\":2},{\"level\":null}] }"

// readRequestFor reads a score request.
func readRequestFor(raw []byte, _ string) (any, bool) {
	var v Request
	ok := readRequest(raw, &v)
	return &v, ok
}

// TestFastReadersGiveUpOnTruncation cuts each body at every byte: a reader
// must give up on every cut (an empty board aside, which is a board not
// entered yet), never read past the end, and read the whole body as
// encoding/json does.
func TestFastReadersGiveUpOnTruncation(t *testing.T) {
	for _, tt := range fastBodies {
		got, ok := tt.read([]byte(tt.body))
		if !ok {
			t.Fatalf("%s: the reader gives up on the whole body %s", tt.name, tt.body)
		}
		want := reflect.New(reflect.TypeOf(got).Elem()).Interface()
		if err := json.Unmarshal([]byte(tt.body), want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: read\n got %+v\nwant %+v", tt.name, got, want)
		}
		for n := 1; n < len(tt.body); n++ {
			// A copy with no room past the cut, so that reading past it panics.
			cut := make([]byte, n)
			copy(cut, tt.body)
			if _, ok := tt.read(cut); ok {
				t.Errorf("%s: the reader reads the cut body %q", tt.name, cut)
			}
		}
	}
	var req Request
	if readRequest(nil, &req) {
		t.Error("readRequest reads an empty body")
	}
}

// TestFastReadersReadEveryDigit reads numbers with 0 and 9 (the ends of
// the digit range) first, inside and last in each part of a number, where
// the readers keep the number (a track, a variant) and where they only
// check it (inside a board a request carries).
func TestFastReadersReadEveryDigit(t *testing.T) {
	for _, board := range []string{
		`{"track":9,"fragments":90}`, `{"track":-9,"fragments":19}`, `{"track":909}`,
		`{"track":999999999999999999}`, `{"track":-900000000000000000}`,
	} {
		var got, want insectaBoard
		if !readInsectaBoard([]byte(board), &got) {
			t.Errorf("readInsectaBoard(%q) leaves it to JSON v2", board)
			continue
		}
		if err := json.Unmarshal([]byte(board), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("readInsectaBoard(%q) = %+v, want %+v", board, got, want)
		}
	}
	for _, body := range []string{
		`{"players":[],"variants":{"a":9,"b":90,"c":-9,"d":109}}`,
		`{"players":[{"name":"Ana","board":[9,90,19,10,-9,-90,0.0,1.0,1.9,9.09,1.90,1e0,1e9,1e10,1e19,1E+0,9e-9,-0,-0.0,9.9e-99,0e0]}]}`,
	} {
		var got, want Request
		if !readRequest([]byte(body), &got) {
			t.Errorf("readRequest(%q) leaves it to JSON v2", body)
			continue
		}
		if err := json.Unmarshal([]byte(body), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("readRequest(%q) = %+v, want %+v", body, got, want)
		}
	}
}

// TestFastReaderValueEndsInput wants the reader to check a value that ends
// its input, the last byte included, as it checks one that does not.
func TestFastReaderValueEndsInput(t *testing.T) {
	for _, v := range []string{`true`, `false`, `null`, `0`, `9`, `-10`, `1.5`, `-0.25e3`, `1E+2`, `"x"`, `[]`, `{}`, `[null]`} {
		r := reader{b: make([]byte, len(v))}
		copy(r.b, v)
		if !r.skip(0) || !r.end() {
			t.Errorf("skip(%s) does not read it whole", v)
		}
	}
	for _, v := range []string{`tru`, `fals`, `nul`, `-`, `1.`, `1e`, `1e+`, `"x`, `[`, `{`, `[null`} {
		r := reader{b: make([]byte, len(v))}
		copy(r.b, v)
		if r.skip(0) && r.end() {
			t.Errorf("skip(%s) reads it", v)
		}
	}
}

// TestFastReadersGiveUpOnStrayBytes wants text with a byte that starts no
// character (a continuation byte, 0x80 to 0xBF, on its own) left to the
// other way, which replaces it as encoding/json does.
func TestFastReadersGiveUpOnStrayBytes(t *testing.T) {
	for _, s := range []string{"\x80", "An\x80a", "Ana\xbf", "\xc3", "Àn\x80"} {
		var req Request
		if body := `{"players":[{"name":"` + s + `"}]}`; readRequest([]byte(body), &req) {
			t.Errorf("readRequest(%q) reads it; want it left to JSON v2", body)
		}
		var b insectaBoard
		if board := `{"researcher":"` + s + `"}`; readInsectaBoard([]byte(board), &b) {
			t.Errorf("readInsectaBoard(%q) reads it; want it left to JSON v2", board)
		}
	}
}

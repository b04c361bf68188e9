//go:build !js

package scoring

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/bits"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestFastReadersKnowTheirTypes builds, for each type a hand-written reader
// decodes, a value that gives every field of it (and of the types within)
// from the type itself, and wants the reader to read it as encoding/json
// does. A field added to a board type without teaching its reader fails
// here rather than sending every board the slow way.
func TestFastReadersKnowTheirTypes(t *testing.T) {
	for _, tt := range []struct {
		name string
		typ  reflect.Type
		read func([]byte) (any, bool)
	}{
		{"Request", reflect.TypeFor[Request](), func(raw []byte) (any, bool) {
			var v Request
			return &v, readRequest(raw, &v)
		}},
		{"insectaBoard", reflect.TypeFor[insectaBoard](), func(raw []byte) (any, bool) {
			var v insectaBoard
			return &v, readInsectaBoard(raw, &v)
		}},
		{"hotelBoard", reflect.TypeFor[hotelBoard](), func(raw []byte) (any, bool) {
			var v hotelBoard
			return &v, readHotelBoard(raw, &v)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			raw := sampleJSON(t, tt.typ, 0)
			got, ok := tt.read([]byte(raw))
			if !ok {
				t.Fatalf("the reader gives up on %s", raw)
			}
			want := reflect.New(tt.typ).Interface()
			if err := json.Unmarshal([]byte(raw), want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("read %s\n got %+v\nwant %+v", raw, got, want)
			}
		})
	}
}

// sampleJSON is a JSON value of type typ with every field given, each
// value told apart by n.
func sampleJSON(t *testing.T, typ reflect.Type, n int) string {
	t.Helper()
	if typ == reflect.TypeFor[json.RawMessage]() {
		return fmt.Sprintf(`{"any":[%d,"x",null,true,{"y":-1.5e3}]}`, n)
	}
	switch typ.Kind() {
	case reflect.Pointer:
		return sampleJSON(t, typ.Elem(), n+1)
	case reflect.Int:
		return fmt.Sprint(n + 7)
	case reflect.Bool:
		return "true"
	case reflect.String:
		return fmt.Sprintf(`"text %d é"`, n)
	case reflect.Slice:
		return "[" + sampleJSON(t, typ.Elem(), n) + "," + sampleJSON(t, typ.Elem(), n+1) + "]"
	case reflect.Map:
		return `{"a":` + sampleJSON(t, typ.Elem(), n) + `,"b":` + sampleJSON(t, typ.Elem(), n+1) + "}"
	case reflect.Struct:
		var members []string
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Name == "read" && typ == reflect.TypeFor[PlayerInput]() {
				continue // what the reader decoded, not JSON
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if !f.IsExported() || name == "-" || name == "" {
				t.Fatalf("%s.%s: give it a json name or teach sampleJSON", typ, f.Name)
			}
			members = append(members, fmt.Sprintf("%q:%s", name, sampleJSON(t, f.Type, n+i)))
		}
		return "{" + strings.Join(members, ",") + "}"
	}
	t.Fatalf("sampleJSON: no sample of %s", typ)
	return ""
}

// TestFastReadersGiveUp lists what the readers leave to the other way:
// each of these bodies must make readRequest give up, and the boards
// readInsectaBoard.
func TestFastReadersGiveUp(t *testing.T) {
	for _, body := range []string{
		``, ` `, `null`, `[]`, `{"players":[]} {}`, `{"players":[],}`, `{"players":[] "variants":{}}`,
		`{"Players":[]}`, `{"players":[],"players":[]}`, `{"players":[{"name":"A\"na"}]}`,
		`{"players":[{"name":"An` + "\xff" + `a"}]}`, `{"players":[{"name":"An` + "\x01" + `a"}]}`,
		`{"players":[{"name":"Ana","board":{"a":"\u0000"}}]}`, `{"players":[{"name":"Ana","board":{"a":1.}}]}`,
		`{"players":[{"name":"Ana","board":{"a":01}}]}`, `{"players":[{"name":"Ana","board":{"a":tru}}]}`,
		`{"players":[{"name":"Ana","board":{"a":[1,]}}]}`, `{"players":[{"name":"Ana","board":}]}`,
		`{"players":[{"name":"Ana"}],"variants":{"x":1,"x":2}}`, `{"players":[{"name":"Ana"}],"variants":{"x":-0}}`,
		`{"players":[{"name":"Ana"}],"variants":{"x":1e2}}`, `{"players":[{"name":"Ana"}],"variants":{"x":1234567890123456789}}`,
		`{"players":[{"name":"Ana","board":{"x":` + strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1) + `}}]}`,
		`{"players":[{"name":"Ana","board":{"x":` + strings.Repeat(`{"a":`, maxDepth) + `1` + strings.Repeat("}", maxDepth) + `}}]}`,
		`{"players":[{"name":"Ana","board":{"x":[1.]}}]}`, `{"players":[{"name":"Ana","board":{"x":[01]}}]}`, `{"players":[{"name":"Ana","board":{"x":[1e]}}]}`,
		`{"players":[null]}`, `{"players":[{"name":7}]}`, `{"players":[{"name":"An`, `{"players":[{"name":"AnÀ`, `{"players":[{"name":nul`, `{"players":[{"name":"Ana","board":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}]}`,
	} {
		var req Request
		if readRequest([]byte(body), &req) {
			t.Errorf("readRequest(%q) reads it; want it left to JSON v2", body)
		}
	}
	for _, board := range []string{
		`{"track":1,"track":2}`, `{"TRACK":1}`, `{"track":"1"}`, `{"track":1.0}`, `{"track":-0}`, `{"tiles":[null]}`,
		`{"tiles":[{"row":0,"row":1}]}`, `{"tiles":[{"row":true}]}`, `{"tiles":[{"scored":1}]}`, `{"tiles":{}}`,
		`{"medals":[{"medal":"size:small","level":1,"x":1}]}`, `{"researcher":"mary-kingsley"} x`, `{"name":"\ud800"}`,
	} {
		var b insectaBoard
		if readInsectaBoard([]byte(board), &b) {
			t.Errorf("readInsectaBoard(%q) reads it; want it left to JSON v2", board)
		}
	}
}

// TestFastReadersRead wants the fast readers to read what they are for,
// not merely to give up safely: every recorded Insecta and Insektenhotel
// request that scores and has no escape (its totals sheets aside), and values at each edge of the
// subset (a zero, a number with a zero digit, 18 digits, a non-ASCII
// character starting with the byte 0x80's lead, null), with the values a
// strict decode gives. A reader that gave up on these would still answer
// right, through JSON v2, only slower, so nothing else would notice.
func TestFastReadersRead(t *testing.T) {
	cases := recordedRequests(t)
	read := 0
	for _, c := range cases {
		if c.Game != "insecta" && c.Game != "insektenhotel" || strings.Contains(c.Body, `\`) {
			continue
		}
		if _, err := ScoreJSON(c.Game, []byte(c.Body)); err != nil {
			continue
		}
		var req Request
		if !readRequest([]byte(c.Body), &req) {
			t.Errorf("%s: readRequest leaves it to JSON v2", c.Name)
			continue
		}
		for i, p := range req.Players {
			if bytes.Contains(p.Board, []byte(`"totals"`)) {
				continue // a totals sheet is JSON v2's
			}
			var ok bool
			if c.Game == "insecta" {
				ok = readInsectaBoard(p.Board, &insectaBoard{})
			} else {
				ok = readHotelBoard(p.Board, &hotelBoard{})
			}
			if !ok {
				t.Errorf("%s: player %d's board is left to JSON v2", c.Name, i)
			}
		}
		read++
	}
	if read < 50 {
		t.Errorf("only %d recorded requests read", read)
	}
	for _, board := range []string{
		`null`, `{"researcher":null}`, `{"track":0}`, `{"track":10}`, `{"track":-7}`,
		`{"track":123456789012345678}`, `{"researcher":"Àna"}`, `{"researcher":"Ana é中🐞"}`,
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
		`{"players":[{"name":"Àna","board":{}}],"variants":null}`,
		`{"players":[{"name":"Ana","board":null}],"variants":{"oneFragment":0}}`,
		`{"players":[{"name":"Ana","board":{"x":[0,10,-5,true,false,null,"a",{"y":123456789012345678}]}}]}`,
		`{"players":[{"name":"Ana","board":{"x":[1.5,-0.25e3,1E+2,2e-1,0,-0,10,19]}}]}`,
		// The deepest a board may nest: maxDepth arrays, or one object fewer
		// (an object's member value is one level more).
		`{"players":[{"name":"Ana","board":{"x":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}}]}`,
		`{"players":[{"name":"Ana","board":{"x":` + strings.Repeat(`{"a":`, maxDepth-1) + `1` + strings.Repeat("}", maxDepth-1) + `}}]}`,
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

// TestTextReadsEveryLength wants text to read a string of any length up
// to a few words, ending anywhere and at the end of the bytes, and to
// stop at the first byte it must look at wherever it lies.
func TestTextReadsEveryLength(t *testing.T) {
	for n := range 40 {
		s := strings.Repeat("abcdefgh", 5)[:n]
		for _, tail := range []string{"", ",1", "        "} {
			r := reader{b: []byte(`"` + s + `"` + tail)}
			if start, end, ok := r.text(); !ok || start != 1 || end != n+1 || r.i != n+2 {
				t.Errorf("text of %q: %d, %d, %v at %d", r.b, start, end, ok, r.i)
			}
			for _, stop := range []string{"\\n", "\x01", "é", "\xff"} {
				for at := 0; at <= n; at++ {
					text := s[:at] + stop + s[at:]
					r := reader{b: []byte(`"` + text + `"` + tail)}
					start, end, ok := r.text()
					want := utf8.ValidString(text) && !strings.ContainsAny(text, "\\\x01")
					if ok != want || ok && (start != 1 || end != len(text)+1) {
						t.Errorf("text of %q: %d, %d, %v, want %v", r.b, start, end, ok, want)
					}
				}
			}
		}
		// No closing quote: not a string.
		r := reader{b: []byte(`"` + s)}
		if _, _, ok := r.text(); ok {
			t.Errorf("text of %q reads it", r.b)
		}
	}
}

// TestTextStopsFindsTheFirstStop holds textStops to textStop: in a word
// of plain bytes, then any byte c, then any byte d repeated to the end,
// its lowest mark is at the first byte textStop marks, or nowhere.
func TestTextStopsFindsTheFirstStop(t *testing.T) {
	for at := range 8 {
		for c := range 256 {
			for d := range 256 {
				var word [8]byte
				for i := range word {
					switch {
					case i < at:
						word[i] = 'a'
					case i == at:
						word[i] = byte(c)
					default:
						word[i] = byte(d)
					}
				}
				want := 8
				for i, b := range word {
					if textStop[b] {
						want = i
						break
					}
				}
				got := 8
				if m := textStops(binary.LittleEndian.Uint64(word[:])); m != 0 {
					got = bits.TrailingZeros64(m) / 8
				}
				if got != want {
					t.Fatalf("textStops(%q) marks byte %d first, want %d", word, got, want)
				}
			}
		}
	}
}

//go:build !js

package scoring

import jsonv2 "github.com/go-json-experiment/json"

// Decoding takes one pass over the bytes when nothing is wrong: JSON v2
// reads them strictly (unknown members, duplicate names and invalid UTF-8
// are errors) and fast. It is stricter than encoding/json (it matches
// member names exactly, where encoding/json ignores their case, and it
// refuses what encoding/json lets through, such as duplicate names), so
// whatever it refuses is decoded again the old way, which then decides:
// accepts it as before, or says what is wrong and where, word for word as
// before. What v2 accepts, encoding/json accepts with the same value, for
// the types the rules decode (structs, slices, maps, pointers, strings,
// whole numbers and booleans; both read a whole number from its digits
// only). TestOnePassDecodeAgrees holds the two to the same answers.
//
// The browser's engine (onepass_js.go) scores one table at a time and
// goes without: JSON v2 would add a third to its download.

// strictV2 are the options of the one-pass decoder.
var strictV2 = jsonv2.RejectUnknownMembers(true)

// unmarshalOnePass decodes raw into v and reports whether it could: with
// a hand-written reader (fastjson.go) for the types that have one, and
// with JSON v2 for the rest and for what a reader leaves to it.
func unmarshalOnePass(raw []byte, v any) bool {
	switch v := v.(type) {
	case *insectaBoard:
		if readInsectaBoard(raw, v) {
			return true
		}
		*v = insectaBoard{}
	case *hotelBoard:
		if readHotelBoard(raw, v) {
			return true
		}
		*v = hotelBoard{}
	}
	return jsonv2.Unmarshal(raw, v, strictV2) == nil
}

// readScoreRequest is readRequest (fastjson.go): a body it reads is valid
// JSON and valid text, with no NUL, so nothing is left to check.
func readScoreRequest(body []byte, req *Request) bool {
	if readRequest(body, req) {
		return true
	}
	*req = Request{}
	return false
}

package scoring

import (
	"errors"
	"reflect"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// decodeOptions make JSON v2 accept what encoding/json accepted, so that
// every answer stays as it was: member names matched regardless of case
// (an exact match first, and "_" and "-" still count), a name given twice
// read twice, the second time into what the first gave (a null keeps it),
// and invalid UTF-8 read, for CheckText to refuse at its place. Unknown
// members stay errors.
var decodeOptions = jsonv2.JoinOptions(
	jsonv2.RejectUnknownMembers(true),
	jsonv2.MatchCaseInsensitiveNames(true),
	jsonv1.MatchCaseSensitiveDelimiter(true),
	jsontext.AllowDuplicateNames(true),
	jsonv1.MergeWithLegacySemantics(true),
	jsontext.AllowInvalidUTF8(true),
)

// asEncodingJSON makes JSON v2 write and read as encoding/json does, for
// what the rules keep (a stored message, a tracked hotel's boards): one
// JSON package in the browser's engine, not two.
var asEncodingJSON = jsonv1.DefaultOptionsV1()

// DecodeRequest decodes a whole request body into v strictly. No body,
// malformed JSON or text that is not UTF-8 is a 400 RequestError;
// well-formed JSON with unknown fields, values of the wrong type or a NUL
// character in a string is a ValidationError naming the field.
func DecodeRequest(body []byte, v any) error {
	if len(body) == 0 {
		return requestErrorf(400, "the request needs a JSON body")
	}
	err := jsonv2.Unmarshal(body, v, decodeOptions)
	// v2 stops at the first wrong value; the rest of the body may still
	// be malformed, and malformed JSON is what a client hears of first.
	if err != nil && !jsontext.Value(body).IsValid(decodeOptions) {
		return requestErrorf(400, "the body is not valid JSON")
	}
	if err := CheckText(body); err != nil {
		return err
	}
	return fieldError(err, "")
}

// DecodeBoard decodes one raw board into v, strictly: unknown fields and
// values of the wrong type are errors. The error is a *ValidationError whose
// pointer names the offending value inside the request, below base (for
// example "/players/1/board"). A missing or null board decodes as an empty
// one, so a player can be added before their board is entered.
func DecodeBoard(raw []byte, base string, v any) error {
	if len(raw) == 0 {
		return nil
	}
	return fieldError(jsonv2.Unmarshal(raw, v, decodeOptions), base)
}

// optional is a value of a board that may be left out: Given says
// whether it was sent (null is not), and Value is what was sent, or the
// zero value.
type optional[T any] struct {
	Value T
	Given bool
}

// UnmarshalJSONFrom reads an optional value as JSON v2 would a pointer
// to it, but without allocating one (a board has many): null is not
// given, and anything else is read as v2 reads T.
func (o *optional[T]) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		*o = optional[T]{}
		_, err := dec.ReadToken()
		return err
	}
	o.Given = true
	return jsonv2.UnmarshalDecode(dec, &o.Value)
}

// fieldError turns a decoding error into a ValidationError at the place
// JSON v2 names, below base, in words a player understands.
func fieldError(err error, base string) error {
	if err == nil {
		return nil
	}
	var verr ValidationError
	var se *jsonv2.SemanticError
	switch {
	case errors.As(err, &se) && se.Err == jsonv2.ErrUnknownName:
		verr.Add(base+string(se.JSONPointer), "%q is not a field of this board", se.JSONPointer.LastToken())
	case errors.As(err, &se) && se.GoType != nil && se.JSONKind != 0:
		verr.Add(base+string(se.JSONPointer), "expected %s, got %s", term(describeType(se.GoType)), describeValue(se))
	default:
		var syn *jsontext.SyntacticError
		if errors.As(err, &syn) {
			err = syn.Err
		}
		verr.Add(base, "the board is not valid: %s", err.Error())
	}
	return &verr
}

// describeType turns a Go type into words a player understands.
func describeType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.String:
		return "text"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "a list"
	default:
		return "an object"
	}
}

// describeValue is the JSON value of se as an argument of a message: a
// number meant to be a whole number as it was sent, anything else as a
// word to translate.
func describeValue(se *jsonv2.SemanticError) any {
	switch se.JSONKind {
	case '0':
		if describeType(se.GoType) == "a whole number" && len(se.JSONValue) > 0 {
			return string(se.JSONValue)
		}
		return term("a number")
	case 't', 'f':
		return term("true or false")
	case '[':
		return term("a list")
	case '{':
		return term("an object")
	case '"':
		return term("text")
	}
	return se.JSONKind.String()
}

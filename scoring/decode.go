package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// onePass switches the JSON v2 reader (onepass.go) on; a test switches
// it off to compare the two ways.
var onePass = true

// decodeFast decodes raw into v in one pass and reports whether it could.
// When it cannot, v is reset to its zero value for the slow decoder, as
// the one-pass decoder may have filled part of it.
func decodeFast(raw []byte, v any) bool {
	if !onePass {
		return false
	}
	if unmarshalOnePass(raw, v) {
		return true
	}
	reflect.ValueOf(v).Elem().SetZero()
	return false
}

// decodeScoreRequest is DecodeRequest for a score request, in one pass
// over a valid body: the hand-written reader's, or else v2's (a body v2
// accepts is valid JSON, so what is left to check is the text: no NUL);
// anything else takes DecodeRequest's path.
func decodeScoreRequest(body []byte, req *Request) error {
	if onePass && readScoreRequest(body, req) {
		return nil
	}
	if decodeFast(body, req) && CheckText(body) == nil {
		return nil
	}
	*req = Request{}
	return DecodeRequest(body, req)
}

// DecodeRequest decodes a whole request body into v strictly. No body,
// malformed JSON or text that is not UTF-8 is a 400 RequestError;
// well-formed JSON with unknown fields, values of the wrong type or a NUL
// character in a string is a ValidationError naming the field.
func DecodeRequest(body []byte, v any) error {
	if len(body) == 0 {
		return requestErrorf(400, "the request needs a JSON body")
	}
	if !json.Valid(body) {
		return requestErrorf(400, "the body is not valid JSON")
	}
	if err := CheckText(body); err != nil {
		return err
	}
	return DecodeStrict(body, "", v)
}

// DecodeBoard decodes one raw board into v, strictly: unknown fields and
// values of the wrong type are errors. The error is a *ValidationError whose
// pointer names the offending value inside the request, below base (for
// example "/players/1/board"). A missing or null board decodes as an empty
// one, so a player can be added before their board is entered.
func DecodeBoard(raw []byte, base string, v any) error {
	if decodeFast(raw, v) {
		return nil
	}
	return DecodeStrict(raw, base, v)
}

// DecodeStrict is DecodeBoard for any JSON value below base; callers that
// must tell malformed JSON from wrong values check json.Valid first.
func DecodeStrict(raw []byte, base string, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, tail := dec.Token(); tail != io.EOF {
			err = errors.New("unexpected data after the board")
		}
	}
	if err == nil {
		return nil
	}
	var tree any
	_ = json.Unmarshal(raw, &tree)
	var verr ValidationError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		kind, val, _ := strings.Cut(te.Value, " ")
		var segs []string
		if te.Field != "" {
			segs = strings.Split(te.Field, ".")
		}
		ptr, ok := locate(tree, segs, kind, val, base)
		if !ok {
			ptr = base
		}
		verr.Add(ptr, "expected %s, got %s", term(describeType(te.Type.String())), describeValueWord(kind, val))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		ptr, ok := findUnknown(tree, reflect.TypeOf(v), base)
		if !ok {
			ptr, ok = findKey(tree, name, base)
		}
		if !ok {
			ptr = base
		}
		verr.Add(ptr, "%q is not a field of this board", name)
	default:
		verr.Add(base, "the board is not valid: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	return &verr
}

// locate finds the first value in tree at the dotted path segs (array
// indices are not part of encoding/json's path, so arrays are searched) whose
// JSON kind is kind, and returns its JSON Pointer.
func locate(node any, segs []string, kind, val, ptr string) (string, bool) {
	if arr, ok := node.([]any); ok && (len(segs) > 0 || kind != "array") {
		for i, el := range arr {
			if p, ok := locate(el, segs, kind, val, ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
		return "", false
	}
	if len(segs) == 0 {
		if f, isNum := node.(float64); isNum && kind == "number" && val != "" {
			// Several numbers may sit at the same path; the error names
			// the offending one by its text.
			want, err := strconv.ParseFloat(val, 64)
			return ptr, err == nil && want == f
		}
		return ptr, jsonKind(node) == kind
	}
	obj, ok := node.(map[string]any)
	if !ok {
		return "", false
	}
	child, ok := obj[segs[0]]
	if !ok {
		return "", false
	}
	return locate(child, segs[1:], kind, val, ptr+"/"+escapePointer(segs[0]))
}

// findUnknown walks tree alongside the Go type it was decoded into and
// returns the pointer of the first object member that type has no field
// for. It matches names case-insensitively, as encoding/json does.
func findUnknown(node any, t reflect.Type, ptr string) (string, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch n := node.(type) {
	case map[string]any:
		keys := make([]string, 0, len(n))
		for k := range n {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			var elem reflect.Type
			switch t.Kind() {
			case reflect.Map:
				elem = t.Elem()
			case reflect.Struct:
				f, ok := jsonField(t, k)
				if !ok {
					return ptr + "/" + escapePointer(k), true
				}
				elem = f.Type
			default:
				return "", false
			}
			if p, ok := findUnknown(n[k], elem, ptr+"/"+escapePointer(k)); ok {
				return p, true
			}
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return "", false
		}
		for i, el := range n {
			if p, ok := findUnknown(el, t.Elem(), ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

// jsonField finds the struct field encoding/json would decode key into.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// findKey returns the pointer of the first object member named key.
func findKey(node any, key, ptr string) (string, bool) {
	switch n := node.(type) {
	case map[string]any:
		if _, ok := n[key]; ok {
			return ptr + "/" + escapePointer(key), true
		}
		for k, v := range n {
			if p, ok := findKey(v, key, ptr+"/"+escapePointer(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, v := range n {
			if p, ok := findKey(v, key, ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "bool"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// describeType turns a Go type into words a player understands.
func describeType(t string) string {
	t = strings.TrimLeft(t, "*")
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "a whole number"
	case t == "string":
		return "text"
	case t == "bool":
		return "true or false"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	default:
		return "an object"
	}
}

func describeValue(kind, val string) string {
	switch kind {
	case "number":
		if val != "" {
			return val
		}
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "string":
		return "text"
	}
	return kind
}

// describeValueWord is describeValue as an argument of a message: a
// number as it was sent, anything else as a word to translate.
func describeValueWord(kind, val string) any {
	if kind == "number" && val != "" {
		return val
	}
	return term(describeValue(kind, val))
}

package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// DecodeBoard decodes one raw board into v, strictly: unknown fields and
// values of the wrong type are errors. The error is a *ValidationError whose
// pointer names the offending value inside the request, below base (for
// example "/players/1/board"). A missing or null board decodes as an empty
// one, so a player can be added before their board is entered.
func DecodeBoard(raw []byte, base string, v any) error {
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
	if err == nil && dec.More() {
		err = errors.New("unexpected data after the board")
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
		ptr, ok := locate(tree, segs, kind, base)
		if !ok {
			ptr = base
		}
		verr.Add(ptr, "expected %s, got %s", describeType(te.Type.String()), describeValue(kind, val))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		ptr, ok := findKey(tree, name, base)
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
func locate(node any, segs []string, kind, ptr string) (string, bool) {
	if arr, ok := node.([]any); ok && (len(segs) > 0 || kind != "array") {
		for i, el := range arr {
			if p, ok := locate(el, segs, kind, ptr+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
		return "", false
	}
	if len(segs) == 0 {
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
	return locate(child, segs[1:], kind, ptr+"/"+escapePointer(segs[0]))
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

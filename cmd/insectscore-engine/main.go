//go:build js && wasm

package main

import (
	"fmt"
	"syscall/js"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"insectscore/scoring"
)

// catalog is the language the engine answers in, as the server does for
// an Accept-Language that picks it: nil is English, the rules' own.
var catalog scoring.Catalog

// main registers globalThis.insectscoreEngine and then blocks, so that its
// functions stay callable for as long as the page lives.
func main() {
	js.Global().Set("insectscoreEngine", js.ValueOf(map[string]any{
		"games": export(func([]js.Value) (any, error) {
			return scoring.GameList(), nil
		}),
		"spec": export(func(args []js.Value) (any, error) {
			g, err := scoring.Find(stringArg(args, 0))
			if err != nil {
				return nil, err
			}
			return catalog.Spec(g.Spec()), nil
		}),
		"score": export(func(args []js.Value) (any, error) {
			res, err := scoring.ScoreJSON(stringArg(args, 0), []byte(stringArg(args, 1)))
			if err != nil {
				return nil, err
			}
			return catalog.Result(res), nil
		}),
		// language takes a catalog (pwa/assets/i18n/<lang>.json, as
		// text) to answer in from now on; "" is English.
		"language": export(func(args []js.Value) (any, error) {
			text := stringArg(args, 0)
			if text == "" {
				catalog = nil
				return true, nil
			}
			var c scoring.Catalog
			if err := jsonv2.Unmarshal([]byte(text), &c); err != nil {
				return nil, fmt.Errorf("the catalog is not a JSON object of messages: %w", err)
			}
			catalog = c
			return true, nil
		}),
	}))
	select {}
}

// export makes f a JavaScript function that returns the JSON text of
// {"status", "body"}: the status and body the server sends for the same
// request. A panic becomes the server's 500, as its recover middleware
// makes it, and leaves the engine running.
func export(f func(args []js.Value) (any, error)) js.Func {
	return js.FuncOf(func(_ js.Value, args []js.Value) (out any) {
		defer func() {
			if r := recover(); r != nil {
				out = reply(nil, fmt.Errorf("panic: %v", r))
			}
		}()
		return reply(f(args))
	})
}

// answer is what each function returns, as JSON text.
type answer struct {
	Status int            `json:"status"`
	Body   jsontext.Value `json:"body"`
}

// asServer writes JSON with JSON v2 as encoding/json does, so that an
// answer is byte for byte the server's (its c.JSON is encoding/json's
// Marshal), and the engine carries one JSON package, not two.
var asServer = jsonv1.DefaultOptionsV1()

// reply encodes v as the server's c.JSON does, or err as the problem the
// server sends for it.
func reply(v any, err error) string {
	if err == nil {
		var body []byte
		if body, err = jsonv2.Marshal(v, asServer); err == nil {
			return encode(200, body)
		}
	}
	p, _ := catalog.Problem(err)
	body, _ := jsonv2.Marshal(p, asServer)
	return encode(p.Status, body)
}

func encode(status int, body []byte) string {
	out, _ := jsonv2.Marshal(answer{Status: status, Body: body}, asServer)
	return string(out)
}

// stringArg is argument i when it is a string, and "" otherwise: the
// loader passes strings, and anything else reads as no id or no body.
func stringArg(args []js.Value, i int) string {
	if i >= len(args) || args[i].Type() != js.TypeString {
		return ""
	}
	return args[i].String()
}

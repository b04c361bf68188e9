// Command insectscore-engine is the rules engine of the PWA: the scoring
// package compiled to WebAssembly, so a phone can list the games, read a
// game's spec and score a table with no server at hand. It answers exactly
// as GET /api/v1/games, GET /api/v1/games/{id} and POST
// /api/v1/games/{id}/score do, status and body, because both call the same
// functions of scoring; after language(catalog) it answers as they do for
// an Accept-Language of that catalog's language.
//
// It is built only for js/wasm (main.go); `go generate ./...` writes it to
// pwa/assets/engine/engine.wasm, where pwa/assets/engine/engine.js loads it.
// On any other platform this package is empty.
package main

package pwa

// The browser's copy of the rules engine: cmd/insectscore-engine (the
// scoring package) built for WebAssembly, and the toolchain's matching
// wasm_exec.js that runs it. Both are committed, so `go build` stays the
// only build of the server; after a change to scoring/ run
//
//	go generate ./...
//
// and TestEngineIsGenerated (engine_test.go) fails until you do. The build
// is reproducible: no VCS stamp, no paths, no symbols, no cgo.
// The go line of go.mod (1.26) keeps wasm_exec.js under lib/wasm (it was
// under misc/wasm before Go 1.24).
//
// Then the brotli and gzip forms of every file under assets/ worth
// compressing, the engine's included, are written under compressed/
// (precompress/gen; committed and embedded too): the server compresses
// none of them at start, so its first answer is already compressed. Only
// the forms of files changed since are made again. After editing a file
// under assets/ run
//
//	go generate -run precompress ./pwa
//
// or the file goes out uncompressed (a form is named for the content it
// was made from, so a stale one is never served), and
// TestCompressedFormsAreFresh (compressed_test.go) fails until you do.

//go:generate env CGO_ENABLED=0 GOOS=js GOARCH=wasm go build -buildvcs=false -trimpath "-ldflags=-s -w" -o assets/engine/engine.wasm ../cmd/insectscore-engine
//go:generate cp $GOROOT/lib/wasm/wasm_exec.js assets/engine/wasm_exec.js
//go:generate go run ./precompress/gen -src assets -out compressed

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

//go:generate env CGO_ENABLED=0 GOOS=js GOARCH=wasm go build -buildvcs=false -trimpath "-ldflags=-s -w" -o assets/engine/engine.wasm ../cmd/insectscore-engine
//go:generate cp $GOROOT/lib/wasm/wasm_exec.js assets/engine/wasm_exec.js

//go:build !(js && wasm)

package main

import (
	"fmt"
	"os"
)

// main explains itself: the engine runs only in a browser.
func main() {
	fmt.Fprintln(os.Stderr, "insectscore-engine runs only as WebAssembly in a browser; build it with `go generate ./...` (see pwa/generate.go)")
	os.Exit(2)
}

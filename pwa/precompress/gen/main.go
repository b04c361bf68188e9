// Command gen writes the brotli and gzip forms of the app's files that are
// worth compressing, for the server to embed: pwa/generate.go runs it, so
// the server compresses none of them at start.
//
//	go run ./precompress/gen [-src assets] [-out compressed] [-force]
package main

import (
	"flag"
	"fmt"
	"os"

	"insectscore/pwa/precompress"
)

func main() {
	src := flag.String("src", "assets", "the directory of the files to compress")
	out := flag.String("out", "compressed", "the directory the forms are written to; any other file in it is deleted")
	force := flag.Bool("force", false, "compress again the files whose forms are there already")
	flag.Parse()
	if err := precompress.Generate(*src, *out, *force); err != nil {
		fmt.Fprintln(os.Stderr, "precompress:", err)
		os.Exit(1)
	}
}

package pwa

import (
	"crypto/sha256"
	"embed"
	"io/fs"
	"path"

	"insectscore/pwa/precompress"
)

// Compressed holds the brotli and gzip forms of the files under assets/
// worth compressing, made at build time (generate.go) so the server
// compresses none of them: compressed/<path under assets>.<sum>.br and
// .gz, named for the content they were made from (precompress.Names).
//
//go:embed compressed
var Compressed embed.FS

// Forms returns the names in Compressed of the brotli and gzip forms of
// assets/<name> whose content has the SHA-256 sum; "" where that coding
// does not pay, or where none was made from this content (the file was
// edited and go generate not run since: it goes uncompressed rather than
// as it was).
func Forms(name string, sum [sha256.Size]byte) (br, gz string) {
	brName, gzName := precompress.Names(name, sum)
	return form(brName), form(gzName)
}

func form(name string) string {
	name = path.Join("compressed", name)
	if _, err := fs.Stat(Compressed, name); err != nil {
		return ""
	}
	return name
}

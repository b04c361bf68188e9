// Package pwa embeds the progressive web app: plain HTML, CSS and JavaScript
// modules with no build step, so `go build` is the only build.
package pwa

import "embed"

// Files holds the app shell. index.html, sw.js and manifest.webmanifest sit
// at the top; everything under assets/ is served with a content hash in its
// path so it can be cached forever.
//
//go:embed index.html sw.js manifest.webmanifest assets
var Files embed.FS

package api

import (
	"net"
	"os"
	"testing"

	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"
)

// BenchmarkScoreEndpoint sends a 4-player Insecta score request to the real
// app over an in-memory connection ("score"), and the same body to an API
// path that matches no route ("noop"), which costs the middleware and the
// HTTP exchange but no rules. Their ratio is what the rules cost a request
// (issue 10, P1: score at least half as fast as noop):
//
//	go test ./api -run '^$' -bench ScoreEndpoint -benchmem
func BenchmarkScoreEndpoint(b *testing.B) {
	body := fourPlayerInsecta(b)
	app := newTestApp(b)
	ln := fasthttputil.NewInmemoryListener()
	go func() { _ = app.Listener(ln) }()
	b.Cleanup(func() { _ = app.Shutdown() })
	client := &fasthttp.HostClient{Addr: "bench", Dial: func(string) (net.Conn, error) { return ln.Dial() }}
	for _, bb := range []struct{ name, path string }{
		{"score", "/api/v1/games/insecta/score"},
		{"noop", "/api/v1/no-such-route"},
	} {
		want := fasthttp.StatusOK
		if bb.name == "noop" {
			want = fasthttp.StatusNotFound
		}
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			b.RunParallel(func(pb *testing.PB) {
				req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
				defer fasthttp.ReleaseRequest(req)
				defer fasthttp.ReleaseResponse(resp)
				for pb.Next() {
					req.Reset()
					req.SetRequestURI("http://bench" + bb.path)
					req.Header.SetMethod(fasthttp.MethodPost)
					req.Header.SetContentType("application/json")
					req.SetBody(body)
					if err := client.Do(req, resp); err != nil {
						b.Error(err)
						return
					}
					if resp.StatusCode() != want {
						b.Errorf("%s: status %d, want %d: %s", bb.path, resp.StatusCode(), want, resp.Body())
						return
					}
				}
			})
		})
	}
}

// fourPlayerInsecta is the Insecta example's two boards twice over, the
// copies with researchers of their own, as one compact request body
// (testdata/insecta-four-players.json, shared with scoring's benchmarks).
func fourPlayerInsecta(tb testing.TB) []byte {
	tb.Helper()
	body, err := os.ReadFile("testdata/insecta-four-players.json")
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

package pwa_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"image/png"
	"math/big"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"insectscore/api"
	"insectscore/api/live"
	"insectscore/api/qrtest"
	"insectscore/models"
)

// Issue 23: a phone that joins by the QR code at a name that is not
// loopback. Over https (a certificate made here for insectscore.test) it
// gets the service worker and opens the app with the server down; over
// plain http, which Chromium treats as an insecure origin as it does a LAN
// address, it gets no service worker, but the page loads every screen
// while the server answers and says what a reload would cost. Chromium
// maps the name to 127.0.0.1 (--host-resolver-rules): nothing leaves the
// machine.

// testName is the name the phones reach the server by.
const testName = "insectscore.test"

// testCert is a self-signed certificate for testName, and the base64
// SHA-256 of its public key (SPKI), which Chromium is told to trust with
// --ignore-certificate-errors-spki-list.
func testCert(t *testing.T) (tls.Certificate, string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: testName}, DNSNames: []string{testName},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	spki := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}, base64.StdEncoding.EncodeToString(spki[:])
}

// named starts a Chromium that resolves testName to 127.0.0.1 and trusts
// the certificates whose SPKI hashes are given.
func named(t *testing.T, spki ...string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{chromedp.Flag("host-resolver-rules", "MAP "+testName+" 127.0.0.1")}
	if len(spki) > 0 {
		opts = append(opts, chromedp.Flag("ignore-certificate-errors-spki-list", strings.Join(spki, ",")))
	}
	return newChromium(t, opts...)
}

// byName is an origin of s (served at 127.0.0.1) at testName instead.
func byName(s *appServer, scheme string) string {
	_, port, _ := strings.Cut(strings.TrimPrefix(s.base, "http://"), ":")
	return scheme + "://" + testName + ":" + port
}

// serveTLS serves the real app over https with cert, on a fresh in-memory
// store and a free port of 127.0.0.1, as the binary does with -tls-cert
// and -tls-key.
func serveTLS(t *testing.T, cert tls.Certificate) *appServer {
	t.Helper()
	store, err := models.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatalf("models.Open: %v", err)
	}
	broker := live.NewMemoryBroker()
	app, err := api.New(api.Config{Store: store, Broker: broker, LANAddr: func() string { return "" }})
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		_ = app.Listener(tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}()
	s := &appServer{t: t, base: "http://" + ln.Addr().String(), app: app, broker: broker, store: store}
	t.Cleanup(s.stop)
	return s
}

// qrLink reads the join link out of a table's qr.png, fetched by name from
// 127.0.0.1 with a client that trusts only cert, as a phone's camera would.
func qrLink(t *testing.T, base, code string, cert tls.Certificate) string {
	t.Helper()
	roots := x509.NewCertPool()
	roots.AddCert(cert.Leaf)
	_, port, _ := strings.Cut(strings.TrimPrefix(base, "https://"), ":")
	dial := &net.Dialer{Timeout: 5 * time.Second}
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: roots},
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return dial.DialContext(ctx, network, "127.0.0.1:"+port)
		},
	}}
	resp, err := c.Get(base + "/api/v1/tables/" + code + "/qr.png")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	img, err := png.Decode(resp.Body)
	if err != nil {
		t.Fatalf("qr.png (%d): %v", resp.StatusCode, err)
	}
	return qrtest.Decode(t, img)
}

// TestBrowserHTTPSAtAName: over https at insectscore.test the service
// worker installs, a phone joins by the link in the QR code, and with the
// server gone a reload opens the app from its copies, where the phone's
// board is scored by the engine.
func TestBrowserHTTPSAtAName(t *testing.T) {
	cert, spki := testCert(t)
	srv := serveTLS(t, cert)
	base := byName(srv, "https")
	chrome := named(t, spki)
	host := newTab(t, chrome, base, true)
	code := host.startTable("insectarium", "Ana", "Ben")
	if n := host.countOf(`[data-testid=plain-http-join]`); n != 0 {
		t.Errorf("over https the host screen warns about plain http %d times", n)
	}

	link := qrLink(t, base, code, cert)
	if want := base + "/t/" + code; link != want {
		t.Fatalf("the QR code says %q, want %q", link, want)
	}
	phone := newTab(t, chrome, base, true)
	claim := `button.claim-btn[data-seat="1"]`
	phone.do(chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(claim)))
	phone.do(tapInPage(claim), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/1/board/grid/0/0"))))
	secure, err := chromedp.Run(phone.ctx, chromedp.Evaluate[bool](`window.isSecureContext && 'serviceWorker' in navigator`))
	if err != nil || !secure {
		t.Fatalf("the page at %s is not a secure context with a service worker (%v)", base, err)
	}
	phone.waitOfflineReady()
	if n := phone.countOf(`[data-testid=plain-http-notice]`); n != 0 {
		t.Errorf("over https the phone is told about plain http %d times", n)
	}

	srv.stop()
	phone.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/1/board/grid/0/0"))))
	phone.serverGone(true)
	phone.editUnsent()
	phone.waitTextNow(`[data-testid=standing-1]`, "3")
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	phone.noVagueErrors()
	phone.screenshot("https-seat-server-down")
	host.checkConsole()
	phone.checkConsole()
}

// warmedModules are the files a page on a plain http address fetches once
// its first screen is drawn, beside the rules engine: every module of every
// screen (the engine's worker and runtime load in the worker) and the other
// languages' catalogs.
func warmedModules(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, f := range assetFiles(t) {
		rest := strings.TrimPrefix(f, "assets/")
		if strings.HasSuffix(f, ".js") && rest != "engine/worker.js" && rest != "engine/wasm_exec.js" || rest == "i18n/de.json" || rest == "i18n/es.json" {
			out = append(out, rest)
		}
	}
	return out
}

// waitScreensLoaded waits until the page has fetched every screen's
// modules and loaded the rules engine.
func (b *browser) waitScreensLoaded() {
	b.t.Helper()
	b.waitForUpTo(30*time.Second, "every screen's modules and the engine", `(async () => {
		const got = new Set(performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname.replace(/^\/assets\/[0-9a-f]+\//, '')));
		if (!`+jsList(warmedModules(b.t))+`.every((f) => got.has(f))) return false;
		const m = await import(`+engineModule+`);
		return m.engineReady() !== null;
	})()`)
}

// jsList is a JavaScript array of strings.
func jsList(xs []string) string {
	q := make([]string, len(xs))
	for i, x := range xs {
		q[i] = js(x)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// goTo opens a path in the page as a tap on a link would, without loading
// the page again.
func (b *browser) goTo(path string) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](`history.pushState(null, '', ` + js(path) + `); window.dispatchEvent(new Event('route'))`))
}

// brokenWords are what a screen says when its code failed, in English and
// German: never for a screen that only lacks the server.
var brokenWords = []string{"This page broke", "A fault in the app", "Diese Seite ist abgestürzt", "Ein Fehler in der App"}

// notBroken fails the test if the page says its code failed.
func (b *browser) notBroken(screen string) {
	b.t.Helper()
	got := b.pageText()
	for _, w := range brokenWords {
		if strings.Contains(got, w) {
			b.screenshot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
			b.t.Errorf("%s with the server down says %q: %q", screen, w, got)
		}
	}
}

// TestBrowserPlainHTTPAtAName: at http://insectscore.test:PORT there is
// no service worker. The host screen says what joining phones lack; the
// phone is told once that a reload needs the server; once its first screen
// is drawn it loads every screen, so with the server gone each opens, a
// game is scored by the engine, the language switches, and the advice to
// score a game leads to a working screen.
func TestBrowserPlainHTTPAtAName(t *testing.T) {
	srv := serveApp(t, ":memory:", "127.0.0.1:0")
	base := byName(srv, "http")
	chrome := named(t)
	host := newTab(t, chrome, base, true)
	code := host.startTable("insectarium", "Ana", "Ben")
	if got := host.textNow(`[data-testid=plain-http-join]`); !strings.Contains(got, "plain http") || !strings.Contains(got, "HTTPS") {
		t.Errorf("the host screen at %s says %q about the joining phones, want what plain http lacks and the README's HTTPS section", base, got)
	}
	host.screenshot("plain-http-host")

	phone := newTab(t, chrome, base, true)
	phone.joinAs(code, 1)
	insecure, err := chromedp.Run(phone.ctx, chromedp.Evaluate[bool](`!window.isSecureContext && !('serviceWorker' in navigator)`))
	if err != nil || !insecure {
		t.Fatalf("the page at %s is a secure context or has a service worker (%v): the test needs an insecure origin", base, err)
	}
	phone.waitTextHas(`[data-testid=plain-http-notice]`, "a reload or a new tab cannot open it")
	phone.screenshot("plain-http-notice")
	phone.do(tapInPage(`[data-testid=plain-http-notice] button`), chromedp.WaitNotPresent(chromedp.CSS(`[data-testid=plain-http-notice]`)))
	phone.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/1/board/grid/0/0"))))
	if n := phone.countOf(`[data-testid=plain-http-notice]`); n != 0 {
		t.Errorf("after a dismissal and a reload the notice shows %d times", n)
	}
	phone.waitScreensLoaded()

	srv.stop()
	phone.serverGone(false)
	// The seat's board is scored on the phone.
	phone.editUnsent()
	phone.waitTextNow(`[data-testid=standing-1]`, "3")
	// A screen that needs the server's data says so, and its advice works.
	for _, path := range []string{"/history", "/leaderboards", "/groups", "/plays/new", "/tables/new"} {
		phone.goTo(path)
		phone.waitFor(path+" to draw", `location.pathname.startsWith(`+js(path)+`) && !!document.querySelector('main h1')`)
		time.Sleep(300 * time.Millisecond) // let a failure that follows show
		phone.notBroken(path)
	}
	phone.goTo("/history")
	phone.waitTextHas(`.empty-state[role=alert]`, "Scoring a game works without the server")
	phone.goTo("/")
	phone.waitFor("the home screen's games", `!!document.querySelector('a.game-btn[href="/score/insecta"]')`)
	phone.notBroken("the home screen")
	for _, g := range []struct{ path, css string }{
		{"/score/insecta", `#panel-0 button.tile[data-row="0"][data-col="0"]`},
		{"/score/insektenhotel", `[data-testid=see-results]`},
		{"/score/insectarium", `button` + pointer("/players/0/board/grid/0/0")},
	} {
		phone.goTo(g.path)
		phone.waitFor(g.path+"'s form", `!!document.querySelector(`+js(g.css)+`)`)
		phone.notBroken(g.path)
	}
	enterInsectariumExample(phone)
	phone.waitText(`[data-testid=live-total]`, "34")
	phone.do(tapInPage(`[data-testid=see-results]`), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if got := phone.textNow(`[data-testid=total-0]`); got != "34" {
		t.Errorf("with the server down the Insectarium example totals %q, want 34", got)
	}
	phone.goTo("/")
	phone.switchLanguage("de")
	phone.homeIn("de", "Ein Spiel werten")
	phone.noVagueErrors()
	phone.screenshot("plain-http-server-down")
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserPlainHTTPModuleNotLoaded: on a plain http address, a screen
// whose module the page could not fetch before the server went says, in
// the app's language, that it needs the server; it gives no advice that
// would lead to another such screen.
func TestBrowserPlainHTTPModuleNotLoaded(t *testing.T) {
	srv := serveApp(t, ":memory:", "127.0.0.1:0")
	base := byName(srv, "http")
	b := newTab(t, named(t), base, false)
	b.blockRequests("*://*:*/*/history/plays.js")
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.switchLanguage("de")
	b.homeIn("de", "Ein Spiel werten")
	b.waitTextHas(`[data-testid=plain-http-notice]`, "Neuladen")

	srv.stop()
	b.goTo("/history")
	b.waitTextHas(`main h1`, "Dafür braucht es den Server")
	got := b.textNow(`.empty-state[role=alert]`)
	if !strings.Contains(got, "nicht geladen") {
		t.Errorf("the history screen whose module did not load says %q, want that it was not loaded, in German", got)
	}
	if strings.Contains(got, "Werten geht auch ohne Server") {
		t.Errorf("the screen advises scoring offline while this page has not loaded every screen: %q", got)
	}
	b.notBroken("/history")
	overflow, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth`))
	if err != nil || overflow {
		t.Errorf("the page is wider than the phone (%v)", err)
	}
	b.screenshot("plain-http-module-not-loaded")

	// The server back, Try again opens the screen.
	serveApp(t, ":memory:", strings.TrimPrefix(srv.base, "http://"))
	b.blockRequests()
	b.do(tapInPage(`[data-testid=try-again]`))
	b.waitFor("the history screen once the server is back", `!!document.querySelector('main h1') && !document.querySelector('.empty-state[role=alert]')`)
	b.checkConsole()
}

package pwa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/gofiber/fiber/v2"

	"insectscore/api"
	"insectscore/api/live"
	"insectscore/models"
	_ "insectscore/scoring"
)

// The browser tests drive the embedded PWA in real Chromium against the
// real server, through the UI only: clicks, typing and selects.
//
//	go test ./pwa -run Browser -v
//
// CHROMIUM names the browser binary (default /usr/bin/chromium). Without a
// browser the tests skip, unless INSECTSCORE_REQUIRE_BROWSER=1 (as in CI).
// INSECTSCORE_SCREENSHOTS=dir also saves screenshots of every screen there.

// browserTimeout bounds one browser test from start to end.
const browserTimeout = 60 * time.Second

// chromiumPath finds the browser or ends the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"}
	for _, p := range candidates {
		if p == "" {
			continue
		}
		if full, err := exec.LookPath(p); err == nil {
			return full
		}
	}
	msg := "no Chromium found (looked at $CHROMIUM, /usr/bin/chromium, /usr/bin/chromium-browser, /usr/bin/google-chrome); " +
		"install chromium or set CHROMIUM to run the browser tests"
	if os.Getenv("INSECTSCORE_REQUIRE_BROWSER") == "1" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// startApp serves the real app, on a fresh in-memory store, on a free
// local port and returns its origin.
func startApp(t *testing.T) string {
	t.Helper()
	return serveApp(t, ":memory:", "127.0.0.1:0").base
}

// appServer is one run of the real app on a real listener.
type appServer struct {
	t      *testing.T
	dsn    string
	base   string
	app    *fiber.App
	broker *live.MemoryBroker
	store  *models.Store
	once   sync.Once
}

// serveApp runs the app on a store opened from dsn, listening on addr
// ("127.0.0.1:0" for a free port). Join links keep the loopback address,
// so nothing in a test points at another machine.
func serveApp(t *testing.T, dsn, addr string) *appServer {
	t.Helper()
	store, err := models.Open(context.Background(), dsn, nil)
	if err != nil {
		t.Fatalf("models.Open: %v", err)
	}
	broker := live.NewMemoryBroker()
	app, err := api.New(api.Config{Store: store, Broker: broker, LANAddr: func() string { return "" }})
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	// A port just given up may take a moment to be free again.
	var ln net.Listener
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if ln, err = net.Listen("tcp", addr); err == nil || time.Now().After(deadline) {
			break
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	s := &appServer{t: t, dsn: dsn, base: "http://" + ln.Addr().String(), app: app, broker: broker, store: store}
	t.Cleanup(s.stop)
	return s
}

// restart stops the server, if it is not stopped yet, and starts it
// again on the same database and address, as a restarted process would.
func (s *appServer) restart() *appServer {
	s.stop()
	return serveApp(s.t, s.dsn, strings.TrimPrefix(s.base, "http://"))
}

// stop shuts the server down as main does: the broker first, so open event
// streams end and the shutdown does not wait for them.
func (s *appServer) stop() {
	s.once.Do(func() {
		s.broker.Close()
		if err := s.app.ShutdownWithTimeout(5 * time.Second); err != nil {
			s.t.Errorf("shutdown: %v", err)
		}
		_ = s.store.Close()
	})
}

// browser is one headless Chromium tab at a phone's size, and the console
// errors the page raised.
type browser struct {
	t    *testing.T
	ctx  context.Context
	base string

	mu     sync.Mutex
	errors []string
}

// newBrowser starts Chromium with a fresh profile and a 390×844 viewport.
func newBrowser(t *testing.T, base string) *browser {
	t.Helper()
	return newTab(t, newChromium(t), base, false)
}

// newChromium starts a headless Chromium with a fresh profile and returns
// the context of its first tab, for newTab to open phones in.
func newChromium(t *testing.T, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// Two phones are two tabs of one browser: neither may be slowed
		// down for being in the background.
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(390, 844),
	}
	opts = append(opts, extra...)
	root, cancelTimeout := context.WithTimeout(context.Background(), browserTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		cancelTimeout()
	})
	// Start the browser now: isolated tabs can only be opened in a running one.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting Chromium: %v", err)
	}
	return ctx
}

// newTab opens a tab at a phone's size in the browser of chrome. With
// isolated, the tab gets a browser context of its own: its own storage and
// cookies, as a second phone would have. The first tab of a browser must
// not be isolated, since the browser starts with it.
func newTab(t *testing.T, chrome context.Context, base string, isolated bool) *browser {
	t.Helper()
	ctx := chrome
	if isolated {
		var cancel context.CancelFunc
		ctx, cancel = chromedp.NewContext(chrome, chromedp.WithNewBrowserContext())
		t.Cleanup(cancel)
	}
	b := &browser{t: t, ctx: ctx, base: base}
	// Subscribe before the first page loads, so no message is lost.
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			b.noteConsole(m)
		}
	}()
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	return b
}

// noteConsole keeps the messages that mean the page is broken: exceptions,
// console.error and CSP violations. A failed request is not one of them:
// the live totals answer 422 while a card is half entered, by design.
func (b *browser) noteConsole(m chromedp.ConsoleMessage) {
	if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException {
		return
	}
	if m.Source == "network" {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors = append(b.errors, m.String())
}

// checkConsole fails the test for any error the page logged.
func (b *browser) checkConsole() {
	b.t.Helper()
	time.Sleep(100 * time.Millisecond) // let the last events arrive
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.errors {
		b.t.Errorf("browser console: %s", e)
	}
}

// stepTimeout bounds one call of do, so a step that cannot succeed fails
// fast and says which one it was.
const stepTimeout = 15 * time.Second

// sendKeys focuses the first element sel matches and types keys into it,
// as chromedp.SendKeys does, without SendKeys' read of the node's
// attributes, which races with the DOM events that change them (seen by
// the race detector in chromedp v0.23.0 while a field's aria-invalid went).
func sendKeys[S chromedp.Selectable](sel S, keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		if _, err := chromedp.Focus(sel)(ctx, t); err != nil {
			return err
		}
		_, err := chromedp.KeyEvent(keys)(ctx, t)
		return err
	})
}

// do runs actions and stops the test at the first failure.
func (b *browser) do(steps ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, stepTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		b.screenshot("failure-" + b.t.Name())
		b.t.Fatalf("browser: %v", err)
	}
}

// text returns the text of the first element matching a CSS selector.
func (b *browser) text(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Text(chromedp.CSS(css)))
	if err != nil {
		b.t.Fatalf("reading %s: %v", css, err)
	}
	return strings.TrimSpace(s)
}

// waitText waits until an element's text is want, or fails with what it read.
func (b *browser) waitText(css, want string) {
	b.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	got := ""
	for time.Now().Before(deadline) {
		if got = b.text(css); got == want {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.t.Fatalf("%s reads %q, want %q", css, got, want)
}

// screenshot saves the viewport as name.png in $INSECTSCORE_SCREENSHOTS.
func (b *browser) screenshot(name string) {
	b.t.Helper()
	dir := os.Getenv("INSECTSCORE_SCREENSHOTS")
	if dir == "" {
		return
	}
	time.Sleep(300 * time.Millisecond) // let a sheet finish sliding in
	buf, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// css quotes a JSON Pointer for an attribute selector.
func pointer(p string) string {
	return `[data-pointer="` + p + `"]`
}

// card is one specimen card of a test board.
type card struct {
	color, insect string
	points        int
	tools         []string
}

// enterCard taps a cell and fills the card sheet: colour and insect in
// one tap, the tools, then the points, which add the card (the sheet moves
// on to the next empty cell); then it closes the sheet.
func (b *browser) enterCard(player, row, col int, c card) {
	b.t.Helper()
	cell := fmt.Sprintf("/players/%d/board/grid/%d/%d", player, row, col)
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.Click(chromedp.CSS(`button` + pointer(cell))),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] .matrix`)),
		chromedp.Click(chromedp.CSS(`dialog .matrix label[data-color="` + c.color + `"][data-insect="` + c.insect + `"]`)),
	}
	for _, tool := range c.tools {
		steps = append(steps, chromedp.Click(chromedp.CSS(`dialog .tool-checks label[data-value="`+tool+`"]`)))
	}
	b.do(steps...)
	if row == 2 && col == 2 {
		b.screenshot("insectarium-card-editor")
	}
	b.do(chromedp.Click(chromedp.CSS(`dialog .keypad button[data-value="` + strconv.Itoa(c.points) + `"]`)))
	b.closeSheetIfOpen()
}

// closeSheet taps Done in the open editor and waits for it to go.
func (b *browser) closeSheet() {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(`dialog .sheet-done`)), chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
}

// closeSheetIfOpen closes the editor when it is still open: an entry that
// moved on to the next cell, or closed it after the last one.
func (b *browser) closeSheetIfOpen() {
	b.t.Helper()
	if open, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector('dialog.sheet[open]')`)); err == nil && open {
		b.closeSheet()
	}
}

// rename replaces a player's name as a person would: select all, type.
func (b *browser) rename(player int, name string) {
	b.t.Helper()
	in := chromedp.CSS(pointer(fmt.Sprintf("/players/%d/name", player)) + ` input`)
	b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tab-%d`, player))), chromedp.Click(in), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), sendKeys(in, name))
}

// choose picks an option of a field: in a select by typing its label, as
// a person with a keyboard would, or by tapping its button or chip.
func (b *browser) choose(fieldCSS, id, label string) {
	b.t.Helper()
	hasSelect, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!document.querySelector(`+js(fieldCSS+` select`)+`)`))
	if err != nil {
		b.t.Fatal(err)
	}
	if !hasSelect {
		b.do(chromedp.Click(chromedp.CSS(fieldCSS + ` :is(button, label)[data-value="` + id + `"]`)))
		return
	}
	sel := chromedp.CSS(fieldCSS + ` select`)
	b.do(sendKeys(sel, label))
	if got, err := chromedp.Run(b.ctx, chromedp.Value(sel)); err != nil || got != id {
		b.t.Fatalf("%s is %q (%v) after typing %q, want %q", fieldCSS, got, err, label, id)
	}
}

// tap clicks the segment with a value in a segmented field.
func (b *browser) tap(fieldCSS, value string) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(fieldCSS + ` label[data-value="` + value + `"]`)))
}

// typeNumber replaces the number in a stepper by typing it.
func (b *browser) typeNumber(fieldCSS string, n int) {
	b.t.Helper()
	b.do(sendKeys(chromedp.CSS(fieldCSS+` input`), strconv.Itoa(n)))
}

// chooseToken taps a token circle and the token in the sheet that opens
// (which moves on to the next empty circle), then closes the sheet.
func (b *browser) chooseToken(ptr, id, label string) {
	b.t.Helper()
	btn := `button.token` + pointer(ptr)
	b.do(chromedp.Click(chromedp.CSS(btn)), chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] .token-pick`)),
		chromedp.Click(chromedp.CSS(`dialog .token-pick button[data-value="`+id+`"]`)))
	b.closeSheetIfOpen()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector(`+js(btn)+`)?.dataset.value ?? ''`))
	if err != nil {
		b.t.Fatal(err)
	}
	if got != id {
		b.t.Fatalf("token %s is %q after choosing %s, want %q", ptr, got, label, id)
	}
}

// step clicks the + of a number stepper n times.
func (b *browser) step(ptr string, n int) {
	b.t.Helper()
	for range n {
		b.do(chromedp.Click(chromedp.CSS(pointer(ptr) + ` button[aria-label$="one more"]`)))
	}
}

// TestBrowserInsectariumRulebookExample enters the end-of-game example of
// the Insectarium rulebook ("Example - End of Game Scoring") as a solo game
// and reads the result: columns green 4, black 4, yellow 5; rows moth 2,
// butterfly 8, beetle 5; two unused tokens; one Display Tool bonus taken as
// 5 points and one as a token. 5 + 28 + 1 = 34, "decent" on the solo chart.
// enterInsectariumExample enters the rulebook's end-of-game example as
// player 1's board: 34 points, "Decent" solo.
func enterInsectariumExample(b *browser) {
	b.t.Helper()
	// Row tokens moth, butterfly, beetle; column tokens green, black, yellow.
	// Each card scores where its insect matches its row or its colour its
	// column; every tool appears twice, so two bonuses are covered.
	board := [3][3]card{
		{{"green", "beetle", 2, []string{"pin"}}, {"red", "moth", 2, []string{"label"}}, {"yellow", "cricket", 3, []string{"mat"}}},
		{{"white", "butterfly", 4, nil}, {"red", "butterfly", 4, nil}, {"yellow", "bee", 2, []string{"pin"}}},
		{{"green", "bee", 2, []string{"label"}}, {"black", "beetle", 4, nil}, {"red", "beetle", 1, []string{"mat"}}},
	}
	for r, row := range board {
		for c, k := range row {
			b.enterCard(0, r, c, k)
		}
	}
	b.chooseToken("/players/0/board/rowTokens/0", "moth", "Moth")
	b.chooseToken("/players/0/board/rowTokens/1", "butterfly", "Butterfly")
	b.chooseToken("/players/0/board/rowTokens/2", "beetle", "Beetle")
	b.chooseToken("/players/0/board/colTokens/0", "green", "Green")
	b.chooseToken("/players/0/board/colTokens/1", "black", "Black")
	b.chooseToken("/players/0/board/colTokens/2", "yellow", "Yellow")
	b.step("/players/0/board/supply", 2)
	b.step("/players/0/board/toolBonusesForPoints", 1)
	b.step("/players/0/board/toolBonusesForTokens", 1)
}

func TestBrowserInsectariumRulebookExample(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)

	b.do(
		chromedp.Navigate(base+"/"),
		chromedp.WaitVisible(chromedp.CSS(`a.game-btn[href="/score/insectarium"]`)),
	)
	b.screenshot("home")
	b.do(chromedp.Click(chromedp.CSS(`a.game-btn[href="/score/insectarium"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))

	enterInsectariumExample(b)

	b.waitText(`[data-testid=live-total]`, "34")
	b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
	b.screenshot("insectarium-form-bottom")
	b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.screenshot("insectarium-form")

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	b.screenshot("insectarium-results")
	if got := b.text(`[data-testid=total-0]`); got != "34" {
		t.Errorf("results total = %q, want 34", got)
	}
	if got := b.text(`[data-testid=solo-rating]`); !strings.Contains(strings.ToLower(got), "decent") {
		t.Errorf("solo rating reads %q, want it to say decent", got)
	}
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('.breakdown tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent.trim()).join('='))`))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Rows=15", "Columns=13", "Unused tokens=1", "Display Tool bonuses=5", "Total=34"} {
		if !slices.Contains(rows, want) {
			t.Errorf("breakdown rows %q lack %q", rows, want)
		}
	}

	// A reload keeps every entry: the results are scored again from storage.
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if got := b.text(`[data-testid=total-0]`); got != "34" {
		t.Errorf("after a reload the total is %q, want 34", got)
	}
	// The service worker keeps the app shell, this build's assets, in a
	// cache named for the build; /api/ is never cached.
	cached, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`navigator.serviceWorker.ready
		.then(() => caches.keys())
		.then((keys) => Promise.all(keys.map((k) => caches.open(k).then((c) => c.keys()).then((rs) => rs.map((r) => k + ' ' + new URL(r.url).pathname)))))
		.then((lists) => lists.flat())`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("reading the service worker's cache: %v", err)
	}
	shell := regexp.MustCompile(`^insectscore-[0-9a-f]+ /assets/[0-9a-f]+/app\.js$`)
	if !slices.ContainsFunc(cached, shell.MatchString) || !slices.ContainsFunc(cached, func(s string) bool { return strings.HasSuffix(s, " /") }) {
		t.Errorf("the service worker cached %q; want / and this build's /assets/<version>/app.js in insectscore-<version>", cached)
	}
	if slices.ContainsFunc(cached, func(s string) bool { return strings.Contains(s, "/api/") }) {
		t.Errorf("the service worker cached an API answer: %q", cached)
	}

	if os.Getenv("INSECTSCORE_SCREENSHOTS") != "" {
		b.dark()
		b.screenshot("dark-insectarium-results")
		b.do(chromedp.Click(chromedp.CSS(`a.back`)), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
		b.screenshot("dark-insectarium-form")
		b.do(chromedp.Click(chromedp.CSS(`button`+pointer("/players/0/board/grid/1/1"))), chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open]`)))
		b.screenshot("dark-insectarium-card-editor")
		b.closeSheet()
	}
	b.checkConsole()
}

// dark switches the page to the dark colour scheme.
func (b *browser) dark() {
	b.t.Helper()
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}},
		})
		return err
	}))
}

// tile is one Insecta tile: an insect (continent, order, size, wreath) or
// a mail (institution, points).
type tile struct {
	row, col                       int
	continent, order, size, wreath string
	institution                    string
	points                         int
}

// enterTile taps an empty space of a collection and fills the tile sheet:
// a mail tile in one tap (then, for its institution and points, back to
// it); an insect's order, size and wreath, then its continent, which adds
// it. Both move the sheet on to the next space; then it closes the sheet.
func (b *browser) enterTile(player int, tl tile) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#panel-%d button.tile[data-row="%d"][data-col="%d"]`, player, tl.row, tl.col))),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] .ic-editor`)))
	if tl.institution != "" || tl.points != 0 {
		b.do(chromedp.Click(chromedp.CSS(`dialog .pick-mail`)))
		if tl.institution != "" || tl.points != 0 {
			b.do(chromedp.Click(chromedp.CSS(`dialog .sheet-actions button[aria-label^="Back"]`)),
				chromedp.WaitVisible(chromedp.CSS(`dialog .kind-switch`)))
		}
		if tl.institution != "" {
			b.tap(`dialog .stack`, tl.institution)
		}
		if tl.points != 0 {
			b.typeNumber(`dialog .field-stepper`, tl.points)
		}
	} else {
		for _, pick := range [][2]string{{"order", tl.order}, {"size", tl.size}, {"wreath", tl.wreath}} {
			if pick[1] != "" {
				b.tap(`dialog .`+pick[0]+`-pick`, pick[1])
			}
		}
		if player == 0 && tl.row == 0 && tl.col == 2 {
			b.screenshot("insecta-tile-editor")
		}
		b.do(chromedp.Click(chromedp.CSS(`dialog .continent-pick button[data-value="` + tl.continent + `"]`)))
	}
	b.closeSheetIfOpen()
}

// TestBrowserInsectaRulebookExample enters the end-of-game example of the
// Insecta rulebook ("End of the game"): Laura, 24 on the track, two of her
// researcher's favourites, no European insect and two journal fragments, makes
// 32; George, 15 on the track, one favourite, insects from all five continents
// and three fragments, makes 31. Laura's 12th tile ended the game; she wins.
// insectaMail is a mail tile of the rulebook example.
func insectaMail(r, c int) tile {
	return tile{row: r, col: c, institution: "entomological-society", points: 2}
}

// enterLaura enters Laura's collection of the Insecta rulebook example as
// player 1: 32 points.
func enterLaura(b *browser) {
	b.t.Helper()
	mail := insectaMail
	// Insects on a checkerboard with mail between them: each insect touches
	// a mail tile orthogonally, so the layout is legal.
	laura := []tile{
		{row: 0, col: 0, continent: "africa", order: "coleoptera", size: "large", wreath: "mary-kingsley"}, mail(0, 1),
		{row: 0, col: 2, continent: "america", order: "lepidoptera", size: "small"}, mail(0, 3),
		{row: 0, col: 4, continent: "asia", order: "hemiptera", size: "medium"}, mail(0, 5),
		mail(1, 0), {row: 1, col: 1, continent: "oceania", order: "orthoptera", size: "small"},
		mail(1, 2), {row: 1, col: 3, continent: "africa", order: "hymenoptera", size: "medium", wreath: "mary-kingsley"},
		mail(1, 4), {row: 1, col: 5, continent: "asia", order: "coleoptera", size: "large"},
	}
	b.choose(pointer("/players/0/board/researcher"), "mary-kingsley", "Mary Kingsley")
	b.typeNumber(pointer("/players/0/board/track"), 24)
	b.tap(pointer("/players/0/board/fragments"), "2")
	for _, tl := range laura {
		b.enterTile(0, tl)
	}
}

// enterGeorge enters George's collection as player 2 (his tab open): 31 points.
func enterGeorge(b *browser) {
	b.t.Helper()
	mail := insectaMail
	george := []tile{
		{row: 0, col: 0, continent: "africa", order: "coleoptera", size: "small"}, mail(0, 1),
		{row: 0, col: 2, continent: "america", order: "hemiptera", size: "large", wreath: "maria-sibylla-merian"}, mail(0, 3),
		{row: 0, col: 4, continent: "asia", order: "lepidoptera", size: "medium"},
		mail(1, 0), {row: 1, col: 1, continent: "europe", order: "orthoptera", size: "small"},
		mail(1, 2), {row: 1, col: 3, continent: "oceania", order: "hymenoptera", size: "large"}, mail(1, 4),
	}
	b.choose(pointer("/players/1/board/researcher"), "maria-sibylla-merian", "Maria Sibylla Merian")
	b.typeNumber(pointer("/players/1/board/track"), 15)
	b.tap(pointer("/players/1/board/fragments"), "3")
	for _, tl := range george {
		b.enterTile(1, tl)
	}
}

func TestBrowserInsectaRulebookExample(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insecta"),
		chromedp.WaitVisible(chromedp.CSS(`#panel-0 button.tile[data-row="0"][data-col="0"]`)))
	b.rename(1, "George")
	b.rename(0, "Laura")
	if os.Getenv("INSECTSCORE_SCREENSHOTS") != "" {
		b.do(chromedp.Click(chromedp.CSS(`.variants summary`)))
		b.screenshot("insecta-house-rules")
		b.do(chromedp.Click(chromedp.CSS(`.variants summary`)))
	}

	enterLaura(b)
	b.waitText(`#tab-0 .tab-total`, "32")
	b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.screenshot("insecta-form")

	// A medal above what the collection supports is only a warning: it is
	// shown softly at the level, and the total stands.
	b.do(chromedp.Click(chromedp.CSS(`#panel-0 .add-medal`)))
	b.choose(pointer("/players/0/board/medals/0/medal"), "continent:africa", "Africa")
	b.typeNumber(pointer("/players/0/board/medals/0/level"), 3)
	warnCSS := pointer("/players/0/board/medals/0/level") + ` .msg-warning`
	b.do(chromedp.WaitVisible(chromedp.CSS(warnCSS)))
	if got := b.text(warnCSS); !strings.Contains(got, "the collection has 2") {
		t.Errorf("the medal level says %q, want the server's warning about 2 African insects", got)
	}
	b.waitText(`#tab-0 .tab-total`, "32")
	b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.body.scrollHeight)`))
	b.screenshot("insecta-form-bottom")

	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	enterGeorge(b)
	b.waitText(`#tab-1 .tab-total`, "31")

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	b.screenshot("insecta-results")
	if got := b.text(`[data-testid=total-0]`); got != "32" {
		t.Errorf("Laura's total = %q, want 32", got)
	}
	if got := b.text(`[data-testid=total-1]`); got != "31" {
		t.Errorf("George's total = %q, want 31", got)
	}
	if got := b.text(`.standing.winner .who-name`); got != "Laura" {
		t.Errorf("the winner shown is %q, want Laura", got)
	}
	if got := b.text(`.warnings`); !strings.Contains(got, "Laura") || !strings.Contains(got, "Africa") {
		t.Errorf("the results' warnings read %q, want Laura's medal warning", got)
	}
	b.checkConsole()
}

// TestBrowserInsektenhotelErrorsAtFields enters two hotels and checks that a
// rule the server enforces across boards (one hotel of each colour) is shown
// at the field it is about, on the second player's tab, and goes away once
// fixed; then the full hotel wins.
func TestBrowserInsektenhotelErrorsAtFields(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insektenhotel"),
		chromedp.WaitVisible(chromedp.CSS(pointer("/players/0/board/hotel"))))
	b.rename(1, "Ben")
	b.rename(0, "Ana")

	floors := func(player int, species []string, labels []string, guests []string) {
		for i := range species {
			f := fmt.Sprintf("/players/%d/board/floors/%d", player, i)
			b.choose(pointer(f+"/species"), species[i], labels[i])
			b.tap(pointer(f+"/guests"), guests[i])
		}
	}
	b.tap(pointer("/players/0/board/hotel"), "blue")
	floors(0, []string{"bee", "ant", "fly"}, []string{"Bee", "Ant", "Fly"}, []string{"2", "2", "2"})
	b.waitText(`#tab-0 .tab-total`, "6")

	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	b.tap(pointer("/players/1/board/hotel"), "blue")
	errCSS := pointer("/players/1/board/hotel") + ` .msg-error`
	b.do(chromedp.WaitVisible(chromedp.CSS(errCSS)))
	// The player who has it is named (issue 25, item 10): "player 1's" at
	// the player at /players/1 read as that same player.
	if got := b.text(errCSS); !strings.Contains(got, "blue hotel is already Ana's") {
		t.Errorf("the hotel field says %q, want the server's message naming Ana as the blue hotel's player", got)
	}
	if cls, err := chromedp.Run(b.ctx, chromedp.AttributeValue(chromedp.CSS(`#tab-1`), "class")); err != nil || !strings.Contains(cls.Value, "has-error") {
		t.Errorf("Ben's tab has class %q (%v), want has-error", cls.Value, err)
	}
	floors(1, []string{"ladybird", "butterfly"}, []string{"Ladybird", "Butterfly"}, []string{"1", "2"})
	b.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	b.screenshot("insektenhotel-form-error")

	b.tap(pointer("/players/1/board/hotel"), "green")
	b.do(chromedp.WaitNotPresent(chromedp.CSS(errCSS)))
	b.waitText(`#tab-1 .tab-total`, "3")
	b.screenshot("insektenhotel-form")

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	b.screenshot("insektenhotel-results")
	if got := b.text(`.standing.winner .who-name`); got != "Ana" {
		t.Errorf("the winner shown is %q, want Ana", got)
	}
	if got := b.text(`[data-testid=total-1]`); got != "3" {
		t.Errorf("Ben's guests = %q, want 3", got)
	}
	b.checkConsole()
}

// TestBrowserPlayersAndNewGame adds and removes a player, and starts a new
// game, which clears the boards and keeps the players.
func TestBrowserPlayersAndNewGame(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insectarium"),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	b.enterCard(0, 0, 0, card{"green", "beetle", 3, nil})
	b.chooseToken("/players/0/board/colTokens/0", "green", "Green")
	b.waitText(`#tab-0 .tab-total`, "3")

	b.do(chromedp.Click(chromedp.CSS(`.add-player`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	b.rename(1, "Bea")
	b.waitText(`#tab-1 .tab-name`, "Bea")
	b.do(chromedp.Click(chromedp.CSS(`#panel-1 .remove-player`)),
		chromedp.Click(chromedp.CSS(`dialog .btn-danger`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#tab-1`)))

	b.do(chromedp.Click(chromedp.CSS(`.topbar .btn`)),
		chromedp.Click(chromedp.CSS(`dialog .btn-danger`)),
		chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)),
		chromedp.WaitVisible(chromedp.CSS(`button.card.empty`+pointer("/players/0/board/grid/0/0"))))
	b.waitText(`#tab-0 .tab-total`, "0")
	if got := b.text(`#tab-0 .tab-name`); got != "Player 1" {
		t.Errorf("after a new game the player is %q, want Player 1 kept", got)
	}
	b.checkConsole()
}

// js quotes a string for a JavaScript expression.
func js(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// textNow returns the text of the first element matching css, or "" when
// there is none. Unlike text it never waits for the element.
func (b *browser) textNow(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(document.querySelector(`+js(css)+`)?.textContent ?? '').trim()`))
	if err != nil {
		b.t.Fatalf("reading %s: %v", css, err)
	}
	return s
}

// liveWait is how long a change may take to reach another phone.
const liveWait = 10 * time.Second

// waitFor evaluates a JavaScript condition until it holds, polling from
// here (a page's own timers may be throttled) and never reloading.
func (b *browser) waitFor(what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(liveWait)
	for {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!!(`+cond+`)`))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			b.screenshot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
			b.t.Fatalf("waited %s for %s: `%s` is not true (%v)", liveWait, what, cond, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitTextNow waits until an element's text is want, without waiting for
// the element itself to appear first.
func (b *browser) waitTextNow(css, want string) {
	b.t.Helper()
	deadline := time.Now().Add(liveWait)
	got := ""
	for time.Now().Before(deadline) {
		if got = b.textNow(css); got == want {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
	b.t.Fatalf("%s reads %q after %s, want %q", css, got, liveWait, want)
}

// stored returns what this browser keeps for a table in localStorage.
func (b *browser) stored(code string) map[string]any {
	b.t.Helper()
	raw, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`localStorage.getItem(`+js("insectscore.table."+code)+`) ?? ''`))
	if err != nil {
		b.t.Fatal(err)
	}
	var m map[string]any
	if raw != "" {
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			b.t.Fatalf("stored table %s: %v", raw, err)
		}
	}
	return m
}

// startTable creates a table through the UI, from the home screen, and
// returns its code once the host screen shows it.
func (b *browser) startTable(game string, names ...string) string {
	b.t.Helper()
	b.do(chromedp.Navigate(b.base+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=start-table]`)))
	b.screenshot("home-with-tables")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=start-table]`)),
		chromedp.WaitVisible(chromedp.CSS(pointer("/game")+` label[data-value="`+game+`"]`)))
	b.tap(pointer("/game"), game)
	for i, name := range names {
		in := chromedp.CSS(pointer(fmt.Sprintf("/players/%d", i)) + ` input`)
		if i >= 2 {
			b.do(chromedp.Click(chromedp.CSS(`.add-name`)))
		}
		b.do(sendKeys(in, name))
	}
	b.screenshot("table-new-" + game)
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=create-table]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=join-code]`)))
	return b.textNow(`[data-testid=join-code]`)
}

// putBoard saves a seat's board through the API, as another phone would.
func putBoard(t *testing.T, base, code string, seat int, token, board string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, fmt.Sprintf("%s/api/v1/tables/%s/seats/%d/board", base, code, seat), strings.NewReader(board))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("PUT board of seat %d: %v", seat, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("PUT board of seat %d: %s %s", seat, res.Status, body)
	}
}

// seatBoard reads a seat's board from the server.
func seatBoard(t *testing.T, base, code string, seat int) map[string]any {
	t.Helper()
	res, err := http.Get(base + "/api/v1/tables/" + code)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var table struct {
		Seats []struct {
			Board map[string]any `json:"board"`
		} `json:"seats"`
	}
	if err := json.NewDecoder(res.Body).Decode(&table); err != nil || seat >= len(table.Seats) {
		t.Fatalf("reading table %s: %v (%d seats)", code, err, len(table.Seats))
	}
	return table.Seats[seat].Board
}

// fullDisplay is an Insectarium board with all nine cards, green bees of 1
// point each; colToken0 is the token under the first column ("" for none).
func fullDisplay(colToken0 string) string {
	card := `{"color":"green","insect":"bee","points":1,"tools":[]}`
	row := "[" + card + "," + card + "," + card + "]"
	tok := "null"
	if colToken0 != "" {
		tok = js(colToken0)
	}
	return `{"grid":[` + row + "," + row + "," + row + `],"rowTokens":[null,null,null],"colTokens":[` + tok + `,null,null],` +
		`"supply":0,"toolBonusesForPoints":0,"toolBonusesForTokens":0}`
}

// codeAlphabet is a table code: six characters without look-alikes.
var codeAlphabet = regexp.MustCompile(`^[A-HJKMNP-Z2-9]{6}$`)

// TestBrowserTableTwoPhones plays a live table on two phones, each a
// browser context of its own (separate storage): the host starts an
// Insectarium table for Ana and Ben and shows the QR code; Ben opens the
// join link, claims his seat and enters a card; the host's screen shows
// Ben's total without a reload. Then the host edits Ben's board (the change
// reaches Ben's phone with a notice), finishing is refused while the game
// is not over, and once every display is full the table finishes and both
// phones show the results.
func TestBrowserTableTwoPhones(t *testing.T) {
	base := startApp(t)
	host, phone := twoPhones(t, base)

	code := host.startTable("insectarium", "Ana", "Ben")
	if !codeAlphabet.MatchString(code) {
		t.Fatalf("the host screen shows the code %q, want six characters without look-alikes", code)
	}
	joinURL, err := chromedp.Run(host.ctx, chromedp.Value(chromedp.CSS(`[data-testid=join-url]`)))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(joinURL)
	if err != nil || u.Path != "/t/"+code {
		t.Fatalf("the join link is %q (%v), want one ending in /t/%s", joinURL, err, code)
	}
	src, err := chromedp.Run(host.ctx, chromedp.AttributeValue(chromedp.CSS(`[data-testid=qr]`), "src"))
	if err != nil || src.Value != "/api/v1/tables/"+code+"/qr.svg" {
		t.Errorf("the QR image's src is %q (%v), want /api/v1/tables/%s/qr.svg", src.Value, err, code)
	}
	host.waitFor("the QR code to load", `(() => { const i = document.querySelector('[data-testid=qr]'); return i && i.complete && i.naturalWidth > 0; })()`)
	if got := host.stored(code); got["hostToken"] == nil || got["seatToken"] != nil {
		t.Errorf("the host keeps %v for the table, want its host token only", got)
	}
	// A reload would forget this mark: the live updates must not need one.
	host.do(chromedp.Evaluate[chromedp.Void](`window.sameHostPage = true`))
	host.screenshot("table-host")
	// A tap shows the code full width, for a player across the table.
	host.do(chromedp.Click(chromedp.CSS(`.qr-btn`)), chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] img.qr-big`)))
	host.screenshot("table-host-qr")
	host.closeSheet()

	// Ben opens the join link on his own phone, as the QR code would.
	claimBen := `button.claim-btn[data-seat="1"]`
	phone.do(chromedp.Navigate(base+u.Path), chromedp.WaitVisible(chromedp.CSS(claimBen)))
	if got := phone.textNow(claimBen); got != "I'm Ben" {
		t.Errorf("the seat button reads %q, want I'm Ben", got)
	}
	if got := phone.stored(code); got != nil {
		t.Errorf("the phone shares the host's storage: it has %v", got)
	}
	phone.screenshot("table-join")
	phone.do(tapInPage(claimBen),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/1/board/grid/0/0"))))
	if got := phone.stored(code); got["seatToken"] == nil || got["seat"] != 1.0 || got["hostToken"] != nil {
		t.Errorf("the phone keeps %v for the table, want seat 1 and its token", got)
	}
	host.waitTextNow(`[data-testid=claim-1]`, "on own phone")
	// Ana's seat is the host's to fill in: present, on the host's phone.
	if got := host.textNow(`[data-testid=claim-0]`); got != "on host's phone" {
		t.Errorf("Ana's seat reads %q on the host screen, want on host's phone", got)
	}

	// Ben's card scores 3 under the green column token.
	phone.enterCard(1, 0, 0, card{"green", "beetle", 3, []string{"pin"}})
	phone.chooseToken("/players/1/board/colTokens/0", "green", "Green")
	phone.waitTextNow(`[data-testid=standing-1]`, "3")
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	phone.screenshot("table-player-board")

	host.waitTextNow(`[data-testid=seat-total-1]`, "3")
	if same, err := chromedp.Run(host.ctx, chromedp.Evaluate[bool](`window.sameHostPage === true`)); err != nil || !same {
		t.Errorf("the host page was reloaded (%v); the total must arrive live", err)
	}
	if got := host.textNow(`[data-testid=seat-total-0]`); got != "0" {
		t.Errorf("Ana's total on the host screen is %q, want 0", got)
	}
	host.screenshot("table-host-live")

	// A reload keeps each phone where it was: its seat, the host screen.
	phone.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`button.filled`+pointer("/players/1/board/grid/0/0"))))
	host.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`[data-testid=join-code]`)))
	host.waitTextNow(`[data-testid=seat-total-1]`, "3")

	// The host fills in Ben's board too, as with one phone passed around:
	// Ben's phone follows and says so.
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=edit-1]`)),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/1/board/grid/1/0"))))
	host.enterCard(1, 1, 0, card{"green", "moth", 2, nil})
	host.waitTextNow(`[data-testid=standing-1]`, "5")
	phone.waitTextNow(`[data-testid=standing-1]`, "5")
	phone.waitFor("Ben's phone to show the host's card", `document.querySelector('button.filled[data-pointer="/players/1/board/grid/1/0"]')`)
	if got := phone.textNow(`[data-testid=notice]`); !strings.Contains(got, "host changed your board") {
		t.Errorf("Ben's phone says %q, want a notice that the host changed his board", got)
	}
	phone.screenshot("table-player-notice")

	// Ana's board changes on another phone while Ben types: the table moved
	// on, but his own board did not, so his change still lands.
	hostToken, _ := host.stored(code)["hostToken"].(string)
	supply := "/players/1/board/supply"
	phone.step(supply, 1)
	putBoard(t, base, code, 0, hostToken, `{"supply":2}`)
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	if got := seatBoard(t, base, code, 1)["supply"]; got != 1.0 {
		t.Errorf("after Ana's change Ben's supply on the server is %v, want his 1", got)
	}
	if visible, _ := chromedp.Run(phone.ctx, chromedp.Evaluate[bool](`!document.querySelector('[data-testid=notice]').hidden`)); visible {
		t.Errorf("Ben's phone shows a notice although only Ana's board changed: %q", phone.textNow(`[data-testid=notice]`))
	}
	// The host changes Ben's board while Ben's phone is offline and Ben
	// types: back online, his save meets a stale version, and his phone
	// reads the table and applies his own edit on top (a seat only ever
	// writes its own board), so nothing he typed is lost.
	phone.setOffline(true)
	phone.step(supply, 1)
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	putBoard(t, base, code, 1, hostToken, fullDisplay("green"))
	phone.setOffline(false)
	waitFor(t, "Ben's edit to reach the server over the host's", func() bool { return seatBoard(t, base, code, 1)["supply"] == 2.0 })
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	if got, err := chromedp.Run(phone.ctx, chromedp.Value(chromedp.CSS(pointer(supply)+` input`))); err != nil || got != "2" {
		t.Errorf("Ben's supply shows %q (%v) after the conflict, want his 2", got, err)
	}
	// His two cards (5) and 2 unused tokens (1): his board, not the host's.
	phone.waitTextNow(`[data-testid=standing-1]`, "6")
	phone.screenshot("table-player-conflict")

	// Finishing needs the end of the game: the host is told why not.
	host.do(chromedp.Click(chromedp.CSS(`a.back`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=finish]`)))
	host.finishGame()
	host.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=finish-problem]`)))
	if got := host.textNow(`[data-testid=finish-problem]`); !strings.Contains(got, "not over yet") {
		t.Errorf("refusing to finish, the host screen says %q, want the server's reason", got)
	}
	host.screenshot("table-host-finish-refused")

	// Every display full (entered on other phones): the table finishes, and
	// both phones show the results.
	putBoard(t, base, code, 0, hostToken, fullDisplay(""))
	putBoard(t, base, code, 1, hostToken, fullDisplay("green"))
	host.waitTextNow(`[data-testid=seat-total-1]`, "3")
	host.finishGame()
	host.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-1]`)))
	host.screenshot("table-results")
	if got := host.textNow(`.standing.winner .who-name`); got != "Ben" {
		t.Errorf("the winner shown is %q, want Ben", got)
	}
	phone.waitTextNow(`[data-testid=total-1]`, "3")
	if got := phone.textNow(`h1`); got != "Results" {
		t.Errorf("Ben's phone shows %q after the finish, want the results", got)
	}
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserTableReconnect drops the live connection by restarting the
// server (same port, same SQLite file): the host screen shows that it is
// reconnecting, recovers by itself, and the standings follow again.
func TestBrowserTableReconnect(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "tables.db")
	srv := serveApp(t, dsn, "127.0.0.1:0")
	b := newBrowser(t, srv.base)

	code := b.startTable("insectarium", "Ana", "Ben")
	token, _ := b.stored(code)["hostToken"].(string)
	banner := `[data-testid=reconnecting]`
	if b.textNow(banner) == "" {
		t.Fatalf("the host screen has no reconnecting banner")
	}
	shown := `!document.querySelector('[data-testid=reconnecting]').hidden`
	if up, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](shown)); err != nil || up {
		t.Fatalf("the reconnecting banner shows on a live table (%v)", err)
	}
	putBoard(t, srv.base, code, 1, token, fullDisplay("green"))
	b.waitTextNow(`[data-testid=seat-total-1]`, "3")

	srv.stop()
	b.waitFor("the reconnecting banner", shown)
	b.screenshot("table-host-reconnecting")
	if got := b.textNow(banner); !strings.Contains(got, "Reconnecting") {
		t.Errorf("the banner reads %q, want it to say Reconnecting", got)
	}

	srv = srv.restart()
	b.waitFor("the banner to go once the server is back", `!(`+shown+`)`)
	// The board saved before the restart is still there, and new changes
	// arrive live again.
	b.waitTextNow(`[data-testid=seat-total-1]`, "3")
	putBoard(t, srv.base, code, 0, token, fullDisplay("yellow"))
	putBoard(t, srv.base, code, 1, token, fullDisplay(""))
	b.waitTextNow(`[data-testid=seat-total-1]`, "0")
	b.checkConsole()
}

// TestBrowserTableInsektenhotel plays the first turns of an Insektenhotel
// table: the host sets up both hotels from the host screen, the move panel
// appears, Ana's bee moves in; on his own phone Ben draws bees until the
// deck has none left, which the server refuses in plain words; he passes,
// and the host undoes the pass.
func TestBrowserTableInsektenhotel(t *testing.T) {
	base := startApp(t)
	host, phone := twoPhones(t, base)

	code := host.startTable("insektenhotel", "Ana", "Ben")
	if got := host.textNow(`[data-testid=hotel-setup]`); !strings.Contains(got, "every hotel") {
		t.Errorf("before the set-up the host screen says %q, want a note that the moves start once every hotel is set up", got)
	}
	setUp := func(seat int, hotel string, species, labels [3]string) {
		host.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid=edit-%d]`, seat))),
			chromedp.WaitVisible(chromedp.CSS(pointer(fmt.Sprintf("/players/%d/board/hotel", seat)))))
		if n := host.textNow(pointer(fmt.Sprintf("/players/%d/board/floors/0/guests", seat))); n != "" {
			t.Errorf("the hotel set-up asks for guests (%q): they come from the moves", n)
		}
		host.tap(pointer(fmt.Sprintf("/players/%d/board/hotel", seat)), hotel)
		for i := range species {
			host.choose(pointer(fmt.Sprintf("/players/%d/board/floors/%d/species", seat, i)), species[i], labels[i])
		}
		if seat == 0 {
			host.screenshot("table-hotel-setup")
		}
		host.waitTextNow(`[data-testid=save-state]`, "Saved")
		host.do(chromedp.Click(chromedp.CSS(`a.back`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=join-code]`)))
	}
	setUp(0, "blue", [3]string{"bee", "ant", "fly"}, [3]string{"Bee", "Ant", "Fly"})
	setUp(1, "green", [3]string{"ladybird", "butterfly", "earwig"}, [3]string{"Ladybird", "Butterfly", "Earwig"})

	host.waitTextNow(`[data-testid=turn]`, "Ana's turn")
	host.do(chromedp.Click(chromedp.CSS(`.move-panel button[data-card="bee"]`)))
	host.waitTextNow(`[data-testid=turn]`, "Ben's turn")
	if got := host.textNow(`[data-testid=log] li`); !strings.Contains(got, "Ana drew a bee") {
		t.Errorf("the log's newest line is %q, want Ana's bee", got)
	}
	host.waitTextNow(`[data-testid=guests-0]`, "1/6")
	host.waitTextNow(`[data-testid=seat-total-0]`, "1")

	// Ben joins on his own phone: it is his turn there.
	phone.do(chromedp.Navigate(base+"/t/"+code), chromedp.WaitVisible(chromedp.CSS(`button.claim-btn[data-seat="1"]`)),
		tapInPage(`button.claim-btn[data-seat="1"]`),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=turn]`)))
	phone.waitTextNow(`[data-testid=turn]`, "Your turn")
	// Five bees are left: with no bee floor, each goes face down.
	for range 5 {
		phone.do(chromedp.Click(chromedp.CSS(`.move-panel button[data-card="bee"]:not([disabled])`)))
		phone.waitFor("the draw to be recorded", `!document.querySelector('.move-panel[aria-busy]')`)
	}
	phone.do(chromedp.Click(chromedp.CSS(`.move-panel button[data-card="bee"]:not([disabled])`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=move-error]`)))
	if got := phone.textNow(`[data-testid=move-error]`); !strings.Contains(strings.ToLower(got), "no bee is left in the deck") {
		t.Errorf("drawing a seventh bee, Ben's phone says %q, want the server's reason", got)
	}
	if got := phone.textNow(`.hotel-card[data-seat="1"] .hotel-meta`); !strings.Contains(got, "Face down 5") {
		t.Errorf("Ben's hotel says %q, want 5 cards face down", got)
	}
	phone.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	phone.screenshot("table-hotel-moves")
	phone.do(chromedp.Click(chromedp.CSS(`[data-testid=pass]`)))
	phone.waitFor("the turn to pass", `document.querySelector('[data-testid=turn]')?.textContent === "Ana's turn"`)
	host.waitTextNow(`[data-testid=turn]`, "Ana's turn")
	if got := host.textNow(`[data-testid=log] li`); got != "Ben passed." {
		t.Errorf("the log's newest line on the host screen is %q, want Ben passed.", got)
	}

	// The host takes the pass back: Ben is on turn again, on both phones.
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=undo]`)))
	host.waitTextNow(`[data-testid=turn]`, "Ben's turn")
	phone.waitTextNow(`[data-testid=turn]`, "Your turn")
	host.screenshot("table-hotel-host")
	host.do(chromedp.Evaluate[chromedp.Void](`document.querySelector('.hotels').scrollIntoView()`))
	host.screenshot("table-hotel-hotels")
	host.dark()
	host.screenshot("dark-table-hotel-hotels")
	host.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	host.screenshot("dark-table-host")
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserHotelTableFirstSeat: the host chooses who starts an
// Insektenhotel table ("the last to stay in a hotel", issue 11), and the
// moves start at that seat.
func TestBrowserHotelTableFirstSeat(t *testing.T) {
	base := startApp(t)
	host := newBrowser(t, base)
	host.do(chromedp.Navigate(base+"/tables/new"), chromedp.WaitVisible(chromedp.CSS(pointer("/game")+` label[data-value="insektenhotel"]`)))
	host.tap(pointer("/game"), "insektenhotel")
	host.do(sendKeys(chromedp.CSS(pointer("/players/0")+` input`), "Ana"),
		sendKeys(chromedp.CSS(pointer("/players/1")+` input`), "Ben"),
		chromedp.WaitVisible(chromedp.CSS(pointer("/first")+` label[data-value="1"]`)))
	if got := host.textNow(pointer("/first")); !strings.Contains(got, "Ana") || !strings.Contains(got, "Ben") {
		t.Errorf("the starting player's choices are %q, want Ana and Ben", got)
	}
	host.tap(pointer("/first"), "1")
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=create-table]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=join-code]`)))
	code := host.textNow(`[data-testid=join-code]`)
	hostToken, _ := host.stored(code)["hostToken"].(string)
	putBoard(t, base, code, 0, hostToken, `{"hotel":"blue","floors":[{"species":"bee","guests":0},{"species":"ant","guests":0},{"species":"fly","guests":0}]}`)
	putBoard(t, base, code, 1, hostToken, `{"hotel":"green","floors":[{"species":"ladybird","guests":0},{"species":"butterfly","guests":0},{"species":"earwig","guests":0}]}`)
	host.waitTextNow(`[data-testid=turn]`, "Ben's turn")
	host.do(chromedp.Click(chromedp.CSS(`.move-panel button[data-card="ladybird"]`)))
	host.waitTextNow(`[data-testid=turn]`, "Ana's turn")
	host.checkConsole()
}

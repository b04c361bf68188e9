package pwa_test

import (
	"context"
	"fmt"
	"net"
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

	"insectscore/api"
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
	store, err := models.Open(context.Background(), ":memory:", nil)
	if err != nil {
		t.Fatalf("models.Open: %v", err)
	}
	t.Cleanup(func() { _ = store.Close() })
	app, err := api.New(api.Config{Store: store})
	if err != nil {
		t.Fatalf("api.New: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
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
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(390, 844),
	}
	root, cancelTimeout := context.WithTimeout(context.Background(), browserTimeout)
	alloc, cancelAlloc := chromedp.NewExecAllocator(root, opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() {
		cancelCtx()
		cancelAlloc()
		cancelTimeout()
	})
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

// enterCard taps a cell and fills the card editor.
func (b *browser) enterCard(player, row, col int, c card) {
	b.t.Helper()
	cell := fmt.Sprintf("/players/%d/board/grid/%d/%d", player, row, col)
	steps := []chromedp.Action[chromedp.Void]{
		chromedp.Click(chromedp.CSS(`button` + pointer(cell))),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open]`)),
		chromedp.Click(chromedp.CSS(`dialog ` + pointer(cell+"/color") + ` label[data-value="` + c.color + `"]`)),
		chromedp.Click(chromedp.CSS(`dialog ` + pointer(cell+"/insect") + ` label[data-value="` + c.insect + `"]`)),
		chromedp.SendKeys(chromedp.CSS(`dialog `+pointer(cell+"/points")+` input`), strconv.Itoa(c.points)),
	}
	for _, tool := range c.tools {
		steps = append(steps, chromedp.Click(chromedp.CSS(`dialog `+pointer(cell+"/tools")+` label[data-value="`+tool+`"]`)))
	}
	b.do(steps...)
	if row == 2 && col == 2 {
		b.screenshot("insectarium-card-editor")
	}
	b.closeSheet()
}

// closeSheet taps Done in the open editor and waits for it to go.
func (b *browser) closeSheet() {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(`dialog .sheet-done`)), chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
}

// rename replaces a player's name as a person would: select all, type.
func (b *browser) rename(player int, name string) {
	b.t.Helper()
	in := chromedp.CSS(pointer(fmt.Sprintf("/players/%d/name", player)) + ` input`)
	b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#tab-%d`, player))), chromedp.Click(in), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), chromedp.SendKeys(in, name))
}

// choose picks an option of the select of a field by typing its label.
func (b *browser) choose(fieldCSS, id, label string) {
	b.t.Helper()
	sel := chromedp.CSS(fieldCSS + ` select`)
	b.do(chromedp.SendKeys(sel, label))
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
	b.do(chromedp.SendKeys(chromedp.CSS(fieldCSS+` input`), strconv.Itoa(n)))
}

// chooseToken picks a token in a circle by typing its label, as a person
// with a keyboard would; the select then fires its change event itself.
func (b *browser) chooseToken(ptr, id, label string) {
	b.t.Helper()
	sel := chromedp.CSS(`select` + pointer(ptr))
	b.do(chromedp.SendKeys(sel, label))
	got, err := chromedp.Run(b.ctx, chromedp.Value(sel))
	if err != nil {
		b.t.Fatal(err)
	}
	if got != id {
		b.t.Fatalf("token %s is %q after typing %q, want %q", ptr, got, label, id)
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

// enterTile taps an empty space of a collection and fills the tile editor.
func (b *browser) enterTile(player int, tl tile) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(fmt.Sprintf(`#panel-%d button.tile[data-row="%d"][data-col="%d"]`, player, tl.row, tl.col))),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] .kind-pick`)))
	if tl.institution != "" {
		b.do(chromedp.Click(chromedp.CSS(`dialog .kind-pick button[data-value="mail"]`)))
		b.tap(`dialog [data-pointer$="/institution"]`, tl.institution)
		b.typeNumber(`dialog [data-pointer$="/points"]`, tl.points)
	} else {
		b.do(chromedp.Click(chromedp.CSS(`dialog .kind-pick button[data-value="insect"]`)))
		b.tap(`dialog [data-pointer$="/continent"]`, tl.continent)
		b.choose(`dialog [data-pointer$="/order"]`, tl.order, strings.ToUpper(tl.order[:1])+tl.order[1:])
		b.tap(`dialog [data-pointer$="/size"]`, tl.size)
		if tl.wreath != "" {
			b.choose(`dialog [data-pointer$="/wreath"]`, tl.wreath, wreathLabels[tl.wreath])
		}
	}
	if player == 0 && tl.row == 0 && tl.col == 2 {
		b.screenshot("insecta-tile-editor")
	}
	b.closeSheet()
}

var wreathLabels = map[string]string{"mary-kingsley": "Mary Kingsley", "maria-sibylla-merian": "Maria Sibylla Merian"}

// TestBrowserInsectaRulebookExample enters the end-of-game example of the
// Insecta rulebook ("End of the game"): Laura, 24 on the track, two of her
// researcher's favourites, no European insect and two journal fragments, makes
// 32; George, 15 on the track, one favourite, insects from all five continents
// and three fragments, makes 31. Laura's 12th tile ended the game; she wins.
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

	mail := func(r, c int) tile { return tile{row: r, col: c, institution: "entomological-society", points: 2} }
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
	if got := b.text(errCSS); !strings.Contains(got, "blue hotel is already") {
		t.Errorf("the hotel field says %q, want the server's message about the blue hotel", got)
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

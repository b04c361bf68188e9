package pwa_test

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// These tests hold the app to issue 7: the table never loses an entry. They
// cut the phone off the network with Chromium's network emulation, stop
// and restart the real server on the same SQLite file, and reload pages
// mid-entry.

// engineModule is the URL of this build's engine loader, in the page (it
// is not preloaded: it loads after the first paint, beside app.js).
const engineModule = `new URL('engine/engine.js', document.querySelector('script[type="module"][src]').src).href`

// waitOfflineReady waits until the page is controlled by the service
// worker, the worker has cached the rules engine, and the page has loaded
// it: from then on the app works with no network.
func (b *browser) waitOfflineReady() {
	b.t.Helper()
	b.waitForUpTo(30*time.Second, "the service worker and the rules engine", `(async () => {
		if (!navigator.serviceWorker.controller) return false;
		const names = await caches.keys();
		const urls = (await Promise.all(names.map(async (n) => (await (await caches.open(n)).keys()).map((r) => r.url)))).flat();
		if (!urls.some((u) => u.endsWith('/engine/engine.wasm'))) return false;
		const m = await import(`+engineModule+`);
		return m.engineReady() !== null;
	})()`)
}

// waitForUpTo waits until a JavaScript expression (which may be a promise)
// is true in the page.
func (b *browser) waitForUpTo(d time.Duration, what, cond string) {
	b.t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](cond, chromedp.EvalAwaitPromise))
		if err == nil && ok {
			return
		}
		time.Sleep(150 * time.Millisecond)
	}
	b.screenshot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
	b.t.Fatalf("waited %s for %s: `%s` is not true", d, what, cond)
}

// blockRequests makes every request matching a URL pattern fail as if the
// network were down, while the rest go through (a server that answers some
// requests and not others); no pattern lifts the block.
func (b *browser) blockRequests(patterns ...string) {
	b.t.Helper()
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		conds := []*network.Conditions{}
		for _, pattern := range patterns {
			if pattern != "" {
				conds = append(conds, &network.Conditions{URLPattern: pattern, Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
			}
		}
		_, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: conds})
		return err
	}))
}

// pageText is the whole page's visible text.
func (b *browser) pageText() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.body.innerText`))
	if err != nil {
		b.t.Fatalf("reading the page: %v", err)
	}
	return s
}

// noVagueErrors fails the test if the page says "Something went wrong":
// a screen says what happened and what still works.
func (b *browser) noVagueErrors() {
	b.t.Helper()
	if got := b.pageText(); strings.Contains(strings.ToLower(got), "something went wrong") {
		b.t.Errorf("the page says something went wrong: %q", got)
	}
}

// tapInPage taps the element sel finds in one step in the page. A live
// table redraws its seat list on every update, so a button found by a node
// id, as chromedp.Click does, may have been replaced before the tap lands.
func tapInPage(sel string) chromedp.Action[chromedp.Void] {
	return chromedp.Evaluate[chromedp.Void](`document.querySelector(` + js(sel) + `).click()`)
}

// joinAs opens a table's join link on a phone and claims a seat the host named.
func (b *browser) joinAs(code string, seat int) {
	b.t.Helper()
	claim := `button.claim-btn[data-seat="` + string(rune('0'+seat)) + `"]`
	b.do(chromedp.Navigate(b.base+"/t/"+code), chromedp.WaitVisible(chromedp.CSS(claim)))
	b.do(tapInPage(claim),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/"+string(rune('0'+seat))+"/board/grid/0/0"))))
}

// TestBrowserOfflineScoring loads the app once, then scores the rulebook
// examples with no network at all: the app opens from the service
// worker's cache and the totals come from the rules engine in the browser.
func TestBrowserOfflineScoring(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn[href="/score/insectarium"]`)))
	b.waitOfflineReady()

	b.setOffline(true)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn[href="/score/insectarium"]`)))
	b.do(chromedp.Click(chromedp.CSS(`a.game-btn[href="/score/insectarium"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	enterInsectariumExample(b)
	b.waitText(`[data-testid=live-total]`, "34")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if got := b.text(`[data-testid=total-0]`); got != "34" {
		t.Errorf("offline, the Insectarium example totals %q, want 34", got)
	}
	if got := b.text(`[data-testid=solo-rating]`); !strings.Contains(strings.ToLower(got), "decent") {
		t.Errorf("offline, the solo rating reads %q, want decent", got)
	}
	b.screenshot("offline-insectarium-results")

	b.do(chromedp.Navigate(base+"/score/insecta"), chromedp.WaitVisible(chromedp.CSS(`#panel-0 button.tile[data-row="0"][data-col="0"]`)))
	b.rename(1, "George")
	b.rename(0, "Laura")
	enterLaura(b)
	b.waitText(`#tab-0 .tab-total`, "32")
	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	enterGeorge(b)
	b.waitText(`#tab-1 .tab-total`, "31")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if got := b.text(`[data-testid=total-0]`) + "/" + b.text(`[data-testid=total-1]`); got != "32/31" {
		t.Errorf("offline, Laura and George total %s, want 32/31", got)
	}
	if got := b.text(`.standing.winner .who-name`); got != "Laura" {
		t.Errorf("offline, the winner is %q, want Laura", got)
	}

	// A screen that needs the server, never opened online, says so plainly.
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	b.waitFor("the history screen to say it needs the server", `document.body.innerText.includes('needs the server')`)
	b.noVagueErrors()
	b.screenshot("offline-history-never-seen")
	b.checkConsole()
}

// TestBrowserOfflineCopies opens the history online, then offline: the
// screens show the last copy seen, marked with its time.
func TestBrowserOfflineCopies(t *testing.T) {
	base := startApp(t)
	postPlay(t, base, "default", "insektenhotel", time.Now().Add(-time.Hour),
		seedPlayer{"Ana", `{"hotel":"blue","floors":[{"species":"bee","guests":2},{"species":"ant","guests":2},{"species":"fly","guests":2}]}`},
		seedPlayer{"Ben", `{"hotel":"red","floors":[{"species":"butterfly","guests":1},{"species":"ladybird","guests":2},{"species":"earwig","guests":0}]}`})
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`a[href^="/plays/"]`)))
	b.waitOfflineReady()

	b.setOffline(true)
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`a[href^="/plays/"]`)))
	b.waitTextHas(`[data-testid=stale]`, "As of ")
	if got := b.textNow(`[data-testid=stale]`); !strings.Contains(got, "offline") {
		t.Errorf("the history's note reads %q, want it to say offline", got)
	}
	if !strings.Contains(b.pageText(), "Ana") {
		t.Errorf("the history shown offline lacks Ana's play: %q", b.pageText())
	}
	b.noVagueErrors()
	b.screenshot("offline-history-copy")
	b.setOffline(false)
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`a[href^="/plays/"]`)))
	if n := b.countOf(`[data-testid=stale]`); n != 0 {
		t.Errorf("online again, the history still shows %d stale notes", n)
	}
	b.checkConsole()
}

// TestBrowserKeepInHistoryOffline keeps a quick score offline: it waits in
// the outbox and is logged exactly once when the network is back.
func TestBrowserKeepInHistoryOffline(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.waitOfflineReady()
	b.setOffline(true)

	b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	b.rename(0, "Ana")
	enterInsectariumExample(b)
	b.waitText(`[data-testid=live-total]`, "34")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=screen-notice]`)))
	if got := b.textNow(`[data-testid=screen-notice]`); !strings.Contains(got, "kept on this phone") {
		t.Errorf("after saving offline the screen says %q, want that the play is kept on the phone", got)
	}
	b.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	b.noVagueErrors()
	b.screenshot("offline-play-kept")
	if n := countPlays(t, base); n != 0 {
		t.Fatalf("offline, the server has %d plays", n)
	}

	b.setOffline(false)
	waitFor(t, "the kept play to reach the server", func() bool { return countPlays(t, base) == 1 })
	b.waitTextNow(`[data-testid=save-state]`, "Saved")
	b.do(chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	// Nothing is sent twice, however often the outbox is nudged.
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	time.Sleep(time.Second)
	if n := countPlays(t, base); n != 1 {
		t.Errorf("the server has %d plays, want the one kept offline", n)
	}
	b.checkConsole()
}

// countPlays is how many plays the default group has.
func countPlays(t *testing.T, base string) int {
	t.Helper()
	var out struct {
		Plays []json.RawMessage `json:"plays"`
	}
	apiJSON(t, http.MethodGet, base+"/api/v1/plays?limit=100", "", nil, http.StatusOK, &out)
	return len(out.Plays)
}

// TestBrowserReloadKeepsEntries reloads mid-entry: the quick score and a
// seat's board (offline, not yet sent) come back as they were.
func TestBrowserReloadKeepsEntries(t *testing.T) {
	base := startApp(t)
	chrome := newChromium(t)
	b := newTab(t, chrome, base, true)
	b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	b.enterCard(0, 0, 0, card{"green", "beetle", 2, []string{"pin"}})
	b.step("/players/0/board/supply", 3)
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`button.filled`+pointer("/players/0/board/grid/0/0"))))
	if got, err := chromedp.Run(b.ctx, chromedp.Value(chromedp.CSS(pointer("/players/0/board/supply")+` input`))); err != nil || got != "3" {
		t.Errorf("after a reload the supply is %q (%v), want 3", got, err)
	}

	// The seat: the server goes away (Chromium's offline emulation lets a
	// request slip out while a page reloads, so the server really stops).
	st := newSeatedTable(t, chrome)
	host, phone, code := st.host, st.phone, st.code
	st.srv.stop()
	phone.serverGone(false)
	phone.editUnsent()
	// The engine scores the change on the phone, with no server.
	phone.waitTextNow(`[data-testid=standing-1]`, "3")
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	phone.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`button.filled`+pointer("/players/1/board/grid/0/0"))))
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	phone.waitTextNow(`[data-testid=standing-1]`, "3")
	phone.noVagueErrors()
	phone.screenshot("offline-seat-reloaded")
	st.srv = st.srv.restart()
	waitForUpTo(t, 15*time.Second, "Ben's board to reach the server", func() bool { return seatBoard(t, st.srv.base, code, 1)["grid"] != nil })
	host.waitTextNow(`[data-testid=seat-total-1]`, "3")
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	b.checkConsole()
	phone.checkConsole()
}

// seatedTable is a host's Insectarium table of Ana and Ben on a server
// over a SQLite file, with Ben's phone joined at seat 1 and the app ready
// offline there: where the tests start that stop the server under a
// phone and start it again (appServer.restart).
type seatedTable struct {
	srv         *appServer
	host, phone *browser
	code        string
}

// serverGone waits until a phone at a table says it lost the server: the
// live table's "Reconnecting…" banner and, after a reload, the "not
// answering" note. Each, appearing, moves the board down, so a tap under
// way then could land beside its button.
func (b *browser) serverGone(reloaded bool) {
	b.t.Helper()
	b.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=reconnecting]`)))
	if reloaded {
		b.waitTextHas(`[data-testid=stale]`, "the server is not answering")
	}
}

// editUnsent enters Ben's card and column token, 3 points, while the
// server is down (serverGone), waiting after the card until the phone says
// it is not saved: the sync strip, taking the banner's place, moves the
// board again.
func (b *browser) editUnsent() {
	b.t.Helper()
	b.enterCard(1, 0, 0, card{"green", "beetle", 3, []string{"pin"}})
	b.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	b.chooseToken("/players/1/board/colTokens/0", "green", "Green")
}

func newSeatedTable(t *testing.T, chrome context.Context) *seatedTable {
	t.Helper()
	st := &seatedTable{srv: serveApp(t, filepath.Join(t.TempDir(), "seated.db"), "127.0.0.1:0")}
	st.host = newTab(t, chrome, st.srv.base, true)
	st.code = st.host.startTable("insectarium", "Ana", "Ben")
	st.phone = newTab(t, chrome, st.srv.base, true)
	st.phone.joinAs(st.code, 1)
	st.phone.waitOfflineReady()
	return st
}

// twoPhones opens two phones in one browser, each a context of its own
// (separate storage), as the host and a player would hold them.
func twoPhones(t *testing.T, base string) (host, phone *browser) {
	t.Helper()
	chrome := newChromium(t)
	return newTab(t, chrome, base, true), newTab(t, chrome, base, true)
}

// fullTableWithBen starts an Insectarium table for Ana and Ben on the host's
// phone, seats Ben on his own phone, and fills both displays (Ben at 3), so
// the game can finish.
func fullTableWithBen(t *testing.T, base string) (host, phone *browser, code string) {
	t.Helper()
	host, phone = twoPhones(t, base)
	code = host.startTable("insectarium", "Ana", "Ben")
	hostToken, _ := host.stored(code)["hostToken"].(string)
	phone.joinAs(code, 1)
	putBoard(t, base, code, 0, hostToken, fullDisplay(""))
	putBoard(t, base, code, 1, hostToken, fullDisplay("green"))
	phone.waitTextNow(`[data-testid=standing-1]`, "3")
	return host, phone, code
}

// TestBrowserServerOutage stops only the server while a seat edits (the
// phone stays online): when the server restarts on the same file, the edit
// arrives within 15 s with no user action, and the finished play holds it.
func TestBrowserServerOutage(t *testing.T) {
	srv := serveApp(t, filepath.Join(t.TempDir(), "outage.db"), "127.0.0.1:0")
	host, phone, code := fullTableWithBen(t, srv.base)

	srv.stop()
	phone.serverGone(false)
	phone.step("/players/1/board/supply", 2)
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet — retrying")
	phone.screenshot("outage-not-saved")

	srv = srv.restart()
	restarted := time.Now()
	waitForUpTo(t, 15*time.Second, "Ben's edit to reach the restarted server", func() bool {
		return seatBoard(t, srv.base, code, 1)["supply"] == 2.0
	})
	t.Logf("the edit reached the server %s after the restart", time.Since(restarted).Round(100*time.Millisecond))
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	host.waitTextNow(`[data-testid=seat-total-1]`, "4")
	host.waitTextHas(`[data-testid=sync-1]`, "saved")

	host.finishGame()
	host.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-1]`)))
	if got := host.textNow(`[data-testid=total-1]`); got != "4" {
		t.Errorf("the finished play has Ben at %q, want 4 with the edit made during the outage", got)
	}
	host.checkConsole()
}

// TestBrowserFinishWaitsForUnsent has Ben's phone reach the server for
// everything but his board's saves: the host sees unsent changes, is warned
// when finishing, waits, and the finish completes by itself once Ben's
// phone has saved.
func TestBrowserFinishWaitsForUnsent(t *testing.T) {
	base := startApp(t)
	host, phone, _ := fullTableWithBen(t, base)

	phone.blockRequests(base + "/api/v1/tables/*/seats/*/board")
	phone.step("/players/1/board/supply", 2)
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	host.waitTextHas(`[data-testid=sync-1]`, "not sent yet")
	host.screenshot("host-seat-unsent")

	host.finishGame()
	host.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=unsent-sheet]`)))
	if got := host.textNow(`dialog.sheet[open]`); !strings.Contains(got, "Ben") {
		t.Errorf("the finish warning reads %q, want it to name Ben", got)
	}
	host.screenshot("host-finish-warning")
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=finish-wait]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=finish-waiting]`)))
	host.waitTextHas(`[data-testid=finish-waiting]`, "Waiting for Ben's phone")
	time.Sleep(500 * time.Millisecond)
	if got := host.textNow(`h1`); got == "Results" {
		t.Fatal("the table finished while Ben's phone held a change")
	}

	phone.blockRequests()
	// The phone's next try may be up to the outbox's longest backoff (8 s)
	// away, then the finish follows.
	host.waitForUpTo(liveWait+10*time.Second, "the finish once Ben's phone has saved",
		`document.querySelector('[data-testid=total-1]') !== null`)
	host.waitTextNow(`[data-testid=total-1]`, "4")
	if got := phone.textNow(`h1`); got != "Results" {
		phone.waitTextNow(`h1`, "Results")
	}
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserSavedClearsYourChange (issue 25, item 4): while a board's
// change waits on the phone its standings say "final with your change";
// once the server has acknowledged the save they are the server's again,
// and the label goes with the change (it stayed more than 12 s under "Saved").
func TestBrowserSavedClearsYourChange(t *testing.T) {
	base := startApp(t)
	_, phone, _ := fullTableWithBen(t, base)

	phone.blockRequests(base + "/api/v1/tables/*/seats/*/board")
	phone.step("/players/1/board/supply", 2)
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet")
	phone.waitTextNow(`.standing-state`, "final with your change")
	phone.blockRequests()
	phone.waitForUpTo(liveWait+10*time.Second, "the save", `document.querySelector('[data-testid=save-state]')?.textContent.trim() === 'Saved'`)
	saved := time.Now()
	phone.waitTextNow(`.standing-state`, "final: the host can finish")
	t.Logf("the label followed the save after %s", time.Since(saved).Round(100*time.Millisecond))
	phone.checkConsole()
}

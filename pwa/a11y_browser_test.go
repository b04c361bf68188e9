package pwa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// These tests hold every screen to axe-core (no serious or critical
// violation), to thumb-sized touch targets (44×44 px) and the home screen
// to a stable layout (cumulative layout shift ≤ 0.02), in real Chromium at
// a phone's size, light and dark.
//
// axe-core runs from testdata/axe-core/axe.min.js (MPL-2.0, its licence
// beside it), injected through DevTools, so the tests need no network.

// axeSource is axe-core, read once.
var axeSource = sync.OnceValues(func() (string, error) {
	b, err := os.ReadFile("testdata/axe-core/axe.min.js")
	return string(b), err
})

// axeViolation is one rule axe-core found broken, with the elements.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	Nodes  []struct {
		Target  []string `json:"target"`
		Summary string   `json:"summary"`
	} `json:"nodes"`
}

func (v axeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s", v.ID, v.Impact, v.Help)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n\t\t%s: %s", strings.Join(n.Target, " "), strings.ReplaceAll(n.Summary, "\n", " "))
	}
	return b.String()
}

// knownElsewhere are violations in modules this change does not own, each
// with the fix it waits for: they are logged, not failed. Remove an entry
// once its fix is in. Keys: rule id, a space, and a piece of the selector
// of every element found.
var knownElsewhere = map[string]string{}

// axe runs axe-core on the page as it is and fails the test for every
// serious or critical violation; the others are logged.
func (b *browser) axe(screen string) {
	b.t.Helper()
	src, err := axeSource()
	if err != nil {
		b.t.Fatalf("reading axe-core: %v", err)
	}
	if has, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`typeof window.axe === 'object'`)); !has {
		b.do(chromedp.Evaluate[chromedp.Void](src))
	}
	// A sheet sliding in is half transparent: its colours count once it is in.
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]axeViolation](`Promise.all(document.getAnimations().filter((a) => a.effect?.getTiming().iterations !== Infinity).map((a) => a.finished.catch(() => null)))
		.then(() => axe.run(document, { resultTypes: ['violations'] }))
		.then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact ?? '', help: v.help,
			nodes: v.nodes.map((n) => ({ target: n.target.map(String), summary: n.failureSummary ?? '' })) })))`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("axe on %s: %v", screen, err)
	}
	for _, v := range got {
		serious := v.Impact == "serious" || v.Impact == "critical"
		if !serious {
			b.t.Logf("axe on %s, not serious: %s", screen, v)
			continue
		}
		if why := known(v); why != "" {
			b.t.Logf("axe on %s, known (%s): %s", screen, why, v)
			continue
		}
		b.t.Errorf("axe on %s: %s", screen, v)
	}
}

// known says why a violation is left to another change, or "".
func known(v axeViolation) string {
	for key, why := range knownElsewhere {
		id, piece, _ := strings.Cut(key, " ")
		if id != v.ID {
			continue
		}
		all := true
		for _, n := range v.Nodes {
			all = all && strings.Contains(strings.Join(n.Target, " "), piece)
		}
		if all {
			return why
		}
	}
	return ""
}

// smallTargets lists the controls on screen smaller than 44×44 px. An
// input counts with its label when the label holds it (a switch, a chip),
// and a link inside a sentence is exempt, as WCAG exempts inline links.
func (b *browser) smallTargets() []string {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [];
		const sel = 'a[href], button, select, input:not([type=hidden]), summary, textarea, label.seg';
		for (const el of document.querySelectorAll(sel)) {
			if (el.closest('[hidden], [inert]')) continue;
			const inLabel = el.closest('label');
			if (el.matches('input') && inLabel) continue; // the label is the target
			const r = el.getBoundingClientRect();
			if (r.width === 0 && r.height === 0) continue;
			const st = getComputedStyle(el);
			if (st.visibility === 'hidden' || st.display === 'none') continue;
			if (el.matches('a') && st.display === 'inline' && el.parentElement
				&& el.parentElement.textContent.trim() !== el.textContent.trim()) continue;
			if (r.width < 43.5 || r.height < 43.5) {
				const id = el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\s+/).join('.') : '');
				out.push(id + ' "' + (el.getAttribute('aria-label') || el.textContent).trim().slice(0, 30) + '" ' + Math.round(r.width) + '×' + Math.round(r.height));
			}
		}
		return out;
	})()`))
	if err != nil {
		b.t.Fatalf("measuring touch targets: %v", err)
	}
	return got
}

// checkScreen runs axe on the screen, light and dark, checks its touch
// targets and saves screenshots of both schemes.
func (b *browser) checkScreen(name string) {
	b.t.Helper()
	b.screenshot("a11y-" + name)
	b.axe(name)
	for _, s := range b.smallTargets() {
		b.t.Errorf("%s: a touch target under 44×44 px: %s", name, s)
	}
	b.dark()
	b.screenshot("a11y-" + name + "-dark")
	b.axe(name + " (dark)")
	b.lightAgain()
}

// layoutShift sums the layout shifts the page has seen since it began
// (PerformanceObserver, buffered), leaving out those right after input;
// each shift is described by the elements that moved.
func (b *browser) layoutShift() (float64, []string) {
	b.t.Helper()
	type shifts struct {
		Sum    float64  `json:"sum"`
		Shifts []string `json:"shifts"`
	}
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[shifts](`new Promise((resolve) => {
		let sum = 0;
		const shifts = [];
		const take = (entries) => {
			for (const e of entries) {
				if (e.hadRecentInput) continue;
				sum += e.value;
				shifts.push(e.value.toFixed(4) + ' at ' + Math.round(e.startTime) + ' ms: ' + e.sources.map((s) => {
					const n = s.node;
					if (!n || n.nodeType !== 1) return '#text';
					return n.tagName.toLowerCase() + (n.className ? '.' + String(n.className).trim().split(/\s+/).join('.') : '');
				}).join(', '));
			}
		};
		const po = new PerformanceObserver((list) => take(list.getEntries()));
		po.observe({ type: 'layout-shift', buffered: true });
		setTimeout(() => { take(po.takeRecords()); po.disconnect(); resolve({ sum, shifts }); }, 300);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("reading layout shifts: %v", err)
	}
	return got.Sum, got.Shifts
}

// slowAPI makes every answer of the API take at least ms milliseconds, as
// on mobile data; the app's own files come at once.
func (b *browser) slowAPI(ms float64) {
	b.t.Helper()
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			MatchedNetworkConditions: []*network.Conditions{{URLPattern: b.base + "/api/*", Latency: ms, DownloadThroughput: -1, UploadThroughput: -1}},
		})
		return err
	}))
}

// TestBrowserHomeLayoutStable loads the home screen on a fresh phone and
// again from the service worker, with a group and a table kept, while the
// API answers slowly: the game list, the group's name and the kept tables
// arrive after the first paint, and must not move what is already on
// screen (CLS ≤ 0.02).
func TestBrowserHomeLayoutStable(t *testing.T) {
	base := startApp(t)
	var g struct{ ID string }
	apiJSON(t, http.MethodPost, base+"/api/v1/groups", `{"name":"Thursday Bugs and Beetles"}`, nil, http.StatusCreated, &g)
	b := newBrowser(t, base)
	b.slowAPI(400)
	for _, run := range []string{"first visit", "a reload", "a return with a group"} {
		if run == "a return with a group" {
			b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore.group', ` + js(g.ID) + `)`))
		}
		if run == "first visit" {
			b.do(chromedp.Navigate(base + "/"))
		} else {
			b.do(chromedp.Reload())
		}
		b.do(chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
		time.Sleep(1500 * time.Millisecond) // the group's name, the engine warming up
		cls, shifts := b.layoutShift()
		t.Logf("home, %s: CLS %.4f %v", run, cls, shifts)
		if cls > 0.02 {
			t.Errorf("home, %s: the layout shifts by %.4f (want ≤ 0.02): %s", run, cls, strings.Join(shifts, "; "))
		}
	}
	b.checkConsole()
}

// quickEntry is a quick-score entry as the phone keeps it.
func quickEntry(t *testing.T, players ...seedPlayer) string {
	t.Helper()
	var ps []string
	for _, p := range players {
		ps = append(ps, `{"name":`+js(p.name)+`,"board":`+p.board+`}`)
	}
	return `{"players":[` + strings.Join(ps, ",") + `],"variants":{},"active":0}`
}

// insectaExample is the rulebook example's two collections, as the
// scoring tests record them.
func insectaExample(t *testing.T) []seedPlayer {
	t.Helper()
	raw, err := os.ReadFile("../scoring/testdata/requests.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Game, Body string }
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if c.Game != "insecta" || !strings.Contains(c.Body, `"Laura"`) {
			continue
		}
		var req struct {
			Players []struct {
				Name  string
				Board json.RawMessage
			}
		}
		if err := json.Unmarshal([]byte(c.Body), &req); err != nil {
			t.Fatal(err)
		}
		var out []seedPlayer
		for _, p := range req.Players {
			out = append(out, seedPlayer{p.Name, string(p.Board)})
		}
		return out
	}
	t.Fatal("no Insecta rulebook example in scoring/testdata/requests.json")
	return nil
}

// TestBrowserA11yQuickScore checks the home screen and each game's quick
// score, its form and its results.
func TestBrowserA11yQuickScore(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	entries := map[string]string{
		"insectarium":   quickEntry(t, seedPlayer{"Ana", displayBoard(4)}, seedPlayer{"Ben", fullDisplay("")}),
		"insecta":       quickEntry(t, insectaExample(t)...),
		"insektenhotel": quickEntry(t, seedPlayer{"Ana", fullHotel}, seedPlayer{"", partHotel}),
	}
	for game, entry := range entries {
		b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:` + game + `', ` + js(entry) + `)`))
	}
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.checkScreen("home")
	for _, game := range []string{"insectarium", "insecta", "insektenhotel"} {
		b.do(chromedp.Navigate(base+"/score/"+game), chromedp.WaitVisible(chromedp.CSS(`#panel-0`)))
		b.waitFor("the totals", `document.querySelector('#tab-0 .tab-total').textContent !== '–'`)
		b.checkScreen(game + "-form")
		b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
		b.checkScreen(game + "-results")
	}
	b.checkConsole()
}

// TestBrowserA11yTable checks a live table's screens: starting one, the
// host's screen, a seat the host fills in, the join screen, a player's
// own board and the finished results.
func TestBrowserA11yTable(t *testing.T) {
	base := startApp(t)
	host, phone := twoPhones(t, base)
	host.do(chromedp.Navigate(base+"/tables/new"), chromedp.WaitVisible(chromedp.CSS(pointer("/game"))))
	host.tap(pointer("/game"), "insectarium")
	host.checkScreen("table-new")
	code := host.startTable("insectarium", "Ana", "Ben", "Cleo")
	host.checkScreen("table-host")
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=edit-0]`)), chromedp.WaitVisible(chromedp.CSS(`#app [data-pointer="/players/0/board"]`)))
	host.checkScreen("table-host-seat")

	phone.do(chromedp.Navigate(base+"/t/"+code), chromedp.WaitVisible(chromedp.CSS(`button.claim-btn`)))
	phone.checkScreen("table-join")
	phone.joinAs(code, 1)
	phone.checkScreen("table-seat")

	hostToken, _ := host.stored(code)["hostToken"].(string)
	putBoard(t, base, code, 0, hostToken, fullDisplay(""))
	putBoard(t, base, code, 1, hostToken, fullDisplay("green"))
	putBoard(t, base, code, 2, hostToken, fullDisplay("yellow"))
	apiJSON(t, http.MethodPost, base+"/api/v1/tables/"+code+"/finish", "", map[string]string{"Authorization": "Bearer " + hostToken}, http.StatusOK, nil)
	phone.waitTextNow(`h1`, "Results")
	phone.checkScreen("table-results")
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserA11yHotelTable checks an Insektenhotel table once the hotels
// are set up: the moves, the hotels and the log, on the host's screen and
// on a player's phone.
func TestBrowserA11yHotelTable(t *testing.T) {
	base := startApp(t)
	host, phone := twoPhones(t, base)
	code := host.startTable("insektenhotel", "Ana", "Ben")
	hostToken, _ := host.stored(code)["hostToken"].(string)
	putBoard(t, base, code, 0, hostToken, `{"hotel":"blue","floors":[{"species":"bee","guests":0},{"species":"ant","guests":0},{"species":"fly","guests":0}]}`)
	putBoard(t, base, code, 1, hostToken, `{"hotel":"green","floors":[{"species":"ladybird","guests":0},{"species":"butterfly","guests":0},{"species":"earwig","guests":0}]}`)
	host.waitTextNow(`[data-testid=turn]`, "Ana's turn")
	host.do(chromedp.Click(chromedp.CSS(`.move-panel button[data-card="bee"]`)))
	host.waitTextNow(`[data-testid=turn]`, "Ben's turn")
	host.checkScreen("hotel-host")
	phone.do(chromedp.Navigate(base+"/t/"+code), chromedp.WaitVisible(chromedp.CSS(`button.claim-btn[data-seat="1"]`)),
		tapInPage(`button.claim-btn[data-seat="1"]`), chromedp.WaitVisible(chromedp.CSS(`[data-testid=turn]`)))
	phone.waitTextNow(`[data-testid=turn]`, "Your turn")
	phone.checkScreen("hotel-seat")
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserA11yHistory checks the group's screens: the history, a play,
// logging a play, a leaderboard, a player's page and the groups.
func TestBrowserA11yHistory(t *testing.T) {
	base := startApp(t)
	day := time.Now().Add(-72 * time.Hour).Truncate(time.Minute)
	postPlay(t, base, "default", "insectarium", day, seedPlayer{"Ana", displayBoard(4)}, seedPlayer{"Ben", displayBoard(0)})
	play := postPlay(t, base, "default", "insectarium", day.Add(time.Hour), seedPlayer{"Ana", displayBoard(2)}, seedPlayer{"Ben", displayBoard(6)}, seedPlayer{"Cleo", displayBoard(6)})
	postPlay(t, base, "default", "insektenhotel", day, seedPlayer{"Ben", fullHotel}, seedPlayer{"Ana", partHotel})
	b := newBrowser(t, base)

	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-item]`)))
	b.checkScreen("history")
	b.do(chromedp.Navigate(base+"/plays/"+play), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	b.checkScreen("play")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=rematch]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rematch-here]`)))
	b.checkScreen("rematch")
	b.closeSheetByCancel()
	b.do(chromedp.Navigate(base+"/plays/new?game=insektenhotel"), chromedp.WaitVisible(chromedp.CSS(pointer("/players/0/name")+` input`)))
	b.checkScreen("log-play")
	b.do(chromedp.Navigate(base+"/leaderboards/insectarium"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lb-row]`)))
	b.checkScreen("leaderboard")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=lb-row] a.lb-name`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rename]`)))
	b.checkScreen("player")
	b.do(chromedp.Navigate(base+"/groups"), chromedp.WaitVisible(chromedp.CSS(`#new-group-name`)))
	b.checkScreen("groups")
	b.do(chromedp.Navigate(base+"/groups/default"), chromedp.WaitVisible(chromedp.CSS(`#import-file`)))
	b.checkScreen("group")
	b.do(chromedp.Navigate(base+"/g/default"), chromedp.WaitVisible(chromedp.CSS(`.joined`)))
	b.checkScreen("group-joined")

	// A deleted play, while it can be undone.
	b.do(chromedp.Navigate(base+"/plays/"+play), chromedp.WaitVisible(chromedp.CSS(`[data-testid=delete-play]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=delete-play]`)), chromedp.WaitVisible(chromedp.CSS(`dialog [data-testid=confirm]`)))
	b.checkScreen("delete-play")
	b.do(chromedp.Click(chromedp.CSS(`dialog [data-testid=confirm]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=undo]`)))
	b.checkScreen("history-undo")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=undo]`)))
	b.checkConsole()
}

// closeSheetByCancel closes the open sheet with its close button.
func (b *browser) closeSheetByCancel() {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(`dialog.sheet[open] .sheet-head .icon-btn`)), chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
}

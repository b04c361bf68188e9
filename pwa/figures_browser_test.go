package pwa_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// These tests check what the README's figures rest on, and log the figures
// (go test ./pwa -run 'FirstLoad|TotalLatency' -v): they assert behaviour,
// never a time.

// firstLoad is what the page's performance timeline says of its load.
type firstLoad struct {
	Load      float64 `json:"load"`
	Nav       float64 `json:"nav"`
	Resources []struct {
		Name     string  `json:"name"`
		Start    float64 `json:"start"`
		Transfer float64 `json:"transfer"`
		Body     float64 `json:"body"`
	} `json:"resources"`
}

// The home screen's first load, until the load event (the service
// worker's registration comes after it): bytes as transferred, so
// compressed, headers included. Issue 10's budget was 8 requests and
// 60 KB; with one concern a module (issue 25) the home screen runs 15
// modules, all preloaded by index.html so none waits on another: app.js,
// router.js, ui/i18n.js, ui/dom.js, history/history.js,
// history/grouplink.js and sync/'s local.js, idb-keyval.js, kept.js,
// http.js, outbox.js, read.js, games.js, tables.js, history.js. So 17
// requests with the page and app.css, and still 60 KB. index.html carries
// the UI messages of its language, so the catalog costs no request.
const (
	firstLoadBytes    = 60 * 1024
	firstLoadRequests = 17
)

// TestBrowserFirstLoadWithoutEngine loads the home screen on a fresh
// profile: nothing of the rules engine's WebAssembly is fetched before the
// page has loaded; it comes afterwards, and then scores. The first load
// stays within its budget of bytes and requests.
func TestBrowserFirstLoadWithoutEngine(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.waitOfflineReady()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[firstLoad](`(() => {
		const nav = performance.getEntriesByType('navigation')[0];
		return {
			load: nav.loadEventEnd, nav: nav.transferSize,
			resources: performance.getEntriesByType('resource').map((r) => ({ name: r.name, start: r.startTime, transfer: r.transferSize, body: r.decodedBodySize })),
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if got.Load <= 0 {
		t.Fatalf("the page reports no load event end (%v)", got.Load)
	}
	transfer, body, requests := got.Nav, 0.0, 1
	for _, r := range got.Resources {
		engine := strings.HasSuffix(r.Name, "/engine.wasm") || strings.HasSuffix(r.Name, "/wasm_exec.js")
		if r.Start < got.Load {
			if engine {
				t.Errorf("%s was fetched %.0f ms into the page, before it loaded (%.0f ms): the engine must not be on the first load", r.Name, r.Start, got.Load)
			}
			if strings.HasSuffix(r.Name, "/manifest.webmanifest") {
				// The browser reads the manifest for installing, off the
				// page's path: not part of the first load.
				t.Logf("  %6.0f B (%6.0f B decoded) %s (the manifest: not counted)", r.Transfer, r.Body, r.Name)
				continue
			}
			t.Logf("  %6.0f B (%6.0f B decoded) %s", r.Transfer, r.Body, r.Name)
			transfer += r.Transfer
			body += r.Body
			requests++
		}
	}
	t.Logf("first load: %d requests, %.0f bytes transferred (%.0f B of resources decoded; the engine not among them); load event at %.0f ms", requests, transfer, body, got.Load)
	if transfer > firstLoadBytes || requests > firstLoadRequests {
		t.Errorf("the home screen's first load is %d requests and %.0f bytes; the budget is %d requests and %d bytes", requests, transfer, firstLoadRequests, firstLoadBytes)
	}
	// The page links the manifest, and the app is installable.
	manifest, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const link = document.querySelector('head link[rel=manifest]');
		if (!link) return 'no manifest link';
		const res = await fetch(link.href);
		return res.ok ? (await res.json()).name : 'the manifest answered ' + res.status;
	})()`, chromedp.EvalAwaitPromise))
	if err != nil || manifest != "insectscore" {
		t.Errorf("the page's manifest: %q, %v; want the app's manifest linked", manifest, err)
	}
	b.checkConsole()
}

// TestBrowserTotalLatency measures, under Chromium's 4× CPU throttling, the
// time from a change on the board to the new total on screen: with the
// rules engine in the browser, and through the server (engine not loaded).
func TestBrowserTotalLatency(t *testing.T) {
	base := startApp(t)
	for _, withEngine := range []bool{true, false} {
		name := map[bool]string{true: "engine", false: "server"}[withEngine]
		t.Run(name, func(t *testing.T) {
			b := newBrowser(t, base)
			if !withEngine {
				// The engine's worker never starts: every total comes from the server.
				b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
					_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
						Source: `window.Worker = class { constructor() { throw new Error('no engine in this test'); } };`,
					})
					return err
				}))
			}
			b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
			if withEngine {
				b.waitOfflineReady()
			} else {
				time.Sleep(2 * time.Second)
				if ready, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`import(`+engineModule+`).then((m) => m.engineReady() !== null)`, chromedp.EvalAwaitPromise)); ready {
					t.Fatal("the engine loaded although its file was blocked")
				}
			}
			b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
				_, err := chromedp.Call(ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 4})
				return err
			}))
			const changes = 20
			times, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]float64](fmt.Sprintf(`(async () => {
				const total = document.querySelector('[data-testid=live-total]');
				const field = document.querySelector('[data-pointer="/players/0/board/toolBonusesForPoints"]');
				const more = field.querySelector('button[aria-label$="one more"]');
				const less = field.querySelector('button[aria-label$="one less"]');
				const out = [];
				for (let i = 0; i < %d; i++) {
					const before = total.textContent;
					const changed = new Promise((resolve) => {
						const mo = new MutationObserver(() => { if (total.textContent !== before) { mo.disconnect(); resolve(); } });
						mo.observe(total, { childList: true, characterData: true, subtree: true });
					});
					const t0 = performance.now();
					(i %% 2 === 0 ? more : less).click();
					await changed;
					out.push(performance.now() - t0);
					await new Promise((r) => setTimeout(r, 50));
				}
				return out;
			})()`, changes), chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			if len(times) != changes {
				t.Fatalf("measured %d changes, want %d", len(times), changes)
			}
			t.Logf("%s, 4× CPU throttling: change → total median %.1f ms, worst %.1f ms over %d changes", name, median(times), worst(times), changes)
		})
	}
}

func worst(xs []float64) float64 {
	w := 0.0
	for _, x := range xs {
		w = max(w, x)
	}
	return w
}

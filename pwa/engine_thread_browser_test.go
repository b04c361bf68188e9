package pwa_test

import (
	"context"
	"testing"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// engineStart is what the page saw of the rules engine's start: where Go
// ran, what the page itself fetched, and its main thread's long tasks.
type engineStart struct {
	Status     int      `json:"status"`
	Total      int      `json:"total"`
	GoHere     bool     `json:"goHere"`
	EngineHere bool     `json:"engineHere"`
	Fetched    []string `json:"fetched"`
	Load       float64  `json:"load"`
	Ready      float64  `json:"ready"`
	LongTasks  []struct {
		Start float64 `json:"start"`
		Ms    float64 `json:"ms"`
	} `json:"longTasks"`
}

// TestBrowserEngineOffTheMainThread opens a score form and lets the app
// start the rules engine as it does for everyone (after the load, through
// the service worker): the engine then scores, yet Go never ran on the
// page's main thread. wasm_exec.js defines the global Go and the program
// registers insectscoreEngine on the global object of wherever they run,
// and whoever runs them fetches them: the page has neither global and
// fetched neither file, its worker did. The main thread's long tasks from
// the load until the engine answered are logged (the figure behind
// Lighthouse's total blocking time): a time is no assertion on a shared
// machine.
func TestBrowserEngineOffTheMainThread(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.longTasksSeen = [];
				new PerformanceObserver((l) => { for (const e of l.getEntries()) window.longTasksSeen.push({ start: e.startTime, ms: e.duration }); })
					.observe({ type: 'longtask' });`,
		})
		return err
	}))
	b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	b.waitOfflineReady()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[engineStart](`(async () => {
		const m = await import(`+engineModule+`);
		const a = await m.engineReady().score('insectarium', { players: [{ name: 'Ana', board: { supply: 6 } }] });
		const ready = performance.now();
		// Let the observer deliver the last long tasks.
		await new Promise((r) => setTimeout(r, 200));
		return {
			status: a.status, total: a.body?.results?.[0]?.total ?? -1,
			goHere: 'Go' in globalThis, engineHere: 'insectscoreEngine' in globalThis,
			fetched: performance.getEntriesByType('resource').map((r) => r.name)
				.filter((n) => n.endsWith('/engine.wasm') || n.endsWith('/wasm_exec.js')),
			load: performance.getEntriesByType('navigation')[0].loadEventEnd, ready,
			longTasks: window.longTasksSeen,
		};
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != 200 || got.Total != 3 {
		t.Fatalf("the engine answered %d with a total of %d; want 200 and 3 points for 6 unused tokens", got.Status, got.Total)
	}
	if got.GoHere || got.EngineHere {
		t.Errorf("the page's main thread has Go's globals (Go: %v, insectscoreEngine: %v): the engine ran there, not in its worker", got.GoHere, got.EngineHere)
	}
	if len(got.Fetched) > 0 {
		t.Errorf("the page fetched %v itself: the engine must be fetched, compiled and run by its worker", got.Fetched)
	}
	longest, sum, n := 0.0, 0.0, 0
	for _, lt := range got.LongTasks {
		if lt.Start+lt.Ms < got.Load || lt.Start > got.Ready {
			continue
		}
		n++
		sum += lt.Ms
		longest = max(longest, lt.Ms)
	}
	t.Logf("main thread from the load (%.0f ms) until the engine answered (%.0f ms): %d long tasks, %.0f ms in all, the longest %.0f ms", got.Load, got.Ready, n, sum, longest)
	b.checkConsole()
}

package pwa_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// setOffline cuts this tab off the network (every request fails, as with
// no Wi-Fi) and sets navigator.onLine to match, or gives the network back.
func (b *browser) setOffline(offline bool) {
	b.t.Helper()
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		// The service worker's own fetches are cut too, so the cache is
		// really all there is.
		emulateSW := offline
		cond := []*network.Conditions{{Offline: offline, DownloadThroughput: -1, UploadThroughput: -1}}
		if _, err := chromedp.Call(ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{
			EmulateOfflineServiceWorker: &emulateSW, MatchedNetworkConditions: cond,
		}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{
			Offline: offline, DownloadThroughput: -1, UploadThroughput: -1,
		})
		return err
	}))
}

// waitTextHas waits until an element's text contains want.
func (b *browser) waitTextHas(css, want string) {
	b.t.Helper()
	deadline := time.Now().Add(liveWait)
	got := ""
	for time.Now().Before(deadline) {
		if got = b.textNow(css); strings.Contains(got, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
	b.t.Fatalf("%s reads %q after %s, want it to contain %q", css, got, liveWait, want)
}

// waitFor polls cond, outside the browser, until it holds or liveWait passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	waitForUpTo(t, liveWait, what, cond)
}

// waitForUpTo polls cond until it holds or d passes.
func waitForUpTo(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if cond() {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("waited %s for %s", d, what)
}

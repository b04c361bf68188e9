package pwa_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserAddPlayerTileSaysSo (issue 25, item 10): the tile that adds
// a player says so in words, in the app's language, not with a bare "+",
// and stays a thumb-sized target.
func TestBrowserAddPlayerTileSaysSo(t *testing.T) {
	base := startApp(t)
	for lang, want := range map[string]string{"en": "Add a player", "de": "Spieler hinzufügen"} {
		b := newBrowserIn(t, base, lang)
		b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`.add-player`)))
		got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('.add-player').innerText.replace(/\s+/g, ' ').trim()`))
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("in %s the add-player tile reads %q (%v), want the words %q", lang, got, err, want)
		}
		size, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]float64](`(() => { const r = document.querySelector('.add-player').getBoundingClientRect(); return [r.width, r.height]; })()`))
		if err != nil || len(size) != 2 || size[0] < 44 || size[1] < 44 {
			t.Errorf("in %s the add-player tile is %v (%v), want at least 44×44", lang, size, err)
		}
		b.screenshot("add-player-tile-" + lang)
		b.checkConsole()
	}
}

// visibleCount counts the elements css finds that take up room on screen.
func (b *browser) visibleCount(css string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`[...document.querySelectorAll(`+js(css)+`)].filter((e) => e.getClientRects().length > 0).length`))
	if err != nil {
		b.t.Fatal(err)
	}
	return n
}

// TestBrowserOneYellowBanner (issue 25, item 10): with the server gone, a
// seat's phone said so twice, in two yellow banners stacked over the board
// ("Not saved yet — retrying…" and "Reconnecting…"); it says it once.
func TestBrowserOneYellowBanner(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "banners.db")
	srv := serveApp(t, dsn, "127.0.0.1:0")
	addr := strings.TrimPrefix(srv.base, "http://")
	_, phone, _ := fullTableWithBen(t, srv.base)
	yellow := `.sync-state[data-state=retrying], .banner.reconnecting`

	srv.stop()
	phone.waitFor("the reconnecting banner", `document.querySelector('.banner.reconnecting')?.getClientRects().length > 0`)
	phone.step("/players/1/board/supply", 2)
	phone.waitTextHas(`[data-testid=save-state]`, "Not saved yet — retrying")
	phone.screenshot("one-yellow-banner")
	if n := phone.visibleCount(yellow); n != 1 {
		t.Errorf("%d yellow banners show while the server is gone and a change waits, want 1", n)
	}

	srv = serveApp(t, dsn, addr)
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	phone.waitFor("the banners to go", `[...document.querySelectorAll(`+js(yellow)+`)].every((e) => e.getClientRects().length === 0)`)
	phone.checkConsole()
}

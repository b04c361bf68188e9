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

	srv = srv.restart()
	phone.waitTextNow(`[data-testid=save-state]`, "Saved")
	phone.waitFor("the banners to go", `[...document.querySelectorAll(`+js(yellow)+`)].every((e) => e.getClientRects().length === 0)`)
	phone.checkConsole()
}

// continentRoom is, for each continent button of the open tile sheet, its
// label and the room left between the label's text and the button's
// edges, on the narrower side, in CSS pixels.
func (b *browser) continentRoom() map[string]float64 {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]float64](`Object.fromEntries([...document.querySelectorAll('dialog .continent-pick button')].map((btn) => {
		const r = document.createRange();
		r.selectNodeContents(btn);
		const text = r.getBoundingClientRect(), box = btn.getBoundingClientRect();
		return [btn.textContent.trim(), Math.min(text.left - box.left, box.right - text.right)];
	}))`))
	if err != nil {
		b.t.Fatal(err)
	}
	return got
}

// TestBrowserContinentLabelsHaveRoom (issue 25, item 10): at a phone's
// width "America" filled its continent button edge to edge; every
// continent's name keeps some room inside its button, in every language.
func TestBrowserContinentLabelsHaveRoom(t *testing.T) {
	base := startApp(t)
	for _, lang := range []string{"en", "de", "es"} {
		b := newBrowserIn(t, base, lang)
		b.do(chromedp.Navigate(base+"/score/insecta"), chromedp.WaitVisible(chromedp.CSS(`#panel-0 button.tile[data-row="0"][data-col="0"]`)),
			chromedp.Click(chromedp.CSS(`#panel-0 button.tile[data-row="0"][data-col="0"]`)),
			chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] .continent-pick button`)))
		room := b.continentRoom()
		t.Logf("%s: %v", lang, room)
		if len(room) != 5 {
			t.Fatalf("in %s the tile sheet has continent buttons %v, want 5", lang, room)
		}
		for label, px := range room {
			if px < 6 {
				t.Errorf("in %s %q has %.1f px between its name and its button's edge, want at least 6", lang, label, px)
			}
		}
		b.screenshot("continents-" + lang)
		b.checkConsole()
	}
}

package pwa_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// lbOverflow lists what of the leaderboard on screen does not fit its
// width: the page or the table's frame scrolling sideways, a header or a
// cell whose right edge is past the frame's or the viewport's, and a
// header whose words are wider than its cell. Empty when all of it fits.
func (b *browser) lbOverflow() []string {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
		const out = [];
		const page = document.scrollingElement;
		if (page.scrollWidth > page.clientWidth) out.push('the page scrolls sideways: ' + page.scrollWidth + ' > ' + page.clientWidth);
		const frame = document.querySelector('.lb-scroll');
		if (frame.scrollWidth > frame.clientWidth) out.push('the table scrolls sideways: ' + frame.scrollWidth + ' > ' + frame.clientWidth);
		const right = Math.min(innerWidth, frame.getBoundingClientRect().right);
		for (const cell of document.querySelectorAll('table.lb th, table.lb td')) {
			const r = cell.getBoundingClientRect();
			const name = (cell.closest('thead') ? 'header ' : 'cell ') + JSON.stringify(cell.textContent.trim());
			if (r.right > right + 0.5 || r.left < -0.5) out.push(name + ' spans ' + Math.round(r.left) + '–' + Math.round(r.right) + ', the frame ends at ' + Math.round(right));
			if (cell.scrollWidth > cell.clientWidth + 1) out.push(name + ' is cut: ' + cell.scrollWidth + ' wide in ' + cell.clientWidth);
		}
		return out;
	})()`))
	if err != nil {
		b.t.Fatalf("measuring the leaderboard: %v", err)
	}
	return got
}

// TestBrowserLeaderboardFitsInEveryLanguage (issue 25, item 7): at 390 px
// the German and Spanish leaderboards scrolled sideways, their "Wertung"
// and "Mejor" columns cut off. In English, German and Spanish, a board
// with wide figures (two-digit plays and points, 100 %, a provisional
// player) fits: no sideways scroll, every header and cell whole and on
// screen, headers that are abbreviated name the column in full, every
// target thumb-sized and no serious axe violation, light or dark.
func TestBrowserLeaderboardFitsInEveryLanguage(t *testing.T) {
	base := startApp(t)
	day := time.Now().Add(-300 * time.Hour).Truncate(time.Minute)
	// Ana wins all 12 plays, Ben plays them all, Cleo one: 12 plays, 100 %,
	// totals of two digits; Cleo is provisional.
	for i := range 12 {
		players := []seedPlayer{{"Ana", displayBoard(20 + i%3*2)}, {"Benedikt", displayBoard(14)}}
		if i == 11 {
			players = append(players, seedPlayer{"Cleo", displayBoard(0)})
		}
		postPlay(t, base, "default", "insectarium", day.Add(time.Duration(i)*time.Hour), players...)
	}

	for _, lang := range []string{"en", "de", "es"} {
		t.Run(lang, func(t *testing.T) {
			b := newBrowserIn(t, base, lang)
			b.do(chromedp.Navigate(base+"/leaderboards/insectarium"), chromedp.WaitVisible(chromedp.CSS(`table.lb-points [data-testid=lb-row]`)))
			b.waitFor("the leaderboard in "+lang, `innerWidth === 390 && document.documentElement.lang === `+js(lang)+` && document.querySelectorAll('[data-testid=lb-row]').length === 3`)
			if w := b.countOf(`table.lb thead th`); w != 8 {
				t.Fatalf("the leaderboard has %d columns, want 8", w)
			}
			// The least width the table can take, for the log.
			width, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]int](`(() => {
				const table = document.querySelector('table.lb');
				table.style.width = '0';
				const least = table.offsetWidth;
				table.style.width = '';
				return [least, document.querySelector('.lb-scroll').clientWidth];
			})()`))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: the leaderboard needs %d px, its frame has %d px", lang, width[0], width[1])
			for _, o := range b.lbOverflow() {
				t.Errorf("%s at 390 px: %s", lang, o)
			}
			// A header shortened to fit still names its column in full,
			// for a screen reader and a long press.
			heads, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('table.lb thead th')].map((th) => {
				const abbr = th.querySelector('abbr');
				return th.textContent.trim() + '=' + (abbr ? abbr.title : th.textContent.trim());
			})`))
			if err != nil {
				t.Fatal(err)
			}
			full := map[string][]string{
				"en": {"Position", "Player", "Plays", "Wins", "Win rate", "Average score", "Best score", "Rating"},
				"de": {"Platz", "Spieler", "Partien", "Siege", "Siegquote", "Durchschnittliche Punkte", "Beste Punktzahl", "Wertung"},
				"es": {"Posición", "Jugador", "Partidas", "Victorias", "Porcentaje de victorias", "Puntuación media", "Mejor puntuación", "Valoración"},
			}[lang]
			for i, h := range heads {
				shown, title, _ := strings.Cut(h, "=")
				if shown == "" || title != full[i] {
					t.Errorf("%s: column %d reads %q and is named %q, want it named %q", lang, i+1, shown, title, full[i])
				}
			}
			b.screenshot("lb-390-" + lang)
			b.checkScreen("leaderboard-390-" + lang)
			b.checkConsole()
		})
	}
}

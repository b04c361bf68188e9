package pwa_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ratingView is a player's "Rating over time" beside the header's rating,
// as the page shows them in one game.
type ratingView struct {
	// Header is the rating the stats show ("–" while provisional).
	Header string
	// Dots are the ratings the chart's dots name, oldest first; Value is
	// the rating written on the chart in figures; Ticks the axis' labels.
	Dots  []string
	Value string
	Ticks []string
	Desc  string
	// Soon is the sentence shown instead of a chart, From the one under it.
	Soon, From string
}

// ratingView reads a player's rating header and chart in game.
func (b *browser) ratingView(game string) ratingView {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[ratingView](`(() => {
		const sec = document.querySelector('#pgame-`+game+`');
		const svg = sec.querySelector('[data-testid=rating-chart] svg');
		const text = (css) => (sec.querySelector(css)?.textContent ?? '').trim();
		return {
			Header: text('.stat[data-stat=rating] dd'),
			Dots: svg ? [...svg.querySelectorAll('circle.chart-dot title')].map((t) => t.textContent.replace(/^.*: \S+ /, '')) : [],
			Value: svg ? (svg.querySelector('.chart-value')?.textContent ?? '') : '',
			Ticks: svg ? [...svg.querySelectorAll('.chart-axes text.chart-label')].map((t) => t.textContent) : [],
			Desc: svg ? (svg.querySelector('desc')?.textContent ?? '') : '',
			Soon: text('[data-testid=rating-soon]'),
			From: text('[data-testid=rating-from]'),
		};
	})()`))
	if err != nil {
		b.t.Fatalf("reading the rating chart: %v", err)
	}
	return v
}

// TestBrowserRatingChartAgreesWithHeader (issue 25, item 5): the player
// page's header said "RATING –" (provisional: the rating shows from the
// third play with others), while "Rating over time" drew an unlabelled dot
// near 3.4. Now, while the rating is provisional, the panel says in words
// how many more plays with others it needs, in English, German and
// Spanish, and draws nothing; from the third play on the chart starts at
// the first rating shown, its newest dot is labelled with the header's
// figure, and each dot is the rating the header showed after that play.
func TestBrowserRatingChartAgreesWithHeader(t *testing.T) {
	base := startApp(t)
	day := time.Now().Add(-96 * time.Hour).Truncate(time.Minute)
	play := func(i int) {
		postPlay(t, base, "default", "insectarium", day.Add(time.Duration(i)*24*time.Hour),
			seedPlayer{"Ana", displayBoard(8 - 2*(i%2))}, seedPlayer{"Ben", displayBoard(2 + 4*(i%2))})
	}
	play(0)
	var lb struct {
		Entries []struct{ Player, PlayerID string }
	}
	apiJSON(t, http.MethodGet, base+"/api/v1/leaderboards/insectarium?group=default", "", nil, http.StatusOK, &lb)
	if len(lb.Entries) != 2 || lb.Entries[0].Player != "Ana" {
		t.Fatalf("the leaderboard is %+v, want Ana first of two", lb.Entries)
	}
	page := base + "/players/" + lb.Entries[0].PlayerID
	b := newBrowser(t, base)
	open := func() ratingView {
		t.Helper()
		b.do(chromedp.Navigate(page), chromedp.WaitVisible(chromedp.CSS(`#pgame-insectarium .chart-panel h2`)))
		return b.ratingView("insectarium")
	}

	// One and two plays with others: provisional, no chart.
	for plays, want := range []string{
		1: "The rating shows after 3 plays with others: 2 more to go.",
		2: "The rating shows after 3 plays with others: 1 more to go.",
	} {
		if plays == 0 {
			continue
		}
		if plays == 2 {
			play(1)
		}
		v := open()
		b.screenshot("rating-provisional-" + string(rune('0'+plays)))
		if v.Header != "–" {
			t.Fatalf("after %d plays Ana's rating reads %q, want – (provisional)", plays, v.Header)
		}
		if len(v.Dots) != 0 || v.Value != "" {
			t.Errorf("after %d plays the header hides Ana's rating, yet the chart draws %v (labelled %q)", plays, v.Dots, v.Value)
		}
		if v.Soon != want {
			t.Errorf("after %d plays the rating panel says %q, want %q", plays, v.Soon, want)
		}
	}
	b.checkScreen("player-provisional")

	// The same, in German and Spanish, where the count has its plural.
	b.do(chromedp.Navigate(base + "/"))
	for lang, want := range map[string]string{
		"de": "Die Wertung erscheint nach 3 Partien mit anderen: noch 1 Partie.",
		"es": "La valoración aparece tras 3 partidas con otros: falta 1 más.",
	} {
		b.switchLanguage(lang)
		b.waitFor("the app in "+lang, `document.documentElement.lang === `+js(lang))
		if v := open(); v.Soon != want {
			t.Errorf("in %s the rating panel says %q, want %q", lang, v.Soon, want)
		}
		b.do(chromedp.Navigate(base + "/"))
	}
	b.switchLanguage("en")
	b.waitFor("the app in English", `document.documentElement.lang === 'en'`)

	// The third play: the header shows a rating, and the chart that one,
	// in figures, over an axis with figures.
	play(2)
	v := open()
	b.screenshot("rating-third")
	number := regexp.MustCompile(`^-?\d+\.\d$`)
	if !number.MatchString(v.Header) {
		t.Fatalf("after 3 plays Ana's rating reads %q, want a figure", v.Header)
	}
	third := v.Header
	if !slices.Equal(v.Dots, []string{third}) || v.Value != third {
		t.Errorf("after 3 plays the chart draws %v labelled %q, want the header's %s alone", v.Dots, v.Value, third)
	}
	if v.Soon != "" || !strings.Contains(v.Desc, "after 3 rated plays") || !strings.Contains(v.Desc, third) {
		t.Errorf("after 3 plays: sentence %q, description %q; want none, and the rating after 3 rated plays", v.Soon, v.Desc)
	}
	if v.From != "The chart starts where the rating first shows, after 3 plays with others." {
		t.Errorf("under the chart: %q", v.From)
	}
	figures := 0
	axisFigure := regexp.MustCompile(`^-?\d+(\.\d)?$`)
	for _, tick := range v.Ticks {
		if axisFigure.MatchString(tick) {
			figures++
		}
	}
	if figures < 2 {
		t.Errorf("the chart's axis reads %q, want figures to read a value by", v.Ticks)
	}

	// The fourth: two dots, the header's rating after each play.
	play(3)
	v = open()
	b.screenshot("rating-fourth")
	if !slices.Equal(v.Dots, []string{third, v.Header}) || v.Value != v.Header {
		t.Errorf("after 4 plays the chart draws %v labelled %q, want %s then the header's %s", v.Dots, v.Value, third, v.Header)
	}
	if !strings.Contains(v.Desc, "after rated plays 3 to 4") {
		t.Errorf("after 4 plays the chart is described as %q", v.Desc)
	}
	// Two ratings a tenth apart: the axis' figures still differ.
	seen := map[string]bool{}
	for _, tick := range v.Ticks {
		if seen[tick] {
			t.Errorf("after 4 plays the chart's axis reads %q: %s twice", v.Ticks, tick)
		}
		seen[tick] = true
	}
	b.checkScreen("player-rated")
	b.checkConsole()
}

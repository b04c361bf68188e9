package pwa_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestBrowserGroupIsNotATable holds issue 25's sixth point: a new player's
// home screen shows the group they are in as a chip just above "Start a
// table", and a table there is a live game shared by its code. The chip
// names the default group with the app's word for a group, in English,
// German and Spanish, and never with the word for a table. A phone that
// kept the name the server gave before ("Our table") shows the new one.
func TestBrowserGroupIsNotATable(t *testing.T) {
	base := startApp(t)
	for _, c := range []struct{ lang, title, group, table string }{
		{"en", "Score a game", "Our group", "table"},
		{"de", "Ein Spiel werten", "Unsere Spielerunde", "Tisch"},
		{"es", "Puntuar una partida", "Nuestro grupo", "mesa"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			b := newBrowserIn(t, base, c.lang)
			b.do(chromedp.Navigate(base + "/"))
			b.homeIn(c.lang, c.title)
			b.waitText(`.group-chip [data-testid=current-group]`, c.group)
			start := b.textNow(`[data-testid=start-table]`)
			if !strings.Contains(strings.ToLower(start), strings.ToLower(c.table)) {
				t.Fatalf("the home screen's start button reads %q, want the word for a table, %q", start, c.table)
			}
			// What a person and a screen reader meet in the chip.
			if chip := b.wordsIn(`.group-chip`); strings.Contains(strings.ToLower(chip), strings.ToLower(c.table)) {
				t.Errorf("the group chip reads %q: it says %q, as %q does", chip, c.table, start)
			}
			b.screenshot("home-group-chip-" + c.lang)

			// A phone that kept the default group's old name from the server.
			b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore.groups', JSON.stringify([{id: 'default', name: 'Our table'}]))`),
				chromedp.Reload())
			b.homeIn(c.lang, c.title)
			b.waitText(`.group-chip [data-testid=current-group]`, c.group)
			b.checkConsole()
		})
	}
}

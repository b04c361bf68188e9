package pwa_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// newBrowserIn starts a Chromium whose language is lang: its UI language,
// navigator.languages and the Accept-Language it sends.
func newBrowserIn(t *testing.T, base, lang string) *browser {
	t.Helper()
	chrome := newChromium(t, chromedp.Flag("lang", lang), chromedp.Flag("accept-lang", lang))
	return newTab(t, chrome, base, false)
}

// englishOnHome are texts of the home screen in English, none of which
// may show when the app speaks another language.
var englishOnHome = []string{
	"Score a game", "Enter the final boards", "Everyone on their own phone", "Start a table", "Have a table code?",
	"Join", "What your group played", "History", "Leaderboards", "Log a past play", "players", "Our group", "Language",
}

// switchLanguage picks a language in the home screen's switch, as a tap
// and a choice in the list would.
func (b *browser) switchLanguage(lang string) {
	b.t.Helper()
	b.do(chromedp.WaitVisible(chromedp.CSS(`select[data-testid=language]`)),
		chromedp.Evaluate[chromedp.Void](`(() => {
			const sel = document.querySelector('select[data-testid=language]');
			sel.value = `+js(lang)+`;
			sel.dispatchEvent(new Event('change', { bubbles: true }));
		})()`))
}

// homeIn waits until the home screen speaks lang, with the title want.
func (b *browser) homeIn(lang, want string) {
	b.t.Helper()
	b.waitFor("the home screen in "+lang, `document.documentElement.lang === `+js(lang)+
		` && document.querySelector('h1')?.textContent === `+js(want)+` && !!document.querySelector('a.game-btn')`)
}

// apiLanguages notes the Accept-Language the page itself puts on each of
// its API requests.
type apiLanguages struct {
	mu   sync.Mutex
	seen map[string]string // path → Accept-Language
}

func (b *browser) watchAPILanguages() *apiLanguages {
	b.t.Helper()
	w := &apiLanguages{seen: map[string]string{}}
	err := chromedp.Listen(b.ctx, func(ev any) {
		e, ok := ev.(*network.EventRequestWillBeSent)
		if !ok || !strings.Contains(e.Request.URL, "/api/") {
			return
		}
		v, _ := e.Request.Headers["Accept-Language"].(string)
		w.mu.Lock()
		w.seen[strings.TrimPrefix(e.Request.URL, b.base)] = v
		w.mu.Unlock()
	})
	if err != nil {
		b.t.Fatal(err)
	}
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, network.Enable, network.EnableParams{})
		return err
	}))
	return w
}

func (w *apiLanguages) snapshot() map[string]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]string{}
	for k, v := range w.seen {
		out[k] = v
	}
	return out
}

// TestBrowserLanguage: a German browser gets the app in German, with no
// English left on the home screen; the switch changes the language at
// once, API requests say which, the choice outlives a reload, and
// switching works offline (the service worker keeps every catalog).
func TestBrowserLanguage(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	b.do(chromedp.Navigate(base + "/"))
	b.homeIn("de", "Ein Spiel werten")
	body := b.textNow("body")
	for _, en := range englishOnHome {
		if strings.Contains(body, en) {
			t.Errorf("the German home screen shows the English %q", en)
		}
	}
	for _, de := range []string{"Tisch eröffnen", "Verlauf", "Bestenlisten", "Spieler", "Sprache der App"} {
		if !strings.Contains(body, de) {
			t.Errorf("the German home screen lacks %q", de)
		}
	}
	b.waitOfflineReady()

	// The switch: Spanish at once, and the API is asked in Spanish.
	api := b.watchAPILanguages()
	b.switchLanguage("es")
	b.homeIn("es", "Puntuar una partida")
	if got := b.textNow(`select[data-testid=language] option:checked`); got != "Español" {
		t.Errorf("the switch shows %q, want Español", got)
	}
	b.do(chromedp.Navigate(base + "/history"))
	waitFor(t, "an API request from the history", func() bool { return len(api.snapshot()) > 0 })
	for path, lang := range api.snapshot() {
		if lang != "es" {
			t.Errorf("%s was asked with Accept-Language %q, want es", path, lang)
		}
	}

	// Remembered: a reload comes back in Spanish, though the browser is German.
	b.do(chromedp.Navigate(base + "/"))
	b.homeIn("es", "Puntuar una partida")

	// Offline, the shell comes from the service worker, and every
	// language from its cache.
	b.setOffline(true)
	b.do(chromedp.Reload())
	b.homeIn("es", "Puntuar una partida")
	b.switchLanguage("en")
	b.homeIn("en", "Score a game")
	b.switchLanguage("de")
	b.homeIn("de", "Ein Spiel werten")
	b.do(chromedp.Reload())
	b.homeIn("de", "Ein Spiel werten")
	b.setOffline(false)
	b.checkConsole()
}

// TestBrowserLanguageEnglishByDefault: a browser in a language the app
// does not speak gets English, and its switch offers the three languages,
// each named in itself.
func TestBrowserLanguageEnglishByDefault(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "fr")
	b.do(chromedp.Navigate(base + "/"))
	b.homeIn("en", "Score a game")
	if got := b.textNow(`select[data-testid=language]`); got != "EnglishDeutschEspañol" {
		t.Errorf("the switch offers %q", got)
	}
	b.checkConsole()
}

// englishOnTable are texts of the live table's screens in English (text,
// labels, placeholders, alt texts), none of which may show when the app
// speaks German.
var englishOnTable = []string{
	"Start a table", "Add a player", "Create the table", "The QR code comes next", "Your name", "Name, or leave empty",
	"Invite players", "Scan it with the camera", "Join link", "Show the QR code bigger", "Table code", "QR code that opens",
	"Players and standings", "Finish game", "on host's phone", "more player", "can join with the code", "standings live",
	"Reconnecting", "Games", "Standings", "'s board", "rank ", "no rank yet",
}

// screenWords is everything a screen says: its text, hidden parts too, and
// its labels, placeholders, titles and alt texts.
func (b *browser) screenWords() string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`[document.body.textContent,
		...[...document.querySelectorAll('[aria-label], [placeholder], [title], [alt]')].flatMap((el) =>
			['aria-label', 'placeholder', 'title', 'alt'].map((a) => el.getAttribute(a) ?? ''))].join('\n')`))
	if err != nil {
		b.t.Fatalf("reading the screen: %v", err)
	}
	return s
}

// TestBrowserTableInGerman: a German browser gets the live table's screens
// in German (starting a table, the host's screen, a seat the host fills
// in), with none of their English left.
func TestBrowserTableInGerman(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	b.do(chromedp.Navigate(base+"/tables/new"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=create-table]`)))
	b.waitFor("the new table screen in German", `document.documentElement.lang === 'de' && document.querySelector('h1')?.textContent === 'Tisch eröffnen'`)
	noEnglish := func(screen string) string {
		t.Helper()
		words := b.screenWords()
		for _, en := range englishOnTable {
			if strings.Contains(words, en) {
				t.Errorf("the German %s shows the English %q", screen, en)
			}
		}
		return words
	}
	words := noEnglish("new table screen")
	for _, de := range []string{"Tisch erstellen", "+ Spieler hinzufügen", "Spieler 1 (du?)", "Als Nächstes kommt der QR-Code."} {
		if !strings.Contains(words, de) {
			t.Errorf("the German new table screen lacks %q", de)
		}
	}

	code := b.startTable("insectarium", "Ana", "Ben", "Cleo")
	b.waitTextNow(`.seats-panel .hint`, "1 weiterer Spieler kann mit dem Code beitreten.")
	words = noEnglish("host screen")
	for _, de := range []string{"Spieler einladen", "Spiel beenden", "auf dem Handy des Gastgebers", "Beitrittslink", "Tisch " + code, "Rang"} {
		if !strings.Contains(words, de) {
			t.Errorf("the German host screen lacks %q", de)
		}
	}

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=edit-0]`)),
		chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	b.waitTextNow(`h1`, "Auslage von Ana")
	noEnglish("seat screen")
	b.checkConsole()
}

func (b *browser) wordsOf(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
		const root = document.querySelector(`+js(css)+`);
		if (!root) return '';
		const out = [root.textContent];
		for (const el of root.querySelectorAll('[aria-label], [title], [placeholder]')) {
			out.push(el.getAttribute('aria-label') ?? '', el.getAttribute('title') ?? '', el.getAttribute('placeholder') ?? '');
		}
		return out.join(' | ');
	})()`))
	if err != nil {
		b.t.Fatalf("reading %s: %v", css, err)
	}
	return s
}

func TestBrowserLanguageScoreForms(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	for _, c := range []struct {
		game, ready, open string
		english, german   []string
	}{
		{
			game: "insecta", ready: `#panel-0 button.tile[data-row="0"][data-col="0"]`, open: `#panel-0 button.tile[data-row="0"][data-col="0"]`,
			english: []string{"Researcher", "Collection", "Tap a space", "No tiles yet", "Scoring track", "Journal fragments",
				"Medals claimed", "Add medal", "Row 1, column 1", "empty", "Mail tile", "Order (optional)", "Size (optional)",
				"Wreath", "Continent", "Next ›", "Back", "Done", "Remove"},
			german: []string{"Forscherin", "Sammlung", "Noch keine Plättchen", "Wertungsleiste", "Reihe 1, Spalte 1: leer",
				"Postplättchen", "Kontinent: fügt das Insekt hinzu", "Weiter ›"},
		},
		{
			game: "insectarium", ready: `#panel-0 button.card[data-pointer="/players/0/board/grid/0/0"]`, open: `#panel-0 button.card[data-pointer="/players/0/board/grid/0/0"]`,
			english: []string{"Display board", "Tools on the display", "full sets", "Add card", "Unused tokens", "Tool bonuses",
				"Token", "not chosen", "Row 1, column 1", "Colour and insect", "Display tools", "Card name", "Dragonfly",
				"Points: adds the card", "Next ›", "Done", "Clear"},
			german: []string{"Schautafel", "Werkzeuge auf der Schautafel", "Karte hinzufügen", "Unbenutzte Marker",
				"Marker von Reihe 1", "Farbe und Insekt", "Libelle", "Punkte: fügt die Karte hinzu"},
		},
		{
			game: "insektenhotel", ready: `#panel-0 .floor`,
			english: []string{"Floor 1", "Floors", "Species", "Guests", "Pair", "Each floor takes", "rooms"},
			german:  []string{"Etage 1", "Etagen", "Art", "Gäste", "Paar", "Jede Etage nimmt"},
		},
	} {
		b.do(chromedp.Navigate(base+"/score/"+c.game), chromedp.WaitVisible(chromedp.CSS(c.ready)))
		words := b.wordsOf("main")
		if c.open != "" {
			b.do(chromedp.Click(chromedp.CSS(c.open)), chromedp.WaitVisible(chromedp.CSS(`dialog.sheet`)))
			words += " | " + b.wordsOf("dialog.sheet")
			b.do(chromedp.Click(chromedp.CSS(`dialog .sheet-done`)), chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
		}
		for _, en := range c.english {
			if strings.Contains(words, en) {
				t.Errorf("the German %s form shows the English %q", c.game, en)
			}
		}
		for _, de := range c.german {
			if !strings.Contains(words, de) {
				t.Errorf("the German %s form lacks %q", c.game, de)
			}
		}
	}
	b.checkConsole()
}

// syncModule is the URL of one of this build's sync/ modules in the page
// (local.js, outbox.js, …): importing it there gives the app's own
// outbox, not a second one.
func syncModule(name string) string {
	return `new URL('sync/` + name + `', document.querySelector('script[type="module"][src]').src).href`
}

// TestBrowserOutboxLabelsFollowTheLanguage: a change queued offline in
// German is named in Spanish after a switch, in the outbox and in the sync
// strip's list of refusals, and in English after another switch; an op an
// older version of the app kept with its words only shows those words.
func TestBrowserOutboxLabelsFollowTheLanguage(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	b.do(chromedp.Navigate(base + "/"))
	b.homeIn("de", "Ein Spiel werten")
	b.waitOfflineReady()
	b.setOffline(true)

	// An op as an older version kept it, with a label and no key; the
	// outbox reads it when the app starts again. The play it deletes does
	// not exist, so the server will refuse it.
	b.do(chromedp.Evaluate[chromedp.Void](`(async () => {
		const local = await import(`+syncModule("local.js")+`);
		local.putLocal('outbox', [...(local.getLocal('outbox') ?? []), {
			id: 'old-op', kind: 'deletePlay', lane: 'old', method: 'DELETE', path: '/api/v1/plays/nosuchplay?group=default',
			headers: {}, label: 'an old English label', createdAt: Date.now(), attempts: 0, nextAt: 0, lastError: '',
		}]);
		await local.flushed();
	})()`, chromedp.EvalAwaitPromise))
	b.do(chromedp.Reload())
	b.homeIn("de", "Ein Spiel werten")
	// A change queued offline in German, which the server will refuse too.
	b.do(chromedp.Evaluate[chromedp.Void](`import(`+syncModule("history.js")+`).then((history) => {
		history.deletePlay('default', 'nosuchplay').catch(() => {});
	})`, chromedp.EvalAwaitPromise))

	b.switchLanguage("es")
	b.homeIn("es", "Puntuar una partida")
	labels, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`import(`+syncModule("outbox.js")+`).then((outbox) => outbox.pending().map(outbox.opLabel))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"an old English label", "borrar una partida"}; !slices.Equal(labels, want) {
		t.Errorf("after the switch to Spanish the outbox names its changes %q, want %q", labels, want)
	}

	// Back online, the server refuses both, and the strip says so in Spanish.
	b.setOffline(false)
	b.waitTextHas(`[data-testid=refused]`, "Sin guardar: borrar una partida.")
	b.waitTextHas(`[data-testid=refused]`, "Sin guardar: an old English label.")
	b.switchLanguage("en")
	b.waitTextHas(`[data-testid=refused]`, "Not saved: deleting a play.")
	b.checkConsole()
}

// TestBrowserBareProblemInGerman: an error answer with neither detail nor
// title (a proxy's bare 404, say) still reads in the app's language.
func TestBrowserBareProblemInGerman(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	b.do(chromedp.Navigate(base + "/"))
	b.homeIn("de", "Ein Spiel werten")
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`import(`+syncModule("http.js")+`).then((http) => http.toApiError(404, {}).message)`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := "der Server antwortete 404"; got != want {
		t.Errorf("a bare 404 problem reads %q, want %q", got, want)
	}
	b.checkConsole()
}

package pwa_test

import (
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// These tests hold issue 25's ninth point: "Keep in history", under a quick
// score's results, records the play in one tap (no "Log a past play" form,
// no "Save play"), once, through the outbox.

// keptPlays is the default group's plays, newest first, as the API has them.
func keptPlays(t *testing.T, base string) []struct {
	ID      string
	Results []struct {
		Player, PlayerID string
		Total            int
	}
} {
	t.Helper()
	var out struct {
		Plays []struct {
			ID      string
			Results []struct {
				Player, PlayerID string
				Total            int
			}
		}
	}
	apiJSON(t, http.MethodGet, base+"/api/v1/plays?limit=100", "", nil, http.StatusOK, &out)
	return out.Plays
}

// TestBrowserKeepInHistoryOneTap scores the Insectarium rulebook example
// in the form as "ana" and keeps it: one tap records one play, for the
// group's Ana, and the results lead to it; a reload records nothing more.
// A quick score with an unnamed player asks that name only (not twice,
// however fast the taps), then keeps it the same way.
func TestBrowserKeepInHistoryOneTap(t *testing.T) {
	base := startApp(t)
	seed := postPlay(t, base, "default", "insectarium", time.Now().Add(-time.Hour), seedPlayer{"Ana", displayBoard(0)})
	anaID := keptPlays(t, base)[0].Results[0].PlayerID
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	b.rename(0, "ana")
	enterInsectariumExample(b)
	b.waitText(`[data-testid=live-total]`, "34")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-play]`)))
	b.waitFor("one tap on Keep in history to lead to the kept play", `!!document.querySelector('a[data-testid=kept-play]')`)

	if loc := b.location(); loc != base+"/score/insectarium/results" {
		t.Errorf("after Keep in history the page is %s, want the results still", loc)
	}
	if n := b.countOf(`[data-testid=save-play]`); n != 0 {
		t.Errorf("Keep in history shows a form to save again (%d Save play buttons)", n)
	}
	b.waitTextHas(`[data-testid=screen-notice]`, "Kept in history")
	b.checkScreen("keep-kept-results")
	plays := keptPlays(t, base)
	if len(plays) != 2 || plays[1].ID != seed {
		t.Fatalf("the history has %d plays, want the seeded one and the one kept: %+v", len(plays), plays)
	}
	kept := plays[0]
	if len(kept.Results) != 1 || kept.Results[0].Player != "Ana" || kept.Results[0].PlayerID != anaID || kept.Results[0].Total != 34 {
		t.Errorf("the kept play is %+v, want the group's Ana (%s) with 34 points", kept.Results, anaID)
	}
	href, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=kept-play]').getAttribute('href') ?? ''`))
	if href != "/plays/"+kept.ID {
		t.Errorf("the results lead to %q, want the kept play /plays/%s", href, kept.ID)
	}

	// A reload, and every way back to the results, keeps nothing again.
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	if n := b.countOf(`[data-testid=keep-play]`); n != 0 {
		t.Errorf("after a reload the results offer to keep the game again")
	}
	time.Sleep(time.Second)
	if n := len(keptPlays(t, base)); n != 2 {
		t.Errorf("after a reload the history has %d plays, want 2", n)
	}
	b.do(chromedp.Click(chromedp.CSS(`a[data-testid=kept-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	if got := b.textNow(`.standing.winner .who-name`); got != "Ana" {
		t.Errorf("the kept play's winner reads %q, want Ana", got)
	}

	// Cleo and a player with no name: tapped twice at once, the sheet asks
	// for the one name (and will not keep without it), then keeps once.
	entry := quickEntry(t, seedPlayer{"Cleo", fullHotel}, seedPlayer{"", partHotel})
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insektenhotel', `+js(entry)+`)`),
		chromedp.Navigate(base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))
	b.do(chromedp.Evaluate[chromedp.Void](`(() => { const k = document.querySelector('[data-testid=keep-play]'); k.click(); k.click(); })()`),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-name-1]`)))
	if n := b.countOf(`dialog.sheet`); n != 1 {
		t.Errorf("two taps opened %d sheets, want 1", n)
	}
	if n := b.countOf(`[data-testid^=keep-name-]`); n != 1 {
		t.Errorf("the sheet asks %d names, want only the missing one", n)
	}
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-named]`)))
	b.waitTextHas(`dialog.sheet .msgs`, "Give this player a name")
	b.do(sendKeys(chromedp.CSS(`[data-testid=keep-name-1]`), "cleo"), chromedp.Click(chromedp.CSS(`[data-testid=keep-named]`)))
	b.waitTextHas(`dialog.sheet .msgs`, "already in this game")
	b.checkScreen("keep-ask-name")
	if n := len(keptPlays(t, base)); n != 2 {
		t.Errorf("with a name missing or taken, the history has %d plays, want 2", n)
	}
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-name-1]`)), chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)),
		sendKeys(chromedp.CSS(`[data-testid=keep-name-1]`), "Ben"), chromedp.Click(chromedp.CSS(`[data-testid=keep-named]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	plays = keptPlays(t, base)
	if len(plays) != 3 {
		t.Fatalf("the history has %d plays, want 3", len(plays))
	}
	if r := plays[0].Results; len(r) != 2 || r[0].Player != "Cleo" || r[1].Player != "Ben" {
		t.Errorf("the kept play is %+v, want Cleo and Ben", r)
	}
	if got := b.textNow(`.standing:not(.winner) .who-name`); got != "Ben" {
		t.Errorf("the results name the player %q after keeping, want Ben", got)
	}
	b.checkConsole()
}

// TestBrowserKeepInHistoryServerDown keeps a quick score while the server
// is down: the tap keeps it on the phone and says so; the play reaches the
// history once the server is back (the same SQLite file), exactly once,
// and the results then lead to it.
func TestBrowserKeepInHistoryServerDown(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "keep.db")
	srv := serveApp(t, dsn, "127.0.0.1:0")
	b := newBrowser(t, srv.base)
	b.do(chromedp.Navigate(srv.base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.waitOfflineReady()
	entry := quickEntry(t, seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insektenhotel', `+js(entry)+`)`),
		chromedp.Navigate(srv.base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))

	srv.stop()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-play]`)))
	b.waitFor("one tap on Keep in history to keep the game on the phone", `!!document.querySelector('button[data-testid=kept-play][disabled]')`)
	b.waitTextHas(`[data-testid=screen-notice]`, "kept on this phone")
	if n := b.countOf(`[data-testid=save-play]`); n != 0 {
		t.Errorf("Keep in history shows a form to save again")
	}
	b.noVagueErrors()
	b.screenshot("keep-server-down")

	srv = srv.restart()
	waitForUpTo(t, 30*time.Second, "the kept play to reach the server", func() bool { return countPlays(t, srv.base) == 1 })
	b.do(chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	time.Sleep(time.Second)
	if n := countPlays(t, srv.base); n != 1 {
		t.Errorf("the server has %d plays, want the one kept while it was down", n)
	}
	b.checkConsole()
}

// TestBrowserKeepInHistorySpeaksTheLanguage keeps a quick score with an
// unnamed player in a German and a Spanish browser: the sheet that asks
// the name, its error and the note once kept have no English left.
func TestBrowserKeepInHistorySpeaksTheLanguage(t *testing.T) {
	base := startApp(t)
	english := []string{"Who played", "needs everyone", "Player 2", "Give this player a name", "Keep in history", "Kept in history", "Open it below"}
	for _, c := range []struct {
		lang        string
		sheet, kept []string
	}{
		{"de", []string{"Wer hat gespielt", "Spieler 2", "Gib diesem Spieler einen Namen.", "Im Verlauf speichern", "Abbrechen"}, []string{"Im Verlauf gespeichert. Öffne die Partie unten"}},
		{"es", []string{"Quién jugó", "Jugador 2", "Ponle un nombre a este jugador.", "Guardar en el historial", "Cancelar"}, []string{"Guardada en el historial. Ábrela abajo"}},
	} {
		t.Run(c.lang, func(t *testing.T) {
			b := newBrowserIn(t, base, c.lang)
			b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
			entry := quickEntry(t, seedPlayer{"Cleo", fullHotel}, seedPlayer{"", partHotel})
			b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insektenhotel', `+js(entry)+`)`),
				chromedp.Navigate(base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))
			b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-name-1]`)),
				chromedp.Click(chromedp.CSS(`[data-testid=keep-named]`)))
			b.waitFor("the missing name to be marked", `document.querySelector('dialog.sheet .msg-error')`)
			speaks(t, "sheet asking a name", b.wordsIn("dialog.sheet"), english, c.sheet)
			b.do(sendKeys(chromedp.CSS(`[data-testid=keep-name-1]`), "Dev"), chromedp.Click(chromedp.CSS(`[data-testid=keep-named]`)))
			b.waitFor("the results to lead to the kept play", `!!document.querySelector('a[data-testid=kept-play]')`)
			speaks(t, "kept results", b.wordsIn("main"), english, c.kept)
			b.checkConsole()
		})
	}
}

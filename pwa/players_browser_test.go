package pwa_test

import (
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// These tests hold the app to the group's players being at hand (names
// offered as one-tap chips, most recent first, the names fields empty
// until typed), to a rematch, to a quick score kept in history only once,
// to a deleted play that can be undone, to the host's screen showing the
// game, and to leaderboards opening on the game the group plays most.

// chips returns the names a row of name chips offers, in order.
func (b *browser) chips(css string) []string {
	b.t.Helper()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(`+js(css+` .name-chip`)+`)].map((c) => c.textContent)`))
	if err != nil {
		b.t.Fatal(err)
	}
	return got
}

// waitChips waits until a row of chips offers exactly want.
func (b *browser) waitChips(css string, want []string) {
	b.t.Helper()
	deadline := time.Now().Add(liveWait)
	var got []string
	for time.Now().Before(deadline) {
		if got = b.chips(css); slices.Equal(got, want) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.screenshot("failure-" + strings.ReplaceAll(b.t.Name(), "/", "-"))
	b.t.Fatalf("%s offers %q, want %q", css, got, want)
}

// value reads an input's value.
func (b *browser) value(css string) string {
	b.t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector(`+js(css)+`)?.value ?? '<none>'`))
	if err != nil {
		b.t.Fatal(err)
	}
	return v
}

// seedRegulars logs two plays: Ana and Cleo three days ago, Ben and Dan an
// hour ago. Most recent first, the group's players are Ben, Dan, Ana, Cleo.
func seedRegulars(t *testing.T, base string) []string {
	t.Helper()
	postPlay(t, base, "default", "insektenhotel", time.Now().Add(-72*time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Cleo", partHotel})
	postPlay(t, base, "default", "insektenhotel", time.Now().Add(-time.Hour), seedPlayer{"Dan", partHotel}, seedPlayer{"Ben", fullHotel})
	return []string{"Ben", "Dan", "Ana", "Cleo"}
}

// TestBrowserKnownPlayers offers the group's players, most recent first,
// on the quick score, a new table and a logged play; the name fields start
// empty, a blank name counts as "Player N", and offline the chips come
// from the last copy.
func TestBrowserKnownPlayers(t *testing.T) {
	base := startApp(t)
	regulars := seedRegulars(t, base)
	b := newBrowser(t, base)

	// Quick score: empty names with a placeholder, typing gives the name.
	b.do(chromedp.Navigate(base+"/score/insektenhotel"), chromedp.WaitVisible(chromedp.CSS(`#panel-0`)))
	name0 := pointer("/players/0/name") + ` input`
	if v := b.value(name0); v != "" {
		t.Errorf("a new quick score's first name is %q, want an empty field", v)
	}
	if ph, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector(`+js(name0)+`).placeholder`)); ph != "Player 1" {
		t.Errorf("the first name's placeholder is %q, want Player 1", ph)
	}
	b.waitChips(`#panel-0`, regulars)
	b.screenshot("players-quick-chips")
	b.do(sendKeys(chromedp.CSS(name0), "Ana"))
	if v := b.value(name0); v != "Ana" {
		t.Errorf("typing Ana into the first name gives %q", v)
	}
	b.waitTextNow(`#tab-0 .tab-name`, "Ana")

	// The second player is offered everyone but Ana; a tap names him.
	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	b.waitChips(`#panel-1`, []string{"Ben", "Dan", "Cleo"})
	b.do(chromedp.Click(chromedp.CSS(`#panel-1 .name-chip[data-name="Dan"]`)))
	b.waitTextNow(`#tab-1 .tab-name`, "Dan")
	if v := b.value(pointer("/players/1/name") + ` input`); v != "Dan" {
		t.Errorf("after a tap on Dan the second name is %q", v)
	}
	if got := b.textNow(`#panel-1 .name-chip[aria-pressed=true]`); got != "Dan" {
		t.Errorf("the pressed chip is %q, want Dan", got)
	}

	// A third player: blank, shown and scored as Player 3, and "Remove"
	// follows the name typed.
	b.do(chromedp.Click(chromedp.CSS(`.add-player`)), chromedp.WaitVisible(chromedp.CSS(`#panel-2`)))
	b.waitTextNow(`#tab-2 .tab-name`, "Player 3")
	b.waitTextNow(`#panel-2 .remove-player`, "Remove Player 3")
	b.waitTextNow(`#tab-2 .tab-total`, "0")
	if n := b.countOf(`#panel-2 .msg-error`); n != 0 {
		t.Errorf("the blank third name is flagged: %q", b.textNow(`#panel-2 .msg-error`))
	}
	b.do(sendKeys(chromedp.CSS(pointer("/players/2/name")+` input`), "Cleo"))
	b.waitTextNow(`#panel-2 .remove-player`, "Remove Cleo")
	b.waitChips(`#panel-2`, []string{"Ben", "Cleo"})

	// Without the server, the chips come from the copy kept.
	b.blockRequests(base + "/api/v1/groups/*/players")
	b.do(chromedp.Reload(), chromedp.WaitVisible(chromedp.CSS(`#tab-0`)))
	b.do(chromedp.Click(chromedp.CSS(`#tab-0`)), chromedp.WaitVisible(chromedp.CSS(`#panel-0`)))
	b.waitChips(`#panel-0`, []string{"Ben", "Ana"})
	if n := b.countOf(`[data-testid=stale]`); n != 0 {
		t.Errorf("the quick score says it is a copy: %q", b.textNow(`[data-testid=stale]`))
	}
	b.blockRequests()

	// A new table: a tap fills the first empty name, another the next; a
	// tap on a name taken takes it back.
	b.do(chromedp.Navigate(base+"/tables/new"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=create-table]`)))
	b.waitChips(`.new-table`, regulars)
	b.do(chromedp.Click(chromedp.CSS(`.new-table .name-chip[data-name="Ben"]`)),
		chromedp.Click(chromedp.CSS(`.new-table .name-chip[data-name="Ana"]`)),
		chromedp.Click(chromedp.CSS(`.new-table .name-chip[data-name="Cleo"]`)))
	for i, want := range []string{"Ben", "Ana", "Cleo"} {
		if got := b.value(pointer("/players/"+string(rune('0'+i))) + ` input`); got != want {
			t.Errorf("new table: name %d is %q, want %q", i+1, got, want)
		}
	}
	b.screenshot("players-new-table")
	b.do(chromedp.Click(chromedp.CSS(`.new-table .name-chip[data-name="Ben"]`)))
	if got := b.value(pointer("/players/0") + ` input`); got != "" {
		t.Errorf("new table: after a second tap on Ben the first name is %q, want empty", got)
	}

	// Logging a play.
	b.do(chromedp.Navigate(base+"/plays/new?game=insektenhotel"), chromedp.WaitVisible(chromedp.CSS(`#panel-0`)))
	b.waitChips(`#panel-0`, regulars)
	b.do(chromedp.Click(chromedp.CSS(`#panel-0 .name-chip[data-name="Dan"]`)))
	b.waitTextNow(`#tab-0 .tab-name`, "Dan")
	b.checkConsole()
}

// TestBrowserRematch plays a quick score again with the same players, and
// a recorded play again as a table.
func TestBrowserRematch(t *testing.T) {
	base := startApp(t)
	play := postPlay(t, base, "default", "insektenhotel", time.Now().Add(-time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	entry := quickEntry(t, seedPlayer{"Cleo", fullHotel}, seedPlayer{"Dan", partHotel})
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insektenhotel', `+js(entry)+`)`),
		chromedp.Navigate(base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rematch]`)))

	// Here: the boards are not kept, so the rematch asks before clearing them.
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=rematch]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rematch-here]`)))
	b.screenshot("players-rematch")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=rematch-here]`)), chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] .btn-danger`)))
	b.do(chromedp.Click(chromedp.CSS(`dialog.sheet[open] .btn-danger`)), chromedp.WaitVisible(chromedp.CSS(`#tab-1`)))
	b.waitTextNow(`#tab-0 .tab-name`, "Cleo")
	b.waitTextNow(`#tab-1 .tab-name`, "Dan")
	b.waitTextNow(`#tab-0 .tab-total`, "0")
	if got := b.location(); got != base+"/score/insektenhotel" {
		t.Errorf("the rematch opened %s, want the quick score", got)
	}

	// A play of the history, again as a table: the game and the names are
	// filled in.
	b.do(chromedp.Navigate(base+"/plays/"+play), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rematch]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=rematch]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rematch-table]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=rematch-table]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=create-table]`)))
	b.waitFor("the game to be chosen", `document.querySelector('[data-pointer="/game"] label[data-value="insektenhotel"] input').checked`)
	for i, want := range []string{"Ana", "Ben"} {
		if got := b.value(pointer("/players/"+string(rune('0'+i))) + ` input`); got != want {
			t.Errorf("the rematch table's name %d is %q, want %q", i+1, got, want)
		}
	}
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=create-table]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=join-code]`)))
	b.waitTextNow(`[data-seat="0"] .seat-name`, "Ana")
	b.waitTextNow(`[data-seat="1"] .seat-name`, "Ben")
	b.checkConsole()
}

// TestBrowserKeptInHistory keeps a quick score in history: the results then
// say so and lead to the play instead of logging it again, until a new game.
func TestBrowserKeptInHistory(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	entry := quickEntry(t, seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insektenhotel', `+js(entry)+`)`),
		chromedp.Navigate(base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-play]`)), chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	b.do(chromedp.Click(chromedp.CSS(`a[data-testid=kept-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	play := strings.TrimPrefix(b.location(), base+"/plays/")

	b.do(chromedp.Navigate(base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=kept-play]`)))
	b.screenshot("players-kept")
	if n := b.countOf(`[data-testid=keep-play]`); n != 0 {
		t.Errorf("a kept quick score still offers to keep it")
	}
	if got := b.textNow(`[data-testid=kept-play]`); !strings.Contains(got, "Kept in history") {
		t.Errorf("the kept quick score's button reads %q, want Kept in history", got)
	}
	href, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=kept-play]').getAttribute('href') ?? ''`))
	if href != "/plays/"+play {
		t.Errorf("Kept in history leads to %q, want the play /plays/%s", href, play)
	}
	b.do(chromedp.Click(chromedp.CSS(`a.back`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=kept-note]`)))

	// A new game is a game to keep again.
	b.do(chromedp.Click(chromedp.CSS(`.topbar .btn`)), chromedp.Click(chromedp.CSS(`dialog .btn-danger`)),
		chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
	if visible, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`!document.querySelector('[data-testid=kept-note]').hidden`)); visible {
		t.Errorf("after a new game the screen still says the game is kept")
	}
	if n := countPlays(t, base); n != 1 {
		t.Errorf("the server has %d plays, want the one kept", n)
	}
	b.checkConsole()
}

// TestBrowserUndoDelete deletes a play and undoes it: the play leaves the
// history at once and comes back, and the server never loses it; deleted
// again and left, it goes once the undo has passed.
func TestBrowserUndoDelete(t *testing.T) {
	base := startApp(t)
	postPlay(t, base, "default", "insektenhotel", time.Now().Add(-2*time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	play := postPlay(t, base, "default", "insektenhotel", time.Now().Add(-time.Hour), seedPlayer{"Cleo", fullHotel}, seedPlayer{"Ben", partHotel})
	b := newBrowser(t, base)
	remove := func() {
		b.do(chromedp.Navigate(base+"/plays/"+play), chromedp.WaitVisible(chromedp.CSS(`[data-testid=delete-play]`)),
			chromedp.Click(chromedp.CSS(`[data-testid=delete-play]`)), chromedp.WaitVisible(chromedp.CSS(`dialog [data-testid=confirm]`)),
			chromedp.Click(chromedp.CSS(`dialog [data-testid=confirm]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=undo]`)))
		b.waitFor("the history without the play", `location.pathname === '/history' && document.querySelectorAll('[data-testid=play-item]').length === 1`)
	}
	remove()
	b.screenshot("players-undo")
	time.Sleep(2 * time.Second)
	if n := countPlays(t, base); n != 2 {
		t.Fatalf("the server has %d plays while the delete can be undone, want 2", n)
	}
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=undo]`)))
	b.waitFor("the play back in the history", `document.querySelectorAll('[data-testid=play-item]').length === 2 && !document.querySelector('[data-testid=undo]')`)
	time.Sleep(9 * time.Second) // past the time the delete would have gone
	if n := countPlays(t, base); n != 2 {
		t.Errorf("after the undo the server has %d plays, want 2", n)
	}

	remove()
	waitForUpTo(t, 15*time.Second, "the delete to reach the server", func() bool { return countPlays(t, base) == 1 })
	b.waitFor("the undo note to go", `!document.querySelector('[data-testid=undo]')`)
	b.checkConsole()
}

// TestBrowserHostScreen checks the host's screen through a game: the
// invite folds once a player joins and opens on a tap, the seats follow
// their rank with ties marked, the host's seats count as present, every
// seat shows above the action bar, and "standings live" is not claimed
// while the connection is down.
func TestBrowserHostScreen(t *testing.T) {
	srv := serveApp(t, filepath.Join(t.TempDir(), "host.db"), "127.0.0.1:0")
	base := srv.base
	host, phone := twoPhones(t, base)
	code := host.startTable("insectarium", "Ana", "Ben", "Cleo")
	hostToken, _ := host.stored(code)["hostToken"].(string)
	open := `document.querySelector('[data-testid=invite]').open`
	if ok, _ := chromedp.Run(host.ctx, chromedp.Evaluate[bool](open)); !ok {
		t.Errorf("before anyone joins the invite is folded")
	}
	if got := host.textNow(`.seats-panel .hint`); got != "1 more player can join with the code." {
		t.Errorf("the join hint reads %q", got)
	}
	if got := host.textNow(`.join-body .hint`); strings.Contains(got, "enter the code") {
		t.Errorf("the invite says %q: the link carries the code", got)
	}

	phone.joinAs(code, 1)
	host.waitFor("the invite to fold", `!(`+open+`)`)
	host.waitTextNow(`[data-testid=claim-1]`, "on own phone")
	host.waitTextHas(`.host-bar .live-state`, "1 on own phone, 2 on host's phone")

	// Cleo leads, Ana and Ben tie.
	putBoard(t, base, code, 0, hostToken, fullDisplay(""))
	putBoard(t, base, code, 1, hostToken, fullDisplay(""))
	putBoard(t, base, code, 2, hostToken, fullDisplay("green"))
	host.waitTextNow(`[data-testid=seat-total-2]`, "3")
	host.waitFor("the seats in rank order", `[...document.querySelectorAll('.seat-row')].map((r) => r.dataset.seat).join() === '2,0,1'`)
	for seat, want := range map[int]string{2: "1st", 0: "=2nd", 1: "=2nd"} {
		if got := host.textNow(`[data-testid=rank-` + string(rune('0'+seat)) + `]`); got != want {
			t.Errorf("seat %d's rank reads %q, want %q", seat, got, want)
		}
	}
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=invite] summary`)))
	host.waitFor("the invite to open on a tap", open)
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=invite] summary`)))

	// Scrolled to the end, the last seat is above the fixed bar.
	host.do(chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, document.documentElement.scrollHeight)`))
	host.waitFor("the last seat above the action bar", `(() => {
		const rows = document.querySelectorAll('.seat-row');
		return rows[rows.length - 1].getBoundingClientRect().bottom <= document.querySelector('.host-bar').getBoundingClientRect().top;
	})()`)
	host.screenshot("players-host")
	host.dark()
	host.screenshot("players-host-dark")
	host.lightAgain()

	// The server goes: the bar no longer says the standings are live.
	srv.stop()
	host.waitFor("the reconnecting banner", `!document.querySelector('[data-testid=reconnecting]').hidden`)
	host.waitTextHas(`.host-bar .live-state`, "reconnecting")
	phone.waitTextHas(`.standing-state`, "as last seen")
	host.screenshot("players-host-reconnecting")
	host.checkConsole()
}

// TestBrowserLeaderboardMostPlayed opens the leaderboards on the game the
// group plays most, not on the first game listed.
func TestBrowserLeaderboardMostPlayed(t *testing.T) {
	base := startApp(t)
	var games []struct{ ID string }
	apiJSON(t, http.MethodGet, base+"/api/v1/games", "", nil, http.StatusOK, &games)
	if len(games) < 2 || games[0].ID == "insektenhotel" {
		t.Fatalf("the games are %v: the test wants Insektenhotel not first", games)
	}
	postPlay(t, base, "default", "insectarium", time.Now().Add(-3*time.Hour), seedPlayer{"Ana", displayBoard(0)}, seedPlayer{"Ben", displayBoard(2)})
	for i := range 2 {
		postPlay(t, base, "default", "insektenhotel", time.Now().Add(-time.Duration(i+1)*time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	}
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=home-leaderboards]`)),
		chromedp.Click(chromedp.CSS(`[data-testid=home-leaderboards]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lb-row]`)))
	if got := b.location(); got != base+"/leaderboards/insektenhotel" {
		t.Errorf("the leaderboards open on %s, want Insektenhotel, played most", got)
	}
	b.checkConsole()
}

package pwa_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// finishGame taps Finish game on the host's screen and confirms in the
// sheet that asks first.
func (b *browser) finishGame() {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=finish]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] [data-testid=finish-confirm-yes]`)),
		chromedp.Click(chromedp.CSS(`dialog.sheet[open] [data-testid=finish-confirm-yes]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet [data-testid=finish-confirm]`)))
}

// partDisplay is an Insectarium board with only its first n cards, green
// bees of 1 point each, and a green token under the first column.
func partDisplay(n int) string {
	card := `{"color":"green","insect":"bee","points":1,"tools":[]}`
	cells := make([]string, 9)
	for i := range cells {
		cells[i] = "null"
		if i < n {
			cells[i] = card
		}
	}
	return `{"grid":[[` + strings.Join(cells[0:3], ",") + `],[` + strings.Join(cells[3:6], ",") + `],[` + strings.Join(cells[6:9], ",") + `]],` +
		`"rowTokens":[null,null,null],"colTokens":["green",null,null],"supply":0,"toolBonusesForPoints":0,"toolBonusesForTokens":0}`
}

// TestBrowserFinishAsksAndNamesSeats (issue 25, item 2): Finish game asks
// before anything is recorded and names the seats with nothing entered;
// cancelling records nothing. A table that cannot finish because displays
// lack cards says whose, and how far each is.
func TestBrowserFinishAsksAndNamesSeats(t *testing.T) {
	base := startApp(t)
	host := newBrowser(t, base)
	code := host.startTable("insectarium", "Ana", "Ben", "Cleo")
	hostToken, _ := host.stored(code)["hostToken"].(string)
	putBoard(t, base, code, 0, hostToken, fullDisplay("green"))
	host.waitTextNow(`[data-testid=seat-total-0]`, "3")

	host.do(chromedp.Click(chromedp.CSS(`[data-testid=finish]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] [data-testid=finish-confirm]`)))
	if got := host.textNow(`dialog.sheet[open] h2`); got != "Ben and Cleo have entered nothing — finish anyway?" {
		t.Errorf("Finish game asks %q, want it to name Ben and Cleo", got)
	}
	host.screenshot("finish-confirm")
	host.axe("finish confirmation")
	host.do(chromedp.Click(chromedp.CSS(`dialog.sheet[open] [data-testid=finish-cancel]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
	if n := countPlays(t, base); n != 0 {
		t.Errorf("after Cancel the group has %d plays, want none", n)
	}
	if got := getTable(t, base, code); !strings.Contains(string(got), `"status":"open"`) {
		t.Errorf("after Cancel the table is %s, want it open", got)
	}

	// Ben's display has 5 cards, Cleo's none: the refusal says whose are short.
	putBoard(t, base, code, 1, hostToken, partDisplay(5))
	host.waitTextNow(`[data-testid=seat-total-1]`, "2")
	host.finishGame()
	host.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=finish-problem]`)))
	got := host.textNow(`[data-testid=finish-problem]`)
	if !strings.Contains(got, "every display needs all 9 cards") || !strings.Contains(got, "Ben (5/9 cards)") || !strings.Contains(got, "Cleo (0/9 cards)") ||
		strings.Contains(got, "Ana (") {
		t.Errorf("refusing to finish, the host screen says %q, want the reason and the short displays, Ben's and Cleo's", got)
	}
	host.screenshot("finish-short-displays")

	// Every display full: asked once more, now without names, it finishes.
	putBoard(t, base, code, 1, hostToken, fullDisplay(""))
	putBoard(t, base, code, 2, hostToken, fullDisplay("green"))
	host.waitTextNow(`[data-testid=seat-total-2]`, "3")
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=finish]`)),
		chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] [data-testid=finish-confirm]`)))
	if got := host.textNow(`dialog.sheet[open] h2`); got != "Finish the game and record it?" {
		t.Errorf("with every board entered Finish game asks %q", got)
	}
	host.do(chromedp.Click(chromedp.CSS(`dialog.sheet[open] [data-testid=finish-confirm-yes]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if n := countPlays(t, base); n != 1 {
		t.Errorf("after the finish the group has %d plays, want 1", n)
	}
	host.checkConsole()
}

// TestBrowserNoRanksBeforeBoards (issue 25, item 8): before anyone has
// entered anything, neither the host's seats nor a board's standings give
// ranks (everyone was "=1st" at 0 points); the first board entered ranks them.
func TestBrowserNoRanksBeforeBoards(t *testing.T) {
	base := startApp(t)
	host := newBrowser(t, base)
	code := host.startTable("insectarium", "Ana", "Ben")
	hostToken, _ := host.stored(code)["hostToken"].(string)
	host.waitTextNow(`[data-testid=seat-total-1]`, "0")
	for _, seat := range []string{"0", "1"} {
		if got := host.textNow(`[data-testid=rank-` + seat + `]`); got != "–" {
			t.Errorf("with nothing entered seat %s's rank reads %q, want –", seat, got)
		}
	}
	host.screenshot("host-no-ranks")
	host.do(chromedp.Click(chromedp.CSS(`[data-testid=edit-1]`)), chromedp.WaitVisible(chromedp.CSS(`.mini-standings .cs-rank`)))
	host.waitTextNow(`[data-testid=standing-1]`, "0")
	if got, err := chromedp.Run(host.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('.mini-standings .cs-rank')].map((e) => e.textContent).join(' ')`)); err != nil || got != "– –" {
		t.Errorf("with nothing entered the board's standings rank %q (%v), want – –", got, err)
	}

	putBoard(t, base, code, 0, hostToken, partDisplay(1))
	host.waitTextNow(`[data-testid=standing-0]`, "1")
	host.waitFor("the board's standings to rank", `[...document.querySelectorAll('.mini-standings .cs-rank')].map((e) => e.textContent).join(' ') === '1st 2nd'`)
	host.do(chromedp.Click(chromedp.CSS(`a.back`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rank-0]`)))
	host.waitTextNow(`[data-testid=rank-0]`, "1st")
	host.waitTextNow(`[data-testid=rank-1]`, "2nd")
	host.checkConsole()
}

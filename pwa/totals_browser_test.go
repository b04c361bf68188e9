package pwa_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// typeTotal types a number into a line of a player's totals sheet.
func (b *browser) typeTotal(player int, id string, n int) {
	b.t.Helper()
	in := pointer("/players/"+strconv.Itoa(player)+"/board/totals/"+id) + ` input`
	// Tab leaves the field, as a player moving on does: its errors show then.
	b.do(chromedp.SetValue(chromedp.CSS(in), ""), sendKeys(chromedp.CSS(in), strconv.Itoa(n)+"\t"))
}

// useTotals switches a player's board to the totals sheet.
func (b *browser) useTotals(player int) {
	b.t.Helper()
	b.do(chromedp.Click(chromedp.CSS(`#panel-`+strconv.Itoa(player)+` .shape-pick label[data-value="totals"]`)),
		chromedp.WaitVisible(chromedp.CSS(pointer("/players/"+strconv.Itoa(player)+"/board/totals/track")+` input`)))
}

// TestBrowserTotalsSheet scores the Insecta rulebook example with Laura's
// full collection against George's totals only, as a score pad would take
// them: the same 32 to 31, George marked as having entered totals; a value
// the line cannot take is refused at its field.
func TestBrowserTotalsSheet(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insecta"), chromedp.WaitVisible(chromedp.CSS(`#panel-0 button.tile[data-row="0"][data-col="0"]`)))
	b.rename(1, "George")
	b.rename(0, "Laura")
	enterLaura(b)
	b.waitText(`#tab-0 .tab-total`, "32")

	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	b.useTotals(1)
	// George: 15 on the track, 2 for his wreathed insect, all five
	// continents, three fragments; six different insects for the tiebreak.
	b.typeTotal(1, "continents", 3)
	b.waitFor("the refusal of 3 continent points at its field",
		`!!document.querySelector('[data-pointer="/players/1/board/totals/continents"] .msg-error')`)
	b.typeTotal(1, "track", 15)
	b.typeTotal(1, "favourites", 2)
	b.typeTotal(1, "continents", 5)
	b.typeTotal(1, "fragments", 9)
	b.typeTotal(1, "distinctInsects", 6)
	b.waitText(`#tab-1 .tab-total`, "31")
	b.screenshot("totals-sheet")
	b.axe("totals sheet")

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if got := b.text(`[data-testid=total-0]`) + "/" + b.text(`[data-testid=total-1]`); got != "32/31" {
		t.Errorf("Laura's board and George's totals score %s, want 32/31", got)
	}
	if got := b.textNow(`[data-testid=entered-1]`); !strings.Contains(got, "totals") {
		t.Errorf("George's result is not marked as entered by totals (%q)", got)
	}
	if n := b.countOf(`[data-testid=entered-0]`); n != 0 {
		t.Errorf("Laura's board is marked as totals")
	}
	// Why this tiebreak: Laura's different insects are listed, one a line,
	// and highlighted among her tiles; George's comes from his sheet.
	value := b.textNow(`[data-testid=why-distinctInsects-0]`)
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=why-distinctInsects-0]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=why-list]`)))
	if n := b.countOf(`[data-testid=why-list] li`); strconv.Itoa(n) != value || n == 0 {
		t.Errorf("Laura's tiebreak reads %q but lists %d insects", value, n)
	}
	if hits := b.countOf(`[data-testid=why-board] .why-hit`); hits != b.countOf(`[data-testid=why-list] li`) {
		t.Errorf("%d of Laura's tiles are highlighted for %d insects", hits, b.countOf(`[data-testid=why-list] li`))
	}
	b.screenshot("why-tiebreak")
	b.axe("why this score")
	b.closeSheet()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=why-distinctInsects-1]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=why-list]`)))
	if got := b.textNow(`[data-testid=why-list]`); !strings.Contains(got, "Entered as a total") {
		t.Errorf("George's tiebreak explains itself as %q, want his entered total", got)
	}
	b.closeSheet()
	// The sheet survives a reload, as every entry does.
	// (George's tab was the one open, and still is.)
	b.do(chromedp.Navigate(base+"/score/insecta"), chromedp.WaitVisible(chromedp.CSS(pointer("/players/1/board/totals/track")+` input`)))
	if got, err := chromedp.Run(b.ctx, chromedp.Value(chromedp.CSS(pointer("/players/1/board/totals/track")+` input`))); err != nil || got != "15" {
		t.Errorf("after a reload George's track total is %q (%v), want 15", got, err)
	}
	b.checkConsole()
}

// TestBrowserWhyThisScore opens "why this score" on the Insectarium
// rulebook example: the rows line lists the cards that scored in rows, whose
// points add up to the line's 15, each highlighted on the display.
func TestBrowserWhyThisScore(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))))
	enterInsectariumExample(b)
	b.waitText(`[data-testid=live-total]`, "34")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=why-rows-0]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=why-rows-0]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=why-list]`)))
	b.screenshot("why-rows")
	points, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('[data-testid=why-list] li strong')].map((s) => s.textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	sum := 0
	for _, p := range points {
		n, err := strconv.Atoi(strings.NewReplacer("+", "", "−", "-").Replace(p))
		if err != nil {
			t.Fatalf("a source's points read %q", p)
		}
		sum += n
	}
	if sum != 15 || len(points) == 0 {
		t.Errorf("the rows line's sources are %q, adding up to %d; want the cards of the 15 row points", points, sum)
	}
	hits := b.countOf(`[data-testid=why-board] .why-hit`)
	if hits != len(points) {
		t.Errorf("%d positions are highlighted on the board for %d sources", hits, len(points))
	}
	b.closeSheet()

	// The tiebreak line of a two-player table names what counted.
	b.checkConsole()
}

// TestBrowserTotalsSheetAgreesWithTheBar (issue 25, item 3): with a number
// the rules refuse on Insecta's totals sheet ("a multiple of 2, not 3"),
// the sheet's total is not a sum of its own (it read 32 while the bar and
// the tab said 20): the sheet, the tab and the bar show the same total,
// faded alike, until the number is put right.
func TestBrowserTotalsSheetAgreesWithTheBar(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insecta"), chromedp.WaitVisible(chromedp.CSS(`#panel-0 button.tile[data-row="0"][data-col="0"]`)))
	b.useTotals(0)
	b.typeTotal(0, "track", 15)
	b.typeTotal(0, "continents", 5)
	b.waitText(`[data-testid=live-total]`, "20")
	b.waitText(`[data-testid=totals-sum]`, "20")

	b.typeTotal(0, "favourites", 3)
	b.waitFor("the refusal of 3 favourite points at its field",
		`!!document.querySelector('[data-pointer="/players/0/board/totals/favourites"] .msg-error')`)
	sheet, bar, tab := b.textNow(`[data-testid=totals-sum]`), b.textNow(`[data-testid=live-total]`), b.textNow(`#tab-0 .tab-total`)
	if sheet != bar || bar != tab {
		t.Errorf("with a refused number the sheet says Total %s, the bar %s and the tab %s: want one total", sheet, bar, tab)
	}
	faded, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`['[data-testid=totals-sum]', '[data-testid=live-total]', '#tab-0']
		.map((s) => document.querySelector(s).classList.contains('stale')).join()`))
	if err != nil || faded != "true,true,true" {
		t.Errorf("sheet, bar and tab faded: %s (%v), want all three", faded, err)
	}
	b.screenshot("totals-sheet-refused")

	b.typeTotal(0, "favourites", 4)
	b.waitText(`[data-testid=live-total]`, "24")
	b.waitText(`[data-testid=totals-sum]`, "24")
	b.checkConsole()
}

// TestBrowserInsectariumSheetWarnsOfSets (issue 25, item 10): an
// Insectarium totals sheet that claims a Display Tool bonus with fewer
// display tools than a set is warned at its bonus line, as a full board
// with too few sets is; enough tools, and the warning goes.
func TestBrowserInsectariumSheetWarnsOfSets(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/score/insectarium"), chromedp.WaitVisible(chromedp.CSS(`button`+pointer("/players/0/board/grid/0/0"))),
		chromedp.Click(chromedp.CSS(`#panel-0 .shape-pick label[data-value="totals"]`)),
		chromedp.WaitVisible(chromedp.CSS(pointer("/players/0/board/totals/toolBonus")+` input`)))
	b.typeTotal(0, "rows", 10)
	b.typeTotal(0, "toolBonus", 5)
	b.typeTotal(0, "displayTools", 2)
	b.waitText(`[data-testid=live-total]`, "15")
	warn := pointer("/players/0/board/totals/toolBonus") + ` .msg-warning`
	b.waitFor("the warning at the bonus line", `!!document.querySelector(`+js(warn)+`)`)
	if got := b.textNow(warn); !strings.Contains(got, "2 display tools make only 0 full sets") {
		t.Errorf("the bonus line warns %q, want it to say 2 display tools make no full set", got)
	}
	b.screenshot("insectarium-sheet-sets")
	b.typeTotal(0, "displayTools", 3)
	b.waitFor("the warning to go", `!document.querySelector(`+js(warn)+`)`)
	b.checkConsole()
}

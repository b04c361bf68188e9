package pwa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"insectscore/models"
	"insectscore/scoring"
)

// The history browser tests seed a small history through the real API
// (logged plays and a finished table, with names typed differently), then
// read and change it through the PWA only: the leaderboard, a player's
// page with its charts, the history list, logging a play, groups and their
// invites, and renaming into a merge. The helpers of browser_test.go drive
// the browser.

// seedPlayer is one player of a logged play.
type seedPlayer struct {
	name  string
	board string
}

// apiJSON sends a JSON request to the app and decodes the answer into out
// (when not nil); any status but want fails the test.
func apiJSON(t *testing.T, method, u, body string, headers map[string]string, want int, out any) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %s %s, want %d", method, u, res.Status, data, want)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, u, err, data)
		}
	}
}

// postPlay logs a finished play in a group through the API and returns its id.
func postPlay(t *testing.T, base, group, game string, finished time.Time, players ...seedPlayer) string {
	t.Helper()
	var ps []string
	for _, p := range players {
		ps = append(ps, `{"name":`+js(p.name)+`,"board":`+p.board+`}`)
	}
	body := fmt.Sprintf(`{"game":%q,"finishedAt":%q,"startedAt":%q,"players":[%s]}`,
		game, finished.UTC().Format(time.RFC3339), finished.Add(-40*time.Minute).UTC().Format(time.RFC3339), strings.Join(ps, ","))
	var play struct{ ID string }
	apiJSON(t, http.MethodPost, base+"/api/v1/plays?group="+url.QueryEscape(group), body, nil, http.StatusCreated, &play)
	return play.ID
}

// finishTableAPI plays a whole table through the API, as phones at a
// table would, and returns the id of the play it recorded.
func finishTableAPI(t *testing.T, base, group, game string, players ...seedPlayer) string {
	t.Helper()
	var names []string
	for _, p := range players {
		names = append(names, js(p.name))
	}
	var table struct{ Code, HostToken string }
	apiJSON(t, http.MethodPost, base+"/api/v1/tables",
		fmt.Sprintf(`{"game":%q,"group":%q,"players":[%s]}`, game, group, strings.Join(names, ",")), nil, http.StatusCreated, &table)
	for i, p := range players {
		putBoard(t, base, table.Code, i, table.HostToken, p.board)
	}
	var done struct{ PlayID string }
	apiJSON(t, http.MethodPost, base+"/api/v1/tables/"+table.Code+"/finish", "", map[string]string{"Authorization": "Bearer " + table.HostToken}, http.StatusOK, &done)
	return done.PlayID
}

// displayBoard is a full Insectarium display of nine green bees of 1 point
// with a green token under the first column (3 points), plus supply/2
// points for unused tokens.
func displayBoard(supply int) string {
	b := fullDisplay("green")
	return strings.Replace(b, `"supply":0`, fmt.Sprintf(`"supply":%d`, supply), 1)
}

// fullHotel is a full Insektenhotel hotel (6 guests); partHotel one with 3.
const (
	fullHotel = `{"hotel":"blue","floors":[{"species":"bee","guests":2},{"species":"ant","guests":2},{"species":"fly","guests":2}]}`
	partHotel = `{"hotel":"green","floors":[{"species":"ladybird","guests":1},{"species":"butterfly","guests":2}]}`
)

// lbRow is a leaderboard row as the page shows it.
type lbRow struct {
	Name, Plays, Wins, WinRate, Avg, Best, Rating string
	Provisional                                   string
}

// leaderboardRows reads the leaderboard table on screen.
func (b *browser) leaderboardRows() []lbRow {
	b.t.Helper()
	rows, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]lbRow](`[...document.querySelectorAll('[data-testid=lb-row]')].map((tr) => {
		const col = (c) => (tr.querySelector('[data-col=' + c + ']')?.textContent ?? '').trim();
		return { Name: col('player'), Plays: col('plays'), Wins: col('wins'), WinRate: col('winRate'), Avg: col('avg'),
			Best: col('best'), Rating: col('rating'), Provisional: (tr.querySelector('[data-testid=provisional]')?.textContent ?? '').trim() };
	})`))
	if err != nil {
		b.t.Fatalf("reading the leaderboard: %v", err)
	}
	return rows
}

// fullShot saves the whole page (not only the viewport) as name-full.png
// in $INSECTSCORE_SCREENSHOTS, to look at a long screen at once.
func (b *browser) fullShot(name string) {
	b.t.Helper()
	dir := os.Getenv("INSECTSCORE_SCREENSHOTS")
	if dir == "" {
		return
	}
	time.Sleep(300 * time.Millisecond)
	buf, err := chromedp.Run(b.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(dir+"/"+name+"-full.png", buf, 0o644); err != nil {
		b.t.Fatal(err)
	}
}

// TestBrowserHistoryLeaderboardAndPlayer seeds four Insectarium plays, one
// of them a finished table, where Ana is typed "ana", "Ana ", "ANA" and
// "ana": the leaderboard has her once, with the figures worked out by hand;
// her page has the rating chart and the score histogram; the history lists
// the plays newest first and a play's page shows its breakdown.
//
//	play  Ana        Ben        Cleo      winner
//	1     ana    5   Ben    3             Ana
//	2     Ana    4   Ben    6             Ben
//	3     ANA    3              Cleo 0    Ana   (a table)
//	4     ana    7   Ben    4   Cleo 3    Ana
//
// Ana: 4 plays, 3 wins (75%), average 19/4 = 4.75, best 7, rated.
// Ben: 3 plays, 1 win (33%), average 13/3 = 4.3, best 6, rated.
// Cleo: 2 plays, no win, average 1.5, best 3, provisional: 1 more play.
func TestBrowserHistoryLeaderboardAndPlayer(t *testing.T) {
	base := startApp(t)
	day := time.Now().Add(-72 * time.Hour).Truncate(time.Minute)
	postPlay(t, base, "default", "insectarium", day, seedPlayer{"ana", displayBoard(4)}, seedPlayer{"Ben", displayBoard(0)})
	postPlay(t, base, "default", "insectarium", day.Add(24*time.Hour), seedPlayer{"Ana ", displayBoard(2)}, seedPlayer{"Ben", displayBoard(6)})
	finishTableAPI(t, base, "default", "insectarium", seedPlayer{"ANA", fullDisplay("green")}, seedPlayer{"Cleo", fullDisplay("")})
	// The newest play: a second ahead of the table's finish (the server
	// takes up to five minutes of clock skew).
	last := postPlay(t, base, "default", "insectarium", time.Now().Add(2*time.Second),
		seedPlayer{"ana", displayBoard(8)}, seedPlayer{"Ben", displayBoard(2)}, seedPlayer{"Cleo", displayBoard(0)})
	// An Insektenhotel play, so the game tabs have another board.
	postPlay(t, base, "default", "insektenhotel", day, seedPlayer{"Ben", fullHotel}, seedPlayer{"ana", partHotel})

	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=home-leaderboards]`)))
	b.waitText(`[data-testid=current-group]`, "Our group")
	b.fullShot("h-home")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=home-leaderboards]`)),
		chromedp.WaitVisible(chromedp.CSS(`.game-tab[aria-current=page]`)))
	b.do(chromedp.Click(chromedp.CSS(`.game-tab[data-game=insectarium]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.lb-points [data-testid=lb-row]`)))
	b.screenshot("h-leaderboard")

	rows := b.leaderboardRows()
	want := []lbRow{
		{Name: "ana", Plays: "4", Wins: "3", WinRate: "75%", Avg: "4.8", Best: "7"},
		{Name: "Ben", Plays: "3", Wins: "1", WinRate: "33%", Avg: "4.3", Best: "6"},
		{Name: "Cleo", Plays: "2", Wins: "0", WinRate: "0%", Avg: "1.5", Best: "3", Rating: "–", Provisional: "provisional, 1 more play"},
	}
	if len(rows) != len(want) {
		t.Fatalf("the leaderboard has %d rows %+v, want %d: names typed differently must be one player", len(rows), rows, len(want))
	}
	for i, w := range want {
		got := rows[i]
		if w.Rating == "" {
			// A rated player shows a number, and no provisional badge.
			if got.Rating == "–" || got.Rating == "" || got.Provisional != "" {
				t.Errorf("row %d: rating %q, badge %q; want a rating and no badge", i, got.Rating, got.Provisional)
			}
			w.Rating, w.Provisional = got.Rating, got.Provisional
		}
		if !strings.EqualFold(got.Name, w.Name) {
			t.Errorf("row %d is %q, want %q", i, got.Name, w.Name)
		}
		got.Name = w.Name
		if got != w {
			t.Errorf("row %d: got %+v, want %+v", i, got, w)
		}
	}

	// Every column fits a 360 px phone without scrolling sideways.
	b.do(chromedp.EmulateViewport(360, 780, chromedp.EmulateScale(2), chromedp.EmulateMobile))
	b.waitFor("the leaderboard to fit 360 px", `document.querySelector('table.lb').getBoundingClientRect().right <= innerWidth && document.documentElement.scrollWidth <= innerWidth`)
	b.screenshot("h-leaderboard-360")
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(2), chromedp.EmulateMobile))

	// Insektenhotel counts wins only: no average or best column.
	b.do(chromedp.Click(chromedp.CSS(`.game-tab[data-game=insektenhotel]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.lb-wins [data-testid=lb-row]`)))
	if got := b.textNow(`table.lb thead`); strings.Contains(got, "Avg") || strings.Contains(got, "Best") {
		t.Errorf("the Insektenhotel leaderboard's columns read %q, want no average or best score", got)
	}
	if got := b.leaderboardRows(); len(got) != 2 || got[0].Name != "Ben" || got[0].Wins != "1" || got[0].WinRate != "100%" {
		t.Errorf("the Insektenhotel leaderboard reads %+v, want Ben first with 1 win of 1", got)
	}
	b.screenshot("h-leaderboard-hotel")

	// Ana's page: her Insectarium record, the rating chart (a line through
	// the ratings after her third and fourth plays, the first two being
	// provisional) and the histogram of her totals 3, 4, 5 and 7.
	b.do(chromedp.Click(chromedp.CSS(`.game-tab[data-game=insectarium]`)),
		chromedp.WaitVisible(chromedp.CSS(`table.lb-points [data-testid=lb-row]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=lb-row]:first-child a.lb-name`)),
		chromedp.WaitVisible(chromedp.CSS(`#pgame-insectarium [data-testid=rating-chart] svg`)))
	if got := b.textNow(`h1`); !strings.EqualFold(got, "ana") {
		t.Errorf("the player page is titled %q, want ana", got)
	}
	stats, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]string](`Object.fromEntries([...document.querySelectorAll('#pgame-insectarium .stat')]
		.map((s) => [s.dataset.stat, s.querySelector('dd').textContent.trim()]))`))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range map[string]string{"plays": "4", "wins": "3", "winRate": "75%", "avg": "4.8", "best": "7"} {
		if stats[k] != v {
			t.Errorf("Ana's %s reads %q, want %q (all: %v)", k, stats[k], v, stats)
		}
	}
	chart, err := chromedp.Run(b.ctx, chromedp.Evaluate[map[string]any](`(() => {
		const svg = document.querySelector('#pgame-insectarium [data-testid=rating-chart] svg');
		const d = svg.querySelector('path.chart-line')?.getAttribute('d') ?? '';
		const bars = [...document.querySelectorAll('#pgame-insectarium [data-testid=score-histogram] rect.chart-bar')];
		return {
			role: svg.getAttribute('role'), title: svg.querySelector('title')?.textContent ?? '',
			desc: svg.querySelector('desc')?.textContent ?? '', labelled: svg.getAttribute('aria-labelledby') ?? '',
			segments: (d.match(/[ML]/g) ?? []).length, dots: svg.querySelectorAll('circle.chart-dot').length,
			bars: bars.map((r) => r.dataset.score + '=' + r.dataset.count),
			tall: bars.filter((r) => Number(r.getAttribute('height')) > 0).length,
			histDesc: document.querySelector('#pgame-insectarium [data-testid=score-histogram] desc')?.textContent ?? '',
		};
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	if chart["role"] != "img" || chart["title"] != "Rating over time" || !strings.Contains(chart["desc"].(string), "after rated plays 3 to 4") || chart["labelled"] == "" {
		t.Errorf("the rating chart is not described for assistive technology: %v", chart)
	}
	if chart["segments"].(float64) != 2 || chart["dots"].(float64) != 2 {
		t.Errorf("the rating chart has a line of %v points and %v dots, want 2 of each", chart["segments"], chart["dots"])
	}
	var bars []string
	for _, v := range chart["bars"].([]any) {
		bars = append(bars, v.(string))
	}
	if !slices.Equal(bars, []string{"3=1", "4=1", "5=1", "6=0", "7=1"}) || chart["tall"].(float64) != 4 {
		t.Errorf("the histogram bars are %v (%v drawn), want 3, 4, 5 and 7 once each and an empty 6", bars, chart["tall"])
	}
	if got := b.textNow(`#pgame-insectarium [data-testid=head-to-head] tbody`); !strings.Contains(got, "Ben") || !strings.Contains(got, "Cleo") {
		t.Errorf("the head-to-head table reads %q, want Ben and Cleo", got)
	}
	b.screenshot("h-player")
	b.fullShot("h-player")
	b.dark()
	b.fullShot("h-player-dark")
	b.lightAgain()

	// The history: newest first, filtered by game; a play's page.
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-item]`)))
	if got := b.countOf(`[data-testid=play-item]`); got != 5 {
		t.Errorf("the history lists %d plays, want 5", got)
	}
	if id, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=play-item]').dataset.id`)); id != last {
		t.Errorf("the newest play listed is %q, want %q", id, last)
	}
	b.do(sendKeys(chromedp.CSS(`#filter-game`), "Insektenhotel"))
	b.waitFor("the Insektenhotel filter", `document.querySelectorAll('[data-testid=play-item]').length === 1 && location.search === '?game=insektenhotel'`)
	b.do(sendKeys(chromedp.CSS(`#filter-game`), kb.Home)) // the first option: all games
	b.waitFor("every play again", `document.querySelectorAll('[data-testid=play-item]').length === 5 && location.search === ''`)
	b.screenshot("h-history")

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=play-item]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	if got := b.textNow(`.standing.winner .who-name`); !strings.EqualFold(got, "ana") {
		t.Errorf("the play's winner reads %q, want ana", got)
	}
	if got := b.textNow(`[data-testid=play-meta]`); !strings.Contains(got, "40 min") {
		t.Errorf("the play's details read %q, want its length of 40 min", got)
	}
	rowsText, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
		`[...document.querySelectorAll('.breakdown tbody tr')].map((tr) => [...tr.cells].map((c) => c.textContent.trim()).join('='))`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(rowsText, "Unused tokens=4=1=0") || !slices.Contains(rowsText, "Total=7=4=3") {
		t.Errorf("the play's breakdown rows are %q, want unused tokens 4, 1, 0 and totals 7, 4, 3", rowsText)
	}
	b.screenshot("h-play")
	b.fullShot("h-play")

	// Deleting the play (after a confirmation) takes it out of the history
	// at once; the delete reaches the server once it can no longer be
	// undone, and the leaderboard follows.
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=delete-play]`)), chromedp.WaitVisible(chromedp.CSS(`dialog.sheet[open] [data-testid=confirm]`)))
	b.screenshot("h-play-delete")
	b.do(chromedp.Click(chromedp.CSS(`dialog [data-testid=confirm]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-list]`)))
	b.waitFor("the history without the deleted play", `document.querySelectorAll('[data-testid=play-item]').length === 4`)
	waitForUpTo(t, 15*time.Second, "the delete to reach the server", func() bool { return countPlays(t, base) == 4 })
	b.do(chromedp.Navigate(base+"/leaderboards/insectarium"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lb-row]`)))
	// The server works the delete into the ratings in the background; the
	// board says so meanwhile and redraws itself when it is done.
	b.waitFor("the ratings to finish updating", `!document.querySelector('[data-testid=lb-updating]')`)
	if got := b.leaderboardRows(); len(got) != 3 || got[0].Plays != "3" || got[0].Wins != "2" {
		t.Errorf("after the delete the leaderboard reads %+v, want Ana first with 2 wins of 3 plays", got)
	}
	b.checkConsole()
}

// countOf counts the elements matching css.
func (b *browser) countOf(css string) int {
	b.t.Helper()
	n, err := chromedp.Run(b.ctx, chromedp.Evaluate[int](`document.querySelectorAll(`+js(css)+`).length`))
	if err != nil {
		b.t.Fatal(err)
	}
	return n
}

// lightAgain switches the page back to the light colour scheme.
func (b *browser) lightAgain() {
	b.t.Helper()
	b.do(chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "light"}},
		})
		return err
	}))
}

// TestBrowserGroupInvite creates a group on one phone and shows its invite
// QR code; a second phone (its own storage) opens the invite link, joins
// and sees the group's name and its own, empty, history; a table the first
// phone starts belongs to the group, and its play shows on the second.
func TestBrowserGroupInvite(t *testing.T) {
	base := startApp(t)
	postPlay(t, base, "default", "insectarium", time.Now().Add(-time.Hour), seedPlayer{"Ana", displayBoard(2)}, seedPlayer{"Ben", displayBoard(0)})
	host, phone := twoPhones(t, base)

	host.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`.group-chip`)))
	host.do(chromedp.Click(chromedp.CSS(`.group-chip`)), chromedp.WaitVisible(chromedp.CSS(`#new-group-name`)))
	host.screenshot("h-groups")
	host.do(sendKeys(chromedp.CSS(`#new-group-name`), "Thursday Club"),
		chromedp.Click(chromedp.CSS(`[data-testid=create-group]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=group-qr]`)))
	host.waitFor("the invite QR code to load", `(() => { const i = document.querySelector('[data-testid=group-qr]'); return i && i.complete && i.naturalWidth > 0; })()`)
	if got := host.textNow(`h1`); got != "Thursday Club" {
		t.Errorf("the new group's page is titled %q, want Thursday Club", got)
	}
	invite, err := chromedp.Run(host.ctx, chromedp.Value(chromedp.CSS(`[data-testid=invite-url]`)))
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(invite)
	if err != nil || !strings.HasPrefix(u.Path, "/g/") || len(u.Path) < len("/g/")+16 {
		t.Fatalf("the invite link is %q (%v), want /g/ and the group's id", invite, err)
	}
	group := strings.TrimPrefix(u.Path, "/g/")
	src, _ := chromedp.Run(host.ctx, chromedp.AttributeValue(chromedp.CSS(`[data-testid=group-qr]`), "src"))
	if src.Value != "/api/v1/groups/"+group+"/qr.svg" {
		t.Errorf("the QR image is %q, want the group's qr.svg", src.Value)
	}
	host.screenshot("h-group")
	host.fullShot("h-group")
	host.dark()
	host.fullShot("h-group-dark")
	host.lightAgain()

	// The second phone opens the invite, as the QR code would.
	phone.do(chromedp.Navigate(base+u.Path), chromedp.WaitVisible(chromedp.CSS(`h1`)))
	phone.waitTextNow(`h1`, "You joined Thursday Club")
	phone.screenshot("h-joined")
	phone.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`.group-chip`)))
	phone.waitText(`[data-testid=current-group]`, "Thursday Club")
	phone.do(chromedp.Navigate(base+"/leaderboards/insectarium"), chromedp.WaitVisible(chromedp.CSS(`.lb-body:not([aria-busy]) .empty-state`)))

	// A table started on the first phone is the group's: its play shows
	// in the group's history on the second.
	code := host.startTable("insectarium", "Ana", "Ben")
	hostToken, _ := host.stored(code)["hostToken"].(string)
	putBoard(t, base, code, 0, hostToken, fullDisplay("green"))
	putBoard(t, base, code, 1, hostToken, fullDisplay(""))
	apiJSON(t, http.MethodPost, base+"/api/v1/tables/"+code+"/finish", "", map[string]string{"Authorization": "Bearer " + hostToken}, http.StatusOK, nil)
	var plays struct{ Plays []struct{ ID string } }
	apiJSON(t, http.MethodGet, base+"/api/v1/plays?group="+group, "", nil, http.StatusOK, &plays)
	if len(plays.Plays) != 1 {
		t.Errorf("the group has %d plays after its table finished, want 1", len(plays.Plays))
	}
	phone.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-item]`)))
	if got := phone.countOf(`[data-testid=play-item]`); got != 1 {
		t.Errorf("the group's history on the second phone lists %d plays, want the table's 1 (and not the default group's)", got)
	}
	host.checkConsole()
	phone.checkConsole()
}

// TestBrowserLogPastPlay logs an Insektenhotel play through the form: the
// names are offered from the group's players, a missing name is refused at
// its field, and once saved the play's page opens and the play tops the
// history, under the existing player although typed "ben ".
func TestBrowserLogPastPlay(t *testing.T) {
	base := startApp(t)
	postPlay(t, base, "default", "insektenhotel", time.Now().Add(-48*time.Hour), seedPlayer{"Ana", partHotel}, seedPlayer{"Ben", fullHotel})
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=log-play]`)))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=log-play]`)), chromedp.WaitVisible(chromedp.CSS(pointer("/game"))))
	b.tap(pointer("/game"), "insektenhotel")
	b.do(chromedp.WaitVisible(chromedp.CSS(pointer("/players/0/name") + ` input`)))
	offered, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
		const list = document.getElementById(document.querySelector('[data-pointer="/players/0/name"] input').getAttribute('list'));
		return [...list.options].map((o) => o.value);
	})()`))
	if err != nil || !slices.Equal(offered, []string{"Ana", "Ben"}) {
		t.Errorf("the name field offers %q (%v), want the group's players Ana and Ben", offered, err)
	}
	b.do(sendKeys(chromedp.CSS(pointer("/players/0/name")+` input`), "Ana"))
	b.tap(pointer("/players/0/board/hotel"), "blue")
	floors := func(player int, species, labels, guests []string) {
		for i := range species {
			f := fmt.Sprintf("/players/%d/board/floors/%d", player, i)
			b.choose(pointer(f+"/species"), species[i], labels[i])
			b.tap(pointer(f+"/guests"), guests[i])
		}
	}
	floors(0, []string{"bee", "ant", "fly"}, []string{"Bee", "Ant", "Fly"}, []string{"2", "2", "2"})
	b.waitText(`#tab-0 .tab-total`, "6")
	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	b.tap(pointer("/players/1/board/hotel"), "green")
	floors(1, []string{"ladybird", "butterfly"}, []string{"Ladybird", "Butterfly"}, []string{"1", "2"})
	b.waitText(`#tab-1 .tab-total`, "3")
	b.do(sendKeys(chromedp.CSS(pointer("/startedAt")+` input`), "25"),
		sendKeys(chromedp.CSS(`[data-testid=play-location]`), "Garden"),
		sendKeys(chromedp.CSS(`[data-testid=play-notes]`), "Sunny"))

	// Saved without Ben's name: the server's refusal lands at the field.
	b.do(chromedp.Click(chromedp.CSS(`#tab-0`)), chromedp.Click(chromedp.CSS(`[data-testid=save-play]`)))
	errCSS := pointer("/players/1/name") + ` .msg-error`
	b.do(chromedp.WaitVisible(chromedp.CSS(errCSS)))
	if got := b.text(errCSS); !strings.Contains(got, "needs a name") {
		t.Errorf("the name field says %q, want the server's message that every player needs a name", got)
	}
	if sel, _ := chromedp.Run(b.ctx, chromedp.AttributeValue(chromedp.CSS(`#tab-1`), "aria-selected")); sel.Value != "true" {
		t.Errorf("after the refusal the tab of the player with the problem is not shown")
	}
	b.screenshot("h-log-error")

	b.do(sendKeys(chromedp.CSS(pointer("/players/1/name")+` input`), "ben "),
		chromedp.WaitNotPresent(chromedp.CSS(errCSS)))
	b.screenshot("h-log")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=save-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	id := strings.TrimPrefix(b.location(), base+"/plays/")
	if got := b.textNow(`.standing.winner .who-name`); got != "Ana" {
		t.Errorf("the logged play's winner reads %q, want Ana", got)
	}
	if got := b.textNow(`[data-testid=play-meta]`); !strings.Contains(got, "25 min") {
		t.Errorf("the logged play's details read %q, want its 25 min", got)
	}
	if loc, notes := b.textNow(`[data-testid=meta-location]`), b.textNow(`[data-testid=meta-notes]`); loc != "Garden" || notes != "Sunny" {
		t.Errorf("the logged play was at %q with the notes %q, want Garden and Sunny", loc, notes)
	}
	b.screenshot("h-play-logged")

	// Editing the play: Ben's first floor gets its pair (PUT); the length,
	// untouched, stays as it was.
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=edit-play]`)), chromedp.WaitVisible(chromedp.CSS(pointer("/players/0/name")+` input`)))
	b.do(chromedp.Click(chromedp.CSS(`#tab-1`)), chromedp.WaitVisible(chromedp.CSS(`#panel-1`)))
	b.tap(pointer("/players/1/board/floors/0/guests"), "2")
	b.waitTextNow(`#tab-1 .tab-total`, "4")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=save-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	b.waitTextNow(`[data-testid=total-1]`, "4")
	if got := b.textNow(`[data-testid=play-meta]`); !strings.Contains(got, "25 min") {
		t.Errorf("after the edit the play's details read %q, want its 25 min kept", got)
	}
	b.do(chromedp.Click(chromedp.CSS(`a.back`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-item]`)))
	if got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=play-item]').dataset.id`)); got != id {
		t.Errorf("the history's first play is %q, want the logged %q", got, id)
	}
	if got := b.countOf(`[data-testid=play-item]`); got != 2 {
		t.Errorf("the history lists %d plays, want 2", got)
	}
	if got := b.textNow(`[data-testid=play-item] .play-results`); !strings.Contains(got, "Ben") || strings.Contains(got, "ben ") {
		t.Errorf("the logged play reads %q, want it under the existing player Ben", got)
	}
	// Logging again starts afresh: the saved draft is gone.
	b.do(chromedp.Navigate(base+"/plays/new?game=insektenhotel"), chromedp.WaitVisible(chromedp.CSS(pointer("/players/0/name")+` input`)))
	if v, _ := chromedp.Run(b.ctx, chromedp.Value(chromedp.CSS(pointer("/players/0/name")+` input`))); v != "" {
		t.Errorf("a new play starts with the name %q, want an empty form", v)
	}

	// A game scored on the quick-score screen is kept from its results in
	// one tap; the placeholder name is no one's, so that player's name is
	// asked for (only that), not the whole form again.
	entry := `{"players":[{"name":"Cleo","board":` + fullHotel + `},{"name":"Player 2","board":` + partHotel + `}],"variants":{},"active":0}`
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insektenhotel', `+js(entry)+`)`),
		chromedp.Navigate(base+"/score/insektenhotel/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-play]`)))
	b.screenshot("h-quick-keep")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=keep-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=keep-name-1]`)))
	if n := b.countOf(`[data-testid=save-play]`); n != 0 {
		t.Errorf("keeping a quick score opens the whole form")
	}
	b.do(sendKeys(chromedp.CSS(`[data-testid=keep-name-1]`), "Ana"), chromedp.Click(chromedp.CSS(`[data-testid=keep-named]`)),
		chromedp.WaitVisible(chromedp.CSS(`a[data-testid=kept-play]`)))
	b.do(chromedp.Click(chromedp.CSS(`a[data-testid=kept-play]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-meta]`)))
	if got := b.textNow(`.standing.winner .who-name`); got != "Cleo" {
		t.Errorf("the kept play's winner reads %q, want Cleo", got)
	}
	b.checkConsole()
}

// location is the page's address.
func (b *browser) location() string {
	b.t.Helper()
	loc, err := chromedp.Run(b.ctx, chromedp.Location())
	if err != nil {
		b.t.Fatal(err)
	}
	return loc
}

// TestBrowserRenameAndMerge renames a player (the page follows), then
// renames "Benn" into the existing "Ben": the app offers to merge the two;
// "B." is merged into Ben by picking him. The leaderboard then has Ben
// once, with all three plays.
func TestBrowserRenameAndMerge(t *testing.T) {
	base := startApp(t)
	postPlay(t, base, "default", "insectarium", time.Now().Add(-48*time.Hour), seedPlayer{"Ben", displayBoard(4)}, seedPlayer{"Cleo", displayBoard(0)})
	postPlay(t, base, "default", "insectarium", time.Now().Add(-24*time.Hour), seedPlayer{"Benn", displayBoard(0)}, seedPlayer{"Cleo", displayBoard(2)})
	postPlay(t, base, "default", "insectarium", time.Now().Add(-12*time.Hour), seedPlayer{"B.", displayBoard(6)}, seedPlayer{"Cleo", displayBoard(2)})
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/leaderboards/insectarium"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lb-row]`)))
	if got := b.leaderboardRows(); len(got) != 4 {
		t.Fatalf("the leaderboard has %d rows before the merges, want 4 (Ben, Benn, B., Cleo)", len(got))
	}
	href := func(name string) string {
		h, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('a.lb-name')].find((a) => a.textContent === `+js(name)+`)?.getAttribute('href') ?? ''`))
		if err != nil || h == "" {
			t.Fatalf("no leaderboard link for %s (%v)", name, err)
		}
		return h
	}
	benPage, bennPage, bPage := href("Ben"), href("Benn"), href("B.")

	rename := func(to string) {
		b.do(chromedp.Click(chromedp.CSS(`[data-testid=rename]`)), chromedp.WaitVisible(chromedp.CSS(`#rename-input`)),
			chromedp.KeyEvent("a", chromedp.KeyModifiers(chromedp.ModifierCtrl)), sendKeys(chromedp.CSS(`#rename-input`), to),
			chromedp.Click(chromedp.CSS(`[data-testid=rename-save]`)))
	}
	// A plain rename: the page shows the new name.
	b.do(chromedp.Click(chromedp.CSS(`a.lb-name[href="`+href("Cleo")+`"]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rename]`)))
	rename("Cleo P")
	b.waitTextNow(`h1`, "Cleo P")

	// Benn is Ben: the rename offers the merge.
	b.do(chromedp.Navigate(base+bennPage), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rename]`)))
	b.waitTextNow(`h1`, "Benn")
	rename("ben")
	b.do(chromedp.WaitVisible(chromedp.CSS(`[data-testid=merge-question]`)))
	if got := b.text(`[data-testid=merge-question]`); !strings.Contains(got, "already a player") {
		t.Errorf("the merge offer reads %q", got)
	}
	b.screenshot("h-merge-offer")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=merge-offer]`)), chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
	b.waitTextNow(`h1`, "Ben")
	if got := b.location(); got != base+benPage {
		t.Errorf("after the merge the page is %s, want Ben's %s", got, benPage)
	}
	b.waitTextNow(`#pgame-insectarium .stat[data-stat=plays] dd`, "2")

	// "B." is Ben too: merged by picking him.
	b.do(chromedp.Navigate(base+bPage), chromedp.WaitVisible(chromedp.CSS(`[data-testid=merge]`)))
	b.waitTextNow(`h1`, "B.")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=merge]`)), chromedp.WaitVisible(chromedp.CSS(`#merge-into`)))
	b.choose(`dialog .field`, strings.TrimPrefix(benPage, "/players/"), "Ben")
	b.screenshot("h-merge-into")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=merge-confirm]`)), chromedp.WaitNotPresent(chromedp.CSS(`dialog.sheet`)))
	b.waitTextNow(`h1`, "Ben")
	b.waitTextNow(`#pgame-insectarium .stat[data-stat=plays] dd`, "3")

	b.do(chromedp.Navigate(base+"/leaderboards/insectarium"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=lb-row]`)))
	rows := b.leaderboardRows()
	var bens []lbRow
	for _, r := range rows {
		if strings.HasPrefix(strings.ToLower(r.Name), "ben") {
			bens = append(bens, r)
		}
	}
	if len(rows) != 2 || len(bens) != 1 || bens[0].Plays != "3" || bens[0].Wins != "2" {
		t.Errorf("after the merges the leaderboard reads %+v, want Ben once with 2 wins in 3 plays, and Cleo P", rows)
	}
	b.checkConsole()
}

// TestBrowserHistoryLoadMore pages through a long history: the first page
// holds 20 plays, "Load more" brings the rest and then goes away.
func TestBrowserHistoryLoadMore(t *testing.T) {
	base := startApp(t)
	start := time.Now().Add(-30 * 24 * time.Hour)
	for i := range 23 {
		postPlay(t, base, "default", "insektenhotel", start.Add(time.Duration(i)*time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	}
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/history"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=load-more]`)))
	if got := b.countOf(`[data-testid=play-item]`); got != 20 {
		t.Errorf("the first page lists %d plays, want 20", got)
	}
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=load-more]`)))
	b.waitFor("the rest of the plays", `document.querySelectorAll('[data-testid=play-item]').length === 23 && document.querySelector('[data-testid=load-more]').hidden`)
	dates, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid=play-item] time')].map((t) => t.getAttribute('datetime'))`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(dates, func(a, b string) int { return strings.Compare(b, a) }) {
		t.Errorf("the plays are not newest first: %q", dates)
	}
	b.checkConsole()
}

// TestBrowserImportGroup exports a group from one server and imports the
// file on another through the group page: the group comes in with its
// history and becomes the current group.
func TestBrowserImportGroup(t *testing.T) {
	from := startApp(t)
	var g struct{ ID string }
	apiJSON(t, http.MethodPost, from+"/api/v1/groups", `{"name":"Tuesday Bugs"}`, nil, http.StatusCreated, &g)
	postPlay(t, from, g.ID, "insektenhotel", time.Now().Add(-time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	res, err := http.Get(from + "/api/v1/groups/" + g.ID + "/export")
	if err != nil {
		t.Fatal(err)
	}
	export, _ := io.ReadAll(res.Body)
	res.Body.Close()
	file := t.TempDir() + "/tuesday.json"
	if err := os.WriteFile(file, export, 0o644); err != nil {
		t.Fatal(err)
	}

	to := startApp(t)
	b := newBrowser(t, to)
	b.do(chromedp.Navigate(to+"/groups/default"), chromedp.WaitVisible(chromedp.CSS(`#import-file`)))
	if href, _ := chromedp.Run(b.ctx, chromedp.AttributeValue(chromedp.CSS(`[data-testid=export-json]`), "href")); href.Value != "/api/v1/groups/default/export" {
		t.Errorf("the JSON download links to %q", href.Value)
	}
	b.do(chromedp.SetUploadFiles(chromedp.CSS(`#import-file`), []string{file}))
	b.waitTextNow(`h1`, "Tuesday Bugs")
	if got := b.location(); got != to+"/groups/"+g.ID+"?imported=1" {
		t.Errorf("after the import the page is %s, want the imported group's", got)
	}
	b.screenshot("h-imported")
	b.do(chromedp.Navigate(to+"/history"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-item]`)))
	b.waitText(`[data-testid=current-group]`, "Tuesday Bugs")
	if got := b.countOf(`[data-testid=play-item]`); got != 1 {
		t.Errorf("the imported group's history lists %d plays, want 1", got)
	}
	// The same file again is refused, and the page says why.
	b.do(chromedp.Navigate(to+"/groups/"+g.ID), chromedp.WaitVisible(chromedp.CSS(`#import-file`)),
		chromedp.SetUploadFiles(chromedp.CSS(`#import-file`), []string{file}),
		chromedp.WaitVisible(chromedp.CSS(`.import-field .msg-error`)))
	if got := b.textNow(`.import-field .msg-error`); !strings.Contains(got, "already on this server") {
		t.Errorf("importing the group twice says %q, want that it is already here", got)
	}
	b.checkConsole()
}

// TestBrowserRatingPages: a player with more rated plays than a chart
// holds sees the newest 200 on their page, and pages back to the earlier
// ones (but the first two, which are provisional) and forth again.
func TestBrowserRatingPages(t *testing.T) {
	srv := serveApp(t, ":memory:", "127.0.0.1:0")
	g, _ := scoring.Lookup("insektenhotel")
	start := time.Now().Add(-300 * time.Hour)
	for i := range models.RatingPage + 5 {
		lp := models.LoggedPlay{Game: "insektenhotel", FinishedAt: start.Add(time.Duration(i) * time.Hour), Players: []models.LoggedPlayer{
			{Name: "Ana", Board: json.RawMessage(fullHotel)}, {Name: "Ben", Board: json.RawMessage(partHotel)}}}
		res, err := scoring.Score(g, scoring.Request{Players: []scoring.PlayerInput{{Name: "Ana", Board: lp.Players[0].Board}, {Name: "Ben", Board: lp.Players[1].Board}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := srv.store.LogPlay(context.Background(), models.DefaultGroup, lp, res); err != nil {
			t.Fatal(err)
		}
	}
	players, err := srv.store.ListPlayers(context.Background(), models.DefaultGroup)
	if err != nil || len(players) != 2 {
		t.Fatalf("players %v, %v", players, err)
	}
	b := newBrowser(t, srv.base)
	dots := `document.querySelectorAll('[data-testid=rating-chart] circle.chart-dot').length`
	b.do(chromedp.Navigate(srv.base+"/players/"+players[0].ID), chromedp.WaitVisible(chromedp.CSS(`[data-testid=rating-chart] svg`)))
	b.waitFor("the newest 200 ratings", dots+` === 200 && !document.querySelector('[data-testid=ratings-earlier]').disabled && document.querySelector('[data-testid=ratings-later]').disabled`)
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=ratings-earlier]`)))
	b.waitFor("the 3 earlier ratings from the third on", dots+` === 3 && document.querySelector('[data-testid=ratings-earlier]').disabled && !document.querySelector('[data-testid=ratings-later]').disabled`)
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=ratings-later]`)))
	b.waitFor("the newest 200 ratings again", dots+` === 200 && document.querySelector('[data-testid=ratings-later]').disabled`)
	b.checkConsole()
}

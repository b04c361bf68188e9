package pwa_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// apiPlay is the part of a play's JSON the browser tests compare with.
type apiPlay struct {
	Notes       string `json:"notes"`
	Location    string `json:"location"`
	StartPlayer *int   `json:"startPlayer"`
	Links       struct {
		BGStats string `json:"bgStats"`
	} `json:"links"`
}

// bgStatsData is the JSON of a createPlay link.
func bgStatsData(t *testing.T, link string) map[string]any {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil || u.Host != "app.bgstatsapp.com" || u.Path != "/createPlay.html" {
		t.Fatalf("link %q is not BG Stats' createPlay page (%v)", link, err)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(u.Query().Get("data")), &out); err != nil {
		t.Fatalf("the link's data is not JSON: %v", err)
	}
	return out
}

// TestBrowserPlayNotesAndBGStats: the play page offers "Send to BG Stats"
// (the server's link, in a new tab), edits the play's location, first
// player and notes through the outbox, and the link follows; the edit
// screen keeps them; the history filters by location.
func TestBrowserPlayNotesAndBGStats(t *testing.T) {
	base := startApp(t)
	id := postPlay(t, base, "default", "insektenhotel", time.Now().Add(-48*time.Hour), seedPlayer{"Ana", partHotel}, seedPlayer{"Ben", fullHotel})
	other := postPlay(t, base, "default", "insektenhotel", time.Now().Add(-24*time.Hour), seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	play := func(id string) apiPlay {
		var p apiPlay
		apiJSON(t, http.MethodGet, base+"/api/v1/plays/"+id, "", nil, http.StatusOK, &p)
		return p
	}
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/plays/"+id), chromedp.WaitVisible(chromedp.CSS(`[data-testid=bgstats]`)))
	link := func() (href, target, rel string) {
		attrs, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](`(() => {
			const a = document.querySelector('[data-testid=bgstats]');
			return [a.tagName, a.href, a.target, a.rel, a.textContent];
		})()`))
		if err != nil {
			t.Fatal(err)
		}
		if attrs[0] != "A" || attrs[4] != "Send to BG Stats" {
			t.Errorf("the BG Stats button is a %s reading %q, want a link reading Send to BG Stats", attrs[0], attrs[4])
		}
		return attrs[1], attrs[2], attrs[3]
	}
	href, target, rel := link()
	if target != "_blank" || !strings.Contains(" "+rel+" ", " noopener ") {
		t.Errorf("the BG Stats link opens with target %q and rel %q, want _blank and noopener", target, rel)
	}
	if want := play(id).Links.BGStats; href != want {
		t.Errorf("the page links to\n%s\nwant the play's\n%s", href, want)
	}
	if d := bgStatsData(t, href); d["sourcePlayId"] != id || d["location"] != nil {
		t.Errorf("the link's play is %v, want play %s without a location", d, id)
	}
	b.screenshot("notes-play")

	// Notes, location and first player, edited on the play page.
	b.do(tapInPage(`[data-testid=edit-notes]`), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-location]`)))
	b.do(sendKeys(chromedp.CSS(`[data-testid=play-location]`), "Kitchen table"),
		sendKeys(chromedp.CSS(`[data-testid=play-notes]`), "Ben's hotel filled\nfirst"),
		chromedp.Evaluate[chromedp.Void](`(() => {
			const s = document.querySelector('[data-testid=play-start]');
			s.value = '1';
			s.dispatchEvent(new Event('change', { bubbles: true }));
		})()`))
	b.screenshot("notes-edit")
	b.do(tapInPage(`[data-testid=save-notes]`))
	b.waitTextNow(`[data-testid=meta-location]`, "Kitchen table")
	b.waitTextNow(`[data-testid=meta-start]`, "Ben")
	if got := b.textNow(`[data-testid=meta-notes]`); got != "Ben's hotel filled\nfirst" {
		t.Errorf("the notes read %q", got)
	}
	saved := play(id)
	if saved.Location != "Kitchen table" || saved.Notes != "Ben's hotel filled\nfirst" || saved.StartPlayer == nil || *saved.StartPlayer != 1 {
		t.Errorf("the server has %+v", saved)
	}
	href, _, _ = link()
	if href != saved.Links.BGStats {
		t.Errorf("after the edit the page links to\n%s\nwant\n%s", href, saved.Links.BGStats)
	}
	d := bgStatsData(t, href)
	players, _ := d["players"].([]any)
	if d["location"] != "Kitchen table" || d["comments"] != "Ben's hotel filled\nfirst" || len(players) != 2 ||
		players[1].(map[string]any)["startPlayer"] != true || players[0].(map[string]any)["startPlayer"] != false {
		t.Errorf("the link's play after the edit: %v", d)
	}
	b.screenshot("notes-saved")

	// The edit screen shows them, and saving it keeps what it changed.
	b.do(tapInPage(`[data-testid=edit-play]`), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-location]`)))
	for css, want := range map[string]string{`[data-testid=play-location]`: "Kitchen table", `[data-testid=play-start]`: "1", `[data-testid=play-notes]`: "Ben's hotel filled\nfirst"} {
		if v, _ := chromedp.Run(b.ctx, chromedp.Value(chromedp.CSS(css))); v != want {
			t.Errorf("the edit screen's %s holds %q, want %q", css, v, want)
		}
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const i = document.querySelector('[data-testid=play-location]');
		i.value = 'Club';
		i.dispatchEvent(new Event('input', { bubbles: true }));
	})()`), tapInPage(`[data-testid=save-play]`))
	b.waitTextNow(`[data-testid=meta-location]`, "Club")
	if p := play(id); p.Location != "Club" || p.StartPlayer == nil || *p.StartPlayer != 1 || p.Notes == "" {
		t.Errorf("after the edit screen the server has %+v", p)
	}

	// The history by location: the address keeps the filter.
	apiJSON(t, http.MethodPut, base+"/api/v1/plays/"+other, editBody(t, base, other, "Kitchen table"), nil, http.StatusOK, nil)
	b.do(chromedp.Navigate(base+"/history?location=kitchen%20TABLE"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=play-item]`)))
	b.waitFor("the plays at the kitchen table", `document.querySelectorAll('[data-testid=play-item]').length === 1`)
	if got, _ := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('[data-testid=play-item]').dataset.id`)); got != other {
		t.Errorf("the kitchen table's play is %q, want %q", got, other)
	}
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		const i = document.getElementById('filter-location');
		i.value = 'club';
		i.dispatchEvent(new Event('change', { bubbles: true }));
	})()`))
	b.waitFor("the play at the club", `document.querySelector('[data-testid=play-item]')?.dataset.id === `+js(id)+
		` && document.querySelectorAll('[data-testid=play-item]').length === 1`)
	if loc := b.location(); !strings.HasSuffix(loc, "/history?location=club") {
		t.Errorf("the address is %s, want the filter in it", loc)
	}
	b.screenshot("notes-history")
	b.checkConsole()
}

// editBody is a play's PUT body as it is, with another location.
func editBody(t *testing.T, base, id, location string) string {
	t.Helper()
	var p struct {
		Game       string  `json:"game"`
		StartedAt  *string `json:"startedAt"`
		FinishedAt string  `json:"finishedAt"`
		Results    []struct {
			Player string          `json:"player"`
			Board  json.RawMessage `json:"board"`
		} `json:"results"`
	}
	apiJSON(t, http.MethodGet, base+"/api/v1/plays/"+id, "", nil, http.StatusOK, &p)
	type player struct {
		Name  string          `json:"name"`
		Board json.RawMessage `json:"board"`
	}
	req := struct {
		Game       string   `json:"game"`
		StartedAt  *string  `json:"startedAt,omitempty"`
		FinishedAt string   `json:"finishedAt"`
		Players    []player `json:"players"`
		Location   string   `json:"location"`
	}{Game: p.Game, StartedAt: p.StartedAt, FinishedAt: p.FinishedAt, Location: location}
	for _, r := range p.Results {
		req.Players = append(req.Players, player{r.Player, r.Board})
	}
	out, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

package pwa_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

// These tests press Share on the results of a quick score, of a finished
// live table and of a play in the history, in real Chromium: the result
// card is drawn in the page, then shared (navigator.share, where the test
// gives the page one that records what it was handed) or downloaded
// (Chromium saves it to a directory of the test). The PNG is decoded here
// and held to its size and to what must be seen on it.

// downloads are the files the page downloads, saved by Chromium.
type downloads struct {
	t     *testing.T
	dir   string
	names chan string
	done  chan string
}

// catchDownloads has Chromium save this tab's downloads into a directory
// of the test, and reports each one.
func (b *browser) catchDownloads() *downloads {
	b.t.Helper()
	d := &downloads{t: b.t, dir: b.t.TempDir(), names: make(chan string, 8), done: make(chan string, 8)}
	begun := chromedp.Events(b.ctx, cdpbrowser.DownloadWillBegin)
	progress := chromedp.Events(b.ctx, cdpbrowser.DownloadProgress)
	go func() {
		for ev, err := range begun {
			if err != nil {
				return
			}
			d.names <- ev.SuggestedFilename
		}
	}()
	go func() {
		for ev, err := range progress {
			if err != nil {
				return
			}
			if ev.State == cdpbrowser.DownloadProgressStateCompleted {
				d.done <- ev.GUID
			}
		}
	}()
	on := true
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: d.dir, EventsEnabled: &on,
		})
		return err
	}))
	return d
}

// next waits for the next download and returns the name the page gave it
// and its bytes.
func (d *downloads) next() (string, []byte) {
	d.t.Helper()
	var name string
	select {
	case name = <-d.names:
	case <-time.After(liveWait):
		d.t.Fatalf("no download began within %s", liveWait)
	}
	select {
	case guid := <-d.done:
		data, err := os.ReadFile(filepath.Join(d.dir, guid))
		if err != nil {
			d.t.Fatal(err)
		}
		return name, data
	case <-time.After(liveWait):
		d.t.Fatalf("the download of %s did not complete within %s", name, liveWait)
	}
	return "", nil
}

// none fails the test if a download began.
func (d *downloads) none(when string) {
	d.t.Helper()
	select {
	case name := <-d.names:
		d.t.Errorf("%s: the page downloaded %s", when, name)
	default:
	}
}

// withoutWebShare takes the Web Share API away from the page, as in a
// browser that cannot share files.
func (b *browser) withoutWebShare() {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](`delete Navigator.prototype.share; delete Navigator.prototype.canShare;
		delete navigator.share; delete navigator.canShare;`))
	if has, _ := chromedp.Run(b.ctx, chromedp.Evaluate[bool](`'share' in navigator || 'canShare' in navigator`)); has {
		b.t.Fatal("navigator.share is still there")
	}
}

// stubWebShare gives the page a Web Share API that can share files and
// records what it was handed in window.sharedCard: the file's name, type,
// size and bytes, the title and the text. With fail, share then rejects
// with a DOMException of that name (AbortError: the share sheet was
// closed).
func (b *browser) stubWebShare(fail string) {
	b.t.Helper()
	b.do(chromedp.Evaluate[chromedp.Void](`(() => {
		window.sharedCard = null;
		const fail = ` + js(fail) + `;
		Object.defineProperty(navigator, 'canShare', { configurable: true, value: (data) =>
			!!data && Array.isArray(data.files) && data.files.every((f) => f instanceof File && f.type === 'image/png') });
		Object.defineProperty(navigator, 'share', { configurable: true, value: async (data) => {
			const f = data.files[0];
			const png = await new Promise((resolve) => {
				const r = new FileReader();
				r.onload = () => resolve(String(r.result).split(',')[1]);
				r.readAsDataURL(f);
			});
			window.sharedCard = { name: f.name, type: f.type, size: f.size, title: data.title, text: data.text, png, files: data.files.length };
			if (fail) throw new DOMException('the test says no', fail);
		} });
	})()`))
}

// sharedCard is what the page handed navigator.share.
type sharedCard struct {
	Name, Type, Title, Text, PNG string
	Size, Files                  int
}

// shared waits for the page to share a card and returns it.
func (b *browser) shared() sharedCard {
	b.t.Helper()
	b.waitFor("the card to be shared", `window.sharedCard`)
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[sharedCard](`window.sharedCard`))
	if err != nil {
		b.t.Fatal(err)
	}
	return got
}

// light colours of the card (app.css :root).
var (
	cardBackground = color.RGBA{0xf4, 0xf2, 0xea, 0xff}
	cardHeader     = color.RGBA{0x1f, 0x5a, 0x3d, 0xff}
	cardAccent     = color.RGBA{0xf2, 0xb3, 0x3d, 0xff}
)

// checkCard decodes a result card and holds it to its width, to a sane
// height and file size, to the app's light colours (whatever the phone's
// scheme), and to showing something: many colours, and text.
func checkCard(t *testing.T, what string, data []byte, width int, winner bool) image.Image {
	t.Helper()
	if len(data) < 8<<10 || len(data) > 3<<20 {
		t.Errorf("%s: the card is %d bytes, want 8 KB to 3 MB", what, len(data))
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: the card is not a PNG: %v", what, err)
	}
	bounds := img.Bounds()
	t.Logf("%s: %d×%d px, %d bytes", what, bounds.Dx(), bounds.Dy(), len(data))
	if bounds.Dx() != width {
		t.Errorf("%s: the card is %d px wide, want %d", what, bounds.Dx(), width)
	}
	if bounds.Dy() < width/2 || bounds.Dy() > width*3 {
		t.Errorf("%s: the card is %d px high for %d px wide, want between half and three times its width", what, bounds.Dy(), width)
	}
	at := func(x, y int) color.RGBA {
		r, g, b, a := img.At(x, y).RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	if got := at(2, 2); got != cardHeader {
		t.Errorf("%s: the card's top corner is %v, want the app's green %v", what, got, cardHeader)
	}
	if got := at(2, bounds.Dy()-3); got != cardBackground {
		t.Errorf("%s: the card's bottom corner is %v, want the light background %v", what, got, cardBackground)
	}
	colours := map[color.RGBA]int{}
	dark := 0
	for y := 0; y < bounds.Dy(); y++ {
		for x := 0; x < bounds.Dx(); x++ {
			c := at(x, y)
			colours[c]++
			if int(c.R)+int(c.G)+int(c.B) < 3*80 {
				dark++
			}
		}
	}
	if len(colours) < 40 {
		t.Errorf("%s: the card has %d colours, want the many of text on panels", what, len(colours))
	}
	// Dark text on the light body: about a few per cent of the pixels.
	if share := float64(dark) / float64(bounds.Dx()*bounds.Dy()); share < 0.01 {
		t.Errorf("%s: %.2f%% of the card is dark (text), want at least 1%%", what, 100*share)
	}
	if got := colours[cardAccent]; winner && got < 100 {
		t.Errorf("%s: the winner's amber shows on %d pixels, want it marked", what, got)
	}
	return img
}

// saveCard keeps a card as name.png beside the screenshots
// ($INSECTSCORE_SCREENSHOTS), to look at.
func saveCard(name string, data []byte) {
	if dir := os.Getenv("INSECTSCORE_SCREENSHOTS"); dir != "" {
		_ = os.WriteFile(filepath.Join(dir, name+".png"), data, 0o644)
	}
}

// localDay is the day of t in the file name of a card.
func localDay(t time.Time) string {
	return t.Local().Format("2006-01-02")
}

// TestBrowserShareQuickScore scores the Insecta rulebook example on a
// phone in dark mode whose browser cannot share files: Share downloads the
// card, light, 1080 px wide, and says so.
func TestBrowserShareQuickScore(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insecta', ` + js(quickEntry(t, insectaExample(t)...)) + `)`))
	b.dark()
	b.do(chromedp.Navigate(base+"/score/insecta/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=share]`)))
	b.withoutWebShare()
	saved := b.catchDownloads()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	name, data := saved.next()
	want := "insectscore-insecta-" + localDay(time.Now()) + ".png"
	if name != want {
		t.Errorf("the card downloads as %q, want %q", name, want)
	}
	checkCard(t, "quick score", data, 1080, true)
	b.waitTextHas(`[data-testid=share-status]`, "downloaded: "+want)
	b.screenshot("share-quick-score")
	b.axe("results, card downloaded (dark)")
	b.lightAgain()
	b.axe("results, card downloaded")
	for _, s := range b.smallTargets() {
		t.Errorf("results: a touch target under 44×44 px: %s", s)
	}
	saveCard("share-card-insecta", data)

	// Provisional results (no display is full yet) have no winner: there
	// is nothing to share.
	part := strings.Replace(fullDisplay(""), `{"color":"green","insect":"bee","points":1,"tools":[]}`, "null", 1)
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insectarium', `+js(quickEntry(t, seedPlayer{"Ana", part}, seedPlayer{"Ben", part}))+`)`),
		chromedp.Navigate(base+"/score/insectarium/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=total-0]`)))
	if !strings.Contains(b.pageText(), "Provisional") {
		t.Fatalf("two displays with a gap each are not provisional: %q", b.pageText())
	}
	if n := b.countOf(`[data-testid=share]`); n != 0 {
		t.Errorf("provisional results offer Share (%d buttons)", n)
	}
	b.checkConsole()
}

// TestBrowserShareTable finishes a live table of four (one with a long
// name, which the card shortens) and presses Share on its
// results in a browser that can share files: the card goes to
// navigator.share as one PNG file, with the standings in its text.
func TestBrowserShareTable(t *testing.T) {
	base := startApp(t)
	var table struct{ Code, HostToken string }
	apiJSON(t, http.MethodPost, base+"/api/v1/tables", `{"game":"insectarium","players":["Ana","Ben","Cleo","Maximiliana von Käferberg-Schmetterling"]}`, nil, http.StatusCreated, &table)
	putBoard(t, base, table.Code, 0, table.HostToken, displayBoard(4))
	putBoard(t, base, table.Code, 1, table.HostToken, fullDisplay("yellow"))
	putBoard(t, base, table.Code, 2, table.HostToken, displayBoard(0))
	putBoard(t, base, table.Code, 3, table.HostToken, displayBoard(2))
	apiJSON(t, http.MethodPost, base+"/api/v1/tables/"+table.Code+"/finish", "", map[string]string{"Authorization": "Bearer " + table.HostToken}, http.StatusOK, nil)

	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/t/"+table.Code), chromedp.WaitVisible(chromedp.CSS(`[data-testid=share]`)))
	b.stubWebShare("")
	saved := b.catchDownloads()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	got := b.shared()
	want := "insectscore-insectarium-" + localDay(time.Now()) + ".png"
	if got.Name != want || got.Type != "image/png" || got.Files != 1 {
		t.Errorf("shared %d file(s), the first %q of type %q, want one %q of type image/png", got.Files, got.Name, got.Type, want)
	}
	data, err := base64.StdEncoding.DecodeString(got.PNG)
	if err != nil {
		t.Fatal(err)
	}
	if got.Size != len(data) {
		t.Errorf("the shared file says %d bytes and holds %d", got.Size, len(data))
	}
	checkCard(t, "live table", data, 1080, true)
	saveCard("share-card-table", data)
	if !strings.Contains(got.Title, "Insectarium") {
		t.Errorf("the share's title is %q, want the game's name", got.Title)
	}
	for _, s := range []string{"Insectarium", "1st Ana", "Ben", "Cleo", "Maximiliana von Käferberg-Schmetterling", "Ana wins."} {
		if !strings.Contains(got.Text, s) {
			t.Errorf("the share's text %q lacks %q", got.Text, s)
		}
	}
	b.waitFor("the share to end", `!document.querySelector('[data-testid=share]').hasAttribute('aria-busy')`)
	if s := b.textNow(`[data-testid=share-status]`); s != "" {
		t.Errorf("after a share the results say %q, want nothing", s)
	}
	saved.none("after a share")
	b.checkConsole()
}

// TestBrowserSharePlay presses Share on a play of the history, on a phone
// of three pixels per CSS pixel: closing the share sheet is no error and
// downloads nothing; a share that fails says why and downloads the card
// instead, 1620 px wide; a shared win is named as one.
func TestBrowserSharePlay(t *testing.T) {
	base := startApp(t)
	finished := time.Date(2026, 3, 14, 12, 0, 0, 0, time.UTC)
	play := postPlay(t, base, "default", "insektenhotel", finished, seedPlayer{"Ana", fullHotel}, seedPlayer{"Ben", partHotel})
	tie := postPlay(t, base, "default", "insectarium", finished, seedPlayer{"Ana", displayBoard(4)}, seedPlayer{"Ben", displayBoard(4)})
	b := newBrowser(t, base)
	b.do(chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateMobile))
	b.do(chromedp.Navigate(base+"/plays/"+play), chromedp.WaitVisible(chromedp.CSS(`[data-testid=share]`)))
	saved := b.catchDownloads()

	b.stubWebShare("AbortError")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	got := b.shared()
	want := "insectscore-insektenhotel-" + localDay(finished) + ".png"
	if got.Name != want {
		t.Errorf("the card is named %q, want %q (the day of the play)", got.Name, want)
	}
	b.waitFor("the share to end", `!document.querySelector('[data-testid=share]').hasAttribute('aria-busy')`)
	if s := b.textNow(`[data-testid=share-status]`); s != "" {
		t.Errorf("after the share sheet was closed the play says %q, want nothing", s)
	}
	saved.none("after the share sheet was closed")

	b.stubWebShare("NotAllowedError")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	name, data := saved.next()
	if name != want {
		t.Errorf("the card downloads as %q, want %q", name, want)
	}
	checkCard(t, "play", data, 1620, true)
	saveCard("share-card-hotel", data)
	b.waitTextHas(`[data-testid=share-status]`, "Sharing did not work (NotAllowedError: the test says no), so the card is downloaded instead: "+want)
	b.screenshot("share-play-failed")

	b.do(chromedp.Navigate(base+"/plays/"+tie), chromedp.WaitVisible(chromedp.CSS(`[data-testid=share]`)))
	b.stubWebShare("")
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	got = b.shared()
	raw, err := base64.StdEncoding.DecodeString(got.PNG)
	if err != nil {
		t.Fatal(err)
	}
	checkCard(t, "shared win", raw, 1620, true)
	saveCard("share-card-shared-win", raw)
	if !strings.Contains(got.Text, "Ana and Ben share the win.") {
		t.Errorf("the share's text is %q, want the shared win named", got.Text)
	}
	b.checkConsole()
}

// TestBrowserShareOffline scores a solo Insectarium game with no network
// at all, once the app has been opened: the card's module comes from the
// service worker's cache and the card downloads, with the solo rating.
func TestBrowserShareOffline(t *testing.T) {
	base := startApp(t)
	b := newBrowser(t, base)
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.waitOfflineReady()
	b.setOffline(true)
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insectarium', ` + js(quickEntry(t, seedPlayer{"Ana", displayBoard(4)})) + `)`))
	b.do(chromedp.Navigate(base+"/score/insectarium/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=solo-rating]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=share]`)))
	b.withoutWebShare()
	saved := b.catchDownloads()
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	name, data := saved.next()
	if want := "insectscore-insectarium-" + localDay(time.Now()) + ".png"; name != want {
		t.Errorf("offline, the card downloads as %q, want %q", name, want)
	}
	checkCard(t, "solo, offline", data, 1080, false)
	saveCard("share-card-solo", data)
	b.noVagueErrors()
	b.checkConsole()
}

// TestBrowserShareCardFailsInGerman: when the canvas yields no picture,
// Share says so in the app's language, German here.
func TestBrowserShareCardFailsInGerman(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`a.game-btn`)))
	b.do(chromedp.Evaluate[chromedp.Void](`localStorage.setItem('insectscore:score:insecta', ` + js(quickEntry(t, insectaExample(t)...)) + `)`))
	b.do(chromedp.Navigate(base+"/score/insecta/results"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=share]`)))
	b.do(chromedp.Evaluate[chromedp.Void](`HTMLCanvasElement.prototype.toBlob = function (done) { done(null); }`))
	b.do(chromedp.Click(chromedp.CSS(`[data-testid=share]`)))
	b.waitTextHas(`[data-testid=share-status]`, "Die Ergebniskarte konnte nicht gezeichnet werden (die Zeichenfläche von 1080×")
	b.checkConsole()
}

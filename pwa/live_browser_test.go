package pwa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"insectscore/api/live"
	"insectscore/models"
)

// streamWatch notes what a tab's event streams bring and which tables it
// reads, as DevTools reports them.
type streamWatch struct {
	mu     sync.Mutex
	events map[string]int
	reads  map[string]int
}

// watchStreams starts noting the tab's event stream messages and reads.
func (b *browser) watchStreams() *streamWatch {
	b.t.Helper()
	w := &streamWatch{events: map[string]int{}, reads: map[string]int{}}
	err := chromedp.Listen(b.ctx, func(ev any) {
		switch e := ev.(type) {
		case *network.EventEventSourceMessageReceived:
			w.mu.Lock()
			w.events[e.EventName]++
			w.mu.Unlock()
		case *network.EventRequestWillBeSent:
			if e.Request.Method == "GET" {
				w.mu.Lock()
				w.reads[strings.TrimPrefix(e.Request.URL, b.base)]++
				w.mu.Unlock()
			}
		}
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

func (w *streamWatch) count(m map[string]int, key string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return m[key]
}

// getTable reads a table's JSON from the server.
func getTable(t *testing.T, base, code string) []byte {
	t.Helper()
	res, err := http.Get(base + "/api/v1/tables/" + code)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("GET table: %d %v", res.StatusCode, err)
	}
	return body
}

// TestBrowserTableLiveDeltas: on a four-player Insecta table with full
// boards, the host screen follows board saves made elsewhere through
// "delta" events, and shows what the server has. A delta that does not
// start from the screen's table (a gap) makes it read the table whole.
func TestBrowserTableLiveDeltas(t *testing.T) {
	srv := serveApp(t, ":memory:", "127.0.0.1:0")
	b := newBrowser(t, srv.base)
	watch := b.watchStreams()
	code := b.startTable("insecta", "Ana", "Ben", "Cleo", "Dan")
	token, _ := b.stored(code)["hostToken"].(string)

	var example struct {
		Players []struct{ Board map[string]any }
	}
	raw, err := os.ReadFile("../api/testdata/insecta-example.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &example); err != nil {
		t.Fatal(err)
	}
	board := func(seat, track int) string {
		m := example.Players[0].Board
		m["researcher"] = []string{"mary-kingsley", "maria-sibylla-merian", "louise-caroline-daumont", "ida-laura-pfeiffer"}[seat]
		m["track"] = track
		out, _ := json.Marshal(m)
		return string(out)
	}
	// showsServer waits until the host screen shows each seat's total as
	// the server has it.
	showsServer := func() []byte {
		t.Helper()
		body := getTable(t, srv.base, code)
		var tbl struct {
			Standings struct{ Results []struct{ Total int } }
		}
		if err := json.Unmarshal(body, &tbl); err != nil || len(tbl.Standings.Results) != 4 {
			t.Fatalf("the table has no standings for four: %v %s", err, body)
		}
		for i, r := range tbl.Standings.Results {
			b.waitTextNow(fmt.Sprintf(`[data-testid=seat-total-%d]`, i), strconv.Itoa(r.Total))
		}
		return body
	}
	for seat := range 4 {
		putBoard(t, srv.base, code, seat, token, board(seat, 10+seat))
	}
	showsServer()
	deltas := watch.count(watch.events, "delta")
	// Each save is shown before the next, so that a slow run cannot
	// coalesce the two into one table event.
	putBoard(t, srv.base, code, 2, token, board(2, 30))
	showsServer()
	putBoard(t, srv.base, code, 0, token, board(0, 3))
	before := showsServer()
	if got := watch.count(watch.events, "delta"); got <= deltas {
		t.Errorf("%d delta events reached the page for the last two saves (%d before), want them to come as deltas", got-deltas, deltas)
	}

	// Ben's board changes with no event, then an event comes whose delta
	// starts from an older version than the screen has: it reads the table.
	tablePath := "/api/v1/tables/" + code
	reads := watch.count(watch.reads, tablePath)
	var at struct{ Version int }
	if err := json.Unmarshal(before, &at); err != nil {
		t.Fatal(err)
	}
	if _, _, err := srv.store.PutBoard(context.Background(), models.BoardPut{Code: code, Token: token, Seat: 1,
		Board: json.RawMessage(board(1, 40))}, nil); err != nil {
		t.Fatal(err)
	}
	after := getTable(t, srv.base, code)
	gap := fmt.Sprintf(`{"from":%d,"version":%d,"patch":[]}`, at.Version-1, at.Version+1)
	ev := live.Event{Version: at.Version + 1, Data: after}
	ev.Delta = live.NewDelta(before, ev, func() []byte { return []byte(gap) })
	srv.broker.Publish(code, ev)
	showsServer()
	if got := watch.count(watch.reads, tablePath); got <= reads {
		t.Errorf("the page read the table %d times after a delta with a gap, want it read again", got-reads)
	}
	b.checkConsole()
}

package api

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// TestGuessLimitBehindProxy: behind a trusted proxy each client has its own
// budget of failed lookups, read from X-Forwarded-For; a client that is not
// a trusted proxy cannot pick its address with that header.
func TestGuessLimitBehindProxy(t *testing.T) {
	from := func(ip string) map[string]string { return map[string]string{"X-Forwarded-For": ip} }
	tests := []struct {
		name    string
		trusted []string
		// other is the status the second client gets once the first is out.
		other int
	}{
		{"trusted proxy: clients apart", []string{"0.0.0.0/8"}, 404},
		{"no trusted proxy: the header is ignored", nil, 429},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, Config{TrustedProxies: tt.trusted})
			for i := range 30 {
				mustCall(t, app, "GET", fmt.Sprintf("/api/v1/tables/ZZZZ%02d", i), "", from("203.0.113.7"), 404)
			}
			mustCall(t, app, "GET", "/api/v1/tables/ZZZZZZ", "", from("203.0.113.7"), 429)
			mustCall(t, app, "GET", "/api/v1/tables/ZZZZZZ", "", from("198.51.100.9"), tt.other)
		})
	}
}

// TestJoinURLBehindProxy: a trusted proxy's X-Forwarded-Proto and -Host make
// the public origin of join links.
func TestJoinURLBehindProxy(t *testing.T) {
	header := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "scores.example"}
	for _, tt := range []struct {
		name    string
		trusted []string
		want    string
	}{
		{"trusted", []string{"0.0.0.0/8"}, "https://scores.example/t/"},
		{"not trusted", nil, "http://example.com/t/"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, Config{TrustedProxies: tt.trusted})
			r := mustCall(t, app, "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"]}`, header, 201)
			got := decodeJSON[createdTable](t, r).JoinURL
			if !strings.HasPrefix(got, tt.want) {
				t.Errorf("joinUrl %q, want it to start with %q", got, tt.want)
			}
		})
	}
}

// TestCreateLimit: one address may create 60 things a minute.
func TestCreateLimit(t *testing.T) {
	app := newTestApp(t)
	for range createsPerMinute {
		mustCall(t, app, "POST", "/api/v1/groups", `{"name": "Club"}`, nil, 201)
	}
	runScenarios(t, app, []scenario{
		{name: "one group too many", method: "POST", path: "/api/v1/groups", body: `{"name": "Club"}`, status: 429},
		{name: "tables share the budget", method: "POST", path: "/api/v1/tables", body: `{"game": "insecta"}`, status: 429},
		{name: "reading is not limited", method: "GET", path: "/api/v1/games", status: 200},
	})
}

// TestForgedClientAddress: behind a proxy that appends to X-Forwarded-For
// (nginx's default), everything left of what it wrote is the client's own
// word. The client is the rightmost address that is not a trusted proxy,
// so a client writing a new address into each request still gets one
// budget. The reproduction: 45 failed lookups with
// X-Forwarded-For: 198.51.100.$i, 203.0.113.7 got no 429.
func TestForgedClientAddress(t *testing.T) {
	tests := []struct {
		name    string
		trusted []string
		xff     func(i int) string
		// limited says whether the 31st and later misses answer 429.
		limited bool
	}{
		{"the issue's reproduction", []string{"127.0.0.1"}, func(i int) string { return fmt.Sprintf("198.51.100.%d, 203.0.113.7", i) }, true},
		{"two trusted proxies", []string{"127.0.0.1", "10.0.0.0/8"}, func(i int) string { return fmt.Sprintf("198.51.100.%d, 203.0.113.7, 10.1.2.3", i) }, true},
		{"with ports", []string{"127.0.0.1"}, func(i int) string { return fmt.Sprintf("198.51.100.%d:4000, [2001:db8::7]:443", i) }, true},
		{"garbage to the left", []string{"127.0.0.1"}, func(i int) string { return fmt.Sprintf("not-an-ip-%d, 203.0.113.7", i) }, true},
		{"no trusted proxy: the header is ignored", nil, func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }, true},
		{"each client its own budget", []string{"127.0.0.1"}, func(i int) string { return fmt.Sprintf("198.51.100.%d", i) }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, base := serveLive(t, Config{TrustedProxies: tt.trusted})
			count := map[int]int{}
			for i := range 45 {
				r := httpCall(t, "GET", fmt.Sprintf("%s/api/v1/tables/ZZZZ%02d", base, i), "", map[string]string{"X-Forwarded-For": tt.xff(i)})
				count[r.status]++
			}
			want := map[int]int{404: 45}
			if tt.limited {
				want = map[int]int{404: guessesPerMinute, 429: 45 - guessesPerMinute}
			}
			if fmt.Sprint(count) != fmt.Sprint(want) {
				t.Errorf("statuses %v, want %v", count, want)
			}
		})
	}
}

// TestClientIP: which address a request comes from, as the limits, the
// stream caps and the log see it. app.Test's requests come from 0.0.0.0.
func TestClientIP(t *testing.T) {
	tests := []struct {
		name    string
		trusted []string
		xff     []string // one entry per X-Forwarded-For header
		want    string
	}{
		{"no proxy", nil, nil, "0.0.0.0"},
		{"an untrusted peer's header", nil, []string{"203.0.113.7"}, "0.0.0.0"},
		{"a trusted proxy without the header", []string{"0.0.0.0/8"}, nil, "0.0.0.0"},
		{"one hop", []string{"0.0.0.0/8"}, []string{"203.0.113.7"}, "203.0.113.7"},
		{"the rightmost untrusted", []string{"0.0.0.0/8"}, []string{"198.51.100.1, 203.0.113.7"}, "203.0.113.7"},
		{"trusted hops skipped", []string{"0.0.0.0/8", "10.0.0.0/8"}, []string{"198.51.100.1, 203.0.113.7, 10.0.0.2, 10.9.9.9"}, "203.0.113.7"},
		{"several headers read as one list", []string{"0.0.0.0/8"}, []string{"198.51.100.1", "203.0.113.7"}, "203.0.113.7"},
		{"spaces and ports", []string{"0.0.0.0/8"}, []string{" 198.51.100.1 ,203.0.113.7:5000 "}, "203.0.113.7"},
		{"IPv6", []string{"0.0.0.0/8"}, []string{"[2001:db8::1]:443"}, "2001:db8::1"},
		{"IPv4 in IPv6", []string{"0.0.0.0/8"}, []string{"::ffff:203.0.113.7"}, "203.0.113.7"},
		{"garbage ends the walk at the last trusted hop", []string{"0.0.0.0/8", "10.0.0.0/8"}, []string{"203.0.113.7, junk, 10.0.0.2"}, "10.0.0.2"},
		{"all trusted", []string{"0.0.0.0/8", "10.0.0.0/8"}, []string{"10.0.0.1, 10.0.0.2"}, "10.0.0.1"},
		{"an empty entry", []string{"0.0.0.0/8"}, []string{"203.0.113.7, "}, "0.0.0.0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proxies, err := parseProxies(tt.trusted)
			if err != nil {
				t.Fatal(err)
			}
			s := &server{proxies: proxies}
			app := fiber.New()
			app.Get("/", func(c *fiber.Ctx) error { return c.SendString(s.clientIP(c)) })
			req := httptest.NewRequest("GET", "/", nil)
			for _, h := range tt.xff {
				req.Header.Add("X-Forwarded-For", h)
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			if string(got) != tt.want {
				t.Errorf("client %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := parseProxies([]string{"proxy.example"}); err == nil {
		t.Error("a host name was taken as a trusted proxy")
	}
}

// TestGuessLimitCafe: phones behind one address (a café's router) open a
// real table all at once, and keep its live updates open: none of that
// counts. The reproduction: 31 or more simultaneous lookups of an
// existing table got 41–88 of 120 answered 429.
func TestGuessLimitCafe(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		clk := &testClock{now: day(20, 19, 0)}
		store.Now = clk.Now
		_, base := serveLive(t, Config{Store: store, Now: clk.Now, Heartbeat: time.Hour})
		tbl := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables", `{"game": "insecta", "players": ["Ana", "Ben"]}`, nil, 201))
		for range 10 {
			wantRetry(t, openEvents(t, base, tbl.Code, ""))
		}
		statuses := lookupAtOnce(t, base+"/api/v1/tables/"+tbl.Code, 100)
		if fmt.Sprint(statuses) != "map[200:100]" {
			t.Fatalf("100 lookups of a real table at once: %v, want all 200", statuses)
		}
		for i := range guessesPerMinute {
			mustHTTP(t, "GET", fmt.Sprintf("%s/api/v1/tables/ZZZZ%02d", base, i), "", nil, 404)
		}
		r := mustHTTP(t, "GET", base+"/api/v1/tables/ZZZZZZ", "", nil, 429)
		if got := r.header.Get("Retry-After"); got != "60" {
			t.Errorf("Retry-After %q, want 60", got)
		}
		// Spent: the address learns nothing more, not even that a code exists.
		mustHTTP(t, "GET", base+"/api/v1/tables/"+tbl.Code, "", nil, 429)
		clk.Advance(guessWindow)
		mustHTTP(t, "GET", base+"/api/v1/tables/"+tbl.Code, "", nil, 200)
		mustHTTP(t, "GET", base+"/api/v1/tables/ZZZZZZ", "", nil, 404)
	})
}

// TestGuessesAtOnce: misses sent all at once get no more answers than the
// budget; the rest answer 429, as if they had come one by one.
func TestGuessesAtOnce(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		_, base := serveLive(t, Config{Store: store})
		statuses := lookupAtOnce(t, base+"/api/v1/tables/ZZZZZZ", 100)
		if want := fmt.Sprint(map[int]int{404: guessesPerMinute, 429: 100 - guessesPerMinute}); fmt.Sprint(statuses) != want {
			t.Errorf("100 misses at once: %v, want %v", statuses, want)
		}
	})
}

// lookupAtOnce sends n GETs of url at the same moment and counts the
// statuses.
func lookupAtOnce(t *testing.T, url string, n int) map[int]int {
	t.Helper()
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		start = make(chan struct{})
		count = map[int]int{}
	)
	for range n {
		wg.Go(func() {
			<-start
			r := httpCall(t, "GET", url, "", nil)
			mu.Lock()
			count[r.status]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return count
}

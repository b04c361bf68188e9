package api

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"insectscore/models"
)

// openStream opens a table's event stream as client (through a trusted
// proxy at 127.0.0.1) and returns its status; a 200 stream stays open
// until close is called or the test ends.
func openStream(t *testing.T, base, code, client string) (status int, closeIt func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	path := "/api/v1/tables/" + code + "/events"
	req, err := http.NewRequestWithContext(ctx, "GET", base+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", client)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode == 200 {
		return 200, func() { cancel(); resp.Body.Close() }
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	r := response{status: resp.StatusCode, header: resp.Header, body: body}
	checkOpenAPI(t, "GET", path, r)
	if r.status == 429 && r.header.Get("Retry-After") == "" {
		t.Error("a 429 without Retry-After")
	}
	return r.status, cancel
}

// TestStreamCaps: event streams are capped per client address and in all;
// beyond, 429 with Retry-After, and a stream that closes frees its place.
// The reproduction: one address held 8,000 streams.
func TestStreamCaps(t *testing.T) {
	eachBackend(t, func(t *testing.T, store *models.Store) {
		m := NewMetrics()
		_, base := serveLive(t, Config{Store: store, TrustedProxies: []string{"127.0.0.1"}, Metrics: m,
			MaxStreamsPerClient: 3, MaxStreams: 5, Heartbeat: 20 * time.Millisecond})
		tbl := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables", `{"game": "insecta", "players": ["Ana"]}`, nil, 201))
		const a, b, c = "203.0.113.1", "203.0.113.2", "203.0.113.3"
		var closeA []func()
		steps := []struct {
			name, client string
			want         int
		}{
			{"A's first", a, 200}, {"A's second", a, 200}, {"A's third", a, 200},
			{"A's fourth: over A's cap", a, 429},
			{"B's first", b, 200}, {"B's second", b, 200},
			{"C's first: over the total", c, 429},
		}
		for _, st := range steps {
			status, closeIt := openStream(t, base, tbl.Code, st.client)
			if status != st.want {
				t.Fatalf("%s: status %d, want %d", st.name, status, st.want)
			}
			if st.client == a && status == 200 {
				closeA = append(closeA, closeIt)
			}
		}
		if got := gaugeValue(t, m, "insectscore_event_streams_open"); got != 5 {
			t.Errorf("open streams %v, want 5", got)
		}
		// The 429s counted as no failed lookup.
		mustHTTP(t, "GET", base+"/api/v1/tables/"+tbl.Code, "", map[string]string{"X-Forwarded-For": a}, 200)
		closeA[0]()
		// The server notices at the next heartbeat.
		deadline := time.Now().Add(eventWait)
		for {
			status, _ := openStream(t, base, tbl.Code, c)
			if status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("a closed stream's place was not freed within %s (status %d)", eventWait, status)
			}
			time.Sleep(20 * time.Millisecond)
		}
		if got := gaugeValue(t, m, "insectscore_event_streams_open"); got != 5 {
			t.Errorf("open streams %v, want 5", got)
		}
		if status, _ := openStream(t, base, tbl.Code, a); status != 429 {
			t.Errorf("A's stream with the server full: %d, want 429", status)
		}
	})
}

// TestStreamCapDefaults: with nothing set, 64 per client, 10,000 in all.
func TestStreamCapDefaults(t *testing.T) {
	for _, tt := range []struct{ per, total, wantPer, wantTotal int }{
		{0, 0, 64, 10000},
		{-1, -5, 64, 10000},
		{2, 7, 2, 7},
	} {
		sc := newStreamCaps(tt.per, tt.total, func(int) {})
		if sc.perClient != tt.wantPer || sc.total != tt.wantTotal {
			t.Errorf("newStreamCaps(%d, %d) = %d, %d; want %d, %d", tt.per, tt.total, sc.perClient, sc.total, tt.wantPer, tt.wantTotal)
		}
	}
}

package scoring

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"testing"
)

// Every request these tests score is also kept in testdata/requests.json,
// for the engine parity test of pwa/ (engine_browser_test.go): it sends each
// one to the server and to the WebAssembly engine and wants the same answer.
// The tests score through scoreCase (or fuzzScore), which notes the request
// as the JSON body a client would send. A full run of the tests checks the
// file; after adding or changing a case, rewrite it with
//
//	go test ./scoring -update

// requestsFile holds the recorded requests.
const requestsFile = "testdata/requests.json"

// recordedRequests reads the recorded requests.
func recordedRequests(t testing.TB) []recordedRequest {
	t.Helper()
	raw, err := os.ReadFile(requestsFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []recordedRequest
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	return cases
}

var update = flag.Bool("update", false, "rewrite "+requestsFile+" from the requests the tests score")

// recordedRequest is one score request a test made.
type recordedRequest struct {
	// Name is the test's name, with "#n" for its n-th request after the first.
	Name string `json:"name"`
	Game string `json:"game"`
	// Body is the request body as text; the fuzz seeds include bodies that
	// are not JSON.
	Body string `json:"body"`
}

var recorder = struct {
	sync.Mutex
	on    bool
	cases map[string]recordedRequest
	// made counts each test's requests; a test run twice (-count) starts
	// again from zero and overwrites its own cases.
	made map[testing.TB]int
}{cases: map[string]recordedRequest{}, made: map[testing.TB]int{}}

// scoreCase is Score for a test case; it records the request, and checks
// what every result promises (fuzzCheckResult).
func scoreCase(t testing.TB, g Game, req Request) (*Result, error) {
	t.Helper()
	// A board that is not JSON cannot be sent: such a case stays out.
	if body, err := json.Marshal(req); err == nil {
		recordBody(t, g.Spec().ID, body)
	}
	res, err := Score(g, req)
	if err == nil {
		fuzzCheckResult(t, res, len(req.Players))
	}
	return res, err
}

// recordBody notes a request body of game made by test t.
func recordBody(t testing.TB, game string, body []byte) {
	recorder.Lock()
	defer recorder.Unlock()
	if !recorder.on {
		return
	}
	n := recorder.made[t]
	recorder.made[t] = n + 1
	name := t.Name()
	if n > 0 {
		name = fmt.Sprintf("%s#%d", name, n)
	}
	recorder.cases[name] = recordedRequest{Name: name, Game: game, Body: string(body)}
}

func TestMain(m *testing.M) {
	flag.Parse()
	// Fuzzing scores without end: nothing is recorded then.
	fuzzing := flag.Lookup("test.fuzz").Value.String() != "" || flag.Lookup("test.fuzzworker").Value.String() == "true"
	recorder.on = !fuzzing
	code := m.Run()
	if code == 0 && !fuzzing && fullRun() {
		if err := checkRequests(*update); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// fullRun says whether every test ran, so that the recorded requests are
// all of them.
func fullRun() bool {
	for _, name := range []string{"test.run", "test.skip"} {
		if flag.Lookup(name).Value.String() != "" {
			return false
		}
	}
	return !testing.Short()
}

// checkRequests compares the recorded requests with requestsFile, or
// rewrites the file with them.
func checkRequests(write bool) error {
	recorder.Lock()
	defer recorder.Unlock()
	cases := make([]recordedRequest, 0, len(recorder.cases))
	for _, c := range recorder.cases {
		cases = append(cases, c)
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].Name < cases[j].Name })
	want, err := json.MarshalIndent(cases, "", "\t")
	if err != nil {
		return err
	}
	want = append(want, '\n')
	if write {
		if err := os.MkdirAll(filepath.Dir(requestsFile), 0o755); err != nil {
			return err
		}
		return os.WriteFile(requestsFile, want, 0o644)
	}
	got, err := os.ReadFile(requestsFile)
	if err == nil && !bytes.Equal(got, want) {
		err = fmt.Errorf("it does not hold the %d requests the tests score", len(cases))
	}
	if err != nil {
		return fmt.Errorf("FAIL: %s: %v; run `go test ./scoring -update` and commit it", requestsFile, err)
	}
	return nil
}

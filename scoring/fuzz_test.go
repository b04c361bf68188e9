package scoring

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fuzzScore decodes body as the API decodes a score request, wants the
// request encoding/json would have read, scores it as game, and checks
// what every game promises: either field errors that point
// into the request, or one consistent result per player. It returns the
// result for the game's own checks, or nil when there is none.
func fuzzScore(t *testing.T, game string, body []byte) *Result {
	t.Helper()
	recordBody(t, game, body)
	var req Request
	if DecodeRequest(body, &req) != nil {
		t.Skip("not a request body")
	}
	// JSON v2 reads what encoding/json read, as it read it (decodeOptions).
	var old Request
	if err := json.Unmarshal(body, &old); err != nil || !reflect.DeepEqual(req, old) {
		t.Fatalf("JSON v2 reads %+v\nencoding/json   %+v (%v)", req, old, err)
	}
	g, ok := Lookup(game)
	if !ok {
		t.Fatalf("no game %q", game)
	}
	res, err := Score(g, req)
	if err != nil {
		fuzzCheckError(t, err)
		return nil
	}
	fuzzCheckResult(t, res, len(req.Players))
	return res
}

// fuzzCheckError requires a ValidationError that says where and what.
func fuzzCheckError(t *testing.T, err error) {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) || len(verr.Errors) == 0 {
		t.Fatalf("error %v (%T), want a *ValidationError with at least one error", err, err)
	}
	for _, fe := range verr.Errors {
		if !strings.HasPrefix(fe.Pointer, "/") || fe.Detail == "" {
			t.Fatalf("error %q: %q, want a pointer starting with / and words", fe.Pointer, fe.Detail)
		}
	}
}

// fuzzCheckResult requires one result per player, ranks in range, totals
// that are the sum of their breakdown, and winners exactly when complete.
func fuzzCheckResult(t testing.TB, res *Result, n int) {
	t.Helper()
	if len(res.Results) != n {
		t.Fatalf("%d results for %d players", len(res.Results), n)
	}
	for i, r := range res.Results {
		if r.Rank < 1 || r.Rank > n {
			t.Fatalf("player %d has rank %d of %d", i, r.Rank, n)
		}
		sum := 0
		for _, l := range r.Breakdown {
			sum += l.Points
		}
		if sum != r.Total {
			t.Fatalf("player %d: breakdown adds up to %d, total is %d", i, sum, r.Total)
		}
		if r.Entered != EnteredBoard && r.Entered != EnteredTotals {
			t.Fatalf("player %d: entered %q", i, r.Entered)
		}
		for _, l := range r.Breakdown {
			fuzzCheckSources(t, i, l.Key, l.Points, l.Sources)
		}
		for _, tb := range r.Tiebreaks {
			fuzzCheckSources(t, i, tb.Key, tb.Value, tb.Sources)
		}
		if r.Winner != slices.Contains(res.Winners, i) {
			t.Fatalf("player %d: winner=%v but winners=%v", i, r.Winner, res.Winners)
		}
	}
	for _, w := range res.Winners {
		if w < 0 || w >= n || res.Results[w].Rank != 1 {
			t.Fatalf("winner %d is not ranked first: %+v", w, res.Results)
		}
	}
	if res.Complete == (len(res.Winners) == 0) {
		t.Fatalf("complete=%v with winners %v", res.Complete, res.Winners)
	}
}

// fuzzCheckSources requires the sources of a line or tiebreak to be a list
// (never null) of pointers into the board, each adding something, that
// add up to the line's points or the tiebreak's value (issue 8, "why this
// score").
func fuzzCheckSources(t testing.TB, player int, key string, value int, sources []Source) {
	t.Helper()
	if sources == nil {
		t.Fatalf("player %d, %s: sources is nil, want a list", player, key)
	}
	sum := 0
	for _, s := range sources {
		if !strings.HasPrefix(s.Pointer, "/") || s.Points == 0 {
			t.Fatalf("player %d, %s: source %+v, want a pointer and points", player, key, s)
		}
		sum += s.Points
	}
	if sum != value {
		t.Fatalf("player %d, %s: sources add up to %d, the value is %d: %+v", player, key, sum, value, sources)
	}
}

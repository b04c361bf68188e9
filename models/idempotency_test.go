package models

import (
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestIdempotencyKeys walks one key through its life: pending, answered,
// replayed, refused for another request, and forgotten after its TTL.
func TestIdempotencyKeys(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		t0 := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		const ttl = 24 * time.Hour
		begin := func(scope, fp string, at time.Time) (*IdempotentAnswer, error) {
			t.Helper()
			return s.BeginIdempotent(ctx, scope, fp, at, ttl)
		}
		if a, err := begin("k1", "fp", t0); a != nil || err != nil {
			t.Fatalf("first use = %+v, %v; want nil, nil (run it)", a, err)
		}
		_, err := begin("k1", "fp", t0.Add(time.Second))
		wantErr(t, "a retry while the first runs", err, ErrInProgress)
		_, err = begin("k1", "other", t0.Add(time.Second))
		wantErr(t, "another request while the first runs", err, ErrKeyReused)

		answer := IdempotentAnswer{Status: 201, ContentType: "application/json", Location: "/api/v1/plays/x", Body: []byte(`{"id":"x"}`)}
		if err := s.FinishIdempotent(ctx, "k1", answer); err != nil {
			t.Fatal(err)
		}
		a, err := begin("k1", "fp", t0.Add(time.Hour))
		if err != nil || a == nil || !reflect.DeepEqual(*a, answer) {
			t.Fatalf("replay = %+v, %v; want %+v", a, err, answer)
		}
		_, err = begin("k1", "other", t0.Add(time.Hour))
		wantErr(t, "another request after the answer", err, ErrKeyReused)
		if a, err := begin("k1", "other", t0.Add(ttl)); a != nil || err != nil {
			t.Fatalf("after the TTL = %+v, %v; want the key free again", a, err)
		}

		// A request that died mid-way: its retry waits, then takes over.
		if a, err := begin("k2", "fp", t0); a != nil || err != nil {
			t.Fatalf("k2 first use = %+v, %v", a, err)
		}
		_, err = begin("k2", "fp", t0.Add(PendingTimeout-time.Second))
		wantErr(t, "a retry just before the pending timeout", err, ErrInProgress)
		_, err = begin("k2", "other", t0.Add(PendingTimeout))
		wantErr(t, "another request after the pending timeout", err, ErrKeyReused)
		if a, err := begin("k2", "fp", t0.Add(PendingTimeout)); a != nil || err != nil {
			t.Fatalf("a retry after the pending timeout = %+v, %v; want it to run", a, err)
		}
		_, err = begin("k2", "fp", t0.Add(PendingTimeout+time.Second))
		wantErr(t, "a retry while the taken-over request runs", err, ErrInProgress)

		// A failure worth retrying forgets the key; an answer is kept.
		if err := s.ForgetIdempotent(ctx, "k2"); err != nil {
			t.Fatal(err)
		}
		if a, err := begin("k2", "fp", t0.Add(PendingTimeout+2*time.Second)); a != nil || err != nil {
			t.Fatalf("a retry after a forgotten failure = %+v, %v; want it to run", a, err)
		}
		if err := s.FinishIdempotent(ctx, "k2", IdempotentAnswer{Status: 204}); err != nil {
			t.Fatal(err)
		}
		if err := s.ForgetIdempotent(ctx, "k2"); err != nil {
			t.Fatal(err)
		}
		if a, err := begin("k2", "fp", t0.Add(time.Hour)); err != nil || a == nil || a.Status != 204 || len(a.Body) != 0 {
			t.Fatalf("an answer with no body = %+v, %v; want 204, kept", a, err)
		}

		// Purging deletes what was first used before the cut-off only:
		// k1 was taken over at t0+ttl, k2 at t0+PendingTimeout.
		n, err := s.PurgeIdempotent(ctx, t0.Add(time.Hour))
		if err != nil || n != 1 {
			t.Fatalf("purge = %d, %v; want 1 (k2)", n, err)
		}
		if a, err := begin("k2", "other", t0.Add(time.Hour)); a != nil || err != nil {
			t.Fatalf("a purged key = %+v, %v; want it free", a, err)
		}
		if _, err := begin("k1", "fp", t0.Add(time.Hour)); err == nil {
			t.Error("k1 was purged too early")
		}
	})
}

// TestConcurrentIdempotencyKey races requests with one key: exactly one
// runs, every other one is told the first is still running.
func TestConcurrentIdempotencyKey(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		at := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		const n = 10
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Go(func() { _, errs[i] = s.BeginIdempotent(ctx, "key", "fp", at, time.Hour) })
		}
		wg.Wait()
		runs := 0
		for _, err := range errs {
			if err == nil {
				runs++
				continue
			}
			wantErr(t, "a racing retry", err, ErrInProgress)
		}
		if runs != 1 {
			t.Errorf("%d requests ran, want exactly 1", runs)
		}
	})
}

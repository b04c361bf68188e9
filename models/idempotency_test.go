package models

import (
	"errors"
	"fmt"
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
			return s.BeginIdempotent(ctx, KeyClaim{Scope: scope, Fingerprint: fp, Now: at, TTL: ttl})
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
			wg.Go(func() {
				_, errs[i] = s.BeginIdempotent(ctx, KeyClaim{Scope: "key", Fingerprint: "fp", Now: at, TTL: time.Hour})
			})
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

// TestIdempotencyKeyBounds: a client holds at most PerClient live keys and
// everyone at most Overall; beyond, a new key is refused with the wait
// until the oldest expires, while a retry of a kept key still replays and
// expired keys do not count.
func TestIdempotencyKeyBounds(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		t0 := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		bounds := KeyBounds{PerClient: 3, Overall: 5}
		begin := func(scope, client string, at time.Time) (*IdempotentAnswer, error) {
			t.Helper()
			return s.BeginIdempotent(ctx, KeyClaim{Scope: scope, Fingerprint: "fp", Client: client, Now: at, TTL: time.Hour, Bounds: bounds})
		}
		for i := range 3 {
			if _, err := begin(fmt.Sprint("a", i), "a", t0.Add(time.Duration(i)*time.Minute)); err != nil {
				t.Fatalf("key %d of client a: %v", i, err)
			}
		}
		if err := s.FinishIdempotent(ctx, "a0", IdempotentAnswer{Status: 201}); err != nil {
			t.Fatal(err)
		}
		_, err := begin("a3", "a", t0.Add(10*time.Minute))
		var full *KeyLimitError
		if !errors.As(err, &full) || !full.Client || full.Wait != 50*time.Minute {
			t.Fatalf("a fourth key of client a = %v (%+v); want the client's cap, 50 minutes to wait", err, full)
		}
		if a, err := begin("a0", "a", t0.Add(10*time.Minute)); err != nil || a == nil || a.Status != 201 {
			t.Fatalf("a retry of a kept key at the cap = %+v, %v; want its answer", a, err)
		}
		for i := range 2 {
			if _, err := begin(fmt.Sprint("b", i), "b", t0.Add(10*time.Minute)); err != nil {
				t.Fatalf("key %d of client b: %v", i, err)
			}
		}
		_, err = begin("c0", "c", t0.Add(20*time.Minute))
		if !errors.As(err, &full) || full.Client || full.Wait != 40*time.Minute {
			t.Fatalf("a sixth key in all = %v (%+v); want the overall cap, 40 minutes to wait", err, full)
		}
		// An hour after a0, a1 and a2 the first keys have expired: room.
		if _, err := begin("a3", "a", t0.Add(time.Hour+2*time.Minute)); err != nil {
			t.Fatalf("a new key once the oldest expired: %v", err)
		}
	})
}

// TestPurgeInBatches: a purge deletes at most its batch, oldest first,
// and only what expired.
func TestPurgeInBatches(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		t0 := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		for i := range 7 {
			if _, err := s.BeginIdempotent(ctx, KeyClaim{Scope: fmt.Sprint("k", i), Fingerprint: "fp", Now: t0.Add(time.Duration(i) * time.Second), TTL: time.Hour}); err != nil {
				t.Fatal(err)
			}
		}
		cut := t0.Add(5 * time.Second) // k0 to k4 expired
		for _, want := range []int64{2, 2, 1, 0} {
			if n, err := s.purgeKeys(ctx, cut, 2); err != nil || n != want {
				t.Fatalf("purge = %d, %v; want %d", n, err, want)
			}
		}
		if n, err := s.KeptAnswers(ctx); err != nil || n != 2 {
			t.Fatalf("keys left = %d, %v; want 2 (k5, k6)", n, err)
		}
		if _, err := s.BeginIdempotent(ctx, KeyClaim{Scope: "k5", Fingerprint: "fp", Now: t0.Add(10 * time.Second), TTL: time.Hour}); !errors.Is(err, ErrInProgress) {
			t.Fatalf("k5 after the purge: %v; want it still there (in progress)", err)
		}
	})
}

// TestPurgeLeavesARenewedKey races a purge with the retry that takes up
// an expired key again: once the retry has the key, the key stays (on
// PostgreSQL the purge's DELETE chose the row by its old time, and must
// look at it again after the retry's commit).
func TestPurgeLeavesARenewedKey(t *testing.T) {
	eachStore(t, func(t *testing.T, s *Store) {
		t0 := time.Date(2026, 3, 20, 19, 0, 0, 0, time.UTC)
		claim := func(scope string, at time.Time) error {
			_, err := s.BeginIdempotent(ctx, KeyClaim{Scope: scope, Fingerprint: "fp", Now: at, TTL: time.Hour})
			return err
		}
		for i := range 100 {
			scope := fmt.Sprint("k", i)
			if err := claim(scope, t0); err != nil {
				t.Fatal(err)
			}
			later := t0.Add(2 * time.Hour)
			var wg sync.WaitGroup
			var renewErr, purgeErr error
			wg.Go(func() { renewErr = claim(scope, later) })
			wg.Go(func() { _, purgeErr = s.purgeKeys(ctx, later.Add(-time.Hour), 10) })
			wg.Wait()
			if renewErr != nil || purgeErr != nil {
				t.Fatalf("trial %d: renew %v, purge %v", i, renewErr, purgeErr)
			}
			if err := claim(scope, later.Add(time.Second)); !errors.Is(err, ErrInProgress) {
				t.Fatalf("trial %d: the renewed key after the purge: %v; want it there, in progress", i, err)
			}
		}
	})
}

package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestPGBrokerAcrossReplicas: an update published on one replica reaches
// the streams of another through LISTEN/NOTIFY, rebuilt by its source; a
// replica does not rebuild what it published itself.
func TestPGBrokerAcrossReplicas(t *testing.T) {
	dsn := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	channel := "insectscore_test_" + hex.EncodeToString(suffix)
	ctx := context.Background()
	a, err := NewPGBroker(ctx, dsn, channel, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewPGBroker(ctx, dsn, channel, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	var aRebuilt atomic.Int32
	a.SetSource(func(context.Context, string) (Event, error) {
		aRebuilt.Add(1)
		return Event{}, nil
	})
	b.SetSource(func(_ context.Context, code string) (Event, error) {
		return Event{Version: 7, Data: []byte("rebuilt " + code)}, nil
	})

	onA, onB, elsewhere := a.Subscribe("ABC234"), b.Subscribe("ABC234"), b.Subscribe("XYZ789")
	a.Publish("ABC234", Event{Version: 7, Data: []byte("from a")})

	if ev := waitEvent(t, onA); string(ev.Data) != "from a" {
		t.Errorf("replica a's own stream got %q, want the published event", ev.Data)
	}
	if ev := waitEvent(t, onB); ev.Version != 7 || string(ev.Data) != "rebuilt ABC234" {
		t.Errorf("replica b's stream got %+v, want the table rebuilt by b's source", ev)
	}
	if _, ok := elsewhere.Latest(); ok {
		t.Error("a stream of another table got the update")
	}
	time.Sleep(200 * time.Millisecond) // a's own notification has come back by now
	if n := aRebuilt.Load(); n != 0 {
		t.Errorf("replica a rebuilt its own update %d times", n)
	}
}

func waitEvent(t *testing.T, s *Subscription) Event {
	t.Helper()
	select {
	case <-s.C:
	case <-time.After(5 * time.Second):
		t.Fatal("no event within 5 s")
	}
	ev, ok := s.Latest()
	if !ok {
		t.Fatal("signalled without an event")
	}
	return ev
}

// TestPGBrokerNotifiesOffThePath: a thousand changes published at once
// are told to the other replicas in far fewer notifications than changes
// (Publish does not wait for one NOTIFY, a commit, per change), and the
// last one always comes: a replica reads the table as it stands, so a
// coalesced change is never a lost one.
func TestPGBrokerNotifiesOffThePath(t *testing.T) {
	dsn := os.Getenv("INSECTSCORE_TEST_POSTGRES")
	if dsn == "" {
		t.Skip("set INSECTSCORE_TEST_POSTGRES to a PostgreSQL DSN (CI does)")
	}
	suffix := make([]byte, 6)
	rand.Read(suffix)
	channel := "insectscore_test_" + hex.EncodeToString(suffix)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	listener, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer listener.Close(context.Background())
	if _, err := listener.Exec(ctx, "LISTEN "+channel); err != nil {
		t.Fatal(err)
	}
	b, err := NewPGBroker(ctx, dsn, channel, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()

	const changes = 1000
	for v := 1; v <= changes; v++ {
		b.Publish("ABC234", Event{Version: v})
	}
	got, last := 0, 0
	for last < changes {
		n, err := listener.WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("after %d notifications, the newest version %d: %v", got, last, err)
		}
		got++
		_, version, _ := strings.Cut(strings.TrimPrefix(n.Payload, b.id+":"), ":")
		v, err := strconv.Atoi(version)
		if err != nil || v <= last {
			t.Fatalf("notification %q after version %d", n.Payload, last)
		}
		last = v
	}
	if got > changes/10 {
		t.Errorf("%d changes published at once took %d notifications; want them coalesced", changes, got)
	}
}

package live

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"insectscore/models/pgtest"
)

// TestPGBrokerAcrossReplicas: an update published on one replica reaches
// the streams of another through LISTEN/NOTIFY, rebuilt by its source
// from the event the notification carries, or by reading the table when
// the event is too large to carry; a replica does not rebuild what it
// published itself.
func TestPGBrokerAcrossReplicas(t *testing.T) {
	dsn := testPostgres(t)
	channel := testChannel()
	a := testBroker(t, dsn, channel)
	b := testBroker(t, dsn, channel)
	var aRebuilt atomic.Int32
	a.SetSource(func(context.Context, string, []byte) (Event, bool, error) {
		aRebuilt.Add(1)
		return Event{}, false, nil
	})
	b.SetSource(func(_ context.Context, code string, told []byte) (Event, bool, error) {
		if told != nil {
			return Event{Version: 8, Data: []byte("told " + string(told))}, false, nil
		}
		return Event{Version: 7, Data: []byte("read " + code)}, true, nil
	})

	waitTelling(t, a, b)
	onA, onB, elsewhere := a.Subscribe("ABC234"), b.Subscribe("ABC234"), b.Subscribe("XYZ789")
	large := strings.Repeat("é", 4000) // 8,000 bytes: too large to carry
	a.Publish("ABC234", Event{Version: 7, Data: []byte("from a"), Told: func() []byte { return []byte(large) }})

	if ev := waitEvent(t, onA); string(ev.Data) != "from a" {
		t.Errorf("replica a's own stream got %q, want the published event", ev.Data)
	}
	if ev := waitEvent(t, onB); ev.Version != 7 || string(ev.Data) != "read ABC234" {
		t.Errorf("replica b's stream got %+v, want the table read by b's source", ev)
	}
	// A change that fits comes with its event: b does not read it.
	told := `{"d":"é: the table"}`
	a.Publish("ABC234", Event{Version: 8, Data: []byte("from a"), Told: func() []byte { return []byte(told) }})
	if ev := waitEvent(t, onB); ev.Version != 8 || string(ev.Data) != "told "+told {
		t.Errorf("replica b's stream got %+v, want the event rebuilt from what a told", ev)
	}
	if _, ok := elsewhere.Latest(); ok {
		t.Error("a stream of another table got the update")
	}
	time.Sleep(200 * time.Millisecond) // a's own notification has come back by now
	if n := aRebuilt.Load(); n != 0 {
		t.Errorf("replica a rebuilt its own update %d times", n)
	}
	if st := a.Stats(); st.Carried != 1 {
		t.Errorf("a carried %d events in its notifications, want 1", st.Carried)
	}
	if st := b.Stats(); st.Read != 1 || st.Refreshed != 2 {
		t.Errorf("b read %d tables and rebuilt %d, want 1 and 2", st.Read, st.Refreshed)
	}
}

// waitTelling waits until each broker has heard another.
func waitTelling(t *testing.T, bs ...*PGBroker) {
	t.Helper()
	waitFor(t, "hello from each other", func() bool {
		for _, b := range bs {
			if !b.Stats().Telling {
				return false
			}
		}
		return true
	})
}

// TestPGBrokerTellsOnlyWhenHeard: a replica alone tells only what changed;
// once another starts, the two hear each other's hello at once (the first
// answers the newcomer's) and both carry their events; one that hears no
// other for 30 s stops.
func TestPGBrokerTellsOnlyWhenHeard(t *testing.T) {
	dsn := testPostgres(t)
	channel := testChannel()
	a := testBroker(t, dsn, channel)
	told := func() []byte { return []byte("the table") }
	a.Publish("ABC234", Event{Version: 1, Told: told})
	time.Sleep(100 * time.Millisecond) // a hello of its own, were it heard, has come back by now
	if st := a.Stats(); st.Telling || st.Carried != 0 || st.Sent != 1 {
		t.Errorf("alone: %+v, want one notification sent without its event, and not telling", st)
	}

	b := testBroker(t, dsn, channel)
	waitTelling(t, a, b)
	a.Publish("ABC234", Event{Version: 2, Told: told})
	b.Publish("ABC234", Event{Version: 3, Told: told})
	if sa, sb := a.Stats(), b.Stats(); sa.Carried != 1 || sb.Carried != 1 {
		t.Errorf("heard: a carried %d, b %d events; want 1 each", sa.Carried, sb.Carried)
	}
	if now := time.Now(); !a.hearsOthers(now) || a.hearsOthers(now.Add(a.othersFor())) {
		t.Errorf("a hears others now %v, and in %v %v; want true, then false", a.hearsOthers(now), a.othersFor(), a.hearsOthers(now.Add(a.othersFor())))
	}
}

// TestPGBrokerSaysHelloEvery: two replicas that change nothing keep
// hearing each other, each saying hello every helloEvery, so that telling
// goes on past othersFor.
func TestPGBrokerSaysHelloEvery(t *testing.T) {
	dsn := testPostgres(t)
	channel := testChannel()
	const every = 200 * time.Millisecond
	var bs []*PGBroker
	for range 2 {
		b, err := newPGBroker(context.Background(), dsn, channel, nil, every)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(b.Close)
		bs = append(bs, b)
	}
	a, b := bs[0], bs[1]
	waitTelling(t, a, b)
	heardA, heardB := a.others.Load(), b.others.Load()
	time.Sleep(3 * a.othersFor())
	// Without the hellos, each last heard the other when they met, and
	// stopped telling othersFor after that.
	if da, db := time.Duration(a.others.Load()-heardA), time.Duration(b.others.Load()-heardB); da < 2*a.othersFor() || db < 2*b.othersFor() {
		t.Errorf("in %v, a last heard b %v after they met, b heard a %v after; want hellos every %v", 3*a.othersFor(), da, db, every)
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

// TestPGBrokerListensAgain: while a replica's sessions are ended (as in a
// PostgreSQL restart) it is not Listening, and a change made on another
// replica meanwhile, whose notification it cannot hear, still reaches its
// streams once it listens again: it reads every table they follow, and
// reads again while the database is away.
func TestPGBrokerListensAgain(t *testing.T) {
	base := testPostgres(t)
	channel := testChannel()
	app := channel // the application name of b's sessions
	ctx := context.Background()
	a := testBroker(t, base, channel)
	b := testBroker(t, pgtest.Named(t, base, app), channel)
	var version atomic.Int32
	version.Store(1)
	// b rebuilds a table as the database has it; a read fails while its
	// sessions are being ended, as a read of the database would.
	var away atomic.Bool
	b.SetSource(func(_ context.Context, code string, _ []byte) (Event, bool, error) {
		if away.Load() {
			return Event{}, true, errors.New("the database is away")
		}
		return Event{Version: int(version.Load()), Data: []byte("rebuilt " + code)}, true, nil
	})
	onB := b.Subscribe("ABC234")
	if !b.Listening() {
		t.Fatal("b is not listening at the start")
	}

	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	away.Store(true)
	sawDown := false
	end := time.Now().Add(time.Second)
	published := false
	for time.Now().Before(end) {
		if _, err := admin.Exec(ctx, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", app); err != nil {
			t.Fatal(err)
		}
		sawDown = sawDown || !b.Listening()
		if sawDown && !published {
			// The change is saved and told while b cannot hear it.
			version.Store(2)
			a.Publish("ABC234", Event{Version: 2, Data: []byte("from a")})
			published = true
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !sawDown {
		t.Fatal("b said it was listening while its sessions were being ended")
	}
	if !published {
		t.Fatal("no change was made while b was not listening")
	}
	for deadline := time.Now().Add(5 * time.Second); !b.Listening(); {
		if time.Now().After(deadline) {
			t.Fatal("b is not listening again 5 s after its sessions were last ended")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// b listens again, and its first reads of the tables fail: the
	// database answers the listener before it answers reads.
	time.Sleep(300 * time.Millisecond)
	if _, ok := onB.Latest(); ok {
		t.Fatal("b's stream got an event while b could not read the table")
	}
	away.Store(false)
	if ev := waitEvent(t, onB); ev.Version != 2 {
		t.Errorf("b's stream got version %d, want 2, the change made while b could not hear", ev.Version)
	}
}

// TestPGBrokerNotifiesInBatches: a thousand changes published at the same
// instant, as a thousand requests would, are told to the other replicas in
// far fewer notifications than changes (a NOTIFY is a commit, and
// PostgreSQL serializes the commits that notify), each Publish returns
// once its change is told, and the newest version always comes: a replica
// reads the table as it stands, so a coalesced change is never a lost one.
func TestPGBrokerNotifiesInBatches(t *testing.T) {
	dsn := testPostgres(t)
	channel := testChannel()
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
	b := testBroker(t, dsn, channel)

	const changes = 1000
	var wg sync.WaitGroup
	start := make(chan struct{})
	for v := 1; v <= changes; v++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			b.Publish("ABC234", Event{Version: v})
		}()
	}
	close(start)
	wg.Wait()
	// Every Publish has returned, so every change has been told: the
	// newest version is among the notifications already sent.
	got, newest := 0, 0
	for newest < changes {
		n, err := listener.WaitForNotification(ctx)
		if err != nil {
			t.Fatalf("after %d notifications, the newest version %d: %v", got, newest, err)
		}
		code, version, _ := strings.Cut(strings.TrimPrefix(n.Payload, b.id+":"), ":")
		if code == "" {
			continue // a hello
		}
		got++
		version, _, _ = strings.Cut(version, ":")
		v, err := strconv.Atoi(version)
		if err != nil {
			t.Fatalf("notification %q: %v", n.Payload, err)
		}
		newest = max(newest, v)
	}
	if got > changes/10 {
		t.Errorf("%d changes published at once took %d notifications; want them told in batches", changes, got)
	}
}

// TestPGBrokerChannelOfItsSchema: replicas hear the replicas on the same
// schema and no others. A channel belongs to the database, so two
// deployments in two schemas of one database each heard the other's
// changes on one channel, took it for a replica and told it every event.
func TestPGBrokerChannelOfItsSchema(t *testing.T) {
	base := testPostgres(t)
	one, other := pgtest.Schema(t, base), pgtest.Schema(t, base)
	a, a2, b := testBroker(t, one, ""), testBroker(t, one, ""), testBroker(t, other, "")
	if a.channel != a2.channel || a.channel == b.channel || !strings.HasPrefix(a.channel, PGChannel+":insectscore_test_") {
		t.Fatalf("channels %q, %q and %q: want one for each schema", a.channel, a2.channel, b.channel)
	}
	waitTelling(t, a, a2)
	onA2, onB := a2.Subscribe("ABC234"), b.Subscribe("ABC234")
	a2.SetSource(func(_ context.Context, code string, told []byte) (Event, bool, error) {
		return Event{Version: 1, Data: told}, false, nil
	})
	b.SetSource(func(context.Context, string, []byte) (Event, bool, error) {
		t.Error("the other schema's replica rebuilt a table of this one")
		return Event{}, false, nil
	})
	a.Publish("ABC234", Event{Version: 1, Told: func() []byte { return []byte("the table") }})
	if ev := waitEvent(t, onA2); string(ev.Data) != "the table" {
		t.Errorf("a2 got %+v, want a's change", ev)
	}
	time.Sleep(200 * time.Millisecond) // a's notification and hellos have reached every listener by now
	if _, ok := onB.Latest(); ok {
		t.Error("a stream on the other schema got a's change")
	}
	if st := b.Stats(); st.Telling || st.Received != 0 {
		t.Errorf("the other schema's replica: %+v; want it to hear nobody", st)
	}
}

// TestChannelFor: schema public keeps the channel of older releases; a
// schema's name too long for a channel is hashed, each to its own.
func TestChannelFor(t *testing.T) {
	if got := channelFor("public"); got != PGChannel {
		t.Errorf("channelFor(public) = %q, want %q", got, PGChannel)
	}
	if got, want := channelFor("league"), PGChannel+":league"; got != want {
		t.Errorf("channelFor(league) = %q, want %q", got, want)
	}
	long := strings.Repeat("s", 63)
	if got := channelFor(long); len(got) > 63 || got == channelFor(long[1:]) || !strings.HasPrefix(got, PGChannel+":") {
		t.Errorf("channelFor(63 bytes) = %q: want at most 63 bytes, and its own", got)
	}
}

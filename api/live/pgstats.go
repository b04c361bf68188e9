package live

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// PGStats are what a PGBroker has done since it started, for the metrics.
type PGStats struct {
	// Sent is the notifications this replica sent the others; Failed the
	// changes it could not tell them of (their streams catch up with the
	// table's next change).
	Sent, Failed uint64
	// Received is the notifications of changes made on other replicas;
	// Refreshed the tables rebuilt for this replica's streams, for those
	// notifications or after a reconnect.
	Received, Refreshed uint64
	// Reconnects is how often the listener was lost and listened again.
	Reconnects uint64
	// Carried is the notifications sent with the event in them; Read the
	// tables this replica read to rebuild an event (a notification
	// without one, one it could not rebuild from, or a reconnect).
	Carried, Read uint64
	// Telling says this replica's notifications carry events: it has
	// heard another replica within the last 30 s.
	Telling bool
}

type pgStats struct {
	sent, failed, received, refreshed, reconnects, carried, read atomic.Uint64

	mu       sync.Mutex
	delivery func(time.Duration)
	// heard is when the changes to tables not yet read again were told.
	heard map[string]time.Time
}

// Stats returns the broker's counts so far.
func (b *PGBroker) Stats() PGStats {
	return PGStats{
		Sent: b.stats.sent.Load(), Failed: b.stats.failed.Load(),
		Received: b.stats.received.Load(), Refreshed: b.stats.refreshed.Load(),
		Reconnects: b.stats.reconnects.Load(), Carried: b.stats.carried.Load(), Read: b.stats.read.Load(),
		Telling: b.hearsOthers(time.Now()),
	}
}

// ObserveDelivery has fn told, for each change made on another replica to
// a table this replica's streams follow, how long it took from the other
// replica's NOTIFY to the rebuilt table handed to the streams here. The
// two ends read two clocks: across hosts the time is off by their
// difference (a negative one counts as 0).
func (b *PGBroker) ObserveDelivery(fn func(time.Duration)) {
	b.stats.mu.Lock()
	defer b.stats.mu.Unlock()
	b.stats.delivery = fn
}

// heard keeps when the first notification of a change to code not yet
// handed to this replica's streams was sent, from its payload's time
// (unix microseconds); one from a replica that does not send the time is
// not timed.
func (b *PGBroker) heard(code, sent string) {
	us, err := strconv.ParseInt(sent, 10, 64)
	if err != nil {
		return
	}
	b.stats.mu.Lock()
	defer b.stats.mu.Unlock()
	if _, waiting := b.stats.heard[code]; !waiting {
		b.stats.heard[code] = time.UnixMicro(us)
	}
}

// delivered tells the observer how long the change to code took from the
// other replica's NOTIFY to its streams here, once they have it.
func (b *PGBroker) delivered(code string) {
	b.stats.mu.Lock()
	sent, ok := b.stats.heard[code]
	delete(b.stats.heard, code)
	fn := b.stats.delivery
	b.stats.mu.Unlock()
	if ok && fn != nil {
		fn(max(time.Since(sent), 0))
	}
}

// forget drops the time kept for code, whose streams are gone.
func (s *pgStats) forget(code string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.heard, code)
}

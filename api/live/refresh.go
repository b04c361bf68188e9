package live

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// refreshWorkers is how many tables a replica reads at once to bring its
// streams up to date with changes made on other replicas: a few, so that
// one slow read does not hold up every other table's, and the database's
// connections stay free for the requests.
const refreshWorkers = 4

// refreshFor is how long a table whose read fails (the database is away)
// is tried again before it is left to its next change.
const refreshFor = time.Minute

// refresher reads the tables changed on other replicas, each once however
// many of its changes are heard meanwhile, and never two reads of one
// table at once, so that its streams get its versions in order.
type refresher struct {
	ctx context.Context
	// read rebuilds a table's event: from told, the newest event told
	// by the replica that changed it, or by reading the table (nil).
	read func(ctx context.Context, code string, told []byte) error
	log  *slog.Logger

	mu    sync.Mutex
	queue []string
	// carried is the newest event told of a table not rebuilt yet,
	// while no change to it was heard that did not carry its event.
	carried map[string]toldEvent
	// state of a table: queued, or being read, and then whether it
	// changed again meanwhile.
	state map[string]refreshState
	// failing is since when a table's reads fail.
	failing map[string]time.Time
	wake    chan struct{}
}

// toldEvent is a table's event as a notification carried it.
type toldEvent struct {
	version int
	data    []byte
}

type refreshState int

const (
	queued refreshState = iota + 1
	reading
	readingChanged
)

func newRefresher(ctx context.Context, read func(ctx context.Context, code string, told []byte) error, log *slog.Logger) *refresher {
	r := &refresher{ctx: ctx, read: read, log: log, carried: map[string]toldEvent{}, state: map[string]refreshState{},
		failing: map[string]time.Time{}, wake: make(chan struct{}, refreshWorkers)}
	for range refreshWorkers {
		go r.work()
	}
	return r
}

// add asks for code to be read again.
func (r *refresher) add(code string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.carried, code)
	r.addLocked(code)
}

// told asks for code to be rebuilt from data, its event at version as
// another replica told it, unless a newer one is told first or a change
// that must be read is heard.
func (r *refresher) told(code string, version int, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.carried[code]; !ok || t.version <= version {
		r.carried[code] = toldEvent{version: version, data: data}
	}
	r.addLocked(code)
}

// all asks for every table of codes to be read again.
func (r *refresher) all(codes []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, code := range codes {
		delete(r.carried, code)
		r.addLocked(code)
	}
}

func (r *refresher) addLocked(code string) {
	switch r.state[code] {
	case queued, readingChanged:
		return
	case reading:
		r.state[code] = readingChanged
		return
	}
	r.state[code] = queued
	r.queue = append(r.queue, code)
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

func (r *refresher) work() {
	for {
		r.mu.Lock()
		for len(r.queue) == 0 {
			r.mu.Unlock()
			select {
			case <-r.ctx.Done():
				return
			case <-r.wake:
			}
			r.mu.Lock()
		}
		code := r.queue[0]
		r.queue = r.queue[1:]
		r.state[code] = reading
		told := r.carried[code].data
		delete(r.carried, code)
		r.mu.Unlock()

		ctx, cancel := context.WithTimeout(r.ctx, 10*time.Second)
		err := r.read(ctx, code, told)
		cancel()

		r.mu.Lock()
		again := r.state[code] == readingChanged
		delete(r.state, code)
		if err == nil {
			delete(r.failing, code)
		} else if r.ctx.Err() == nil {
			since, ok := r.failing[code]
			if !ok {
				since = time.Now()
				r.failing[code] = since
				r.log.Warn("live updates: cannot read a table changed on another replica; trying again", "code", code, "err", err)
			}
			if time.Since(since) < refreshFor {
				// Try again in a moment: the database is likely away.
				again = false
				time.AfterFunc(250*time.Millisecond, func() { r.add(code) })
			} else {
				delete(r.failing, code)
				r.log.Warn("live updates: gave up reading a table changed on another replica; its streams catch up with its next change", "code", code, "err", err)
			}
		}
		if again {
			r.addLocked(code)
		}
		r.mu.Unlock()
	}
}

package live

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Fan-out: the streams of one table share one subscription to the broker
// and one goroutine, the table's hub. On a change the hub writes the frame
// to each stream's socket itself, without waiting: a write the socket
// takes whole is done there and then, so a change to a thousand streams
// wakes one goroutine (or one per core), not a thousand. A stream whose
// socket is full (a client that reads slowly, or not at all), and every
// heartbeat, go to the stream's own goroutine, which writes with a
// deadline; while it does, the hub keeps only the newest change for it.

// FanoutChunk is how many streams make it worth another goroutine writing
// a change in parallel: up to one per core.
const FanoutChunk = 128

// Hubs holds the hub of every table some stream of this server follows.
type Hubs struct {
	broker Broker
	mu     sync.Mutex
	m      map[string]*hub
}

// NewHubs returns the hubs of streams fed by b.
func NewHubs(b Broker) *Hubs { return &Hubs{broker: b, m: map[string]*hub{}} }

// hub is the streams of one table and their subscription.
type hub struct {
	code string
	sub  *Subscription
	// streams is the list the hub writes to, replaced whole (under
	// Hubs.mu) when a stream comes or goes, so a fan-out reads it
	// without a lock.
	streams atomic.Pointer[[]*Stream]
	// stop ends the hub once its last stream is gone.
	stop chan struct{}
	// ended says the hub no longer delivers: joiners make a new one.
	ended bool
}

// Join opens a stream of the table with code, as o says, in the table's
// hub. Every change published after Join returns reaches the stream, so
// a table read after it misses none; Run or Close ends the stream.
func (hs *Hubs) Join(code string, o StreamOptions) *Stream {
	st := newStream(o)
	hs.join(code, st)
	return st
}

// join adds st to the hub of its table, subscribing to the table's
// changes if st is its first stream.
func (hs *Hubs) join(code string, st *Stream) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h := hs.m[code]
	if h == nil {
		h = &hub{code: code, sub: hs.broker.Subscribe(code), stop: make(chan struct{})}
		h.streams.Store(&[]*Stream{})
		hs.m[code] = h
		go hs.run(h)
	}
	old := *h.streams.Load()
	list := make([]*Stream, len(old), len(old)+1)
	copy(list, old)
	list = append(list, st)
	h.streams.Store(&list)
	st.hubs, st.hub = hs, h
}

// leave takes st out of its hub; the last stream out ends the hub and its
// subscription.
func (hs *Hubs) leave(st *Stream) {
	hs.mu.Lock()
	defer hs.mu.Unlock()
	h := st.hub
	if h == nil || h.ended {
		return
	}
	old := *h.streams.Load()
	list := make([]*Stream, 0, len(old))
	for _, o := range old {
		if o != st {
			list = append(list, o)
		}
	}
	h.streams.Store(&list)
	if len(list) == 0 {
		h.ended = true
		delete(hs.m, h.code)
		h.sub.Close()
		close(h.stop)
	}
}

// run delivers the table's changes to its streams until the last one
// leaves or the broker closes.
func (hs *Hubs) run(h *hub) {
	for {
		select {
		case <-h.stop:
			return
		case _, open := <-h.sub.C:
			if !open {
				hs.shut(h)
				return
			}
			if ev, ok := h.sub.Latest(); ok {
				h.fanout(&ev)
			}
		}
	}
}

// shut ends every stream of a hub whose broker closed (the server is
// shutting down).
func (hs *Hubs) shut(h *hub) {
	hs.mu.Lock()
	if !h.ended {
		h.ended = true
		if hs.m[h.code] == h {
			delete(hs.m, h.code)
		}
	}
	list := *h.streams.Load()
	hs.mu.Unlock()
	for _, st := range list {
		st.end()
	}
}

// fanout hands ev to every stream of the hub, in parallel over up to one
// goroutine per core for a table with many streams; a stream in another
// language gets ev's variant in it, built once for all.
func (h *hub) fanout(ev *Event) {
	list := *h.streams.Load()
	w := min(runtime.GOMAXPROCS(0), (len(list)+FanoutChunk-1)/FanoutChunk)
	if w <= 1 {
		for _, st := range list {
			st.deliver(inLanguage(ev, st.lang))
		}
		return
	}
	per := (len(list) + w - 1) / w
	var wg sync.WaitGroup
	for i := 1; i < w; i++ {
		part := list[min(i*per, len(list)):min((i+1)*per, len(list))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, st := range part {
				st.deliver(inLanguage(ev, st.lang))
			}
		}()
	}
	for _, st := range list[:per] {
		st.deliver(inLanguage(ev, st.lang))
	}
	wg.Wait()
}

package api

import (
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
)

// Guessing table codes and group ids. Each client address may miss
// (get a 404 from a lookup, or a 401: a table's writes answer a code no
// table has as they answer a token no one at the table holds)
// guessesPerMinute times a minute; after that,
// every lookup from it answers 429 until the minute is over. Only misses
// count, once answered: lookups of a real table or group never do, however
// many phones behind one café router open it at once, and neither do the
// limit's own 429s.

// guessesPerMinute is how many failed lookups one address gets a minute.
const guessesPerMinute = 30

// guessWindow is how long a budget of misses lasts.
const guessWindow = time.Minute

// missLimit counts misses per client address in fixed windows that start
// with an address's first miss.
type missLimit struct {
	max    int
	window time.Duration
	now    func() time.Time

	mu        sync.Mutex
	misses    map[string]*missWindow
	lastSweep time.Time
}

type missWindow struct {
	count int
	ends  time.Time
}

func newMissLimit(max int, window time.Duration, now func() time.Time) *missLimit {
	return &missLimit{max: max, window: window, now: now, misses: map[string]*missWindow{}}
}

// spent says whether client has used up its misses, and if so how long
// until it gets new ones.
func (l *missLimit) spent(client string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	w := l.current(client, now)
	if w == nil || w.count < l.max {
		return 0, false
	}
	return w.ends.Sub(now), true
}

// miss counts a miss of client and returns how many it has in the window.
func (l *missLimit) miss(client string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	w := l.current(client, now)
	if w == nil {
		w = &missWindow{ends: now.Add(l.window)}
		l.misses[client] = w
	}
	w.count++
	return w.count
}

// current is client's window if it is still open.
func (l *missLimit) current(client string, now time.Time) *missWindow {
	w := l.misses[client]
	if w == nil || !now.Before(w.ends) {
		return nil
	}
	return w
}

// sweep forgets closed windows, at most once a window.
func (l *missLimit) sweep(now time.Time) {
	if now.Sub(l.lastSweep) < l.window && !now.Before(l.lastSweep) {
		return
	}
	l.lastSweep = now
	for k, w := range l.misses {
		if !now.Before(w.ends) {
			delete(l.misses, k)
		}
	}
}

// guessLimit guards the routes that look up a table code or a group id.
// A client that has used up its misses gets 429 before anything is looked
// up. A 404 or 401 counts as a miss once it is answered; the misses beyond the
// budget of requests sent all at once answer 429 instead, and so do the
// reads among them that found something: whatever finishes after the
// budget ran out tells nothing. A write that was done (a join, a claim) is
// answered as done, and an event stream, once open, is left alone (the
// stream caps bound how many are open).
func (s *server) guessLimit(c *fiber.Ctx) error {
	client := s.clientIP(c)
	if wait, spent := s.guesses.spent(client); spent {
		return tooManyGuesses(c, wait)
	}
	if err := c.Next(); err != nil {
		// Render now, to know the status.
		if err := c.App().ErrorHandler(c, err); err != nil {
			return err
		}
	}
	resp := c.Response()
	over := false
	if status := resp.StatusCode(); status == fiber.StatusNotFound || status == fiber.StatusUnauthorized {
		over = s.guesses.miss(client) > s.guesses.max
	} else if c.Method() == fiber.MethodGet && !resp.IsBodyStream() {
		_, over = s.guesses.spent(client)
	}
	if !over {
		return nil
	}
	wait, _ := s.guesses.spent(client)
	resp.ResetBody()
	resp.Header.Del(fiber.HeaderLocation)
	resp.Header.Del(fiber.HeaderETag)
	resp.Header.Del(fiber.HeaderContentDisposition)
	return c.App().ErrorHandler(c, tooManyGuesses(c, wait))
}

// tooManyGuesses is the 429 of the guess limit.
func tooManyGuesses(c *fiber.Ctx, wait time.Duration) error {
	c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
	return errorf(fiber.StatusTooManyRequests, "too many failed attempts: wait a minute and check the table code or the group link")
}

// retryAfter renders a wait in whole seconds, at least one.
func retryAfter(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	return strconv.Itoa(max(secs, 1))
}

// Event streams hold a connection and a subscription each for as long as
// the client stays: without a cap, one address could open thousands.

const (
	// defaultStreamsPerClient is how many event streams one client
	// address may hold open: a table's phones behind one router, several
	// tabs each, and room to spare.
	defaultStreamsPerClient = 64
	// defaultStreams is how many event streams the server holds open.
	defaultStreams = 10000
	// streamRetryAfter is the wait a client is told when a cap is reached.
	streamRetryAfter = 10 * time.Second
)

// streamCaps counts open event streams per client address and in total.
type streamCaps struct {
	perClient, total int
	// changed is told of every stream opened (+1) and closed (-1).
	changed func(delta int)

	mu   sync.Mutex
	open map[string]int
	n    int
}

func newStreamCaps(perClient, total int, changed func(int)) *streamCaps {
	if perClient <= 0 {
		perClient = defaultStreamsPerClient
	}
	if total <= 0 {
		total = defaultStreams
	}
	return &streamCaps{perClient: perClient, total: total, changed: changed, open: map[string]int{}}
}

// acquire takes a stream for client, or answers why not; release gives it
// back and must be called exactly once.
func (sc *streamCaps) acquire(c *fiber.Ctx, client string) (release func(), err error) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	switch {
	case sc.open[client] >= sc.perClient:
		c.Set(fiber.HeaderRetryAfter, retryAfter(streamRetryAfter))
		return nil, errorf(fiber.StatusTooManyRequests, "too many live updates open from your address: close some tabs or wait")
	case sc.n >= sc.total:
		c.Set(fiber.HeaderRetryAfter, retryAfter(streamRetryAfter))
		return nil, errorf(fiber.StatusTooManyRequests, "the server has as many live updates open as it can hold: try again in a moment")
	}
	sc.open[client]++
	sc.n++
	sc.changed(1)
	var once sync.Once
	return func() { once.Do(func() { sc.release(client) }) }, nil
}

func (sc *streamCaps) release(client string) {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.open[client]--; sc.open[client] <= 0 {
		delete(sc.open, client)
	}
	sc.n--
	sc.changed(-1)
}

package live

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGChannel is the PostgreSQL NOTIFY channel that carries table updates.
const PGChannel = "insectscore_tables"

// PGBroker carries table updates between replicas that share one
// PostgreSQL database. Each replica fans updates out to its own streams as
// a MemoryBroker does, and tells the others with NOTIFY; a replica that
// hears of a change to a table some of its streams follow rebuilds the
// table's event through the source set with SetSource. A notification
// carries only the code and version: NOTIFY payloads are limited to 8000
// bytes, and the database has the table anyway.
type PGBroker struct {
	*MemoryBroker
	dsn     string
	channel string
	// id tells this replica's own notifications from the others'.
	id  string
	log *slog.Logger

	// source is set apart from mu, which a NOTIFY holds: reading a
	// table changed elsewhere does not wait for this replica's own.
	source atomic.Pointer[func(ctx context.Context, code string) (Event, error)]

	mu   sync.Mutex
	send *pgx.Conn
	// unsent are the tables whose change could not be told to the other
	// replicas (the database was away): told again until it is.
	unsent map[string]int

	// listening says the listener is connected: while it is not, changes
	// made on other replicas do not reach this one's streams.
	listening atomic.Bool
	refresh   *refresher

	cancel context.CancelFunc
	done   chan struct{}
}

// NewPGBroker connects to PostgreSQL at dsn and starts listening on
// channel (PGChannel when empty). Close stops it.
func NewPGBroker(ctx context.Context, dsn, channel string, log *slog.Logger) (*PGBroker, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if channel == "" {
		channel = PGChannel
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	b := &PGBroker{MemoryBroker: NewMemoryBroker(), dsn: dsn, channel: channel, id: hex.EncodeToString(id), log: log,
		unsent: map[string]int{}, done: make(chan struct{})}
	listen, err := b.listen(ctx)
	if err != nil {
		return nil, err
	}
	b.listening.Store(true)
	lctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	b.refresh = newRefresher(lctx, b.rebuild, log)
	go b.run(lctx, listen)
	return b, nil
}

// Listening says whether changes made on the other replicas reach this
// one: false from a lost connection to PostgreSQL until it is listening
// again, and the tables its streams follow are being brought up to date.
func (b *PGBroker) Listening() bool { return b.listening.Load() }

// SetSource gives the broker the way to build a table's current event,
// for changes made on other replicas.
func (b *PGBroker) SetSource(fn func(ctx context.Context, code string) (Event, error)) {
	b.source.Store(&fn)
}

// Publish hands ev to this replica's streams and tells the other replicas
// before it returns, so that a change acknowledged to its client has been
// told. A notification that cannot be sent, on a fresh connection too, is
// kept and sent again until it is: the change is saved, and the other
// replicas' streams would otherwise miss it until the table's next one.
func (b *PGBroker) Publish(code string, ev Event) {
	b.MemoryBroker.Publish(code, ev)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.notify(code, ev.Version); err != nil {
		b.log.Warn("live updates: cannot tell the other replicas of a change; trying again", "code", code, "err", err)
		if len(b.unsent) == 0 {
			go b.resend()
		}
		b.unsent[code] = max(b.unsent[code], ev.Version)
	}
}

// notify tells the other replicas of a change, on a new connection if the
// one it had is broken; b.mu is held.
func (b *PGBroker) notify(code string, version int) error {
	payload := b.id + ":" + code + ":" + strconv.Itoa(version)
	var err error
	for try := 0; try < 2; try++ {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if b.send == nil || b.send.IsClosed() {
			b.send, err = pgx.Connect(ctx, b.dsn)
		}
		if err == nil {
			if _, err = b.send.Exec(ctx, "SELECT pg_notify($1, $2)", b.channel, payload); err != nil {
				b.send.Close(ctx)
				b.send = nil
			}
		}
		cancel()
		if err == nil {
			return nil
		}
	}
	return err
}

// resend sends the kept notifications until every one is sent, or the
// broker closes.
func (b *PGBroker) resend() {
	for wait := 100 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		select {
		case <-b.done:
			return
		case <-time.After(wait):
		}
		b.mu.Lock()
		for code, version := range b.unsent {
			if b.notify(code, version) != nil {
				break
			}
			delete(b.unsent, code)
		}
		left := len(b.unsent)
		b.mu.Unlock()
		if left == 0 {
			return
		}
	}
}

// Close stops listening and ends every stream of this replica.
func (b *PGBroker) Close() {
	b.cancel()
	<-b.done
	b.mu.Lock()
	if b.send != nil {
		b.send.Close(context.Background())
		b.send = nil
	}
	b.mu.Unlock()
	b.MemoryBroker.Close()
}

func (b *PGBroker) listen(ctx context.Context) (*pgx.Conn, error) {
	conn, err := pgx.Connect(ctx, b.dsn)
	if err != nil {
		return nil, fmt.Errorf("live: listen for updates: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{b.channel}.Sanitize()); err != nil {
		conn.Close(ctx)
		return nil, fmt.Errorf("live: listen for updates: %w", err)
	}
	return conn, nil
}

// run waits for notifications until Close, reconnecting after a lost
// connection; after a reconnect every followed table is refreshed, since
// notifications sent meanwhile are gone.
func (b *PGBroker) run(ctx context.Context, conn *pgx.Conn) {
	defer close(b.done)
	for {
		err := b.receive(ctx, conn)
		conn.Close(context.Background())
		if ctx.Err() != nil {
			return
		}
		b.listening.Store(false)
		b.log.Warn("live updates: lost the PostgreSQL listener; reconnecting", "err", err)
		for wait := 100 * time.Millisecond; ; wait = min(2*wait, time.Second) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			if conn, err = b.listen(ctx); err == nil {
				break
			}
		}
		// Listening again: a change from now on is heard. Those made
		// meanwhile are read from the tables, each as soon as the
		// database answers.
		codes := b.followed()
		b.refresh.all(codes)
		b.listening.Store(true)
		b.log.Info("live updates: listening again", "tables", len(codes))
	}
}

func (b *PGBroker) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		from, rest, _ := strings.Cut(n.Payload, ":")
		code, _, _ := strings.Cut(rest, ":")
		if from != b.id && code != "" && b.follows(code) {
			b.refresh.add(code)
		}
	}
}

// rebuild reads a table this replica's streams follow, changed on
// another replica, and hands its event to them.
func (b *PGBroker) rebuild(ctx context.Context, code string) error {
	if !b.follows(code) {
		return nil
	}
	source := b.source.Load()
	if source == nil {
		return nil
	}
	ev, err := (*source)(ctx, code)
	if err != nil {
		return err
	}
	b.MemoryBroker.Publish(code, ev)
	return nil
}

func (b *MemoryBroker) follows(code string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.subs[code]) > 0
}

func (b *MemoryBroker) followed() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	codes := make([]string, 0, len(b.subs))
	for code := range b.subs {
		codes = append(codes, code)
	}
	return codes
}

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
// carries only the sender, code, version and time sent
// ("id:code:version:unixmicro"): NOTIFY payloads are limited to 8000
// bytes, and the database has the table anyway.
type PGBroker struct {
	*MemoryBroker
	dsn     string
	channel string
	// id tells this replica's own notifications from the others'.
	id  string
	log *slog.Logger

	mu     sync.Mutex
	source func(ctx context.Context, code string) (Event, error)
	send   *pgx.Conn

	cancel context.CancelFunc
	done   chan struct{}

	stats pgStats
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
	b := &PGBroker{MemoryBroker: NewMemoryBroker(), dsn: dsn, channel: channel, id: hex.EncodeToString(id), log: log, done: make(chan struct{})}
	listen, err := b.listen(ctx)
	if err != nil {
		return nil, err
	}
	lctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	go b.run(lctx, listen)
	return b, nil
}

// SetSource gives the broker the way to build a table's current event,
// for changes made on other replicas.
func (b *PGBroker) SetSource(fn func(ctx context.Context, code string) (Event, error)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.source = fn
}

// Publish hands ev to this replica's streams and tells the other replicas.
func (b *PGBroker) Publish(code string, ev Event) {
	b.MemoryBroker.Publish(code, ev)
	payload := b.id + ":" + code + ":" + strconv.Itoa(ev.Version) + ":" + strconv.FormatInt(time.Now().UnixMicro(), 10)
	b.mu.Lock()
	defer b.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if b.send == nil || b.send.IsClosed() {
		conn, err := pgx.Connect(ctx, b.dsn)
		if err != nil {
			b.log.Warn("live updates: cannot reach PostgreSQL to notify other replicas", "err", err)
			b.stats.failed.Add(1)
			return
		}
		b.send = conn
	}
	if _, err := b.send.Exec(ctx, "SELECT pg_notify($1, $2)", b.channel, payload); err != nil {
		b.log.Warn("live updates: notify failed", "err", err)
		b.stats.failed.Add(1)
		b.send.Close(ctx)
		b.send = nil
		return
	}
	b.stats.sent.Add(1)
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
		b.log.Warn("live updates: lost the PostgreSQL listener; reconnecting", "err", err)
		for wait := 100 * time.Millisecond; ; wait = min(2*wait, 5*time.Second) {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			if conn, err = b.listen(ctx); err == nil {
				break
			}
		}
		b.stats.reconnects.Add(1)
		for _, code := range b.followed() {
			b.refresh(ctx, code)
		}
	}
}

func (b *PGBroker) receive(ctx context.Context, conn *pgx.Conn) error {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return err
		}
		from, rest, _ := strings.Cut(n.Payload, ":")
		code, rest, _ := strings.Cut(rest, ":")
		if from != b.id && code != "" {
			if b.refresh(ctx, code) {
				b.delivered(rest)
			}
			b.stats.received.Add(1)
		}
	}
}

// refresh rebuilds the event of a table this replica's streams follow,
// and says whether it did.
func (b *PGBroker) refresh(ctx context.Context, code string) bool {
	if !b.follows(code) {
		return false
	}
	b.mu.Lock()
	source := b.source
	b.mu.Unlock()
	if source == nil {
		return false
	}
	ev, err := source(ctx, code)
	if err != nil {
		b.log.Warn("live updates: cannot rebuild a table changed on another replica", "code", code, "err", err)
		return false
	}
	b.MemoryBroker.Publish(code, ev)
	b.stats.refreshed.Add(1)
	return true
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

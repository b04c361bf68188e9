package live

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
)

// PGChannel is the PostgreSQL NOTIFY channel that carries table updates
// of the tables in schema public. A channel belongs to the database, not
// to a schema, so the tables of another schema get a channel of their own
// (channelFor): deployments in two schemas of one database would
// otherwise hear each other's changes, and each believe the other a
// replica and tell it every event.
const PGChannel = "insectscore_tables"

// channelFor is the channel of the tables in schema: PGChannel in public,
// as before schemas had channels, so that replicas of an older release
// hear the newer during an upgrade; else PGChannel and the schema, or a
// hash of a schema too long for a channel's 63 bytes.
func channelFor(schema string) string {
	if schema == "public" {
		return PGChannel
	}
	if c := PGChannel + ":" + schema; len(c) <= 63 {
		return c
	}
	sum := sha256.Sum256([]byte(schema))
	return PGChannel + ":" + hex.EncodeToString(sum[:16])
}

// PGBroker carries table updates between replicas that share one
// PostgreSQL database. Each replica fans updates out to its own streams as
// a MemoryBroker does, and tells the others with NOTIFY; a replica that
// hears of a change to a table some of its streams follow rebuilds the
// table's event through the source set with SetSource. A notification
// carries the sender, code, version and time sent
// ("id:code:version:unixmicro"), and then, after a colon, the event as
// its Told says when the whole payload fits NOTIFY's 8000 bytes: a
// replica rebuilds the event from that without reading the table, as
// every replica did before, two reads and two scorings for each write
// with three replicas. A change too large to tell is read. Telling costs
// a replica a compression a write and PostgreSQL the payload's bytes
// through its notification queue (a quarter of one replica's board writes
// on two cores, issue 26), so a replica tells only while it hears another:
// each says hello (a notification without a code) when it starts, every
// helloEvery, and in answer to a replica it had not heard. Until a new
// replica is heard it reads the tables changed, as before.
type PGBroker struct {
	*MemoryBroker
	dsn     string
	channel string
	// id tells this replica's own notifications from the others'.
	id  string
	log *slog.Logger

	// others is when another replica was last heard (Unix nanoseconds).
	others atomic.Int64
	// hello asks the notifier to say hello.
	hello chan struct{}
	// helloEvery is how often this replica says hello.
	helloEvery time.Duration

	// source is set apart from mu, which a NOTIFY holds: reading a
	// table changed elsewhere does not wait for this replica's own.
	source atomic.Pointer[Source]

	mu sync.Mutex
	// pending are the changes not told to the other replicas yet: each
	// table's newest event. One notification covers every change before
	// it: a replica that cannot rebuild it reads the table as it stands.
	pending map[string]Event
	// told is closed once the changes pending now are told.
	told chan struct{}
	// wake tells the notifier that pending has changes.
	wake chan struct{}
	// stop ends the notifier, which closes notified once it has sent
	// what is pending.
	stop, notified chan struct{}

	// listening says the listener is connected: while it is not, changes
	// made on other replicas do not reach this one's streams.
	listening atomic.Bool
	refresh   *refresher

	cancel context.CancelFunc
	done   chan struct{}

	stats pgStats
}

// NewPGBroker connects to PostgreSQL at dsn and starts listening on
// channel; when it is empty, on the channel of the schema dsn's tables
// are in (channelFor). Close stops it.
func NewPGBroker(ctx context.Context, dsn, channel string, log *slog.Logger) (*PGBroker, error) {
	return newPGBroker(ctx, dsn, channel, log, helloEvery)
}

// newPGBroker is NewPGBroker saying hello every every.
func newPGBroker(ctx context.Context, dsn, channel string, log *slog.Logger, every time.Duration) (*PGBroker, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if channel == "" {
		var err error
		if channel, err = schemaChannel(ctx, dsn); err != nil {
			return nil, err
		}
	}
	id := make([]byte, 8)
	if _, err := rand.Read(id); err != nil {
		return nil, err
	}
	b := &PGBroker{MemoryBroker: NewMemoryBroker(), dsn: dsn, channel: channel, id: hex.EncodeToString(id), log: log,
		helloEvery: every, pending: map[string]Event{}, told: make(chan struct{}), wake: make(chan struct{}, 1), hello: make(chan struct{}, 1),
		done: make(chan struct{}), stop: make(chan struct{}), notified: make(chan struct{})}
	b.stats.heard = map[string]time.Time{}
	listen, err := b.listen(ctx)
	if err != nil {
		return nil, err
	}
	b.listening.Store(true)
	lctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	b.refresh = newRefresher(lctx, b.rebuild, log)
	go b.run(lctx, listen)
	b.sayHello()
	go b.notifier()
	return b, nil
}

// schemaChannel is the channel of the schema in which dsn's tables are:
// the first of its search_path that exists.
func schemaChannel(ctx context.Context, dsn string) (string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return "", fmt.Errorf("live: listen for updates: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var schema *string
	if err := conn.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return "", fmt.Errorf("live: listen for updates: %w", err)
	}
	if schema == nil {
		return "", errors.New("live: listen for updates: no schema of the search_path exists")
	}
	return channelFor(*schema), nil
}

// Listening says whether changes made on the other replicas reach this
// one: false from a lost connection to PostgreSQL until it is listening
// again, and the tables its streams follow are being brought up to date.
func (b *PGBroker) Listening() bool { return b.listening.Load() }

// Source builds the event of a table changed on another replica: from
// told, what that replica's event's Told said, or, when told is nil or
// cannot be used, by reading the table as it stands. read says it read
// the table (insectscore_notify_read_total counts those).
type Source func(ctx context.Context, code string, told []byte) (ev Event, read bool, err error)

// SetSource gives the broker the way to build a table's current event,
// for changes made on other replicas.
func (b *PGBroker) SetSource(fn Source) {
	b.source.Store(&fn)
}

// Publish hands ev to this replica's streams, and returns once the other
// replicas are told, so that a change acknowledged to its client has been
// told. The notifier tells them of every change pending in one statement:
// a NOTIFY is a commit, and PostgreSQL serializes the commits that
// notify, so one a change, in turn, held every board write to one
// commit's flush at a time (885 writes/s, the disk's fdatasync rate).
// While the database is away a change stays pending and is told once it
// is back; Publish waits for that at most notifyWait.
func (b *PGBroker) Publish(code string, ev Event) {
	b.MemoryBroker.Publish(code, ev)
	b.mu.Lock()
	if p, ok := b.pending[code]; !ok || p.Version <= ev.Version {
		b.pending[code] = ev
	}
	told := b.told
	b.mu.Unlock()
	b.poke()
	t := time.NewTimer(notifyWait)
	defer t.Stop()
	select {
	case <-told:
	case <-t.C:
	case <-b.stop:
	}
}

func (b *PGBroker) poke() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// sayHello has the notifier say hello to the other replicas.
func (b *PGBroker) sayHello() {
	select {
	case b.hello <- struct{}{}:
	default:
	}
	b.poke()
}

// helloEvery is how often a replica says hello.
const helloEvery = 10 * time.Second

// othersFor is how long a replica tells after it last heard another:
// three of its hellos.
func (b *PGBroker) othersFor() time.Duration { return 3 * b.helloEvery }

// hearsOthers says whether another replica was heard within othersFor of
// now: a notification then carries its event.
func (b *PGBroker) hearsOthers(now time.Time) bool {
	return now.UnixNano()-b.others.Load() < int64(b.othersFor())
}

// heardFrom keeps that another replica was heard at now, and says hello
// back to one that this replica had not heard, so that it hears this one
// at once.
func (b *PGBroker) heardFrom(now time.Time) {
	if now.UnixNano()-b.others.Swap(now.UnixNano()) >= int64(b.othersFor()) {
		b.sayHello()
	}
}

const (
	// notifyWait is how long Publish waits for its change to be told.
	notifyWait = 2 * time.Second
	// notifyRetry is how long the notifier waits after a failed send
	// before it tries again.
	notifyRetry = 100 * time.Millisecond
)

// notifier tells the other replicas of the changes published, all those
// pending in one statement, until Close; then it sends what is left.
func (b *PGBroker) notifier() {
	defer close(b.notified)
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			conn.Close(context.Background())
		}
	}()
	tick := time.NewTicker(b.helloEvery)
	defer tick.Stop()
	for {
		stopping := false
		select {
		case <-b.wake:
		case <-tick.C:
			select {
			case b.hello <- struct{}{}: // said below, without another wake
			default:
			}
		case <-b.stop:
			stopping = true
		}
		hello := false
		select {
		case <-b.hello:
			hello = !stopping
		default:
		}
		b.mu.Lock()
		batch, told := b.pending, b.told
		b.pending, b.told = map[string]Event{}, make(chan struct{})
		b.mu.Unlock()
		if len(batch) == 0 && !hello {
			close(told)
		} else {
			var err error
			if conn, err = b.notify(conn, batch, hello); err == nil {
				close(told)
			} else {
				b.log.Warn("live updates: cannot tell the other replicas of changes; trying again", "tables", len(batch), "err", err)
				b.stats.failed.Add(uint64(len(batch)))
				if hello {
					b.sayHello()
				}
				b.requeue(batch, told)
				if !stopping {
					select {
					case <-time.After(notifyRetry):
						b.poke()
					case <-b.stop:
						stopping = true
					}
				}
			}
		}
		if stopping {
			return
		}
	}
}

// notify sends one notification a table in one statement, and a hello
// with them if asked, on conn or a new connection, and returns the
// connection to use next (nil after a failure).
func (b *PGBroker) notify(conn *pgx.Conn, batch map[string]Event, hello bool) (*pgx.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if conn == nil || conn.IsClosed() {
		cfg, err := pgx.ParseConfig(b.dsn)
		if err != nil {
			return nil, err
		}
		// A notification lost in a crash of PostgreSQL costs nothing:
		// every listener reconnects then and reads its tables again.
		cfg.RuntimeParams["synchronous_commit"] = "off"
		if conn, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return nil, err
		}
	}
	payloads := make([]string, 0, len(batch)+1)
	if hello {
		payloads = append(payloads, b.id+":")
	}
	now := time.Now()
	sent, tell := strconv.FormatInt(now.UnixMicro(), 10), b.hearsOthers(now)
	for code, ev := range batch {
		payloads = append(payloads, b.payload(code, ev, sent, tell))
	}
	if _, err := conn.Exec(ctx, "SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p", b.channel, payloads); err != nil {
		conn.Close(context.Background())
		return nil, err
	}
	b.stats.sent.Add(uint64(len(batch)))
	return conn, nil
}

// maxPayload is the longest notification PostgreSQL takes (NOTIFY's
// payload is "shorter than 8000 bytes").
const maxPayload = 7999

// payload is the notification of the change ev to code: the event as
// Told says when it fits, if tell.
func (b *PGBroker) payload(code string, ev Event, sent string, tell bool) string {
	head := b.id + ":" + code + ":" + strconv.Itoa(ev.Version) + ":" + sent
	if tell && ev.Told != nil {
		if told := ev.Told(); told != nil && len(head)+1+len(told) <= maxPayload && utf8.Valid(told) && !bytes.ContainsRune(told, 0) {
			b.stats.carried.Add(1)
			return head + ":" + string(told)
		}
	}
	return head
}

// requeue puts back a batch that was not sent, but for tables with a
// newer change pending, and hands its waiters on to the next send.
func (b *PGBroker) requeue(batch map[string]Event, told chan struct{}) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for code, v := range batch {
		if _, ok := b.pending[code]; !ok {
			b.pending[code] = v
		}
	}
	next := b.told
	go func() {
		select {
		case <-next:
		case <-b.notified:
		}
		close(told)
	}()
}

// Close stops listening, sends the notifications pending, and ends every
// stream of this replica.
func (b *PGBroker) Close() {
	b.cancel()
	<-b.done
	close(b.stop)
	<-b.notified
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
		b.stats.reconnects.Add(1)
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
		code, rest, _ := strings.Cut(rest, ":")
		if from != b.id {
			b.heardFrom(time.Now())
		}
		if from != b.id && code != "" {
			b.stats.received.Add(1)
			if b.follows(code) {
				version, rest, _ := strings.Cut(rest, ":")
				sent, told, carried := strings.Cut(rest, ":")
				b.heard(code, sent)
				v, err := strconv.Atoi(version)
				if err != nil || !carried {
					b.refresh.add(code)
				} else {
					b.refresh.told(code, v, []byte(told))
				}
			}
		}
	}
}

// rebuild builds the event of a table this replica's streams follow,
// changed on another replica, from what it told (nil: by reading the
// table), and hands it to them.
func (b *PGBroker) rebuild(ctx context.Context, code string, told []byte) error {
	if !b.follows(code) {
		b.stats.forget(code)
		return nil
	}
	source := b.source.Load()
	if source == nil {
		return nil
	}
	ev, read, err := (*source)(ctx, code, told)
	if read {
		b.stats.read.Add(1)
	}
	if err != nil {
		return err
	}
	b.MemoryBroker.Publish(code, ev)
	b.stats.refreshed.Add(1)
	b.delivered(code)
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

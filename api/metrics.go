package api

import (
	"context"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"insectscore/api/live"
	"insectscore/models"
)

// Metrics are an app's Prometheus metrics, in a registry of their own (not
// the process-wide default), so that every app, and every test, counts
// apart. cmd/insectscore serves Handler on INSECTSCORE_METRICS_ADDR, a
// listener of its own, so the numbers are never public by accident.
type Metrics struct {
	reg *prometheus.Registry
	// requests and latency are by route pattern (/api/v1/tables/:code),
	// never by path, so codes and group ids stay out and the series few.
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	streams  prometheus.Gauge
	// open is the streams gauge's value, for the shutdown log.
	open   atomic.Int64
	boards prometheus.Counter
	plays  *prometheus.CounterVec
	// delivery is the time from another replica's NOTIFY to the rebuilt
	// table handed to this replica's streams (live.PGBroker).
	delivery prometheus.Histogram
}

// NewMetrics makes the metrics of one app; pass them in Config.Metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "insectscore_http_requests_total",
			Help: "Requests answered, by method, route pattern and status.",
		}, []string{"method", "route", "status"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "insectscore_http_request_duration_seconds",
			Help: "Time from a request's arrival to its answer, by method and route pattern; for an event stream or a CSV, until the answer starts.",
			// 1 ms to 10 s: a score is a fraction of a millisecond, a
			// request waiting on a busy database seconds.
			Buckets: prometheus.ExponentialBucketsRange(0.001, 10, 14),
		}, []string{"method", "route"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "insectscore_event_streams_open",
			Help: "Live-update event streams open now.",
		}),
		boards: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "insectscore_board_writes_total",
			Help: "Boards saved at tables (PUT .../board answered 200; replays of an Idempotency-Key not counted).",
		}),
		plays: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "insectscore_plays_recorded_total",
			Help: `Plays recorded: source "table" when a table is finished, "logged" when entered afterwards (replays not counted; imports not counted).`,
		}, []string{"source"}),
		delivery: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "insectscore_notify_delivery_seconds",
			Help:    "Time from another replica's NOTIFY of a change to the table rebuilt here and handed to its streams (PostgreSQL only; across hosts, off by their clocks' difference).",
			Buckets: prometheus.ExponentialBucketsRange(0.001, 10, 14),
		}),
	}
	m.reg.MustRegister(m.requests, m.latency, m.streams, m.boards, m.plays,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	// Series that exist before their first event, so a rate is 0, not
	// missing.
	m.plays.WithLabelValues("table")
	m.plays.WithLabelValues("logged")
	return m
}

// OpenStreams is how many live-update event streams are open now.
func (m *Metrics) OpenStreams() int { return int(m.open.Load()) }

// streamsChanged counts a stream opened (+1) or closed (-1).
func (m *Metrics) streamsChanged(d int) {
	m.open.Add(int64(d))
	m.streams.Add(float64(d))
}

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// watchStore adds the database's connection pool, and on PostgreSQL its
// NOTIFY queue, to the metrics.
func (m *Metrics) watchStore(store *models.Store) error {
	if err := m.reg.Register(poolCollector{store}); err != nil {
		return err
	}
	if _, ok, _ := store.NotifyQueueUsage(context.Background()); !ok {
		return nil
	}
	return m.reg.Register(queueCollector{store})
}

// notifyingBroker is a broker that tells other replicas of changes
// (live.PGBroker).
type notifyingBroker interface {
	Stats() live.PGStats
	ObserveDelivery(func(time.Duration))
}

// watchBroker adds what a broker that crosses replicas does to the
// metrics; an in-process broker adds nothing.
func (m *Metrics) watchBroker(b live.Broker) error {
	nb, ok := b.(notifyingBroker)
	if !ok {
		return nil
	}
	if err := m.reg.Register(m.delivery); err != nil {
		return err
	}
	nb.ObserveDelivery(func(d time.Duration) { m.delivery.Observe(d.Seconds()) })
	return m.reg.Register(brokerCollector{nb})
}

// countedWrites are the answers that mean a board or a play was written:
// "METHOD route pattern" and the status of success.
var countedWrites = map[string]struct {
	status int
	count  func(m *Metrics)
}{
	"PUT /api/v1/tables/:code/seats/:seat/board": {200, func(m *Metrics) { m.boards.Inc() }},
	"POST /api/v1/tables/:code/finish":           {200, func(m *Metrics) { m.plays.WithLabelValues("table").Inc() }},
	"POST /api/v1/plays":                         {201, func(m *Metrics) { m.plays.WithLabelValues("logged").Inc() }},
}

// observe counts one answered request.
func (m *Metrics) observe(method, route string, status int, took time.Duration, replayed bool) {
	m.requests.WithLabelValues(method, route, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(method, route).Observe(took.Seconds())
	if w, ok := countedWrites[method+" "+route]; ok && w.status == status && !replayed {
		w.count(m)
	}
}

// poolCollector reports the database's connection pools at each scrape,
// by pool: "write", and "read" where reads have their own (a SQLite file).
// The wait is the honest measure of a busy database: on SQLite every write
// runs on the one writer connection, so the write pool's wait is the time
// requests spent queued behind other requests' writes (a long import, a
// rebuild). Time SQLite itself waits for a lock held by another process
// (busy_timeout) is inside the statements and not part of it.
type poolCollector struct{ store *models.Store }

var (
	poolWaitSeconds = prometheus.NewDesc("insectscore_db_wait_seconds_total",
		"Total time requests waited for a database connection, by pool.", []string{"pool"}, nil)
	poolWaits = prometheus.NewDesc("insectscore_db_waits_total",
		"Times a request had to wait for a database connection, by pool.", []string{"pool"}, nil)
	poolInUse = prometheus.NewDesc("insectscore_db_connections_in_use",
		"Database connections in use now, by pool.", []string{"pool"}, nil)
	poolOpen = prometheus.NewDesc("insectscore_db_connections_open",
		"Database connections open now, in use or idle, by pool.", []string{"pool"}, nil)
	poolClosed = prometheus.NewDesc("insectscore_db_connections_closed_total",
		"Database connections the pool closed, by pool and why: idle_limit (more idle than it keeps), idle_time, lifetime. Many closed under load means connections are opened again and again.", []string{"pool", "reason"}, nil)
)

func (poolCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- poolWaitSeconds
	ch <- poolWaits
	ch <- poolInUse
	ch <- poolOpen
	ch <- poolClosed
}

func (p poolCollector) Collect(ch chan<- prometheus.Metric) {
	for pool, st := range p.store.PoolStats() {
		ch <- prometheus.MustNewConstMetric(poolWaitSeconds, prometheus.CounterValue, st.WaitDuration.Seconds(), pool)
		ch <- prometheus.MustNewConstMetric(poolWaits, prometheus.CounterValue, float64(st.WaitCount), pool)
		ch <- prometheus.MustNewConstMetric(poolInUse, prometheus.GaugeValue, float64(st.InUse), pool)
		ch <- prometheus.MustNewConstMetric(poolOpen, prometheus.GaugeValue, float64(st.OpenConnections), pool)
		ch <- prometheus.MustNewConstMetric(poolClosed, prometheus.CounterValue, float64(st.MaxIdleClosed), pool, "idle_limit")
		ch <- prometheus.MustNewConstMetric(poolClosed, prometheus.CounterValue, float64(st.MaxIdleTimeClosed), pool, "idle_time")
		ch <- prometheus.MustNewConstMetric(poolClosed, prometheus.CounterValue, float64(st.MaxLifetimeClosed), pool, "lifetime")
	}
}

// queueCollector reads PostgreSQL's NOTIFY queue at each scrape, waiting a
// second at most: a database that does not answer leaves the series out
// of that scrape rather than holding it up.
type queueCollector struct{ store *models.Store }

var queueUsage = prometheus.NewDesc("insectscore_notify_queue_usage",
	"Fraction of PostgreSQL's NOTIFY queue in use (pg_notification_queue_usage): notifications not yet read by every listener; NOTIFY fails when it is full.", nil, nil)

func (queueCollector) Describe(ch chan<- *prometheus.Desc) { ch <- queueUsage }

func (q queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if usage, _, err := q.store.NotifyQueueUsage(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(queueUsage, prometheus.GaugeValue, usage)
	}
}

// brokerCollector reports what the broker has told other replicas and
// heard from them.
type brokerCollector struct{ b notifyingBroker }

var (
	notifySent = prometheus.NewDesc("insectscore_notify_sent_total",
		"Changes this replica told the other replicas of by NOTIFY.", nil, nil)
	notifyFailed = prometheus.NewDesc("insectscore_notify_failed_total",
		"Changes this replica could not tell the other replicas of (PostgreSQL unreachable): their streams catch up with the table's next change.", nil, nil)
	notifyReceived = prometheus.NewDesc("insectscore_notify_received_total",
		"Notifications of changes made on other replicas.", nil, nil)
	notifyRefreshed = prometheus.NewDesc("insectscore_notify_refreshed_total",
		"Tables brought up to date for this replica's streams after a change on another replica or a reconnect: from the event the notification carried, or by a read (insectscore_notify_read_total).", nil, nil)
	notifyRead = prometheus.NewDesc("insectscore_notify_read_total",
		"Tables this replica read from the database to bring its streams up to date: a notification without the event (too large to carry, or a table played move by move), one of a version built here already (a change that leaves the version alone, such as a seat's sync state), or a reconnect.", nil, nil)
	notifyCarried = prometheus.NewDesc("insectscore_notify_carried_total",
		"Notifications this replica sent with the table's event in them, so that the other replicas need not read the table: only while it hears another replica (insectscore_notify_telling).", nil, nil)
	notifyTelling = prometheus.NewDesc("insectscore_notify_telling",
		"1 while this replica's notifications carry the tables' events: it has heard another replica within 30 s. Alone, it tells only what changed, which costs less.", nil, nil)
	listenReconnects = prometheus.NewDesc("insectscore_notify_listen_reconnects_total",
		"Times the LISTEN connection to PostgreSQL was lost and made again.", nil, nil)
)

func (brokerCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- notifySent
	ch <- notifyFailed
	ch <- notifyReceived
	ch <- notifyRefreshed
	ch <- notifyRead
	ch <- notifyCarried
	ch <- notifyTelling
	ch <- listenReconnects
}

func (c brokerCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.b.Stats()
	for _, v := range []struct {
		d *prometheus.Desc
		n uint64
	}{{notifySent, st.Sent}, {notifyFailed, st.Failed}, {notifyReceived, st.Received}, {notifyRefreshed, st.Refreshed},
		{notifyRead, st.Read}, {notifyCarried, st.Carried}, {listenReconnects, st.Reconnects}} {
		ch <- prometheus.MustNewConstMetric(v.d, prometheus.CounterValue, float64(v.n))
	}
	telling := 0.0
	if st.Telling {
		telling = 1
	}
	ch <- prometheus.MustNewConstMetric(notifyTelling, prometheus.GaugeValue, telling)
}

package cluster

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Balancer is a round-robin reverse proxy in front of the replicas, as
// HAProxy or nginx would be: each new request (an event stream is one
// long request) goes to the next replica whose /readyz said 200 at the
// last check. A request that cannot reach its replica goes to the next
// one when that is safe: always when the connection was refused, and for
// an idempotent method (GET, PUT, DELETE…) or a request with an
// Idempotency-Key when it was sent but got no answer, as nginx's
// proxy_next_upstream does. Streams are passed through unbuffered.
type Balancer struct {
	URL      string
	backends []*Backend
	next     atomic.Uint64
	srv      *http.Server
	tr       *http.Transport
	stop     chan struct{}
	wg       sync.WaitGroup
	// Retried counts requests sent again to another replica.
	Retried atomic.Int64
	// Failed counts requests no replica answered (the client got 502).
	Failed atomic.Int64
	// Errors counts the replicas' transport errors, by error.
	errMu  sync.Mutex
	Errors map[string]int
}

// Backend is one replica as the balancer sees it.
type Backend struct {
	Name string
	host string
	up   atomic.Bool
	// Requests and Streams count what was sent to it: requests answered,
	// and event streams opened (answered 200).
	Requests, Streams atomic.Int64
	mu                sync.Mutex
	// upSince is when the last check that found it ready began a run of
	// ready checks; zero while it is down.
	upSince time.Time
}

// Up says whether the balancer sends requests to b.
func (b *Backend) Up() bool { return b.up.Load() }

// UpSince is when b last became ready, zero while it is down.
func (b *Backend) UpSince() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.upSince
}

func (b *Backend) setUp(up bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if up && !b.up.Load() {
		b.upSince = time.Now()
	}
	if !up {
		b.upSince = time.Time{}
	}
	b.up.Store(up)
}

// BackendHeader names the replica that answered, on every response the
// balancer passes on.
const BackendHeader = "X-Balancer-Backend"

// checkEvery is how often the balancer asks each replica's /readyz.
const checkEvery = 100 * time.Millisecond

// NewBalancer listens on 127.0.0.1 and balances over the replicas at
// hosts (host:port), named by names.
func NewBalancer(names, hosts []string) (*Balancer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &Balancer{URL: "http://" + ln.Addr().String(), stop: make(chan struct{}), Errors: map[string]int{},
		tr: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
			MaxIdleConns:        1024,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     30 * time.Second,
		}}
	for i, h := range hosts {
		b.backends = append(b.backends, &Backend{Name: names[i], host: h})
	}
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			// RoundTrip picks the replica. The client's X-Forwarded-For
			// is kept (a load gives each phone an address of its own),
			// and the balancer's hop added to it.
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "replica"
			r.Out.Header["X-Forwarded-For"] = r.In.Header["X-Forwarded-For"]
			r.SetXForwarded()
		},
		Transport:     b,
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			b.Failed.Add(1)
			w.WriteHeader(http.StatusBadGateway)
		},
	}
	b.srv = &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	for _, be := range b.backends {
		b.check(be)
	}
	b.wg.Add(2)
	go func() { defer b.wg.Done(); b.srv.Serve(ln) }()
	go func() { defer b.wg.Done(); b.checks() }()
	return b, nil
}

// Backends are the replicas, in the order given.
func (b *Balancer) Backends() []*Backend { return b.backends }

// Close stops the balancer and ends the requests it carries.
func (b *Balancer) Close() {
	close(b.stop)
	b.srv.Close()
	b.wg.Wait()
	b.tr.CloseIdleConnections()
}

// checks asks every replica's /readyz until Close.
func (b *Balancer) checks() {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		select {
		case <-b.stop:
			return
		case <-t.C:
		}
		var wg sync.WaitGroup
		for _, be := range b.backends {
			wg.Add(1)
			go func() { defer wg.Done(); b.check(be) }()
		}
		wg.Wait()
	}
}

func (b *Balancer) check(be *Backend) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+be.host+"/readyz", nil)
	resp, err := b.tr.RoundTrip(req)
	if err != nil {
		be.setUp(false)
		return
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	be.setUp(resp.StatusCode == http.StatusOK)
}

// pick is the next ready replica, skipping those in tried; nil when none.
// When none is ready (their database is away, say), it is the next one
// not tried, as Envoy's panic routing does: a replica then answers for
// itself (503 with Retry-After), which tells a client more than a
// balancer's 502.
func (b *Balancer) pick(tried map[*Backend]bool) *Backend {
	n := len(b.backends)
	start := int(b.next.Add(1))
	for i := range n {
		be := b.backends[(start+i)%n]
		if be.Up() && !tried[be] {
			return be
		}
	}
	for _, be := range b.backends {
		if be.Up() {
			return nil // the ready ones were tried
		}
	}
	for i := range n {
		if be := b.backends[(start+i)%n]; !tried[be] {
			return be
		}
	}
	return nil
}

var errNoReplica = errors.New("balancer: no replica is ready")

// localAddr is the balancer's own end of a connection in an error, left
// out so that errors of one kind count together.
var localAddr = regexp.MustCompile(`127\.0\.0\.1:\d+->`)

// RoundTrip sends one proxied request to a ready replica, and to the next
// one when that is safe (see Balancer).
func (b *Balancer) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		var err error
		if body, err = io.ReadAll(io.LimitReader(req.Body, 4<<20)); err != nil {
			return nil, err
		}
		req.Body.Close()
	}
	tried := map[*Backend]bool{}
	var last error = errNoReplica
	for {
		be := b.pick(tried)
		if be == nil {
			return nil, last
		}
		tried[be] = true
		out := req.Clone(req.Context())
		out.URL.Host, out.Host = be.host, be.host
		if body != nil {
			out.Body = io.NopCloser(bytes.NewReader(body))
			out.ContentLength = int64(len(body))
		}
		resp, err := b.tr.RoundTrip(out)
		if err == nil {
			be.Requests.Add(1)
			if resp.StatusCode == http.StatusOK && strings.HasSuffix(req.URL.Path, "/events") {
				be.Streams.Add(1)
			}
			resp.Header.Set(BackendHeader, be.Name)
			return resp, nil
		}
		last = err
		if req.Context().Err() != nil {
			return nil, err
		}
		b.errMu.Lock()
		b.Errors[be.Name+" "+req.Method+": "+localAddr.ReplaceAllString(strings.ReplaceAll(err.Error(), be.host, "replica"), "")]++
		b.errMu.Unlock()
		// A replica that refuses connections is out until its next
		// check says it is ready.
		if refused(err) {
			be.setUp(false)
		} else if !idempotent(req) {
			return nil, err
		}
		b.Retried.Add(1)
	}
}

// refused says the request never reached the replica: nothing listens.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial" && errors.Is(err, syscall.ECONNREFUSED)
}

func idempotent(r *http.Request) bool {
	switch r.Method {
	case "GET", "HEAD", "PUT", "DELETE", "OPTIONS":
		return true
	}
	return r.Header.Get("Idempotency-Key") != ""
}

// Package api is the HTTP face of insectscore: a Fiber app whose routes are
// all listed in routes.go, thin handlers, problem+json errors, and the
// embedded PWA.
package api

import (
	"errors"
	"log/slog"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"insectscore/api/live"
	"insectscore/models"
)

// BodyLimit is the largest request body accepted. A full table of the
// largest boards is a few KiB; anything near this is a mistake or abuse.
const BodyLimit = 64 << 10

// ImportBodyLimit is the largest group export POST /api/v1/groups/import
// takes: years of a busy group's plays, boards included. It is the limit
// the server reads bodies up to; limitBody holds every other route to
// BodyLimit.
const ImportBodyLimit = 16 << 20

// Config wires the app to its surroundings.
type Config struct {
	// BaseURL, when set, is the public origin used in join links.
	BaseURL string
	// Logger receives request and error logs; nil means slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Store keeps tables; required.
	Store *models.Store
	// Broker carries live table updates to event streams; nil means an
	// in-process broker.
	Broker live.Broker
	// Heartbeat is how often idle event streams get a comment; zero means
	// 15 seconds.
	Heartbeat time.Duration
	// TrustedProxies lists the addresses (IPs or CIDR ranges) of reverse
	// proxies in front of the server. Requests from them are taken to come
	// from the client named in X-Forwarded-For, with X-Forwarded-Proto and
	// X-Forwarded-Host; from anyone else those headers are ignored.
	TrustedProxies []string
	// LANAddr, when set, replaces the lookup of this machine's LAN address
	// used in join links for requests to localhost (tests pin it).
	LANAddr func() string
	// IdempotencyTTL is how long an Idempotency-Key and its answer are
	// kept; zero means 24 hours.
	IdempotencyTTL time.Duration
	// KeysPerClient caps the idempotency keys one client address (an
	// IPv6 /64) has kept at once; zero means 2,000. Keys caps them in
	// all; zero means 100,000. A new key beyond either is 429.
	KeysPerClient, Keys int
	// StreamWriteWait is how long an event stream waits for a client
	// that reads nothing before closing it; zero means 30 seconds.
	StreamWriteWait time.Duration
	// MaxStreamsPerClient caps the event streams one client address may
	// hold open; zero means 64.
	MaxStreamsPerClient int
	// MaxStreams caps the event streams open at once; zero means 10,000.
	MaxStreams int
	// Metrics receives the app's Prometheus metrics; nil means metrics of
	// the app's own that nobody reads.
	Metrics *Metrics
}

// server holds what the handlers share.
type server struct {
	cfg    Config
	log    *slog.Logger
	assets *assets
	store  *models.Store
	broker live.Broker
	// proxies are the trusted reverse proxies; baseOrigin is the origin
	// of Config.BaseURL, if set.
	proxies    proxyList
	baseOrigin string
	// guesses counts failed lookups per client address.
	guesses *missLimit
	// streams caps open event streams.
	streams *streamCaps
	// recent holds each table's last live event, to send the next change
	// as a delta.
	recent *live.Recent
	// hubs fan each table's changes out to its event streams.
	hubs    *live.Hubs
	metrics *Metrics
	// routeOf names the route of a request for the log and the metrics.
	routeOf *routeTable
	// createLimit bounds creations per client address.
	createLimit fiber.Handler
	// lastPurge is when a purge of expired idempotency keys last began
	// (at first, when the app was made); purging says one runs.
	purgeMu   sync.Mutex
	lastPurge time.Time
	purging   bool
}

// New builds the Fiber app with every route and middleware.
func New(cfg Config) (*fiber.App, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Store == nil {
		return nil, errors.New("api: Config.Store is required")
	}
	if cfg.Broker == nil {
		cfg.Broker = live.NewMemoryBroker()
	}
	if cfg.IdempotencyTTL <= 0 {
		cfg.IdempotencyTTL = defaultIdempotencyTTL
	}
	if cfg.KeysPerClient <= 0 {
		cfg.KeysPerClient = defaultKeysPerClient
	}
	if cfg.Keys <= 0 {
		cfg.Keys = defaultKeys
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	proxies, err := parseProxies(cfg.TrustedProxies)
	if err != nil {
		return nil, err
	}
	s := &server{cfg: cfg, log: cfg.Logger, lastPurge: cfg.Now(), assets: a, store: cfg.Store, broker: cfg.Broker, proxies: proxies, metrics: cfg.Metrics,
		guesses: newMissLimit(guessesPerMinute, guessWindow, cfg.Now), recent: live.NewRecent(),
		hubs:    live.NewHubs(cfg.Broker),
		streams: newStreamCaps(cfg.MaxStreamsPerClient, cfg.MaxStreams, cfg.Metrics.streamsChanged)}
	if cfg.BaseURL != "" {
		if s.baseOrigin, _ = normalOrigin(cfg.BaseURL); s.baseOrigin == "" {
			return nil, errors.New("api: Config.BaseURL must be an http or https URL")
		}
	}
	if err := cfg.Metrics.watchStore(cfg.Store); err != nil {
		return nil, err
	}
	if err := cfg.Metrics.watchBroker(cfg.Broker); err != nil {
		return nil, err
	}
	if b, ok := cfg.Broker.(sourcedBroker); ok {
		// Changes made on another replica reach this one as a code: the
		// table's event is rebuilt here.
		b.SetSource(s.tableEvent)
	}
	s.createLimit = limiter.New(limiter.Config{
		Max:          createsPerMinute,
		Expiration:   time.Minute,
		KeyGenerator: s.clientIP,
		LimitReached: func(c *fiber.Ctx) error {
			return errorf(fiber.StatusTooManyRequests, "that is a lot of new tables and groups at once: wait a minute")
		},
	})
	app := fiber.New(fiber.Config{
		AppName: "insectscore",
		// Behind trusted proxies, join links and the same-origin check
		// use the public origin the proxy names; from anyone else
		// X-Forwarded-* is ignored (Fiber trusts it otherwise). The
		// client's address is clientIP's, not Fiber's c.IP().
		EnableTrustedProxyCheck: true,
		TrustedProxies:          cfg.TrustedProxies,
		BodyLimit:               ImportBodyLimit,
		// Nothing here takes a form: a multipart body is refused as not
		// JSON (415) rather than parsed, spilling to disk, by fasthttp.
		DisablePreParseMultipartForm: true,
		ReadTimeout:                  15 * time.Second,
		IdleTimeout:                  120 * time.Second,
		DisableStartupMessage:        true,
		// Strings from a request (params, headers, body) are copied, not
		// slices of buffers Fiber reuses for the next request: event streams
		// and the broker keep them long after the handler returns.
		Immutable:    true,
		JSONEncoder:  marshalJSON,
		ErrorHandler: errorHandler(cfg.Logger, cfg.Now),
	})
	app.Use(recover.New())
	app.Use(securityHeaders)
	app.Use(s.observe)
	app.Use("/api", noStore)
	app.Use("/api", contentLanguage)
	app.Use(plainBodies)
	app.Use(s.sameOrigin)
	app.Use(jsonBodies)
	s.routes(app)
	s.routeOf = newRouteTable(app.GetRoutes(true))
	return app, nil
}

// securityHeaders sets a strict CSP and the usual hardening headers, and
// HSTS on answers over https (served so, or so named by a trusted proxy). The
// PWA has no inline script or style, so 'self' is all it needs;
// 'wasm-unsafe-eval' lets it compile the rules engine's WebAssembly and
// still allows no eval of JavaScript.
func securityHeaders(c *fiber.Ctx) error {
	c.Set("Content-Security-Policy", "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "+
		"img-src 'self' data:; connect-src 'self'; manifest-src 'self'; worker-src 'self'; "+
		"object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("X-Frame-Options", "DENY")
	c.Set("Referrer-Policy", "no-referrer")
	if trustworthy(c) {
		// Browsers heed COOP only on an origin they trust: on a plain http
		// LAN address Chromium drops it and logs an error on every load.
		c.Set("Cross-Origin-Opener-Policy", "same-origin")
	}
	c.Set("Cross-Origin-Resource-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	if c.Protocol() == "https" {
		// Once a browser has the app over https it never asks for it over
		// http again, for a year. Not for subdomains: a home domain's other
		// names may well serve plain http. Browsers ignore it over http,
		// and for IP addresses.
		c.Set(fiber.HeaderStrictTransportSecurity, "max-age=31536000")
	}
	return c.Next()
}

// trustworthy says whether the browser counts the request's origin as
// potentially trustworthy: https (served so, or so named by a trusted
// proxy), or a loopback name or address.
func trustworthy(c *fiber.Ctx) bool {
	if c.Protocol() == "https" {
		return true
	}
	name, _, err := net.SplitHostPort(c.Hostname())
	if err != nil { // no port
		name = c.Hostname()
	}
	return isLocalhost(name)
}

// plainBodies refuses compressed request bodies: Fiber would inflate them
// without bound when a handler reads the body, so a small gzip bomb could
// pass the size limits. No client of ours compresses what it sends.
func plainBodies(c *fiber.Ctx) error {
	if enc := c.Get(fiber.HeaderContentEncoding); enc != "" && !strings.EqualFold(enc, "identity") {
		return errorf(fiber.StatusUnsupportedMediaType, "send the body uncompressed (no Content-Encoding)")
	}
	return c.Next()
}

// limitBody answers 413 to a body over BodyLimit. The server reads bodies
// up to ImportBodyLimit for the one route that needs them, which routes.go
// lists before this middleware; every route after it gets the small limit.
func limitBody(c *fiber.Ctx) error {
	if len(c.Request().Body()) > BodyLimit {
		return fiber.ErrRequestEntityTooLarge
	}
	return c.Next()
}

// createsPerMinute bounds how many tables, groups, logged plays and
// imports one client address may create a minute: far above a game night,
// far below a script filling the database.
const createsPerMinute = 60

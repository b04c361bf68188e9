// Package api is the HTTP face of insectscore: a Fiber app whose routes are
// all listed in routes.go, thin handlers, problem+json errors, and the
// embedded PWA.
package api

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/limiter"
	"github.com/gofiber/fiber/v2/middleware/recover"

	"insectscore/models"
)

// BodyLimit is the largest request body accepted. A full table of four
// Insecta boards is a few KiB; anything near this is a mistake or abuse.
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
	Broker Broker
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
}

// server holds what the handlers share.
type server struct {
	cfg     Config
	log     *slog.Logger
	assets  *assets
	store   *models.Store
	broker  Broker
	limiter fiber.Handler
	// createLimit bounds creations per client address.
	createLimit fiber.Handler
	// lastPurge is when expired idempotency keys were last deleted.
	purgeMu   sync.Mutex
	lastPurge time.Time
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
		cfg.Broker = models.NewMemoryBroker()
	}
	if cfg.IdempotencyTTL <= 0 {
		cfg.IdempotencyTTL = defaultIdempotencyTTL
	}
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	s := &server{cfg: cfg, log: cfg.Logger, assets: a, store: cfg.Store, broker: cfg.Broker}
	if b, ok := cfg.Broker.(sourcedBroker); ok {
		// Changes made on another replica reach this one as a code: the
		// table's event is rebuilt here.
		b.SetSource(s.tableEvent)
	}
	s.limiter = limiter.New(limiter.Config{
		Max:                    30,
		Expiration:             time.Minute,
		SkipSuccessfulRequests: true,
		LimitReached: func(c *fiber.Ctx) error {
			return errorf(fiber.StatusTooManyRequests, "too many failed attempts: wait a minute and check the table code or the group link")
		},
	})
	s.createLimit = limiter.New(limiter.Config{
		Max:        createsPerMinute,
		Expiration: time.Minute,
		LimitReached: func(c *fiber.Ctx) error {
			return errorf(fiber.StatusTooManyRequests, "that is a lot of new tables and groups at once: wait a minute")
		},
	})
	app := fiber.New(fiber.Config{
		AppName: "insectscore",
		// Behind trusted proxies, rate limits and join links use the
		// client's address and the public origin the proxy names; from
		// anyone else X-Forwarded-* is ignored (Fiber trusts it otherwise).
		EnableTrustedProxyCheck: true,
		TrustedProxies:          cfg.TrustedProxies,
		ProxyHeader:             proxyHeader(cfg.TrustedProxies),
		EnableIPValidation:      true,
		BodyLimit:               ImportBodyLimit,
		ReadTimeout:             15 * time.Second,
		IdleTimeout:             120 * time.Second,
		DisableStartupMessage:   true,
		// Strings from a request (params, headers, body) are copied, not
		// slices of buffers Fiber reuses for the next request: event streams
		// and the broker keep them long after the handler returns.
		Immutable:    true,
		ErrorHandler: errorHandler(cfg.Logger),
	})
	app.Use(recover.New())
	app.Use(securityHeaders)
	app.Use(plainBodies)
	app.Use(s.logRequests)
	s.routes(app)
	s.purgeExpired(context.Background())
	return app, nil
}

// securityHeaders sets a strict CSP and the usual hardening headers. The
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
	c.Set("Cross-Origin-Opener-Policy", "same-origin")
	c.Set("Cross-Origin-Resource-Policy", "same-origin")
	c.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=()")
	return c.Next()
}

// logRequests logs each request once it is answered.
func (s *server) logRequests(c *fiber.Ctx) error {
	start := s.cfg.Now()
	err := c.Next()
	if err != nil {
		// Render now so the logged status is the one sent.
		if herr := c.App().ErrorHandler(c, err); herr != nil {
			return herr
		}
	}
	s.log.Debug("request", "method", c.Method(), "path", c.Path(),
		"status", c.Response().StatusCode(), "duration", s.cfg.Now().Sub(start))
	return nil
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

func proxyHeader(trusted []string) string {
	if len(trusted) == 0 {
		return ""
	}
	return fiber.HeaderXForwardedFor
}

// guessLimit slows down anyone guessing table codes: each client address
// may get at most 30 failed answers (unknown code, bad request) a minute;
// successful requests are not counted, so a real table is never throttled.
// It must be followed by answerErrors, or it never sees a failure.
func (s *server) guessLimit(c *fiber.Ctx) error {
	return s.limiter(c)
}

// answerErrors renders a handler's error at once rather than when it
// reaches the app's error handler, so that guessLimit, which runs before
// it, reads the status actually sent: an error still on its way up leaves
// the status at 200, and the limiter would count it as a success.
func (s *server) answerErrors(c *fiber.Ctx) error {
	if err := c.Next(); err != nil {
		return c.App().ErrorHandler(c, err)
	}
	return nil
}

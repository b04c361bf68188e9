package api

import (
	"log/slog"
	"regexp"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// observe logs and counts each request once it is answered. The log line
// carries the method, the route pattern, the path with group ids hidden,
// the status, the time taken and the client's address; never a header, so
// never a token. 401s and 429s (someone guessing, or locked out) are
// logged as warnings, server errors as errors, the rest at info.
func (s *server) observe(c *fiber.Ctx) error {
	start := time.Now()
	if err := c.Next(); err != nil {
		// Render now so the logged status is the one sent.
		if err := c.App().ErrorHandler(c, err); err != nil {
			return err
		}
	}
	took := time.Since(start)
	status := c.Response().StatusCode()
	route := s.routeOf.of(c)
	replayed := c.GetRespHeader(headerReplayed) == "true"
	s.metrics.observe(c.Method(), route, status, took, replayed)
	level := slog.LevelInfo
	switch {
	case status >= 500:
		level = slog.LevelError
	case status == fiber.StatusUnauthorized || status == fiber.StatusTooManyRequests:
		level = slog.LevelWarn
	}
	attrs := []slog.Attr{slog.String("method", c.Method()), slog.String("route", route),
		slog.String("path", redactedPath(c)), slog.Int("status", status),
		slog.Duration("duration", took), slog.String("client", s.clientIP(c))}
	if replayed {
		attrs = append(attrs, slog.Bool("replayed", true))
	}
	s.log.LogAttrs(c.UserContext(), level, "request", attrs...)
	return nil
}

// redacted stands for a group id, or a query value not the API's, in the
// log.
const redacted = "…"

// redactedPath is the request's path and query for the log, with every
// group id replaced: a group id is its invite, so whoever reads the log
// could join. Group ids travel in /api/v1/groups/{id}…, in the app's
// invite route /g/{id} and in ?group=.
func redactedPath(c *fiber.Ctx) string {
	p := redactGroupPath(c.Path())
	args := c.Request().URI().QueryArgs()
	if args.Len() == 0 {
		return p
	}
	var q []string
	args.VisitAll(func(k, v []byte) {
		val := redacted
		if loggedParams[string(k)] {
			val = string(v)
		}
		q = append(q, string(k)+"="+val)
	})
	return p + "?" + strings.Join(q, "&")
}

// loggedParams are the query parameters whose values the log shows: the
// API's own, but for group, whose value is the group's invite. Any other
// value is hidden, as it may be a secret sent where it does not belong
// (?access_token=…).
var loggedParams = map[string]bool{"cursor": true, "deltas": true, "game": true, "limit": true, "location": true, "player": true}

// redactGroupPath hides the group id of a path. Routes match without
// regard to case, so neither does this.
func redactGroupPath(p string) string {
	segs := strings.Split(p, "/")
	is := func(i int, name string) bool { return len(segs) > i && strings.EqualFold(segs[i], name) }
	switch {
	case is(1, "api") && is(2, "v1") && is(3, "groups") && len(segs) > 4 && segs[4] != "" && !is(4, "import"):
		segs[4] = redacted
	case is(1, "g") && len(segs) > 2 && segs[2] != "":
		segs[2] = redacted
	}
	return strings.Join(segs, "/")
}

// routeTable finds the route pattern of a request that a middleware
// answered before it reached its route (a 415, a 413, an answer replayed
// for an Idempotency-Key): Fiber then names the middleware's prefix ("/",
// "/api"), which says nothing of the route.
type routeTable struct {
	patterns map[string]bool
	routes   []routePattern
}

type routePattern struct {
	method, path string
	re           *regexp.Regexp
}

// newRouteTable reads the app's routes, in the order Fiber matches them.
func newRouteTable(routes []fiber.Route) *routeTable {
	rt := &routeTable{patterns: map[string]bool{}}
	param := regexp.MustCompile(`:[A-Za-z0-9_]+|\\\*`)
	for _, r := range routes {
		rt.patterns[r.Path] = true
		// Routes match without regard to case or a trailing slash, as Fiber's.
		expr := param.ReplaceAllStringFunc(regexp.QuoteMeta(r.Path), func(m string) string {
			if m == `\*` {
				return `.*`
			}
			return `[^/]+`
		})
		rt.routes = append(rt.routes, routePattern{r.Method, r.Path, regexp.MustCompile(`(?i)^` + expr + `/?$`)})
	}
	return rt
}

// of is the route pattern of the request.
func (rt *routeTable) of(c *fiber.Ctx) string {
	if p := c.Route().Path; rt.patterns[p] {
		return p
	}
	for _, r := range rt.routes {
		if r.method == c.Method() && r.re.MatchString(c.Path()) {
			return r.path
		}
	}
	return c.Route().Path
}

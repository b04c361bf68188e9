package api

import (
	"mime"
	"net/url"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Cross-site writes. A page on another site can make a browser send a
// form or a "simple" fetch here, with the user's network position and
// without a CORS preflight: such a request has a Content-Type of
// text/plain, a form's or none, and carries the other site's Origin. Every
// body must be JSON, which no simple request can claim to be, and a write
// that names its origin must name this one.

// jsonBodies answers 415 to a request whose body is not declared as JSON:
// Content-Type application/json, with at most a charset of utf-8 (JSON is
// UTF-8). A request without a body passes whatever its Content-Type.
func jsonBodies(c *fiber.Ctx) error {
	if len(c.Request().Body()) == 0 {
		return c.Next()
	}
	if !isJSONType(c.Get(fiber.HeaderContentType)) {
		return errorf(fiber.StatusUnsupportedMediaType, "send the body as JSON, with Content-Type: application/json")
	}
	return c.Next()
}

func isJSONType(header string) bool {
	mt, params, err := mime.ParseMediaType(header)
	if err != nil || mt != fiber.MIMEApplicationJSON {
		return false
	}
	for k, v := range params {
		if k != "charset" || !strings.EqualFold(v, "utf-8") {
			return false
		}
	}
	return true
}

// sameOrigin answers 403 to a request other than GET or HEAD whose Origin
// header names another site than this server: the origin the request came
// to (as a trusted proxy names it) or INSECTSCORE_BASE_URL's. Requests
// without Origin (curl, scripts, the command line) pass: a browser always
// sends it with a cross-site write.
func (s *server) sameOrigin(c *fiber.Ctx) error {
	origin := c.Get(fiber.HeaderOrigin)
	if origin == "" || c.Method() == fiber.MethodGet || c.Method() == fiber.MethodHead {
		return c.Next()
	}
	got, ok := normalOrigin(origin)
	if ok && (got == s.ownOrigin(c) || got == s.baseOrigin) {
		return c.Next()
	}
	return errorf(fiber.StatusForbidden, "this request came from a page of another site (%s): only this server's own app may write here", clip(origin, 100))
}

// ownOrigin is the origin the request was sent to.
func (s *server) ownOrigin(c *fiber.Ctx) string {
	o, _ := normalOrigin(c.Protocol() + "://" + c.Hostname())
	return o
}

// normalOrigin reduces an origin or URL to scheme://host[:port] in lower
// case, without the scheme's default port, so that equal origins compare
// equal. "null" and anything that is not an http(s) URL are not origins.
func normalOrigin(s string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Host == "" {
		return "", false
	}
	scheme, host := strings.ToLower(u.Scheme), strings.ToLower(u.Host)
	switch {
	case scheme == "http":
		host = strings.TrimSuffix(host, ":80")
	case scheme == "https":
		host = strings.TrimSuffix(host, ":443")
	default:
		return "", false
	}
	return scheme + "://" + host, true
}

// clip shortens s to at most n bytes for an error message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// noStore marks every API answer as not to be kept by browsers or
// proxies: answers carry host and seat tokens, group ids (which are
// invites) and whatever a group played. The handlers of public answers
// (the games and their specs) say otherwise.
func noStore(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.Next()
}

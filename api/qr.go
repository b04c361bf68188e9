package api

import (
	"fmt"
	"net"
	"strings"

	"github.com/gofiber/fiber/v2"
	qrcode "github.com/skip2/go-qrcode"
)

// joinURL is the link a phone at the table opens to join.
func (s *server) joinURL(c *fiber.Ctx, code string) string {
	return s.baseURL(c) + "/t/" + code
}

// inviteURL is the link that brings someone into a group: knowing it is
// being in the group.
func (s *server) inviteURL(c *fiber.Ctx, group string) string {
	return s.baseURL(c) + "/g/" + group
}

// baseURL is the origin of the links the app hands out: the configured
// base URL, or else the origin the request came to. A request to localhost
// would give a link no other phone can open, so localhost is swapped for
// this machine's LAN address.
func (s *server) baseURL(c *fiber.Ctx) string {
	if s.cfg.BaseURL != "" {
		return s.cfg.BaseURL
	}
	host := c.Hostname()
	name, port, err := net.SplitHostPort(host)
	if err != nil { // no port: a name, or an IPv6 address in brackets
		name, port = strings.Trim(host, "[]"), ""
	}
	if isLocalhost(name) {
		if ip := s.lanIP(); ip != "" {
			name = ip
		}
	}
	if port != "" {
		name = net.JoinHostPort(name, port)
	} else if strings.Contains(name, ":") {
		name = "[" + name + "]"
	}
	return c.Protocol() + "://" + name
}

func isLocalhost(host string) bool {
	host = strings.Trim(host, "[]")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// lanIP returns this machine's address on the local network: a private
// IPv4 address if it has one, else any other routable IPv4 address, else "".
func (s *server) lanIP() string {
	if s.cfg.LANAddr != nil {
		return s.cfg.LANAddr()
	}
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	return pickLANIP(addrs)
}

// pickLANIP prefers a private IPv4 address (a home or club network) and
// falls back to the first other global unicast IPv4 address.
func pickLANIP(addrs []net.Addr) string {
	fallback := ""
	for _, a := range addrs {
		ipn, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip := ipn.IP.To4()
		switch {
		case ip == nil || !ip.IsGlobalUnicast():
		case ip.IsPrivate():
			return ip.String()
		case fallback == "":
			fallback = ip.String()
		}
	}
	return fallback
}

// qrSize is the side of the PNG in pixels: large enough to scan from
// across a table when shown full-width on a phone.
const qrSize = 512

// tableQRPNG answers GET /api/v1/tables/{code}/qr.png.
func (s *server) tableQRPNG(c *fiber.Ctx) error {
	t, err := s.findTable(c)
	if err != nil {
		return err
	}
	return sendQRPNG(c, s.joinURL(c, t.Code))
}

// tableQRSVG answers GET /api/v1/tables/{code}/qr.svg.
func (s *server) tableQRSVG(c *fiber.Ctx) error {
	t, err := s.findTable(c)
	if err != nil {
		return err
	}
	return sendQRSVG(c, s.joinURL(c, t.Code))
}

// sendQRPNG answers with the QR code of text as a PNG.
func sendQRPNG(c *fiber.Ctx, text string) error {
	png, err := qrcode.Encode(text, qrcode.Medium, qrSize)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "image/png")
	return c.Send(png)
}

// sendQRSVG answers with the QR code of text as an SVG.
func sendQRSVG(c *fiber.Ctx, text string) error {
	svg, err := qrSVG(text)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderContentType, "image/svg+xml")
	return c.SendString(svg)
}

// qrSVG draws the QR code of text as one SVG path of unit squares, with
// the quiet zone the encoder includes.
func qrSVG(text string) (string, error) {
	q, err := qrcode.New(text, qrcode.Medium)
	if err != nil {
		return "", err
	}
	bits := q.Bitmap()
	var b strings.Builder
	n := len(bits)
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y, row := range bits {
		for x, on := range row {
			if on {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x, y)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return b.String(), nil
}

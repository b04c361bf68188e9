package api

import (
	"bytes"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// The client's address: what rate limits, stream caps and the request log
// go by. Behind a reverse proxy it comes from X-Forwarded-For, where each
// proxy appends the address it got the request from. Everything left of
// what a trusted proxy wrote is whatever the client sent, so the client is
// the rightmost address that is not a trusted proxy; Fiber's own c.IP()
// takes the leftmost, which the client picks.

// clientKey is the Locals key under which a request's client address is
// kept once worked out.
const clientKey = "insectscore.client"

// proxyList is the set of trusted reverse proxies.
type proxyList []netip.Prefix

// parseProxies reads Config.TrustedProxies: IPs or CIDR ranges.
func parseProxies(list []string) (proxyList, error) {
	var out proxyList
	for _, p := range list {
		p = strings.TrimSpace(p)
		if pfx, err := netip.ParsePrefix(p); err == nil {
			out = append(out, pfx.Masked())
			continue
		}
		addr, err := netip.ParseAddr(p)
		if err != nil {
			return nil, fmt.Errorf("api: trusted proxy %q is neither an IP address nor a CIDR range", p)
		}
		addr = addr.Unmap()
		out = append(out, netip.PrefixFrom(addr, addr.BitLen()))
	}
	return out, nil
}

func (l proxyList) trusts(a netip.Addr) bool {
	for _, p := range l {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the address of the client that sent the request: the peer,
// or behind trusted proxies the rightmost address of X-Forwarded-For that
// is not one of them (all X-Forwarded-For headers, in order, read as one
// list). An entry that is not an address ends the walk, and the last
// trusted hop seen stands for the client.
func (s *server) clientIP(c *fiber.Ctx) string {
	if ip, ok := c.Locals(clientKey).(string); ok {
		return ip
	}
	ip := s.findClient(c)
	c.Locals(clientKey, ip)
	return ip
}

func (s *server) findClient(c *fiber.Ctx) string {
	peer, ok := netip.AddrFromSlice(c.Context().RemoteIP())
	if !ok {
		return c.Context().RemoteIP().String()
	}
	hop := peer.Unmap()
	if !s.proxies.trusts(hop) {
		return hop.String()
	}
	var hops []string
	for _, h := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		for _, part := range bytes.Split(h, []byte(",")) {
			hops = append(hops, string(bytes.TrimSpace(part)))
		}
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseHop(hops[i])
		if !ok {
			break
		}
		hop = a
		if !s.proxies.trusts(a) {
			break
		}
	}
	return hop.String()
}

// parseHop reads one X-Forwarded-For entry: an address, possibly with a
// port (1.2.3.4:5678, [2001:db8::1]:80).
func parseHop(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if host, _, err := net.SplitHostPort(s); err == nil {
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap(), true
		}
	}
	return netip.Addr{}, false
}

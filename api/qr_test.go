package api

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"net"
	"regexp"
	"strconv"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"insectscore/api/qrtest"
)

// The QR codes are read back with a QR decoder, as a phone's camera would.

// decodeQR reads the text of the QR code in img.
func decodeQR(t *testing.T, img image.Image) string {
	t.Helper()
	return qrtest.Decode(t, img)
}

var (
	svgViewBox = regexp.MustCompile(`viewBox="0 0 (\d+) (\d+)"`)
	svgPath    = regexp.MustCompile(`<path fill="#000" d="([^"]*)"/>`)
	svgSquares = regexp.MustCompile(`^(M\d+ \d+h1v1h-1z)*$`)
	svgSquare  = regexp.MustCompile(`M(\d+) (\d+)h1v1h-1z`)
)

// rasterSVG draws the QR code SVG of qrSVG (a white square and one path of
// unit squares) at scale pixels per module.
func rasterSVG(t *testing.T, svg string, scale int) image.Image {
	t.Helper()
	vb := svgViewBox.FindStringSubmatch(svg)
	if vb == nil || vb[1] != vb[2] {
		t.Fatalf("no square viewBox in %.200s", svg)
	}
	n, _ := strconv.Atoi(vb[1])
	p := svgPath.FindStringSubmatch(svg)
	if p == nil || !svgSquares.MatchString(p[1]) {
		t.Fatalf("the SVG is not one path of unit squares: %.300s", svg)
	}
	img := image.NewGray(image.Rect(0, 0, n*scale, n*scale))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	for _, m := range svgSquare.FindAllStringSubmatch(p[1], -1) {
		x, _ := strconv.Atoi(m[1])
		y, _ := strconv.Atoi(m[2])
		if x >= n || y >= n {
			t.Fatalf("square at %d,%d outside the %d×%d viewBox", x, y, n, n)
		}
		draw.Draw(img, image.Rect(x*scale, y*scale, (x+1)*scale, (y+1)*scale), image.NewUniform(color.Black), image.Point{}, draw.Src)
	}
	return img
}

// TestQRCodes reads both QR codes of a table back to its join URL, over a
// real listener on 127.0.0.1, so the URL carries the LAN address.
func TestQRCodes(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insectarium", "players": ["Ana"]}`, nil, 201))
	port := base[len("http://127.0.0.1:"):]
	if want := "http://192.168.1.23:" + port + "/t/" + ct.Code; ct.JoinURL != want {
		t.Fatalf("joinUrl %q, want %q", ct.JoinURL, want)
	}
	tableURL := base + "/api/v1/tables/" + ct.Code

	t.Run("png", func(t *testing.T) {
		r := mustHTTP(t, "GET", tableURL+"/qr.png", "", nil, 200)
		if got := r.header.Get("Content-Type"); got != "image/png" {
			t.Errorf("Content-Type %q", got)
		}
		img, err := png.Decode(bytes.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != qrSize || b.Dy() != qrSize {
			t.Errorf("PNG is %v, want %d×%d", b, qrSize, qrSize)
		}
		if got := decodeQR(t, img); got != ct.JoinURL {
			t.Errorf("qr.png reads %q, want %q", got, ct.JoinURL)
		}
	})
	t.Run("svg", func(t *testing.T) {
		r := mustHTTP(t, "GET", tableURL+"/qr.svg", "", nil, 200)
		if got := r.header.Get("Content-Type"); got != "image/svg+xml" {
			t.Errorf("Content-Type %q", got)
		}
		if got := decodeQR(t, rasterSVG(t, string(r.body), 8)); got != ct.JoinURL {
			t.Errorf("qr.svg reads %q, want %q", got, ct.JoinURL)
		}
	})
	t.Run("lower-case code", func(t *testing.T) {
		r := mustHTTP(t, "GET", base+"/api/v1/tables/"+string(bytes.ToLower([]byte(ct.Code)))+"/qr.svg", "", nil, 200)
		if got := decodeQR(t, rasterSVG(t, string(r.body), 4)); got != ct.JoinURL {
			t.Errorf("qr.svg reads %q, want %q", got, ct.JoinURL)
		}
	})
	t.Run("unknown table", func(t *testing.T) {
		for _, f := range []string{"qr.png", "qr.svg"} {
			r := mustHTTP(t, "GET", base+"/api/v1/tables/ZZZZZZ/"+f, "", nil, 404)
			if got := r.header.Get("Content-Type"); got != "application/problem+json" {
				t.Errorf("%s: Content-Type %q", f, got)
			}
		}
	})
}

// TestQRCodeBaseURL: with a base URL the QR code carries it, whatever host
// the request came to.
func TestQRCodeBaseURL(t *testing.T) {
	app, _ := newTestAppWith(t, Config{BaseURL: "https://scores.example"})
	host := map[string]string{"Host": "localhost:8080"}
	ct := decodeJSON[createdTable](t, mustCall(t, app, "POST", "/api/v1/tables", `{"game": "insecta", "players": ["Ana"]}`, host, 201))
	r := mustCall(t, app, "GET", "/api/v1/tables/"+ct.Code+"/qr.png", "", host, 200)
	img, err := png.Decode(bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decodeQR(t, img), "https://scores.example/t/"+ct.Code; got != want {
		t.Errorf("qr.png reads %q, want %q", got, want)
	}
}

func TestJoinURL(t *testing.T) {
	lan := func() string { return "192.168.1.23" }
	noLAN := func() string { return "" }
	tests := []struct {
		name, base, host string
		lanAddr          func() string
		want             string
	}{
		{"localhost with a port", "", "localhost:8080", lan, "http://192.168.1.23:8080/t/ABC234"},
		{"localhost", "", "localhost", lan, "http://192.168.1.23/t/ABC234"},
		{"a .localhost name", "", "insects.localhost:3000", lan, "http://192.168.1.23:3000/t/ABC234"},
		{"127.0.0.1", "", "127.0.0.1:8080", lan, "http://192.168.1.23:8080/t/ABC234"},
		{"another loopback address", "", "127.0.1.1:8080", lan, "http://192.168.1.23:8080/t/ABC234"},
		{"IPv6 loopback", "", "[::1]:8080", lan, "http://192.168.1.23:8080/t/ABC234"},
		{"IPv6 loopback without a port", "", "[::1]", lan, "http://192.168.1.23/t/ABC234"},
		{"a real host name is kept", "", "scores.example.org", lan, "http://scores.example.org/t/ABC234"},
		{"a real host name with a port", "", "scores.example.org:8443", lan, "http://scores.example.org:8443/t/ABC234"},
		{"a LAN address is kept", "", "192.168.1.50:8080", lan, "http://192.168.1.50:8080/t/ABC234"},
		{"an IPv6 address", "", "[2001:db8::7]:8080", lan, "http://[2001:db8::7]:8080/t/ABC234"},
		{"an IPv6 address without a port", "", "[2001:db8::7]", lan, "http://[2001:db8::7]/t/ABC234"},
		{"no LAN address: localhost stays", "", "localhost:8080", noLAN, "http://localhost:8080/t/ABC234"},
		{"the base URL wins over localhost", "https://scores.example", "localhost:8080", lan, "https://scores.example/t/ABC234"},
		{"the base URL wins over a host name", "https://scores.example/insects", "other.example", lan, "https://scores.example/insects/t/ABC234"},
	}
	app := fiber.New()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &server{cfg: Config{BaseURL: tt.base, LANAddr: tt.lanAddr}}
			fctx := &fasthttp.RequestCtx{}
			fctx.Request.Header.SetHost(tt.host)
			fctx.Request.SetRequestURI("/api/v1/tables")
			c := app.AcquireCtx(fctx)
			defer app.ReleaseCtx(c)
			if got := s.joinURL(c, "ABC234"); got != tt.want {
				t.Errorf("joinURL for host %q = %q, want %q", tt.host, got, tt.want)
			}
		})
	}
}

func TestPickLANIP(t *testing.T) {
	cidr := func(s string) net.Addr {
		ip, n, err := net.ParseCIDR(s)
		if err != nil {
			t.Fatal(err)
		}
		n.IP = ip
		return n
	}
	tests := []struct {
		name  string
		addrs []string
		want  string
	}{
		{"private wins", []string{"127.0.0.1/8", "192.0.2.2/24", "192.168.1.23/24"}, "192.168.1.23"},
		{"any routable address when none is private", []string{"127.0.0.1/8", "fe80::1/64", "192.0.2.2/24"}, "192.0.2.2"},
		{"link-local and loopback are no use", []string{"127.0.0.1/8", "169.254.3.4/16", "::1/128"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var addrs []net.Addr
			for _, a := range tt.addrs {
				addrs = append(addrs, cidr(a))
			}
			if got := pickLANIP(addrs); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

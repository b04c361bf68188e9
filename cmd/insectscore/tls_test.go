package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"image/png"
	"io"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"insectscore/api/qrtest"
)

// HTTPS with the host's own certificate: a CA made by the test issues
// certificates for insectscore.test and 127.0.0.1, the real server serves
// them, and a client that trusts only that CA talks to it. The name is
// mapped to 127.0.0.1 by the client's dialer: no traffic leaves the
// machine.

// testName is the name the test certificates are for.
const testName = "insectscore.test"

// testCA is a certificate authority made for one test.
type testCA struct {
	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	pem    []byte
	serial int64
}

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "insectscore test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, serial: 1, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue makes a leaf certificate for names (DNS names or IPs) valid until
// notAfter, and returns it and its key in PEM and its serial number.
func (ca *testCA) issue(t *testing.T, notAfter time.Time, names ...string) (certPEM, keyPEM []byte, serial int64) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca.serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial), Subject: pkix.Name{CommonName: names[0]},
		NotBefore: time.Now().Add(-2 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), ca.serial
}

// writeFileAtomic puts data at path as a renewal does: a new file renamed
// over the old.
func writeFileAtomic(t *testing.T, path string, data []byte) {
	t.Helper()
	tmp := path + ".new"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// freeAddr is a free port of 127.0.0.1.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// port is the port of a host:port.
func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// httpsClient trusts the PEM roots alone and dials every name at
// 127.0.0.1, keeping the port; it opens a new connection, and so a new
// handshake, for each request and never follows redirects.
func httpsClient(t *testing.T, roots ...[]byte) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	for _, r := range roots {
		if !pool.AppendCertsFromPEM(r) {
			t.Fatal("no root in the PEM")
		}
	}
	var d net.Dialer
	return &http.Client{
		Timeout: 10 * time.Second,
		Transport: &http.Transport{
			TLSClientConfig:   &tls.Config{RootCAs: pool},
			DisableKeepAlives: true,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port(addr)))
			},
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// httpsServer is the real server run with HTTPS by a test.
type httpsServer struct {
	base, plain string // https://insectscore.test:PORT and http://insectscore.test:PORT
	done        chan error
	log         *syncBuffer
	client      *http.Client
	stopped     bool
}

// startHTTPS runs insectscore serve with args on free ports of
// 127.0.0.1, https and plain http, and waits until it answers over
// https to client.
func startHTTPS(t *testing.T, client *http.Client, args ...string) *httpsServer {
	t.Helper()
	return startHTTPSOn(t, client, freeAddr(t), freeAddr(t), args...)
}

// startHTTPSOn is startHTTPS on the given addresses.
func startHTTPSOn(t *testing.T, client *http.Client, tlsAddr, httpAddr string, args ...string) *httpsServer {
	t.Helper()
	s := &httpsServer{base: "https://" + testName + ":" + port(tlsAddr), plain: "http://" + testName + ":" + port(httpAddr),
		done: make(chan error, 1), log: &syncBuffer{}, client: client}
	args = append([]string{"serve", "-tls-addr", tlsAddr, "-http-addr", httpAddr, "-log-level", "debug"}, args...)
	go func() { s.done <- run(args, func(string) string { return "" }, io.Discard, s.log) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case err := <-s.done:
			t.Fatalf("serve stopped: %v; its log:\n%s", err, s.log)
		default:
		}
		resp, err := client.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 && strings.Contains(s.log.String(), "msg=listening") {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer over https within 60 s (%v); the log:\n%s", err, s.log)
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Cleanup(func() { s.stop(t) })
	return s
}

// stop stops the server with SIGTERM, once.
func (s *httpsServer) stop(t *testing.T) {
	t.Helper()
	if s.stopped {
		return
	}
	s.stopped = true
	if err := (&testServer{done: s.done, log: s.log}).stop(t, 10*time.Second); err != nil {
		t.Errorf("serve returned %v after SIGTERM", err)
	}
}

// servedSerial is the serial number of the certificate a new handshake
// gets.
func (s *httpsServer) servedSerial(t *testing.T) int64 {
	t.Helper()
	resp, err := s.client.Get(s.base + "/healthz")
	if err != nil {
		t.Fatalf("https: %v; the log:\n%s", err, s.log)
	}
	resp.Body.Close()
	return resp.TLS.PeerCertificates[0].SerialNumber.Int64()
}

// TestHTTPSOwnCertificate serves the app with -tls-cert/-tls-key and
// checks what a phone gets: the app and /readyz over https with HSTS,
// join links and QR codes in https, plain http redirected, and the
// metrics still plain on their own port.
func TestHTTPSOwnCertificate(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	certPEM, keyPEM, _ := ca.issue(t, time.Now().Add(time.Hour), testName, "127.0.0.1")
	certFile, keyFile := filepath.Join(dir, "fullchain.pem"), filepath.Join(dir, "privkey.pem")
	writeFileAtomic(t, certFile, certPEM)
	writeFileAtomic(t, keyFile, keyPEM)
	metricsAddr := freeAddr(t)
	c := httpsClient(t, ca.pem)
	s := startHTTPS(t, c, "-db", filepath.Join(dir, "db", "insectscore.db"), "-tls-cert", certFile, "-tls-key", keyFile, "-metrics-addr", metricsAddr)

	for _, path := range []string{"/readyz", "/", "/api/v1/games"} {
		resp, err := c.Get(s.base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET %s over https: %d, want 200", path, resp.StatusCode)
		}
		if got, want := resp.Header.Get("Strict-Transport-Security"), "max-age=31536000"; got != want {
			t.Errorf("GET %s: Strict-Transport-Security %q, want %q", path, got, want)
		}
	}

	// A table made over https hands out https links, in its answer and its
	// QR code; the host's name stays, as the phones reach it by that name.
	resp, err := c.Post(s.base+"/api/v1/tables", "application/json", strings.NewReader(`{"game":"insecta","players":["Ana","Ben"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var table struct{ Code, JoinURL string }
	err = json.NewDecoder(resp.Body).Decode(&table)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("create table over https: %d %v", resp.StatusCode, err)
	}
	if want := s.base + "/t/" + table.Code; table.JoinURL != want {
		t.Errorf("joinUrl %q, want %q", table.JoinURL, want)
	}
	resp, err = c.Get(s.base + "/api/v1/tables/" + table.Code + "/qr.png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(resp.Body)
	resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := qrtest.Decode(t, img), s.base+"/t/"+table.Code; got != want {
		t.Errorf("the QR code says %q, want %q", got, want)
	}

	// Plain http only redirects, to the same path and query over https:
	// 301 for a page, 308 for a write, which keeps its method and body.
	for _, tt := range []struct {
		method, path string
		want         int
	}{
		{"GET", "/t/" + table.Code + "?lang=de", http.StatusMovedPermanently},
		{"HEAD", "/readyz", http.StatusMovedPermanently},
		{"POST", "/api/v1/tables", http.StatusPermanentRedirect},
	} {
		req, _ := http.NewRequest(tt.method, s.plain+tt.path, strings.NewReader("{}"))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got, want := resp.Header.Get("Location"), s.base+tt.path; resp.StatusCode != tt.want || got != want {
			t.Errorf("%s %s over http: %d to %q, want %d to %q", tt.method, tt.path, resp.StatusCode, got, tt.want, want)
		}
		if resp.Header.Get("Strict-Transport-Security") != "" {
			t.Errorf("%s %s over http has HSTS; browsers take it over https only", tt.method, tt.path)
		}
	}
	// The https port speaks no plain http.
	if resp, err := http.Get("http://127.0.0.1:" + port(strings.TrimPrefix(s.base, "https://")) + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == 200 {
			t.Error("the https port answers plain http with the app")
		}
	}
	// The metrics stay plain, on their own address.
	if body := get(t, "http://"+metricsAddr+"/metrics", 200); !strings.Contains(body, "insectscore_http_requests_total") {
		t.Error("/metrics over plain http lacks the request counter")
	}
}

// TestHTTPSPlainByDefault checks that without any HTTPS setting nothing
// changes: plain http on -addr, no HSTS, http links.
func TestHTTPSPlainByDefault(t *testing.T) {
	s := startServer(t, "-db", filepath.Join(t.TempDir(), "insectscore.db"), "-log-level", "error")
	defer s.stop(t, 10*time.Second)
	resp, err := http.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") != "" {
		t.Errorf("plain http: %d, HSTS %q; want 200 and none", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
	}
}

// TestHTTPSReloadsChangedFiles replaces the certificate files while the
// server runs, as certbot or acme.sh do on a renewal, and expects the next
// handshake to get the new certificate without a restart. Files that do
// not fit (a new certificate whose key is not there yet, or garbage) keep
// the old certificate, with the reason logged.
func TestHTTPSReloadsChangedFiles(t *testing.T) {
	defer func(d time.Duration) { certCheckEvery = d }(certCheckEvery)
	certCheckEvery = 100 * time.Millisecond
	dir := t.TempDir()
	ca := newTestCA(t)
	certPEM, keyPEM, first := ca.issue(t, time.Now().Add(time.Hour), testName)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeFileAtomic(t, certFile, certPEM)
	writeFileAtomic(t, keyFile, keyPEM)
	s := startHTTPS(t, httpsClient(t, ca.pem), "-db", filepath.Join(dir, "insectscore.db"), "-tls-cert", certFile, "-tls-key", keyFile)
	if got := s.servedSerial(t); got != first {
		t.Fatalf("serves serial %d, want %d", got, first)
	}

	// eventually waits up to within for the served certificate to be
	// want, and says whether it was.
	eventually := func(want int64, within time.Duration) bool {
		for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if s.servedSerial(t) == want {
				return true
			}
		}
		return false
	}

	// The renewal writes the certificate first: its key is not there yet.
	certPEM, keyPEM, second := ca.issue(t, time.Now().Add(2*time.Hour), testName)
	writeFileAtomic(t, certFile, certPEM)
	if eventually(second, 10*certCheckEvery) {
		t.Fatal("a certificate whose key is not there yet was served")
	}
	if !strings.Contains(s.log.String(), "does not belong to the certificate") {
		t.Errorf("the failed reload was not logged with its reason; the log:\n%s", s.log)
	}
	if got := s.servedSerial(t); got != first {
		t.Fatalf("after a failed reload: serial %d, want the old %d", got, first)
	}
	// Then the key: the pair is read, without a restart.
	writeFileAtomic(t, keyFile, keyPEM)
	if !eventually(second, 5*time.Second) {
		t.Fatalf("the renewed certificate %d was not served; the log:\n%s", second, s.log)
	}

	// Garbage keeps the certificate there is.
	writeFileAtomic(t, certFile, []byte("not a certificate\n"))
	time.Sleep(3 * certCheckEvery)
	if got := s.servedSerial(t); got != second {
		t.Errorf("after garbage: serial %d, want %d", got, second)
	}
	if !strings.Contains(s.log.String(), "holds no PEM certificate") {
		t.Errorf("the garbage was not logged; the log:\n%s", s.log)
	}
}

// TestHTTPSReloadsOnSIGHUP checks that SIGHUP reads the files again even
// when the server would not look at them for a long while.
func TestHTTPSReloadsOnSIGHUP(t *testing.T) {
	defer func(d time.Duration) { certCheckEvery = d }(certCheckEvery)
	certCheckEvery = time.Hour
	dir := t.TempDir()
	ca := newTestCA(t)
	certPEM, keyPEM, first := ca.issue(t, time.Now().Add(time.Hour), testName)
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeFileAtomic(t, certFile, certPEM)
	writeFileAtomic(t, keyFile, keyPEM)
	s := startHTTPS(t, httpsClient(t, ca.pem), "-db", filepath.Join(dir, "insectscore.db"), "-tls-cert", certFile, "-tls-key", keyFile)

	certPEM, keyPEM, second := ca.issue(t, time.Now().Add(2*time.Hour), testName)
	writeFileAtomic(t, keyFile, keyPEM)
	writeFileAtomic(t, certFile, certPEM)
	if got := s.servedSerial(t); got != first {
		t.Fatalf("before SIGHUP: serial %d, want the first, %d (the test needs the server not to look yet)", got, first)
	}
	if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); s.servedSerial(t) != second; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after SIGHUP the new certificate was not served; the log:\n%s", s.log)
		}
	}
	if !strings.Contains(s.log.String(), "SIGHUP") {
		t.Errorf("the SIGHUP was not logged; the log:\n%s", s.log)
	}
}

// TestHTTPSStartRefusals starts the server with HTTPS settings it must
// refuse, and expects an error that says what to do, before it serves.
func TestHTTPSStartRefusals(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	write := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	certPEM, keyPEM, _ := ca.issue(t, time.Now().Add(time.Hour), testName)
	_, otherKey, _ := ca.issue(t, time.Now().Add(time.Hour), testName)
	oldCert, oldKey, _ := ca.issue(t, time.Now().Add(-time.Hour), testName)
	cert, key := write("cert.pem", certPEM), write("key.pem", keyPEM)
	other := write("other-key.pem", otherKey)
	expired, expiredKey := write("old.pem", oldCert), write("old-key.pem", oldKey)
	garbage := write("garbage.pem", []byte("hello\n"))
	notDir := write("file", nil)
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	db := filepath.Join(dir, "insectscore.db")
	own := []string{"-tls-cert", cert, "-tls-key", key}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"both ways", []string{"-tls-domain", testName, "-tls-cert", cert, "-tls-key", key}, "not both"},
		{"cert without key", []string{"-tls-cert", cert}, "without -tls-key"},
		{"key without cert", []string{"-tls-key", key}, "without -tls-cert"},
		{"no cert file", []string{"-tls-cert", filepath.Join(dir, "nope.pem"), "-tls-key", key}, "there is no certificate file"},
		{"no key file", []string{"-tls-cert", cert, "-tls-key", filepath.Join(dir, "nope.pem")}, "there is no key file"},
		{"cert is a directory", []string{"-tls-cert", dir, "-tls-key", key}, "is a directory"},
		{"cert not PEM", []string{"-tls-cert", garbage, "-tls-key", key}, "holds no PEM certificate"},
		{"key not PEM", []string{"-tls-cert", cert, "-tls-key", garbage}, "holds no PEM private key"},
		{"key is the cert", []string{"-tls-cert", cert, "-tls-key", cert}, "holds no PEM private key"},
		{"mismatched key", []string{"-tls-cert", cert, "-tls-key", other}, "does not belong to the certificate"},
		{"expired", []string{"-tls-cert", expired, "-tls-key", expiredKey}, "expired on"},
		{"-addr with https", append([]string{"-addr", ":9999"}, own...), "-addr (INSECTSCORE_ADDR) :9999 is for plain http alone"},
		{"http base URL", append([]string{"-base-url", "http://scores.example"}, own...), "is http, and HTTPS is on"},
		{"https setting without https", []string{"-tls-addr", ":8443"}, "HTTPS is off"},
		{"ACME setting with own cert", append([]string{"-acme-directory", "https://ca.example/dir"}, own...), "drop it"},
		{"IP as domain", []string{"-tls-domain", "192.0.2.7"}, "it is an IP address"},
		{"wildcard", []string{"-tls-domain", "*.example.org"}, "dns-01"},
		{"URL as domain", []string{"-tls-domain", "https://scores.example.org"}, "the name alone"},
		{"one label", []string{"-tls-domain", "scores"}, "not a full domain name"},
		{"no domain", []string{"-tls-domain", " , "}, "names no domain"},
		{"http directory", []string{"-tls-domain", testName, "-acme-directory", "http://127.0.0.1:1/dir"}, "give the https:// URL"},
		{"no ACME CA file", []string{"-tls-domain", testName, "-acme-ca", filepath.Join(dir, "nope.pem")}, "-acme-ca, INSECTSCORE_ACME_CA"},
		{"ACME CA not PEM", []string{"-tls-domain", testName, "-acme-ca", garbage}, "holds no PEM certificate"},
		{"cache not a directory", []string{"-tls-domain", testName, "-tls-cache", filepath.Join(notDir, "certs")}, "cannot create the certificate cache"},
		{"https port busy", append([]string{"-tls-addr", busy.Addr().String(), "-http-addr", "off"}, own...), "address already in use"},
		{"http port busy", append([]string{"-tls-addr", "127.0.0.1:0", "-http-addr", busy.Addr().String()}, own...), "-http-addr, INSECTSCORE_HTTP_ADDR; off for none"},
		// No CA answers: the start fails with the names and ports to check.
		{"no certificate", []string{"-tls-domain", testName, "-acme-directory", "https://" + freeAddr(t) + "/dir",
			"-tls-addr", "127.0.0.1:0", "-http-addr", "127.0.0.1:0", "-tls-cache", filepath.Join(dir, "certs")},
			"could not get a certificate for insectscore.test: the ACME CA at https://127.0.0.1:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			log := &syncBuffer{}
			args := append([]string{"serve", "-db", db}, tt.args...)
			err := run(args, func(string) string { return "" }, io.Discard, log)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("insectscore %q: %v, want an error with %q; the log:\n%s", tt.args, err, tt.want, log)
			}
			if strings.Contains(log.String(), "msg=listening") {
				t.Errorf("it logged listening before refusing:\n%s", log)
			}
		})
	}
}

// TestHTTPSPrivilegedPort binds :443 as a user without the privilege
// and expects the way out in the message: setcap, or a higher port. As
// root the server runs as a child with the uid of nobody.
func TestHTTPSPrivilegedPort(t *testing.T) {
	// The message, for an error as the system gives it.
	err := listenError(":443", "-tls-addr, INSECTSCORE_TLS_ADDR", &net.OpError{Op: "listen", Net: "tcp", Err: os.NewSyscallError("bind", syscall.EACCES)})
	for _, want := range []string{"sudo setcap cap_net_bind_service=+ep $(which insectscore)", ":8443", "forward port 443"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%v\nlacks %q", err, want)
		}
	}
	if !errors.Is(err, syscall.EACCES) {
		t.Error("the error does not wrap EACCES")
	}

	// And for real, from the binary.
	dir := t.TempDir()
	ca := newTestCA(t)
	certPEM, keyPEM, _ := ca.issue(t, time.Now().Add(time.Hour), testName)
	for name, data := range map[string][]byte{"cert.pem": certPEM, "key.pem": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := startUnprivileged(t, dir, "-db", filepath.Join(dir, "insectscore.db"), "-tls-cert", filepath.Join(dir, "cert.pem"),
		"-tls-key", filepath.Join(dir, "key.pem"), "-tls-addr", "127.0.0.1:443", "-http-addr", "off")
	if code := c.wait(t, 20*time.Second); code != 1 {
		if strings.Contains(c.stderr.String(), "msg=listening") {
			t.Skip("this system lets anyone bind port 443 (net.ipv4.ip_unprivileged_port_start)")
		}
		t.Fatalf("exit code %d, want 1; it wrote:\n%s", code, c.stderr)
	}
	if !strings.Contains(c.stderr.String(), "setcap cap_net_bind_service=+ep") {
		t.Errorf("the refusal does not say how to allow the port:\n%s", c.stderr)
	}
}

// TestHTTPSUnreadableKey gives a key file the server's user cannot read,
// as certbot's are to anyone but root.
func TestHTTPSUnreadableKey(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	certPEM, keyPEM, _ := ca.issue(t, time.Now().Add(time.Hour), testName)
	if err := os.WriteFile(filepath.Join(dir, "cert.pem"), certPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "key.pem"), keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() != 0 {
		if err := os.Chmod(filepath.Join(dir, "key.pem"), 0); err != nil {
			t.Fatal(err)
		}
	}
	c := startUnprivileged(t, dir, "-db", filepath.Join(dir, "insectscore.db"), "-tls-cert", filepath.Join(dir, "cert.pem"),
		"-tls-key", filepath.Join(dir, "key.pem"), "-tls-addr", "127.0.0.1:0", "-http-addr", "off")
	if code := c.wait(t, 20*time.Second); code != 1 {
		t.Fatalf("exit code %d, want 1; it wrote:\n%s", code, c.stderr)
	}
	if !strings.Contains(c.stderr.String(), "cannot be read by the user the server runs as") {
		t.Errorf("the refusal does not say who cannot read the key:\n%s", c.stderr)
	}
}

// startUnprivileged runs insectscore as a child without privileges: as
// itself, or as root with the uid and gid of nobody, from a copy of the
// test binary that nobody may run, in dir, which nobody may write.
func startUnprivileged(t *testing.T, dir string, args ...string) *child {
	t.Helper()
	if os.Geteuid() != 0 {
		return startMain(t, dir, nil, args...)
	}
	const nobody = 65534
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	copyExe := filepath.Join(bin, "insectscore.test")
	if err := os.WriteFile(copyExe, data, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{bin, filepath.Dir(bin), dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	c := startMainWith(t, copyExe, dir, &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}, nil, args...)
	return c
}

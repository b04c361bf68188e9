package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/crypto/acme"
	"golang.org/x/crypto/acme/autocert"
)

// HTTPS. A phone that opens the app at a LAN address over plain http gets
// no service worker, no install and no offline reload: browsers keep those
// for secure origins. The server serves HTTPS itself in one of two ways:
//
//   - -tls-domain: certificates from an ACME CA (Let's Encrypt by default)
//     through golang.org/x/crypto/acme/autocert, validated over :80
//     (http-01) or :443 (tls-alpn-01), renewed by the server;
//   - -tls-cert and -tls-key: the host's own PEM files, read again when
//     they change and on SIGHUP, so a renewal by certbot, acme.sh or Caddy
//     needs no restart.
//
// Either way the app answers on -tls-addr (:443) and plain http on
// -http-addr (:80) only redirects there (and answers ACME's http-01).

const (
	defaultAddr     = ":8080"
	defaultTLSAddr  = ":443"
	defaultHTTPAddr = ":80"
	// httpOff is the -http-addr that serves no plain http at all.
	httpOff = "off"
)

// errStopped is a start stopped by SIGINT or SIGTERM while it waited for
// the ACME CA: not a failure.
var errStopped = errors.New("stopped before serving")

// certCheckEvery is how often a handshake looks whether -tls-cert or
// -tls-key changed on disk: a stat of each, at most this often.
var certCheckEvery = time.Second

// obtainTimeout bounds getting the first certificates from the ACME CA
// at start.
var obtainTimeout = 3 * time.Minute

// tlsServer is how the server serves HTTPS: its tls.Config, and what the
// plain http listener answers.
type tlsServer struct {
	addr, httpAddr string
	config         *tls.Config
	// files is the host's own certificate (-tls-cert); manager the ACME
	// one (-tls-domain), with its names.
	files   *certFiles
	manager *autocert.Manager
	domains []string
	// problems keeps what the CA said of failed challenges.
	problems *acmeProblems
	acmeURL  string
	cache    string
}

// tlsOn says whether cfg asks for HTTPS.
func tlsOn(cfg config) bool {
	return cfg.TLSDomain != "" || cfg.TLSCert != "" || cfg.TLSKey != ""
}

// newTLS checks the HTTPS settings and loads the certificate or sets up
// the ACME client; nil when HTTPS is off. Every refusal says how to fix
// it.
func newTLS(cfg config) (*tlsServer, error) {
	if !tlsOn(cfg) {
		for _, s := range []struct{ flag, value string }{
			{"-tls-addr (INSECTSCORE_TLS_ADDR)", cfg.TLSAddr}, {"-http-addr (INSECTSCORE_HTTP_ADDR)", cfg.HTTPAddr},
			{"-tls-cache (INSECTSCORE_TLS_CACHE)", cfg.TLSCache}, {"-acme-directory (INSECTSCORE_ACME_DIRECTORY)", cfg.ACMEDirectory},
			{"-acme-email (INSECTSCORE_ACME_EMAIL)", cfg.ACMEEmail}, {"-acme-ca (INSECTSCORE_ACME_CA)", cfg.ACMECA},
		} {
			if s.value != "" {
				return nil, fmt.Errorf("%s is an HTTPS setting, and HTTPS is off: add -tls-domain NAME for a certificate from Let's Encrypt, or -tls-cert and -tls-key for your own, or drop it", s.flag)
			}
		}
		return nil, nil
	}
	own := cfg.TLSCert != "" || cfg.TLSKey != ""
	switch {
	case cfg.TLSDomain != "" && own:
		return nil, errors.New("-tls-domain (INSECTSCORE_TLS_DOMAIN) and -tls-cert/-tls-key (INSECTSCORE_TLS_CERT/_KEY) are both given: use -tls-domain for certificates the server gets from an ACME CA itself, or -tls-cert and -tls-key for a certificate you get yourself, not both")
	case own && cfg.TLSCert == "":
		return nil, errors.New("-tls-key (INSECTSCORE_TLS_KEY) is given without -tls-cert (INSECTSCORE_TLS_CERT): give the certificate file too, the full chain in PEM (certbot: /etc/letsencrypt/live/NAME/fullchain.pem)")
	case own && cfg.TLSKey == "":
		return nil, errors.New("-tls-cert (INSECTSCORE_TLS_CERT) is given without -tls-key (INSECTSCORE_TLS_KEY): give the certificate's private key file too, in PEM (certbot: /etc/letsencrypt/live/NAME/privkey.pem)")
	case cfg.Addr != defaultAddr:
		return nil, fmt.Errorf("-addr (INSECTSCORE_ADDR) %s is for plain http alone: with HTTPS on, the app listens on -tls-addr (default %s) and plain http on -http-addr (default %s) only redirects there; set those, and drop -addr", cfg.Addr, defaultTLSAddr, defaultHTTPAddr)
	case strings.HasPrefix(cfg.BaseURL, "http://"):
		return nil, fmt.Errorf("base URL %s (-base-url, INSECTSCORE_BASE_URL) is http, and HTTPS is on: links and QR codes would send phones to plain http; give the https:// origin", cfg.BaseURL)
	}
	t := &tlsServer{addr: cfg.TLSAddr, httpAddr: cfg.HTTPAddr}
	if t.addr == "" {
		t.addr = defaultTLSAddr
	}
	if t.httpAddr == "" {
		t.httpAddr = defaultHTTPAddr
	}
	t.config = &tls.Config{MinVersion: tls.VersionTLS12, NextProtos: []string{"http/1.1"}}
	if own {
		for _, s := range []struct{ flag, value string }{
			{"-tls-cache (INSECTSCORE_TLS_CACHE)", cfg.TLSCache}, {"-acme-directory (INSECTSCORE_ACME_DIRECTORY)", cfg.ACMEDirectory},
			{"-acme-email (INSECTSCORE_ACME_EMAIL)", cfg.ACMEEmail}, {"-acme-ca (INSECTSCORE_ACME_CA)", cfg.ACMECA},
		} {
			if s.value != "" {
				return nil, fmt.Errorf("%s is a setting of the certificates the server gets itself (-tls-domain), and -tls-cert names your own: drop it", s.flag)
			}
		}
		files, err := loadCertFiles(cfg.TLSCert, cfg.TLSKey, time.Now)
		if err != nil {
			return nil, err
		}
		t.files = files
		t.config.GetCertificate = files.GetCertificate
		return t, nil
	}
	if err := t.setupACME(cfg); err != nil {
		return nil, err
	}
	return t, nil
}

// setupACME makes the autocert manager of -tls-domain.
func (t *tlsServer) setupACME(cfg config) error {
	domains, err := tlsDomains(cfg.TLSDomain)
	if err != nil {
		return err
	}
	t.domains = domains
	t.acmeURL = cfg.ACMEDirectory
	if t.acmeURL == "" {
		t.acmeURL = autocert.DefaultACMEDirectory
	}
	if u, err := url.Parse(t.acmeURL); err != nil || u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("ACME directory %q (-acme-directory, INSECTSCORE_ACME_DIRECTORY): give the https:// URL of the CA's directory, like %s (Let's Encrypt) or https://acme-staging-v02.api.letsencrypt.org/directory (its staging CA, for trying out)", t.acmeURL, autocert.DefaultACMEDirectory)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.ACMECA != "" {
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		data, err := os.ReadFile(cfg.ACMECA)
		if err != nil {
			return fmt.Errorf("ACME CA certificate %s (-acme-ca, INSECTSCORE_ACME_CA): %v: give the PEM file of the root that signed your CA's https certificate", cfg.ACMECA, unwrapPath(err))
		}
		if !pool.AppendCertsFromPEM(data) {
			return fmt.Errorf("ACME CA certificate %s (-acme-ca, INSECTSCORE_ACME_CA) holds no PEM certificate (-----BEGIN CERTIFICATE-----)", cfg.ACMECA)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: pool}
	}
	cache, err := certCache(cfg)
	if err != nil {
		return err
	}
	t.problems = &acmeProblems{next: transport}
	names := make(map[string]bool, len(domains))
	for _, d := range domains {
		names[d] = true
	}
	t.manager = &autocert.Manager{
		Prompt: autocert.AcceptTOS,
		Cache:  autocert.DirCache(cache),
		// The CA asks for http-01 on port 80, so the Host it sends has no
		// port; a test CA's has one.
		HostPolicy: func(_ context.Context, host string) error {
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			if !names[strings.ToLower(strings.TrimSuffix(host, "."))] {
				return fmt.Errorf("acme/autocert: host %q is not one of -tls-domain", host)
			}
			return nil
		},
		Email: cfg.ACMEEmail,
		Client: &acme.Client{
			DirectoryURL: t.acmeURL,
			UserAgent:    "insectscore",
			HTTPClient:   &http.Client{Transport: t.problems, Timeout: time.Minute},
		},
	}
	t.config.NextProtos = append(t.config.NextProtos, acme.ALPNProto) // tls-alpn-01
	t.config.GetCertificate = t.manager.GetCertificate
	t.cache = cache
	return nil
}

// tlsDomains splits and checks -tls-domain: names an ACME CA can issue
// for over http-01 or tls-alpn-01.
func tlsDomains(list string) ([]string, error) {
	var out []string
	for _, d := range strings.Split(list, ",") {
		d = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(d), "."))
		if d == "" {
			continue
		}
		problem := ""
		switch {
		case net.ParseIP(strings.Trim(d, "[]")) != nil:
			problem = "it is an IP address, and CAs certify names: give a domain name that resolves to this server, or use -tls-cert/-tls-key"
		case strings.Contains(d, "*"):
			problem = "a wildcard needs the dns-01 challenge, which the built-in ACME client does not do: get it with certbot or acme.sh and a DNS plugin, and give it with -tls-cert/-tls-key"
		case strings.Contains(d, "://") || strings.ContainsAny(d, "/:"):
			problem = "give the name alone, like scores.example.org, without scheme, port or path"
		case !strings.Contains(d, ".") || !validName(d):
			problem = "it is not a full domain name like scores.example.org"
		}
		if problem != "" {
			return nil, fmt.Errorf("-tls-domain (INSECTSCORE_TLS_DOMAIN) %q: %s", d, problem)
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil, errors.New("-tls-domain (INSECTSCORE_TLS_DOMAIN) names no domain: give one or more, comma-separated, like scores.example.org")
	}
	return out, nil
}

// validName says whether s is a DNS name of letters, digits and hyphens
// (punycode for others).
func validName(s string) bool {
	for _, label := range strings.Split(s, ".") {
		if label == "" || len(label) > 63 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return false
			}
		}
	}
	return len(s) <= 253
}

// certCache is the directory the ACME account key and certificates are
// kept in: -tls-cache, or certs/ beside the SQLite file, or the user's
// cache directory with PostgreSQL. It is made readable by its owner only:
// it holds private keys.
func certCache(cfg config) (string, error) {
	dir := cfg.TLSCache
	if dir == "" {
		path, _, _ := strings.Cut(cfg.DB, "?")
		if isPostgres(cfg.DB) || path == ":memory:" || strings.HasPrefix(path, "file:") {
			base, err := os.UserCacheDir()
			if err != nil {
				return "", fmt.Errorf("no directory for the certificates (%v): give one with -tls-cache (INSECTSCORE_TLS_CACHE)", err)
			}
			dir = filepath.Join(base, "insectscore", "certs")
		} else {
			dir = filepath.Join(filepath.Dir(path), "certs")
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cannot create the certificate cache %s (-tls-cache, INSECTSCORE_TLS_CACHE): %v: give a directory the server may write", dir, unwrapPath(err))
	}
	probe, err := os.CreateTemp(dir, ".insectscore-write-check-*")
	if err != nil {
		return "", fmt.Errorf("the certificate cache %s (-tls-cache, INSECTSCORE_TLS_CACHE) is not writable (%v): the server keeps its ACME account and certificates there; give the user it runs as write access, or another directory", dir, unwrapPath(err))
	}
	probe.Close()
	os.Remove(probe.Name())
	return dir, nil
}

// obtain gets a certificate for each -tls-domain at start, from the cache
// or the CA, so that a name that does not reach this server is an error
// at start rather than a failed handshake on a phone later.
func (t *tlsServer) obtain(ctx context.Context) error {
	if t.manager == nil {
		return nil
	}
	for _, d := range t.domains {
		done := make(chan error, 1)
		go func() {
			_, err := t.manager.GetCertificate(&tls.ClientHelloInfo{
				ServerName: d, SignatureSchemes: []tls.SignatureScheme{tls.ECDSAWithP256AndSHA256},
				SupportedCurves: []tls.CurveID{tls.CurveP256}, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256},
			})
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(obtainTimeout):
			err = fmt.Errorf("no answer within %s", obtainTimeout)
		case <-ctx.Done():
			return ctx.Err()
		}
		if ue := (*url.Error)(nil); err != nil && t.problems.last() == "" && errors.As(err, &ue) {
			return fmt.Errorf("could not get a certificate for %s: the ACME CA at %s does not answer (%v): check -acme-directory and that this server reaches the internet", d, t.acmeURL, ue.Err)
		}
		if err != nil {
			reason := err.Error()
			if p := t.problems.last(); p != "" {
				reason = p
			}
			return fmt.Errorf("could not get a certificate for %s from the ACME CA at %s: %s. "+
				"The CA checks that it reaches this server at %s, on port 80 (http-01, -http-addr) or 443 (tls-alpn-01, -tls-addr): "+
				"make %s resolve to this server's public address, open or forward both ports to it, and try again. "+
				"A server only reachable in your LAN cannot pass: get a certificate by the DNS challenge (certbot or acme.sh with your DNS provider's plugin) and give it with -tls-cert/-tls-key",
				d, t.acmeURL, reason, d, d)
		}
	}
	return nil
}

// acmeProblems is the ACME client's transport: it keeps the last error the
// CA gave for a challenge, which autocert reports only as "no viable
// challenge type found".
type acmeProblems struct {
	next http.RoundTripper
	mu   sync.Mutex
	msg  string
}

func (p *acmeProblems) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := p.next.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	var z struct {
		Type       string `json:"type"`
		Error      *struct{ Detail string }
		Challenges []struct {
			Type  string
			Error *struct{ Detail string }
		}
	}
	if json.Unmarshal(body, &z) == nil {
		var msgs []string
		if z.Error != nil && z.Error.Detail != "" && z.Type != "" {
			msgs = append(msgs, z.Type+": "+z.Error.Detail)
		}
		for _, c := range z.Challenges {
			if c.Error != nil && c.Error.Detail != "" {
				msgs = append(msgs, c.Type+": "+c.Error.Detail)
			}
		}
		if len(msgs) > 0 {
			p.mu.Lock()
			p.msg = "the CA said " + strings.Join(msgs, "; ")
			p.mu.Unlock()
		}
	}
	return resp, nil
}

func (p *acmeProblems) last() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.msg
}

// certFiles is the host's own certificate, read again when its files
// change.
type certFiles struct {
	certPath, keyPath string
	log               *slog.Logger
	now               func() time.Time
	every             time.Duration // certCheckEvery when read

	mu      sync.Mutex
	cert    *tls.Certificate
	seen    fileState // of the files when last read, or tried
	checked time.Time
}

// fileState tells whether a file changed: renewals write new files
// (certbot points its live/ links at them) or rewrite the old ones.
type fileState struct{ cert, key os.FileInfo }

func statFiles(certPath, keyPath string) fileState {
	var s fileState
	s.cert, _ = os.Stat(certPath)
	s.key, _ = os.Stat(keyPath)
	return s
}

func (s fileState) same(o fileState) bool {
	same := func(a, b os.FileInfo) bool {
		if a == nil || b == nil {
			return a == nil && b == nil
		}
		return os.SameFile(a, b) && a.ModTime().Equal(b.ModTime()) && a.Size() == b.Size()
	}
	return same(s.cert, o.cert) && same(s.key, o.key)
}

// loadCertFiles reads -tls-cert and -tls-key at start; it logs to the
// default logger until start sets the server's.
func loadCertFiles(certPath, keyPath string, now func() time.Time) (*certFiles, error) {
	f := &certFiles{certPath: certPath, keyPath: keyPath, log: slog.Default(), now: now, every: certCheckEvery}
	f.seen = statFiles(certPath, keyPath)
	cert, err := readKeyPair(certPath, keyPath, now())
	if err != nil {
		return nil, err
	}
	f.cert, f.checked = cert, now()
	return f, nil
}

// GetCertificate is the tls.Config's: the certificate last read, after a
// look whether the files changed when that was not done lately.
func (f *certFiles) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if now := f.now(); now.Sub(f.checked) >= f.every {
		f.checked = now
		f.reload(false)
	}
	return f.cert, nil
}

// Reload reads the files again whether they changed or not (SIGHUP).
func (f *certFiles) Reload() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.reload(true)
}

// reload reads the files if they changed since the last try, or always
// with force. A failure keeps the certificate there was and is logged
// once for each state of the files: a renewal that writes the
// certificate and then the key is read again once both are there.
func (f *certFiles) reload(force bool) error {
	state := statFiles(f.certPath, f.keyPath)
	if !force && state.same(f.seen) {
		return nil
	}
	f.seen = state
	cert, err := readKeyPair(f.certPath, f.keyPath, f.now())
	if err != nil {
		f.log.Error("https: the certificate files changed and could not be read; still serving the certificate read before", "err", err,
			"serving", certNames(f.cert.Leaf), "expires", f.cert.Leaf.NotAfter.Format(time.DateOnly))
		return err
	}
	f.cert = cert
	f.log.Info("https: read the certificate again", "names", certNames(cert.Leaf), "expires", cert.Leaf.NotAfter.Format(time.DateOnly))
	return nil
}

// readKeyPair reads a PEM certificate chain and its key, saying what is
// wrong in words that lead to the fix.
func readKeyPair(certPath, keyPath string, now time.Time) (*tls.Certificate, error) {
	certPEM, err := readPEMFile(certPath, "certificate", "-tls-cert, INSECTSCORE_TLS_CERT",
		"give the PEM certificate, the full chain (certbot: /etc/letsencrypt/live/NAME/fullchain.pem)")
	if err != nil {
		return nil, err
	}
	keyPEM, err := readPEMFile(keyPath, "key", "-tls-key, INSECTSCORE_TLS_KEY",
		"give the certificate's PEM private key (certbot: /etc/letsencrypt/live/NAME/privkey.pem)")
	if err != nil {
		return nil, err
	}
	if !hasPEM(certPEM, func(t string) bool { return t == "CERTIFICATE" }) {
		return nil, fmt.Errorf("the certificate file %s (-tls-cert, INSECTSCORE_TLS_CERT) holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the full chain file (certbot: fullchain.pem)", certPath)
	}
	if !hasPEM(keyPEM, func(t string) bool { return strings.HasSuffix(t, "PRIVATE KEY") }) {
		return nil, fmt.Errorf("the key file %s (-tls-key, INSECTSCORE_TLS_KEY) holds no PEM private key (-----BEGIN … PRIVATE KEY-----): give the key the certificate was issued for (certbot: privkey.pem)", keyPath)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	switch {
	case err != nil && strings.Contains(err.Error(), "does not match"):
		return nil, fmt.Errorf("the key in %s (-tls-key) does not belong to the certificate in %s (-tls-cert): give the key the certificate was issued for; after a renewal, the new key with the new certificate (certbot keeps them side by side as privkey.pem and fullchain.pem)", keyPath, certPath)
	case err != nil:
		return nil, fmt.Errorf("the certificate %s and key %s (-tls-cert, -tls-key): %v", certPath, keyPath, err)
	}
	if cert.Leaf == nil { // filled in since Go 1.23
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("the certificate %s (-tls-cert): %v", certPath, err)
		}
	}
	if now.After(cert.Leaf.NotAfter) {
		return nil, fmt.Errorf("the certificate in %s (-tls-cert) expired on %s: renew it (certbot renew, acme.sh --renew) and give the new one", certPath, cert.Leaf.NotAfter.UTC().Format(time.DateOnly))
	}
	return &cert, nil
}

// readPEMFile reads a certificate or key file, naming the flag and the
// fix when it cannot.
func readPEMFile(path, what, flag, fix string) ([]byte, error) {
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		return data, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("there is no %s file %s (%s): %s", what, path, flag, fix)
	case errors.Is(err, fs.ErrPermission):
		return nil, fmt.Errorf("the %s file %s (%s) cannot be read by the user the server runs as (%v): give that user read access (e.g. a group that may read it; certbot's live/ and archive/ directories are root's alone), or have the renewal copy it where that user can read it", what, path, flag, unwrapPath(err))
	default:
		return nil, fmt.Errorf("the %s file %s (%s): %v", what, path, flag, unwrapPath(err))
	}
}

func hasPEM(data []byte, want func(string) bool) bool {
	for {
		var b *pem.Block
		b, data = pem.Decode(data)
		if b == nil {
			return false
		}
		if want(b.Type) {
			return true
		}
	}
}

func certNames(c *x509.Certificate) string {
	names := append([]string{}, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 {
		names = append(names, c.Subject.CommonName)
	}
	return strings.Join(names, ",")
}

// redirect answers plain http with a redirect to the same path and query
// over https: 301 for GET and HEAD, 308 (which keeps the method and body)
// for the rest. The target is the base URL, or the name the request came
// to with the https port.
func redirect(base, tlsPort string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		target := base
		if target == "" {
			host := r.Host
			if h, _, err := net.SplitHostPort(host); err == nil {
				host = h
			}
			host = strings.Trim(host, "[]")
			if host == "" {
				http.Error(w, "use https", http.StatusBadRequest)
				return
			}
			if tlsPort != "443" {
				host = net.JoinHostPort(host, tlsPort)
			} else if strings.Contains(host, ":") {
				host = "[" + host + "]"
			}
			target = "https://" + host
		}
		code := http.StatusPermanentRedirect
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			code = http.StatusMovedPermanently
		}
		w.Header().Set("Location", target+r.URL.RequestURI())
		w.WriteHeader(code)
	})
}

// listen binds addr, and says how to get a port below 1024 when the
// system refuses it.
func listen(addr, flag string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, listenError(addr, flag, err)
	}
	return ln, nil
}

func listenError(addr, flag string, err error) error {
	if errors.Is(err, syscall.EACCES) || errors.Is(err, fs.ErrPermission) {
		_, port, _ := net.SplitHostPort(addr)
		higher := map[string]string{"443": ":8443", "80": ":8080"}[port]
		if higher == "" {
			higher = "one above 1023"
		}
		return fmt.Errorf("listen on %s (%s): %w: ports below 1024 need privileges; allow this binary to bind them with "+
			"sudo setcap cap_net_bind_service=+ep $(which insectscore) (again after each update of the binary), "+
			"or under systemd AmbientCapabilities=CAP_NET_BIND_SERVICE, "+
			"or listen on a higher port (%s) and forward port %s to it in the firewall or router", addr, flag, err, higher, port)
	}
	return fmt.Errorf("listen on %s (%s): %w", addr, flag, err)
}

// listeners binds the https and plain http addresses.
func (t *tlsServer) listen() (tlsLn, httpLn net.Listener, err error) {
	tlsLn, err = listen(t.addr, "-tls-addr, INSECTSCORE_TLS_ADDR")
	if err != nil {
		return nil, nil, err
	}
	if t.httpAddr != httpOff {
		httpLn, err = listen(t.httpAddr, "-http-addr, INSECTSCORE_HTTP_ADDR; off for none")
		if err != nil {
			tlsLn.Close()
			return nil, nil, err
		}
	}
	return tls.NewListener(tlsLn, t.config), httpLn, nil
}

// httpServer is the plain http listener's server: ACME's http-01
// challenges, and a redirect to https for everything else.
func (t *tlsServer) httpServer(base, tlsPort string) *http.Server {
	var h http.Handler = redirect(base, tlsPort)
	if t.manager != nil {
		h = t.manager.HTTPHandler(h)
	}
	return &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
}

// start serves plain http on plainLn, gets the first ACME certificates,
// and reads -tls-cert again on SIGHUP; stop ends what it started.
func (t *tlsServer) start(ctx context.Context, base string, ln, plainLn net.Listener, errc chan<- error, log *slog.Logger) (stop func(), err error) {
	var stops []func()
	stop = func() {
		for _, s := range stops {
			s()
		}
	}
	if plainLn != nil {
		_, port, _ := net.SplitHostPort(ln.Addr().String())
		srv := t.httpServer(base, port)
		go func() {
			if err := srv.Serve(plainLn); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("plain http on %s: %w", plainLn.Addr(), err)
			}
		}()
		stops = append(stops, func() { srv.Close() })
	}
	if t.files != nil {
		t.files.mu.Lock()
		t.files.log = log
		log.Info("https with the certificate of -tls-cert", "names", certNames(t.files.cert.Leaf),
			"expires", t.files.cert.Leaf.NotAfter.Format(time.DateOnly), "cert", t.files.certPath)
		t.files.mu.Unlock()
	} else {
		log.Info("https with certificates from an ACME CA", "domains", strings.Join(t.domains, ","), "directory", t.acmeURL, "cache", t.cache)
	}
	if err := t.obtain(ctx); err != nil {
		stop()
		if ctx.Err() != nil {
			return nil, errStopped
		}
		return nil, err
	}
	if t.files != nil {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-hup:
					log.Info("SIGHUP: reading the certificate files again")
					t.files.Reload()
				case <-done:
					return
				}
			}
		}()
		stops = append(stops, func() { signal.Stop(hup); close(done) })
	}
	return stop, nil
}

func addrOf(ln net.Listener) string {
	if ln == nil {
		return httpOff
	}
	return ln.Addr().String()
}

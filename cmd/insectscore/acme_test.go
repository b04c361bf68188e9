package main

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// ACME end to end: the server gets its certificate from Pebble, Let's
// Encrypt's test CA, run as the Go tool go.mod pins (go tool pebble).
// Pebble validates for real: it looks insectscore.test up in a DNS stub
// run by the test, which answers 127.0.0.1, and fetches the http-01
// token from the server's plain http listener. Its tls-alpn-01 port is
// one where nothing listens, so that challenge, which autocert tries
// first, fails and http-01 is the one that passes. All traffic stays on
// 127.0.0.1.

// pebbleBinary builds Pebble through the go command and returns its path.
func pebbleBinary(t *testing.T) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	out, err := exec.Command(goCmd, "tool", "-n", "pebble").Output()
	if err != nil {
		msg := ""
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			msg = string(ee.Stderr)
		}
		t.Fatalf("go tool -n pebble: %v %s", err, msg)
	}
	return strings.TrimSpace(string(out))
}

// startDNS answers A queries for names with 127.0.0.1, AAAA queries for
// them with nothing, and any other name with NXDOMAIN, over TCP on
// 127.0.0.1 (Pebble asks its -dnsserver over TCP); it returns its address.
func startDNS(t *testing.T, names ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				conn.SetDeadline(time.Now().Add(30 * time.Second))
				for {
					var size [2]byte
					if _, err := io.ReadFull(conn, size[:]); err != nil {
						return
					}
					msg := make([]byte, int(size[0])<<8|int(size[1]))
					if _, err := io.ReadFull(conn, msg); err != nil {
						return
					}
					out, err := dnsAnswer(msg, known)
					if err != nil {
						return
					}
					if _, err := conn.Write(append([]byte{byte(len(out) >> 8), byte(len(out))}, out...)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// dnsAnswer answers the DNS query msg.
func dnsAnswer(msg []byte, known map[string]bool) ([]byte, error) {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil, err
	}
	q, err := p.Question()
	if err != nil {
		return nil, err
	}
	resp := dnsmessage.Message{
		Header:    dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired},
		Questions: []dnsmessage.Question{q},
	}
	switch name := strings.TrimSuffix(strings.ToLower(q.Name.String()), "."); {
	case !known[name]:
		resp.Header.RCode = dnsmessage.RCodeNameError
	case q.Type == dnsmessage.TypeA:
		resp.Answers = append(resp.Answers, dnsmessage.Resource{
			Header: dnsmessage.ResourceHeader{Name: q.Name, Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 60},
			Body:   &dnsmessage.AResource{A: [4]byte{127, 0, 0, 1}},
		})
	}
	return resp.Pack()
}

// pebble is a running Pebble.
type pebble struct {
	dir   string // the ACME directory URL
	roots []byte // the PEM root its certificates chain to
	log   *syncBuffer
	cmd   *exec.Cmd
}

// startPebble runs Pebble on free ports of 127.0.0.1, its own https
// served with a certificate of ca, validating http-01 on httpPort and
// tls-alpn-01 on tlsPort, resolving names through dns.
func startPebble(t *testing.T, ca *testCA, dns, httpPort, tlsPort string) *pebble {
	t.Helper()
	bin := pebbleBinary(t)
	dir := t.TempDir()
	certPEM, keyPEM, _ := ca.issue(t, time.Now().Add(time.Hour), "localhost", "127.0.0.1")
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writeFileAtomic(t, cert, certPEM)
	writeFileAtomic(t, key, keyPEM)
	listen, mgmt := freeAddr(t), freeAddr(t)
	atoi := func(s string) int {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	config, err := json.Marshal(map[string]any{"pebble": map[string]any{
		"listenAddress": listen, "managementListenAddress": mgmt,
		"certificate": cert, "privateKey": key,
		"httpPort": atoi(httpPort), "tlsPort": atoi(tlsPort),
		"ocspResponderURL": "", "externalAccountBindingRequired": false,
		"retryAfter":   map[string]int{"authz": 1, "order": 1},
		"keyAlgorithm": "ecdsa",
		"profiles": map[string]any{"default": map[string]any{
			"description": "90 days", "validityPeriod": 7776000}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	configFile := filepath.Join(dir, "pebble-config.json")
	if err := os.WriteFile(configFile, config, 0o600); err != nil {
		t.Fatal(err)
	}
	p := &pebble{dir: "https://" + listen + "/dir", log: &syncBuffer{}}
	p.cmd = exec.Command(bin, "-config", configFile, "-dnsserver", dns)
	p.cmd.Dir = dir
	// No random sleep before a validation, and no nonce refused at random:
	// the test is about the server, not about retries.
	p.cmd.Env = append(os.Environ(), "PEBBLE_VA_NOSLEEP=1", "PEBBLE_WFE_NONCEREJECT=0")
	p.cmd.Stdout, p.cmd.Stderr = p.log, p.log
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	client := httpsClient(t, ca.pem)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get("https://" + mgmt + "/roots/0")
		if err == nil {
			p.roots, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("Pebble did not answer within 30 s (%v); it wrote:\n%s", err, p.log)
		}
	}
	return p
}

func (p *pebble) stop() {
	if p.cmd.ProcessState == nil {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	}
}

// TestACMEWithPebble starts the server with -tls-domain against Pebble:
// it gets a certificate at start through http-01 and serves the app with
// it; plain http redirects; a restart takes the certificate from the
// cache, with the CA gone; and a name the CA cannot reach fails the start
// with what the CA said.
func TestACMEWithPebble(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t)
	dns := startDNS(t, testName)
	tlsAddr, httpAddr, nobody := freeAddr(t), freeAddr(t), freeAddr(t)
	p := startPebble(t, ca, dns, port(httpAddr), port(nobody))
	caFile := filepath.Join(dir, "pebble-https-ca.pem")
	writeFileAtomic(t, caFile, ca.pem)
	db := filepath.Join(dir, "data", "insectscore.db")
	args := []string{"-db", db, "-tls-domain", testName, "-acme-directory", p.dir, "-acme-ca", caFile}
	client := httpsClient(t, p.roots)

	s := startHTTPSOn(t, client, tlsAddr, httpAddr, args...)
	resp, err := client.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Strict-Transport-Security") == "" {
		t.Errorf("/readyz over https: %d, HSTS %q", resp.StatusCode, resp.Header.Get("Strict-Transport-Security"))
	}
	leaf := resp.TLS.PeerCertificates[0]
	if len(leaf.DNSNames) != 1 || leaf.DNSNames[0] != testName {
		t.Errorf("the certificate is for %q, want %q", leaf.DNSNames, testName)
	}
	if !strings.Contains(p.log.String(), "validate w/ HTTP") {
		t.Errorf("Pebble did not validate over http-01; it wrote:\n%s", p.log)
	}
	// The account and certificate are kept beside the database.
	if _, err := os.Stat(filepath.Join(dir, "data", "certs", testName)); err != nil {
		t.Errorf("the certificate is not in the cache beside the database: %v", err)
	}
	resp, err = client.Get(s.plain + "/t/ABCD?x=1")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, want := resp.Header.Get("Location"), s.base+"/t/ABCD?x=1"; resp.StatusCode != 301 || got != want {
		t.Errorf("plain http: %d to %q, want 301 to %q", resp.StatusCode, got, want)
	}
	serial := leaf.SerialNumber

	// A name that resolves nowhere: the start fails with the CA's words.
	log := &syncBuffer{}
	err = run([]string{"serve", "-db", filepath.Join(dir, "other", "insectscore.db"), "-tls-domain", "unknown.test", "-acme-directory", p.dir,
		"-acme-ca", caFile, "-tls-addr", "127.0.0.1:0", "-http-addr", "127.0.0.1:0"}, func(string) string { return "" }, io.Discard, log)
	if err == nil || !strings.Contains(err.Error(), "could not get a certificate for unknown.test") || !strings.Contains(err.Error(), "the CA said") {
		t.Errorf("a name the CA cannot reach: %v, want the CA's reason; the log:\n%s", err, log)
	}
	t.Logf("the refusal: %v", err)

	// A restart with the CA gone serves the certificate kept.
	s.stop(t)
	p.stop()
	s = startHTTPSOn(t, client, tlsAddr, httpAddr, args...)
	resp, err = client.Get(s.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.TLS.PeerCertificates[0].SerialNumber; got.Cmp(serial) != 0 {
		t.Errorf("after a restart the certificate is %v, want the kept %v", got, serial)
	}
}

package api

import "testing"

// TestCOOPOnTrustworthyOrigins: Cross-Origin-Opener-Policy goes with the
// answers of origins a browser trusts (https, localhost, a loopback
// address), where it is heeded; not with plain http at a LAN address or
// name, where Chromium drops it and logs an error on every page load.
func TestCOOPOnTrustworthyOrigins(t *testing.T) {
	proxied := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "scores.example", "Host": "192.168.1.20:8080"}
	tests := []struct {
		name   string
		cfg    Config
		header map[string]string
		want   string
	}{
		{"localhost", Config{}, map[string]string{"Host": "localhost:8080"}, "same-origin"},
		{"127.0.0.1", Config{}, map[string]string{"Host": "127.0.0.1:8080"}, "same-origin"},
		{"[::1]", Config{}, map[string]string{"Host": "[::1]:8080"}, "same-origin"},
		{"a .localhost name", Config{}, map[string]string{"Host": "scores.localhost"}, "same-origin"},
		{"https named by a trusted proxy", Config{TrustedProxies: []string{"0.0.0.0/8"}}, proxied, "same-origin"},
		{"plain http at a LAN address", Config{}, map[string]string{"Host": "192.168.1.20:8080"}, ""},
		{"plain http at a name", Config{}, map[string]string{"Host": "insectscore.test:8080"}, ""},
		{"https claimed by anyone else", Config{}, proxied, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, tt.cfg)
			for _, path := range []string{"/", "/api/v1/games"} {
				res := call(t, app, "GET", path, "", tt.header)
				if res.status != 200 {
					t.Fatalf("GET %s: %d", path, res.status)
				}
				if got := res.header.Get("Cross-Origin-Opener-Policy"); got != tt.want {
					t.Errorf("GET %s: Cross-Origin-Opener-Policy %q, want %q", path, got, tt.want)
				}
				if got := res.header.Get("Cross-Origin-Resource-Policy"); got != "same-origin" {
					t.Errorf("GET %s: Cross-Origin-Resource-Policy %q, want same-origin", path, got)
				}
			}
		})
	}
}

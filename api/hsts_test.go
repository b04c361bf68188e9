package api

import "testing"

// TestHSTSOverHTTPSOnly: an answer over https tells the browser to keep to
// https for a year (not the domain's other names, which may serve plain
// http at home); one over http says nothing, and neither does an untrusted
// client that claims https in X-Forwarded-Proto.
func TestHSTSOverHTTPSOnly(t *testing.T) {
	proxied := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "scores.example"}
	tests := []struct {
		name   string
		cfg    Config
		header map[string]string
		want   string
	}{
		{"plain http", Config{}, nil, ""},
		{"https named by a trusted proxy", Config{TrustedProxies: []string{"0.0.0.0/8"}}, proxied, "max-age=31536000"},
		{"https claimed by anyone else", Config{}, proxied, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			app, _ := newTestAppWith(t, tt.cfg)
			for _, path := range []string{"/", "/readyz", "/api/v1/games"} {
				res := call(t, app, "GET", path, "", tt.header)
				if res.status != 200 {
					t.Fatalf("GET %s: %d", path, res.status)
				}
				if got := res.header.Get("Strict-Transport-Security"); got != tt.want {
					t.Errorf("GET %s: Strict-Transport-Security %q, want %q", path, got, tt.want)
				}
			}
		})
	}
}

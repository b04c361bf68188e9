package models

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"testing"
)

func TestCodeAlphabet(t *testing.T) {
	for _, c := range "0O1IL" {
		if strings.ContainsRune(CodeAlphabet, c) {
			t.Errorf("CodeAlphabet has look-alike %q", c)
		}
	}
	if got, want := len(CodeAlphabet), 31; got != want {
		t.Errorf("len(CodeAlphabet) = %d, want %d", got, want)
	}
}

func TestNewCode(t *testing.T) {
	seen := map[string]bool{}
	for range 2000 {
		code, err := newCode(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if len(code) != CodeLength {
			t.Fatalf("code %q has %d characters, want %d", code, len(code), CodeLength)
		}
		for _, c := range code {
			if !strings.ContainsRune(CodeAlphabet, c) {
				t.Fatalf("code %q has %q, outside the alphabet", code, c)
			}
		}
		seen[code] = true
	}
	if len(seen) < 1990 {
		t.Errorf("only %d distinct codes in 2000", len(seen))
	}
}

func TestNewCodeIsUnbiased(t *testing.T) {
	// Bytes from 248 up would favour the alphabet's first 8 characters, so
	// they are skipped: the code comes from the bytes after them.
	in := []byte{248, 255, 0, 252, 1, 30, 31, 61, 249, 247}
	got, err := newCode(bytes.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	// 0→'2', 1→'3', 30→'Z', 31→'2', 61→'Z', 247 = 7·31+30 → 'Z'
	if want := "23Z2ZZ"; got != want {
		t.Errorf("newCode = %q, want %q", got, want)
	}
	if _, err := newCode(bytes.NewReader([]byte{1, 2})); err == nil {
		t.Error("newCode from an exhausted reader: nil error")
	}
}

func TestNewToken(t *testing.T) {
	a, err := newToken(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newToken(rand.Reader)
	if a == b {
		t.Error("two tokens are equal")
	}
	raw, err := base64.RawURLEncoding.DecodeString(a)
	if err != nil {
		t.Fatalf("token %q is not base64url: %v", a, err)
	}
	if got, want := len(raw)*8, 256; got != want {
		t.Errorf("token has %d bits, want %d", got, want)
	}
	if got, want := len(a), 43; got != want {
		t.Errorf("token has %d characters, want %d", got, want)
	}
}

func TestTokenHash(t *testing.T) {
	token := "abc"
	sum := sha256.Sum256([]byte(token))
	hash := hashToken(token)
	if want := hex.EncodeToString(sum[:]); hash != want {
		t.Errorf("hashToken = %q, want SHA-256 %q", hash, want)
	}
	other := hashToken("abd")
	empty := ""
	tests := []struct {
		name  string
		token string
		hash  *string
		want  bool
	}{
		{"match", token, &hash, true},
		{"other token", "abd", &hash, false},
		{"other hash", token, &other, false},
		{"no hash", token, nil, false},
		{"empty hash", "", &empty, false},
		{"the hash itself as token", hash, &hash, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tokenMatches(tt.token, tt.hash); got != tt.want {
				t.Errorf("tokenMatches = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewPlayID(t *testing.T) {
	a, err := newPlayID(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newPlayID(rand.Reader)
	if a == b || len(a) != 16 || strings.ToLower(a) != a {
		t.Errorf("play ids %q, %q: want two different 16-character lowercase ids", a, b)
	}
}

func TestNewGroupID(t *testing.T) {
	a, err := newGroupID(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := newGroupID(rand.Reader)
	raw, err := idEncoding.DecodeString(a)
	if err != nil || a == b || len(a) != 32 || strings.ToLower(a) != a {
		t.Errorf("group ids %q, %q (%v): want two different 32-character lowercase base32 ids", a, b, err)
	}
	// The id is the invite: at least as hard to guess as 128 random bits.
	if got := len(raw) * 8; got < 128 {
		t.Errorf("group id has %d bits, want at least 128", got)
	}
	if _, err := newGroupID(bytes.NewReader(make([]byte, 5))); err == nil {
		t.Error("newGroupID from an exhausted reader: nil error")
	}
}

package models

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
)

// CodeAlphabet is the characters of a table code: digits and capitals
// without the look-alikes 0, O, 1, I and L, so a code read aloud or off a
// screen is typed right.
const CodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// CodeLength is the number of characters of a table code: 31⁶ ≈ 887
// million codes, so collisions are rare and guessing an open table is
// hopeless.
const CodeLength = 6

// tokenBytes is the entropy of a host or seat token: 256 bits.
const tokenBytes = 32

// newCode draws a table code from r without modulo bias: a byte is used
// only below the largest multiple of the alphabet's size.
func newCode(r io.Reader) (string, error) {
	const n = len(CodeAlphabet)
	const limit = 256 - 256%n
	out := make([]byte, 0, CodeLength)
	buf := make([]byte, CodeLength)
	for len(out) < CodeLength {
		if _, err := io.ReadFull(r, buf[:CodeLength-len(out)]); err != nil {
			return "", fmt.Errorf("models: random code: %w", err)
		}
		for _, b := range buf[:CodeLength-len(out)] {
			if int(b) < limit {
				out = append(out, CodeAlphabet[int(b)%n])
			}
		}
	}
	return string(out), nil
}

// normalizeCode makes a typed code match a stored one.
func normalizeCode(code string) string {
	code = strings.ToUpper(strings.TrimSpace(code))
	if len(code) != CodeLength || strings.Trim(code, CodeAlphabet) != "" {
		// No table has such a code; "" finds none without sending the
		// database text it might refuse (a NUL, invalid UTF-8).
		return ""
	}
	return code
}

// newToken draws a bearer token: 32 random bytes, base64url without
// padding (43 characters), safe in a URL and an Authorization header.
func newToken(r io.Reader) (string, error) {
	b := make([]byte, tokenBytes)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("models: random token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// hashToken is what the database keeps of a token: a copied database
// then grants no one a seat. A fast hash is enough for 256 random bits.
func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// tokenMatches compares a presented token with a stored hash in constant
// time, so response times reveal nothing about the hash.
func tokenMatches(token string, hash *string) bool {
	if hash == nil || *hash == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(hashToken(token)), []byte(*hash)) == 1
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// newPlayID draws a play id: 80 random bits as 16 lowercase characters.
// Random rather than sequential, so plays exported from one server import
// into another without renumbering.
func newPlayID(r io.Reader) (string, error) {
	return newID(r, 10, "play id")
}

// newPlayerID draws a player id like a play id, for the same reason.
func newPlayerID(r io.Reader) (string, error) {
	return newID(r, 10, "player id")
}

// groupIDBytes is the entropy of a group id: 160 bits, as 32 characters.
// Knowing a group's id is being in the group, so it must be as
// unguessable as a token.
const groupIDBytes = 20

// newGroupID draws the id of a new group, which is also its invite code.
func newGroupID(r io.Reader) (string, error) {
	return newID(r, groupIDBytes, "group id")
}

// newID draws n random bytes as lowercase base32: URL-safe, and readable
// aloud without case mattering.
func newID(r io.Reader, n int, what string) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("models: random %s: %w", what, err)
	}
	return idEncoding.EncodeToString(b), nil
}

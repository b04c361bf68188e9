package api

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/netip"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// Idempotency keys: a phone that sent a write and lost the answer (a
// tunnel, a closed lid) sends it again with the same Idempotency-Key, and
// gets the first answer instead of a second play, seat or move.

const (
	headerIdempotencyKey = "Idempotency-Key"
	// headerReplayed marks an answer given before, sent again.
	headerReplayed = "Idempotent-Replayed"
)

// defaultIdempotencyTTL is how long keys are kept when Config leaves it
// unset: a phone that was offline overnight can still retry.
const defaultIdempotencyTTL = 24 * time.Hour

// The keys kept at once, when Config leaves them unset: per client
// address, a busy evening of a café's tables behind one router many
// times over; in all, a few tens of MB of answers at most.
const (
	defaultKeysPerClient = 2000
	defaultKeys          = 100000
)

// purgeEvery is how often expired keys are deleted.
const purgeEvery = 10 * time.Minute

// maxKeptProblem bounds the refusal kept for a key: a larger one (a
// board with hundreds of mistakes) is answered but not kept, and its
// retry runs again, to the same refusal. Answers of changes are kept
// whatever their size.
const maxKeptProblem = 16 << 10

// maxKeyLength bounds an Idempotency-Key; a UUID has 36 characters.
const maxKeyLength = 255

// idempotent answers a write that carries an Idempotency-Key once: the
// first request runs and its answer is kept; a retry with the same key on
// the same method and URL, token and body gets that answer again, marked
// Idempotent-Replayed, and runs nothing. Requests without the header pass
// through untouched.
func (s *server) idempotent(c *fiber.Ctx) error {
	// Peek is nil without the header and empty for an empty one.
	raw := c.Request().Header.Peek(headerIdempotencyKey)
	if raw == nil || !isWrite(c.Method()) {
		return c.Next()
	}
	key := string(raw)
	if !validKey(key) {
		return errorf(fiber.StatusBadRequest, "Idempotency-Key must be 1 to 255 printable ASCII characters")
	}
	ctx := c.UserContext()
	s.purgeExpired()
	method, url, auth := []byte(c.Method()), []byte(c.OriginalURL()), c.Request().Header.Peek(fiber.HeaderAuthorization)
	scope, fingerprint := digest(method, url, raw), digest(auth, c.Body())
	// The answer's key: from the request, which the database never sees whole.
	secret := sum([]byte("insectscore idempotent answer"), method, url, raw, auth, c.Body())
	answer, err := s.store.BeginIdempotent(ctx, models.KeyClaim{Scope: scope, Fingerprint: fingerprint, Client: keyClient(s.clientIP(c)),
		Now: s.cfg.Now(), TTL: s.cfg.IdempotencyTTL, Bounds: models.KeyBounds{PerClient: s.cfg.KeysPerClient, Overall: s.cfg.Keys}})
	if errors.Is(err, models.ErrInProgress) {
		c.Set(fiber.HeaderRetryAfter, "1")
	}
	if err != nil {
		return err
	}
	if answer != nil {
		return sendAgain(c, answer, secret)
	}
	// A change keeps its answer in its own transaction (models.Reply);
	// what answers without a change (a refusal, the score route) is kept
	// here.
	pending := &models.PendingAnswer{Scope: scope, Seal: func(body []byte) ([]byte, error) { return seal(secret, body) }}
	c.SetUserContext(models.WithPendingAnswer(ctx, pending))
	defer c.SetUserContext(ctx)
	kept := false
	defer func() {
		if !kept { // a failure worth retrying, or a panic: let a retry run
			if err := s.store.ForgetIdempotent(context.WithoutCancel(ctx), scope); err != nil {
				s.log.Warn("idempotency key not released", "err", err)
			}
		}
	}()
	if err := c.Next(); err != nil {
		// Render now, so that what is kept is what was sent.
		if err := c.App().ErrorHandler(c, err); err != nil {
			return err
		}
	}
	resp := c.Response()
	if pending.Kept() && c.Response().StatusCode() < 300 {
		kept = true
		return nil
	}
	if !keepAnswer(resp.StatusCode()) || len(resp.Body()) > maxKeptProblem {
		return nil
	}
	body, err := seal(secret, resp.Body())
	if err == nil {
		err = s.store.FinishIdempotent(context.WithoutCancel(ctx), scope, models.IdempotentAnswer{Status: resp.StatusCode(),
			ContentType: string(resp.Header.ContentType()), ContentLanguage: string(resp.Header.Peek(fiber.HeaderContentLanguage)), Location: string(resp.Header.Peek(fiber.HeaderLocation)),
			ETag: string(resp.Header.Peek(fiber.HeaderETag)), Body: body})
	}
	if err != nil {
		s.log.Warn("idempotent answer not kept", "err", err)
		return nil
	}
	kept = true
	return nil
}

// sendAgain sends a kept answer again.
func sendAgain(c *fiber.Ctx, a *models.IdempotentAnswer, secret []byte) error {
	body, err := unseal(secret, a.Body)
	if err != nil {
		return err
	}
	c.Status(a.Status)
	if a.ContentType != "" {
		c.Set(fiber.HeaderContentType, a.ContentType)
	}
	if a.ContentLanguage != "" {
		c.Set(fiber.HeaderContentLanguage, a.ContentLanguage)
	}
	if a.Location != "" {
		c.Set(fiber.HeaderLocation, a.Location)
	}
	if a.ETag != "" {
		c.Set(fiber.HeaderETag, a.ETag)
	}
	c.Set(headerReplayed, "true")
	return c.Send(body)
}

// seal encrypts an answer's body for keeping. Answers hold host and seat
// tokens, which the database otherwise keeps only as hashes; the key comes
// from the request (its Idempotency-Key, token and body), so only a retry
// of the same request can read the answer again.
func seal(secret, body []byte) ([]byte, error) {
	aead, err := answerCipher(secret)
	if err != nil {
		return nil, err
	}
	// A random nonce: the same request after its key expired is sealed
	// again under the same secret.
	nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(body)+aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return aead.Seal(nonce, nonce, body, nil), nil
}

// unseal is the inverse of seal.
func unseal(secret, sealed []byte) ([]byte, error) {
	aead, err := answerCipher(secret)
	if err != nil {
		return nil, err
	}
	if len(sealed) < aead.NonceSize() {
		return nil, errors.New("api: a kept answer is too short")
	}
	n := aead.NonceSize()
	return aead.Open(nil, sealed[:n], sealed[n:], nil)
}

func answerCipher(secret []byte) (cipher.AEAD, error) {
	block, err := aes.NewCipher(secret)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// keepAnswer says whether an answer is final for its key. Server errors
// and the statuses that mean "not now" (a timeout, a conflict, too early,
// too many) are not: the retry runs again.
func keepAnswer(status int) bool {
	switch status {
	case fiber.StatusRequestTimeout, fiber.StatusConflict, fiber.StatusTooEarly, fiber.StatusTooManyRequests:
		return false
	}
	return status < 500
}

// purgeExpired starts a purge of expired keys when one is due, at most
// once per purgeEvery and never in the first purgeEvery after New: off the
// request path, in a goroutine; the store deletes in short batches.
func (s *server) purgeExpired() {
	now := s.cfg.Now()
	s.purgeMu.Lock()
	due := !s.purging && (now.Sub(s.lastPurge) >= purgeEvery || now.Before(s.lastPurge))
	if due {
		s.lastPurge, s.purging = now, true
	}
	s.purgeMu.Unlock()
	if !due {
		return
	}
	go func() {
		defer func() {
			s.purgeMu.Lock()
			s.purging = false
			s.purgeMu.Unlock()
		}()
		n, err := s.store.PurgeIdempotent(context.Background(), now.Add(-s.cfg.IdempotencyTTL))
		if err != nil {
			s.log.Warn("expired idempotency keys not purged", "err", err, "purged", n)
			return
		}
		s.log.Debug("purged expired idempotency keys", "count", n)
	}()
}

// keyClient is the client a key counts against: an IPv4 address, or the
// /64 of an IPv6 address, which one household or phone is given whole.
func keyClient(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() {
		return ip
	}
	p, _ := a.Prefix(64)
	return p.String()
}

func isWrite(method string) bool {
	switch method {
	case fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch, fiber.MethodDelete:
		return true
	}
	return false
}

// validKey accepts 1 to maxKeyLength printable ASCII characters.
func validKey(key string) bool {
	if len(key) == 0 || len(key) > maxKeyLength {
		return false
	}
	for i := range len(key) {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// digest is sum in hex.
func digest(parts ...[]byte) string {
	return hex.EncodeToString(sum(parts...))
}

// sum is the SHA-256 of parts, each ended by a NUL byte so that no two
// lists of parts hash alike (only the last part may hold a NUL).
func sum(parts ...[]byte) []byte {
	h := sha256.New()
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// reply is how a change answers: status and the JSON that body makes of
// its result, in the request's language. The store writes the answer in
// the change's transaction, so that an Idempotency-Key keeps it with the
// change; the handler then sends it as it was kept (sendAnswer).
func reply[R any](c *fiber.Ctx, status int, body func(R) any) models.Reply[R] {
	return func(r R) (models.IdempotentAnswer, error) {
		b, err := c.App().Config().JSONEncoder(body(r))
		if err != nil {
			return models.IdempotentAnswer{}, err
		}
		return models.IdempotentAnswer{Status: status, ContentType: fiber.MIMEApplicationJSON,
			ContentLanguage: c.GetRespHeader(fiber.HeaderContentLanguage), Location: c.GetRespHeader(fiber.HeaderLocation),
			ETag: c.GetRespHeader(fiber.HeaderETag), Body: b}, nil
	}
}

// sendAnswer sends a change's answer.
func sendAnswer(c *fiber.Ctx, a models.IdempotentAnswer) error {
	c.Status(a.Status)
	c.Set(fiber.HeaderContentType, a.ContentType)
	return c.Send(a.Body)
}

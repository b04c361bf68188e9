package models

import (
	"context"
	"errors"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Idempotency keys let a phone that lost an answer send the same write
// again: the retry gets the first answer instead of a second play, seat or
// move. The API decides which answers are kept; the store keeps them.

// PendingTimeout is how long a key's first request may run before a retry
// takes the key over: a request that has not answered by then died with
// its server.
const PendingTimeout = 2 * time.Minute

var (
	// ErrInProgress means the key's first request is still running.
	ErrInProgress = errors.New("models: a request with this idempotency key is still running")
	// ErrKeyReused means the key was used on this route for a request
	// with another body or token.
	ErrKeyReused = errors.New("models: this idempotency key was used for a different request")
)

// IdempotentAnswer is the answer a write gave, kept so that a retry with
// its key gets it again byte for byte.
type IdempotentAnswer struct {
	Status      int
	ContentType string
	// ContentLanguage is the language the answer was written in: a retry
	// gets the same words, and is told so.
	ContentLanguage string
	Location        string
	// ETag is the version an answer names (a board write's), if any.
	ETag string
	// Body is kept as given; the API seals it, since answers hold tokens.
	Body []byte
}

type idempotencyRow struct {
	Scope       string
	Fingerprint string
	// Client is the address the key came from.
	Client string
	// Status is nil while the first request runs.
	Status          *int
	ContentType     string
	ContentLanguage string
	Location        string
	ETag            string `gorm:"column:etag"`
	Body            []byte
	CreatedAt       time.Time
}

func (idempotencyRow) TableName() string { return "idempotency_keys" }

// KeyClaim is a request's claim on an idempotency key.
type KeyClaim struct {
	// Scope names the key with the method and URL it came with;
	// Fingerprint the token and body, which a retry must repeat.
	Scope, Fingerprint string
	// Client is the address the request came from (KeyBounds.PerClient).
	Client string
	// Now is when the request arrived; keys older than TTL count as
	// never used.
	Now time.Time
	TTL time.Duration
	// Bounds caps the keys kept; zero fields mean no cap.
	Bounds KeyBounds
}

// KeyBounds caps how many keys are kept at once (a key is kept for its
// TTL): per client address, and in all. A new key beyond either is
// refused with a *KeyLimitError; a retry of a kept key never is.
type KeyBounds struct {
	PerClient, Overall int
}

// KeyLimitError refuses a new idempotency key beyond KeyBounds.
type KeyLimitError struct {
	// Client says the client's own cap was reached, not the overall one.
	Client bool
	// Wait is how long until the oldest key counted expires.
	Wait time.Duration
}

func (e *KeyLimitError) Error() string {
	if e.Client {
		return "models: this client holds as many idempotency keys as it may"
	}
	return "models: the server holds as many idempotency keys as it may"
}

// BeginIdempotent claims a key for a request. It returns nil when the
// request is to run, having recorded the key as pending; the answer when
// the key has one, for a replay; ErrInProgress while the key's first
// request runs; ErrKeyReused when the key came with another fingerprint;
// a *KeyLimitError for a new key beyond the claim's bounds. A pending key
// older than PendingTimeout is taken over, and a key older than the TTL
// counts as never used.
func (s *Store) BeginIdempotent(ctx context.Context, k KeyClaim) (*IdempotentAnswer, error) {
	now := k.Now.UTC().Truncate(time.Microsecond)
	live := now.Add(-k.TTL)
	var answer *IdempotentAnswer
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var rows []idempotencyRow
		if err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
			Where("scope = ?", k.Scope).Limit(1).Find(&rows).Error; err != nil {
			return err
		}
		if len(rows) == 0 {
			if err := keyRoom(tx, k, live, now); err != nil {
				return err
			}
			// ON CONFLICT DO NOTHING rather than catching the error: a
			// failed statement aborts a PostgreSQL transaction. A
			// concurrent insert of the same key makes this one wait for
			// it, then do nothing; the row is read again below.
			fresh := idempotencyRow{Scope: k.Scope, Fingerprint: k.Fingerprint, Client: k.Client, CreatedAt: now}
			res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "scope"}}, DoNothing: true}).Create(&fresh)
			if res.Error != nil || res.RowsAffected == 1 {
				return res.Error
			}
			if err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
				Where("scope = ?", k.Scope).Limit(1).Find(&rows).Error; err != nil {
				return err
			}
		}
		row := rows[0]
		expired := !row.CreatedAt.After(live)
		switch {
		case expired || (row.Status == nil && !row.CreatedAt.After(now.Add(-PendingTimeout)) && row.Fingerprint == k.Fingerprint):
			return tx.Model(&idempotencyRow{}).Where("scope = ?", k.Scope).Updates(map[string]any{
				"fingerprint": k.Fingerprint, "client": k.Client, "status": nil, "content_type": "", "content_language": "", "location": "", "etag": "", "body": nil, "created_at": now,
			}).Error
		case row.Fingerprint != k.Fingerprint:
			return ErrKeyReused
		case row.Status == nil:
			return ErrInProgress
		}
		answer = &IdempotentAnswer{Status: *row.Status, ContentType: row.ContentType, ContentLanguage: row.ContentLanguage, Location: row.Location, ETag: row.ETag, Body: row.Body}
		return nil
	})
	if err != nil {
		return nil, s.wrote(err)
	}
	return answer, nil
}

// keyRoom refuses a new key when its client, or everyone, already holds
// as many live keys (first used after live) as the claim's bounds allow.
// Each count stops at its cap, so it reads at most that many index
// entries.
func keyRoom(tx *gorm.DB, k KeyClaim, live, now time.Time) error {
	caps := []struct {
		cap    int
		client bool
		where  string
		args   []any
	}{
		{k.Bounds.PerClient, true, "client = ? AND created_at > ?", []any{k.Client, live}},
		{k.Bounds.Overall, false, "created_at > ?", []any{live}},
	}
	for _, c := range caps {
		if c.cap <= 0 {
			continue
		}
		var n int64
		if err := tx.Raw("SELECT count(*) FROM (SELECT 1 FROM idempotency_keys WHERE "+c.where+" LIMIT ?) kept", append(c.args, c.cap)...).
			Scan(&n).Error; err != nil {
			return err
		}
		if n < int64(c.cap) {
			continue
		}
		var oldest []idempotencyRow
		if err := tx.Select("created_at").Where(c.where, c.args...).Order("created_at").Limit(1).Find(&oldest).Error; err != nil {
			return err
		}
		wait := time.Duration(0)
		if len(oldest) == 1 {
			wait = oldest[0].CreatedAt.Add(k.TTL).Sub(now)
		}
		return &KeyLimitError{Client: c.client, Wait: max(wait, time.Second)}
	}
	return nil
}

// FinishIdempotent keeps the answer of the request that began the key, so
// that retries replay it.
func (s *Store) FinishIdempotent(ctx context.Context, scope string, a IdempotentAnswer) error {
	body := a.Body
	if body == nil {
		body = []byte{}
	}
	return s.wrote(s.db.WithContext(ctx).Model(&idempotencyRow{}).Where("scope = ? AND status IS NULL", scope).
		Updates(map[string]any{"status": a.Status, "content_type": a.ContentType, "content_language": a.ContentLanguage, "location": a.Location, "etag": a.ETag, "body": body}).Error)
}

// ForgetIdempotent drops a key whose request failed in a way worth
// retrying (a conflict, a server error), so that the retry runs again.
func (s *Store) ForgetIdempotent(ctx context.Context, scope string) error {
	return translate(s.db.WithContext(ctx).Where("scope = ? AND status IS NULL", scope).Delete(&idempotencyRow{}).Error)
}

// PurgeIdempotent deletes the keys first used before before, and says
// how many went. It deletes purgeBatch keys at a time, oldest first, with
// purgePause between two batches, so that the writes waiting for the
// database go first: a million expired keys never hold the writer for
// longer than one batch.
func (s *Store) PurgeIdempotent(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		n, err := s.purgeKeys(ctx, before, purgeBatch)
		total += n
		if err != nil || n < purgeBatch {
			return total, err
		}
		select {
		case <-ctx.Done():
			return total, ctx.Err()
		case <-time.After(purgePause):
		}
	}
}

// purgeBatch is how many expired keys one statement deletes, and
// purgePause the wait between two.
const (
	purgeBatch = 500
	purgePause = 20 * time.Millisecond
)

// purgeKeys deletes at most batch keys first used before before, oldest
// first. The time is checked again on the row deleted: on PostgreSQL a
// key taken up again meanwhile (BeginIdempotent renews an expired key in
// place) is a row the subquery chose before it changed, and the DELETE,
// once the renewal commits, sees its new time and leaves it.
func (s *Store) purgeKeys(ctx context.Context, before time.Time, batch int) (int64, error) {
	before = before.UTC()
	res := s.db.WithContext(ctx).Exec(`DELETE FROM idempotency_keys WHERE created_at < ? AND scope IN
		(SELECT scope FROM idempotency_keys WHERE created_at < ? ORDER BY created_at LIMIT ?)`, before, before, batch)
	return res.RowsAffected, translate(res.Error)
}

// KeptAnswers says how many idempotency keys are kept, expired or not.
func (s *Store) KeptAnswers(ctx context.Context) (int64, error) {
	var n int64
	return n, translate(s.rdb.WithContext(ctx).Model(&idempotencyRow{}).Count(&n).Error)
}

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

// BeginIdempotent claims the key named by scope (the key with its method
// and URL) for a request with fingerprint arriving at now. It returns nil
// when the request is to run, having recorded it as pending; the answer
// when the key has one, for a replay; ErrInProgress while the key's first
// request runs; ErrKeyReused when the key came with another fingerprint.
// A pending key older than PendingTimeout is taken over, and a key older
// than ttl counts as never used.
func (s *Store) BeginIdempotent(ctx context.Context, scope, fingerprint string, now time.Time, ttl time.Duration) (*IdempotentAnswer, error) {
	now = now.UTC().Truncate(time.Microsecond)
	fresh := idempotencyRow{Scope: scope, Fingerprint: fingerprint, CreatedAt: now}
	var answer *IdempotentAnswer
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		// ON CONFLICT DO NOTHING rather than catching the error: a failed
		// statement aborts a PostgreSQL transaction. A concurrent insert
		// of the same key makes this one wait for it, then do nothing.
		res := tx.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "scope"}}, DoNothing: true}).Create(&fresh)
		if res.Error != nil || res.RowsAffected == 1 {
			return res.Error
		}
		var row idempotencyRow
		if err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).
			Where("scope = ?", scope).Take(&row).Error; err != nil {
			return err
		}
		expired := !row.CreatedAt.After(now.Add(-ttl))
		switch {
		case expired || (row.Status == nil && !row.CreatedAt.After(now.Add(-PendingTimeout)) && row.Fingerprint == fingerprint):
			return tx.Model(&idempotencyRow{}).Where("scope = ?", scope).Updates(map[string]any{
				"fingerprint": fingerprint, "status": nil, "content_type": "", "content_language": "", "location": "", "etag": "", "body": nil, "created_at": now,
			}).Error
		case row.Fingerprint != fingerprint:
			return ErrKeyReused
		case row.Status == nil:
			return ErrInProgress
		}
		answer = &IdempotentAnswer{Status: *row.Status, ContentType: row.ContentType, ContentLanguage: row.ContentLanguage, Location: row.Location, ETag: row.ETag, Body: row.Body}
		return nil
	})
	if err != nil {
		return nil, translate(err)
	}
	return answer, nil
}

// FinishIdempotent keeps the answer of the request that began the key, so
// that retries replay it.
func (s *Store) FinishIdempotent(ctx context.Context, scope string, a IdempotentAnswer) error {
	body := a.Body
	if body == nil {
		body = []byte{}
	}
	return translate(s.db.WithContext(ctx).Model(&idempotencyRow{}).Where("scope = ? AND status IS NULL", scope).
		Updates(map[string]any{"status": a.Status, "content_type": a.ContentType, "content_language": a.ContentLanguage, "location": a.Location, "etag": a.ETag, "body": body}).Error)
}

// ForgetIdempotent drops a key whose request failed in a way worth
// retrying (a conflict, a server error), so that the retry runs again.
func (s *Store) ForgetIdempotent(ctx context.Context, scope string) error {
	return translate(s.db.WithContext(ctx).Where("scope = ? AND status IS NULL", scope).Delete(&idempotencyRow{}).Error)
}

// PurgeIdempotent deletes the keys first used before before and says how
// many went.
func (s *Store) PurgeIdempotent(ctx context.Context, before time.Time) (int64, error) {
	res := s.db.WithContext(ctx).Where("created_at < ?", before.UTC()).Delete(&idempotencyRow{})
	return res.RowsAffected, translate(res.Error)
}

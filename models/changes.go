package models

import (
	"context"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// Changes. Every change a request asks for (a table's create, join, claim,
// board, sync report, move, undo and finish; a play's log, edit and delete;
// a player's rename and merge; an import) is one method of the Store, its
// owner. In one transaction the owner authorises the asker, reads the
// state as it is, checks the change against the rules, writes it, brings
// every kept figure up to date and keeps the answer of an Idempotency-Key.
// It returns what the API answers and what the live streams are sent.
// Nothing is checked before the transaction and trusted in it: a check
// made outside the transaction that writes is a race.

// Refusal is a change refused for the asker or the state it found: the
// kind says which, the message says why in words the API sends (keyed in
// the catalogs as the API's own messages are).
type Refusal struct {
	Kind RefusalKind
	scoring.Message
}

// RefusalKind is what a Refusal means to the asker.
type RefusalKind int

// The kinds of refusal; the API maps each to its status.
const (
	// RefusedToken: the bearer token is no one's at this table.
	RefusedToken RefusalKind = iota + 1
	// RefusedRole: the token is someone's, but not allowed this.
	RefusedRole
	// RefusedMissing: what the change names is not there.
	RefusedMissing
	// RefusedState: the state does not allow the change now.
	RefusedState
	// RefusedRules: the change breaks a rule of the game.
	RefusedRules
)

func (e *Refusal) Error() string { return e.String() }

// refuse is the Refusal of kind with the message format and args.
func refuse(kind RefusalKind, format string, args ...any) error {
	return &Refusal{Kind: kind, Message: messagef(format, args...)}
}

// pendingKey is the context key of a request's PendingAnswer.
type pendingKey struct{}

// PendingAnswer is the Idempotency-Key of a request that runs: the change
// the request makes keeps its answer under the key in the change's own
// transaction, so that the change and its kept answer commit together or
// not at all. A server that dies between them cannot exist: a retry finds
// either no change and runs, or the change with its answer and replays it.
type PendingAnswer struct {
	// Scope is the key as BeginIdempotent claimed it.
	Scope string
	// Seal encrypts an answer's body for keeping: answers hold tokens.
	Seal func(body []byte) ([]byte, error)
	kept bool
}

// WithPendingAnswer is ctx carrying p, for the change that ctx runs.
func WithPendingAnswer(ctx context.Context, p *PendingAnswer) context.Context {
	return context.WithValue(ctx, pendingKey{}, p)
}

// Kept reports whether a change committed with the answer kept: the
// caller then keeps nothing more.
func (p *PendingAnswer) Kept() bool { return p != nil && p.kept }

func pendingOf(ctx context.Context) *PendingAnswer {
	p, _ := ctx.Value(pendingKey{}).(*PendingAnswer)
	return p
}

// Reply writes a change's result as the answer the request gets. A change
// calls it in its transaction, once, after its last write.
type Reply[R any] func(R) (IdempotentAnswer, error)

// answer writes r with reply and, when the request has an Idempotency-Key,
// keeps the answer under it in tx. A key some other request took over
// meanwhile (its first request ran past PendingTimeout) is ErrInProgress,
// and the change rolls back: the other request makes it.
func answer[R any](ctx context.Context, tx *gorm.DB, reply Reply[R], r R) (IdempotentAnswer, error) {
	a, k, err := answerOf(ctx, reply, r)
	if err != nil || k == nil {
		return a, err
	}
	res := tx.Model(&idempotencyRow{}).Where("scope = ? AND status IS NULL", k.p.Scope).
		Updates(map[string]any{"status": a.Status, "content_type": a.ContentType, "content_language": a.ContentLanguage,
			"location": a.Location, "etag": a.ETag, "body": k.body})
	if res.Error != nil {
		return a, res.Error
	}
	return a, k.kept(res.RowsAffected)
}

// keptAnswer is an answer to keep under the request's Idempotency-Key,
// its body sealed.
type keptAnswer struct {
	p    *PendingAnswer
	body []byte
}

// kept takes the rows the keeping updated: one, or the key is another
// request's now.
func (k *keptAnswer) kept(rows int64) error {
	if rows != 1 {
		return ErrInProgress
	}
	k.p.kept = true
	return nil
}

// answerOf writes r with reply and, when the request has an
// Idempotency-Key, says what to keep under it (nil: nothing).
func answerOf[R any](ctx context.Context, reply Reply[R], r R) (IdempotentAnswer, *keptAnswer, error) {
	if reply == nil {
		return IdempotentAnswer{}, nil, nil
	}
	a, err := reply(r)
	if err != nil {
		return a, nil, err
	}
	p := pendingOf(ctx)
	if p == nil || p.Scope == "" {
		return a, nil, nil
	}
	body := a.Body
	if p.Seal != nil {
		if body, err = p.Seal(a.Body); err != nil {
			return a, nil, err
		}
	}
	if body == nil {
		body = []byte{}
	}
	return a, &keptAnswer{p: p, body: body}, nil
}

// transact runs a change's transaction on the writer. When it fails, an
// answer it kept went with it; after it commits, AfterChange runs.
func (s *Store) transact(ctx context.Context, fn func(tx *gorm.DB) error) error {
	err := s.wrote(s.db.WithContext(ctx).Transaction(fn))
	if err != nil {
		if p := pendingOf(ctx); p != nil {
			p.kept = false
		}
		return err
	}
	if s.AfterChange != nil {
		s.AfterChange()
	}
	return nil
}

package api

import (
	"errors"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"insectscore/models"
	"insectscore/scoring"
)

// problem is an RFC 9457 problem detail, the body of every error response:
// the rules' problem, with the fields only the server's routes need.
type problem struct {
	scoring.Problem
	// CurrentVersion is the table's version when an If-Match was stale.
	CurrentVersion *int `json:"currentVersion,omitempty"`
	// MergeInto is the player a rename collided with: the two are
	// probably one person, and the client can offer to merge them.
	MergeInto string `json:"mergeInto,omitempty"`
	// Seats are the seats whose phones hold unsent edits, when finishing
	// would lose them.
	Seats []unsentSeat `json:"seats,omitempty"`
	// retryAfter, when set, is sent as the Retry-After header (seconds).
	retryAfter string
	// authenticate, when set, is sent as the WWW-Authenticate header.
	authenticate string
	// msg is Detail as a message, written in the client's language when
	// the problem is answered. A detail without one (a problem of Fiber's
	// own) is sent as it is.
	msg scoring.Message
	// localized, when set, is Detail and Errors in another language: an
	// import refused, whose reason names its first error.
	localized func(scoring.Catalog) (string, []scoring.FieldError)
}

// say is the server's message of format and args: its catalog key is
// "api." + format.
func say(format string, args ...any) scoring.Message {
	return scoring.Say("api.", format, args...)
}

// httpError is an error a handler returns when it knows the status to send.
type httpError struct {
	status int
	msg    scoring.Message
	errors []scoring.FieldError
}

func (e *httpError) Error() string { return e.msg.String() }

// errorf makes an httpError with a plain-words detail, from an English
// fmt format that is also the detail's key in the catalogs ("api." +
// format).
func errorf(status int, format string, args ...any) error {
	return &httpError{status: status, msg: say(format, args...)}
}

// refusalStatus is the status of each kind of the store's refusals.
var refusalStatus = map[models.RefusalKind]int{
	models.RefusedToken:   fiber.StatusUnauthorized,
	models.RefusedRole:    fiber.StatusForbidden,
	models.RefusedMissing: fiber.StatusNotFound,
	models.RefusedState:   fiber.StatusConflict,
	models.RefusedRules:   fiber.StatusUnprocessableEntity,
}

// problemTypes gives the problem types that mean more than their status,
// beyond the ones scoring.NewProblem sets.
var problemTypes = map[int]string{
	fiber.StatusConflict: "/api/problems/conflict",
}

// toProblem maps any error to the problem sent for it: this is the one
// table from errors to HTTP statuses.
func toProblem(err error, now time.Time) (problem, bool) {
	var (
		he *httpError
		fe *fiber.Error
		ve *models.VersionError
		ce *models.ConflictError
		ie *models.ImportError
		ne *models.NotesError
		nf *models.NotFoundError
		re *models.Refusal
		se *models.SetupError
		ke *models.KeyLimitError
	)
	switch {
	case errors.Is(err, models.ErrUnavailable):
		return unavailableProblem(err), true
	case errors.As(err, &ve):
		p := newProblem(fiber.StatusConflict, say("the table changed meanwhile: it is at version %d now; reload and try again", ve.Current), nil)
		p.CurrentVersion = &ve.Current
		return p, true
	case errors.As(err, &nf):
		return newProblem(fiber.StatusNotFound, nf.Message, nil), true
	case errors.Is(err, models.ErrNotFound):
		return newProblem(fiber.StatusNotFound, say("there is no such table or seat; check the code"), nil), true
	case errors.As(err, &ce):
		p := newProblem(fiber.StatusConflict, ce.Message, nil)
		p.MergeInto = ce.PlayerID
		return p, true
	case errors.Is(err, models.ErrBadCursor):
		return newProblem(fiber.StatusBadRequest, say("the cursor is not one this list handed out; start again from the first page"), nil), true
	case errors.As(err, &ie):
		p := plainProblem(fiber.StatusUnprocessableEntity, ie.Reason, ie.Errors)
		p.localized = ie.In
		return p, true
	case errors.Is(err, models.ErrBadName):
		return newProblem(fiber.StatusUnprocessableEntity, say("a name needs a letter or a sign that shows, and no NUL character"), nil), true
	case errors.As(err, &ne):
		return newProblem(fiber.StatusUnprocessableEntity, ne.Message, nil), true
	case errors.Is(err, models.ErrBadImport):
		return newProblem(fiber.StatusUnprocessableEntity, say("this file cannot be imported"), nil), true
	case errors.Is(err, models.ErrInProgress):
		p := newProblem(fiber.StatusConflict, say("a request with this Idempotency-Key is still running: try again in a moment"), nil)
		p.Type = "/api/problems/in-progress"
		return p, true
	case errors.As(err, &ke):
		p := newProblem(fiber.StatusTooManyRequests, say("the server keeps as many writes to be retried as it can: try again later"), nil)
		if ke.Client {
			p = newProblem(fiber.StatusTooManyRequests, say("too many writes from your address are kept to be retried: try again later"), nil)
		}
		p.retryAfter = retryAfter(ke.Wait)
		return p, true
	case errors.Is(err, models.ErrKeyReused):
		return newProblem(fiber.StatusUnprocessableEntity, say("this Idempotency-Key was already used for a different request"), nil), true
	case errors.As(err, new(*models.UnsentError)):
		return unsentProblem(err, now), true
	case errors.As(err, &re):
		p := newProblem(refusalStatus[re.Kind], re.Message, nil)
		if re.Kind == models.RefusedToken {
			p.authenticate = `Bearer realm="insectscore", error="invalid_token"`
		}
		return p, true
	case errors.As(err, &se):
		return newProblem(fiber.StatusUnprocessableEntity, se.Message(), se.Errors), true
	case errors.Is(err, models.ErrFinished):
		return newProblem(fiber.StatusConflict, say("this table is finished: its boards can no longer change"), nil), true
	case errors.Is(err, models.ErrConflict):
		return newProblem(fiber.StatusConflict, say("that was already done: the seat is claimed or the name is taken"), nil), true
	case errors.As(err, &he):
		return newProblem(he.status, he.msg, he.errors), true
	case errors.As(err, &fe):
		return plainProblem(fe.Code, fe.Message, nil), true
	}
	p, known := scoring.ProblemOf(err)
	return problem{Problem: p}, known
}

// unavailableRetry is the Retry-After of a 503: a lock held by a backup
// or a one-shot command is usually gone in seconds.
const unavailableRetry = "2"

// unavailableProblem is the 503 for a database that cannot serve now:
// locked by another program past the busy timeout, or read-only.
func unavailableProblem(err error) problem {
	msg := say("the database is busy (another program holds its lock): try again in a moment")
	switch {
	case errors.Is(err, models.ErrImporting):
		msg = say("this group is being imported: try again in a moment")
	case errors.Is(err, models.ErrReadOnly):
		msg = say("the database is read-only at the moment: nothing can be saved; try again later")
	case errors.Is(err, models.ErrDiskFull):
		msg = say("the server's disk is full: nothing new can be saved until room is made; try again later")
	case errors.Is(err, models.ErrUnreachable):
		msg = say("the database cannot be reached at the moment: try again in a moment")
	case errors.Is(err, errNotListening):
		msg = say("this server does not hear the other servers' live updates yet: try again in a moment")
	}
	p := newProblem(fiber.StatusServiceUnavailable, msg, nil)
	p.Type = "/api/problems/unavailable"
	p.retryAfter = unavailableRetry
	return p
}

// in is p in the language of cat (nil: English): the problem of an error
// of the rules as the rules translate it, and any other problem's detail
// and errors by their keys.
func (p problem) in(cat scoring.Catalog, err error) problem {
	if cat == nil {
		return p
	}
	p.Title = cat.Title(p.Status, p.Title)
	if p.localized != nil {
		p.Detail, p.Errors = p.localized(cat)
		return p
	}
	var (
		verr *scoring.ValidationError
		rerr *scoring.RequestError
	)
	if errors.As(err, &verr) || errors.As(err, &rerr) {
		if lp, ok := cat.Problem(err); ok && lp.Status == p.Status {
			p.Detail, p.Errors = lp.Detail, lp.Errors
			return p
		}
	}
	p.Errors = cat.FieldErrors(p.Errors)
	if !p.msg.IsZero() {
		p.Detail = p.msg.In(cat)
	}
	return p
}

// newProblem is the problem of status whose detail is msg.
func newProblem(status int, msg scoring.Message, fields []scoring.FieldError) problem {
	p := plainProblem(status, msg.String(), fields)
	p.msg = msg
	return p
}

// plainProblem is the problem of status whose detail is not a message of
// the server's: it is sent as it is, unless the problem is localized.
func plainProblem(status int, detail string, fields []scoring.FieldError) problem {
	p := scoring.NewProblem(status, detail, fields)
	if typ, ok := problemTypes[status]; ok {
		p.Type = typ
	}
	if p.Title == "" {
		p.Title = utils.StatusMessage(status)
	}
	return problem{Problem: p}
}

// errorHandler renders every error as problem+json. Errors it does not
// know are logged once and reach the client only as "internal error".
func errorHandler(log *slog.Logger, now func() time.Time) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		p, known := toProblem(err, now())
		p = p.in(catalogOf(c), err)
		if !known {
			log.Error("request failed", "method", c.Method(), "path", redactedPath(c), "err", err)
		}
		if p.retryAfter != "" {
			c.Set(fiber.HeaderRetryAfter, p.retryAfter)
		}
		if p.authenticate != "" {
			c.Set(fiber.HeaderWWWAuthenticate, p.authenticate)
		}
		c.Set(fiber.HeaderContentType, "application/problem+json")
		c.Status(p.Status)
		return c.JSON(p, "application/problem+json")
	}
}

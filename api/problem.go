package api

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
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
	// format and args are Detail's English fmt format and arguments,
	// when it has any, so that it can be sent in another language
	// (catalog key "api." + format); a detail without them is keyed by
	// itself.
	format string
	args   []any
	// localized, when set, is Detail and Errors in another language: a
	// problem the store said in sentences of its own (models.Message).
	localized func(scoring.Catalog) (string, []scoring.FieldError)
}

// httpError is an error a handler returns when it knows the status to send.
type httpError struct {
	status int
	detail string
	errors []scoring.FieldError
	// format and args make detail, as for problem.
	format string
	args   []any
}

func (e *httpError) Error() string { return e.detail }

// errorf makes an httpError with a plain-words detail, from an English
// fmt format that is also the detail's key in the catalogs ("api." +
// format).
func errorf(status int, format string, args ...any) error {
	return &httpError{status: status, detail: fmt.Sprintf(format, args...), format: format, args: args}
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
		re *models.Refusal
		se *models.SetupError
		ke *models.KeyLimitError
	)
	switch {
	case errors.Is(err, models.ErrUnavailable):
		return unavailableProblem(err), true
	case errors.As(err, &ve):
		p := newProblemf(fiber.StatusConflict, nil, "the table changed meanwhile: it is at version %d now; reload and try again", ve.Current)
		p.CurrentVersion = &ve.Current
		return p, true
	case errors.Is(err, models.ErrNotFound):
		return newProblem(fiber.StatusNotFound, notFoundDetail(err), nil), true
	case errors.As(err, &ce):
		p := newProblem(fiber.StatusConflict, ce.Reason, nil)
		p.MergeInto = ce.PlayerID
		if ce.Format != "" {
			p.localized = func(cat scoring.Catalog) (string, []scoring.FieldError) { return ce.In(cat), nil }
		}
		return p, true
	case errors.Is(err, models.ErrBadCursor):
		return newProblem(fiber.StatusBadRequest, "the cursor is not one this list handed out; start again from the first page", nil), true
	case errors.As(err, &ie):
		p := newProblem(fiber.StatusUnprocessableEntity, ie.Reason, ie.Errors)
		p.localized = ie.In
		return p, true
	case errors.Is(err, models.ErrBadName):
		return newProblem(fiber.StatusUnprocessableEntity, "a name needs a letter or a sign that shows, and no NUL character", nil), true
	case errors.As(err, &ne):
		p := newProblem(fiber.StatusUnprocessableEntity, ne.String(), nil)
		p.localized = func(cat scoring.Catalog) (string, []scoring.FieldError) { return ne.In(cat), nil }
		return p, true
	case errors.Is(err, models.ErrBadImport):
		return newProblem(fiber.StatusUnprocessableEntity, "this file cannot be imported", nil), true
	case errors.Is(err, models.ErrInProgress):
		p := newProblem(fiber.StatusConflict, "a request with this Idempotency-Key is still running: try again in a moment", nil)
		p.Type = "/api/problems/in-progress"
		return p, true
	case errors.As(err, &ke):
		p := newProblem(fiber.StatusTooManyRequests, "the server keeps as many writes to be retried as it can: try again later", nil)
		if ke.Client {
			p = newProblem(fiber.StatusTooManyRequests, "too many writes from your address are kept to be retried: try again later", nil)
		}
		p.retryAfter = retryAfter(ke.Wait)
		return p, true
	case errors.Is(err, models.ErrKeyReused):
		return newProblem(fiber.StatusUnprocessableEntity, "this Idempotency-Key was already used for a different request", nil), true
	case errors.As(err, new(*models.UnsentError)):
		return unsentProblem(err, now), true
	case errors.As(err, &re):
		p := newProblem(refusalStatus[re.Kind], re.String(), nil)
		p.format, p.args = re.Format, re.Args
		if re.Kind == models.RefusedToken {
			p.authenticate = `Bearer realm="insectscore", error="invalid_token"`
		}
		return p, true
	case errors.As(err, &se):
		p := newProblem(fiber.StatusUnprocessableEntity, se.Error(), se.Errors)
		p.format = se.Error()
		return p, true
	case errors.Is(err, models.ErrFinished):
		return newProblem(fiber.StatusConflict, "this table is finished: its boards can no longer change", nil), true
	case errors.Is(err, models.ErrConflict):
		return newProblem(fiber.StatusConflict, "that was already done: the seat is claimed or the name is taken", nil), true
	case errors.As(err, &he):
		p := newProblem(he.status, he.detail, he.errors)
		p.format, p.args = he.format, he.args
		return p, true
	case errors.As(err, &fe):
		return newProblem(fe.Code, fe.Message, nil), true
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
	detail := "the database is busy (another program holds its lock): try again in a moment"
	switch {
	case errors.Is(err, models.ErrImporting):
		detail = "this group is being imported: try again in a moment"
	case errors.Is(err, models.ErrReadOnly):
		detail = "the database is read-only at the moment: nothing can be saved; try again later"
	case errors.Is(err, models.ErrDiskFull):
		detail = "the server's disk is full: nothing new can be saved until room is made; try again later"
	}
	p := newProblem(fiber.StatusServiceUnavailable, detail, nil)
	p.Type = "/api/problems/unavailable"
	p.retryAfter = unavailableRetry
	return p
}

// notFoundDetail is the store's reason when it gave one ("no play "x" in
// this group"); a bare ErrNotFound comes from a table code or seat.
func notFoundDetail(err error) string {
	if reason, ok := strings.CutPrefix(err.Error(), models.ErrNotFound.Error()+": "); ok {
		return reason
	}
	return "there is no such table or seat; check the code"
}

// newProblemf is newProblem with a detail made from an English fmt
// format, which is also its key in the catalogs.
func newProblemf(status int, fields []scoring.FieldError, format string, args ...any) problem {
	p := newProblem(status, fmt.Sprintf(format, args...), fields)
	p.format, p.args = format, args
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
	switch format, args := storeReason(p.Detail); {
	case p.format != "":
		p.Detail = cat.Format("api.", p.format, p.args...)
	case format != "":
		p.Detail = cat.Format("api.", format, args...)
	default:
		p.Detail = cat.Text("api."+p.Detail, p.Detail)
	}
	return p
}

// storeReasons are the formats of the store's reasons that name a value
// (models: not found, a name taken). The store hands them over written
// out; storeReason finds which one wrote a reason, so that it can be
// written again in another language.
var storeReasons = []string{
	"no group %q",
	"no player %q in this group",
	"no play %q in this group",
}

// storeReason is the format and value of a reason one of storeReasons
// wrote, or "" when none did: the value read back must write the same
// reason again.
func storeReason(reason string) (string, []any) {
	for _, format := range storeReasons {
		var v string
		if n, err := fmt.Sscanf(reason, format, &v); err == nil && n == 1 && fmt.Sprintf(format, v) == reason {
			return format, []any{v}
		}
	}
	return "", nil
}

func newProblem(status int, detail string, fields []scoring.FieldError) problem {
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

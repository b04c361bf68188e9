package api

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/utils"

	"insectscore/models"
	"insectscore/scoring"
)

// problem is an RFC 9457 problem detail, the body of every error response.
type problem struct {
	Type   string               `json:"type"`
	Title  string               `json:"title"`
	Status int                  `json:"status"`
	Detail string               `json:"detail,omitempty"`
	Errors []scoring.FieldError `json:"errors,omitempty"`
	// CurrentVersion is the table's version when an If-Match was stale.
	CurrentVersion *int `json:"currentVersion,omitempty"`
	// MergeInto is the player a rename collided with: the two are
	// probably one person, and the client can offer to merge them.
	MergeInto string `json:"mergeInto,omitempty"`
}

// httpError is an error a handler returns when it knows the status to send.
type httpError struct {
	status int
	detail string
	errors []scoring.FieldError
}

func (e *httpError) Error() string { return e.detail }

// errorf makes an httpError with a plain-words detail.
func errorf(status int, detail string) error {
	return &httpError{status: status, detail: detail}
}

// problemTypes gives the problem types that mean more than their status.
var problemTypes = map[int]string{
	fiber.StatusUnprocessableEntity: "/api/problems/validation",
	fiber.StatusConflict:            "/api/problems/conflict",
}

// toProblem maps any error to the problem sent for it: this is the one
// table from errors to HTTP statuses.
func toProblem(err error) (problem, bool) {
	var (
		he   *httpError
		verr *scoring.ValidationError
		fe   *fiber.Error
		ve   *models.VersionError
		ce   *models.ConflictError
		ie   *models.ImportError
	)
	switch {
	case errors.As(err, &ve):
		p := newProblem(fiber.StatusConflict, fmt.Sprintf("the table changed meanwhile: it is at version %d now; reload and try again", ve.Current), nil)
		p.CurrentVersion = &ve.Current
		return p, true
	case errors.Is(err, models.ErrNotFound):
		return newProblem(fiber.StatusNotFound, notFoundDetail(err), nil), true
	case errors.As(err, &ce):
		p := newProblem(fiber.StatusConflict, ce.Reason, nil)
		p.MergeInto = ce.PlayerID
		return p, true
	case errors.Is(err, models.ErrBadCursor):
		return newProblem(fiber.StatusBadRequest, "the cursor is not one this list handed out; start again from the first page", nil), true
	case errors.As(err, &ie):
		return newProblem(fiber.StatusUnprocessableEntity, ie.Reason, nil), true
	case errors.Is(err, models.ErrBadImport):
		return newProblem(fiber.StatusUnprocessableEntity, "this file cannot be imported", nil), true
	case errors.Is(err, models.ErrFinished):
		return newProblem(fiber.StatusConflict, "this table is finished: its boards can no longer change", nil), true
	case errors.Is(err, models.ErrTableFull):
		return newProblem(fiber.StatusConflict, "this table is full", nil), true
	case errors.Is(err, models.ErrConflict):
		return newProblem(fiber.StatusConflict, "that was already done: the seat is claimed or the name is taken", nil), true
	case errors.As(err, &verr):
		return newProblem(fiber.StatusUnprocessableEntity, "some entries break the rules", verr.Errors), true
	case errors.As(err, &he):
		return newProblem(he.status, he.detail, he.errors), true
	case errors.As(err, &fe):
		return newProblem(fe.Code, fe.Message, nil), true
	}
	return newProblem(fiber.StatusInternalServerError, "internal error", nil), false
}

// notFoundDetail is the store's reason when it gave one ("no play "x" in
// this group"); a bare ErrNotFound comes from a table code or seat.
func notFoundDetail(err error) string {
	if reason, ok := strings.CutPrefix(err.Error(), models.ErrNotFound.Error()+": "); ok {
		return reason
	}
	return "there is no such table or seat; check the code"
}

func newProblem(status int, detail string, fields []scoring.FieldError) problem {
	typ, ok := problemTypes[status]
	if !ok {
		typ = "about:blank"
	}
	return problem{Type: typ, Title: statusTitle(status), Status: status, Detail: detail, Errors: fields}
}

func statusTitle(status int) string {
	if status == fiber.StatusUnprocessableEntity {
		return "Unprocessable Content"
	}
	return utils.StatusMessage(status)
}

// errorHandler renders every error as problem+json. Errors it does not
// know are logged once and reach the client only as "internal error".
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		p, known := toProblem(err)
		if !known {
			log.Error("request failed", "method", c.Method(), "path", c.Path(), "err", err)
		}
		c.Set(fiber.HeaderContentType, "application/problem+json")
		c.Status(p.Status)
		return c.JSON(p, "application/problem+json")
	}
}

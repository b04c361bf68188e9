package scoring

import (
	"errors"
)

// Problem is an RFC 9457 problem detail, the body of an error answer. The
// server and the browser's engine both render the errors of the rules
// through ProblemOf, so the two send the same bytes for the same request.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`
}

// ProblemTypeValidation is the problem type of a request that breaks the
// rules (422): its errors say where.
const ProblemTypeValidation = "/api/problems/validation"

// RequestError is a request the rules cannot read: no body or malformed
// JSON (400), or an unknown game (404). Status is the HTTP status of its
// problem.
type RequestError struct {
	Status int
	Detail string
	// Errors, when set, point at the part of the request that could not
	// be read (text that is not UTF-8).
	Errors []FieldError
	// msg is Detail as a Message, as for FieldError.
	msg Message
}

func (e *RequestError) Error() string { return e.Detail }

// requestErrorf makes a RequestError whose detail can be translated.
func requestErrorf(status int, format string, args ...any) *RequestError {
	m := rules(format, args...)
	return &RequestError{Status: status, Detail: m.String(), msg: m}
}

// validationDetail is the detail of every 422 of the rules.
const validationDetail = "some entries break the rules"

// statusTitles are the titles of the statuses the rules answer with.
var statusTitles = map[int]string{
	400: "Bad Request",
	404: "Not Found",
	422: "Unprocessable Content",
	500: "Internal Server Error",
}

// NewProblem builds the problem for a status. Type is "about:blank" but
// for a 422; Title is empty for a status the rules never answer with, for
// the server to fill in.
func NewProblem(status int, detail string, errs []FieldError) Problem {
	typ := "about:blank"
	if status == 422 {
		typ = ProblemTypeValidation
	}
	return Problem{Type: typ, Title: statusTitles[status], Status: status, Detail: detail, Errors: errs}
}

// ProblemOf maps an error of the rules to its problem. For any other error
// it returns a 500 "internal error" and false: the caller logs it, and the
// client learns nothing of it.
func ProblemOf(err error) (Problem, bool) {
	var (
		verr *ValidationError
		rerr *RequestError
	)
	switch {
	case errors.As(err, &verr):
		return NewProblem(422, validationDetail, verr.Errors), true
	case errors.As(err, &rerr):
		return NewProblem(rerr.Status, rerr.Detail, rerr.Errors), true
	}
	return NewProblem(500, "internal error", nil), false
}

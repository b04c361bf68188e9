package models

import (
	"encoding/json"

	"insectscore/scoring"
)

// messagef is the store's sentence for the user of format and args, a
// message of the server's: its catalog key is "api." + format, so that
// the API writes it in the client's language.
func messagef(format string, args ...any) scoring.Message {
	return scoring.Say("api.", format, args...)
}

// TextError says why a text (a play's notes or location) cannot be kept.
type TextError struct {
	scoring.Message
}

func (e *TextError) Error() string { return e.String() }

// textErrorf is the TextError of format and args.
func textErrorf(format string, args ...any) error {
	return &TextError{messagef(format, args...)}
}

// NotFoundError is an ErrNotFound with the store's reason ("no play "x"
// in this group").
type NotFoundError struct {
	scoring.Message
}

func (e *NotFoundError) Error() string { return ErrNotFound.Error() + ": " + e.String() }

// Unwrap makes errors.Is(err, ErrNotFound) hold.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// notFound is the NotFoundError of format and args.
func notFound(format string, args ...any) error {
	return &NotFoundError{messagef(format, args...)}
}

// encodeStandings is the text of a play's standings column, the result in
// the API's shape, and of its messages column: the result's warnings and
// tie sentence as keys and arguments (scoring.ResultMessages), or nil
// when it has none. The API's readers never see the second: it is read
// only to write the first's sentences in another language.
func encodeStandings(res *scoring.Result) (standings string, messages *string, err error) {
	b, err := json.Marshal(res)
	if err != nil {
		return "", nil, err
	}
	if m := res.Messages(); !m.IsZero() {
		mb, err := json.Marshal(m)
		if err != nil {
			return "", nil, err
		}
		s := string(mb)
		messages = &s
	}
	return string(b), messages, nil
}

// decodeMessages reads a play's messages column; a play without one
// (none to keep, or one its migration could not convert) has the zero
// ResultMessages, and its sentences stay in English.
func decodeMessages(text *string) scoring.ResultMessages {
	var m scoring.ResultMessages
	if text != nil && json.Unmarshal([]byte(*text), &m) != nil {
		return scoring.ResultMessages{}
	}
	return m
}

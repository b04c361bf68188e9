package models

import (
	"fmt"

	"insectscore/scoring"
)

// Message is a sentence of the store's for the user, kept as its English
// fmt format and arguments so that the API can write it again in another
// language: its catalog key is "api." + Format, as for the server's own
// messages. An argument may be a Message itself, or another
// scoring.Localizer.
type Message struct {
	Format string
	Args   []any
}

// messagef is the Message of format and args.
func messagef(format string, args ...any) Message {
	return Message{Format: format, Args: args}
}

// String is the message in English.
func (m Message) String() string {
	return fmt.Sprintf(m.Format, m.Args...)
}

// In is the message in cat's language (nil: English).
func (m Message) In(cat scoring.Catalog) string {
	return cat.Format("api.", m.Format, m.Args...)
}

// TextError says why a text (a play's notes or location) cannot be kept.
type TextError struct {
	Message
}

func (e *TextError) Error() string { return e.String() }

// textErrorf is the TextError of format and args.
func textErrorf(format string, args ...any) error {
	return &TextError{messagef(format, args...)}
}

package scoring

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Message is a sentence for the user (an error, a warning, a note, the
// tie sentence of a result) as its catalog key and arguments, kept from
// the place that makes it and written in a language only when it is
// answered, as Miniflux's LocalizedError is. Its key is a prefix and the
// English fmt format itself, as gettext keys a message by its English
// text: "rules.choose the %s" for the rules, "api.…" for the server's
// own. An argument may be a word of a catalog, a list, or a Message of
// its own; they print in English with %s and %v.
//
// A Message is stored as it is kept (see its MarshalJSON), so that a
// sentence read back from the database is written in another language by
// its key, never by reading its English back.
type Message struct {
	Key  string
	Args []any
}

// Say is the message of the key prefix+format with args: "rules." for a
// message of the rules, "api." for one of the server.
func Say(prefix, format string, args ...any) Message {
	return Message{Key: prefix + format, Args: args}
}

// rules is the message of the rules with format and args.
func rules(format string, args ...any) Message { return Say("rules.", format, args...) }

// format is m's English fmt format: its key without its prefix.
func (m Message) format() string {
	_, format, _ := strings.Cut(m.Key, ".")
	return format
}

// String is m in English.
func (m Message) String() string {
	return fmt.Sprintf(m.format(), m.Args...)
}

// In is m in c's language (nil: English); a message c has no translation
// for is written in English, its words translated.
func (m Message) In(c Catalog) string {
	if c == nil {
		return m.String()
	}
	return fmt.Sprintf(c.text(m.Key, m.format()), c.args(m.Args)...)
}

// IsZero says m is no message.
func (m Message) IsZero() bool { return m.Key == "" }

// The stored form of a message is {"key": …, "args": […]}. An argument is
// a JSON string or integer as it is; a word is {"word": key, "en": text}
// (and "totals": game for a line of a totals sheet), a list
// {"or": "a, b or c"}, and a message of its own {"key", "args"}.
// Any other argument is kept as the string it prints.
type storedMessage struct {
	Key  string           `json:"key"`
	Args []jsontext.Value `json:"args,omitempty"`
}

type storedWord struct {
	Word   string `json:"word"`
	En     string `json:"en"`
	Totals string `json:"totals,omitempty"`
}

type storedList struct {
	Or string `json:"or"`
}

// MarshalJSON writes m in its stored form.
func (m Message) MarshalJSON() ([]byte, error) {
	out := storedMessage{Key: m.Key}
	for _, a := range m.Args {
		var v any
		switch a := a.(type) {
		case string, int, int64:
			v = a
		case word:
			v = storedWord{Word: a.key, En: a.en, Totals: a.totals}
		case orList:
			v = storedList{Or: string(a)}
		case Message:
			v = a
		default:
			v = fmt.Sprint(a)
		}
		b, err := jsonv2.Marshal(v, asEncodingJSON)
		if err != nil {
			return nil, err
		}
		out.Args = append(out.Args, b)
	}
	return jsonv2.Marshal(out, asEncodingJSON)
}

// UnmarshalJSON reads m from its stored form.
func (m *Message) UnmarshalJSON(b []byte) error {
	var in storedMessage
	if err := jsonv2.Unmarshal(b, &in, asEncodingJSON); err != nil {
		return err
	}
	*m = Message{Key: in.Key}
	for _, raw := range in.Args {
		a, err := storedArg(raw)
		if err != nil {
			return err
		}
		m.Args = append(m.Args, a)
	}
	return nil
}

// storedArg reads one argument of a stored message.
func storedArg(raw jsontext.Value) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, fmt.Errorf("scoring: an empty argument of a message")
	}
	switch raw[0] {
	case '"':
		var s string
		err := jsonv2.Unmarshal(raw, &s, asEncodingJSON)
		return s, err
	case '{':
		var probe map[string]jsontext.Value
		if err := jsonv2.Unmarshal(raw, &probe, asEncodingJSON); err != nil {
			return nil, err
		}
		switch {
		case probe["word"] != nil:
			var w storedWord
			err := jsonv2.Unmarshal(raw, &w, asEncodingJSON)
			return word{key: w.Word, en: w.En, totals: w.Totals}, err
		case probe["or"] != nil:
			var l storedList
			err := jsonv2.Unmarshal(raw, &l, asEncodingJSON)
			return orList(l.Or), err
		case probe["key"] != nil:
			var m Message
			err := m.UnmarshalJSON(raw)
			return m, err
		}
	default:
		if n, err := strconv.Atoi(string(raw)); err == nil {
			return n, nil
		}
	}
	return nil, fmt.Errorf("scoring: an argument of a message that is none: %s", raw)
}

// ResultMessages are the sentences of a Result as messages: the tie
// sentence, and each player's warnings in order. The server stores them
// beside the result, whose JSON (the API's shape) holds only their
// English, so that a stored play is written in another language by key.
type ResultMessages struct {
	Tiebreak *Message    `json:"tiebreak,omitempty"`
	Warnings [][]Message `json:"warnings,omitempty"`
}

// IsZero says m holds no message.
func (m ResultMessages) IsZero() bool { return m.Tiebreak == nil && m.Warnings == nil }

// Messages are r's sentences as messages; the zero ResultMessages when r
// has no tie sentence and no warning.
func (r *Result) Messages() ResultMessages {
	var out ResultMessages
	if !r.tie.IsZero() {
		tie := r.tie
		out.Tiebreak = &tie
	}
	warned := false
	for _, p := range r.Results {
		warned = warned || len(p.Warnings) > 0
	}
	if !warned {
		return out
	}
	out.Warnings = make([][]Message, len(r.Results))
	for i, p := range r.Results {
		out.Warnings[i] = make([]Message, len(p.Warnings))
		for k, w := range p.Warnings {
			out.Warnings[i][k] = w.msg
		}
	}
	return out
}

// SetMessages puts back into r, read back from JSON, the messages stored
// beside it, by position: the tie sentence when r has one, and the
// warnings of each player whose count matches. Its English stays as
// stored.
func (r *Result) SetMessages(m ResultMessages) {
	if m.Tiebreak != nil && r.Tiebreak != "" {
		r.tie = *m.Tiebreak
	}
	if len(m.Warnings) != len(r.Results) {
		return
	}
	for i := range r.Results {
		ws := r.Results[i].Warnings
		if len(m.Warnings[i]) != len(ws) {
			continue
		}
		for k := range ws {
			ws[k].msg = m.Warnings[i][k]
		}
	}
}

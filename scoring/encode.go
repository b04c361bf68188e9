//go:build !js

package scoring

import (
	"math/bits"
	"strconv"
	"unicode/utf8"
)

// AppendJSON appends r to dst as encoding/json's Marshal writes it, byte
// for byte (the same member order, omitempty and omitzero members, null
// for a nil list, and the same escapes, HTML characters included), without
// reflection: the score endpoint answers with it. TestAppendJSONAgrees
// holds it to json.Marshal. The browser's engine goes without it and
// marshals, which the engine parity test compares with the server.
func (r *Result) AppendJSON(dst []byte) []byte {
	dst = append(dst, `{"game":`...)
	dst = appendJSONString(dst, r.Game)
	dst = append(dst, `,"complete":`...)
	dst = strconv.AppendBool(dst, r.Complete)
	dst = append(dst, `,"winners":`...)
	dst = appendJSONList(dst, r.Winners, func(dst []byte, w int) []byte { return strconv.AppendInt(dst, int64(w), 10) })
	dst = append(dst, `,"results":`...)
	dst = appendJSONList(dst, r.Results, appendPlayerResult)
	if r.Tiebreak != "" {
		dst = append(dst, `,"tiebreak":`...)
		dst = appendJSONString(dst, r.Tiebreak)
	}
	if r.SoloRating != "" {
		dst = append(dst, `,"soloRating":`...)
		dst = appendJSONString(dst, r.SoloRating)
	}
	return append(dst, '}')
}

func appendPlayerResult(dst []byte, p PlayerResult) []byte {
	dst = append(dst, `{"name":`...)
	dst = appendJSONString(dst, p.Name)
	dst = append(dst, `,"total":`...)
	dst = strconv.AppendInt(dst, int64(p.Total), 10)
	dst = append(dst, `,"rank":`...)
	dst = strconv.AppendInt(dst, int64(p.Rank), 10)
	dst = append(dst, `,"winner":`...)
	dst = strconv.AppendBool(dst, p.Winner)
	dst = append(dst, `,"breakdown":`...)
	dst = appendJSONList(dst, p.Breakdown, appendLine)
	dst = append(dst, `,"tiebreaks":`...)
	dst = appendJSONList(dst, p.Tiebreaks, appendTiebreak)
	dst = append(dst, `,"warnings":`...)
	dst = appendJSONList(dst, p.Warnings, appendFieldError)
	if p.Entered != "" {
		dst = append(dst, `,"entered":`...)
		dst = appendJSONString(dst, p.Entered)
	}
	return append(dst, '}')
}

func appendLine(dst []byte, l Line) []byte {
	dst = append(dst, `{"key":`...)
	dst = appendJSONString(dst, l.Key)
	dst = append(dst, `,"label":`...)
	dst = appendJSONString(dst, l.Label)
	dst = append(dst, `,"points":`...)
	dst = strconv.AppendInt(dst, int64(l.Points), 10)
	dst = appendSources(dst, l.Sources)
	return append(dst, '}')
}

func appendTiebreak(dst []byte, t Tiebreak) []byte {
	dst = append(dst, `{"key":`...)
	dst = appendJSONString(dst, t.Key)
	dst = append(dst, `,"label":`...)
	dst = appendJSONString(dst, t.Label)
	dst = append(dst, `,"value":`...)
	dst = strconv.AppendInt(dst, int64(t.Value), 10)
	dst = appendSources(dst, t.Sources)
	return append(dst, '}')
}

// appendSources appends the sources member, which omitzero leaves out
// when the list is nil (an empty list is written).
func appendSources(dst []byte, sources []Source) []byte {
	if sources == nil {
		return dst
	}
	dst = append(dst, `,"sources":`...)
	return appendJSONList(dst, sources, appendSource)
}

func appendSource(dst []byte, s Source) []byte {
	dst = append(dst, `{"pointer":`...)
	dst = appendJSONString(dst, s.Pointer)
	if s.Points != 0 {
		dst = append(dst, `,"points":`...)
		dst = strconv.AppendInt(dst, int64(s.Points), 10)
	}
	if s.Label != "" {
		dst = append(dst, `,"label":`...)
		dst = appendJSONString(dst, s.Label)
	}
	return append(dst, '}')
}

func appendFieldError(dst []byte, e FieldError) []byte {
	dst = append(dst, `{"pointer":`...)
	dst = appendJSONString(dst, e.Pointer)
	dst = append(dst, `,"detail":`...)
	dst = appendJSONString(dst, e.Detail)
	if len(e.Pointers) > 0 {
		dst = append(dst, `,"pointers":`...)
		dst = appendJSONList(dst, e.Pointers, appendJSONString)
	}
	return append(dst, '}')
}

// appendJSONList appends list as a JSON array, or null when it is nil.
func appendJSONList[T any](dst []byte, list []T, elem func([]byte, T) []byte) []byte {
	if list == nil {
		return append(dst, "null"...)
	}
	dst = append(dst, '[')
	for i, v := range list {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst, v)
	}
	return append(dst, ']')
}

// jsonPlain marks the ASCII bytes encoding/json writes as they are: not
// control characters, quotes, backslashes or the HTML characters <, > and &.
var jsonPlain = func() (plain [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\' && c != '<' && c != '>' && c != '&'
	}
	return plain
}()

// appendJSONString appends s quoted as encoding/json does: \" \\ \b \f
// \n \r \t, \u00XX for other control characters and for <, > and &,
// \ufffd for each byte that is not UTF-8, and \u2028 and \u2029.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start, i := 0, 0
	for {
		// Plain bytes 8 at a time, to the next that is not (jsonStops).
		for i+8 <= len(s) {
			if m := jsonStops(load64(s, i)); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		if c := s[i]; c < utf8.RuneSelf {
			if jsonPlain[c] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch c {
			case '\\', '"':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// load64 is the 8 bytes of s at i, little-endian (one load).
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// jsonStops marks, in the high bit of each byte, the bytes of w that
// jsonPlain does not (control characters, ", \, <, >, & and every byte
// of a non-ASCII character), as far as the first of them: as in
// textStops, only the lowest mark counts.
func jsonStops(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^(ones*'"'), w^(ones*'\\')
	lt, gt, amp := w^(ones*'<'), w^(ones*'>'), w^(ones*'&')
	return ((w-ones*' ')&^w | w |
		(quote-ones)&^quote | (backslash-ones)&^backslash |
		(lt-ones)&^lt | (gt-ones)&^gt | (amp-ones)&^amp) & highs
}

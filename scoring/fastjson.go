//go:build !js

package scoring

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"
)

// The fast path of the server's decoding: hand-written readers of the JSON
// the score requests and the Insecta and Insektenhotel boards are made of,
// without reflection. They read a strict subset of JSON: text without
// escapes, whole numbers written plainly (no fraction, exponent or -0, at
// most 18 digits), each member once, and only the members of the type, with
// its exact name. Whatever lies outside that subset, valid or not, makes
// them give up, and the body takes JSON v2's way (onepass.go) and then, if
// need be, encoding/json's, which decide as before. What a fast reader
// accepts, both of those accept with the same value; TestOnePassDecodeAgrees
// and every game's fuzz target hold them to it, and TestFastReadersKnowTheirTypes
// that they know every member of their types.

// reader reads JSON from b at i. Each method reports whether it could; a
// false means "take the other way", never "the JSON is wrong".
type reader struct {
	b []byte
	i int
	// s is b as a string when text values are taken from it without a
	// copy each, "" when each is copied.
	s string
}

// maxDepth is how deep skip follows nested values before giving up.
const maxDepth = 64

// ws skips JSON white space.
func (r *reader) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// peek is the next byte after white space, or 0 at the end. Compact
// JSON has none, so a byte that cannot be white space is taken first.
func (r *reader) peek() byte {
	if r.i < len(r.b) && r.b[r.i] > ' ' {
		return r.b[r.i]
	}
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// eat consumes c, after white space.
func (r *reader) eat(c byte) bool {
	if r.peek() == c {
		r.i++
		return true
	}
	return false
}

// end reports whether nothing but white space is left.
func (r *reader) end() bool {
	r.ws()
	return r.i == len(r.b)
}

// literal consumes word ("null", "true", "false").
func (r *reader) literal(word string) bool {
	if len(r.b)-r.i >= len(word) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

// null consumes a null when one comes next.
func (r *reader) null() bool {
	return r.peek() == 'n' && r.literal("null")
}

// text reads a string without escapes and returns its bytes. Text that is
// not UTF-8 makes it give up, as does any escape or a control character.
// It looks at 8 bytes at a time (textStops) while 8 are left.
func (r *reader) text() (start, end int, ok bool) {
	b, i := r.b, r.i
	if i >= len(b) || b[i] != '"' {
		if !r.eat('"') {
			return 0, 0, false
		}
		i = r.i - 1
	}
	i++
	start = i
	ascii := true
	for {
		for i+8 <= len(b) {
			if m := textStops(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(b) {
			return 0, 0, false
		}
		c := b[i]
		switch {
		case !textStop[c]:
		case c == '"':
			r.i = i + 1
			if ascii {
				return start, i, true
			}
			return start, i, utf8.Valid(b[start:i])
		case c >= utf8.RuneSelf:
			ascii = false
		default: // a backslash or a control character
			return 0, 0, false
		}
		i++
	}
}

// textStop marks the bytes text looks at: the quote, the backslash,
// control characters and the bytes of non-ASCII characters.
var textStop = func() (stop [256]bool) {
	for c := range stop {
		stop[c] = c == '"' || c == '\\' || c < ' ' || c >= utf8.RuneSelf
	}
	return stop
}()

// textStops marks, in the high bit of each byte, the bytes of w (8 bytes
// read little-endian) that textStop marks, as far as the first of them:
// bytes after it may be marked wrongly (a borrow runs on into them), so
// only the lowest mark counts. Each test is the classic "has a zero
// byte": (x - 0x01…) &^ x & 0x80… marks a byte of x that is 0, and
// (w - 0x20…) &^ w one below 0x20.
func textStops(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote := w ^ (ones * '"')
	backslash := w ^ (ones * '\\')
	return ((quote-ones)&^quote | (backslash-ones)&^backslash | (w-ones*' ')&^w | w) & highs
}

// str reads a string value.
func (r *reader) str() (string, bool) {
	start, end, ok := r.text()
	if !ok {
		return "", false
	}
	if r.s != "" {
		return r.s[start:end], true
	}
	return string(r.b[start:end]), true
}

// key reads an object member's name and its colon; the name is valid
// until the reader's bytes change.
func (r *reader) key() ([]byte, bool) {
	start, end, ok := r.text()
	if !ok {
		return nil, false
	}
	if r.i < len(r.b) && r.b[r.i] == ':' {
		r.i++
	} else if !r.eat(':') {
		return nil, false
	}
	return r.b[start:end:end], true
}

// more reads what follows a member or an element: a comma (true, and ok)
// or the closing byte (false, and ok).
func (r *reader) more(closing byte) (more, ok bool) {
	switch r.peek() {
	case ',':
		r.i++
		return true, true
	case closing:
		r.i++
		return false, true
	}
	return false, false
}

// object reads an object, calling member for each member's name with the
// reader at its value. member reads the value and reports whether it could.
func (r *reader) object(member func(name []byte) bool) bool {
	if !r.eat('{') {
		return false
	}
	if r.eat('}') {
		return true
	}
	for {
		name, ok := r.key()
		if !ok || !member(name) {
			return false
		}
		more, ok := r.more('}')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

// array reads an array, calling elem with the reader at each element.
func (r *reader) array(elem func() bool) bool {
	if !r.eat('[') {
		return false
	}
	if r.eat(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		more, ok := r.more(']')
		if !ok {
			return false
		}
		if !more {
			return true
		}
	}
}

// int reads a whole number written plainly: an optional minus, then 0 or
// up to 18 digits not starting with 0. "-0" is left to the other way.
func (r *reader) int() (int, bool) {
	r.ws()
	neg := r.i < len(r.b) && r.b[r.i] == '-'
	if neg {
		r.i++
	}
	start := r.i
	n := 0
	for r.i < len(r.b) && r.b[r.i] >= '0' && r.b[r.i] <= '9' {
		n = n*10 + int(r.b[r.i]-'0')
		r.i++
	}
	digits := r.i - start
	switch {
	case digits == 0 || digits > 18 || digits > 1 && r.b[start] == '0' || neg && n == 0:
		return 0, false
	case r.i < len(r.b) && (r.b[r.i] == '.' || r.b[r.i] == 'e' || r.b[r.i] == 'E'):
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// skip reads any JSON value without keeping it, checking it as strictly
// as the rest; names are not checked for duplicates (the value's own
// decoder does that).
func (r *reader) skip(depth int) bool {
	if depth > maxDepth {
		return false
	}
	switch r.peek() {
	case '{':
		r.i++
		if r.eat('}') {
			return true
		}
		for {
			if _, ok := r.key(); !ok || !r.skip(depth+1) {
				return false
			}
			if more, ok := r.more('}'); !ok || !more {
				return ok
			}
		}
	case '[':
		r.i++
		if r.eat(']') {
			return true
		}
		for {
			if !r.skip(depth + 1) {
				return false
			}
			if more, ok := r.more(']'); !ok || !more {
				return ok
			}
		}
	case '"':
		_, _, ok := r.text()
		return ok
	case 't':
		return r.literal("true")
	case 'f':
		return r.literal("false")
	case 'n':
		return r.literal("null")
	}
	return r.number()
}

// number reads any JSON number (RFC 8259 §6).
func (r *reader) number() bool {
	b, i := r.b, r.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	r.i = i
	return true
}

// seen marks member bit in *set and reports whether it was already there:
// a name given twice is left to the other way.
func seen(set *uint32, bit uint32) bool {
	if *set&bit != 0 {
		return true
	}
	*set |= bit
	return false
}

// arena hands out the pointers of the boards' optional fields, and their
// lists of tiles and medals, from a few shared blocks instead of one
// allocation each. Nothing writes through them after decoding.
type arena struct {
	ints   []int
	strs   []string
	bools  []bool
	tiles  []insectaTile
	medals []insectaMedal
}

// sizedFor makes blocks for the Insecta board raw. Each tile and medal is an object, so raw's objects bound
// them, up to a bound: beyond it, blocks are made as they are needed. An
// insect has 2 whole numbers and up to 5 strings, a mail 3 and 1.
func (a *arena) sizedFor(raw []byte) {
	objects := min(bytes.Count(raw, []byte("{")), 256)
	a.ints = block(a.ints, objects*3)
	a.strs = block(a.strs, objects*5)
	a.bools = block(a.bools, objects)
	a.tiles = block(a.tiles, objects)
	a.medals = block(a.medals, objects)
}

// block is s emptied when it holds n, else a new block for n.
func block[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:0]
	}
	return make([]T, 0, n)
}

func (a *arena) int(v int) *int {
	if len(a.ints) == cap(a.ints) {
		a.ints = make([]int, 0, 32)
	}
	a.ints = append(a.ints, v)
	return &a.ints[len(a.ints)-1]
}

func (a *arena) str(v string) *string {
	if len(a.strs) == cap(a.strs) {
		a.strs = make([]string, 0, 32)
	}
	a.strs = append(a.strs, v)
	return &a.strs[len(a.strs)-1]
}

func (a *arena) bool(v bool) *bool {
	if len(a.bools) == cap(a.bools) {
		a.bools = make([]bool, 0, 32)
	}
	a.bools = append(a.bools, v)
	return &a.bools[len(a.bools)-1]
}

// optInt reads null (nil) or a whole number into *p.
func (r *reader) optInt(a *arena, p **int) bool {
	if r.peek() == 'n' {
		*p = nil
		return r.literal("null")
	}
	v, ok := r.int()
	if ok {
		*p = a.int(v)
	}
	return ok
}

// optStr reads null (nil) or a string into *p.
func (r *reader) optStr(a *arena, p **string) bool {
	if r.peek() == 'n' {
		*p = nil
		return r.literal("null")
	}
	v, ok := r.str()
	if ok {
		*p = a.str(v)
	}
	return ok
}

// optBool reads null (nil), true or false into *p.
func (r *reader) optBool(a *arena, p **bool) bool {
	switch {
	case r.null():
		*p = nil
		return true
	case r.literal("true"):
		*p = a.bool(true)
		return true
	case r.literal("false"):
		*p = a.bool(false)
		return true
	}
	return false
}

// reqStr reads null (left as "") or a string into *p.
func (r *reader) reqStr(p *string) bool {
	if r.null() {
		return true
	}
	v, ok := r.str()
	*p = v
	return ok
}

// reqInt reads null (left as 0) or a whole number into *p.
func (r *reader) reqInt(p *int) bool {
	if r.null() {
		return true
	}
	v, ok := r.int()
	*p = v
	return ok
}

// readRequest reads a score request: its players' names and boards (each
// board's bytes as they are, for the game to decode) and its variants.
func readRequest(body []byte, req *Request) bool {
	r := reader{b: body, s: string(body)}
	var members uint32
	ok := r.object(func(name []byte) bool {
		switch string(name) {
		case "players":
			return !seen(&members, 1) && r.readPlayers(&req.Players)
		case "variants":
			return !seen(&members, 2) && r.readVariants(&req.Variants)
		}
		return false
	})
	return ok && r.end()
}

// readPlayers reads the players.
func (r *reader) readPlayers(players *[]PlayerInput) bool {
	if r.null() {
		*players = nil
		return true
	}
	var buf [8]PlayerInput
	list := buf[:0]
	ok := r.array(func() bool {
		var p PlayerInput
		if !r.readPlayer(&p) {
			return false
		}
		list = append(list, p)
		return true
	})
	if ok {
		*players = append(make([]PlayerInput, 0, len(list)), list...)
	}
	return ok
}

func (r *reader) readPlayer(p *PlayerInput) bool {
	var members uint32
	return r.object(func(name []byte) bool {
		switch string(name) {
		case "name":
			return !seen(&members, 1) && r.reqStr(&p.Name)
		case "board":
			if seen(&members, 2) {
				return false
			}
			r.ws()
			start := r.i
			if !r.skip(0) {
				return false
			}
			// The board's own bytes, as json.RawMessage keeps them.
			p.Board = json.RawMessage(r.b[start:r.i:r.i])
			return true
		}
		return false
	})
}

func (r *reader) readVariants(variants *map[string]int) bool {
	if r.null() {
		*variants = nil
		return true
	}
	m := map[string]int{}
	ok := r.object(func(name []byte) bool {
		if _, dup := m[string(name)]; dup {
			return false
		}
		v, ok := r.int()
		m[string(name)] = v
		return ok
	})
	*variants = m
	return ok
}

// noBoard says raw is a board not entered yet (no bytes, or null), which
// decodes as an empty board.
func noBoard(raw []byte) bool {
	return len(raw) == 0 || string(raw) == "null"
}

// readInsectaBoard reads an Insecta board.
func readInsectaBoard(raw []byte, b *insectaBoard) bool {
	if noBoard(raw) {
		return true
	}
	r := reader{b: raw, s: string(raw)}
	var a arena
	a.sizedFor(raw)
	return r.readInsectaObject(&a, b) && r.end()
}

// readInsectaObject reads an Insecta board's object.
func (r *reader) readInsectaObject(a *arena, b *insectaBoard) bool {
	var members uint32
	return r.object(func(name []byte) bool {
		switch string(name) {
		case "researcher":
			return !seen(&members, 1) && r.reqStr(&b.Researcher)
		case "track":
			return !seen(&members, 2) && r.reqInt(&b.Track)
		case "fragments":
			return !seen(&members, 4) && r.reqInt(&b.Fragments)
		case "tiles":
			return !seen(&members, 8) && r.readInsectaTiles(a, &b.Tiles)
		case "medals":
			return !seen(&members, 16) && r.readInsectaMedals(a, &b.Medals)
		}
		return false
	})
}

func (r *reader) readInsectaTiles(a *arena, tiles *[]insectaTile) bool {
	if r.null() {
		*tiles = nil
		return true
	}
	// The list is read into the block's free part, which it then takes
	// (all of it, if the list outgrew it and was moved).
	list := a.tiles[len(a.tiles):len(a.tiles)]
	ok := r.array(func() bool {
		list = append(list, insectaTile{})
		return r.readInsectaTile(a, &list[len(list)-1])
	})
	*tiles = list[:len(list):len(list)]
	a.tiles = a.tiles[:min(len(a.tiles)+len(list), cap(a.tiles))]
	return ok
}

func (r *reader) readInsectaTile(a *arena, t *insectaTile) bool {
	var members uint32
	return r.object(func(name []byte) bool {
		switch string(name) {
		case "row":
			return !seen(&members, 1) && r.optInt(a, &t.Row)
		case "col":
			return !seen(&members, 2) && r.optInt(a, &t.Col)
		case "kind":
			return !seen(&members, 4) && r.reqStr(&t.Kind)
		case "name":
			return !seen(&members, 8) && r.optStr(a, &t.Name)
		case "continent":
			return !seen(&members, 16) && r.optStr(a, &t.Continent)
		case "order":
			return !seen(&members, 32) && r.optStr(a, &t.Order)
		case "size":
			return !seen(&members, 64) && r.optStr(a, &t.Size)
		case "wreath":
			return !seen(&members, 128) && r.optStr(a, &t.Wreath)
		case "institution":
			return !seen(&members, 256) && r.optStr(a, &t.Institution)
		case "points":
			return !seen(&members, 512) && r.optInt(a, &t.Points)
		case "scored":
			return !seen(&members, 1024) && r.optBool(a, &t.Scored)
		}
		return false
	})
}

func (r *reader) readInsectaMedals(a *arena, medals *[]insectaMedal) bool {
	if r.null() {
		*medals = nil
		return true
	}
	// The list is read into the block's free part, as the tiles are.
	list := a.medals[len(a.medals):len(a.medals)]
	ok := r.array(func() bool {
		var members uint32
		list = append(list, insectaMedal{})
		return r.object(func(name []byte) bool {
			switch string(name) {
			case "medal":
				return !seen(&members, 1) && r.reqStr(&list[len(list)-1].Medal)
			case "level":
				return !seen(&members, 2) && r.optInt(a, &list[len(list)-1].Level)
			}
			return false
		})
	})
	*medals = list[:len(list):len(list)]
	a.medals = a.medals[:min(len(a.medals)+len(list), cap(a.medals))]
	return ok
}

// readHotelBoard reads an Insektenhotel board.
func readHotelBoard(raw []byte, b *hotelBoard) bool {
	if noBoard(raw) {
		return true
	}
	r := reader{b: raw, s: string(raw)}
	var members uint32
	ok := r.object(func(name []byte) bool {
		switch string(name) {
		case "hotel":
			return !seen(&members, 1) && r.reqStr(&b.Hotel)
		case "floors":
			if seen(&members, 2) {
				return false
			}
			if r.null() {
				b.Floors = nil
				return true
			}
			// Each floor is an object: they bound the list.
			list := make([]HotelFloor, 0, min(bytes.Count(raw, []byte("{")), 64))
			ok := r.array(func() bool {
				var members uint32
				list = append(list, HotelFloor{})
				f := &list[len(list)-1]
				return r.object(func(name []byte) bool {
					switch string(name) {
					case "species":
						return !seen(&members, 1) && r.reqStr(&f.Species)
					case "guests":
						return !seen(&members, 2) && r.reqInt(&f.Guests)
					}
					return false
				})
			})
			b.Floors = list
			return ok
		}
		return false
	})
	return ok && r.end()
}

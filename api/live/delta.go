package live

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
)

// Deltas: a board save changes a few fields of one seat, of the standings
// and the version: a few hundred bytes of a table of several KB. A stream
// that asked for deltas (?deltas=1) gets such a change as a "delta" event:
//
//	{"from": <the version it starts from>, "version": <the new version>,
//	 "patch": [<RFC 6902 JSON Patch operations on the table JSON>]}
//
// The server sends a delta only to a stream that sent exactly the table
// the delta starts from, and only when it is at most half the table; every
// other change, and every stream that did not ask, gets the whole table as
// before. A delta's event id is that of the whole table it leads to, so a
// client that resumes after it is known to hold that table. A client
// applies a delta only to the table at "from", and reads the table whole
// on any gap.

// recentTablesMax bounds how many tables' last events are remembered to
// build deltas from (about 10 KB each, and the parse of a followed one
// several times that): past it, a table forgotten sends its next change
// whole.
const recentTablesMax = 256

// Recent remembers the last event published of each table, so the next
// one can carry what changed since.
type Recent struct {
	mu   sync.Mutex
	last map[string]*tableJSON
}

// tableJSON is a table JSON as published, taken apart when a delta first
// needs it.
type tableJSON struct {
	version int
	data    []byte
	once    sync.Once
	tree    jsonNode
	err     error
}

// NewRecent returns a Recent that remembers no table yet.
func NewRecent() *Recent {
	return &Recent{last: map[string]*tableJSON{}}
}

// Version is the version of the last event of the table code built here,
// and false when there is none remembered.
func (r *Recent) Version(code string) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.last[code]
	if !ok {
		return 0, false
	}
	return t.version, true
}

// Event builds the live event of the table code at version, whose JSON
// is data: the delta from the table's last event, and its variants in
// the other languages. inLang gives the table's JSON in a language, or
// false when there is none other than data; it is called once a
// language, when a stream in that language first needs it, so a change
// costs the streams in the default language nothing more, and the others
// one build per language. It may be called after Event returns, from the
// hub's goroutine.
func (r *Recent) Event(code string, version int, data []byte, inLang func(lang string) ([]byte, bool)) Event {
	ev := r.event(code, version, data)
	if inLang != nil {
		ev.Variants = NewVariants(func(lang string) (Event, bool) {
			ldata, ok := inLang(lang)
			if !ok {
				return Event{}, false
			}
			// Its own line of recent tables, for deltas between the
			// tables in that language.
			return r.event(code+"\x00"+lang, version, ldata), true
		})
	}
	return ev
}

// event builds the event of the table JSON data of key at version, and
// the delta from the table's last event.
func (r *Recent) event(key string, version int, data []byte) Event {
	// The id is worked out here, once for the event's frame and its
	// delta's.
	ev := Event{Version: version, Data: data, id: eventID(version, data)}
	next := &tableJSON{version: version, data: data}
	r.mu.Lock()
	prev := r.last[key]
	if prev == nil || prev.version <= next.version {
		if prev == nil && len(r.last) >= recentTablesMax {
			for k := range r.last { // any one: the map's order is random
				delete(r.last, k)
				break
			}
		}
		r.last[key] = next
	}
	r.mu.Unlock()
	// A change published out of order (an older version after a newer
	// one) has no delta; streams skip it anyway.
	if prev != nil && prev.version <= next.version {
		ev.Delta = NewDelta(prev.data, ev, func() []byte {
			d, err := tableDelta(prev, next)
			if err != nil || 2*len(d) > len(data) {
				return nil
			}
			return d
		})
	}
	return ev
}

// DeltaData returns the data of the "delta" event that turns the table
// JSON from, at fromVersion, into to, at toVersion, whatever its size
// (Recent sends a delta only when it is at most half the table). It is
// what a client applies, for checks that a delta rebuilds the table.
func DeltaData(fromVersion int, from []byte, toVersion int, to []byte) ([]byte, error) {
	return tableDelta(&tableJSON{version: fromVersion, data: from}, &tableJSON{version: toVersion, data: to})
}

// parsed is the table taken apart, once.
func (t *tableJSON) parsed() (jsonNode, error) {
	t.once.Do(func() { t.tree, t.err = parseJSON(t.data) })
	return t.tree, t.err
}

// tableDelta is the delta event's data that turns prev into next.
func tableDelta(prev, next *tableJSON) ([]byte, error) {
	a, err := prev.parsed()
	if err != nil {
		return nil, err
	}
	b, err := next.parsed()
	if err != nil {
		return nil, err
	}
	out := []byte(`{"from":`)
	out = strconv.AppendInt(out, int64(prev.version), 10)
	out = append(out, `,"version":`...)
	out = strconv.AppendInt(out, int64(next.version), 10)
	out = append(out, `,"patch":[`...)
	for i, op := range diffJSON(nil, "", &a, &b) {
		if i > 0 {
			out = append(out, ',')
		}
		out = op.append(out)
	}
	return append(out, "]}"...), nil
}

// patchOp is one JSON Patch operation: add, remove or replace.
type patchOp struct {
	op, path string
	value    []byte
}

func (o patchOp) append(out []byte) []byte {
	out = append(out, `{"op":"`...)
	out = append(out, o.op...)
	out = append(out, `","path":`...)
	path, _ := json.Marshal(o.path)
	out = append(out, path...)
	if o.op != "remove" {
		out = append(out, `,"value":`...)
		out = append(out, o.value...)
	}
	return append(out, '}')
}

// size is about what the operation takes in the delta.
func (o patchOp) size() int { return 30 + len(o.path) + len(o.value) }

// diffJSON appends the operations that turn a into b, at path. Where
// changing the parts of a value would take more than replacing it, it is
// replaced whole.
func diffJSON(ops []patchOp, path string, a, b *jsonNode) []patchOp {
	if bytes.Equal(a.raw, b.raw) {
		return ops
	}
	whole := patchOp{"replace", path, b.raw}
	if a.kind != b.kind || a.kind == 0 {
		return append(ops, whole)
	}
	var parts []patchOp
	if a.kind == '{' {
		for i, k := range b.keys {
			at := path + "/" + pointerEscape(k)
			if j := a.index(k); j >= 0 {
				parts = diffJSON(parts, at, &a.kids[j], &b.kids[i])
			} else {
				parts = append(parts, patchOp{"add", at, b.kids[i].raw})
			}
		}
		for _, k := range a.keys {
			if b.index(k) < 0 {
				parts = append(parts, patchOp{"remove", path + "/" + pointerEscape(k), nil})
			}
		}
	} else {
		n := min(len(a.kids), len(b.kids))
		for i := range n {
			parts = diffJSON(parts, path+"/"+strconv.Itoa(i), &a.kids[i], &b.kids[i])
		}
		for i := n; i < len(b.kids); i++ {
			parts = append(parts, patchOp{"add", path + "/" + strconv.Itoa(i), b.kids[i].raw})
		}
		for i := len(a.kids) - 1; i >= n; i-- {
			parts = append(parts, patchOp{"remove", path + "/" + strconv.Itoa(i), nil})
		}
	}
	size := 0
	for _, p := range parts {
		size += p.size()
	}
	if path != "" && size >= whole.size() {
		return append(ops, whole)
	}
	return append(ops, parts...)
}

func pointerEscape(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// jsonNode is a JSON value with its bytes: an object ('{') with its keys
// and values, an array ('[') with its elements, or a scalar (0).
type jsonNode struct {
	kind byte
	raw  []byte
	keys []string
	kids []jsonNode
}

// index is the position of key k in an object, or -1.
func (n *jsonNode) index(k string) int {
	for i, key := range n.keys {
		if key == k {
			return i
		}
	}
	return -1
}

var errBadJSON = errors.New("live: not JSON")

// parseJSON takes apart a JSON text as encoding/json writes it.
func parseJSON(b []byte) (jsonNode, error) {
	p := jsonParser{b: b}
	n, err := p.value()
	if err == nil && p.skipSpace() < len(b) {
		err = errBadJSON
	}
	return n, err
}

type jsonParser struct {
	b []byte
	i int
}

func (p *jsonParser) skipSpace() int {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\t' || p.b[p.i] == '\n' || p.b[p.i] == '\r') {
		p.i++
	}
	return p.i
}

func (p *jsonParser) value() (jsonNode, error) {
	start := p.skipSpace()
	if start >= len(p.b) {
		return jsonNode{}, errBadJSON
	}
	var n jsonNode
	switch c := p.b[start]; c {
	case '{', '[':
		n.kind = c
		p.i++
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		if p.skipSpace() < len(p.b) && p.b[p.i] == end {
			p.i++
			break
		}
		for {
			if c == '{' {
				k, err := p.key()
				if err != nil {
					return n, err
				}
				n.keys = append(n.keys, k)
			}
			kid, err := p.value()
			if err != nil {
				return n, err
			}
			n.kids = append(n.kids, kid)
			if p.skipSpace() >= len(p.b) {
				return n, errBadJSON
			}
			p.i++
			if p.b[p.i-1] == end {
				break
			}
			if p.b[p.i-1] != ',' {
				return n, errBadJSON
			}
		}
	case '"':
		if err := p.str(); err != nil {
			return n, err
		}
	default:
		for p.i < len(p.b) && !strings.ContainsRune(",]} \t\n\r", rune(p.b[p.i])) {
			p.i++
		}
	}
	n.raw = p.b[start:p.i]
	return n, nil
}

// key reads an object's key and its colon.
func (p *jsonParser) key() (string, error) {
	start := p.skipSpace()
	if start >= len(p.b) || p.b[start] != '"' {
		return "", errBadJSON
	}
	if err := p.str(); err != nil {
		return "", err
	}
	raw := p.b[start:p.i]
	k := string(raw[1 : len(raw)-1])
	if bytes.IndexByte(raw, '\\') >= 0 {
		if err := json.Unmarshal(raw, &k); err != nil {
			return "", err
		}
	}
	if p.skipSpace() >= len(p.b) || p.b[p.i] != ':' {
		return "", errBadJSON
	}
	p.i++
	return k, nil
}

// str passes over a string.
func (p *jsonParser) str() error {
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			p.i++
		case '"':
			p.i++
			return nil
		}
	}
	return errBadJSON
}

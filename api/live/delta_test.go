package live

import (
	"strconv"
	"strings"
	"testing"
)

// TestParseJSON: the parser the deltas take tables apart with keeps each
// value's bytes and refuses what is not JSON.
func TestParseJSON(t *testing.T) {
	n, err := parseJSON([]byte(` {"a~/b": [1, "x\\\"y", {"c": null}], "\u00e9": true} `))
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(n.keys, ","); got != "a~/b,é" {
		t.Errorf("keys %q", got)
	}
	if got := string(n.kids[0].kids[1].raw); got != `"x\\\"y"` {
		t.Errorf("string %s", got)
	}
	if got := string(n.kids[0].kids[2].raw); got != `{"c": null}` {
		t.Errorf("object %s", got)
	}
	for _, bad := range []string{``, `{`, `{"a" 1}`, `[1 2]`, `"open`, `{"a": 1}}`, `{1: 2}`} {
		if _, err := parseJSON([]byte(bad)); err == nil {
			t.Errorf("parseJSON(%q) took it", bad)
		}
	}
}

// TestDeltaData: the delta's operations, each at the JSON Pointer of what
// changed (escaped keys), parts where they are smaller than the whole, the
// whole where not, and an array's removals from its end.
func TestDeltaData(t *testing.T) {
	long := `"a value long enough that the parts of its array that change are smaller than the whole"`
	for _, tc := range []struct {
		name, from, to, want string
	}{
		{"new and gone fields, an escaped key, a small array replaced whole",
			`{"version":1,"a~/b":[1,2,3],"gone":1}`, `{"version":2,"a~/b":[1,5],"new":"x"}`,
			`[{"op":"replace","path":"/version","value":2},{"op":"replace","path":"/a~0~1b","value":[1,5]},` +
				`{"op":"add","path":"/new","value":"x"},{"op":"remove","path":"/gone"}]`},
		{"a big array shrinking",
			`{"version":1,"seats":[` + long + `,2,` + long + `,3,4]}`, `{"version":2,"seats":[` + long + `,5,` + long + `]}`,
			`[{"op":"replace","path":"/version","value":2},{"op":"replace","path":"/seats/1","value":5},` +
				`{"op":"remove","path":"/seats/4"},{"op":"remove","path":"/seats/3"}]`},
		{"an array growing",
			`{"version":1,"seats":[` + long + `]}`, `{"version":2,"seats":[` + long + `,{"n":1}]}`,
			`[{"op":"replace","path":"/version","value":2},{"op":"add","path":"/seats/1","value":{"n":1}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, err := DeltaData(1, []byte(tc.from), 2, []byte(tc.to))
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"from":1,"version":2,"patch":` + tc.want + `}`; string(d) != want {
				t.Errorf("got  %s\nwant %s", d, want)
			}
		})
	}
}

// TestRecentEvent: an event carries the delta from the table's last event,
// none when it comes out of order; its variant in a language is built once,
// when first asked for, with deltas of its own between the tables in that
// language; a language with no table of its own gets the event itself.
func TestRecentEvent(t *testing.T) {
	r := NewRecent()
	built := map[string]int{}
	german := func(v int) []byte {
		return []byte(`{"version":` + strconv.Itoa(v) + `,"title":"Tisch","pad":"` + strings.Repeat("x", 200) + `"}`)
	}
	inLang := func(v int) func(string) ([]byte, bool) {
		return func(lang string) ([]byte, bool) {
			built[lang]++
			if lang != "de" {
				return nil, false
			}
			return german(v), true
		}
	}
	table := func(v int) []byte {
		return []byte(`{"version":` + strconv.Itoa(v) + `,"title":"Table","pad":"` + strings.Repeat("x", 200) + `"}`)
	}
	first := r.Event("ABC234", 1, table(1), inLang(1))
	if first.Delta != nil {
		t.Error("the first event of a table has a delta")
	}
	if de := inLanguage(&first, "de"); de == &first || !strings.Contains(string(de.Data), "Tisch") {
		t.Errorf("the German variant is %s", de.Data)
	}
	second := r.Event("ABC234", 2, table(2), inLang(2))
	if second.Delta == nil || string(second.Delta.Base) != string(table(1)) {
		t.Fatal("the second event has no delta from the first")
	}
	if got, want := string(second.Delta.Frame()), "id: "+eventID(2, table(2))+"\nevent: delta\ndata: "+
		`{"from":1,"version":2,"patch":[{"op":"replace","path":"/version","value":2}]}`+"\n\n"; got != want {
		t.Errorf("delta frame %q, want %q", got, want)
	}
	if len(built) != 1 {
		t.Errorf("variants built before a stream asked: %v", built)
	}
	for range 3 {
		de := inLanguage(&second, "de")
		if de.Delta == nil || !strings.Contains(string(de.Delta.Base), "Tisch") {
			t.Fatalf("the German variant's delta starts from %q, want the German table", de.Delta.Base)
		}
		// Its id names the German table it leads to, as the German
		// table's own event does.
		if id := de.ID(); id != eventID(2, german(2)) || !strings.Contains(string(de.Delta.Frame()), "id: "+id+"\n") || id == second.ID() {
			t.Fatalf("the German variant's id %q and delta %q, want the id of the German table", id, de.Delta.Frame())
		}
		if fr := inLanguage(&second, "fr"); fr != &second {
			t.Error("a language with no table of its own did not get the event itself")
		}
		if en := inLanguage(&second, ""); en != &second {
			t.Error("a stream in the events' own language got a variant")
		}
	}
	if built["de"] != 2 || built["fr"] != 1 {
		t.Errorf("variants built %v, want German once an event (2) and French once", built)
	}
	if late := r.Event("ABC234", 1, table(1), nil); late.Delta != nil {
		t.Error("an event out of order has a delta")
	}
}

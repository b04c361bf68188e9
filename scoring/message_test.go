package scoring

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestMessageStoredForm stores a message with every kind of argument and
// reads it back: the same message, written the same in English and in
// German.
func TestMessageStoredForm(t *testing.T) {
	de := loadCatalog(t, "de")
	for _, m := range []Message{
		rules("choose the card's %s", term("colour")),
		rules("%q is not %s; use %s", "purple", term("a colour"), orList("yellow, red or green")),
		rules("%s share the victory: level on %d %s and on every tiebreak", joinNames([]string{"Ana", "Ben", "Cleo"}), -3,
			word{key: "game.insecta.unit", en: "points"}),
		rules("no %s entered: counted as 0 for the tiebreak", word{key: "displayTools", en: "display tools", totals: "insectarium"}),
		rules("every player needs a name"),
	} {
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var back Message
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, m) {
			t.Errorf("stored as %s, read back as %#v; want %#v", b, back, m)
		}
		if back.String() != m.String() || back.In(de) != m.In(de) || m.In(de) == m.String() {
			t.Errorf("%s: %q / %q, want %q / %q (translated)", b, back.String(), back.In(de), m.String(), m.In(de))
		}
	}
	var bad Message
	for _, b := range []string{`{"key":"rules.%d","args":[1.5]}`, `{"key":"rules.%s","args":[{"what":1}]}`, `{"key":"rules.%s","args":[null]}`} {
		if err := json.Unmarshal([]byte(b), &bad); err == nil {
			t.Errorf("%s read as %#v, want an error", b, bad)
		}
	}
}

// TestResultMessagesOfAQuietResult: a result with neither a tie nor a
// warning keeps no messages, and one warning keeps a list per player.
func TestResultMessagesOfAQuietResult(t *testing.T) {
	quiet := &Result{Results: []PlayerResult{{Name: "Ana"}, {Name: "Ben"}}}
	if m := quiet.Messages(); m.Tiebreak != nil || m.Warnings != nil {
		t.Errorf("a result without a tie or a warning keeps %+v, want nothing", m)
	}
	warned := &Result{Results: []PlayerResult{{Name: "Ana"}, {Name: "Ben", Warnings: []FieldError{FieldErrorOf("/players/1/board", rules("every player needs a name"))}}}}
	m := warned.Messages()
	if len(m.Warnings) != 2 || len(m.Warnings[0]) != 0 || len(m.Warnings[1]) != 1 || m.Warnings[1][0].Key != "rules.every player needs a name" {
		t.Errorf("a result with one warning keeps %+v", m.Warnings)
	}
}

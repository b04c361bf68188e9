package scoring

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The catalogs live with the app (pwa/assets/i18n): the browser's engine
// reads them too. pwa's catalog test checks that every language has every
// key of English with the same placeholders; these tests check that
// English has every message and label the rules produce, word for word.

// catalogDir holds the catalogs, one file per language.
const catalogDir = "../pwa/assets/i18n"

var updateCatalog = flag.Bool("update-catalog", false, "add the rules' missing messages to "+catalogDir+"/en.json")

// loadCatalog reads the catalog of lang.
func loadCatalog(t testing.TB, lang string) Catalog {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(catalogDir, lang+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c Catalog
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatalf("%s.json: %v", lang, err)
	}
	return c
}

// shown is errs as a client sees them: pointers and details, without the
// format and arguments kept to translate them.
func shown(errs []FieldError) []FieldError {
	out := make([]FieldError, len(errs))
	for i, fe := range errs {
		out[i] = FieldError{Pointer: fe.Pointer, Detail: fe.Detail, Pointers: fe.Pointers}
	}
	return out
}

// messageCalls are the functions that take a message's English format,
// and the index of the format among their arguments.
var messageCalls = map[string]int{
	"Add": 1, "AddAll": 1, "newFieldError": 1, "requestErrorf": 1, "hotelErr": 1,
	"rules": 0, "insectariumOverLimit": 3, "term": 0, "say": 0,
}

// sourceMessages finds, in the package's source, every message given as
// a literal to one of messageCalls, every literal word given to term, and
// the literal formats assigned to variables that one of them takes
// (insectariumOverLimit's box). Each comes back as its catalog key.
func sourceMessages(t *testing.T) map[string]string {
	t.Helper()
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	literal := func(e ast.Expr) (string, bool) {
		var parts []string
		var walk func(ast.Expr) bool
		walk = func(e ast.Expr) bool {
			switch e := e.(type) {
			case *ast.BasicLit:
				if e.Kind != token.STRING {
					return false
				}
				s, err := strconv.Unquote(e.Value)
				parts = append(parts, s)
				return err == nil
			case *ast.BinaryExpr:
				return e.Op == token.ADD && walk(e.X) && walk(e.Y)
			case *ast.ParenExpr:
				return walk(e.X)
			}
			return false
		}
		ok := walk(e)
		return strings.Join(parts, ""), ok
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				var fn string
				switch f := n.Fun.(type) {
				case *ast.Ident:
					fn = f.Name
				case *ast.SelectorExpr:
					fn = f.Sel.Name
				}
				i, ok := messageCalls[fn]
				if !ok || i >= len(n.Args) {
					return true
				}
				if s, ok := literal(n.Args[i]); ok {
					if fn == "term" {
						out["rules.word."+s] = s
					} else {
						out["rules."+s] = s
					}
				}
			case *ast.AssignStmt:
				if id, ok := n.Lhs[0].(*ast.Ident); ok && id.Name == "box" {
					if s, ok := literal(n.Rhs[0]); ok {
						out["rules."+s] = s
					}
				}
			}
			return true
		})
	}
	return out
}

// wordsPassedOn are the words that reach term through a variable (the
// "what" of a field a check names), which sourceMessages cannot follow.
var wordsPassedOn = []string{
	"row", "column", "continent", "order", "size", "researcher", "institution",
	"an insect", "a mail", "colour", "a colour", "insect", "an insect type",
	"insects", "scored mail tiles",
	"an insect must touch a mail orthogonally or an insect diagonally",
	"a mail must touch an insect orthogonally or a mail diagonally",
	"a whole number", "text", "true or false", "a list", "an object", "a number",
	"bees", "ants", "flies", "ladybirds", "butterflies", "earwigs",
	"a bee", "an ant", "a fly", "a ladybird", "a butterfly", "an earwig",
}

// specMessages is every label of every game's Spec, by its key, and what
// each game's total counts.
func specMessages() map[string]string {
	out := map[string]string{}
	for _, g := range Games() {
		s := g.Spec()
		k := "game." + s.ID + "."
		for name, opts := range s.Enums {
			for _, o := range opts {
				out[k+"enum."+name+"."+o.ID] = o.Label
			}
		}
		for _, v := range s.Variants {
			out[k+"variant."+v.Key] = v.Label
		}
		for _, o := range s.Breakdown {
			out[k+"breakdown."+o.ID] = o.Label
		}
		for _, o := range s.Tiebreaks {
			out[k+"tiebreak."+o.ID] = o.Label
		}
		out[k+"end"] = s.End
		// What the total counts is what the game's evaluation calls it,
		// of no board as of any.
		if ev, err := g.Evaluate(nil, nil); err == nil && ev.TotalLabel != "" {
			out[k+"unit"] = ev.TotalLabel
		} else {
			out[k+"unit"] = "an evaluation of no board that names the total"
		}
	}
	return out
}

// producedMessages scores every recorded request and collects the keys
// of the messages and words its problems and warnings hold.
func producedMessages(t *testing.T) map[string]string {
	out := map[string]string{}
	note := func(errs []FieldError) {
		for _, fe := range errs {
			if fe.msg.IsZero() {
				t.Errorf("%s: %q has no message", fe.Pointer, fe.Detail)
				continue
			}
			out[fe.msg.Key] = fe.msg.format()
			for _, a := range fe.msg.Args {
				// Words of the games' vocabulary are their labels
				// (specMessages), though some read as their ids.
				if w, ok := a.(word); ok && strings.HasPrefix(w.key, "rules.") {
					out[w.key] = w.en
				}
			}
		}
	}
	for _, rc := range recordedRequests(t) {
		res, err := ScoreJSON(rc.Game, []byte(rc.Body))
		var (
			verr *ValidationError
			rerr *RequestError
		)
		switch {
		case errors.As(err, &verr):
			note(verr.Errors)
		case errors.As(err, &rerr):
			note([]FieldError{{Detail: rerr.Detail, msg: rerr.msg}})
			note(rerr.Errors)
		case err == nil:
			for _, p := range res.Results {
				note(p.Warnings)
			}
		}
	}
	return out
}

// TestCatalogHasTheRules checks that the English catalog holds every
// message and label of the rules, as the rules write it: the messages in
// the source, the words passed on to them, every label of the games'
// specs, and every message scoring the recorded requests produced. Add
// the missing ones with
//
//	go test ./scoring -run TestCatalogHasTheRules -update-catalog
//
// and then translate them in the other catalogs.
func TestCatalogHasTheRules(t *testing.T) {
	want := sourceMessages(t)
	for _, w := range wordsPassedOn {
		want["rules.word."+w] = w
	}
	// Ids that read as words in English messages ("the blue hotel").
	for _, opts := range [][]Option{hotelSpecies, hotelColours, insectariumTools, insectariumColors, insectariumInsects} {
		for _, o := range opts {
			want["rules.word."+o.ID] = o.ID
		}
	}
	want["rules.word.or"] = "or"
	maps.Copy(want, specMessages())
	maps.Copy(want, producedMessages(t))
	want["rules."+validationDetail] = validationDetail
	// A message passed on whole ("%s", NameProblem(name)) is no message.
	delete(want, "rules.%s")
	delete(want, "rules.%v")
	for _, s := range []string{"every player needs a name", "a name needs a letter or a sign that shows; this one is only spaces or invisible characters", "a name can be at most " + strconv.Itoa(MaxNameLength) + " characters"} {
		want["rules."+s] = s
	}
	en := loadCatalog(t, "en")
	var missing []string
	for _, k := range slices.Sorted(maps.Keys(want)) {
		if got, ok := en[k]; !ok {
			missing = append(missing, k)
		} else if got != want[k] {
			t.Errorf("en.json: %q is %q, but the rules say %q", k, got, want[k])
		}
	}
	if len(missing) == 0 {
		return
	}
	if !*updateCatalog {
		t.Fatalf("en.json lacks %d messages of the rules (add them with -update-catalog):\n%s", len(missing), strings.Join(missing, "\n"))
	}
	for _, k := range missing {
		en[k] = want[k]
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(en); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(catalogDir, "en.json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestEnglishCatalogChangesNothing relabels every recorded request's
// answer with the English catalog and wants the same bytes: the catalog
// holds the rules' own words under the keys Catalog looks up, and a tie
// explained again from the result alone reads as Score wrote it.
func TestEnglishCatalogChangesNothing(t *testing.T) {
	en := loadCatalog(t, "en")
	for _, g := range Games() {
		s := g.Spec()
		got, _ := json.Marshal(en.Spec(s))
		want, _ := json.Marshal(s)
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the English spec is\n%s\nwant\n%s", s.ID, got, want)
		}
	}
	ties := 0
	for _, rc := range recordedRequests(t) {
		res, err := ScoreJSON(rc.Game, []byte(rc.Body))
		if err != nil {
			p, _ := ProblemOf(err)
			lp, _ := en.Problem(err)
			got, _ := json.Marshal(lp)
			want, _ := json.Marshal(p)
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the English problem is\n%s\nwant\n%s", rc.Name, got, want)
			}
			continue
		}
		if res.Tiebreak != "" {
			ties++
		}
		got, err := json.Marshal(en.Result(res))
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(res); !bytes.Equal(got, want) {
			t.Errorf("%s: the English result is\n%s\nwant\n%s", rc.Name, got, want)
		}
	}
	if ties < 3 {
		t.Errorf("only %d recorded results explain a tie; the test needs some", ties)
	}
}

// TestStoredResultRelabelled relabels a result as the database keeps it
// (read back from JSON, English labels, no formats) in German and
// Spanish: labels by key, the insects' traits but not their names, a
// warning that is a message of its own, and the tie sentence.
func TestStoredResultRelabelled(t *testing.T) {
	// The mail warning's English was edited after it was stored (it ends
	// in a full stop the rules never wrote): it is translated by its key
	// all the same, which reading the English back could not do.
	stored := `{"game":"insecta","complete":true,"winners":[0],"results":[
	 {"name":"Ana","total":30,"rank":1,"winner":true,
	  "breakdown":[{"key":"track","label":"Scoring track","points":25},{"key":"continents","label":"Five continents","points":5,"sources":[{"pointer":"/tiles/0","points":1,"label":"Africa"}]}],
	  "tiebreaks":[{"key":"distinctInsects","label":"insects with different names","value":6,"sources":[{"pointer":"/tiles/0","points":1,"label":"Africa, Coleoptera, Large"},{"pointer":"/tiles/1","points":1,"label":"Asia"},{"pointer":"/tiles/2","points":1,"label":"Cosmoderus erinaceus"}]}],
	  "warnings":[{"pointer":"/players/0/board/researcher","detail":"choose a researcher to count her favourite insects"},
	   {"pointer":"/players/0/board/track","detail":"the scored mail tiles are worth 5 points but the track shows 3; the track should include them."},
	   {"pointer":"/players/0/board/medals/0/level","detail":"level 3 on Continent: Africa needs 3 matching insects, but the collection has 2"},
	   {"pointer":"/players/0/board/x","detail":"Ana and Ben"}]},
	 {"name":"Ben","total":30,"rank":2,"winner":false,"breakdown":[],"tiebreaks":[{"key":"distinctInsects","label":"insects with different names","value":5}],"warnings":[]}],
	 "tiebreak":"Ana wins the tie on 30 points: 6 insects with different names to 5"}`
	// The messages stored beside it; the fourth warning has none.
	messages := `{"tiebreak":{"key":"rules.%s wins the tie on %d %s: %d %s to %s","args":["Ana",30,{"word":"game.insecta.unit","en":"points"},6,{"word":"game.insecta.tiebreak.distinctInsects","en":"insects with different names"},"5"]},
	 "warnings":[[{"key":"rules.choose a researcher to count her favourite insects"},
	  {"key":"rules.the scored mail tiles are worth %d points but the track shows %d; the track should include them","args":[5,3]},
	  {"key":"rules.level %d on %s needs %d matching %s, but the collection has %d","args":[3,{"word":"game.insecta.enum.medal.continent:africa","en":"Continent: Africa"},3,{"word":"rules.word.insects","en":"insects"},2]},
	  {"key":""}],[]]}`
	var res Result
	if err := json.Unmarshal([]byte(stored), &res); err != nil {
		t.Fatal(err)
	}
	// Without its messages, a stored result keeps its English: nothing
	// reads it back.
	bare := loadCatalog(t, "de").Result(&res)
	if bare.Tiebreak != res.Tiebreak || bare.Results[0].Warnings[0].Detail != res.Results[0].Warnings[0].Detail {
		t.Errorf("a result without its messages was translated: %q, %q", bare.Tiebreak, bare.Results[0].Warnings[0].Detail)
	}
	var m ResultMessages
	if err := json.Unmarshal([]byte(messages), &m); err != nil {
		t.Fatal(err)
	}
	res.SetMessages(m)
	tests := []struct {
		lang                        string
		track, continents, tiebreak string
		africa, traits, warning     string
		sentence                    string
		mail                        string
	}{
		{"de", "Wertungsleiste", "Fünf Kontinente", "Insekten mit verschiedenen Namen", "Afrika", "Afrika, Käfer (Coleoptera), Groß",
			"Wähle eine Forscherin, um ihre Lieblingsinsekten zu zählen",
			"Ana entscheidet den Gleichstand bei 30 Punkten für sich: 6 Insekten mit verschiedenen Namen gegenüber 5",
			"Die gewerteten Post-Plättchen sind 5 Punkte wert, aber die Wertungsleiste zeigt 3; die Leiste sollte sie enthalten"},
		{"es", "Contador de puntos", "Cinco continentes", "insectos con nombres distintos", "África", "África, Coleópteros (Coleoptera), Grande",
			"elige una investigadora para contar sus insectos favoritos",
			"Ana gana el desempate (empate a 30 puntos): 6 insectos con nombres distintos frente a 5",
			"las losetas de correo puntuadas valen 5 puntos, pero el contador de puntos muestra 3; el contador debería incluirlas"},
	}
	for _, tt := range tests {
		t.Run(tt.lang, func(t *testing.T) {
			cat := loadCatalog(t, tt.lang)
			level := fmt.Sprintf(cat["rules.level %d on %s needs %d matching %s, but the collection has %d"],
				3, cat["game.insecta.enum.medal.continent:africa"], 3, cat["rules.word.insects"], 2)
			got := cat.Result(&res)
			a := got.Results[0]
			for _, c := range []struct{ got, want string }{
				{a.Breakdown[0].Label, tt.track},
				{a.Breakdown[1].Label, tt.continents},
				{a.Breakdown[1].Sources[0].Label, tt.africa},
				{a.Tiebreaks[0].Label, tt.tiebreak},
				{a.Tiebreaks[0].Sources[0].Label, tt.traits},
				{a.Tiebreaks[0].Sources[2].Label, "Cosmoderus erinaceus"},
				{a.Warnings[0].Detail, tt.warning},
				{a.Warnings[0].Pointer, "/players/0/board/researcher"},
				{a.Warnings[1].Detail, tt.mail},
				{a.Warnings[2].Detail, level},
				{a.Warnings[3].Detail, "Ana and Ben"},
				{a.Breakdown[0].Key, "track"},
				{got.Tiebreak, tt.sentence},
			} {
				if c.got != c.want {
					t.Errorf("got %q, want %q", c.got, c.want)
				}
			}
			if strings.Contains(level, "Africa") || strings.Contains(level, "%") {
				t.Errorf("the medal's word was not translated: %q", level)
			}
			if res.Results[0].Breakdown[0].Label != "Scoring track" || res.Results[0].Tiebreaks[0].Sources[0].Label != "Africa, Coleoptera, Large" || res.Tiebreak[:3] != "Ana" || res.Results[0].Warnings[0].Detail[:6] != "choose" {
				t.Errorf("Result changed the result it relabelled: %+v", res)
			}
		})
	}
}

// TestResultMessagesRoundTrip stores the messages of every recorded
// request's result and puts them back into its JSON: each warning and tie
// sentence is then written in German as the fresh result is.
func TestResultMessagesRoundTrip(t *testing.T) {
	de := loadCatalog(t, "de")
	ties, warnings := 0, 0
	for _, rc := range recordedRequests(t) {
		res, err := ScoreJSON(rc.Game, []byte(rc.Body))
		if err != nil {
			continue
		}
		b, _ := json.Marshal(res)
		mb, err := json.Marshal(res.Messages())
		if err != nil {
			t.Fatal(err)
		}
		var back Result
		var m ResultMessages
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(mb, &m); err != nil {
			t.Fatal(err)
		}
		back.SetMessages(m)
		got, _ := json.Marshal(de.Result(&back))
		want, _ := json.Marshal(de.Result(res))
		if !bytes.Equal(got, want) {
			t.Errorf("%s: stored and read back\n%s\nwant\n%s", rc.Game, got, want)
		}
		if res.Tiebreak != "" {
			ties++
		}
		for _, p := range res.Results {
			warnings += len(p.Warnings)
		}
	}
	if ties == 0 || warnings == 0 {
		t.Errorf("%d ties and %d warnings among the recorded requests; want some of each", ties, warnings)
	}
}

// TestProblemLocalized translates a problem of the rules, its words and
// its game's labels, and keeps its pointers.
func TestProblemLocalized(t *testing.T) {
	body := `{"players":[{"name":"Ana","board":{"grid":[[{"color":"purple","insect":"moth","points":3,"tools":["pin","pin"]}]]}},{"name":"ana","board":{}}]}`
	_, err := ScoreJSON("insectarium", []byte(body))
	p, known := loadCatalog(t, "de").Problem(err)
	if !known || p.Status != 422 {
		t.Fatalf("problem %+v, %v; want a 422", p, known)
	}
	want := []FieldError{
		{Pointer: "/players/1/name", Detail: `"ana" ist schon Spieler 1; gib jedem Spieler einen eigenen Namen`},
	}
	if p.Detail != "Einige Eingaben verstoßen gegen die Regeln" || p.Title != "Inhalt nicht verarbeitbar" || !equalErrors(shown(p.Errors), want) {
		t.Errorf("problem %+v\nwant errors %+v", p, want)
	}
	var en Catalog
	if p, _ := en.Problem(err); p.Title != "Unprocessable Content" || p.Detail != validationDetail {
		t.Errorf("problem in English %+v", p)
	}
	body = `{"players":[{"name":"Ana","board":{"grid":[[{"color":"purple","insect":"moth","points":3,"tools":["pin","pin"]}]]}}]}`
	_, err = ScoreJSON("insectarium", []byte(body))
	p, _ = loadCatalog(t, "es").Problem(err)
	want = []FieldError{
		{Pointer: "/players/0/board/grid/0/0/color", Detail: `"purple" no es un color; usa yellow, red, green, white o black`},
		{Pointer: "/players/0/board/grid/0/0/tools/1", Detail: "la herramienta alfiler aparece dos veces; una carta muestra cada herramienta como mucho una vez"},
	}
	if !equalErrors(shown(p.Errors), want) {
		t.Errorf("errors %+v\nwant %+v", p.Errors, want)
	}
	// A message without arguments, and one passed on whole.
	var verr ValidationError
	verr.Add("/players/0/board/medals/0/medal", "choose the medal")
	verr.AddMessage("/players/0/name", NameProblem(""))
	p, _ = loadCatalog(t, "de").Problem(verr.Err())
	want = []FieldError{
		{Pointer: "/players/0/board/medals/0/medal", Detail: "Wähle die Medaille"},
		{Pointer: "/players/0/name", Detail: "Jeder Spieler braucht einen Namen"},
	}
	if !equalErrors(shown(p.Errors), want) {
		t.Errorf("errors %+v\nwant %+v", p.Errors, want)
	}
	_, err = ScoreJSON("chess", []byte(body))
	if p, _ := loadCatalog(t, "es").Problem(err); p.Status != 404 || p.Detail != `no existe el juego "chess"` || p.Title != "No encontrado" {
		t.Errorf("problem %+v, want a 404 in Spanish", p)
	}
}

func equalErrors(a, b []FieldError) bool {
	got, _ := json.Marshal(a)
	want, _ := json.Marshal(b)
	return bytes.Equal(got, want)
}

package api

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestNegotiate pins the language an Accept-Language picks: q-values
// weigh, a region falls back to its language, and anything else is
// English.
func TestNegotiate(t *testing.T) {
	tests := []struct{ header, want string }{
		{"", "en"},
		{"de", "de"},
		{"de-AT", "de"},
		{"es-MX,es;q=0.9", "es"},
		{"en-GB,de;q=0.9", "en"},
		{"fr, es;q=0.8, de;q=0.9", "de"},
		{"de;q=0.1, es;q=0.9", "es"},
		{"fr", "en"},
		{"fr-CA, ja;q=0.5", "en"},
		{"*", "en"},
		{"not a language list;;;", "en"},
	}
	for _, tt := range tests {
		if got := negotiate(tt.header); got != tt.want {
			t.Errorf("negotiate(%q) = %q, want %q", tt.header, got, tt.want)
		}
		// The cached answer is the same.
		if got := negotiate(tt.header); got != tt.want {
			t.Errorf("negotiate(%q) again = %q, want %q", tt.header, got, tt.want)
		}
	}
}

// TestLocalizedAnswers asks the API in German and Spanish: specs, a
// score, a problem (its pointer unchanged), a play stored in English,
// each with Content-Language; ids and keys stay as they are.
func TestLocalizedAnswers(t *testing.T) {
	app, store := newTestAppWith(t, Config{})
	example, err := os.ReadFile("testdata/insectarium-example.json")
	if err != nil {
		t.Fatal(err)
	}
	lang := func(l string) map[string]string { return map[string]string{"Accept-Language": l} }
	play := logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(2, 21, 0), seat{"Ana", wildBoard(5)}, seat{"Ben", wildBoard(5)}))
	// Totals sheets without the tiebreak: each board has a warning, and
	// the two share the victory.
	sheets := logTestPlay(t, app, "default", playBody("insectarium", time.Time{}, day(2, 22, 0),
		seat{"Ana", `{"totals": {"rows": 5}}`}, seat{"Ben", `{"totals": {"rows": 5}}`}))
	badCard := `{"players":[{"name":"Ana","board":{"grid":[[{"color":"purple","insect":"moth","points":3,"tools":[]}]]}}]}`
	runScenarios(t, app, []scenario{
		{name: "the games in German: names as printed", method: "GET", path: "/api/v1/games", header: lang("de-AT,de;q=0.9,en;q=0.8"), status: 200,
			want:       map[string]any{"/0/id": "insecta", "/0/name": "Insecta: The Ladies of Entomology", "/2/name": "Insektenhotel"},
			wantHeader: map[string]string{"Content-Language": "de", "Vary": "Accept-Language"}},
		{name: "a spec in Spanish", method: "GET", path: "/api/v1/games/insectarium", header: lang("es"), status: 200,
			want: map[string]any{"/name": "Insectarium", "/breakdown/0/id": "rows", "/breakdown/0/label": "Filas",
				"/tiebreaks/0/label": "herramientas de exposición", "/enums/color/0/id": "yellow", "/enums/color/0/label": "Amarillo",
				"/enums/soloRating/0/id": "try-again", "/enums/soloRating/0/label": "Inténtalo de nuevo",
				"/totals/3/id": "toolBonus", "/totals/3/label": "Bonificaciones de herramientas de exposición"},
			wantHeader: map[string]string{"Content-Language": "es"}},
		{name: "a spec in German", method: "GET", path: "/api/v1/games/insektenhotel", header: lang("de"), status: 200,
			want: map[string]any{"/enums/species/3/id": "ladybird", "/enums/species/3/label": "Marienkäfer",
				"/enums/species/5/label": "Ohrwurm", "/enums/hotel/0/label": "Blau", "/breakdown/0/label": "Gäste"}},
		{name: "a spec in French is English", method: "GET", path: "/api/v1/games/insectarium", header: lang("fr"), status: 200,
			want:       map[string]any{"/breakdown/0/label": "Rows"},
			wantHeader: map[string]string{"Content-Language": "en"}},
		{name: "a score in German", method: "POST", path: "/api/v1/games/insectarium/score", body: string(example), header: lang("de"), status: 200,
			want: map[string]any{"/results/0/breakdown/0/key": "rows", "/results/0/breakdown/0/label": "Reihen",
				"/results/0/breakdown/1/label": "Spalten", "/results/0/breakdown/2/label": "Unbenutzte Marker",
				"/results/0/breakdown/3/label": "Bonus für Präparierwerkzeuge",
				"/results/0/tiebreaks/0/key":   "displayTools", "/results/0/tiebreaks/0/label": "Präparierwerkzeuge"},
			wantHeader: map[string]string{"Content-Language": "de"}},
		{name: "a score in Spanish", method: "POST", path: "/api/v1/games/insectarium/score", body: string(example), header: lang("es-ES"), status: 200,
			want: map[string]any{"/results/0/breakdown/0/label": "Filas", "/results/0/breakdown/1/label": "Columnas",
				"/results/0/breakdown/2/label": "Fichas sin usar", "/results/0/tiebreaks/0/label": "herramientas de exposición"},
			wantHeader: map[string]string{"Content-Language": "es"}},
		{name: "a score in English", method: "POST", path: "/api/v1/games/insectarium/score", body: string(example), status: 200,
			want:       map[string]any{"/results/0/breakdown/0/label": "Rows"},
			wantHeader: map[string]string{"Content-Language": "en"}},
		{name: "a problem in German keeps its pointer", method: "POST", path: "/api/v1/games/insectarium/score", body: badCard, header: lang("de"), status: 422,
			want: map[string]any{"/detail": "Einige Eingaben verstoßen gegen die Regeln",
				"/errors/0/pointer": "/players/0/board/grid/0/0/color",
				"/errors/0/detail":  `"purple" ist ungültig (erwartet: eine Farbe); verwende yellow, red, green, white oder black`},
			wantHeader: map[string]string{"Content-Language": "de"}},
		{name: "an unknown game in Spanish", method: "POST", path: "/api/v1/games/chess/score", body: badCard, header: lang("es"), status: 404,
			want: map[string]any{"/detail": `no existe el juego "chess"`}, wantHeader: map[string]string{"Content-Language": "es"}},
		{name: "the server's own problem in German", method: "GET", path: "/api/v1/tables/ZZZZZZ", header: lang("de"), status: 404,
			want: map[string]any{"/detail": "Diesen Tisch oder Platz gibt es nicht; prüfe den Code"}, wantHeader: map[string]string{"Content-Language": "de"}},
		{name: "a formatted problem in Spanish", method: "GET", path: "/api/v1/plays?limit=0", header: lang("es"), status: 400,
			want: map[string]any{"/detail": "limit debe ser un número de 1 a 100"}},
		{name: "the store's reason in German", method: "GET", path: "/api/v1/plays/nope", header: lang("de"), status: 404,
			want: map[string]any{"/detail": `Keine Partie "nope" in dieser Gruppe`}},
		{name: "a play's location that shows nothing, in German", method: "POST", path: "/api/v1/plays", header: lang("de"), status: 422,
			body: `{"game": "insectarium", "location": "\u200b", "players": [{"name": "Ana", "board": ` + wildBoard(1) + `}, {"name": "Ben", "board": ` + wildBoard(2) + `}]}`,
			want: map[string]any{"/errors/0/pointer": "/location", "/errors/0/detail": "Der Ort kann nicht gespeichert werden: er enthält kein sichtbares Zeichen"}},
		{name: "a name twice at a new table, in Spanish", method: "POST", path: "/api/v1/tables", header: lang("es"), status: 422,
			body: `{"game": "insecta", "players": ["Ana", "ana"]}`,
			want: map[string]any{"/errors/0/pointer": "/players/1", "/errors/0/detail": `"ana" ya está en esta mesa`}},
		{name: "a stored play in German", method: "GET", path: "/api/v1/plays/" + play, header: lang("de"), status: 200, before: settled(store),
			want: map[string]any{"/results/0/breakdown/0/key": "rows", "/results/0/breakdown/0/label": "Reihen",
				"/results/0/breakdown/2/label":           "Unbenutzte Marker",
				"/standings/results/1/breakdown/2/label": "Unbenutzte Marker",
				"/standings/results/1/tiebreaks/0/label": "Präparierwerkzeuge",
				"/standings/tiebreak":                    "Ana und Ben teilen sich den Sieg: gleichauf bei 5 Punkten und bei jeder Gleichstandsregel"},
			wantHeader: map[string]string{"Content-Language": "de"}},
		{name: "a stored play's warnings and tie in Spanish", method: "GET", path: "/api/v1/plays/" + sheets, header: lang("es"), status: 200,
			want: map[string]any{"/standings/results/0/warnings/0/detail": "no se ha introducido herramientas de exposición: cuenta como 0 en el desempate",
				"/standings/results/1/warnings/0/pointer": "/players/1/board/totals/displayTools",
				"/standings/tiebreak":                     "Ana y Ben comparten la victoria: empatados a 5 puntos y en todos los desempates"}},
		{name: "a stored play's warnings in German", method: "GET", path: "/api/v1/plays/" + sheets, header: lang("de"), status: 200,
			want: map[string]any{"/standings/results/1/warnings/0/detail": "Keine Angabe für Präparierwerkzeuge: zählt für die Gleichstandsregel als 0"}},
		{name: "the stored play in English, as stored", method: "GET", path: "/api/v1/plays/" + sheets, status: 200,
			want: map[string]any{"/standings/results/0/warnings/0/detail": "no display tools entered: counted as 0 for the tiebreak",
				"/standings/tiebreak": "Ana and Ben share the victory: level on 5 points and on every tiebreak"}},
		{name: "the same play in English", method: "GET", path: "/api/v1/plays/" + play, status: 200,
			want: map[string]any{"/results/0/breakdown/0/label": "Rows",
				"/standings/tiebreak": "Ana and Ben share the victory: level on 5 points and on every tiebreak"}},
	})
}

// TestEventsInLanguages follows one table from three streams: in German,
// in German with deltas, and in English. Each change reaches each in its
// own language, built once per language for all its streams.
func TestEventsInLanguages(t *testing.T) {
	_, base := serveLive(t, Config{})
	ct := decodeJSON[createdTable](t, mustHTTP(t, "POST", base+"/api/v1/tables",
		`{"game": "insektenhotel", "players": ["Ana", "Ben"]}`, nil, 201))
	host := bearer(ct.HostToken)
	url := base + "/api/v1/tables/" + ct.Code + "/events"
	de := openEventsAt(t, url, "", map[string]string{"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"})
	deDeltas := openEventsAt(t, url+"?deltas=1", "", map[string]string{"Accept-Language": "de"})
	en := openEventsAt(t, url, "", map[string]string{"Accept-Language": "en-US"})
	for _, ch := range []<-chan sseBlock{de, deDeltas, en} {
		wantRetry(t, ch)
		if id, v := nextTable(t, ch); idVersion(id) != "1" || v.Standings == nil || v.Standings.Results[0].Breakdown[0].Key != "guests" {
			t.Fatalf("first event %s: %+v", id, v)
		}
	}
	label := func(v tableView) string { return v.Standings.Results[0].Breakdown[0].Label }
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 0), hotelJSON("blue", "bee:2", "ant:1", "fly:0"), host, 200)
	for _, tt := range []struct {
		name string
		ch   <-chan sseBlock
		want string
	}{{"de", de, "Gäste"}, {"de with deltas", deDeltas, "Gäste"}, {"en", en, "Guests"}} {
		id, v := nextTable(t, tt.ch)
		if idVersion(id) != "2" || v.Standings.Results[0].Total != 3 || label(v) != tt.want {
			t.Errorf("%s: event %s, total %d, label %q; want 2, 3, %q", tt.name, id, v.Standings.Results[0].Total, label(v), tt.want)
		}
	}
	// A second change: the German stream with deltas gets a delta
	// between German tables, never the English one's.
	mustHTTP(t, "PUT", base+boardPath(ct.Code, 1), hotelJSON("green", "bee:1", "ant:1", "fly:1"), host, 200)
	if id, v := nextTable(t, de); idVersion(id) != "3" || v.Standings.Results[1].Breakdown[0].Label != "Gäste" {
		t.Errorf("de: event %s, standings %+v", id, v.Standings)
	}
	if id, v := nextTable(t, en); idVersion(id) != "3" || v.Standings.Results[1].Breakdown[0].Label != "Guests" {
		t.Errorf("en: event %s, standings %+v", id, v.Standings)
	}
	// The change is small: a delta from the German table it had.
	b := nextBlock(t, deDeltas)
	if idVersion(b.id) != "3" || b.event != "delta" || strings.Contains(b.data, "Guests") || !strings.Contains(b.data, `"from":2`) {
		t.Errorf("de with deltas: event %s %s: %s", b.event, b.id, b.data)
	}
}

// TestHotelLogInLanguages plays two moves at an Insektenhotel table and
// reads its log in German, Spanish and English.
func TestHotelLogInLanguages(t *testing.T) {
	app := newTestApp(t)
	ct := startTable(t, app, `{"game": "insektenhotel", "players": ["Ana", "Ben"]}`)
	host := bearer(ct.HostToken)
	mustCall(t, app, "PUT", boardPath(ct.Code, 0), hotelJSON("blue", "bee:0", "ant:0", "fly:0"), host, 200)
	mustCall(t, app, "PUT", boardPath(ct.Code, 1), hotelJSON("red", "bee:0", "ladybird:0", "earwig:0"), host, 200)
	mustCall(t, app, "POST", "/api/v1/tables/"+ct.Code+"/moves", `{"type": "draw", "card": "bee"}`, host, 201)
	r := mustCall(t, app, "POST", "/api/v1/tables/"+ct.Code+"/moves", `{"type": "draw", "card": "honey"}`,
		withHeader(host, "Accept-Language", "es"), 201)
	if got := r.header.Get("Content-Language"); got != "es" {
		t.Errorf("the move's answer is in %q, want es", got)
	}
	checkJSON(t, r.body, map[string]any{"/hotel/log/1": "Ben robó una carta de miel, que podrá usar a partir de la ronda siguiente."})
	runScenarios(t, app, []scenario{
		{name: "German", method: "GET", path: "/api/v1/tables/" + ct.Code, header: map[string]string{"Accept-Language": "de"}, status: 200,
			want: map[string]any{"/hotel/log/0": "Ana hat eine Biene gezogen und ins Hotel Blau gesetzt.",
				"/hotel/log/1": "Ben hat eine Honigkarte gezogen, nutzbar ab der nächsten Runde."}},
		{name: "English", method: "GET", path: "/api/v1/tables/" + ct.Code, status: 200,
			want: map[string]any{"/hotel/log/0": "Ana drew a bee and put it in the blue hotel.",
				"/hotel/log/1": "Ben drew a honey card, usable from the next round."}},
	})
}

// TestFinishedTableInLanguages: a finished table's standings are the
// play's, read back from the store, and its warnings and tie sentence are
// written in the client's language by their stored keys.
func TestFinishedTableInLanguages(t *testing.T) {
	app, _, clk := newHistoryApp(t)
	_, code := playedTable(t, app, clk, "default", "insectarium", day(3, 20, 0), day(3, 21, 0),
		seat{"Ana", `{"totals": {"rows": 7}}`}, seat{"Ben", `{"totals": {"rows": 7}}`})
	runScenarios(t, app, []scenario{
		{name: "in Spanish", method: "GET", path: "/api/v1/tables/" + code, header: map[string]string{"Accept-Language": "es"}, status: 200,
			want: map[string]any{"/status": "finished",
				"/standings/results/0/warnings/0/detail": "no se ha introducido herramientas de exposición: cuenta como 0 en el desempate",
				"/standings/tiebreak":                    "Ana y Ben comparten la victoria: empatados a 7 puntos y en todos los desempates"}},
		{name: "in German", method: "GET", path: "/api/v1/tables/" + code, header: map[string]string{"Accept-Language": "de"}, status: 200,
			want: map[string]any{"/standings/tiebreak": "Ana und Ben teilen sich den Sieg: gleichauf bei 7 Punkten und bei jeder Gleichstandsregel"}},
		{name: "in English", method: "GET", path: "/api/v1/tables/" + code, status: 200,
			want: map[string]any{"/standings/results/1/warnings/0/detail": "no display tools entered: counted as 0 for the tiebreak",
				"/standings/tiebreak": "Ana and Ben share the victory: level on 7 points and on every tiebreak"}},
	})
}

package api

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"insectscore/models"
)

// TestStoreSentencesInLanguages: what the store says in sentences of its
// own (an import's reasons, a conflict, why notes or a location cannot be
// kept, with the numbers in them) and the titles of problems come in the
// client's language, their pointers unchanged.
func TestStoreSentencesInLanguages(t *testing.T) {
	file, group := hostileHistory(t)
	app, _ := newTestAppWith(t, Config{})
	de, es := map[string]string{"Accept-Language": "de"}, map[string]string{"Accept-Language": "es"}
	twice := spoil(t, file, func(plays []any) {
		plays[1].(map[string]any)["id"] = plays[0].(map[string]any)["id"]
	})
	late := spoil(t, file, func(plays []any) {
		plays[0].(map[string]any)["startedAt"] = "2030-01-01T00:00:00Z"
	})
	badBoard := spoil(t, file, func(plays []any) {
		plays[0].(map[string]any)["players"].([]any)[1].(map[string]any)["board"] = map[string]any{"supply": 99}
	})
	long := strings.Repeat("x", models.MaxNotesLength+1)
	runScenarios(t, app, []scenario{
		{name: "a title in German", method: "GET", path: "/api/v1/tables/ZZZZZZ", header: de, status: 404,
			want: map[string]any{"/title": "Nicht gefunden"}},
		{name: "a title in English", method: "POST", path: "/api/v1/games/insecta/score", body: `{"players": []}`, status: 422,
			want: map[string]any{"/title": "Unprocessable Content"}},
		{name: "the rules' title in Spanish", method: "POST", path: "/api/v1/games/insecta/score", body: `{"players": []}`, header: es, status: 422,
			want: map[string]any{"/title": "Contenido no procesable"}},
		{name: "a play id twice, in German", method: "POST", path: "/api/v1/groups/import", body: twice, header: de, status: 422,
			want: map[string]any{"/title": "Inhalt nicht verarbeitbar", "/errors/0/pointer": "/plays/1/id",
				"/errors/0/detail": `Die Partie-ID "` + idOf(file, 0) + `" steht zweimal in der Liste`,
				"/detail":          `Die Datei kann nicht importiert werden: bei /plays/1/id: Die Partie-ID "` + idOf(file, 0) + `" steht zweimal in der Liste`}},
		{name: "a play that starts after its end, in Spanish", method: "POST", path: "/api/v1/groups/import", body: late, header: es, status: 422,
			want: map[string]any{"/errors/0/pointer": "/plays/0/startedAt",
				"/detail": "el archivo no se puede importar: en /plays/0/startedAt: una partida no puede empezar después de terminar"}},
		{name: "the rules' problem in an import, in Spanish", method: "POST", path: "/api/v1/groups/import", body: badBoard, header: es, status: 422,
			check: func(t *testing.T, r response) {
				p := decodeJSON[problem](t, r)
				if len(p.Errors) == 0 || p.Errors[0].Pointer != "/plays/0/players/1/board/supply" {
					t.Fatalf("errors %+v, want one at /plays/0/players/1/board/supply", p.Errors)
				}
				if want := "el archivo no se puede importar: en /plays/0/players/1/board/supply: " + p.Errors[0].Detail; !strings.HasPrefix(p.Detail, want) {
					t.Errorf("detail %q, want it to start %q", p.Detail, want)
				}
				if d := p.Errors[0].Detail; strings.Contains(d, "supply") || strings.Contains(d, "token") {
					t.Errorf("the rules' detail %q is not in Spanish", d)
				}
			}},
		{name: "a newer file, in German", method: "POST", path: "/api/v1/groups/import", header: de, status: 422,
			body: strings.Replace(mustJSON(t, file), `"formatVersion":`+strconv.Itoa(models.ExportFormatVersion), `"formatVersion":99`, 1),
			want: map[string]any{"/detail": "Diese Datei wurde von einer neueren Version von insectscore geschrieben (Format 99); dieser Server liest Format " + strconv.Itoa(models.ExportFormatVersion)}},
		{name: "notes too long, in Spanish, with their numbers", method: "POST", path: "/api/v1/plays", header: es, status: 422,
			body: `{"game": "insectarium", "notes": "` + long + `", "players": [{"name": "Ana", "board": ` + wildBoard(1) + `}, {"name": "Ben", "board": ` + wildBoard(2) + `}]}`,
			want: map[string]any{"/errors/0/pointer": "/notes",
				"/errors/0/detail": "las notas no se pueden guardar: el texto tiene 2001 caracteres; se admiten como máximo 2000"}},
		{name: "a location to filter by that shows nothing, in German", method: "GET", path: "/api/v1/plays?location=%E2%80%8B", header: de, status: 400,
			want: map[string]any{"/title": "Ungültige Anfrage", "/detail": "Ort: er enthält kein sichtbares Zeichen"}},
	})
	mustCall(t, app, "POST", "/api/v1/groups/import", mustJSON(t, file), nil, 201)
	runScenarios(t, app, []scenario{
		{name: "the same file again, in German", method: "POST", path: "/api/v1/groups/import", body: mustJSON(t, file), header: de, status: 409,
			want: map[string]any{"/title": "Konflikt", "/detail": `Die Gruppe "Hostile club" ist schon mit eigenem Verlauf auf diesem Server`}},
		{name: "the same file under another group id, in Spanish", method: "POST", path: "/api/v1/groups/import", header: es, status: 409,
			body:  strings.ReplaceAll(mustJSON(t, file), `"id":"`+group+`"`, `"id":"othergroup"`),
			check: detailHas("del archivo pertenece a otro grupo de este servidor")},
	})
}

// idOf is the id of the file's play i.
func idOf(file map[string]any, i int) string {
	return file["plays"].([]any)[i].(map[string]any)["id"].(string)
}

// mustJSON is v as JSON.
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

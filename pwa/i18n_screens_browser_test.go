package pwa_test

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// These tests open the app's screens in a German or Spanish browser and
// read everything each says (text, labels, titles, placeholders, alt
// texts): none of a list of its English may show, and some of the
// language's own words must.

// wordsIn is everything the element css holds says, as a person or a
// screen reader meets it: its text, and its labels, titles, placeholders
// and alt texts.
func (b *browser) wordsIn(css string) string {
	b.t.Helper()
	s, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(() => {
		const root = document.querySelector(`+js(css)+`);
		if (!root) return '';
		const out = [root.textContent];
		for (const el of root.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
			for (const a of ['aria-label', 'title', 'placeholder', 'alt']) out.push(el.getAttribute(a) ?? '');
		}
		return out.join(' | ');
	})()`))
	if err != nil {
		b.t.Fatalf("reading %s: %v", css, err)
	}
	return s
}

// speaks fails the test for each English text of a screen that shows, and
// for each of the language's words missing there.
func speaks(t *testing.T, screen, words string, english, native []string) {
	t.Helper()
	for _, en := range english {
		if at := strings.Index(words, en); at >= 0 {
			from, to := max(0, at-40), min(len(words), at+len(en)+40)
			t.Errorf("the %s shows the English %q: …%s…", screen, en, strings.ToValidUTF8(words[from:to], ""))
		}
	}
	for _, w := range native {
		if !strings.Contains(words, w) {
			t.Errorf("the %s lacks %q", screen, w)
		}
	}
}

// TestBrowserSpanishHomeAndScore: a Spanish browser gets the home screen,
// a board form, its results and the sheet that says what made a number in
// Spanish, with none of their English left.
func TestBrowserSpanishHomeAndScore(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "es")
	b.do(chromedp.Navigate(base + "/"))
	b.homeIn("es", "Puntuar una partida")
	speaks(t, "Spanish home screen", b.wordsIn("main"), englishOnHome,
		[]string{"Abrir una mesa", "¿Tienes un código de mesa?", "Historial", "Clasificaciones", "1–4 jugadores", "Nuestro grupo", "Idioma de la aplicación"})

	b.do(chromedp.Navigate(base+"/score/insectarium"),
		chromedp.WaitVisible(chromedp.CSS(`#panel-0 button.card[data-pointer="/players/0/board/grid/0/0"]`)))
	b.enterCard(0, 0, 0, card{"green", "beetle", 2, []string{"pin"}})
	b.chooseToken("/players/0/board/rowTokens/0", "beetle", "Escarabajo")
	b.waitTextNow(`[data-testid=live-total]`, "2")
	speaks(t, "Spanish Insectarium form", b.wordsIn("main"),
		[]string{"Display board", "Tools on the display", "full sets", "Add card", "Unused tokens", "Tool bonuses", "not chosen",
			"Row 1, column 1", "See results", "New game", "Add a player", "Names for player", "Player 1", "one more", "points",
			"Beetle", "Green", "Pin"},
		[]string{"Vitrina", "Añadir carta", "Fichas sin usar", "Fila 1, columna 1: 2 puntos, Escarabajo, Verde, herramientas Alfiler",
			"Ficha de la fila 1: Escarabajo", "Ver resultados", "Jugador 1", "Fichas sin usar: uno más"})

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=see-results]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=why-rows-0]`)))
	speaks(t, "Spanish Insectarium results", b.wordsIn("main"),
		[]string{"Results", "Standings", "Breakdown", "Category", "Rows", "Columns", "Unused tokens", "Display Tool bonuses",
			"Tap a number", "Why?", "Edit the boards", "Another game", "not every board", "rank 1", "points", "Boards"},
		[]string{"Resultados", "Posiciones", "Desglose", "Filas", "Columnas", "Fichas sin usar", "Jugador 1, Filas: 2. ¿Por qué?",
			"Toca un número", "Editar los tableros", "Otro juego", "puesto 1", "puntos"})

	b.do(chromedp.Click(chromedp.CSS(`[data-testid=why-rows-0]`)), chromedp.WaitVisible(chromedp.CSS(`[data-testid=why-list]`)))
	speaks(t, "Spanish sheet of what made the rows", b.wordsIn("dialog.sheet"),
		[]string{"Green", "beetle", "What made", "Done", "Close", "Rows", "points"},
		[]string{"Jugador 1: Filas 2 puntos", "Verde, Escarabajo", "De dónde sale Filas", "Hecho", "Cerrar"})
	b.checkConsole()
}

// englishInHistory are the English texts of the history's screens (the
// groups, one group, the plays, a play, a leaderboard, a player's page),
// none of which may show in another language.
var englishInHistory = map[string][]string{
	"groups": {"Groups", "A group keeps", "Invite ›", "Create a group", "Name of the new group", "Create group", "Join a group",
		"Invite link", "Or scan", "Our group", "Invite and data of", "Thursday board games", "Home"},
	"group": {"Current group", "New tables and plays are kept here", "Invite link", "Copy", "Your data", "Download JSON",
		"Plays as CSV", "Import a group", "Show the QR code bigger", "QR code that opens", "Our group", "Groups"},
	"history": {"History", "All games", "Everyone", "Location", "Anywhere", "Load more", "Plays, newest first", "Log a past play",
		"(won)", "Our group", "switch, invite", "Home"},
	"play": {"Finished", "Length", "Notes", "No notes", "Edit notes", "Winner", "Breakdown", "Category", "Rows", "Columns",
		"Unused tokens", "Display Tool bonuses", "Tiebreak", "Tap a number", "Share", "Edit boards", "Rematch", "Delete",
		"Why?", "rank 1", "points", "Standings", "History"},
	"leaderboard": {"Leaderboard", "Player", "Plays", "Wins", "Win %", "Avg", "Best score", "Rating", "more plays",
		"Shared wins", "Position", "Win rate", "Average score", "no rating yet", "Games", "Home"},
	"player": {"Leaderboard", "Plays", "Wins", "Win rate", "Average", "Rating", "Last played", "Scores", "Head to head",
		"Opponent", "Won", "Lost", "Tied", "Recent plays", "All plays of", "Same person", "Rename", "Merge", "points",
		"rated play", "finished ahead", "finished behind", "more plays with others", "Games"},
}

// TestBrowserHistoryInGermanAndSpanish: the history's screens, opened in a
// German and in a Spanish browser, speak that language: the groups and a
// group, the list of plays, a play, a leaderboard and a player's page,
// with its charts' descriptions, whose ratings are written in the
// language's way (4,1 and not 4.1).
func TestBrowserHistoryInGermanAndSpanish(t *testing.T) {
	base := startApp(t)
	day := time.Now().Add(-72 * time.Hour).Truncate(time.Minute)
	postPlay(t, base, "default", "insectarium", day, seedPlayer{"Ana", displayBoard(4)}, seedPlayer{"Ben", displayBoard(0)})
	postPlay(t, base, "default", "insectarium", day.Add(24*time.Hour), seedPlayer{"Ana", displayBoard(2)}, seedPlayer{"Ben", displayBoard(6)})
	last := postPlay(t, base, "default", "insectarium", time.Now().Add(2*time.Second),
		seedPlayer{"Ana", displayBoard(8)}, seedPlayer{"Ben", displayBoard(2)}, seedPlayer{"Cleo", displayBoard(0)})
	postPlay(t, base, "default", "insektenhotel", day, seedPlayer{"Ben", fullHotel}, seedPlayer{"Ana", partHotel})
	var lb struct {
		Entries []struct{ Player, PlayerID string }
	}
	apiJSON(t, http.MethodGet, base+"/api/v1/leaderboards/insectarium?group=default", "", nil, http.StatusOK, &lb)
	if len(lb.Entries) == 0 || lb.Entries[0].Player != "Ana" {
		t.Fatalf("the leaderboard is %+v, want Ana first", lb.Entries)
	}
	ana := lb.Entries[0].PlayerID

	native := map[string]map[string][]string{
		"de": {
			"groups":  {"Gruppen", "Unsere Spielerunde", "Aktuell", "Eine Gruppe anlegen", "Einladung und Daten von Unsere Spielerunde", "Einer Gruppe beitreten"},
			"group":   {"Aktuelle Gruppe", "Einladungslink", "Kopieren", "Deine Daten", "JSON herunterladen", "Partien als CSV", "QR-Code größer zeigen"},
			"history": {"Verlauf", "Alle Spiele", "Überall", "Mehr laden", "Partien, neueste zuerst", "(gewonnen)", "Frühere Partie eintragen"},
			"play": {"Beendet", "Dauer", "40 Min.", "Keine Notizen.", "Sieger", "Aufschlüsselung", "Reihen", "Unbenutzte Marker",
				"Gleichstandsregel", "Ana, Reihen: 0. Warum?", "Platz 1", "Punkte", "Revanche"},
			"leaderboard": {"Bestenliste Insectarium", "Spieler", "Partien", "Siege", "Sieg-%", "Wertung", "vorläufig, noch 2 Partien",
				"noch keine Wertung", "Siegquote", "4,3"},
			"player": {"Partien", "Siegquote", "Durchschnitt", "Wertung im Verlauf", "Punktzahlen", "Direkter Vergleich", "Gegner",
				"Gewonnen", "Verloren", "Gleichauf", "Letzte Partien", "Alle Partien von Ana", "Eine Person, zwei Namen?",
				"Umbenennen", "Zusammenführen mit", "Punkte", "Ana lag vorne", "gewerteten Partien"},
		},
		"es": {
			"groups":  {"Grupos", "Nuestro grupo", "Actual", "Crear un grupo", "Invitación y datos de Nuestro grupo", "Unirse a un grupo"},
			"group":   {"Grupo actual", "Enlace de invitación", "Copiar", "Tus datos", "Descargar JSON", "Partidas en CSV", "Mostrar el código QR más grande"},
			"history": {"Historial", "Todos los juegos", "En cualquier lugar", "Cargar más", "Partidas, las más recientes primero", "(ganó)", "Anotar una partida pasada"},
			"play": {"Terminada", "Duración", "Sin notas.", "Ganador", "Desglose", "Filas", "Fichas sin usar", "Desempate",
				"Ana, Filas: 0. ¿Por qué?", "puesto 1", "puntos", "Revancha"},
			"leaderboard": {"Clasificación de Insectarium", "Jugador", "Partidas", "Victorias", "% vict.", "Valoración",
				"provisional, 2 partidas más", "aún sin valoración", "4,3"},
			"player": {"Partidas", "Porcentaje de victorias", "Media", "Valoración a lo largo del tiempo", "Puntuaciones", "Cara a cara",
				"Rival", "Ganadas", "Perdidas", "Empatadas", "Partidas recientes", "Todas las partidas de Ana",
				"¿La misma persona con dos nombres?", "Renombrar", "Fusionar con", "puntos", "Ana quedó por delante", "partidas valoradas"},
		},
	}
	screens := []struct{ name, path, ready string }{
		{"groups", "/groups", `.group-open`},
		{"group", "/groups/default", `#invite-url`},
		{"history", "/history", `[data-testid=play-item]`},
		{"play", "/plays/" + last, `[data-testid=why-rows-0]`},
		{"leaderboard", "/leaderboards/insectarium", `table.lb-points [data-testid=lb-row]`},
		{"player", "/players/" + ana, `#pgame-insectarium [data-testid=score-histogram] svg`},
	}
	// A decimal written the English way, in one chart text.
	englishDecimal := regexp.MustCompile(`\d\.\d`)
	for _, lang := range []string{"de", "es"} {
		t.Run(lang, func(t *testing.T) {
			b := newBrowserIn(t, base, lang)
			for _, s := range screens {
				b.do(chromedp.Navigate(base+s.path), chromedp.WaitVisible(chromedp.CSS(s.ready)))
				b.waitFor("the "+s.name+" screen in "+lang, `document.documentElement.lang === `+js(lang)+` && !document.querySelector('.boot')`)
				speaks(t, lang+" "+s.name+" screen", b.wordsIn("main"), englishInHistory[s.name], native[lang][s.name])
			}
			// The player's page was the last: its charts' words, one by one.
			texts, err := chromedp.Run(b.ctx, chromedp.Evaluate[[]string](
				`[...document.querySelectorAll('main svg :is(title, desc, text)')].map((el) => el.textContent)`))
			if err != nil {
				t.Fatal(err)
			}
			if len(texts) == 0 {
				t.Fatal("the player's page has no chart texts")
			}
			for _, s := range texts {
				if englishDecimal.MatchString(s) {
					t.Errorf("a chart on the %s player's page writes a decimal the English way: %q", lang, s)
				}
			}
			b.checkConsole()
		})
	}
}

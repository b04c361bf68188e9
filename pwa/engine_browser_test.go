package pwa_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"insectscore/scoring"
)

// The engine parity test asks the real server and the rules engine in
// Chromium (engine/engine.js starting its worker, which runs engine.wasm,
// under the app's CSP; every question goes through the worker) the
// same questions and wants the same answers, status and JSON body: the game
// list, every spec, every request the scoring tests score
// (scoring/testdata/requests.json, rulebook examples included), the API's
// rulebook examples, and requests made by a seeded generator, valid and
// broken, for every game.
//
//	go test ./pwa -run Engine -v

// engineCase is one question for the server and the engine.
type engineCase struct {
	Name string `json:"-"`
	// Op is "games" (GET /api/v1/games), "spec" (GET /api/v1/games/{id})
	// or "score" (POST /api/v1/games/{id}/score with Body).
	Op   string `json:"op"`
	Game string `json:"id"`
	Body string `json:"body"`
	// Lang, when set, is the Accept-Language of the question to the
	// server; the engine is set to it (setEngineLanguage) first.
	Lang string `json:"-"`
}

// engineAnswer is a status and a JSON body, from either side.
type engineAnswer struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
	// Ms is how long the engine took, as the page measured it.
	Ms float64 `json:"ms"`
}

// generatedRequests is how many requests the generator makes.
const generatedRequests = 1000

// timedCalls is how many times the engine answers each question again, to
// time one answer finer than the browser's clock.
const timedCalls = 10

func TestEngineParity(t *testing.T) {
	chromiumPath(t)
	base := startApp(t)

	cases := []engineCase{{Name: "game list", Op: "games"}}
	for _, id := range append(gameIDs(), "chess", "insect", "insectarium-solo") {
		cases = append(cases, engineCase{Name: "spec " + id, Op: "spec", Game: id})
	}
	recorded := recordedCases(t)
	examples := apiExamples(t)
	generated := generateCases(rand.New(rand.NewPCG(7, 2026)), generatedRequests)
	cases = slices.Concat(cases, recorded, examples, generated)

	// The server first, so the browser's time budget is its own.
	server := make([]engineAnswer, len(cases))
	for i, c := range cases {
		server[i] = askServer(t, base, c)
	}

	b := newBrowser(t, base)
	// The page without the app: once the service worker is ready, the app
	// warms the engine and sets it to the app's language, which would race
	// with the languages set here.
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{
			URLPatterns: []*network.BlockPattern{{URLPattern: "*://*:*/*/app.js", Block: true}}})
		return err
	}))
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitReady(chromedp.CSS(`script[type="module"][src]`)))
	assets := b.assetBase()
	b.checkLoader(assets)

	var engine []engineAnswer
	const batch = 250
	for start := 0; start < len(cases); start += batch {
		engine = append(engine, b.askEngine(assets, cases[start:min(start+batch, len(cases))])...)
	}
	if len(engine) != len(cases) {
		t.Fatalf("the engine answered %d of %d questions", len(engine), len(cases))
	}

	statuses := map[int]int{}
	var scoreMs, scoredMs []float64
	failures := 0
	for i, c := range cases {
		statuses[server[i].Status]++
		if c.Op == "score" {
			scoreMs = append(scoreMs, engine[i].Ms)
			if engine[i].Status == 200 {
				scoredMs = append(scoredMs, engine[i].Ms)
			}
		}
		if sameAnswer(server[i], engine[i]) {
			continue
		}
		if failures++; failures <= 10 {
			t.Errorf("%s: %s %q %.300s\n server %d %s\n engine %d %s", c.Name, c.Op, c.Game, c.Body,
				server[i].Status, server[i].Body, engine[i].Status, engine[i].Body)
		}
	}
	if failures > 10 {
		t.Errorf("… and %d more answers differ", failures-10)
	}
	// German and Spanish: every question but the generated ones, and a
	// fifth of those, to the server with Accept-Language and to the
	// engine after setEngineLanguage.
	localized := slices.Concat(cases[:len(cases)-len(generated)], generated[:len(generated)/5])
	for _, lang := range []string{"de", "es"} {
		in := make([]engineCase, len(localized))
		for i, c := range localized {
			c.Lang = lang
			in[i] = c
		}
		answers := b.askEngineIn(assets, lang, in)
		relabelled, wrong := 0, 0
		for i, c := range in {
			want := askServer(t, base, c)
			if !sameAnswer(answers[i], engineAnswer{Status: server[i].Status, Body: server[i].Body}) {
				relabelled++
			}
			if sameAnswer(want, answers[i]) {
				continue
			}
			if wrong++; wrong <= 5 {
				t.Errorf("%s in %s: %s %q %.300s\n server %d %s\n engine %d %s", c.Name, lang, c.Op, c.Game, c.Body,
					want.Status, want.Body, answers[i].Status, answers[i].Body)
			}
		}
		if wrong > 5 {
			t.Errorf("… and %d more answers in %s differ", wrong-5, lang)
		}
		// Answers the language left alone (the game list) are few.
		if relabelled < len(in)/2 {
			t.Errorf("in %s only %d of %d answers differ from English: is the engine speaking it?", lang, relabelled, len(in))
		}
		t.Logf("%s: %d questions, the same answers from server and engine, %d of them unlike English", lang, len(in), relabelled)
	}
	t.Logf("%d questions, the same answers from server and engine: the game list and %d specs, %d requests of scoring's tests, %d API rulebook examples, %d generated; statuses %v",
		len(cases), len(cases)-1-len(recorded)-len(examples)-len(generated), len(recorded), len(examples), len(generated), statuses)
	t.Logf("one engine score call, a round trip from the page to the engine's worker: median %.3f ms over %d requests, %.3f ms over the %d that score (each timed over %d calls)",
		median(scoreMs), len(scoreMs), median(scoredMs), len(scoredMs), timedCalls)
	// A generator that makes only errors, or none, tests little.
	for _, want := range []int{200, 400, 404, 422} {
		if statuses[want] < 10 {
			t.Errorf("only %d answers with status %d; the cases should cover it", statuses[want], want)
		}
	}
	b.checkConsole()
}

// gameIDs lists the registered games.
func gameIDs() []string {
	var ids []string
	for _, g := range scoring.Games() {
		ids = append(ids, g.Spec().ID)
	}
	return ids
}

// recordedCases reads the requests scoring's tests score.
func recordedCases(t *testing.T) []engineCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "scoring", "testdata", "requests.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct{ Name, Game, Body string }
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	if len(recs) < 100 {
		t.Fatalf("scoring/testdata/requests.json holds %d requests; the scoring tests make more", len(recs))
	}
	out := make([]engineCase, len(recs))
	for i, r := range recs {
		out[i] = engineCase{Name: "scoring " + r.Name, Op: "score", Game: r.Game, Body: r.Body}
	}
	return out
}

// apiExamples reads the rulebook examples of the API tests.
func apiExamples(t *testing.T) []engineCase {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "api", "testdata", "*-example.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no rulebook examples in api/testdata (%v)", err)
	}
	var out []engineCase
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		game := strings.TrimSuffix(filepath.Base(f), "-example.json")
		out = append(out, engineCase{Name: "api " + filepath.Base(f), Op: "score", Game: game, Body: string(body)})
	}
	return out
}

// askServer puts a question to the server over HTTP.
func askServer(t *testing.T, base string, c engineCase) engineAnswer {
	t.Helper()
	method, path, body := "GET", "/api/v1/games", io.Reader(nil)
	switch c.Op {
	case "spec":
		path += "/" + c.Game
	case "score":
		method, path, body = "POST", path+"/"+c.Game+"/score", strings.NewReader(c.Body)
	}
	req, err := http.NewRequest(method, base+path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.Lang != "" {
		req.Header.Set("Accept-Language", c.Lang)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return engineAnswer{Status: res.StatusCode, Body: data}
}

// assetBase reads the versioned asset directory ("/assets/<version>/") off
// the page's module script.
func (b *browser) assetBase() string {
	b.t.Helper()
	src, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`document.querySelector('script[type="module"][src]').src`))
	if err != nil {
		b.t.Fatal(err)
	}
	path := strings.TrimPrefix(src, b.base)
	version, _, ok := strings.Cut(strings.TrimPrefix(path, "/assets/"), "/")
	if !strings.HasPrefix(path, "/assets/") || !ok || version == "" {
		b.t.Fatalf("the module script %s is not under /assets/<version>/", src)
	}
	return "/assets/" + version + "/"
}

// checkLoader holds engine.js to its promises: nothing is ready before
// loadEngine, which loads once and hands out the same engine; score takes
// a request as a value too, and no request is no body.
func (b *browser) checkLoader(assets string) {
	b.t.Helper()
	var got struct {
		ReadyBefore, Same, ReadyAfter bool
		Games, Value, NoBody          int
		// Rows is the first score line's label of Insectarium in German,
		// the language set before the engine loaded, then in English.
		Rows []string
	}
	start := time.Now()
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const { loadEngine, engineReady, setEngineLanguage } = await import(`+js(assets+"engine/engine.js")+`);
		const readyBefore = engineReady() !== null;
		await setEngineLanguage('de');
		const [one, two] = await Promise.all([loadEngine(), loadEngine()]);
		const three = await loadEngine();
		const rows = [(await one.spec('insectarium')).body.breakdown[0].label];
		setEngineLanguage('en');
		rows.push((await one.spec('insectarium')).body.breakdown[0].label);
		return JSON.stringify({ readyBefore, same: one === two && two === three,
			readyAfter: engineReady() === one, games: (await one.games()).body.length,
			value: (await one.score('insectarium', { players: [{ name: 'Ana' }] })).status,
			noBody: (await one.score('insectarium')).status, rows });
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("loading the engine: %v", err)
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("engine loaded in %s", time.Since(start).Round(time.Millisecond))
	if got.ReadyBefore || !got.Same || !got.ReadyAfter || got.Games != len(gameIDs()) || got.Value != 200 || got.NoBody != 400 ||
		!slices.Equal(got.Rows, []string{"Reihen", "Rows"}) {
		b.t.Fatalf("loader: %+v; want not ready before loading, one engine, ready after, %d games, 200 for a request value, 400 for none, Reihen then Rows", got, len(gameIDs()))
	}
}

// askEngine puts questions to the engine (in its worker) from the page, in
// one evaluation, one question at a time.
func (b *browser) askEngine(assets string, cases []engineCase) []engineAnswer {
	b.t.Helper()
	qs, err := json.Marshal(cases)
	if err != nil {
		b.t.Fatal(err)
	}
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const { loadEngine } = await import(`+js(assets+"engine/engine.js")+`);
		const engine = await loadEngine();
		const ask = (q) => q.op === 'games' ? engine.games() : q.op === 'spec' ? engine.spec(q.id) : engine.score(q.id, q.body);
		const out = [];
		for (const q of `+string(qs)+`) {
			const a = await ask(q);
			// The browser's clock ticks in 0.1 ms: time several calls, each
			// a round trip to the worker.
			const t0 = performance.now();
			for (let i = 0; i < `+fmt.Sprint(timedCalls)+`; i++) await ask(q);
			out.push({ status: a.status, body: a.body, ms: (performance.now() - t0) / `+fmt.Sprint(timedCalls)+` });
		}
		return JSON.stringify(out);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("asking the engine: %v", err)
	}
	var answers []engineAnswer
	if err := json.Unmarshal([]byte(out), &answers); err != nil {
		b.t.Fatal(err)
	}
	return answers
}

// askEngineIn sets the engine's language to lang and puts questions to
// it, untimed; it sets English again after.
func (b *browser) askEngineIn(assets, lang string, cases []engineCase) []engineAnswer {
	b.t.Helper()
	qs, err := json.Marshal(cases)
	if err != nil {
		b.t.Fatal(err)
	}
	out, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const { loadEngine, setEngineLanguage } = await import(`+js(assets+"engine/engine.js")+`);
		const engine = await loadEngine();
		setEngineLanguage(`+js(lang)+`);
		const ask = (q) => q.op === 'games' ? engine.games() : q.op === 'spec' ? engine.spec(q.id) : engine.score(q.id, q.body);
		const out = [];
		for (const q of `+string(qs)+`) {
			const a = await ask(q);
			out.push({ status: a.status, body: a.body });
		}
		await setEngineLanguage('en');
		return JSON.stringify(out);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("asking the engine in %s: %v", lang, err)
	}
	var answers []engineAnswer
	if err := json.Unmarshal([]byte(out), &answers); err != nil {
		b.t.Fatal(err)
	}
	return answers
}

// sameAnswer compares statuses and bodies as JSON values.
func sameAnswer(a, b engineAnswer) bool {
	var av, bv any
	if a.Status != b.Status || json.Unmarshal(a.Body, &av) != nil || json.Unmarshal(b.Body, &bv) != nil {
		return false
	}
	return reflect.DeepEqual(av, bv)
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	sort.Float64s(s)
	return s[len(s)/2]
}

// caseGen makes score requests from a seeded source: boards built from each
// game's spec, mostly plausible, then often broken on purpose (a value of
// the wrong type, a field no board has, a number out of range, a field left
// out), plus bodies that are empty or not JSON and games that do not exist.
type caseGen struct {
	r     *rand.Rand
	specs map[string]scoring.Spec
	// researchers and hotels deal them out to the players of a request,
	// by index into the enumeration; fullHotel is the player whose hotel
	// is full, if any.
	researchers, hotels []int
	fullHotel           int
}

func generateCases(r *rand.Rand, n int) []engineCase {
	g := &caseGen{r: r, specs: map[string]scoring.Spec{}}
	ids := gameIDs()
	for _, id := range ids {
		game, _ := scoring.Lookup(id)
		g.specs[id] = game.Spec()
	}
	out := make([]engineCase, n)
	for i := range out {
		id := ids[i%len(ids)]
		c := engineCase{Name: fmt.Sprintf("generated #%d", i), Op: "score", Game: id}
		switch p := g.r.IntN(100); {
		case p < 4:
			c.Game = pick(g.r, []string{"chess", "Insecta", "insect", "insektenhotel2"})
			c.Body = g.body(id)
		case p < 8:
			c.Body = pick(g.r, []string{"", "", " ", "\n"})
		case p < 14:
			c.Body = g.malformed(g.body(id))
		case p < 55:
			c.Body = g.body(id)
		default:
			c.Body = g.broken(id)
		}
		out[i] = c
	}
	return out
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// enum picks an id of one of a game's enumerations.
func (g *caseGen) enum(game, name string) string {
	return pick(g.r, g.specs[game].Enums[name]).ID
}

// request builds a request as a JSON tree: players with names and boards,
// sometimes variants. One request in ten gets a flaw of its own: no
// players, too many, or a name that is missing, taken or too long.
func (g *caseGen) request(game string) map[string]any {
	spec := g.specs[game]
	n := spec.MinPlayers + g.r.IntN(spec.MaxPlayers-spec.MinPlayers+1)
	flaw := -1
	if g.r.IntN(10) == 0 {
		flaw = g.r.IntN(6)
	}
	switch flaw {
	case 0:
		n = 0
	case 1:
		n = spec.MaxPlayers + 1
	}
	// Each player has a researcher and a hotel of their own; at most one
	// hotel is full.
	g.researchers = g.r.Perm(len(g.specs["insecta"].Enums["researcher"]))
	g.hotels = g.r.Perm(len(g.specs["insektenhotel"].Enums["hotel"]))
	g.fullHotel = g.r.IntN(n + 2)
	names := []string{"Ana", "Ben", "Cleo", "Dev", "Eve"}
	players := make([]any, n)
	for i := range players {
		name := names[i%len(names)]
		if i == n-1 {
			switch flaw {
			case 2:
				name = ""
			case 3:
				name = " ana" // Ana's name again
			case 4:
				name = strings.Repeat("x", scoring.MaxNameLength+1)
			}
		}
		if i == 1 && g.r.IntN(8) == 0 {
			name = "Zoë 🐞 <&>"
		}
		p := map[string]any{"name": name}
		switch g.r.IntN(20) {
		case 0: // no board yet
		case 1:
			p["board"] = nil
		default:
			p["board"] = g.board(game, i)
		}
		players[i] = p
	}
	req := map[string]any{"players": players}
	switch {
	case game == "insecta" && g.r.IntN(4) == 0:
		req["variants"] = map[string]any{"oneFragment": pick(g.r, []int{-1, 1})}
	case g.r.IntN(20) == 0:
		req["variants"] = pick(g.r, []map[string]any{{"oneFragment": 0}, {"turbo": 1}, {}})
	}
	return req
}

func (g *caseGen) board(game string, player int) map[string]any {
	switch game {
	case "insectarium":
		return g.insectarium()
	case "insecta":
		return g.insecta(player)
	default:
		return g.hotel(player)
	}
}

func (g *caseGen) insectarium() map[string]any {
	const game = "insectarium"
	tools := func() []any {
		out := []any{}
		for _, tl := range g.specs[game].Enums["tool"] {
			if g.r.IntN(4) == 0 {
				out = append(out, tl.ID)
			}
		}
		return out
	}
	grid := make([]any, 3)
	for r := range grid {
		row := make([]any, 3)
		for c := range row {
			switch p := g.r.IntN(20); {
			case p < 3:
				row[c] = nil
			case p < 5:
				row[c] = map[string]any{"name": "Banded Pennant", "wild": true, "tools": tools()}
			default:
				row[c] = map[string]any{"name": fmt.Sprintf("Card %d", g.r.IntN(40)),
					"color": g.enum(game, "color"), "insect": g.enum(game, "insect"),
					"points": 1 + g.r.IntN(6), "tools": tools()}
			}
		}
		grid[r] = row
	}
	tokens := func() []any {
		out := make([]any, 3)
		for i := range out {
			if g.r.IntN(4) > 0 {
				out[i] = g.enum(game, "token")
			}
		}
		return out
	}
	return map[string]any{"grid": grid, "rowTokens": tokens(), "colTokens": tokens(),
		"supply": g.r.IntN(8), "toolBonusesForPoints": g.r.IntN(3), "toolBonusesForTokens": g.r.IntN(2)}
}

// insecta lays out a connected collection on a checkerboard of insects and
// mails, which is legal; one board in twenty mixes the kinds up.
func (g *caseGen) insecta(player int) map[string]any {
	const game = "insecta"
	type cell struct{ r, c int }
	n := g.r.IntN(14)
	cells := []cell{{g.r.IntN(4), g.r.IntN(6)}}
	taken := map[cell]bool{cells[0]: true}
	for tries := 0; len(cells) < n && tries < 200; tries++ {
		from := pick(g.r, cells)
		next := cell{from.r + g.r.IntN(3) - 1, from.c + g.r.IntN(3) - 1}
		if next.r < 0 || next.r > 3 || next.c < 0 || next.c > 5 || taken[next] {
			continue
		}
		taken[next] = true
		cells = append(cells, next)
	}
	if n == 0 {
		cells = nil
	}
	parity, mixed := g.r.IntN(2), g.r.IntN(20) == 0
	names := []string{"Attacus atlas", "Goliathus regius", "Fulgora laternaria", "Papilio ulysses", "attacus ATLAS"}
	tiles := make([]any, len(cells))
	for i, c := range cells {
		insect := (c.r+c.c)%2 == parity
		if mixed {
			insect = g.r.IntN(2) == 0
		}
		tile := map[string]any{"row": c.r, "col": c.c}
		if insect {
			tile["kind"] = "insect"
			tile["continent"] = g.enum(game, "continent")
			tile["order"] = g.enum(game, "order")
			tile["size"] = g.enum(game, "size")
			if g.r.IntN(2) == 0 {
				tile["name"] = pick(g.r, names)
			}
			if g.r.IntN(3) == 0 {
				tile["wreath"] = g.enum(game, "researcher")
			}
		} else {
			tile["kind"] = "mail"
			tile["institution"] = g.enum(game, "institution")
			tile["points"] = 1 + g.r.IntN(10)
			if g.r.IntN(3) > 0 {
				tile["scored"] = g.r.IntN(2) == 0
			}
		}
		tiles[i] = tile
	}
	board := map[string]any{"track": g.r.IntN(60), "fragments": g.r.IntN(4), "tiles": tiles}
	if g.r.IntN(10) > 0 {
		board["researcher"] = g.specs[game].Enums["researcher"][g.researchers[player%len(g.researchers)]].ID
	}
	if g.r.IntN(4) == 0 {
		var medals []any
		for range 1 + g.r.IntN(3) {
			medals = append(medals, map[string]any{"medal": g.enum(game, "medal"), "level": 1 + g.r.IntN(6)})
		}
		board["medals"] = medals
	}
	return board
}

func (g *caseGen) hotel(player int) map[string]any {
	const game = "insektenhotel"
	full := player == g.fullHotel
	species := g.specs[game].Enums["species"]
	floors := make([]any, 3)
	for i, k := range g.r.Perm(len(species))[:3] {
		guests := g.r.IntN(3)
		if full {
			guests = 2
		}
		floors[i] = map[string]any{"species": species[k].ID, "guests": guests}
	}
	hotel := g.specs[game].Enums["hotel"][g.hotels[player%len(g.hotels)]].ID
	return map[string]any{"hotel": hotel, "floors": floors}
}

// body is a request as JSON text.
func (g *caseGen) body(game string) string {
	b, err := json.Marshal(g.request(game))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// broken is a request with one to three values broken.
func (g *caseGen) broken(game string) string {
	req := g.request(game)
	for range 1 + g.r.IntN(3) {
		g.breakOne(req)
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// slot is a place in a JSON tree: its value and how to replace it.
type slot struct {
	v   any
	set func(any)
	del func()
}

func slots(v any, set func(any), del func(), out *[]slot) {
	*out = append(*out, slot{v, set, del})
	switch n := v.(type) {
	case map[string]any:
		keys := slices.Sorted(maps.Keys(n)) // a seed makes the same requests
		for _, k := range keys {
			slots(n[k], func(x any) { n[k] = x }, func() { delete(n, k) }, out)
		}
	case []any:
		for i, child := range n {
			slots(child, func(x any) { n[i] = x }, nil, out)
		}
	}
}

// breakOne changes one place of the tree: a value of another type, a field
// no board has, a number out of range, or a field left out.
func (g *caseGen) breakOne(req map[string]any) {
	var all []slot
	slots(req, func(any) {}, nil, &all)
	if len(all) == 1 { // an earlier break took the players away
		req["players"] = "none"
		return
	}
	s := all[1+g.r.IntN(len(all)-1)] // never the root
	switch g.r.IntN(4) {
	case 0:
		s.set(pick(g.r, []any{"7", 7, 2.5, true, nil, []any{1}, map[string]any{"a": 1}, "", "unknown"}))
	case 1:
		if m, ok := s.v.(map[string]any); ok {
			m[pick(g.r, []string{"colour", "Points", "extra", "x~y/z"})] = 1
		} else {
			s.set(map[string]any{"surprise": true})
		}
	case 2:
		s.set(pick(g.r, []any{-1, 0, 3, 10, 99, 301, 1e21, -2147483649, 9007199254740993}))
	default:
		if s.del != nil {
			s.del()
		} else {
			s.set(nil)
		}
	}
}

// malformed cuts or spoils JSON text so that it no longer parses.
func (g *caseGen) malformed(body string) string {
	var out string
	switch g.r.IntN(4) {
	case 0:
		cut := g.r.IntN(len(body))
		for cut > 0 && !utf8.RuneStart(body[cut]) {
			cut--
		}
		out = body[:cut]
	case 1:
		out = strings.Replace(body, `"`, `'`, 2)
	case 2:
		out = body + "}"
	default:
		out = body + ` {"players": []}`
	}
	if json.Valid([]byte(out)) {
		return "{" + out
	}
	return out
}

// blockURLs makes the page's browser refuse every request matching a
// pattern: the page sees a network error.
func (b *browser) blockURLs(patterns ...string) {
	b.t.Helper()
	var block []*network.BlockPattern
	for _, p := range patterns {
		block = append(block, &network.BlockPattern{URLPattern: p, Block: true})
	}
	b.do(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
			return err
		}
		_, err := chromedp.Call(ctx, network.SetBlockedURLs, network.SetBlockedURLsParams{URLPatterns: block})
		return err
	}))
}

// TestBrowserEngineFailsInTheAppsLanguage: when the rules engine's worker
// cannot start (its script does not load), the error loadEngine rejects
// with is in the app's language, German here, and not the worker's
// English; and the worker names its own failures by a catalog key, which
// engine.js writes out. No screen shows these today (the server, or its
// offline notice, answers instead), but whatever shows them later reads
// them in the user's language.
func TestBrowserEngineFailsInTheAppsLanguage(t *testing.T) {
	base := startApp(t)
	b := newBrowserIn(t, base, "de")
	// The page without the app, which would warm the engine itself.
	b.blockURLs("*://*:*/*/app.js")
	b.blockRequests("*://*:*/*/engine/worker.js")
	b.do(chromedp.Navigate(base+"/"), chromedp.WaitReady(chromedp.CSS(`script[type="module"][src]`)))
	assets := b.assetBase()
	got, err := chromedp.Run(b.ctx, chromedp.Evaluate[string](`(async () => {
		const { loadEngine } = await import(`+js(assets+"engine/engine.js")+`);
		return loadEngine().then(() => 'the engine loaded', (err) => err.message);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := "der Hintergrundprozess der Regel-Engine ist ausgefallen: er ließ sich nicht laden"; got != want {
		t.Errorf("with its worker's script blocked, loading the engine fails with %q, want %q", got, want)
	}

	// The worker itself, asked before it was started, answers with a key.
	b.blockRequests()
	got, err = chromedp.Run(b.ctx, chromedp.Evaluate[string](`new Promise((resolve) => {
		const w = new Worker(`+js(assets+"engine/worker.js")+`, { type: 'module' });
		w.addEventListener('message', (e) => { resolve(JSON.stringify(e.data)); w.terminate(); });
		w.postMessage({ id: 1, op: 'games', args: [] });
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":1,"error":{"key":"ui.engine.notStarted"}}`; got != want {
		t.Errorf("the worker, asked before it started, answers %s, want %s", got, want)
	}
	b.checkConsole()
}

package api

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/scoring"
)

// clockSkew is how far in the future a logged play may finish: a phone's
// clock running a little ahead of the server's is not a mistake.
const clockSkew = 5 * time.Minute

// earliestPlay is the earliest time a logged play may start or finish:
// anything before is a slip of the date picker, and the zero time would
// read as "not given".
var earliestPlay = time.Date(1970, time.January, 1, 0, 0, 0, 0, time.UTC)

// playRequest is the body of POST /api/v1/plays and PUT /api/v1/plays/{id}:
// a play entered after the fact. Times are RFC 3339 strings, parsed here so
// that a bad one is reported at its own field.
type playRequest struct {
	Game       string                `json:"game"`
	Variants   map[string]int        `json:"variants"`
	StartedAt  *string               `json:"startedAt"`
	FinishedAt *string               `json:"finishedAt"`
	Players    []scoring.PlayerInput `json:"players"`
	// Notes, Location and StartPlayer (an index into players) may be
	// left out: the play then has none.
	Notes       *string `json:"notes"`
	Location    *string `json:"location"`
	StartPlayer *int    `json:"startPlayer"`
}

// playNotes are a play's notes, location and start player (an index into
// its results; null when not known) as every play JSON carries them.
type playNotes struct {
	Notes       string `json:"notes"`
	Location    string `json:"location"`
	StartPlayer *int   `json:"startPlayer"`
}

// playSummary is a play as the history list shows it.
type playSummary struct {
	ID         string       `json:"id"`
	Game       string       `json:"game"`
	FinishedAt time.Time    `json:"finishedAt"`
	Results    []playResult `json:"results"`
	playNotes
	Links playLinks `json:"links"`
}

// playResult is one player's line of a play; the name is the player's
// name now, whatever was typed at the time.
type playResult struct {
	Player   string `json:"player"`
	PlayerID string `json:"playerId"`
	Total    int    `json:"total"`
	Rank     int    `json:"rank"`
	Winner   bool   `json:"winner"`
}

type playList struct {
	Plays []playSummary `json:"plays"`
	// Next is the cursor of the next page; null after the last.
	Next *string `json:"next"`
}

// playDetail is a play with every player's board and breakdown.
type playDetail struct {
	ID         string    `json:"id"`
	Game       string    `json:"game"`
	FinishedAt time.Time `json:"finishedAt"`
	// StartedAt and DurationSeconds are null when the start is unknown.
	StartedAt       *time.Time     `json:"startedAt"`
	DurationSeconds *int64         `json:"durationSeconds"`
	Variants        map[string]int `json:"variants"`
	TableCode       string         `json:"tableCode,omitempty"`
	Results         []playerDetail `json:"results"`
	// Standings is the scored result as recorded: tiebreaks, warnings,
	// the tie sentence and the solo rating.
	Standings json.RawMessage `json:"standings"`
	// messages are the standings' warnings and tie sentence by key, to
	// write them in the client's language; never sent.
	messages scoring.ResultMessages
	playNotes
	Links playLinks `json:"links"`
}

type playerDetail struct {
	playResult
	NameAsEntered string          `json:"nameAsEntered"`
	Breakdown     []scoring.Line  `json:"breakdown"`
	Board         json.RawMessage `json:"board"`
}

// listPlays answers GET /api/v1/plays: the group's plays, newest first, a
// page at a time.
func (s *server) listPlays(c *fiber.Ctx) error {
	f, err := playFilter(c)
	if err != nil {
		return err
	}
	plays, next, err := s.store.ListPlays(c.UserContext(), f)
	if err != nil {
		return err
	}
	out := playList{Plays: summaries(plays)}
	if next != "" {
		out.Next = &next
	}
	return c.JSON(out)
}

// getPlay answers GET /api/v1/plays/{id}.
func (s *server) getPlay(c *fiber.Ctx) error {
	p, err := s.store.FindPlay(c.UserContext(), queryGroup(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(detail(p).in(catalogOf(c)))
}

// logPlay answers POST /api/v1/plays: a play without a table, scored and
// checked as a finished table would be.
func (s *server) logPlay(c *fiber.Ctx) error {
	lp, err := s.decodePlay(c)
	if err != nil {
		return err
	}
	group := queryGroup(c)
	_, ans, err := s.store.RecordPlay(c.UserContext(), group, lp, reply(c, fiber.StatusCreated, func(p *models.Play) any {
		c.Location("/api/v1/plays/" + p.ID + "?group=" + url.QueryEscape(group))
		return detail(p).in(catalogOf(c))
	}))
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

// editPlay answers PUT /api/v1/plays/{id}: the play is replaced by the body,
// and the leaderboards follow.
func (s *server) editPlay(c *fiber.Ctx) error {
	lp, err := s.decodePlay(c)
	if err != nil {
		return err
	}
	_, ans, err := s.store.ChangePlay(c.UserContext(), queryGroup(c), c.Params("id"), lp,
		reply(c, fiber.StatusOK, func(p *models.Play) any { return detail(p).in(catalogOf(c)) }))
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

// deletePlay answers DELETE /api/v1/plays/{id}.
func (s *server) deletePlay(c *fiber.Ctx) error {
	_, err := s.store.RemovePlay(c.UserContext(), queryGroup(c), c.Params("id"), func(string) (models.IdempotentAnswer, error) {
		return models.IdempotentAnswer{Status: fiber.StatusNoContent, Body: []byte{}}, nil
	})
	if err != nil {
		return err
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// decodePlay reads a logged play and checks its own fields (times,
// notes); the store scores it and reports what the rules refuse with
// those, every problem at once, each at its field.
func (s *server) decodePlay(c *fiber.Ctx) (models.LoggedPlay, error) {
	var req playRequest
	if err := decodeBody(c, &req); err != nil {
		return models.LoggedPlay{}, err
	}
	var verr scoring.ValidationError
	lp := models.LoggedPlay{Game: req.Game, Variants: req.Variants, FinishedAt: s.cfg.Now()}
	s.playTimes(req, &lp, &verr)
	lp.PlayNotes = checkPlayNotes(req, &verr)
	lp.Problems = verr.Errors
	for _, p := range req.Players {
		lp.Players = append(lp.Players, models.LoggedPlayer{Name: models.CleanName(p.Name), Board: p.Board})
	}
	return lp, nil
}

// playTimes parses a logged play's times into lp: the finish defaults to
// now and may not be in the future; an unknown start stays zero.
func (s *server) playTimes(req playRequest, lp *models.LoggedPlay, verr *scoring.ValidationError) {
	now := s.cfg.Now()
	if req.FinishedAt != nil {
		at, err := time.Parse(time.RFC3339Nano, *req.FinishedAt)
		switch {
		case err != nil || at.Before(earliestPlay) || !models.KeptTime(at):
			verr.Add("/finishedAt", "use a date and time like 2026-03-14T20:30:00Z")
		case at.After(now.Add(clockSkew)):
			verr.Add("/finishedAt", "a play cannot finish in the future")
		default:
			lp.FinishedAt = at
		}
	}
	if req.StartedAt != nil {
		at, err := time.Parse(time.RFC3339Nano, *req.StartedAt)
		switch {
		case err != nil || at.Before(earliestPlay) || !models.KeptTime(at):
			verr.Add("/startedAt", "use a date and time like 2026-03-14T19:30:00Z")
		case at.After(lp.FinishedAt):
			verr.Add("/startedAt", "a play cannot start after it finished")
		default:
			lp.StartedAt = at
		}
	}
}

// checkPlayNotes cleans a logged play's notes, location and start player
// as the store keeps them; each problem is reported at its field.
func checkPlayNotes(req playRequest, verr *scoring.ValidationError) models.PlayNotes {
	var n models.PlayNotes
	if req.Notes != nil {
		notes, err := models.CleanNotes(*req.Notes)
		if err != nil {
			verr.Add("/notes", "the notes cannot be kept: %v", err)
		}
		n.Notes = notes
	}
	if req.Location != nil {
		location, err := models.CleanLocation(*req.Location)
		if err != nil {
			verr.Add("/location", "the location cannot be kept: %v", err)
		}
		n.Location = location
	}
	if sp := req.StartPlayer; sp != nil {
		if *sp < 0 || *sp >= len(req.Players) {
			verr.Add("/startPlayer", "the start player is one of the players, 0 to %d, not %d", max(len(req.Players), 1)-1, *sp)
		} else {
			n.StartSeat = sp
		}
	}
	return n
}

// playFilter reads the query of GET /api/v1/plays.
func playFilter(c *fiber.Ctx) (models.PlayFilter, error) {
	f := models.PlayFilter{Group: queryGroup(c), Game: c.Query("game"), PlayerID: c.Query("player"), Cursor: c.Query("cursor")}
	if q := c.Query("location"); q != "" {
		location, err := models.CleanLocation(q)
		if err != nil {
			return f, errorf(fiber.StatusBadRequest, "location: %s", err)
		}
		f.Location = location
	}
	if _, ok := scoring.Lookup(f.Game); f.Game != "" && !ok {
		return f, errorf(fiber.StatusBadRequest, "there is no game %q", f.Game)
	}
	if q := c.Query("limit"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 1 || n > models.MaxPlayLimit {
			return f, errorf(fiber.StatusBadRequest, "limit must be a number from 1 to %d", models.MaxPlayLimit)
		}
		f.Limit = n
	}
	return f, nil
}

func summaries(plays []models.PlaySummary) []playSummary {
	out := make([]playSummary, len(plays))
	for i, p := range plays {
		out[i] = playSummary{ID: p.ID, Game: p.Game, FinishedAt: p.FinishedAt, Results: make([]playResult, len(p.Results)),
			playNotes: notesOf(p.PlayNotes)}
		for j, r := range p.Results {
			out[i].Results[j] = playResult{Player: r.Player, PlayerID: r.PlayerID, Total: r.Total, Rank: r.Rank, Winner: r.Winner}
		}
		out[i].Links.BGStats = bgStatsLink(bgStatsPlayFor(p.ID, p.Game, p.StartedAt, p.FinishedAt,
			p.Location, p.Notes, p.StartSeat, out[i].Results))
	}
	return out
}

func detail(p *models.Play) playDetail {
	out := playDetail{ID: p.ID, Game: p.Game, FinishedAt: p.FinishedAt, Variants: p.Variants,
		TableCode: p.TableCode, Results: make([]playerDetail, len(p.Players)), Standings: p.Standings, messages: p.Messages,
		playNotes: notesOf(p.PlayNotes)}
	if d := p.Duration(); d > 0 && !p.StartedAt.Before(earliestPlay) {
		started, secs := p.StartedAt, int64(d/time.Second)
		out.StartedAt, out.DurationSeconds = &started, &secs
	}
	if out.Variants == nil {
		out.Variants = map[string]int{}
	}
	if len(out.Standings) == 0 {
		out.Standings = json.RawMessage("null")
	}
	for i, pp := range p.Players {
		board := pp.Board
		if len(board) == 0 {
			board = json.RawMessage("null")
		}
		out.Results[i] = playerDetail{
			playResult:    playResult{Player: pp.Player, PlayerID: pp.PlayerID, Total: pp.Total, Rank: pp.Rank, Winner: pp.Winner},
			NameAsEntered: pp.NameAsEntered, Breakdown: pp.Breakdown, Board: board}
	}
	results := make([]playResult, len(out.Results))
	for i, r := range out.Results {
		results[i] = r.playResult
	}
	out.Links.BGStats = bgStatsLink(bgStatsPlayFor(p.ID, p.Game, p.StartedAt, p.FinishedAt, p.Location, p.Notes, p.StartSeat, results))
	return out
}

// in is d with its labels in the language of cat (nil: English): the
// breakdowns and the standings as recorded, relabelled by their keys.
func (d playDetail) in(cat scoring.Catalog) playDetail {
	if cat == nil {
		return d
	}
	d.Results = slices.Clone(d.Results)
	for i := range d.Results {
		d.Results[i].Breakdown = cat.Lines(d.Game, d.Results[i].Breakdown)
	}
	var res scoring.Result
	if json.Unmarshal(d.Standings, &res) == nil && res.Game != "" {
		res.SetMessages(d.messages)
		if b, err := marshalJSON(cat.Result(&res)); err == nil {
			d.Standings = b
		}
	}
	return d
}

func notesOf(n models.PlayNotes) playNotes {
	return playNotes{Notes: n.Notes, Location: n.Location, StartPlayer: n.StartSeat}
}

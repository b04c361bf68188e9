package api

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/scoring"
)

// record is a player's figures in one game, as the leaderboard and the
// player page show them. AvgScore and BestScore are null for a game
// without points; Rating is null while Provisional.
type record struct {
	Plays       int      `json:"plays"`
	Wins        int      `json:"wins"`
	WinRate     float64  `json:"winRate"`
	AvgScore    *float64 `json:"avgScore"`
	BestScore   *int     `json:"bestScore"`
	Rating      *float64 `json:"rating"`
	Provisional bool     `json:"provisional"`
	RatedPlays  int      `json:"ratedPlays"`
}

type leaderboard struct {
	Game    string             `json:"game"`
	Entries []leaderboardEntry `json:"entries"`
	// Updating is true while a change to the game's past is being worked
	// into the figures in the background.
	Updating bool `json:"updating"`
}

type leaderboardEntry struct {
	Player   string `json:"player"`
	PlayerID string `json:"playerId"`
	record
}

// playerStats is a player's page.
type playerStats struct {
	Player playerRef    `json:"player"`
	Games  []playerGame `json:"games"`
	// Recent are the player's newest plays, newest first.
	Recent []playSummary `json:"recent"`
}

type playerGame struct {
	Game string `json:"game"`
	record
	LastPlayedAt  time.Time     `json:"lastPlayedAt"`
	RatingHistory []ratingPoint `json:"ratingHistory"`
	// RatingHistoryNext is the cursor of the ratings before
	// RatingHistory (GET …/ratings); null when there are none.
	RatingHistoryNext *string      `json:"ratingHistoryNext"`
	Scores            []scoreCount `json:"scores"`
	HeadToHead        []headToHead `json:"headToHead"`
}

// ratingPoint is the rating after one rated play; Rating is the
// conservative estimate mu − 3σ, as on the leaderboard.
type ratingPoint struct {
	PlayID     string    `json:"playId"`
	FinishedAt time.Time `json:"finishedAt"`
	Mu         float64   `json:"mu"`
	Sigma      float64   `json:"sigma"`
	Rating     float64   `json:"rating"`
}

// ratingList is a page of a player's ratings in one game, oldest first.
type ratingList struct {
	Game   string        `json:"game"`
	Points []ratingPoint `json:"points"`
	// Next is the cursor of the ratings before these; null when there
	// are none.
	Next *string `json:"next"`
}

type scoreCount struct {
	Score int `json:"score"`
	Count int `json:"count"`
}

type headToHead struct {
	OpponentID string `json:"opponentId"`
	Opponent   string `json:"opponent"`
	Plays      int    `json:"plays"`
	Wins       int    `json:"wins"`
	Losses     int    `json:"losses"`
	Ties       int    `json:"ties"`
}

type renameRequest struct {
	Name string `json:"name"`
}

type mergeRequest struct {
	Into string `json:"into"`
}

// getLeaderboard answers GET /api/v1/leaderboards/{game}.
func (s *server) getLeaderboard(c *fiber.Ctx) error {
	g, err := scoring.Find(c.Params("game"))
	if err != nil {
		return err
	}
	lb, err := s.store.GameLeaderboard(c.UserContext(), queryGroup(c), g.Spec().ID)
	if err != nil {
		return err
	}
	out := leaderboard{Game: g.Spec().ID, Entries: make([]leaderboardEntry, len(lb.Entries)), Updating: lb.Updating}
	for i, e := range lb.Entries {
		out.Entries[i] = leaderboardEntry{Player: e.Player, PlayerID: e.PlayerID, record: recordOf(e)}
	}
	return c.JSON(out)
}

// getPlayer answers GET /api/v1/players/{id}: the player's page.
func (s *server) getPlayer(c *fiber.Ctx) error {
	st, err := s.store.PlayerStats(c.UserContext(), queryGroup(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(statsView(st))
}

// listRatings answers GET /api/v1/players/{id}/ratings: a player's
// ratings in a game, a chart's worth at a time, paging back from the
// newest.
func (s *server) listRatings(c *fiber.Ctx) error {
	g, ok := scoring.Lookup(c.Query("game"))
	if !ok {
		return errorf(fiber.StatusBadRequest, "there is no game %q: name one with ?game=", c.Query("game"))
	}
	limit := 0
	if q := c.Query("limit"); q != "" {
		var err error
		if limit, err = strconv.Atoi(q); err != nil || limit < 1 || limit > models.RatingPage {
			return errorf(fiber.StatusBadRequest, "limit must be a number from 1 to %d", models.RatingPage)
		}
	}
	points, next, err := s.store.RatingHistory(c.UserContext(), queryGroup(c), c.Params("id"), g.Spec().ID, c.Query("cursor"), limit)
	if err != nil {
		return err
	}
	return c.JSON(ratingList{Game: g.Spec().ID, Points: ratingPoints(points), Next: nextCursor(next)})
}

// renamePlayer answers PATCH /api/v1/players/{id}. A name another player
// has is a 409 whose mergeInto names that player.
func (s *server) renamePlayer(c *fiber.Ctx) error {
	var req renameRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	req.Name = models.CleanName(req.Name)
	if msg := scoring.NameProblem(strings.TrimSpace(req.Name)); !msg.IsZero() {
		return &scoring.ValidationError{Errors: []scoring.FieldError{scoring.FieldErrorOf("/name", msg)}}
	}
	_, ans, err := s.store.Rename(c.UserContext(), queryGroup(c), c.Params("id"), req.Name,
		reply(c, fiber.StatusOK, func(p *models.Player) any { return playerRef{ID: p.ID, Name: p.Name} }))
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

// mergePlayers answers POST /api/v1/players/{id}/merge: the player becomes
// the player named by into, and the answer is into's page.
func (s *server) mergePlayers(c *fiber.Ctx) error {
	var req mergeRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Into) == "" {
		return &scoring.ValidationError{Errors: []scoring.FieldError{scoring.FieldErrorOf("/into", say("name the player to merge into"))}}
	}
	group := queryGroup(c)
	_, ans, err := s.store.Merge(c.UserContext(), group, c.Params("id"), req.Into,
		reply(c, fiber.StatusOK, func(st *models.PlayerStats) any { return statsView(st) }))
	if ce := (*models.ConflictError)(nil); errors.As(err, &ce) {
		// A refused merge is no occasion to offer a merge: drop mergeInto.
		return &models.ConflictError{Message: ce.Message}
	}
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

func recordOf(e models.LeaderboardEntry) record {
	return record{Plays: e.Plays, Wins: e.Wins, WinRate: e.WinRate, AvgScore: e.AvgScore, BestScore: e.BestScore,
		Rating: e.Rating, Provisional: e.Provisional, RatedPlays: e.RatedPlays}
}

func statsView(st *models.PlayerStats) playerStats {
	out := playerStats{Player: playerRef{ID: st.Player.ID, Name: st.Player.Name},
		Games: make([]playerGame, len(st.Games)), Recent: summaries(st.Recent)}
	for i, g := range st.Games {
		pg := playerGame{Game: g.Game, record: recordOf(g.LeaderboardEntry), LastPlayedAt: g.LastPlayedAt,
			RatingHistory: ratingPoints(g.RatingHistory), RatingHistoryNext: nextCursor(g.RatingNext),
			Scores: make([]scoreCount, len(g.Scores)), HeadToHead: make([]headToHead, len(g.HeadToHead))}
		for j, sc := range g.Scores {
			pg.Scores[j] = scoreCount{Score: sc.Score, Count: sc.Count}
		}
		for j, h := range g.HeadToHead {
			pg.HeadToHead[j] = headToHead{OpponentID: h.OpponentID, Opponent: h.Opponent, Plays: h.Plays, Wins: h.Wins, Losses: h.Losses, Ties: h.Ties}
		}
		out.Games[i] = pg
	}
	return out
}

func ratingPoints(points []models.RatingPoint) []ratingPoint {
	out := make([]ratingPoint, len(points))
	for i, r := range points {
		out[i] = ratingPoint{PlayID: r.PlayID, FinishedAt: r.FinishedAt, Mu: r.Mu, Sigma: r.Sigma, Rating: r.Ordinal}
	}
	return out
}

// nextCursor is a page's next cursor as JSON: null after the last page.
func nextCursor(next string) *string {
	if next == "" {
		return nil
	}
	return &next
}

package api

import (
	"encoding/json"
	"fmt"

	"github.com/gofiber/fiber/v2"

	"insectscore/scoring"
)

// scoreRequest is the body of POST /api/v1/games/{id}/score.
type scoreRequest struct {
	Players  []playerInput  `json:"players"`
	Variants map[string]int `json:"variants"`
}

type playerInput struct {
	Name  string          `json:"name"`
	Board json.RawMessage `json:"board"`
}

// health answers GET /healthz.
func (s *server) health(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// listGames answers GET /api/v1/games.
func (s *server) listGames(c *fiber.Ctx) error {
	games := scoring.Games()
	out := make([]scoring.Info, len(games))
	for i, g := range games {
		out[i] = g.Spec().Info
	}
	return c.JSON(out)
}

// getGame answers GET /api/v1/games/{id} with the enumerations forms need.
func (s *server) getGame(c *fiber.Ctx) error {
	g, err := findGame(c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(g.Spec())
}

// scoreGame answers POST /api/v1/games/{id}/score: stateless scoring.
func (s *server) scoreGame(c *fiber.Ctx) error {
	g, err := findGame(c.Params("id"))
	if err != nil {
		return err
	}
	var req scoreRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	res, err := scoring.Score(g, req.toScoring())
	if err != nil {
		return err
	}
	return c.JSON(res)
}

func (r scoreRequest) toScoring() scoring.Request {
	out := scoring.Request{Players: make([]scoring.PlayerInput, len(r.Players)), Variants: r.Variants}
	for i, p := range r.Players {
		out.Players[i] = scoring.PlayerInput{Name: p.Name, Board: p.Board}
	}
	return out
}

// findGame looks a game up by id, or fails with 404.
func findGame(id string) (scoring.Game, error) {
	g, ok := scoring.Lookup(id)
	if !ok {
		return nil, errorf(fiber.StatusNotFound, fmt.Sprintf("there is no game %q", id))
	}
	return g, nil
}

// decodeBody decodes a JSON request body strictly. Malformed JSON is a 400;
// well-formed JSON with wrong fields or types is a 422 naming the field.
func decodeBody(c *fiber.Ctx, v any) error {
	body := c.Body()
	if len(body) == 0 {
		return errorf(fiber.StatusBadRequest, "the request needs a JSON body")
	}
	if !json.Valid(body) {
		return errorf(fiber.StatusBadRequest, "the body is not valid JSON")
	}
	return scoring.DecodeStrict(body, "", v)
}

// notFound answers API paths that match no route.
func (s *server) notFound(c *fiber.Ctx) error {
	return errorf(fiber.StatusNotFound, "no such API endpoint: "+c.Method()+" "+c.Path())
}

package api

import (
	"github.com/gofiber/fiber/v2"

	"insectscore/scoring"
)

// publicAnswer is the Cache-Control of the answers that hold nothing of
// anyone's (the games and their specs, the OpenAPI document): they may be
// kept, and are checked again before use, as they change with a release.
// Every other API answer is no-store (see noStore).
const publicAnswer = "no-cache"

// health answers GET /healthz.
func (s *server) health(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// listGames answers GET /api/v1/games. The browser's engine
// (cmd/insectscore-engine) answers the three game routes with the same
// scoring functions, so the two agree byte for byte.
func (s *server) listGames(c *fiber.Ctx) error {
	c.Set(fiber.HeaderCacheControl, publicAnswer)
	return c.JSON(scoring.GameList())
}

// getGame answers GET /api/v1/games/{id} with the enumerations forms need.
func (s *server) getGame(c *fiber.Ctx) error {
	g, err := scoring.Find(c.Params("id"))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, publicAnswer)
	spec := g.Spec()
	if cat := catalogOf(c); cat != nil {
		spec = cat.Spec(spec)
	}
	return c.JSON(spec)
}

// scoreGame answers POST /api/v1/games/{id}/score: stateless scoring.
func (s *server) scoreGame(c *fiber.Ctx) error {
	res, err := scoring.ScoreJSON(c.Params("id"), c.Body())
	if err != nil {
		return err
	}
	if cat := catalogOf(c); cat != nil {
		res = cat.Result(res)
	}
	return c.JSON(res)
}

// decodeBody decodes a JSON request body strictly. Malformed JSON is a 400;
// well-formed JSON with wrong fields or types is a 422 naming the field.
func decodeBody(c *fiber.Ctx, v any) error {
	return scoring.DecodeRequest(c.Body(), v)
}

// notFound answers API paths that match no route.
func (s *server) notFound(c *fiber.Ctx) error {
	return errorf(fiber.StatusNotFound, "no such API endpoint: %s %s", c.Method(), c.Path())
}

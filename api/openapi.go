package api

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"
)

// openAPIDoc describes this API; the API tests validate every response
// they receive against it, so it cannot drift from the code.
//
//go:embed openapi.json
var openAPIDoc []byte

// openAPI answers GET /api/openapi.json.
func (s *server) openAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Set(fiber.HeaderCacheControl, publicAnswer)
	return c.Send(openAPIDoc)
}

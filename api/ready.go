package api

import (
	"context"
	"time"

	"github.com/gofiber/fiber/v2"
)

// readyTimeout bounds how long /readyz waits for the database; a probe
// that waits longer says "not ready" anyway.
const readyTimeout = 10 * time.Second

// ready answers GET /readyz: 200 once the database answers and can be
// written, else the 503 problem of the reason (locked, read-only, down).
// /healthz stays a liveness check that never touches the database, so a
// locked database takes a replica out of a load balancer without its
// being restarted.
func (s *server) ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), readyTimeout)
	defer cancel()
	if err := s.store.Ready(ctx); err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"status": "ready"})
}

package api

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// readyTimeout bounds how long /readyz waits for the database; a probe
// that waits longer says "not ready" anyway.
const readyTimeout = 10 * time.Second

// ready answers GET /readyz: 200 once the database answers and can be
// written, else the 503 problem of the reason (locked, read-only, down).
// /healthz stays a liveness check that never touches the database, so a
// locked database takes a replica out of a load balancer without its
// being restarted. A replica whose live updates do not hear the other
// replicas' changes (PostgreSQL's LISTEN lost, until it listens again) is
// not ready either: its streams would miss them.
func (s *server) ready(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), readyTimeout)
	defer cancel()
	if err := s.store.Ready(ctx); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			// No answer in time (every connection busy, say): not
			// ready, which is no fault of the server's.
			return fmt.Errorf("%w: %w", models.ErrUnavailable, err)
		}
		return err
	}
	if l, ok := s.broker.(listener); ok && !l.Listening() {
		return errNotListening
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(fiber.Map{"status": "ready"})
}

// listener is a broker that hears changes made on other replicas, and can
// lose them for a while (live.PGBroker).
type listener interface {
	Listening() bool
}

// errNotListening is a replica's live updates not hearing the others'.
var errNotListening = fmt.Errorf("%w: live updates from other replicas are not heard", models.ErrUnavailable)

package api

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
)

// addMove answers POST /api/v1/tables/{code}/moves: the player whose turn
// it is (or the host, for a phone passed around) records one move. The
// store checks the move against the moves made before it, under the
// table's lock.
func (s *server) addMove(c *fiber.Ctx) error {
	token, err := bearerToken(c)
	if err != nil {
		return err
	}
	ifVersion, err := ifMatch(c)
	if err != nil {
		// Who asks is told before what is wrong with the request.
		if aerr := s.permitted(c, models.AnySeat); aerr != nil {
			return aerr
		}
		return err
	}
	// The move is read by the tracker of the table's game, which the
	// store finds.
	return s.tableMove(c, fiber.StatusCreated, func(code string, r models.Reply[models.TableState]) (models.TableState, models.IdempotentAnswer, error) {
		return s.store.AddMove(c.UserContext(), code, token, c.Body(), ifVersion, r)
	})
}

// undoMove answers DELETE /api/v1/tables/{code}/moves/last: the host or the
// player who made the last move takes it back.
func (s *server) undoMove(c *fiber.Ctx) error {
	token, err := bearerToken(c)
	if err != nil {
		return err
	}
	ifVersion, err := ifMatch(c)
	if err != nil {
		return err
	}
	return s.tableMove(c, fiber.StatusOK, func(code string, r models.Reply[models.TableState]) (models.TableState, models.IdempotentAnswer, error) {
		return s.store.UndoMove(c.UserContext(), code, token, ifVersion, r)
	})
}

// tableMove runs a move or an undo, answers with the table JSON in the
// request's language and sends the table to its streams.
func (s *server) tableMove(c *fiber.Ctx, status int, change func(string, models.Reply[models.TableState]) (models.TableState, models.IdempotentAnswer, error)) error {
	code := strings.ToUpper(c.Params("code"))
	var sent tableView
	_, ans, err := change(code, reply(c, status, func(st models.TableState) any {
		sent = view(st, s.cfg.Now())
		return sent.in(catalogOf(c))
	}))
	if err != nil {
		return err
	}
	s.send(code, sent)
	return sendAnswer(c, ans)
}

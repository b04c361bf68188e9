package api

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/scoring"
)

// trackedGame is the game whose tables are played move by move.
const trackedGame = "insektenhotel"

// addMove answers POST /api/v1/tables/{code}/moves: the player whose turn
// it is (or the host, for a phone passed around) records one move.
func (s *server) addMove(c *fiber.Ctx) error {
	role, t, moves, err := s.trackedTable(c)
	if err != nil {
		return err
	}
	var m scoring.HotelMove
	if err := decodeBody(c, &m); err != nil {
		return err
	}
	before, err := replay(t, moves)
	if err != nil {
		return err
	}
	if err := permit(role, before.Turn); err != nil {
		return err
	}
	if _, err := replay(t, append(moves, m)); err != nil {
		return relativeTo(err, len(moves))
	}
	body, _ := json.Marshal(m)
	ifVersion, err := ifMatch(c)
	if err != nil {
		return err
	}
	if _, err := s.store.AppendMove(c.UserContext(), t.Code, body, ifVersion); err != nil {
		return err
	}
	v, err := s.publish(c, t.Code)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(v.in(catalogOf(c)))
}

// undoMove answers DELETE /api/v1/tables/{code}/moves/last: the host or the
// player who made the last move takes it back.
func (s *server) undoMove(c *fiber.Ctx) error {
	role, t, moves, err := s.trackedTable(c)
	if err != nil {
		return err
	}
	if len(moves) == 0 {
		return errorf(fiber.StatusNotFound, "there is no move to undo")
	}
	before, err := replay(t, moves[:len(moves)-1])
	if err != nil {
		return err
	}
	if err := permit(role, before.Turn); err != nil {
		return err
	}
	ifVersion, err := ifMatch(c)
	if err != nil {
		return err
	}
	if _, err := s.store.UndoLastMove(c.UserContext(), t.Code, ifVersion); err != nil {
		return err
	}
	v, err := s.publish(c, t.Code)
	if err != nil {
		return err
	}
	return c.JSON(v.in(catalogOf(c)))
}

// trackedTable checks who is asking (a token first, before anything about
// the table is told), then loads the open Insektenhotel table and its moves.
func (s *server) trackedTable(c *fiber.Ctx) (models.Role, *models.Table, []scoring.HotelMove, error) {
	_, role, err := s.identify(c)
	if err != nil {
		return role, nil, nil, err
	}
	t, err := s.findTable(c)
	if err != nil {
		return role, nil, nil, err
	}
	if t.Game != trackedGame {
		return role, nil, nil, errorf(fiber.StatusNotFound, "only Insektenhotel tables take moves")
	}
	if t.Status == models.StatusFinished {
		return role, nil, nil, models.ErrFinished
	}
	moves, err := s.loadMoves(c.UserContext(), t)
	return role, t, moves, err
}

// loadMoves returns a tracked table's moves, or none for other games.
func (s *server) loadMoves(ctx context.Context, t *models.Table) ([]scoring.HotelMove, error) {
	if t.Game != trackedGame {
		return nil, nil
	}
	raw, err := s.store.Moves(ctx, t.Code)
	if err != nil {
		return nil, err
	}
	moves := make([]scoring.HotelMove, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &moves[i]); err != nil {
			return nil, fmt.Errorf("table %s move %d: %w", t.Code, i, err)
		}
	}
	return moves, nil
}

// replay plays a table's moves from the hotels its seats set up.
func replay(t *models.Table, moves []scoring.HotelMove) (*scoring.HotelState, error) {
	setup := scoring.HotelSetup{Players: make([]scoring.HotelSeat, len(t.Seats)), First: t.First}
	for i, st := range t.Seats {
		var b struct {
			Hotel  string `json:"hotel"`
			Floors []struct {
				Species string `json:"species"`
			} `json:"floors"`
		}
		_ = json.Unmarshal(st.Board, &b) // a board that does not decode sets up nothing
		seat := scoring.HotelSeat{Name: st.Name, Hotel: b.Hotel}
		for f := range min(len(b.Floors), 3) {
			seat.Floors[f] = b.Floors[f].Species
		}
		setup.Players[i] = seat
	}
	st, err := scoring.ReplayHotel(setup, moves)
	if verr, ok := err.(*scoring.ValidationError); ok && !strings.HasPrefix(verr.Errors[0].Pointer, "/moves/") {
		return nil, &httpError{status: fiber.StatusUnprocessableEntity, errors: verr.Errors,
			detail: "every seat needs a name, a hotel colour and its three floors before the first move"}
	}
	return st, err
}

// relativeTo turns the tracker's pointers into the move list ("/moves/7/card")
// into pointers into the request body of move n ("/card").
func relativeTo(err error, n int) error {
	verr, ok := err.(*scoring.ValidationError)
	if !ok {
		return err
	}
	prefix := fmt.Sprintf("/moves/%d", n)
	out := &scoring.ValidationError{}
	for _, fe := range verr.Errors {
		fe.Pointer = strings.TrimPrefix(fe.Pointer, prefix)
		out.Errors = append(out.Errors, fe)
	}
	return out
}

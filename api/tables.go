package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/scoring"
)

// createTableRequest is the body of POST /api/v1/tables.
type createTableRequest struct {
	Game     string         `json:"game"`
	Players  []string       `json:"players"`
	Variants map[string]int `json:"variants"`
	Group    string         `json:"group"`
	// First is the seat that starts a table played move by move; seat 0
	// when left out.
	First int `json:"first"`
}

// createdTable is the answer to POST /api/v1/tables: the only time the host
// token is shown.
type createdTable struct {
	Code      string     `json:"code"`
	HostToken string     `json:"hostToken"`
	JoinURL   string     `json:"joinUrl"`
	Seats     []seatName `json:"seats"`
	Version   int        `json:"version"`
}

type seatName struct {
	Seat int    `json:"seat"`
	Name string `json:"name"`
}

// tableView is the table JSON of GET and of every live event.
type tableView struct {
	Code     string         `json:"code"`
	Game     string         `json:"game"`
	Status   string         `json:"status"`
	Variants map[string]int `json:"variants"`
	// First is the seat that starts when the table is played move by move.
	First     int             `json:"first"`
	Seats     []seatView      `json:"seats"`
	Standings *scoring.Result `json:"standings"`
	// Errors say why standings are missing: the boards break a rule.
	Errors  []scoring.FieldError `json:"errors"`
	Version int                  `json:"version"`
	// Hotel is the state of the tracker of a table played move by move
	// (scoring.Tracked), once the first move is made.
	Hotel any `json:"hotel,omitempty"`
	// tracked is Hotel as the tracker made it, for in to translate.
	tracked scoring.Tracked
	// PlayID names the play a finished table recorded.
	PlayID string `json:"playId,omitempty"`
}

type seatView struct {
	Seat    int             `json:"seat"`
	Name    string          `json:"name"`
	Claimed bool            `json:"claimed"`
	Board   json.RawMessage `json:"board"`
	// Sync says whether the seat's phone holds edits it has not sent.
	Sync syncView `json:"sync"`
}

type joinRequest struct {
	Name string `json:"name"`
}

// createTable answers POST /api/v1/tables.
func (s *server) createTable(c *fiber.Ctx) error {
	var req createTableRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	for i, name := range req.Players {
		req.Players[i] = models.CleanName(name)
	}
	_, ans, err := s.store.StartTable(c.UserContext(), models.NewTable{Game: req.Game, Names: req.Players, Variants: req.Variants, Group: req.Group, First: req.First},
		reply(c, fiber.StatusCreated, func(st models.Seated) any {
			c.Location("/api/v1/tables/" + st.State.Table.Code)
			return s.created(c, st)
		}))
	if errors.Is(err, models.ErrNotFound) {
		return &scoring.ValidationError{Errors: []scoring.FieldError{scoring.FieldErrorOf("/group", say("there is no such group; open its invite link again"))}}
	}
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

// created is the answer to a new table.
func (s *server) created(c *fiber.Ctx, st models.Seated) createdTable {
	t := st.State.Table
	out := createdTable{Code: t.Code, HostToken: st.Token, JoinURL: s.joinURL(c, t.Code), Seats: []seatName{}, Version: t.Version}
	for _, seat := range t.Seats {
		out.Seats = append(out.Seats, seatName{Seat: seat.Seat, Name: seat.Name})
	}
	return out
}

// getTable answers GET /api/v1/tables/{code}.
func (s *server) getTable(c *fiber.Ctx) error {
	st, err := s.store.ReadTable(c.UserContext(), strings.ToUpper(c.Params("code")))
	if err != nil {
		return err
	}
	v := view(st, s.cfg.Now())
	c.Set(fiber.HeaderETag, fmt.Sprintf(`"%d"`, v.Version))
	return c.JSON(v.in(catalogOf(c)))
}

// joinTable answers POST /api/v1/tables/{code}/seats: join as a new seat.
func (s *server) joinTable(c *fiber.Ctx) error {
	var req joinRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	code := strings.ToUpper(c.Params("code"))
	st, ans, err := s.store.JoinTable(c.UserContext(), code, models.CleanName(req.Name),
		reply(c, fiber.StatusCreated, func(st models.Seated) any { return fiber.Map{"seat": st.Seat, "seatToken": st.Token} }))
	if err != nil {
		return err
	}
	s.send(code, view(st.State, s.cfg.Now()))
	return sendAnswer(c, ans)
}

// claimSeat answers POST /api/v1/tables/{code}/seats/{seat}/claim.
func (s *server) claimSeat(c *fiber.Ctx) error {
	seat, err := seatParam(c)
	if err != nil {
		return err
	}
	code := strings.ToUpper(c.Params("code"))
	st, ans, err := s.store.ClaimSeatAt(c.UserContext(), code, seat,
		reply(c, fiber.StatusOK, func(st models.Seated) any { return fiber.Map{"seatToken": st.Token} }))
	if err != nil {
		return err
	}
	s.send(code, view(st.State, s.cfg.Now()))
	return sendAnswer(c, ans)
}

// putBoard answers PUT /api/v1/tables/{code}/seats/{seat}/board. The board
// is saved even when it breaks a rule, so nothing typed is lost; the answer's
// errors say what to fix, and finishing refuses until it is fixed.
func (s *server) putBoard(c *fiber.Ctx) error {
	seat, err := seatParam(c)
	if err != nil {
		return err
	}
	token, err := bearerToken(c)
	if err != nil {
		return err
	}
	code := strings.ToUpper(c.Params("code"))
	ifVersion, err := ifMatch(c)
	board := json.RawMessage(c.Body())
	if err == nil && (!json.Valid(board) || !isObjectOrNull(board)) {
		err = errorf(fiber.StatusBadRequest, "the board must be a JSON object")
	}
	if err == nil {
		err = scoring.CheckText(board)
	}
	if err != nil {
		// A token that may not write the seat is told before what is
		// wrong with the request.
		if aerr := s.permitted(c, seat); aerr != nil {
			return aerr
		}
		return err
	}
	now := s.cfg.Now()
	var sent tableView
	_, ans, err := s.store.PutBoard(c.UserContext(), models.BoardPut{Code: code, Token: token, Seat: seat, Board: board, IfVersion: ifVersion},
		reply(c, fiber.StatusOK, func(st models.TableState) any {
			sent = view(st, now)
			c.Set(fiber.HeaderETag, fmt.Sprintf(`"%d"`, sent.Version))
			v := sent.in(catalogOf(c))
			return fiber.Map{"version": v.Version, "standings": v.Standings, "errors": v.Errors}
		}))
	if errors.Is(err, models.ErrTracked) {
		return errorf(fiber.StatusConflict, "this table is played move by move: undo every move to change a board by hand")
	}
	if err != nil {
		return err
	}
	s.send(code, sent)
	return sendAnswer(c, ans)
}

// finishTable answers POST /api/v1/tables/{code}/finish (host only). It
// refuses while phones hold unsent edits, unless the body says
// {"force": true}.
func (s *server) finishTable(c *fiber.Ctx) error {
	token, err := bearerToken(c)
	if err != nil {
		return err
	}
	force, err := finishForced(c)
	if err != nil {
		if aerr := s.permitted(c, -1); aerr != nil {
			return aerr
		}
		return err
	}
	code := strings.ToUpper(c.Params("code"))
	f, ans, err := s.store.Finish(c.UserContext(), code, token, force,
		reply(c, fiber.StatusOK, func(f models.Finished) any {
			return fiber.Map{"playId": f.PlayID, "standings": catalogOf(c).Result(f.State.Standings)}
		}))
	if err != nil {
		return err
	}
	s.send(code, view(f.State, s.cfg.Now()))
	return sendAnswer(c, ans)
}

// findTable loads the table named by the :code parameter.
func (s *server) findTable(c *fiber.Ctx) (*models.Table, error) {
	return s.store.FindTableByCode(c.UserContext(), strings.ToUpper(c.Params("code")))
}

// view builds the table JSON of a table's state at now.
func view(st models.TableState, now time.Time) tableView {
	t := st.Table
	v := tableView{Code: t.Code, Game: t.Game, Status: string(t.Status), Variants: t.Variants, First: t.First,
		Seats: make([]seatView, len(t.Seats)), Standings: st.Standings, Errors: st.Errors,
		Version: t.Version, PlayID: t.PlayID}
	if st.Tracked != nil {
		v.Hotel, v.tracked = st.Tracked, st.Tracked
	}
	if v.Variants == nil {
		v.Variants = map[string]int{}
	}
	if v.Errors == nil {
		v.Errors = []scoring.FieldError{}
	}
	for i, seat := range t.Seats {
		v.Seats[i] = seatView{Seat: seat.Seat, Name: seat.Name, Claimed: seat.Claimed, Board: st.Boards[i], Sync: syncOf(seat.Sync, now)}
	}
	return v
}

// in is v with its standings, errors and hotel log in the language of cat
// (nil: English).
func (v tableView) in(cat scoring.Catalog) tableView {
	if cat == nil {
		return v
	}
	v.Standings = cat.Result(v.Standings)
	v.Errors = cat.FieldErrors(v.Errors)
	if v.tracked != nil {
		v.Hotel = v.tracked.In(cat)
	}
	return v
}

// send sends v to the table's live streams. An error is logged here;
// streams catch up with the next change or reconnect.
func (s *server) send(code string, v tableView) {
	ev, err := s.event(code, v)
	if err != nil {
		s.log.Warn("live update not sent", "code", code, "err", err)
		return
	}
	s.broker.Publish(code, ev)
}

// permitted refuses a request's bearer token as the change would for
// seat (-1: the host only; models.AnySeat: anyone's token at the table),
// without changing anything: who asks is told before what is wrong with
// the request.
func (s *server) permitted(c *fiber.Ctx, seat int) error {
	token, err := bearerToken(c)
	if err != nil {
		return err
	}
	return s.store.Permit(c.UserContext(), strings.ToUpper(c.Params("code")), token, seat)
}

// bearerToken reads the request's bearer token; none is a 401.
func bearerToken(c *fiber.Ctx) (string, error) {
	token, ok := strings.CutPrefix(c.Get(fiber.HeaderAuthorization), "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="insectscore"`)
		return "", errorf(fiber.StatusUnauthorized, "this needs the host's or the seat's token (Authorization: Bearer …)")
	}
	return strings.TrimSpace(token), nil
}

// mostSeats is the most seats a table of any game has.
var mostSeats = func() int {
	most := 0
	for _, g := range scoring.Games() {
		most = max(most, g.Spec().MaxPlayers)
	}
	return most
}()

// seatParam reads the :seat parameter: a seat some table of some game can
// have, or a 404 before any query (a number past a database's integer
// would fail there).
func seatParam(c *fiber.Ctx) (int, error) {
	seat, err := strconv.Atoi(c.Params("seat"))
	if err != nil || seat < 0 || seat >= mostSeats {
		return 0, errorf(fiber.StatusNotFound, "there is no seat %s", c.Params("seat"))
	}
	return seat, nil
}

// ifMatch reads an optional If-Match: "<version>" header.
func ifMatch(c *fiber.Ctx) (*int, error) {
	h := strings.TrimSpace(c.Get(fiber.HeaderIfMatch))
	if h == "" || h == "*" {
		return nil, nil
	}
	v, err := strconv.Atoi(strings.Trim(strings.TrimPrefix(h, "W/"), `"`))
	if err != nil {
		return nil, errorf(fiber.StatusBadRequest, `If-Match must be a table version in quotes, like "3"`)
	}
	return &v, nil
}

func isObjectOrNull(b []byte) bool {
	s := bytes.TrimSpace(b)
	return bytes.HasPrefix(s, []byte("{")) || string(s) == "null"
}

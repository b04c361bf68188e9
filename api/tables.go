package api

import (
	"context"
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
	// First is the seat that starts a table played move by move ("the
	// last to stay in a hotel"); seat 0 when left out.
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
	// Hotel is the live turn tracker of an Insektenhotel table, once the
	// first move is made.
	Hotel *scoring.HotelState `json:"hotel,omitempty"`
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
	if err := validateNewTable(req); err != nil {
		return err
	}
	t, host, err := s.store.CreateTable(c.UserContext(), models.NewTable{Game: req.Game, Names: req.Players, Variants: req.Variants, Group: req.Group, First: req.First})
	if errors.Is(err, models.ErrNotFound) {
		return &scoring.ValidationError{Errors: []scoring.FieldError{{Pointer: "/group", Detail: "there is no such group; open its invite link again"}}}
	}
	if err != nil {
		return err
	}
	out := createdTable{Code: t.Code, HostToken: host, JoinURL: s.joinURL(c, t.Code), Seats: []seatName{}, Version: t.Version}
	for _, st := range t.Seats {
		out.Seats = append(out.Seats, seatName{Seat: st.Seat, Name: st.Name})
	}
	c.Location("/api/v1/tables/" + t.Code)
	return c.Status(fiber.StatusCreated).JSON(out)
}

// validateNewTable checks a new table's game, names and variants. A table
// may start with fewer seats than the game's minimum: others join later.
func validateNewTable(req createTableRequest) error {
	var verr scoring.ValidationError
	g, ok := scoring.Lookup(req.Game)
	if !ok {
		verr.Add("/game", "choose a game: insecta, insectarium or insektenhotel")
		return &verr
	}
	spec := g.Spec()
	if len(req.Players) > spec.MaxPlayers {
		verr.Add("/players", "%s is for at most %d players", spec.Name, spec.MaxPlayers)
	}
	seen := map[string]bool{}
	for i, name := range req.Players {
		if msg := checkName(name, seen); msg != "" {
			verr.Add(fmt.Sprintf("/players/%d", i), "%s", msg)
		}
	}
	if err := scoring.CheckVariants(spec, req.Variants); err != nil {
		verr.Errors = append(verr.Errors, err.(*scoring.ValidationError).Errors...)
	}
	switch {
	case req.First == 0:
	case req.Game != trackedGame:
		verr.Add("/first", "only an Insektenhotel table is played move by move, so only it names who starts; leave first out")
	case req.First < 0 || req.First >= len(req.Players):
		verr.Add("/first", "the first player is one of the players named, seat 0 to %d, not %d", max(len(req.Players), 1)-1, req.First)
	}
	return verr.Err()
}

// checkName returns what is wrong with a player name (in NFC, as
// models.CleanName gives it), or "".
func checkName(name string, seen map[string]bool) string {
	name = strings.TrimSpace(name)
	if msg := scoring.NameProblem(name); msg != "" {
		return msg
	}
	if seen[scoring.NameKey(name)] {
		return fmt.Sprintf("%q is already at this table", name)
	}
	seen[scoring.NameKey(name)] = true
	return ""
}

// getTable answers GET /api/v1/tables/{code}.
func (s *server) getTable(c *fiber.Ctx) error {
	_, v, err := s.loadView(c.UserContext(), strings.ToUpper(c.Params("code")))
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderETag, fmt.Sprintf(`"%d"`, v.Version))
	return c.JSON(v.in(catalogOf(c)))
}

// joinTable answers POST /api/v1/tables/{code}/seats: join as a new seat.
func (s *server) joinTable(c *fiber.Ctx) error {
	var req joinRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	req.Name = models.CleanName(req.Name)
	t, err := s.findTable(c)
	if err != nil {
		return err
	}
	if err := checkJoin(t, req.Name); err != nil {
		return err
	}
	seat, token, err := s.store.AddSeat(c.UserContext(), t.Code, strings.TrimSpace(req.Name))
	if err != nil {
		return err
	}
	_, _ = s.publish(c, t.Code)
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"seat": seat, "seatToken": token})
}

// checkJoin refuses a name already seated and a table already full.
func checkJoin(t *models.Table, name string) error {
	seen := map[string]bool{}
	for _, st := range t.Seats {
		seen[scoring.NameKey(st.Name)] = true
	}
	if msg := checkName(name, seen); msg != "" {
		return &scoring.ValidationError{Errors: []scoring.FieldError{{Pointer: "/name", Detail: msg}}}
	}
	g, _ := scoring.Lookup(t.Game)
	if most := g.Spec().MaxPlayers; len(t.Seats) >= most {
		return errorf(fiber.StatusConflict, "this table is full: %s is for at most %d players", g.Spec().Name, most)
	}
	return nil
}

// claimSeat answers POST /api/v1/tables/{code}/seats/{seat}/claim.
func (s *server) claimSeat(c *fiber.Ctx) error {
	seat, err := seatParam(c)
	if err != nil {
		return err
	}
	token, err := s.store.ClaimSeat(c.UserContext(), strings.ToUpper(c.Params("code")), seat)
	if err != nil {
		return err
	}
	_, _ = s.publish(c, strings.ToUpper(c.Params("code")))
	return c.JSON(fiber.Map{"seatToken": token})
}

// putBoard answers PUT /api/v1/tables/{code}/seats/{seat}/board. The board
// is saved even when it breaks a rule, so nothing typed is lost; the answer's
// errors say what to fix, and finishing refuses until it is fixed.
//
// It asks the store once: PutBoard authorises, checks the version, saves
// and returns the table after the write in one transaction. The answer and
// the live event are scored from that table, outside the transaction.
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
		if _, aerr := s.authorize(c, seat); aerr != nil {
			return aerr
		}
		return err
	}
	t, _, err := s.store.PutBoard(c.UserContext(), models.BoardPut{Code: code, Token: token, Seat: seat, Board: board,
		IfVersion: ifVersion, Allow: func(role models.Role) error {
			if err := rejectRole(c, role); err != nil {
				return err
			}
			return permit(role, seat)
		}})
	if errors.Is(err, models.ErrTracked) {
		return errorf(fiber.StatusConflict, "this table is played move by move: undo every move to change a hotel by hand")
	}
	if err != nil {
		return err
	}
	// No moves: PutBoard refuses a table played move by move.
	v := view(t, nil, s.cfg.Now())
	_ = s.send(code, v)
	c.Set(fiber.HeaderETag, fmt.Sprintf(`"%d"`, v.Version))
	v = v.in(catalogOf(c))
	return c.JSON(fiber.Map{"version": v.Version, "standings": v.Standings, "errors": v.Errors})
}

// finishTable answers POST /api/v1/tables/{code}/finish (host only). It
// refuses while phones hold unsent edits, unless the body says
// {"force": true}.
func (s *server) finishTable(c *fiber.Ctx) error {
	code, err := s.authorize(c, -1)
	if err != nil {
		return err
	}
	force, err := finishForced(c)
	if err != nil {
		return err
	}
	t, v, err := s.loadView(c.UserContext(), code)
	if err != nil {
		return err
	}
	if err := finishable(t, v, force); err != nil {
		return err
	}
	standings, err := json.Marshal(v.Standings)
	if err != nil {
		return err
	}
	// The seats' final boards as shown: for a table played move by move,
	// the hotels the moves built rather than the hotels as set up.
	boards := make([]json.RawMessage, len(v.Seats))
	for i, st := range v.Seats {
		boards[i] = st.Board
	}
	playID, err := s.store.FinishTableWithBoards(c.UserContext(), code, t.Version, standings, boards)
	if err != nil {
		return err
	}
	_, _ = s.publish(c, code)
	return c.JSON(fiber.Map{"playId": playID, "standings": catalogOf(c).Result(v.Standings)})
}

// finishable says why a table cannot be finished yet, or nil. Unsent
// edits are told before broken boards: the missing edit may be the fix.
func finishable(t *models.Table, v tableView, force bool) error {
	if t.Status == models.StatusFinished {
		return errorf(fiber.StatusConflict, "this table is already finished")
	}
	if !force {
		if err := unsentEdits(v); err != nil {
			return err
		}
	}
	if v.Standings == nil {
		return &scoring.ValidationError{Errors: v.Errors}
	}
	g, _ := scoring.Lookup(t.Game)
	spec := g.Spec()
	if len(t.Seats) < spec.MinPlayers {
		return errorf(fiber.StatusUnprocessableEntity, "%s needs at least %d players", spec.Name, spec.MinPlayers)
	}
	if !v.Standings.Complete {
		return errorf(fiber.StatusUnprocessableEntity, "the game is not over yet: %s", scoring.Word("api.word.", endCondition(t.Game)))
	}
	return nil
}

func endCondition(game string) string {
	switch game {
	case "insectarium":
		return "every display needs all 9 cards"
	case "insecta":
		return "someone must have 12 tiles in their collection"
	case "insektenhotel":
		return "one hotel must be full"
	}
	return "the boards do not meet the end condition"
}

// findTable loads the table named by the :code parameter.
func (s *server) findTable(c *fiber.Ctx) (*models.Table, error) {
	return s.store.FindTableByCode(c.UserContext(), strings.ToUpper(c.Params("code")))
}

// loadView loads a table with its moves and builds its JSON.
func (s *server) loadView(ctx context.Context, code string) (*models.Table, tableView, error) {
	t, err := s.store.FindTableByCode(ctx, code)
	if err != nil {
		return nil, tableView{}, err
	}
	moves, err := s.loadMoves(ctx, t)
	if err != nil {
		return nil, tableView{}, err
	}
	return t, view(t, moves, s.cfg.Now()), nil
}

// view builds the table JSON at now, scoring the boards as they stand; a
// tracked Insektenhotel table is scored from the hotels its moves built.
func view(t *models.Table, moves []scoring.HotelMove, now time.Time) tableView {
	v := tableView{Code: t.Code, Game: t.Game, Status: string(t.Status), Variants: t.Variants, First: t.First,
		Seats: make([]seatView, len(t.Seats)), Errors: []scoring.FieldError{}, Version: t.Version}
	if v.Variants == nil {
		v.Variants = map[string]int{}
	}
	req := scoring.Request{Players: make([]scoring.PlayerInput, len(t.Seats)), Variants: t.Variants}
	for i, st := range t.Seats {
		board := st.Board
		if len(board) == 0 {
			board = json.RawMessage("null")
		}
		v.Seats[i] = seatView{Seat: st.Seat, Name: st.Name, Claimed: st.Claimed, Board: board, Sync: syncOf(st.Sync, now)}
		req.Players[i] = scoring.PlayerInput{Name: st.Name, Board: board}
	}
	if len(moves) > 0 {
		if st, err := replay(t, moves); err == nil {
			v.Hotel = st
			for i, b := range st.Boards() {
				v.Seats[i].Board = b
				req.Players[i].Board = b
			}
		}
	}
	if len(t.Seats) == 0 {
		return v
	}
	if t.Status == models.StatusFinished && len(t.Standings) > 0 {
		// History keeps the result as recorded; a later rules fix must
		// not rewrite a finished game.
		var res scoring.Result
		if err := json.Unmarshal(t.Standings, &res); err == nil {
			v.Standings, v.PlayID = &res, t.PlayID
			return v
		}
	}
	g, _ := scoring.Lookup(t.Game)
	res, err := scoring.Score(g, req)
	var verr *scoring.ValidationError
	switch {
	case errors.As(err, &verr):
		v.Errors = verr.Errors
	case err == nil:
		v.Standings = res
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
	v.Hotel = cat.Hotel(v.Hotel)
	return v
}

// publish sends the table's current state to its live streams and returns
// the view it sent.
//
// The change itself is saved by then, so callers that answer without the
// view may ignore the error: it is logged here, and streams catch up with
// the next change or reconnect.
func (s *server) publish(c *fiber.Ctx, code string) (tableView, error) {
	_, v, err := s.loadView(c.UserContext(), code)
	if err != nil {
		s.log.Warn("live update not sent", "code", code, "err", err)
		return tableView{}, err
	}
	return v, s.send(code, v)
}

// send sends v to the table's live streams. An error is logged here;
// streams catch up with the next change or reconnect.
func (s *server) send(code string, v tableView) error {
	ev, err := s.event(code, v)
	if err != nil {
		s.log.Warn("live update not sent", "code", code, "err", err)
		return err
	}
	s.broker.Publish(code, ev)
	return nil
}

// authorize checks the bearer token against the table of the :code
// parameter: the host may act on any seat, a seat token only on its own
// seat (seat -1 means host only). It returns the table code.
func (s *server) authorize(c *fiber.Ctx, seat int) (string, error) {
	code, role, err := s.identify(c)
	if err != nil {
		return "", err
	}
	return code, permit(role, seat)
}

// identify reads the bearer token and finds whose it is at the table of
// the :code parameter; no token, or one of no seat there, is a 401.
func (s *server) identify(c *fiber.Ctx) (string, models.Role, error) {
	code := strings.ToUpper(c.Params("code"))
	token, err := bearerToken(c)
	if err != nil {
		return "", models.Role{}, err
	}
	role, err := s.store.Authorize(c.UserContext(), code, token)
	if err != nil {
		return "", role, err
	}
	if err := rejectRole(c, role); err != nil {
		return "", role, err
	}
	return code, role, nil
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

// rejectRole refuses a token that belongs to no one at the table (401).
func rejectRole(c *fiber.Ctx, role models.Role) error {
	if !role.Valid() {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="insectscore", error="invalid_token"`)
		return errorf(fiber.StatusUnauthorized, "this token does not belong to this table")
	}
	return nil
}

// permit says whether role may act for seat (-1: only the host may act).
func permit(role models.Role, seat int) error {
	switch {
	case role.Host:
		return nil
	case seat < 0:
		return errorf(fiber.StatusForbidden, "only the host can do this")
	case role.Seat != seat:
		return errorf(fiber.StatusForbidden, "a seat's token acts only for its own seat")
	}
	return nil
}

func seatParam(c *fiber.Ctx) (int, error) {
	seat, err := strconv.Atoi(c.Params("seat"))
	if err != nil || seat < 0 {
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
	s := strings.TrimSpace(string(b))
	return strings.HasPrefix(s, "{") || s == "null"
}

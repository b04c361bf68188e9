package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// TableState is a table with what the rules make of it: the answer of
// every table change and the body of its live event.
type TableState struct {
	Table *Table
	// Moves are a tracked table's moves, oldest first, as its game's
	// Tracker read them.
	Moves []json.RawMessage
	// Tracked is the tracker's state once a first move is made.
	Tracked scoring.Tracked
	// Boards are the seats' boards as scored (JSON null for none): a
	// tracked table's boards as its moves built them.
	Boards []json.RawMessage
	// Standings are the boards scored, or the result recorded once the
	// table is finished; nil when a board breaks a rule, and Errors say
	// which.
	Standings *scoring.Result
	Errors    []scoring.FieldError
}

// Seated is a seat taken by a join or a claim, with the seat's token,
// shown this once.
type Seated struct {
	State TableState
	Seat  int
	Token string
}

// Finished is a table just finished: its play.
type Finished struct {
	State  TableState
	PlayID string
}

// openTable is an open table read for a change under its lock.
type openTable struct {
	row   tableRow
	t     *Table
	moves []json.RawMessage
	// hasMoves says the table is played move by move and has moves.
	hasMoves bool
	// role is the asker's, from the token given.
	role Role
	// tokens are the seats' token hashes, by seat.
	tokens map[int]*string
	now    time.Time
}

// tableReadSQL reads a table with its seats, one row a seat (one row
// with NULL seat columns for a table without seats), by code: the columns
// of tableReadRow, in the order of its fields (tableReadRow.dest).
const tableReadSQL = `SELECT t.id, t.code, t.game, t.host_token_hash, t.variants, t.status, t.version, t.first_seat,
	t.created_at, t.updated_at, t.finished_at, t.group_id,
	EXISTS (SELECT 1 FROM moves m WHERE m.table_id = t.id) AS has_moves,
	s.seat AS seat_no, s.name AS seat_name, s.token_hash AS seat_token_hash, s.claimed AS seat_claimed,
	s.board AS seat_board, s.last_seen_at AS seat_last_seen_at, s.unsent AS seat_unsent,
	s.unsent_since AS seat_unsent_since
	FROM tables t LEFT JOIN seats s ON s.table_id = t.id
	WHERE t.code = ? ORDER BY s.seat`

// tableLockSQL takes a table's lock on PostgreSQL, in a statement of its
// own before tableReadSQL: a statement that waits for a lock reads the
// locked row again once it has it, but the seats joined to it as they
// were before it waited. The read after it sees every change committed
// before.
const tableLockSQL = "SELECT id FROM tables WHERE code = ? FOR UPDATE"

// readTable reads a table with its seats, its moves and its recorded
// result, under the table's lock on PostgreSQL (SQLite's one writer
// holds every change apart), and says who token is there.
func (s *Store) readTable(tx *gorm.DB, code, token string, lock bool) (*openTable, error) {
	if lock && s.isPostgres() {
		var ids []int64
		if err := tx.Raw(tableLockSQL, normalizeCode(code)).Scan(&ids).Error; err != nil {
			return nil, err
		}
		if len(ids) == 0 {
			return nil, noTable(token)
		}
	}
	var rows []tableReadRow
	if err := tx.Raw(tableReadSQL, normalizeCode(code)).Scan(&rows).Error; err != nil {
		return nil, err
	}
	ot, err := s.openTableOf(rows, token)
	if err != nil {
		return nil, err
	}
	if ot.hasMoves {
		if ot.moves, err = readMoves(tx, ot.row.ID); err != nil {
			return nil, err
		}
	}
	if ot.row.Status == StatusFinished {
		var plays []playRow
		if err := tx.Select("id", "standings", "messages").Where("table_id = ?", ot.row.ID).Limit(1).Find(&plays).Error; err != nil {
			return nil, err
		}
		if len(plays) == 1 {
			ot.t.PlayID, ot.t.Standings = plays[0].ID, json.RawMessage(plays[0].Standings)
			ot.t.Messages = decodeMessages(plays[0].Messages)
		}
	}
	return ot, nil
}

// openTableOf is the table tableReadSQL read as rows, with the role of
// token there: the table without its moves or its recorded result.
func (s *Store) openTableOf(rows []tableReadRow, token string) (*openTable, error) {
	if len(rows) == 0 {
		return nil, noTable(token)
	}
	ot := &openTable{row: rows[0].Table, hasMoves: rows[0].HasMoves, role: Role{Seat: -1}, tokens: map[int]*string{}, now: s.now()}
	var err error
	if ot.t, err = tableFromRow(ot.row); err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.SeatNo == nil {
			continue
		}
		ot.t.Seats = append(ot.t.Seats, seatFromRow(r.seatRow()))
		ot.tokens[*r.SeatNo] = r.SeatTokenHash
	}
	if token != "" {
		if tokenMatches(token, &ot.row.HostTokenHash) {
			ot.role = Role{Host: true, Seat: -1}
		} else {
			for seat, hash := range ot.tokens {
				if hash != nil && tokenMatches(token, hash) {
					ot.role = Role{Seat: seat}
					break
				}
			}
		}
	}
	return ot, nil
}

// readMoves reads a table's moves, oldest first.
func readMoves(tx *gorm.DB, tableID int64) ([]json.RawMessage, error) {
	var bodies []string
	if err := tx.Model(&moveRow{}).Where("table_id = ?", tableID).Order("seq").Pluck("body", &bodies).Error; err != nil {
		return nil, err
	}
	moves := make([]json.RawMessage, len(bodies))
	for i, b := range bodies {
		moves[i] = json.RawMessage(b)
	}
	return moves, nil
}

// noTable is readTable's answer to a code no table has. A change that
// comes with a token gets the refusal of a token that is no one's at the
// table: the two answers are one, so a prober with any token cannot tell
// a real code from its answer.
func noTable(token string) error {
	if token != "" {
		return errStranger
	}
	return ErrNotFound
}

// errStranger refuses a token that is no one's at the table, or a table
// that is not there.
var errStranger = refuse(RefusedToken, "this token does not belong to this table")

// AnySeat asks Permit for any token of the table.
const AnySeat = -2

// permit refuses a token that is no one's at the table, and one that may
// not act for seat (-1: only the host may act; AnySeat: anyone there).
func (ot *openTable) permit(seat int) error {
	r := ot.role
	switch {
	case !r.Valid():
		return errStranger
	case seat == AnySeat, r.CanEditSeat(seat):
		return nil
	case seat < 0:
		return refuse(RefusedRole, "only the host can do this")
	}
	return refuse(RefusedRole, "a seat's token acts only for its own seat")
}

// open refuses a finished table and a stale ifVersion.
func (ot *openTable) open(ifVersion *int) error {
	if ot.row.Status == StatusFinished {
		return ErrFinished
	}
	if ifVersion != nil && *ifVersion != ot.row.Version {
		return &VersionError{Current: ot.row.Version}
	}
	return nil
}

// bump writes the table's next version.
func (ot *openTable) bump(tx *gorm.DB) error {
	ot.row.Version++
	ot.row.UpdatedAt = ot.now
	ot.t.Version, ot.t.UpdatedAt = ot.row.Version, ot.now
	return tx.Model(&tableRow{}).Where("id = ?", ot.row.ID).Updates(map[string]any{
		"version": ot.row.Version, "updated_at": ot.now, "status": ot.row.Status, "finished_at": ot.row.FinishedAt,
	}).Error
}

// tableChange runs a change of a table in one transaction: it reads the
// table under its lock with the asker's role, runs fn, reads the table as
// fn left it (unless fn kept ot up to date itself and says so), and
// answers. fn refuses what the table's state or the asker's role does not
// allow.
func tableChange[R any](s *Store, ctx context.Context, code, token string, fn func(tx *gorm.DB, ot *openTable) (R, bool, error), result func(R, TableState) R, reply Reply[R]) (R, IdempotentAnswer, error) {
	var (
		out R
		ans IdempotentAnswer
	)
	err := s.transact(ctx, func(tx *gorm.DB) error {
		ot, err := s.readTable(tx, code, token, true)
		if err != nil {
			return err
		}
		r, current, err := fn(tx, ot)
		if err != nil {
			return err
		}
		if !current {
			if ot, err = s.readTable(tx, code, "", false); err != nil {
				return err
			}
		}
		out = result(r, evaluate(ot.t, ot.moves))
		ans, err = answer(ctx, tx, reply, out)
		return err
	})
	return out, ans, err
}

// ReadTable returns a table as it stands, with what the rules make of it.
func (s *Store) ReadTable(ctx context.Context, code string) (TableState, error) {
	var st TableState
	err := s.read(ctx, func(tx *gorm.DB) error {
		ot, err := s.readTable(tx, code, "", false)
		if err != nil {
			return err
		}
		st = evaluate(ot.t, ot.moves)
		return nil
	})
	return st, err
}

// evaluate scores a table as it stands: a tracked table from the boards
// its moves built; a finished one is its result as recorded, which a
// later rules fix must not rewrite.
func evaluate(t *Table, moves []json.RawMessage) TableState {
	st := TableState{Table: t, Moves: moves, Boards: make([]json.RawMessage, len(t.Seats)), Errors: []scoring.FieldError{}}
	req := scoring.Request{Players: make([]scoring.PlayerInput, len(t.Seats)), Variants: t.Variants}
	for i, seat := range t.Seats {
		board := seat.Board
		if len(board) == 0 {
			board = json.RawMessage("null")
		}
		st.Boards[i] = board
		req.Players[i] = scoring.PlayerInput{Name: seat.Name, Board: board}
	}
	if len(moves) > 0 {
		if h, err := replay(t, moves); err == nil {
			st.Tracked = h
			for i, b := range h.Boards() {
				st.Boards[i], req.Players[i].Board = b, b
			}
		}
	}
	if len(t.Seats) == 0 {
		return st
	}
	if t.Status == StatusFinished && len(t.Standings) > 0 {
		var res scoring.Result
		if err := json.Unmarshal(t.Standings, &res); err == nil {
			res.SetMessages(t.Messages)
			st.Standings = &res
			return st
		}
	}
	g, _ := scoring.Lookup(t.Game)
	res, err := scoring.Score(g, req)
	var verr *scoring.ValidationError
	switch {
	case errors.As(err, &verr):
		st.Errors = verr.Errors
	case err == nil:
		st.Standings = res
	}
	return st
}

// replay plays a table's moves, by its game's tracker, from what its
// seats set up. A seat not set up is a refusal by the rules at the seat's
// field.
func replay(t *Table, moves []json.RawMessage) (scoring.Tracked, error) {
	tr, err := tracker(t)
	if err != nil {
		return nil, err
	}
	players := make([]scoring.PlayerInput, len(t.Seats))
	for i, st := range t.Seats {
		players[i] = scoring.PlayerInput{Name: st.Name, Board: st.Board}
	}
	h, err := tr.Replay(players, t.First, moves)
	if verr, ok := err.(*scoring.ValidationError); ok && !strings.HasPrefix(verr.Errors[0].Pointer, "/moves/") {
		return nil, &SetupError{Errors: verr.Errors}
	}
	return h, err
}

// SetupError refuses a first move while a seat is not set up as its
// game's tracker wants; its errors point at the seats' boards.
type SetupError struct {
	Errors []scoring.FieldError
}

func (e *SetupError) Error() string { return e.Message().String() }

// Message is why the move is refused, for the user.
func (e *SetupError) Message() scoring.Message {
	return messagef("every seat needs its board set up before the first move")
}

// BoardPut is one board write as a request asks it: who asks (Token), for
// which seat, the board (JSON null clears it) and the version it was made
// against (IfVersion, optional).
type BoardPut struct {
	Code      string
	Token     string
	Seat      int
	Board     json.RawMessage
	IfVersion *int
}

// PutBoard saves a seat's board in one transaction: it authorises the
// token (the host, or the seat's own), refuses a table played move by
// move (ErrTracked), a finished one and a stale IfVersion, saves the
// board, marks the seat's phone as heard from when the token is the
// seat's own, and answers with the table as it stands after the write.
// The board is saved even when it breaks a rule, so nothing typed is
// lost; the state's errors say what to fix. On PostgreSQL the transaction
// takes two round trips (putBoardPG).
func (s *Store) PutBoard(ctx context.Context, p BoardPut, reply Reply[TableState]) (TableState, IdempotentAnswer, error) {
	text, err := boardText(p.Board)
	if err != nil {
		return TableState{}, IdempotentAnswer{}, err
	}
	if s.isPostgres() {
		return s.putBoardPG(ctx, p, text, reply)
	}
	return tableChange(s, ctx, p.Code, p.Token, func(tx *gorm.DB, ot *openTable) (TableState, bool, error) {
		own, err := p.apply(ot, text)
		if err != nil {
			return TableState{}, false, err
		}
		seatSet, args := "board = ?, updated_at = ?", []any{text, ot.now}
		if own {
			seatSet += ", last_seen_at = ?, unsent = 0, unsent_since = NULL"
			args = append(args, ot.now)
		}
		if err := tx.Exec("UPDATE seats SET "+seatSet+" WHERE table_id = ? AND seat = ?", append(args, ot.row.ID, p.Seat)...).Error; err != nil {
			return TableState{}, false, err
		}
		return TableState{}, true, tx.Exec("UPDATE tables SET version = ?, updated_at = ? WHERE id = ?", ot.row.Version, ot.now, ot.row.ID).Error
	}, func(_ TableState, st TableState) TableState { return st }, reply)
}

// apply makes the board change p to ot, read under the table's lock, in
// memory: the seat's board, its phone heard from when the board is its
// own (own), and the table's next version. It refuses what the asker's
// role or the table's state does not allow, in PutBoard's order.
func (p BoardPut) apply(ot *openTable, text *string) (own bool, err error) {
	if err := ot.permit(p.Seat); err != nil {
		return false, err
	}
	if ot.hasMoves {
		return false, ErrTracked
	}
	if err := ot.open(p.IfVersion); err != nil {
		return false, err
	}
	i := seatIndex(ot.t, p.Seat)
	if i < 0 {
		return false, ErrNotFound
	}
	own = !ot.role.Host
	seat := &ot.t.Seats[i]
	seat.Board = nil
	if text != nil {
		seat.Board = json.RawMessage(*text)
	}
	if own {
		seat.Sync = SeatSync{LastSeenAt: &ot.now}
	}
	ot.row.Version++
	ot.t.Version, ot.t.UpdatedAt = ot.row.Version, ot.now
	return own, nil
}

func seatIndex(t *Table, seat int) int {
	for i, st := range t.Seats {
		if st.Seat == seat {
			return i
		}
	}
	return -1
}

// tracker is the Tracker of a table's game, or the refusal of a game
// not played move by move.
func tracker(t *Table) (scoring.Tracker, error) {
	if g, ok := scoring.Lookup(t.Game); ok {
		if tr, ok := scoring.TrackerOf(g); ok {
			return tr, nil
		}
	}
	return nil, refuse(RefusedMissing, "only a table of a game played move by move takes moves")
}

// AddMove records one move (body, as the client sent it) of a table
// played move by move, in one transaction: the player whose turn it is
// (or the host, for a phone passed around) may make it, and the game's
// tracker must take it after every move made before, as they stand under
// the table's lock. Two phones that send the last draw at once record
// one: the other finds the game over.
func (s *Store) AddMove(ctx context.Context, code, token string, body []byte, ifVersion *int, reply Reply[TableState]) (TableState, IdempotentAnswer, error) {
	return tableChange(s, ctx, code, token, func(tx *gorm.DB, ot *openTable) (TableState, bool, error) {
		if !ot.role.Valid() {
			return TableState{}, false, ot.permit(-1)
		}
		tr, err := tracker(ot.t)
		if err != nil {
			return TableState{}, false, err
		}
		m, err := tr.ReadMove(body)
		if err != nil {
			return TableState{}, false, err
		}
		if err := ot.open(ifVersion); err != nil {
			return TableState{}, false, err
		}
		before, err := replay(ot.t, ot.moves)
		if err != nil {
			return TableState{}, false, err
		}
		if err := ot.permit(before.Next()); err != nil {
			return TableState{}, false, err
		}
		if _, err := replay(ot.t, append(ot.moves, m)); err != nil {
			return TableState{}, false, relativeTo(err, len(ot.moves))
		}
		if err := tx.Create(&moveRow{TableID: ot.row.ID, Seq: len(ot.moves) + 1, Body: string(m), CreatedAt: ot.now}).Error; err != nil {
			return TableState{}, false, err
		}
		ot.moves = append(ot.moves, m)
		return TableState{}, true, ot.bump(tx)
	}, func(_ TableState, st TableState) TableState { return st }, reply)
}

// UndoMove takes the newest move of a tracked table back: the host or
// the player who made it may.
func (s *Store) UndoMove(ctx context.Context, code, token string, ifVersion *int, reply Reply[TableState]) (TableState, IdempotentAnswer, error) {
	return tableChange(s, ctx, code, token, func(tx *gorm.DB, ot *openTable) (TableState, bool, error) {
		if !ot.role.Valid() {
			return TableState{}, false, ot.permit(-1)
		}
		if _, err := tracker(ot.t); err != nil {
			return TableState{}, false, err
		}
		if ot.row.Status == StatusFinished {
			return TableState{}, false, ErrFinished
		}
		if len(ot.moves) == 0 {
			return TableState{}, false, refuse(RefusedMissing, "there is no move to undo")
		}
		before, err := replay(ot.t, ot.moves[:len(ot.moves)-1])
		if err != nil {
			return TableState{}, false, err
		}
		if err := ot.permit(before.Next()); err != nil {
			return TableState{}, false, err
		}
		if err := ot.open(ifVersion); err != nil {
			return TableState{}, false, err
		}
		if err := tx.Where("table_id = ? AND seq = ?", ot.row.ID, len(ot.moves)).Delete(&moveRow{}).Error; err != nil {
			return TableState{}, false, err
		}
		ot.moves = ot.moves[:len(ot.moves)-1]
		return TableState{}, true, ot.bump(tx)
	}, func(_ TableState, st TableState) TableState { return st }, reply)
}

// relativeTo turns the tracker's pointers into the move list ("/moves/7/card")
// into pointers into the body of move n ("/card").
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

// seatName returns what is wrong with a name for a seat at a table whose
// names' keys are seen, or the zero Message.
func seatName(name string, seen map[string]bool) scoring.Message {
	if msg := scoring.NameProblem(name); !msg.IsZero() {
		return msg
	}
	if seen[scoring.NameKey(name)] {
		return messagef("%q is already at this table", name)
	}
	seen[scoring.NameKey(name)] = true
	return scoring.Message{}
}

// checkNewTable checks a new table's game, names, variants and first
// seat against the rules. A table may start with fewer seats than the
// game's minimum: others join later.
func checkNewTable(nt NewTable) error {
	var verr scoring.ValidationError
	g, ok := scoring.Lookup(nt.Game)
	if !ok {
		verr.Add("/game", "choose a game: %s", strings.Join(scoring.GameIDs(), ", "))
		return &verr
	}
	spec := g.Spec()
	if len(nt.Names) > spec.MaxPlayers {
		verr.Add("/players", "%s is for at most %d players", spec.Name, spec.MaxPlayers)
	}
	seen := map[string]bool{}
	for i, name := range nt.Names {
		if msg := seatName(strings.TrimSpace(name), seen); !msg.IsZero() {
			verr.AddMessage(fmt.Sprintf("/players/%d", i), msg)
		}
	}
	if err := scoring.CheckVariants(spec, nt.Variants); err != nil {
		verr.Errors = append(verr.Errors, err.(*scoring.ValidationError).Errors...)
	}
	switch {
	case nt.First == 0:
	case !spec.Tracked:
		verr.Add("/first", "only a table played move by move names who starts; leave first out")
	case nt.First < 0 || nt.First >= len(nt.Names):
		verr.Add("/first", "the first player is one of the players named, seat 0 to %d, not %d", max(len(nt.Names), 1)-1, nt.First)
	}
	return verr.Err()
}

// JoinTable seats a new player who joined by the table's code, in one
// transaction: a name already at the table is a refusal by the rules at
// /name, a table at its game's player limit a refusal of the state.
func (s *Store) JoinTable(ctx context.Context, code, name string, reply Reply[Seated]) (Seated, IdempotentAnswer, error) {
	token, err := newToken(s.Rand)
	if err != nil {
		return Seated{}, IdempotentAnswer{}, err
	}
	return tableChange(s, ctx, code, "", func(tx *gorm.DB, ot *openTable) (Seated, bool, error) {
		if err := ot.open(nil); err != nil {
			return Seated{}, false, err
		}
		seen := map[string]bool{}
		next := 0
		for _, st := range ot.t.Seats {
			seen[scoring.NameKey(st.Name)] = true
			next = max(next, st.Seat+1)
		}
		name = strings.TrimSpace(name)
		if msg := seatName(name, seen); !msg.IsZero() {
			return Seated{}, false, &scoring.ValidationError{Errors: []scoring.FieldError{scoring.FieldErrorOf("/name", msg)}}
		}
		// A game no longer known here has no seat limit to keep.
		if g, ok := scoring.Lookup(ot.t.Game); ok && len(ot.t.Seats) >= g.Spec().MaxPlayers {
			return Seated{}, false, refuse(RefusedState, "this table is full: %s is for at most %d players", g.Spec().Name, g.Spec().MaxPlayers)
		}
		clean, err := cleanName(name, scoring.MaxNameLength)
		if err != nil {
			return Seated{}, false, err
		}
		hash := hashToken(token)
		if err := tx.Create(&seatRow{TableID: ot.row.ID, Seat: next, Name: clean, NameKey: nameKey(clean),
			TokenHash: &hash, Claimed: true, UpdatedAt: ot.now}).Error; err != nil {
			return Seated{}, false, err
		}
		return Seated{Seat: next, Token: token}, false, ot.bump(tx)
	}, func(r Seated, st TableState) Seated { r.State = st; return r }, reply)
}

// ClaimSeatAt hands out the token of a seat the host named, once, in one
// transaction: the first phone to claim it holds it; a claimed seat is
// ErrConflict, a seat that does not exist ErrNotFound.
func (s *Store) ClaimSeatAt(ctx context.Context, code string, seat int, reply Reply[Seated]) (Seated, IdempotentAnswer, error) {
	token, err := newToken(s.Rand)
	if err != nil {
		return Seated{}, IdempotentAnswer{}, err
	}
	return tableChange(s, ctx, code, "", func(tx *gorm.DB, ot *openTable) (Seated, bool, error) {
		if err := ot.open(nil); err != nil {
			return Seated{}, false, err
		}
		i := seatIndex(ot.t, seat)
		if i < 0 {
			return Seated{}, false, ErrNotFound
		}
		if ot.t.Seats[i].Claimed {
			return Seated{}, false, ErrConflict
		}
		res := tx.Model(&seatRow{}).Where("table_id = ? AND seat = ? AND NOT claimed", ot.row.ID, seat).
			Updates(map[string]any{"token_hash": hashToken(token), "claimed": true, "updated_at": ot.now})
		if res.Error != nil {
			return Seated{}, false, res.Error
		}
		if res.RowsAffected != 1 {
			return Seated{}, false, ErrConflict
		}
		return Seated{Seat: seat, Token: token}, false, ot.bump(tx)
	}, func(r Seated, st TableState) Seated { r.State = st; return r }, reply)
}

// Finish closes a table and records its play, in one transaction, for
// the host: it refuses while phones hold unsent edits unless force
// (*UnsentError), then boards that break a rule, too few players or a
// game not over; it records the standings it scored under the table's
// lock with the boards as scored, makes the seats' names players of the
// table's group, and brings the group's figures up to date.
func (s *Store) Finish(ctx context.Context, code, token string, force bool, reply Reply[Finished]) (Finished, IdempotentAnswer, error) {
	id, err := newPlayID(s.Rand)
	if err != nil {
		return Finished{}, IdempotentAnswer{}, err
	}
	out, ans, err := tableChange(s, ctx, code, token, func(tx *gorm.DB, ot *openTable) (Finished, bool, error) {
		if err := ot.permit(-1); err != nil {
			return Finished{}, false, err
		}
		if ot.row.Status == StatusFinished {
			return Finished{}, false, refuse(RefusedState, "this table is already finished")
		}
		st := evaluate(ot.t, ot.moves)
		if err := finishable(ot, st, force); err != nil {
			return Finished{}, false, err
		}
		if err := s.recordFinish(tx, ot, st, id); err != nil {
			return Finished{}, false, err
		}
		return Finished{PlayID: id}, false, nil
	}, func(r Finished, st TableState) Finished { r.State = st; return r }, reply)
	if err == nil {
		s.kickRebuilds()
	}
	return out, ans, err
}

// UnsentError refuses to finish a table while phones hold edits: the
// missing edit may be the one that changes the result, or fixes a board.
type UnsentError struct {
	// Seats are the seats whose phones hold edits.
	Seats []Seat
}

func (e *UnsentError) Error() string { return "models: phones hold unsent changes" }

// finishable says why a table cannot be finished yet, or nil. Unsent
// edits are told before broken boards: the missing edit may be the fix.
func finishable(ot *openTable, st TableState, force bool) error {
	if !force {
		var unsent []Seat
		for _, seat := range ot.t.Seats {
			if seat.Sync.Pending(ot.now) {
				unsent = append(unsent, seat)
			}
		}
		if len(unsent) > 0 {
			return &UnsentError{Seats: unsent}
		}
	}
	if st.Standings == nil {
		return &scoring.ValidationError{Errors: st.Errors}
	}
	g, _ := scoring.Lookup(ot.t.Game)
	spec := g.Spec()
	if len(ot.t.Seats) < spec.MinPlayers {
		return refuse(RefusedRules, "%s needs at least %d players", spec.Name, spec.MinPlayers)
	}
	if !st.Standings.Complete {
		return refuse(RefusedRules, "the game is not over yet: %s", spec.EndWord())
	}
	return nil
}

// recordFinish writes a finished table's play with the state's standings
// and boards, and closes the table.
func (s *Store) recordFinish(tx *gorm.DB, ot *openTable, st TableState, id string) error {
	standings, messages, err := encodeStandings(st.Standings)
	if err != nil {
		return err
	}
	seats := make([]seatRow, len(ot.t.Seats))
	for i, seat := range ot.t.Seats {
		seats[i] = seatRow{Seat: seat.Seat, Name: seat.Name}
		if seats[i].Board, err = boardText(st.Boards[i]); err != nil {
			return fmt.Errorf("models: seat %d: %w", i, err)
		}
	}
	entries, err := matchResults(seats, st.Standings)
	if err != nil {
		return err
	}
	boards, err := encodeBoards(seats)
	if err != nil {
		return err
	}
	if err := lockGroup(tx, ot.t.Group); err != nil {
		return err
	}
	now := ot.now
	ot.row.Status, ot.row.FinishedAt = StatusFinished, &now
	play := playRow{ID: id, GroupID: ot.t.Group, TableID: &ot.row.ID, Game: ot.t.Game, Variants: ot.row.Variants,
		Boards: boards, Standings: standings, Messages: messages, StartedAt: ot.row.CreatedAt, FinishedAt: now}
	if info, _ := scoring.InfoOf(ot.t.Game); info.Tracked && ot.row.FirstSeat < len(seats) {
		// A table played move by move knows who started: its first seat.
		first := ot.row.FirstSeat
		play.StartSeat = &first
	}
	if err := tx.Create(&play).Error; err != nil {
		return err
	}
	if err := s.recordPlayers(tx, play, entries); err != nil {
		return err
	}
	return ot.bump(tx)
}

// SyncReport is what a seat's phone says of its unsent edits.
type SyncReport struct {
	Code  string
	Token string
	Seat  int
	// Unsent edits wait on the phone, the oldest made at Since.
	Unsent int
	Since  time.Time
}

// SyncReported is a seat's sync state after a report, with the table
// when the report changed what the table shows (nil otherwise).
type SyncReported struct {
	Sync  SeatSync
	State *TableState
}

// ReportSync keeps what a seat's phone (or the host) says of the seat's
// unsent edits, in one transaction; the table's version stays.
func (s *Store) ReportSync(ctx context.Context, r SyncReport, reply Reply[SyncReported]) (SyncReported, IdempotentAnswer, error) {
	out := SyncReported{}
	var ans IdempotentAnswer
	err := s.transact(ctx, func(tx *gorm.DB) error {
		ot, err := s.readTable(tx, r.Code, r.Token, true)
		if err != nil {
			return err
		}
		if err := ot.permit(r.Seat); err != nil {
			return err
		}
		if ot.row.Status == StatusFinished {
			return ErrFinished
		}
		i := seatIndex(ot.t, r.Seat)
		if i < 0 {
			return ErrNotFound
		}
		sync := SeatSync{LastSeenAt: &ot.now, Unsent: r.Unsent}
		if r.Unsent > 0 {
			since := r.Since.UTC().Truncate(time.Microsecond)
			sync.UnsentSince = &since
		}
		changed := ot.t.Seats[i].Sync.State(ot.now) != sync.State(ot.now)
		err = tx.Model(&seatRow{}).Where("table_id = ? AND seat = ?", ot.row.ID, r.Seat).
			Updates(map[string]any{"last_seen_at": ot.now, "unsent": r.Unsent, "unsent_since": sync.UnsentSince}).Error
		if err != nil {
			return err
		}
		out.Sync = sync
		if changed {
			ot.t.Seats[i].Sync = sync
			st := evaluate(ot.t, ot.moves)
			out.State = &st
		}
		ans, err = answer(ctx, tx, reply, out)
		return err
	})
	return out, ans, err
}

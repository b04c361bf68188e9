package models

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
	"gorm.io/gorm"

	"insectscore/scoring"
)

// ErrBadCursor means a ListPlays cursor was not one ListPlays handed out:
// the client's mistake, not a missing page.
var ErrBadCursor = errors.New("models: bad cursor")

// Play is a finished game as history keeps it, with each player's board
// and breakdown.
type Play struct {
	ID       string
	Group    string
	Game     string
	Variants map[string]int
	// StartedAt equals FinishedAt for a logged play whose start is not
	// known.
	StartedAt  time.Time
	FinishedAt time.Time
	// TableCode is the table the play was finished at; empty for a play
	// logged after the fact, or once the table is gone.
	TableCode string
	// Players are in the order they were scored (seat order).
	Players []PlayPlayer
	// Standings is the scored result as recorded (a scoring.Result),
	// with tiebreaks, warnings and the solo rating.
	Standings json.RawMessage
	// Messages are its warnings and tie sentence by key, for the API to
	// write them in the client's language (Result.SetMessages).
	Messages scoring.ResultMessages
	PlayNotes
}

// PlayNotes is what a play says beside its scores: free notes, where it
// was played, and who started. Text is kept trimmed and in NFC (see
// CleanNotes and CleanLocation); empty means not given.
type PlayNotes struct {
	Notes    string
	Location string
	// StartSeat is the seat (an index into the play's players) of the
	// player who started; nil when not known.
	StartSeat *int
}

// Duration is how long the play took; zero when its start is unknown.
func (p *Play) Duration() time.Duration { return p.FinishedAt.Sub(p.StartedAt) }

// PlayPlayer is one player's part in a play.
type PlayPlayer struct {
	Seat     int
	PlayerID string
	// Player is the player's name now; NameAsEntered the name typed for
	// this play, which renames and merges leave alone.
	Player        string
	NameAsEntered string
	Total         int
	Rank          int
	Winner        bool
	Breakdown     []scoring.Line
	// Board is nil when none was recorded.
	Board json.RawMessage
}

// PlaySummary is a play as the history list shows it.
type PlaySummary struct {
	ID         string
	Game       string
	StartedAt  time.Time
	FinishedAt time.Time
	// Results are in seat order.
	Results []PlayResult
	PlayNotes
}

// PlayResult is one player's line in a PlaySummary.
type PlayResult struct {
	PlayerID string
	Player   string
	Total    int
	Rank     int
	Winner   bool
}

// LoggedPlay is a play entered after the fact, without a table.
type LoggedPlay struct {
	// Problems are what the request's own fields (times, notes) break,
	// as the API found them: RecordPlay and ChangePlay report them with
	// what the rules refuse, every problem at once.
	Problems []scoring.FieldError
	Game     string
	Variants map[string]int
	// StartedAt may be zero: the play's length is then unknown.
	StartedAt  time.Time
	FinishedAt time.Time
	Players    []LoggedPlayer
	PlayNotes
}

// LoggedPlayer is one player of a LoggedPlay, in the order scored.
type LoggedPlayer struct {
	Name  string
	Board json.RawMessage
}

// PlayFilter selects plays for ListPlays. Group is required; Game and
// PlayerID narrow the list when set.
type PlayFilter struct {
	Group    string
	Game     string
	PlayerID string
	// Location keeps the plays played there, matched as names are (case,
	// spacing and invisible characters aside).
	Location string
	// Limit is the page size: DefaultPlayLimit when zero or less, at most
	// MaxPlayLimit.
	Limit int
	// Cursor is the next value of the previous page; empty for the first.
	Cursor string
}

// Page sizes of ListPlays.
const (
	DefaultPlayLimit = 20
	MaxPlayLimit     = 100
)

type playPlayerRow struct {
	PlayID        string `gorm:"primaryKey"`
	Seat          int    `gorm:"primaryKey"`
	PlayerID      string
	NameAsEntered string
	Total         int
	Rank          int
	Winner        bool
	Breakdown     string
	Board         *string
}

func (playPlayerRow) TableName() string { return "play_players" }

// entry is one player of a play about to be recorded.
type entry struct {
	name   string
	board  *string
	result scoring.PlayerResult
	// playerID is set once the name is resolved.
	playerID string
}

// LogPlay records a play that had no table, scored by the caller with
// scoring.Score (result has one entry per player, in order), and updates
// the group's leaderboard. It returns the play's id.
func (s *Store) LogPlay(ctx context.Context, group string, lp LoggedPlay, result *scoring.Result) (string, error) {
	p, _, err := s.recordPlay(ctx, group, lp, result, nil)
	if err != nil {
		return "", err
	}
	return p.ID, nil
}

// RecordPlay is LogPlay as a change: it scores the play by the rules and
// refuses one that is not a finished game, then in one transaction
// records it, brings the group's kept figures up to date and answers
// with the play as recorded.
func (s *Store) RecordPlay(ctx context.Context, group string, lp LoggedPlay, reply Reply[*Play]) (*Play, IdempotentAnswer, error) {
	result, err := scorePlay(lp)
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	return s.recordPlay(ctx, group, lp, result, reply)
}

func (s *Store) recordPlay(ctx context.Context, group string, lp LoggedPlay, result *scoring.Result, reply Reply[*Play]) (*Play, IdempotentAnswer, error) {
	row, entries, err := loggedPlayRow(lp, result)
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	if row.ID, err = newPlayID(s.Rand); err != nil {
		return nil, IdempotentAnswer{}, err
	}
	row.GroupID = group
	var (
		p   *Play
		ans IdempotentAnswer
	)
	err = s.transact(ctx, func(tx *gorm.DB) error {
		if err := lockGroup(tx, group); err != nil {
			return err
		}
		if err := tx.Create(&row).Error; err != nil {
			return err
		}
		if err := s.recordPlayers(tx, row, entries); err != nil {
			return err
		}
		return answerPlay(ctx, tx, group, row.ID, reply, &p, &ans)
	})
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	s.kickRebuilds()
	return p, ans, nil
}

// scorePlay scores a logged play by the rules and wants a finished game:
// every problem is reported at once, each at its field, with the
// problems the play came with.
func scorePlay(lp LoggedPlay) (*scoring.Result, error) {
	g, ok := scoring.Lookup(lp.Game)
	if !ok {
		return nil, &scoring.ValidationError{Errors: []scoring.FieldError{
			scoring.FieldErrorOf("/game", scoring.Say("rules.", "choose a game: %s", strings.Join(scoring.GameIDs(), ", ")))}}
	}
	verr := scoring.ValidationError{Errors: slices.Clone(lp.Problems)}
	req := scoring.Request{Players: make([]scoring.PlayerInput, len(lp.Players)), Variants: lp.Variants}
	for i, p := range lp.Players {
		req.Players[i] = scoring.PlayerInput{Name: p.Name, Board: p.Board}
	}
	res, err := scoring.Score(g, req)
	var rules *scoring.ValidationError
	switch {
	case errors.As(err, &rules):
		verr.Errors = append(verr.Errors, rules.Errors...)
		return nil, &verr
	case err != nil:
		return nil, err
	}
	spec := g.Spec()
	switch {
	case len(res.Results) < spec.MinPlayers:
		verr.AddMessage("/players", messagef("%s needs at least %d players", spec.Name, spec.MinPlayers))
	case !res.Complete:
		verr.AddMessage("/players", messagef("the game is not over yet: %s", spec.EndWord()))
	}
	if err := verr.Err(); err != nil {
		return nil, err
	}
	return res, nil
}

// answerPlay reads a play just changed and answers with it.
func answerPlay(ctx context.Context, tx *gorm.DB, group, id string, reply Reply[*Play], p **Play, ans *IdempotentAnswer) error {
	var err error
	if *p, err = readPlay(tx, group, id); err != nil {
		return err
	}
	*ans, err = answer(ctx, tx, reply, *p)
	return err
}

// EditPlay replaces what a play recorded (game, time, players, boards and
// result, scored by the caller as for LogPlay). The play keeps its id and
// its table.
func (s *Store) EditPlay(ctx context.Context, group, id string, lp LoggedPlay, result *scoring.Result) error {
	_, _, err := s.changePlay(ctx, group, id, lp, result, nil)
	return err
}

// ChangePlay is EditPlay as a change: it scores the play as RecordPlay
// does, then in one transaction replaces the play, brings the kept
// figures of the players it had and has up to date, marks the ratings of
// the games it touches for a rebuild in the background from the play's
// earlier place, and answers with the play.
func (s *Store) ChangePlay(ctx context.Context, group, id string, lp LoggedPlay, reply Reply[*Play]) (*Play, IdempotentAnswer, error) {
	result, err := scorePlay(lp)
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	return s.changePlay(ctx, group, id, lp, result, reply)
}

func (s *Store) changePlay(ctx context.Context, group, id string, lp LoggedPlay, result *scoring.Result, reply Reply[*Play]) (*Play, IdempotentAnswer, error) {
	row, entries, err := loggedPlayRow(lp, result)
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	var (
		p   *Play
		ans IdempotentAnswer
	)
	err = s.transact(ctx, func(tx *gorm.DB) error {
		if err := lockGroup(tx, group); err != nil {
			return err
		}
		old, err := findPlayRow(tx, group, id)
		if err != nil {
			return err
		}
		was, err := playResults(tx, id)
		if err != nil {
			return err
		}
		err = tx.Model(&playRow{}).Where("id = ?", id).Updates(map[string]any{
			"game": row.Game, "variants": row.Variants, "boards": row.Boards, "standings": row.Standings, "messages": row.Messages,
			"started_at": row.StartedAt, "finished_at": row.FinishedAt,
			"notes": row.Notes, "location": row.Location, "location_key": row.LocationKey, "start_seat": row.StartSeat,
		}).Error
		if err != nil {
			return err
		}
		if err := tx.Where("play_id = ?", id).Delete(&playPlayerRow{}).Error; err != nil {
			return err
		}
		row.ID, row.GroupID = id, group
		if err := s.insertPlayPlayers(tx, row, entries); err != nil {
			return err
		}
		if err := markRebuild(tx, group, old.Game, old.FinishedAt, id, playersOf(was)); err != nil {
			return err
		}
		now := make([]string, len(entries))
		seated := make([]seatedResult, len(entries))
		for i, e := range entries {
			now[i] = e.playerID
			seated[i] = seatedResult{PlayerID: e.playerID, Total: e.result.Total, Rank: e.result.Rank, Winner: e.result.Winner}
		}
		f := newFigures()
		f.addPlay(group, old.Game, was, -1)
		f.addPlay(group, row.Game, seated, 1)
		if err := f.write(tx); err != nil {
			return err
		}
		if err := markRebuild(tx, group, row.Game, row.FinishedAt, id, now); err != nil {
			return err
		}
		if err := keepFigures(tx, group, old.Game, playersOf(was)); err != nil {
			return err
		}
		if err := keepFigures(tx, group, row.Game, now); err != nil {
			return err
		}
		return answerPlay(ctx, tx, group, id, reply, &p, &ans)
	})
	if err != nil {
		return nil, IdempotentAnswer{}, err
	}
	s.kickRebuilds()
	return p, ans, nil
}

// DeletePlay removes a play from the group's history. The table it was
// finished at stays finished, with no result.
func (s *Store) DeletePlay(ctx context.Context, group, id string) error {
	_, err := s.RemovePlay(ctx, group, id, nil)
	return err
}

// RemovePlay is DeletePlay as a change: in one transaction it removes
// the play, brings its players' kept figures up to date and marks its
// game's ratings for a rebuild in the background.
func (s *Store) RemovePlay(ctx context.Context, group, id string, reply Reply[string]) (IdempotentAnswer, error) {
	var ans IdempotentAnswer
	err := s.transact(ctx, func(tx *gorm.DB) error {
		if err := lockGroup(tx, group); err != nil {
			return err
		}
		old, err := findPlayRow(tx, group, id)
		if err != nil {
			return err
		}
		was, err := playResults(tx, id)
		if err != nil {
			return err
		}
		if err := tx.Delete(&playRow{}, "id = ?", id).Error; err != nil {
			return err
		}
		if err := countPlay(tx, group, old.Game, was, -1); err != nil {
			return err
		}
		if err := markRebuild(tx, group, old.Game, old.FinishedAt, id, playersOf(was)); err != nil {
			return err
		}
		if err := keepFigures(tx, group, old.Game, playersOf(was)); err != nil {
			return err
		}
		ans, err = answer(ctx, tx, reply, id)
		return err
	})
	if err != nil {
		return IdempotentAnswer{}, err
	}
	s.kickRebuilds()
	return ans, nil
}

// FindPlay returns a play of the group with every player's board and
// breakdown. A play of another group is ErrNotFound.
func (s *Store) FindPlay(ctx context.Context, group, id string) (*Play, error) {
	var p *Play
	err := s.read(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, group); err != nil {
			return err
		}
		var err error
		p, err = readPlay(tx, group, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// readPlay reads a play of the group with every player's board and
// breakdown.
func readPlay(tx *gorm.DB, group, id string) (*Play, error) {
	row, err := findPlayRow(tx, group, id)
	if err != nil {
		return nil, err
	}
	p := &Play{ID: row.ID, Group: row.GroupID, Game: row.Game, Variants: map[string]int{},
		StartedAt: row.StartedAt.UTC(), FinishedAt: row.FinishedAt.UTC(), Standings: json.RawMessage(row.Standings), Players: []PlayPlayer{},
		Messages: decodeMessages(row.Messages), PlayNotes: row.notes()}
	if err := json.Unmarshal([]byte(row.Variants), &p.Variants); err != nil {
		return nil, fmt.Errorf("models: variants of play %s: %w", id, err)
	}
	if row.TableID != nil {
		var codes []string
		if err := tx.Model(&tableRow{}).Where("id = ?", *row.TableID).Pluck("code", &codes).Error; err != nil {
			return nil, err
		}
		if len(codes) == 1 {
			p.TableCode = codes[0]
		}
	}
	var rows []struct {
		Row    playPlayerRow `gorm:"embedded"`
		Player string
	}
	err = tx.Table("play_players AS pp").Select("pp.*, players.name AS player").
		Joins("JOIN players ON players.id = pp.player_id").Where("pp.play_id = ?", id).Order("pp.seat").Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	for _, rr := range rows {
		r := rr.Row
		pp := PlayPlayer{Seat: r.Seat, PlayerID: r.PlayerID, Player: rr.Player, NameAsEntered: r.NameAsEntered,
			Total: r.Total, Rank: r.Rank, Winner: r.Winner, Breakdown: []scoring.Line{}}
		if err := json.Unmarshal([]byte(r.Breakdown), &pp.Breakdown); err != nil {
			return nil, fmt.Errorf("models: breakdown of play %s seat %d: %w", id, r.Seat, err)
		}
		if r.Board != nil {
			pp.Board = json.RawMessage(*r.Board)
		}
		p.Players = append(p.Players, pp)
	}
	return p, nil
}

// ListPlays returns a page of the group's plays, newest first, and the
// cursor of the next page ("" after the last). Pages are cut by
// (finished_at, id), so plays recorded while someone pages through do not
// shift the pages. A cursor ListPlays did not hand out is ErrBadCursor.
func (s *Store) ListPlays(ctx context.Context, f PlayFilter) (plays []PlaySummary, next string, err error) {
	err = s.read(ctx, func(tx *gorm.DB) error {
		if err := groupExists(tx, f.Group); err != nil {
			return err
		}
		plays, next, err = listPlays(tx, f)
		return err
	})
	if err != nil {
		return nil, "", err
	}
	return plays, next, nil
}

func listPlays(tx *gorm.DB, f PlayFilter) ([]PlaySummary, string, error) {
	limit := f.Limit
	if limit <= 0 {
		limit = DefaultPlayLimit
	}
	limit = min(limit, MaxPlayLimit)
	q := tx.Table("plays AS p").Select(summaryColumns)
	if f.PlayerID != "" {
		if !validID(f.PlayerID) {
			return []PlaySummary{}, "", nil // no such player, no plays
		}
		var err error
		if q, err = playerPlays(tx, f.PlayerID, f.Game); err != nil {
			return nil, "", err
		}
	}
	q = q.Where("p.group_id = ?", f.Group)
	if f.Game != "" {
		q = q.Where("p.game = ?", f.Game)
	}
	if f.Location != "" {
		key := nameKey(f.Location)
		if key == "" {
			return []PlaySummary{}, "", nil // a place of no name: no plays
		}
		q = q.Where("p.location_key = ?", key)
	}
	if f.Cursor != "" {
		at, id, err := decodeCursor(f.Cursor)
		if err != nil {
			return nil, "", err
		}
		// The row value, unlike the equivalent OR, is one range of the
		// (group_id, …, finished_at, id) indexes on both databases.
		q = q.Where("(p.finished_at, p.id) < (?, ?)", at, id)
	}
	var rows []playRow
	if err := q.Order("p.finished_at DESC, p.id DESC").Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, "", err
	}
	next := ""
	if len(rows) > limit {
		rows = rows[:limit]
		last := rows[limit-1]
		next = encodeCursor(last.FinishedAt, last.ID)
	}
	out := make([]PlaySummary, len(rows))
	index := make(map[string]int, len(rows))
	ids := make([]string, len(rows))
	for i, r := range rows {
		out[i] = PlaySummary{ID: r.ID, Game: r.Game, StartedAt: r.StartedAt.UTC(), FinishedAt: r.FinishedAt.UTC(), Results: []PlayResult{},
			PlayNotes: r.notes()}
		index[r.ID], ids[i] = i, r.ID
	}
	if len(ids) == 0 {
		return out, next, nil
	}
	var results []struct {
		PlayID string
		PlayResult
	}
	err := tx.Table("play_players AS pp").
		Select("pp.play_id, pp.player_id, players.name AS player, pp.total, pp.rank, pp.winner").
		Joins("JOIN players ON players.id = pp.player_id").
		Where("pp.play_id IN ?", ids).Order("pp.play_id, pp.seat").Scan(&results).Error
	if err != nil {
		return nil, "", err
	}
	for _, r := range results {
		i := index[r.PlayID]
		out[i].Results = append(out[i].Results, r.PlayResult)
	}
	return out, next, nil
}

// summaryColumns are the columns of a play the history list reads.
var summaryColumns = []string{"p.id", "p.game", "p.started_at", "p.finished_at", "p.notes", "p.location", "p.start_seat"}

// sparsePlays is the number of plays up to which a player's plays are
// listed from their own rows and sorted; a player with more has a play
// every few of the group's, found faster by walking the group's plays
// newest first. Either way a page costs a few thousand index steps at
// most, instead of the player's whole list.
const sparsePlays = 5000

// playerPlays starts the query of a player's plays (as "p"), of one game
// or all, the way that costs least for how many plays they have: which
// their score counts tell (figures.go) in a few rows, where counting their
// rows would read up to sparsePlays of them.
func playerPlays(tx *gorm.DB, player, game string) (*gorm.DB, error) {
	count := tx.Table("player_scores").Select("COALESCE(SUM(plays), 0)").Where("player_id = ?", player)
	if game != "" {
		count = count.Where("game = ?", game)
	}
	var n int64
	if err := count.Scan(&n).Error; err != nil {
		return nil, err
	}
	if n < sparsePlays {
		// CROSS JOIN keeps SQLite from walking the group's plays first;
		// PostgreSQL reads it as the plain join it is.
		return tx.Table("play_players AS pp CROSS JOIN plays AS p").Select(summaryColumns).
			Where("p.id = pp.play_id AND pp.player_id = ?", player), nil
	}
	// OFFSET 0 keeps PostgreSQL from making the EXISTS a join, which
	// can read all of the player's rows first; it then asks for each play
	// the walk passes, as SQLite does.
	fence := ""
	if tx.Dialector.Name() == "postgres" {
		fence = " OFFSET 0"
	}
	return tx.Table("plays AS p").Select(summaryColumns).
		Where("EXISTS (SELECT 1 FROM play_players pp WHERE pp.play_id = p.id AND pp.player_id = ?"+fence+")", player), nil
}

// encodeCursor makes the opaque cursor of the page after the play
// finished at at with the given id.
func encodeCursor(at time.Time, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(at.UTC().Format(time.RFC3339Nano) + " " + id))
}

func decodeCursor(cursor string) (time.Time, string, error) {
	raw, err := base64.RawURLEncoding.DecodeString(cursor)
	if err != nil {
		return time.Time{}, "", ErrBadCursor
	}
	ts, id, ok := strings.Cut(string(raw), " ")
	if !ok || !validID(id) {
		return time.Time{}, "", ErrBadCursor
	}
	at, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		return time.Time{}, "", ErrBadCursor
	}
	return at.UTC(), id, nil
}

// findPlayRow returns the play if it belongs to group, else ErrNotFound.
func findPlayRow(tx *gorm.DB, group, id string) (playRow, error) {
	var row playRow
	if !validID(id) {
		return row, notFound("no play %q in this group", id)
	}
	err := tx.Where("id = ? AND group_id = ?", id, group).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return row, notFound("no play %q in this group", id)
	}
	return row, err
}

// loggedPlayRow checks a logged play against the result the caller scored
// for it and builds the play's row (without id and group) and entries.
func loggedPlayRow(lp LoggedPlay, result *scoring.Result) (playRow, []entry, error) {
	var row playRow
	g, known := scoring.Lookup(lp.Game)
	switch {
	case result == nil:
		return row, nil, errors.New("models: a logged play needs its scored result")
	case !known:
		return row, nil, fmt.Errorf("models: there is no game %q", lp.Game)
	case len(lp.Players) < g.Spec().MinPlayers || len(lp.Players) > g.Spec().MaxPlayers:
		return row, nil, fmt.Errorf("models: %s is played by %d to %d players, not %d", g.Spec().Name, g.Spec().MinPlayers, g.Spec().MaxPlayers, len(lp.Players))
	case lp.Game == "" || (result.Game != "" && result.Game != lp.Game):
		return row, nil, fmt.Errorf("models: play of %q scored as %q", lp.Game, result.Game)
	case lp.FinishedAt.IsZero():
		return row, nil, errors.New("models: a logged play needs the time it finished")
	case !lp.StartedAt.IsZero() && lp.StartedAt.After(lp.FinishedAt):
		return row, nil, errors.New("models: a play cannot start after it finished")
	}
	seats := make([]seatRow, len(lp.Players))
	for i, p := range lp.Players {
		board, err := boardText(p.Board)
		if err != nil {
			return row, nil, fmt.Errorf("models: player %d: %w", i, err)
		}
		name, err := cleanName(p.Name, scoring.MaxNameLength)
		if err != nil {
			return row, nil, fmt.Errorf("models: player %d: %w", i, err)
		}
		seats[i] = seatRow{Seat: i, Name: name, Board: board}
	}
	entries, err := matchResults(seats, result)
	if err != nil {
		return row, nil, err
	}
	variants, err := encodeVariants(lp.Variants)
	if err != nil {
		return row, nil, err
	}
	boards, err := encodeBoards(seats)
	if err != nil {
		return row, nil, err
	}
	standings, messages, err := encodeStandings(result)
	if err != nil {
		return row, nil, err
	}
	finished := lp.FinishedAt.UTC().Truncate(time.Microsecond)
	started := finished
	if !lp.StartedAt.IsZero() {
		started = lp.StartedAt.UTC().Truncate(time.Microsecond)
	}
	row = playRow{Game: lp.Game, Variants: variants, Boards: boards, Standings: standings, Messages: messages, StartedAt: started, FinishedAt: finished}
	if err := row.setNotes(lp.PlayNotes, len(seats)); err != nil {
		return row, nil, err
	}
	return row, entries, nil
}

// matchResults pairs each seat with its result: one per seat, in order,
// under the same name. Anything else means the result was scored from
// other boards, and recording it would put scores on the wrong people.
func matchResults(seats []seatRow, result *scoring.Result) ([]entry, error) {
	if len(seats) == 0 {
		return nil, errors.New("models: a play needs at least one player")
	}
	if len(result.Results) != len(seats) {
		return nil, fmt.Errorf("models: %d results for %d players", len(result.Results), len(seats))
	}
	out := make([]entry, len(seats))
	for i, st := range seats {
		r := result.Results[i]
		if nameKey(r.Name) != nameKey(st.Name) {
			return nil, fmt.Errorf("models: result %d is %q's, not %q's", i, r.Name, st.Name)
		}
		out[i] = entry{name: st.Name, board: st.Board, result: r}
	}
	return out, nil
}

// recordPlayers writes the player rows of a play just inserted and brings
// its game's leaderboard up to date: one step forward when it is the
// newest play of its group and game, else a rebuild in finish order from
// the play on, in the background, as ratings depend on the order of plays.
func (s *Store) recordPlayers(tx *gorm.DB, play playRow, entries []entry) error {
	if err := s.insertPlayPlayers(tx, play, entries); err != nil {
		return err
	}
	var later []string
	err := tx.Model(&playRow{}).
		Where("group_id = ? AND game = ? AND (finished_at, id) > (?, ?)", play.GroupID, play.Game, play.FinishedAt, play.ID).
		Order("finished_at, id").Limit(1).Pluck("id", &later).Error
	if err != nil {
		return err
	}
	seated := make([]seatedResult, len(entries))
	for i, e := range entries {
		seated[i] = seatedResult{PlayerID: e.playerID, Total: e.result.Total, Rank: e.result.Rank, Winner: e.result.Winner}
	}
	if err := countPlay(tx, play.GroupID, play.Game, seated, 1); err != nil {
		return err
	}
	return stepOrMark(tx, play, seated, len(later) > 0)
}

// stepOrMark brings a game's leaderboard up to date with a play just
// recorded: one step forward when it is the newest play and the game's
// figures are right (no rebuild pending), else a rebuild from the play on.
func stepOrMark(tx *gorm.DB, play playRow, seated []seatedResult, later bool) error {
	pending := later
	if !pending {
		var err error
		if pending, err = rebuildPending(tx, play.GroupID, play.Game); err != nil {
			return err
		}
	}
	if pending {
		if err := markRebuild(tx, play.GroupID, play.Game, play.FinishedAt, play.ID, playersOf(seated)); err != nil {
			return err
		}
		return keepFigures(tx, play.GroupID, play.Game, playersOf(seated))
	}
	return stepGame(tx, play.GroupID, play.Game, play.ID, play.FinishedAt, seated)
}

// insertPlayPlayers resolves the entries' names to the group's players
// (setting their playerID) and writes a row per entry.
func (s *Store) insertPlayPlayers(tx *gorm.DB, play playRow, entries []entry) error {
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.name
	}
	ids, err := s.resolvePlayers(tx, play.GroupID, names, s.now())
	if err != nil {
		return err
	}
	rows := make([]playPlayerRow, len(entries))
	for i := range entries {
		e := &entries[i]
		e.playerID = ids[i]
		breakdown, err := json.Marshal(nonNilLines(e.result.Breakdown))
		if err != nil {
			return err
		}
		rows[i] = playPlayerRow{PlayID: play.ID, Seat: i, PlayerID: ids[i], NameAsEntered: e.name,
			Total: e.result.Total, Rank: e.result.Rank, Winner: e.result.Winner, Breakdown: string(breakdown), Board: e.board}
	}
	return tx.Create(&rows).Error
}

func nonNilLines(l []scoring.Line) []scoring.Line {
	if l == nil {
		return []scoring.Line{}
	}
	return l
}

// The longest notes and location a play keeps, in characters.
const (
	MaxNotesLength    = 2000
	MaxLocationLength = 80
)

// ErrBadPlayNotes means a play's notes, location or start player cannot
// be kept. The API checks them first and says why at the field; this is
// the store's own guard.
var ErrBadPlayNotes = errors.New("models: not valid play notes")

// NotesError is an ErrBadPlayNotes that says why.
type NotesError struct {
	scoring.Message
}

func (e *NotesError) Error() string { return ErrBadPlayNotes.Error() + ": " + e.String() }

// Unwrap makes errors.Is(err, ErrBadPlayNotes) hold.
func (e *NotesError) Unwrap() error { return ErrBadPlayNotes }

// CleanNotes is a play's notes as the store keeps them: trimmed, in NFC,
// line breaks and tabs kept. An error says why they cannot be kept.
func CleanNotes(notes string) (string, error) {
	return cleanText(notes, MaxNotesLength, true)
}

// CleanLocation is a play's location as the store keeps it: trimmed, in
// NFC, on one line. An error says why it cannot be kept.
func CleanLocation(location string) (string, error) {
	location, err := cleanText(location, MaxLocationLength, false)
	if err == nil && location != "" && nameKey(location) == "" {
		return "", textErrorf("it shows nothing")
	}
	return location, err
}

// cleanText trims s and brings it to NFC; it refuses text that is not
// UTF-8, holds a NUL or another control character (line breaks and tabs
// too unless lines), or is longer than longest characters, with a
// *TextError.
func cleanText(s string, longest int, lines bool) (string, error) {
	if !utf8.ValidString(s) {
		return "", textErrorf("it is not text (invalid UTF-8)")
	}
	s = strings.TrimSpace(norm.NFC.String(s))
	for _, r := range s {
		if unicode.IsControl(r) && !(lines && (r == '\n' || r == '\r' || r == '\t')) {
			if lines {
				return "", textErrorf("it holds the control character %s; only line breaks and tabs may be in it", fmt.Sprintf("%U", r))
			}
			return "", textErrorf("it holds the control character %s; it is one line of text", fmt.Sprintf("%U", r))
		}
	}
	if n := utf8.RuneCountInString(s); n > longest {
		return "", textErrorf("it is %d characters long; at most %d", n, longest)
	}
	return s, nil
}

// setNotes checks a play's notes against its number of players and sets
// them on the row.
func (row *playRow) setNotes(n PlayNotes, players int) error {
	notes, err := CleanNotes(n.Notes)
	if err != nil {
		return &NotesError{messagef("the notes: %v", err)}
	}
	location, err := CleanLocation(n.Location)
	if err != nil {
		return &NotesError{messagef("the location: %v", err)}
	}
	if n.StartSeat != nil && (*n.StartSeat < 0 || *n.StartSeat >= players) {
		return &NotesError{messagef("the start player is seat %d of %d", *n.StartSeat, players)}
	}
	row.Notes, row.Location, row.LocationKey, row.StartSeat = notes, location, nameKey(location), n.StartSeat
	return nil
}

// notes are the row's notes, location and start seat.
func (row *playRow) notes() PlayNotes {
	n := PlayNotes{Notes: row.Notes, Location: row.Location}
	if row.StartSeat != nil {
		seat := *row.StartSeat
		n.StartSeat = &seat
	}
	return n
}

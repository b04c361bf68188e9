package models

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"insectscore/scoring"
)

// An import is read and checked whole before anything is written: the
// file is decoded as a stream, a play at a time, each play is scored again
// from its boards by today's rules (the file's standings, totals and ranks
// are never trusted), and a play with an impossible game or number of
// players is refused before its players are even read. Then it is written
// in short transactions, so that other requests never wait long behind
// it, while the group is hidden: until the last one commits, the group
// answers ErrImporting, and an import cut short is undone.

// ErrBadImport means an import file is not one this server can read; the
// *ImportError wrapping it says why in words for the user.
var ErrBadImport = errors.New("models: bad import file")

// ErrImporting means the group is being imported: its history is not all
// written yet. It is an ErrUnavailable, as trying again in a moment works.
var ErrImporting = fmt.Errorf("%w: the group is being imported", ErrUnavailable)

// ImportError is an ErrBadImport with the reason.
type ImportError struct {
	Reason string
	// Errors point into the file (JSON Pointers) at what is wrong, when
	// it is a place in it.
	Errors []scoring.FieldError
	// reason is the reason of a file wrong as a whole (no Errors), or the
	// detail of Errors[0] when it is the store's own (else the rules' own,
	// which keeps its format).
	reason scoring.Message
}

func (e *ImportError) Error() string { return e.Reason }

// Unwrap makes errors.Is(err, ErrBadImport) hold.
func (e *ImportError) Unwrap() error { return ErrBadImport }

// In is the reason and errors in cat's language (nil: English).
func (e *ImportError) In(cat scoring.Catalog) (string, []scoring.FieldError) {
	if cat == nil {
		return e.Reason, e.Errors
	}
	if len(e.Errors) == 0 {
		return e.reason.In(cat), nil
	}
	errs := cat.FieldErrors(e.Errors)
	if !e.reason.IsZero() {
		errs[0].Detail = e.reason.In(cat)
	}
	return importReason(errs).In(cat), errs
}

// importReason is the reason of an import refused at errs: the first of
// them, and how many more there are.
func importReason(errs []scoring.FieldError) scoring.Message {
	if len(errs) > 1 {
		return messagef("the file cannot be imported: at %s: %s (and %d more)", errs[0].Pointer, errs[0].Detail, len(errs)-1)
	}
	return messagef("the file cannot be imported: at %s: %s", errs[0].Pointer, errs[0].Detail)
}

func badImport(format string, args ...any) error {
	m := messagef(format, args...)
	return &ImportError{Reason: m.String(), reason: m}
}

// refusedAt is the ImportError of the rules' errs, pointing into the file.
func refusedAt(errs []scoring.FieldError) error {
	return &ImportError{Reason: importReason(errs).String(), Errors: errs}
}

// nameReason is why a name cannot be kept, as a NameError says it.
func nameReason(err error) any {
	var ne *NameError
	if errors.As(err, &ne) {
		return ne.Message
	}
	return err
}

// badImportAt is an ImportError at one place of the file.
func badImportAt(pointer, format string, args ...any) error {
	m := messagef(format, args...)
	errs := []scoring.FieldError{scoring.FieldErrorOf(pointer, m)}
	return &ImportError{Reason: importReason(errs).String(), Errors: errs, reason: m}
}

// Batch sizes of an import's transactions: each commits in a few
// milliseconds, so a request arriving meanwhile waits for one at most.
const (
	importPlayersPerTx = 500
	importPlaysPerTx   = 200
	importRowsPerTx    = 500
)

// importLease is how long an import may go without committing a batch
// before it counts as abandoned (its server stopped): the next import of
// the group, or the next start of a server, then clears what it left.
const importLease = time.Minute

// ImportGroup reads a group written by ExportGroup into this server. A
// file of a newer format version is refused with a message saying so, and
// any file this server cannot read, or a play in it whose boards do not
// make a finished game by today's rules, is an *ImportError pointing into
// the file. A group id that is already here with players or plays, or
// player or play ids of another group, is a *ConflictError; an empty
// group (the default group of a fresh server, above all) takes the file's
// name and history, so a self-hosted server moves to another one whole.
func (s *Store) ImportGroup(ctx context.Context, data []byte) (*Group, error) {
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return s.ImportGroupFile(ctx, open, nil)
}

// ImportGroupFrom is ImportGroup reading the file from r.
func (s *Store) ImportGroupFrom(ctx context.Context, r io.Reader) (*Group, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return s.ImportGroup(ctx, data)
}

// ImportProgress is how far an import has come: Plays of Total plays
// (Total is 0 while the file is being checked, as it is not known yet).
type ImportProgress struct {
	// Stage is "checking" (the file, whole, before anything is written),
	// "writing" (the plays) or "rating" (the leaderboards, in finish
	// order).
	Stage        string
	Plays, Total int
}

// ImportGroupFile is ImportGroup reading the file that open opens, twice:
// once to check it whole, then again to write it, so that only a batch of
// its plays is ever in memory, whatever its length. progress, when not
// nil, is called after each batch of plays checked, written or rated.
func (s *Store) ImportGroupFile(ctx context.Context, open func() (io.ReadCloser, error), progress func(ImportProgress)) (*Group, error) {
	g, _, err := s.importGroup(ctx, open, progress, nil)
	return g, err
}

// Import is ImportGroup as a change: the transaction that ends the import
// (and makes the group visible) keeps its answer.
func (s *Store) Import(ctx context.Context, data []byte, reply Reply[*Group]) (*Group, IdempotentAnswer, error) {
	open := func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }
	return s.importGroup(ctx, open, nil, reply)
}

func (s *Store) importGroup(ctx context.Context, open func() (io.ReadCloser, error), progress func(ImportProgress), reply Reply[*Group]) (*Group, IdempotentAnswer, error) {
	var ans IdempotentAnswer
	if progress == nil {
		progress = func(ImportProgress) {}
	}
	f, err := s.checkImport(ctx, open, progress)
	if err != nil {
		return nil, ans, err
	}
	if err := s.writeImport(ctx, f, open, progress, reply, &ans); err != nil {
		return nil, ans, err
	}
	return f.group.group(), ans, nil
}

// importFile is what an import keeps of a file checked: its group and
// players, and how many plays it holds of each game.
type importFile struct {
	group   groupRow
	players []playerRow
	games   map[string]int
	plays   int
}

type importPlay struct {
	row     playRow
	entries []playPlayerRow
}

// maxPlayers is the most players any game takes: a play listing more is
// refused before the rest of its players are read.
func maxPlayers() int {
	most := 0
	for _, g := range scoring.Games() {
		most = max(most, g.Spec().MaxPlayers)
	}
	return most
}

// importReader decodes an export file token by token.
type importReader struct {
	dec *json.Decoder
}

// scanImport decodes and checks a whole file, handing each play to
// onPlay as it is read and checked; an error of onPlay ends the scan.
func scanImport(r io.Reader, checkIDs bool, onPlay func(p importPlay) error) (*importFile, error) {
	ir := importReader{dec: json.NewDecoder(r)}
	ir.dec.DisallowUnknownFields()
	notExport := badImport("this is not an insectscore group export")
	if tok, err := ir.dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, notExport
	}
	f := &importFile{games: map[string]int{}}
	var (
		format  string
		version int
		seen    = map[string]bool{}
		ids     = fileIDs{names: map[string]string{}, keys: map[string]string{}}
	)
	for ir.dec.More() {
		key, err := ir.key()
		if err != nil {
			return nil, notExport
		}
		if seen[key] {
			return nil, badImportAt("/"+escapePointer(key), "%q is in the file twice", key)
		}
		seen[key] = true
		// A file names its format and version first, so that a file of
		// another kind or a newer version is refused before the rest of
		// it is read.
		if key != "format" && key != "formatVersion" {
			switch {
			case format != ExportFormat:
				return nil, notExport
			case version > ExportFormatVersion:
				return nil, badImport("this file was written by a newer insectscore (format %d); this server reads format %d", version, ExportFormatVersion)
			case version < 1:
				return nil, badImport("this file has no valid format version")
			}
		}
		switch key {
		case "format":
			if ir.dec.Decode(&format) != nil || format != ExportFormat {
				return nil, notExport
			}
		case "formatVersion":
			if err := ir.dec.Decode(&version); err != nil {
				return nil, badImport("this file has no valid format version")
			}
		case "group":
			var g exportGroup
			if err := ir.value("/group", &g); err != nil {
				return nil, err
			}
			if f.group, err = importGroupRow(g); err != nil {
				return nil, err
			}
		case "players":
			if !seen["group"] {
				return nil, badImportAt("/players", "the group comes before its players")
			}
			err := ir.array("/players", -1, func(i int, at string) error {
				p, err := ir.player(at, f.group.ID, ids)
				if err == nil {
					f.players = append(f.players, p)
				}
				return err
			})
			if err != nil {
				return nil, err
			}
		case "plays":
			if !seen["players"] {
				return nil, badImportAt("/plays", "the players come before the plays")
			}
			var playIDs *idSet
			if checkIDs {
				playIDs = newIDSet()
			}
			err := ir.array("/plays", -1, func(i int, at string) error {
				p, err := ir.play(at, f.group.ID, version, ids, playIDs)
				if err != nil {
					return err
				}
				f.games[p.row.Game]++
				f.plays++
				return onPlay(p)
			})
			if err != nil {
				return nil, err
			}
		default:
			return nil, badImportAt("/"+escapePointer(key), "the file does not read as format %d: %q is not one of its fields", ExportFormatVersion, key)
		}
	}
	if _, err := ir.dec.Token(); err != nil {
		return nil, badImport("the file does not read as format %d: %v", ExportFormatVersion, err)
	}
	if tok, err := ir.dec.Token(); err != io.EOF {
		return nil, badImport("the file goes on after its end (%v)", tok)
	}
	for _, k := range []string{"group", "players", "plays"} {
		if !seen[k] {
			return nil, badImport("the file does not read as format %d: it has no %s", ExportFormatVersion, k)
		}
	}
	return f, nil
}

// key reads an object's next member name.
func (ir importReader) key() (string, error) {
	tok, err := ir.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("want a member name, got %v", tok)
	}
	return k, nil
}

// value decodes the next value into v; an error points at it.
func (ir importReader) value(at string, v any) error {
	if err := ir.dec.Decode(v); err != nil {
		return decodeError(at, err)
	}
	return nil
}

// decodeError is a decoding error at the value at, pointing at its field
// when encoding/json names one.
func decodeError(at string, err error) error {
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &te):
		if te.Field != "" {
			at += "/" + strings.ReplaceAll(te.Field, ".", "/")
		}
		return badImportAt(at, "expected %s, got %s", te.Type, te.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		return badImportAt(at+"/"+escapePointer(name), "%q is not a field of format %d", name, ExportFormatVersion)
	}
	return badImportAt(at, "the file does not read as format %d: %v", ExportFormatVersion, err)
}

// array reads a JSON array element by element, calling fn with each
// element's index and pointer; most bounds the elements (-1: no bound).
func (ir importReader) array(at string, most int, fn func(i int, at string) error) error {
	if tok, err := ir.dec.Token(); err != nil || tok != json.Delim('[') {
		return badImportAt(at, "expected a list")
	}
	for i := 0; ir.dec.More(); i++ {
		if most >= 0 && i >= most {
			return badImportAt(at, "more than %d; no game has that many players", most)
		}
		if err := fn(i, at+"/"+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	if _, err := ir.dec.Token(); err != nil {
		return badImportAt(at, "the list does not end: %v", err)
	}
	return nil
}

func importGroupRow(g exportGroup) (groupRow, error) {
	if !validID(g.ID) {
		return groupRow{}, badImportAt("/group/id", "the group id %q is not valid", g.ID)
	}
	if !KeptTime(g.CreatedAt) {
		return groupRow{}, badImportAt("/group/createdAt", "a time must fall in the years 1 to 9999 (UTC)")
	}
	name, err := groupName(g.Name)
	if err != nil {
		return groupRow{}, badImportAt("/group/name", "the group needs a name of at most %d characters that shows", MaxGroupNameLength)
	}
	return groupRow{ID: g.ID, Name: name, CreatedAt: g.CreatedAt.UTC().Truncate(time.Microsecond)}, nil
}

// fileIDs are the file's players: each id's name, and each name key's id.
type fileIDs struct {
	names, keys map[string]string
}

// player reads and checks one of the file's players; ids collects them.
func (ir importReader) player(at, group string, ids fileIDs) (playerRow, error) {
	var p exportPlayer
	if err := ir.value(at, &p); err != nil {
		return playerRow{}, err
	}
	name, err := cleanName(p.Name, scoring.MaxNameLength)
	switch {
	case !validID(p.ID):
		return playerRow{}, badImportAt(at+"/id", "the id %q is not valid", p.ID)
	case ids.names[p.ID] != "":
		return playerRow{}, badImportAt(at+"/id", "the id %q is listed twice", p.ID)
	case err != nil:
		return playerRow{}, badImportAt(at+"/name", "the name %q is not valid: %v", p.Name, nameReason(err))
	case !KeptTime(p.CreatedAt):
		return playerRow{}, badImportAt(at+"/createdAt", "a time must fall in the years 1 to 9999 (UTC)")
	}
	key := nameKey(name)
	if other := ids.keys[key]; other != "" {
		return playerRow{}, badImportAt(at+"/name", "players %q and %q have the same name", other, p.ID)
	}
	ids.names[p.ID], ids.keys[key] = name, p.ID
	return playerRow{ID: p.ID, GroupID: group, Name: name, NameKey: key, CreatedAt: p.CreatedAt.UTC().Truncate(time.Microsecond)}, nil
}

// play reads, checks and scores one play of the file.
func (ir importReader) play(at, group string, version int, ids fileIDs, playIDs *idSet) (importPlay, error) {
	if tok, err := ir.dec.Token(); err != nil || tok != json.Delim('{') {
		return importPlay{}, badImportAt(at, "a play is an object")
	}
	var (
		p    exportPlay
		seen = map[string]bool{}
	)
	for ir.dec.More() {
		key, err := ir.key()
		if err != nil {
			return importPlay{}, badImportAt(at, "the play does not read: %v", err)
		}
		if seen[key] {
			return importPlay{}, badImportAt(at+"/"+escapePointer(key), "%q is in the play twice", key)
		}
		seen[key] = true
		field := at + "/" + escapePointer(key)
		switch key {
		case "id":
			err = ir.value(field, &p.ID)
		case "game":
			err = ir.value(field, &p.Game)
		case "variants":
			err = ir.value(field, &p.Variants)
		case "startedAt":
			err = ir.value(field, &p.StartedAt)
		case "finishedAt":
			err = ir.value(field, &p.FinishedAt)
		case "notes", "location", "startPlayer":
			if version < 2 {
				// Refused like any other field format 1 did not have.
				err = badImportAt(field, "%q is not a field of a play in format %d", key, version)
				break
			}
			switch key {
			case "notes":
				err = ir.value(field, &p.Notes)
			case "location":
				err = ir.value(field, &p.Location)
			default:
				err = ir.value(field, &p.StartPlayer)
			}
		case "standings":
			// Scored again from the boards; only read past.
			var skip json.RawMessage
			err = ir.value(field, &skip)
		case "players":
			// Read one at a time, and no more than a game can have: a
			// play of 80,000 players is refused after the fifth.
			err = ir.array(field, maxPlayers(), func(j int, at string) error {
				var pp exportPlayPlayer
				if err := ir.value(at, &pp); err != nil {
					return err
				}
				p.Players = append(p.Players, pp)
				return nil
			})
		default:
			err = badImportAt(field, "%q is not a field of a play", key)
		}
		if err != nil {
			return importPlay{}, err
		}
	}
	if _, err := ir.dec.Token(); err != nil {
		return importPlay{}, badImportAt(at, "the play does not end: %v", err)
	}
	out, err := importPlayRows(at, group, p, ids)
	if twice := playIDs.add(p.ID); err == nil && twice {
		err = badImportAt(at+"/id", "the play id %q is listed twice", p.ID)
	}
	return out, err
}

// importPlayRows checks a play of the file and scores it again from its
// boards: its rows hold the result of today's rules, whatever the file
// says of totals, ranks and standings.
func importPlayRows(at, group string, p exportPlay, ids fileIDs) (importPlay, error) {
	g, ok := scoring.Lookup(p.Game)
	switch {
	case !validID(p.ID):
		return importPlay{}, badImportAt(at+"/id", "the play id %q is not valid", p.ID)
	case !ok:
		return importPlay{}, badImportAt(at+"/game", "this server does not know the game %q", p.Game)
	case p.FinishedAt.Before(earliestPlay):
		return importPlay{}, badImportAt(at+"/finishedAt", "a play needs the time it finished")
	case !KeptTime(p.FinishedAt):
		return importPlay{}, badImportAt(at+"/finishedAt", "a time must fall in the years 1 to 9999 (UTC)")
	case !KeptTime(p.StartedAt):
		return importPlay{}, badImportAt(at+"/startedAt", "a time must fall in the years 1 to 9999 (UTC)")
	}
	spec := g.Spec()
	if n := len(p.Players); n < spec.MinPlayers || n > spec.MaxPlayers {
		return importPlay{}, badImportAt(at+"/players", "%s is played by %d to %d players, not %d", spec.Name, spec.MinPlayers, spec.MaxPlayers, n)
	}
	finished := p.FinishedAt.UTC().Truncate(time.Microsecond)
	// An unknown start is kept as the finish (a play of no known length),
	// as for a logged play; so is the zero time of files that lost it.
	started := finished
	switch {
	case p.StartedAt.After(p.FinishedAt):
		return importPlay{}, badImportAt(at+"/startedAt", "a play cannot start after it finished")
	case !p.StartedAt.Before(earliestPlay):
		started = p.StartedAt.UTC().Truncate(time.Microsecond)
	}
	req := scoring.Request{Variants: p.Variants, Players: make([]scoring.PlayerInput, len(p.Players))}
	seats := make([]seatRow, len(p.Players))
	inPlay := map[string]bool{}
	for j, pp := range p.Players {
		ptr := at + "/players/" + strconv.Itoa(j)
		name, err := cleanName(pp.NameAsEntered, scoring.MaxNameLength)
		switch {
		case ids.names[pp.PlayerID] == "":
			return importPlay{}, badImportAt(ptr+"/playerId", "player %q is not in the file's players", pp.PlayerID)
		case inPlay[pp.PlayerID]:
			return importPlay{}, badImportAt(ptr+"/playerId", "player %q is listed twice", pp.PlayerID)
		case pp.Seat != j:
			return importPlay{}, badImportAt(ptr+"/seat", "player %d has seat %d", j, pp.Seat)
		case err != nil:
			return importPlay{}, badImportAt(ptr+"/nameAsEntered", "the name %q is not valid: %v", pp.NameAsEntered, nameReason(err))
		}
		inPlay[pp.PlayerID] = true
		if err := scoring.CheckText(pp.Board); err != nil {
			p, _ := scoring.ProblemOf(err)
			fe := p.Errors[0] // a copy keeps the rules' message
			fe.Pointer = ptr + "/board" + fe.Pointer
			return importPlay{}, refusedAt([]scoring.FieldError{fe})
		}
		board, err := boardText(pp.Board)
		if err != nil {
			return importPlay{}, badImportAt(ptr+"/board", "the board is not JSON")
		}
		if board != nil {
			c, _ := compactJSON(json.RawMessage(*board))
			board = &c
		}
		seats[j] = seatRow{Seat: j, Name: name, Board: board}
		req.Players[j] = scoring.PlayerInput{Name: name, Board: pp.Board}
	}
	res, err := scoring.Score(g, req)
	if err != nil {
		return importPlay{}, scoreImportError(at, err)
	}
	if !res.Complete {
		return importPlay{}, badImportAt(at+"/players", "these boards do not make a finished game of %s", spec.Name)
	}
	standings, messages, err := encodeStandings(res)
	if err != nil {
		return importPlay{}, err
	}
	variants, err := encodeVariants(p.Variants)
	if err != nil {
		return importPlay{}, err
	}
	boards, err := encodeBoards(seats)
	if err != nil {
		return importPlay{}, err
	}
	out := importPlay{row: playRow{ID: p.ID, GroupID: group, Game: p.Game, Variants: variants, Boards: boards,
		Standings: standings, Messages: messages, StartedAt: started, FinishedAt: finished}}
	if err := importNotes(at, &out.row, p); err != nil {
		return importPlay{}, err
	}
	for j, r := range res.Results {
		breakdown, err := json.Marshal(nonNilLines(r.Breakdown))
		if err != nil {
			return importPlay{}, err
		}
		out.entries = append(out.entries, playPlayerRow{PlayID: p.ID, Seat: j, PlayerID: p.Players[j].PlayerID,
			NameAsEntered: seats[j].Name, Total: r.Total, Rank: r.Rank, Winner: r.Winner, Breakdown: string(breakdown), Board: seats[j].Board})
	}
	return out, nil
}

// importNotes checks a play's notes, location and start player (format 2)
// and sets them on its row.
func importNotes(at string, row *playRow, p exportPlay) error {
	if _, err := CleanNotes(p.Notes); err != nil {
		return badImportAt(at+"/notes", "the notes cannot be kept: %v", err)
	}
	if _, err := CleanLocation(p.Location); err != nil {
		return badImportAt(at+"/location", "the location cannot be kept: %v", err)
	}
	if sp := p.StartPlayer; sp != nil && (*sp < 0 || *sp >= len(p.Players)) {
		return badImportAt(at+"/startPlayer", "the start player is one of the play's players, 0 to %d, not %d", len(p.Players)-1, *sp)
	}
	return row.setNotes(PlayNotes{Notes: p.Notes, Location: p.Location, StartSeat: p.StartPlayer}, len(p.Players))
}

// scoreImportError points the rules' errors about a play into the file:
// the request's /players/j/name is the play's /players/j/nameAsEntered.
func scoreImportError(at string, err error) error {
	var verr *scoring.ValidationError
	if !errors.As(err, &verr) {
		return err
	}
	var errs []scoring.FieldError
	for _, fe := range verr.Errors {
		// A copy keeps the rules' format, to be written in another
		// language.
		ptr := fe.Pointer
		if rest, ok := strings.CutPrefix(ptr, "/players/"); ok {
			if j, field, ok := strings.Cut(rest, "/"); ok && field == "name" {
				ptr = "/players/" + j + "/nameAsEntered"
			}
		}
		fe.Pointer, fe.Pointers = at+ptr, nil
		errs = append(errs, fe)
	}
	return refusedAt(errs)
}

// checkImport reads the file whole, checking it and scoring every play,
// and refuses it if its player or play ids are another group's on this
// server (a file imported before under another group id, or made by hand
// from another group's export). A file that does not read is refused for
// that first, as if its ids were checked after.
func (s *Store) checkImport(ctx context.Context, open func() (io.ReadCloser, error), progress func(ImportProgress)) (*importFile, error) {
	r, err := open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var (
		taken error
		chunk []string
		group string
	)
	checkPlays := func() error {
		if taken == nil && len(chunk) > 0 {
			if err := s.idsTaken(ctx, "plays", "play", chunk, group); err != nil {
				if !errors.As(err, new(*ConflictError)) {
					return err
				}
				taken = err
			}
		}
		chunk = chunk[:0]
		return nil
	}
	read := 0
	f, err := scanImport(r, true, func(p importPlay) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		chunk, group = append(chunk, p.row.ID), p.row.GroupID
		if len(chunk) < importRowsPerTx {
			return nil
		}
		read += len(chunk)
		progress(ImportProgress{Stage: "checking", Plays: read})
		return checkPlays()
	})
	if err != nil {
		return nil, err
	}
	if err := checkPlays(); err != nil {
		return nil, err
	}
	progress(ImportProgress{Stage: "checking", Plays: f.plays, Total: f.plays})
	players := make([]string, len(f.players))
	for i, p := range f.players {
		players[i] = p.ID
	}
	for chunk := range slices.Chunk(players, importRowsPerTx) {
		if err := s.idsTaken(ctx, "players", "player", chunk, f.group.ID); err != nil {
			return nil, err
		}
	}
	if taken != nil {
		return nil, taken
	}
	return f, nil
}

// idsTaken is a *ConflictError naming the first of ids that table holds
// in another group than group.
func (s *Store) idsTaken(ctx context.Context, table, what string, ids []string, group string) error {
	var taken []struct{ ID, GroupID string }
	err := s.rdb.WithContext(ctx).Table(table).Select("id", "group_id").
		Where("id IN ? AND group_id <> ?", ids, group).Limit(1).Scan(&taken).Error
	if err != nil {
		return translate(err)
	}
	if len(taken) > 0 {
		return conflictf("", "the file's %s id %q belongs to another group on this server: "+
			"this history was imported here before, under another group id; export that group instead, or import the file into a fresh server", scoring.Word("api.word.", what), taken[0].ID)
	}
	return nil
}

// writeImport writes a checked file in short transactions while the
// group is hidden, reading it again a batch of plays at a time, then
// shows it; cut short, it undoes what it wrote.
func (s *Store) writeImport(ctx context.Context, f *importFile, open func() (io.ReadCloser, error), progress func(ImportProgress), reply Reply[*Group], ans *IdempotentAnswer) (err error) {
	created, err := s.beginImport(ctx, f.group)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			// The request may be gone: undo in a context of our own.
			undo, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			if uerr := s.clearImport(undo, f.group.ID, created); uerr != nil {
				err = fmt.Errorf("%w (and undoing it failed: %v; the next start clears it)", err, uerr)
			}
		}
	}()
	batch := func(fn func(tx *gorm.DB) error) error {
		return s.importBatch(ctx, f.group.ID, fn)
	}
	for chunk := range slices.Chunk(f.players, importPlayersPerTx) {
		if err := batch(func(tx *gorm.DB) error { return tx.Create(&chunk).Error }); err != nil {
			return err
		}
	}
	r, err := open()
	if err != nil {
		return err
	}
	defer r.Close()
	var (
		rows    []playRow
		entries []playPlayerRow
		written int
	)
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		err := batch(func(tx *gorm.DB) error {
			if err := tx.Create(&rows).Error; err != nil {
				return err
			}
			if err := tx.CreateInBatches(&entries, importRowsPerTx).Error; err != nil {
				return err
			}
			return importFigures(tx, rows, entries)
		})
		written += len(rows)
		rows, entries = rows[:0], entries[:0]
		progress(ImportProgress{Stage: "writing", Plays: written, Total: f.plays})
		return err
	}
	// The file was checked whole, its play ids included: this pass does
	// not keep them again (a file changed in between still cannot write a
	// play twice: the plays' primary key refuses it, and the import is
	// undone).
	again, err := scanImport(r, false, func(p importPlay) error {
		rows = append(rows, p.row)
		entries = append(entries, p.entries...)
		if len(rows) < importPlaysPerTx {
			return nil
		}
		return flush()
	})
	if err == nil {
		err = flush()
	}
	if err == nil && (again.group.ID != f.group.ID || again.plays != f.plays) {
		err = errors.New("models: the import file changed while it was read")
	}
	if err != nil {
		return err
	}
	if err := s.importAggregates(ctx, f, progress); err != nil {
		return err
	}
	err = s.transact(ctx, func(tx *gorm.DB) error {
		err := tx.Model(&groupRow{}).Where("id = ?", f.group.ID).
			Updates(map[string]any{"name": f.group.Name, "created_at": f.group.CreatedAt, "importing_until": nil}).Error
		if err != nil {
			return err
		}
		*ans, err = answer(ctx, tx, reply, f.group.group())
		return err
	})
	return err
}

// importFigures counts a batch of imported plays into the score counts and
// head-to-head records.
func importFigures(tx *gorm.DB, plays []playRow, entries []playPlayerRow) error {
	f := newFigures()
	games := make(map[string]playRow, len(plays))
	for _, p := range plays {
		games[p.ID] = p
	}
	byPlay := map[string][]seatedResult{}
	for _, e := range entries {
		byPlay[e.PlayID] = append(byPlay[e.PlayID], seatedResult{PlayerID: e.PlayerID, Total: e.Total, Rank: e.Rank, Winner: e.Winner})
	}
	for id, seated := range byPlay {
		p := games[id]
		f.addPlay(p.GroupID, p.Game, seated, 1)
	}
	return f.write(tx)
}

// importAggregates folds the plays just written, in finish order, into
// the leaderboards and rating histories of each game: what rebuildGroup
// computes, read back a page of plays at a time and written as it goes,
// so a history of any length takes the memory of a page.
func (s *Store) importAggregates(ctx context.Context, f *importFile, progress func(ImportProgress)) error {
	batch := func(fn func(tx *gorm.DB) error) error {
		return s.importBatch(ctx, f.group.ID, fn)
	}
	rated := 0
	for _, game := range slices.Sorted(maps.Keys(f.games)) {
		a := newAggregator(f.group.ID, game)
		var after *playRow
		for {
			var page []playRow
			var rows []playPlayerRow
			err := s.rdb.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
				q := tx.Select("id", "finished_at").Where("group_id = ? AND game = ?", f.group.ID, game)
				if after != nil {
					q = q.Where("(finished_at, id) > (?, ?)", after.FinishedAt, after.ID)
				}
				if err := q.Order("finished_at, id").Limit(importRowsPerTx).Find(&page).Error; err != nil || len(page) == 0 {
					return err
				}
				ids := make([]string, len(page))
				for i, p := range page {
					ids[i] = p.ID
				}
				return tx.Select("play_id", "player_id", "total", "rank", "winner").Where("play_id IN ?", ids).
					Order("play_id, seat").Find(&rows).Error
			})
			if err != nil {
				return translate(err)
			}
			if len(page) == 0 {
				break
			}
			after = &page[len(page)-1]
			seated := map[string][]seatedResult{}
			for _, r := range rows {
				seated[r.PlayID] = append(seated[r.PlayID], seatedResult{PlayerID: r.PlayerID, Total: r.Total, Rank: r.Rank, Winner: r.Winner})
			}
			for _, p := range page {
				a.add(p.ID, p.FinishedAt.UTC(), seated[p.ID])
			}
			for chunk := range slices.Chunk(a.history, importRowsPerTx) {
				if err := batch(func(tx *gorm.DB) error { return tx.Create(&chunk).Error }); err != nil {
					return err
				}
			}
			a.history = a.history[:0]
			rated += len(page)
			progress(ImportProgress{Stage: "rating", Plays: rated, Total: f.plays})
		}
		stats := slices.SortedFunc(maps.Values(a.stats), func(x, y *statsRow) int { return strings.Compare(x.PlayerID, y.PlayerID) })
		for chunk := range slices.Chunk(stats, importRowsPerTx) {
			if err := batch(func(tx *gorm.DB) error { return tx.Create(&chunk).Error }); err != nil {
				return err
			}
		}
	}
	return nil
}

// beginImport marks the group as being imported, creating it, or taking
// an existing group that has no history yet; it says whether it created
// the group. A group with a history is a *ConflictError, and so is one
// that another import is writing. What an abandoned import left is
// cleared first.
func (s *Store) beginImport(ctx context.Context, g groupRow) (created bool, err error) {
	var stale bool
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		now := s.now()
		var existing []groupRow
		if err := tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate}).Where("id = ?", g.ID).Limit(1).Find(&existing).Error; err != nil {
			return err
		}
		if len(existing) == 0 {
			created = true
			until := now.Add(importLease)
			row := g
			row.ImportingUntil = &until
			return tx.Create(&row).Error
		}
		if at := existing[0].ImportingUntil; at != nil {
			if at.After(now) {
				return conflictf("", "this group is being imported right now; wait for that import to end")
			}
			stale = true
			return nil
		}
		for _, m := range []any{&playerRow{}, &playRow{}} {
			var n int64
			if err := tx.Model(m).Where("group_id = ?", g.ID).Count(&n).Error; err != nil {
				return err
			}
			if n > 0 {
				return conflictf("", "the group %q is already on this server with its own history", existing[0].Name)
			}
		}
		return tx.Model(&groupRow{}).Where("id = ?", g.ID).Update("importing_until", now.Add(importLease)).Error
	})
	if err != nil {
		return false, translate(err)
	}
	if stale {
		if err := s.clearImport(ctx, g.ID, false); err != nil {
			return false, err
		}
		return s.beginImport(ctx, g)
	}
	return created, nil
}

// importBatch runs fn in a transaction that also renews the import's
// lease; a lease lost to another import ends this one.
func (s *Store) importBatch(ctx context.Context, group string, fn func(tx *gorm.DB) error) error {
	err := s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&groupRow{}).Where("id = ? AND importing_until IS NOT NULL", group).Update("importing_until", s.now().Add(importLease))
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected != 1 {
			return conflictf("", "the import was taken over by another import of this group")
		}
		return fn(tx)
	})
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		// checkImportIDs ran before; another import took an id since.
		return conflictf("", "the file's player or play ids were just taken by another import of the same history "+
			"under another group id; export that group instead, or import the file into a fresh server")
	}
	if err == nil && s.importBatchDone != nil {
		s.importBatchDone()
	}
	return translate(err)
}

// clearImport deletes what an import of group wrote, a batch at a time,
// and then the group if the import created it, else its mark. Deleting a
// play deletes its player rows and rating points, and deleting a player
// their leaderboard lines (ON DELETE CASCADE).
func (s *Store) clearImport(ctx context.Context, group string, created bool) error {
	for _, q := range []string{
		"DELETE FROM plays WHERE id IN (SELECT id FROM plays WHERE group_id = ? LIMIT 100)",
		"DELETE FROM players WHERE id IN (SELECT id FROM players WHERE group_id = ? LIMIT 500)",
	} {
		for {
			res := s.db.WithContext(ctx).Exec(q, group)
			if res.Error != nil {
				return translate(res.Error)
			}
			if res.RowsAffected == 0 {
				break
			}
		}
	}
	var err error
	if created {
		err = s.db.WithContext(ctx).Delete(&groupRow{}, "id = ? AND importing_until IS NOT NULL", group).Error
	} else {
		err = s.db.WithContext(ctx).Model(&groupRow{}).Where("id = ?", group).Update("importing_until", nil).Error
	}
	return translate(err)
}

// sweepImports clears what imports left when their server stopped before
// they ended: their lease ran out. A server starting does it; the group
// stays, empty, and the next import of its file takes it.
func (s *Store) sweepImports(ctx context.Context) error {
	var groups []string
	if err := s.db.WithContext(ctx).Model(&groupRow{}).Where("importing_until < ?", s.now()).Pluck("id", &groups).Error; err != nil {
		return translate(err)
	}
	for _, g := range groups {
		if err := s.clearImport(ctx, g, false); err != nil {
			return err
		}
	}
	return nil
}

// KeptTime reports whether a time is one the store keeps: its year, in
// UTC after any offset, from 1 to 9999. Every way in checks it (a logged
// play's times, an import's), since a database or a JSON encoder fails on
// a time past that, and fails on every later read of it.
func KeptTime(t time.Time) bool {
	y := t.UTC().Year()
	return y >= 1 && y <= 9999
}

// earliestPlay is the earliest time a play may finish; an imported start
// before it is taken as unknown (files of an older server kept the zero
// time).
var earliestPlay = time.Date(1970, time.January, 1, 0, 0, 0, 0, time.UTC)

// escapePointer escapes a JSON Pointer token (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}

// idSet is the set of play ids a file has listed so far, to refuse one
// listed twice. It keeps each id as two 64-bit hashes under independent
// random seeds rather than as its string: 16 bytes an id, and no
// allocation, where a million string keys took about 70 MB of the
// import's peak. Two different ids share both hashes with a chance of
// about n²/2¹²⁹ (10⁻²⁷ for a million plays), far below any disk's error
// rate; such a pair would be refused as "listed twice", never written
// wrong. A nil set checks nothing.
type idSet struct {
	seeds [2]maphash.Seed
	seen  map[[2]uint64]struct{}
}

func newIDSet() *idSet {
	return &idSet{seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}, seen: map[[2]uint64]struct{}{}}
}

// add records id and says whether it was there already.
func (s *idSet) add(id string) (twice bool) {
	if s == nil {
		return false
	}
	k := [2]uint64{maphash.String(s.seeds[0], id), maphash.String(s.seeds[1], id)}
	if _, twice = s.seen[k]; !twice {
		s.seen[k] = struct{}{}
	}
	return twice
}

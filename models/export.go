package models

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// The group export format. A file names its format and version first, so
// that a server can refuse a file it would misread, with a message that
// says why, instead of importing half of it.
const (
	ExportFormat        = "insectscore-group"
	ExportFormatVersion = 1
)

// ErrBadImport means an import file is not one this server can read; the
// *ImportError wrapping it says why in words for the user.
var ErrBadImport = errors.New("models: bad import file")

// ImportError is an ErrBadImport with the reason.
type ImportError struct {
	Reason string
}

func (e *ImportError) Error() string { return e.Reason }

// Unwrap makes errors.Is(err, ErrBadImport) hold.
func (e *ImportError) Unwrap() error { return ErrBadImport }

func badImport(format string, args ...any) error {
	return &ImportError{Reason: fmt.Sprintf(format, args...)}
}

// exportFile is the JSON of a group export. Its field order is the
// file's: keep it, and add fields only with a new format version.
type exportFile struct {
	Format        string         `json:"format"`
	FormatVersion int            `json:"formatVersion"`
	Group         exportGroup    `json:"group"`
	Players       []exportPlayer `json:"players"`
	Plays         []exportPlay   `json:"plays"`
}

type exportGroup struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

type exportPlayer struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

type exportPlay struct {
	ID         string             `json:"id"`
	Game       string             `json:"game"`
	Variants   map[string]int     `json:"variants"`
	StartedAt  time.Time          `json:"startedAt"`
	FinishedAt time.Time          `json:"finishedAt"`
	Standings  json.RawMessage    `json:"standings"`
	Players    []exportPlayPlayer `json:"players"`
}

type exportPlayPlayer struct {
	Seat          int             `json:"seat"`
	PlayerID      string          `json:"playerId"`
	NameAsEntered string          `json:"nameAsEntered"`
	Total         int             `json:"total"`
	Rank          int             `json:"rank"`
	Winner        bool            `json:"winner"`
	Breakdown     json.RawMessage `json:"breakdown"`
	Board         json.RawMessage `json:"board"`
}

// ExportGroup writes a group's history as JSON: the group, its players
// (by id) and its plays (by finish time, then id) with every player's
// row. Aggregates and ratings are left out: they follow from the plays.
// The output depends on the data only (sorted, times in UTC), so
// exporting what ImportGroup read gives the same bytes.
func (s *Store) ExportGroup(ctx context.Context, group string) ([]byte, error) {
	f := exportFile{Format: ExportFormat, FormatVersion: ExportFormatVersion, Players: []exportPlayer{}, Plays: []exportPlay{}}
	err := s.read(ctx, func(tx *gorm.DB) error {
		var g groupRow
		if err := tx.Where("id = ?", group).Take(&g).Error; err != nil {
			return err
		}
		f.Group = exportGroup{ID: g.ID, Name: g.Name, CreatedAt: g.CreatedAt.UTC()}
		var players []playerRow
		if err := tx.Where("group_id = ?", group).Order("id").Find(&players).Error; err != nil {
			return err
		}
		for _, p := range players {
			f.Players = append(f.Players, exportPlayer{ID: p.ID, Name: p.Name, CreatedAt: p.CreatedAt.UTC()})
		}
		var plays []playRow
		if err := tx.Where("group_id = ?", group).Order("finished_at, id").Find(&plays).Error; err != nil {
			return err
		}
		index := make(map[string]int, len(plays))
		for i, p := range plays {
			ep := exportPlay{ID: p.ID, Game: p.Game, Variants: map[string]int{}, StartedAt: p.StartedAt.UTC(),
				FinishedAt: p.FinishedAt.UTC(), Standings: json.RawMessage(p.Standings), Players: []exportPlayPlayer{}}
			if err := json.Unmarshal([]byte(p.Variants), &ep.Variants); err != nil {
				return fmt.Errorf("models: variants of play %s: %w", p.ID, err)
			}
			f.Plays = append(f.Plays, ep)
			index[p.ID] = i
		}
		var rows []playPlayerRow
		err := tx.Table("play_players AS pp").Select("pp.*").Joins("JOIN plays p ON p.id = pp.play_id").
			Where("p.group_id = ?", group).Order("pp.play_id, pp.seat").Scan(&rows).Error
		if err != nil {
			return err
		}
		for _, r := range rows {
			board := json.RawMessage("null")
			if r.Board != nil {
				board = json.RawMessage(*r.Board)
			}
			ep := &f.Plays[index[r.PlayID]]
			ep.Players = append(ep.Players, exportPlayPlayer{Seat: r.Seat, PlayerID: r.PlayerID, NameAsEntered: r.NameAsEntered,
				Total: r.Total, Rank: r.Rank, Winner: r.Winner, Breakdown: json.RawMessage(r.Breakdown), Board: board})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	// Names and boards are data, not HTML: keep "<" and "&" as typed.
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// idPattern is what ids in an import file may look like: what this
// server draws, "default", and nothing that needs escaping in a URL.
var idPattern = regexp.MustCompile(`^[a-z0-9]{1,64}$`)

// ImportGroup reads a group written by ExportGroup into this server and
// recomputes its leaderboards. A file of a newer format version is
// refused with a message saying so, and any file this server cannot read
// is an *ImportError. A group id that is already here with players or
// plays is a *ConflictError; an empty one (the default group of a fresh
// server, above all) takes the file's name and history, so a self-hosted
// server moves to another one whole.
func (s *Store) ImportGroup(ctx context.Context, data []byte) (*Group, error) {
	var head struct {
		Format        string `json:"format"`
		FormatVersion int    `json:"formatVersion"`
	}
	if err := json.Unmarshal(data, &head); err != nil || head.Format != ExportFormat {
		return nil, badImport("this is not an insectscore group export")
	}
	if head.FormatVersion > ExportFormatVersion {
		return nil, badImport("this file was written by a newer insectscore (format %d); this server reads format %d", head.FormatVersion, ExportFormatVersion)
	}
	if head.FormatVersion < 1 {
		return nil, badImport("this file has no valid format version")
	}
	var f exportFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, badImport("the file does not read as format %d: %v", ExportFormatVersion, err)
	}
	players, plays, entries, err := importRows(f)
	if err != nil {
		return nil, err
	}
	g := groupRow{ID: f.Group.ID, Name: f.Group.Name, CreatedAt: f.Group.CreatedAt.UTC().Truncate(time.Microsecond)}
	err = s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := adoptGroup(tx, g); err != nil {
			return err
		}
		if len(players) > 0 {
			if err := tx.CreateInBatches(players, rebuildBatch).Error; err != nil {
				return err
			}
		}
		if len(plays) > 0 {
			if err := tx.CreateInBatches(plays, rebuildBatch).Error; err != nil {
				return err
			}
		}
		if len(entries) > 0 {
			if err := tx.CreateInBatches(entries, rebuildBatch).Error; err != nil {
				return err
			}
		}
		return rebuildGroup(tx, g.ID)
	})
	if err != nil {
		return nil, translate(err)
	}
	return g.group(), nil
}

// adoptGroup creates the imported group, or fills an existing one that
// has no history yet.
func adoptGroup(tx *gorm.DB, g groupRow) error {
	var existing []groupRow
	if err := tx.Where("id = ?", g.ID).Limit(1).Find(&existing).Error; err != nil {
		return err
	}
	if len(existing) == 0 {
		return tx.Create(&g).Error
	}
	if err := lockGroup(tx, g.ID); err != nil {
		return err
	}
	for _, m := range []any{&playerRow{}, &playRow{}} {
		var n int64
		if err := tx.Model(m).Where("group_id = ?", g.ID).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return &ConflictError{Reason: fmt.Sprintf("the group %q is already on this server with its own history", existing[0].Name)}
		}
	}
	return tx.Model(&groupRow{}).Where("id = ?", g.ID).Updates(map[string]any{"name": g.Name, "created_at": g.CreatedAt}).Error
}

// importRows checks an import file and turns it into rows. It checks what
// the database would not, or would only report without saying where.
func importRows(f exportFile) ([]playerRow, []playRow, []playPlayerRow, error) {
	if !idPattern.MatchString(f.Group.ID) {
		return nil, nil, nil, badImport("the group id %q is not valid", f.Group.ID)
	}
	if _, err := groupName(f.Group.Name); err != nil || f.Group.Name != strings.TrimSpace(f.Group.Name) {
		return nil, nil, nil, badImport("the group needs a name of at most %d characters", MaxGroupNameLength)
	}
	players := make([]playerRow, len(f.Players))
	ids, keys := map[string]bool{}, map[string]string{}
	for i, p := range f.Players {
		key := scoring.NameKey(p.Name)
		switch {
		case !idPattern.MatchString(p.ID):
			return nil, nil, nil, badImport("player %d: the id %q is not valid", i, p.ID)
		case ids[p.ID]:
			return nil, nil, nil, badImport("player %d: the id %q is listed twice", i, p.ID)
		case checkPlayerName(p.Name) != nil || p.Name != strings.TrimSpace(p.Name):
			return nil, nil, nil, badImport("player %d: the name %q is not valid", i, p.Name)
		case keys[key] != "":
			return nil, nil, nil, badImport("players %q and %q have the same name", keys[key], p.ID)
		}
		ids[p.ID], keys[key] = true, p.ID
		players[i] = playerRow{ID: p.ID, GroupID: f.Group.ID, Name: p.Name, NameKey: key, CreatedAt: p.CreatedAt.UTC().Truncate(time.Microsecond)}
	}
	plays := make([]playRow, len(f.Plays))
	var entries []playPlayerRow
	playIDs := map[string]bool{}
	for i, p := range f.Plays {
		where := fmt.Sprintf("play %d (%s)", i, p.ID)
		switch {
		case !idPattern.MatchString(p.ID) || playIDs[p.ID]:
			return nil, nil, nil, badImport("%s: the id is not valid or listed twice", where)
		case func() bool { _, ok := scoring.Lookup(p.Game); return !ok }():
			return nil, nil, nil, badImport("%s: this server does not know the game %q", where, p.Game)
		case p.FinishedAt.IsZero() || p.StartedAt.After(p.FinishedAt):
			return nil, nil, nil, badImport("%s: the start and finish times are not valid", where)
		case len(p.Players) == 0:
			return nil, nil, nil, badImport("%s: a play needs at least one player", where)
		}
		playIDs[p.ID] = true
		standings, err := compactJSON(p.Standings)
		if err != nil || !strings.HasPrefix(standings, "{") {
			return nil, nil, nil, badImport("%s: the standings are not a JSON object", where)
		}
		variants, err := encodeVariants(p.Variants)
		if err != nil {
			return nil, nil, nil, err
		}
		seats := make([]seatRow, len(p.Players))
		inPlay := map[string]bool{}
		for j, pp := range p.Players {
			switch {
			case !ids[pp.PlayerID]:
				return nil, nil, nil, badImport("%s: player %d is not in the file's players", where, j)
			case inPlay[pp.PlayerID]:
				return nil, nil, nil, badImport("%s: player %q is listed twice", where, pp.PlayerID)
			case pp.Seat != j:
				return nil, nil, nil, badImport("%s: player %d has seat %d", where, j, pp.Seat)
			case strings.TrimSpace(pp.NameAsEntered) == "":
				return nil, nil, nil, badImport("%s: player %d has no name", where, j)
			}
			inPlay[pp.PlayerID] = true
			breakdown, err := compactJSON(pp.Breakdown)
			if err != nil || !strings.HasPrefix(breakdown, "[") {
				return nil, nil, nil, badImport("%s: the breakdown of player %d is not a JSON array", where, j)
			}
			board, err := boardText(pp.Board)
			if err != nil {
				return nil, nil, nil, badImport("%s: the board of player %d is not JSON", where, j)
			}
			if board != nil {
				c, _ := compactJSON(json.RawMessage(*board))
				board = &c
			}
			seats[j] = seatRow{Seat: j, Name: pp.NameAsEntered, Board: board}
			entries = append(entries, playPlayerRow{PlayID: p.ID, Seat: j, PlayerID: pp.PlayerID, NameAsEntered: pp.NameAsEntered,
				Total: pp.Total, Rank: pp.Rank, Winner: pp.Winner, Breakdown: breakdown, Board: board})
		}
		boards, err := encodeBoards(seats)
		if err != nil {
			return nil, nil, nil, err
		}
		plays[i] = playRow{ID: p.ID, GroupID: f.Group.ID, Game: p.Game, Variants: variants, Boards: boards, Standings: standings,
			StartedAt: p.StartedAt.UTC().Truncate(time.Microsecond), FinishedAt: p.FinishedAt.UTC().Truncate(time.Microsecond)}
	}
	return players, plays, entries, nil
}

// compactJSON is raw JSON without insignificant space, as stored.
func compactJSON(raw json.RawMessage) (string, error) {
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return "", err
	}
	return buf.String(), nil
}

// csvPage is how many plays ExportPlaysCSV reads per transaction: a slow
// client then never holds SQLite's one connection for long.
const csvPage = 500

// ExportPlaysCSV writes the group's plays as CSV, one row per player per
// play, oldest play first: for spreadsheets.
func (s *Store) ExportPlaysCSV(ctx context.Context, group string, w io.Writer) error {
	if err := s.read(ctx, func(tx *gorm.DB) error { return groupExists(tx, group) }); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"play_id", "finished_at", "game", "player", "total", "rank", "winner"}); err != nil {
		return err
	}
	type csvRow struct {
		PlayID     string
		FinishedAt time.Time
		Game       string
		Player     string
		Total      int
		Rank       int
		Winner     bool
	}
	var after *playRow
	for {
		var page []playRow
		var rows []csvRow
		err := s.read(ctx, func(tx *gorm.DB) error {
			q := tx.Select("id", "finished_at").Where("group_id = ?", group)
			if after != nil {
				q = q.Where("(finished_at > ? OR (finished_at = ? AND id > ?))", after.FinishedAt, after.FinishedAt, after.ID)
			}
			if err := q.Order("finished_at, id").Limit(csvPage).Find(&page).Error; err != nil || len(page) == 0 {
				return err
			}
			ids := make([]string, len(page))
			for i, p := range page {
				ids[i] = p.ID
			}
			return tx.Table("plays AS p").
				Select("p.id AS play_id, p.finished_at, p.game, players.name AS player, pp.total, pp.rank, pp.winner").
				Joins("JOIN play_players pp ON pp.play_id = p.id").
				Joins("JOIN players ON players.id = pp.player_id").
				Where("p.id IN ?", ids).Order("p.finished_at, p.id, pp.seat").Scan(&rows).Error
		})
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		after = &page[len(page)-1]
		for _, r := range rows {
			rec := []string{r.PlayID, r.FinishedAt.UTC().Format(time.RFC3339Nano), r.Game, spreadsheetSafe(r.Player),
				strconv.Itoa(r.Total), strconv.Itoa(r.Rank), strconv.FormatBool(r.Winner)}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	}
	return nil
}

// spreadsheetSafe keeps a name from being run as a formula by the
// spreadsheet that opens the file (CSV injection): one that starts like
// a formula gets a leading apostrophe, which spreadsheets hide.
func spreadsheetSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

package models

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// The group export format. A file names its format and version first, so
// that a server can refuse a file it would misread, with a message that
// says why, instead of importing half of it. Version 2 added each play's
// notes, location and startPlayer; files of version 1 still import (their
// plays have none).
const (
	ExportFormat        = "insectscore-group"
	ExportFormatVersion = 2
)

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
	// Since version 2: "" and null when not given.
	Notes       string `json:"notes"`
	Location    string `json:"location"`
	StartPlayer *int   `json:"startPlayer"`
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
		if err := groupExists(tx, group); err != nil {
			return err
		}
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
				FinishedAt: p.FinishedAt.UTC(), Standings: json.RawMessage(p.Standings), Players: []exportPlayPlayer{},
				Notes: p.Notes, Location: p.Location, StartPlayer: p.StartSeat}
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
// play, oldest play first: for spreadsheets. A play's location and notes
// are on each of its rows; start_player is true on the row of the player
// who started, false on the others, and empty on every row of a play whose
// start player is not known.
func (s *Store) ExportPlaysCSV(ctx context.Context, group string, w io.Writer) error {
	if err := s.read(ctx, func(tx *gorm.DB) error { return groupExists(tx, group) }); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"play_id", "finished_at", "game", "player", "total", "rank", "winner", "location", "notes", "start_player"}); err != nil {
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
		Seat       int
		Location   string
		Notes      string
		StartSeat  *int
	}
	var after *playRow
	for {
		var page []playRow
		var rows []csvRow
		err := s.read(ctx, func(tx *gorm.DB) error {
			q := tx.Select("id", "finished_at").Where("group_id = ?", group)
			if after != nil {
				q = q.Where("(finished_at, id) > (?, ?)", after.FinishedAt, after.ID)
			}
			if err := q.Order("finished_at, id").Limit(csvPage).Find(&page).Error; err != nil || len(page) == 0 {
				return err
			}
			ids := make([]string, len(page))
			for i, p := range page {
				ids[i] = p.ID
			}
			return tx.Table("plays AS p").
				Select("p.id AS play_id, p.finished_at, p.game, players.name AS player, pp.total, pp.rank, pp.winner, pp.seat, p.location, p.notes, p.start_seat").
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
				strconv.Itoa(r.Total), strconv.Itoa(r.Rank), strconv.FormatBool(r.Winner),
				spreadsheetSafe(r.Location), spreadsheetSafe(r.Notes), ""}
			if r.StartSeat != nil {
				rec[len(rec)-1] = strconv.FormatBool(*r.StartSeat == r.Seat)
			}
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

// spreadsheetSafe keeps a name, a location or notes from being run as a formula by the
// spreadsheet that opens the file (CSV injection): one that starts like
// a formula gets a leading apostrophe, which spreadsheets hide.
func spreadsheetSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

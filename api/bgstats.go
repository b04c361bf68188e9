package api

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"insectscore/scoring"
)

// BG Stats takes a play as one url-encoded JSON object on its createPlay
// link ("Push plays to BG Stats from other apps or websites", in BG Stats'
// support pages): opened on a phone with BG Stats installed, the app shows
// its import dialog, matches the game and players (by sourceGameId and
// sourcePlayerId, remembered after the first time) and saves the play.
// Nothing leaves the server: the link is all there is.
const bgStatsURL = "https://app.bgstatsapp.com/createPlay.html"

// bgStatsSource is the sourceName BG Stats shows the play as coming from.
const bgStatsSource = "insectscore"

// bgStatsDate is the layout of playDate: "2020-10-23 19:16:58", in UTC.
const bgStatsDate = "2006-01-02 15:04:05"

// bgStatsPlay is the createPlay JSON, its fields in the documented order.
// Optional fields are left out when the play does not know them.
type bgStatsPlay struct {
	SourceName   string          `json:"sourceName"`
	SourcePlayID string          `json:"sourcePlayId"`
	PlayDate     string          `json:"playDate"`
	DurationMin  *int64          `json:"durationMin,omitempty"`
	Location     string          `json:"location,omitempty"`
	Comments     string          `json:"comments,omitempty"`
	Game         bgStatsGame     `json:"game"`
	Players      []bgStatsPlayer `json:"players"`
}

type bgStatsGame struct {
	Name         string `json:"name"`
	SourceGameID string `json:"sourceGameId"`
	HighestWins  bool   `json:"highestWins"`
	NoPoints     bool   `json:"noPoints"`
}

// bgStatsPlayer is one player. In a game won without points (its Info
// says WinsOnly) the score is still the player's total, which BG Stats
// keeps but does not rank by.
type bgStatsPlayer struct {
	Name           string `json:"name"`
	SourcePlayerID string `json:"sourcePlayerId"`
	Score          int    `json:"score"`
	Rank           int    `json:"rank"`
	Winner         bool   `json:"winner"`
	StartPlayer    bool   `json:"startPlayer"`
}

// playLinks are the links a play's JSON carries.
type playLinks struct {
	// BGStats hands the play to the BG Stats app.
	BGStats string `json:"bgStats"`
}

// bgStatsPlayFor is the createPlay JSON of a play. started is the zero
// time when the play's start is unknown; startSeat nil when who started
// is.
func bgStatsPlayFor(id, game string, started, finished time.Time, location, notes string, startSeat *int, results []playResult) bgStatsPlay {
	// A play in BG Stats is dated when it began, and lasts durationMin.
	at := finished
	info, _ := scoring.InfoOf(game)
	out := bgStatsPlay{SourceName: bgStatsSource, SourcePlayID: id, Location: location, Comments: notes,
		Game:    bgStatsGame{Name: info.Name, SourceGameID: game, HighestWins: true, NoPoints: info.WinsOnly},
		Players: make([]bgStatsPlayer, len(results))}
	if !started.IsZero() && finished.After(started) {
		at = started
		mins := int64(finished.Sub(started).Round(time.Minute) / time.Minute)
		out.DurationMin = &mins
	}
	out.PlayDate = at.UTC().Format(bgStatsDate)
	for i, r := range results {
		out.Players[i] = bgStatsPlayer{Name: r.Player, SourcePlayerID: r.PlayerID, Score: r.Total, Rank: r.Rank,
			Winner: r.Winner, StartPlayer: startSeat != nil && *startSeat == i}
	}
	return out
}

// bgStatsLink is the createPlay link of a play: its JSON, url-encoded as
// the data parameter. Spaces are %20, not "+", which a page reading the
// parameter with decodeURIComponent would keep as a plus.
func bgStatsLink(p bgStatsPlay) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return "" // strings, numbers and booleans only: cannot happen
	}
	data := strings.TrimSuffix(buf.String(), "\n")
	return bgStatsURL + "?data=" + strings.ReplaceAll(url.QueryEscape(data), "+", "%20")
}

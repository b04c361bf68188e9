package models

import (
	"encoding/json"
	"fmt"
	"log/slog"

	"gorm.io/gorm"

	"insectscore/scoring"
)

// migrateMessages is migration 16: a play's warnings and tie sentence are
// kept by key and arguments (the messages column, encodeStandings) so
// that they are written in the client's language, never by reading their
// English back. A play stored before has them in English only. Its boards
// are stored with it, so they are scored again by today's rules, and each
// message the scoring makes is kept where it writes exactly the English
// stored at the same place (the same player's warning at the same index
// and pointer, or the tie sentence). One that does not (the rules changed
// since, or the play was stored by an older rule) stays English text, as
// does every sentence of a play whose boards no longer score; how many is
// logged. Nothing is parsed: a sentence is either written again, or left.
func migrateMessages(tx *gorm.DB) error {
	if err := tx.Exec(`ALTER TABLE plays ADD COLUMN messages TEXT`).Error; err != nil {
		return err
	}
	n, err := keyPlayMessages(tx)
	if err != nil {
		return err
	}
	if n.keyed+n.left > 0 {
		slog.Default().Info("migration 16: stored sentences by key", "plays", n.plays, "keyed", n.keyed, "leftAsText", n.left)
	}
	return nil
}

// keyedCounts says what keyPlayMessages did: plays given messages, the
// sentences they keep by key, and the sentences left as English text.
type keyedCounts struct {
	plays, keyed, left int
}

// keyPlayMessages gives every play without messages the messages of its
// warnings and tie sentence (migrateMessages).
func keyPlayMessages(tx *gorm.DB) (keyedCounts, error) {
	var n keyedCounts
	// In pages by id, so that a long history is not read at once.
	for after := ""; ; {
		var plays []storedPlay
		err := tx.Raw("SELECT id, game, variants, boards, standings FROM plays WHERE messages IS NULL AND id > ? ORDER BY id LIMIT ?",
			after, keyPlaysPerPage).Scan(&plays).Error
		if err != nil || len(plays) == 0 {
			return n, err
		}
		after = plays[len(plays)-1].ID
		if err := keyPlays(tx, plays, &n); err != nil {
			return n, err
		}
	}
}

// keyPlaysPerPage is how many plays keyPlayMessages reads at a time.
const keyPlaysPerPage = 500

// storedPlay is what keyPlays reads of a play.
type storedPlay struct {
	ID, Game, Variants, Boards, Standings string
}

// keyPlays gives plays their messages, counting in n.
func keyPlays(tx *gorm.DB, plays []storedPlay, n *keyedCounts) error {
	for _, p := range plays {
		var stored scoring.Result
		if json.Unmarshal([]byte(p.Standings), &stored) != nil {
			continue
		}
		sentences := countSentences(&stored)
		if sentences == 0 {
			continue
		}
		m := rescoredMessages(p.Game, p.Variants, p.Boards, &stored)
		keyed := countKeyed(m)
		n.keyed += keyed
		n.left += sentences - keyed
		if keyed == 0 {
			continue
		}
		b, err := json.Marshal(m)
		if err != nil {
			return fmt.Errorf("play %s: %w", p.ID, err)
		}
		if err := tx.Exec("UPDATE plays SET messages = ? WHERE id = ?", string(b), p.ID).Error; err != nil {
			return fmt.Errorf("play %s: %w", p.ID, err)
		}
		n.plays++
	}
	return nil
}

// rescoredMessages scores a stored play's boards again and keeps each
// message that writes the English stored in its place; the others are
// zero. A play whose boards do not score keeps none.
func rescoredMessages(game, variants, boards string, stored *scoring.Result) scoring.ResultMessages {
	var out scoring.ResultMessages
	g, ok := scoring.Lookup(game)
	if !ok {
		return out
	}
	var seats []struct {
		Board json.RawMessage `json:"board"`
	}
	req := scoring.Request{}
	if json.Unmarshal([]byte(boards), &seats) != nil || len(seats) != len(stored.Results) ||
		json.Unmarshal([]byte(variants), &req.Variants) != nil {
		return out
	}
	for i, st := range seats {
		req.Players = append(req.Players, scoring.PlayerInput{Name: stored.Results[i].Name, Board: st.Board})
	}
	res, err := scoring.Score(g, req)
	if err != nil {
		return out
	}
	fresh := res.Messages()
	if fresh.Tiebreak != nil && fresh.Tiebreak.String() == stored.Tiebreak {
		out.Tiebreak = fresh.Tiebreak
	}
	out.Warnings = make([][]scoring.Message, len(stored.Results))
	for i, p := range stored.Results {
		out.Warnings[i] = make([]scoring.Message, len(p.Warnings))
		for k, w := range p.Warnings {
			if k >= len(res.Results[i].Warnings) {
				continue
			}
			now := res.Results[i].Warnings[k]
			if now.Pointer == w.Pointer && now.Detail == w.Detail && now.Message().String() == w.Detail {
				out.Warnings[i][k] = now.Message()
			}
		}
	}
	return out
}

// countSentences is how many warnings and tie sentences r holds.
func countSentences(r *scoring.Result) int {
	n := 0
	if r.Tiebreak != "" {
		n++
	}
	for _, p := range r.Results {
		n += len(p.Warnings)
	}
	return n
}

// countKeyed is how many sentences m keeps by key.
func countKeyed(m scoring.ResultMessages) int {
	n := 0
	if m.Tiebreak != nil {
		n++
	}
	for _, ws := range m.Warnings {
		for _, w := range ws {
			if !w.IsZero() {
				n++
			}
		}
	}
	return n
}

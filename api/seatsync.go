package api

import (
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"insectscore/models"
	"insectscore/scoring"
)

// Seat sync: a phone that holds edits it could not send yet says so, and
// the host sees each seat as saved, unsent or silent, so that nobody
// finishes a game while a phone in someone's pocket still has their last
// move.

// maxUnsent bounds a reported count of unsent edits; no phone holds a
// million edits of one board.
const maxUnsent = 1_000_000

// maxUnsentAge is the oldest an unsent edit is taken to be; older reports
// count as this old (and fit a time.Duration).
const maxUnsentAge = 10 * 365 * 24 * time.Hour

// syncView is a seat's sync state as the table JSON shows it.
type syncView struct {
	State models.SyncState `json:"state"`
	// Unsent is how many edits wait on the seat's phone.
	Unsent int `json:"unsent"`
	// UnsentSince is when the oldest of them was made; null when none wait.
	UnsentSince *time.Time `json:"unsentSince"`
	// LastSeenAt is when the phone last reported or saved the seat's
	// board; null if never.
	LastSeenAt *time.Time `json:"lastSeenAt"`
}

func syncOf(st models.SeatSync, now time.Time) syncView {
	return syncView{State: st.State(now), Unsent: st.Unsent, UnsentSince: st.UnsentSince, LastSeenAt: st.LastSeenAt}
}

// syncRequest is the body of PUT /api/v1/tables/{code}/seats/{seat}/sync.
type syncRequest struct {
	Unsent *int `json:"unsent"`
	// UnsentSeconds is the age of the oldest unsent edit.
	UnsentSeconds int `json:"unsentSeconds"`
}

// reportSync answers PUT /api/v1/tables/{code}/seats/{seat}/sync: a
// seat's phone (or the host) says how many edits of the seat wait to be
// sent. The table's version stays; the host's screen hears of a change of
// state at once.
func (s *server) reportSync(c *fiber.Ctx) error {
	seat, err := seatParam(c)
	if err != nil {
		return err
	}
	token, err := bearerToken(c)
	if err != nil {
		return err
	}
	var req syncRequest
	if err = decodeBody(c, &req); err == nil {
		err = req.check()
	}
	if err != nil {
		// Who asks is told before what is wrong with the request.
		if aerr := s.permitted(c, seat); aerr != nil {
			return aerr
		}
		return err
	}
	now := s.cfg.Now()
	age := time.Duration(min(int64(req.UnsentSeconds), int64(maxUnsentAge/time.Second))) * time.Second
	code := strings.ToUpper(c.Params("code"))
	r, ans, err := s.store.ReportSync(c.UserContext(), models.SyncReport{Code: code, Token: token, Seat: seat, Unsent: *req.Unsent, Since: now.Add(-age)},
		reply(c, fiber.StatusOK, func(r models.SyncReported) any { return fiber.Map{"seat": seat, "sync": syncOf(r.Sync, now)} }))
	if err != nil {
		return err
	}
	if r.State != nil {
		s.send(code, view(*r.State, now))
	}
	return sendAnswer(c, ans)
}

func (r syncRequest) check() error {
	var verr scoring.ValidationError
	switch {
	case r.Unsent == nil:
		verr.Add("/unsent", "say how many changes wait to be sent (0 for none)")
	case *r.Unsent < 0 || *r.Unsent > maxUnsent:
		verr.Add("/unsent", "unsent must be a count from 0 to %d", maxUnsent)
	}
	if r.UnsentSeconds < 0 {
		verr.Add("/unsentSeconds", "unsentSeconds must be a number of seconds, 0 or more")
	}
	return verr.Err()
}

// finishRequest is the optional body of POST /api/v1/tables/{code}/finish.
type finishRequest struct {
	// Force finishes although phones still hold unsent edits.
	Force bool `json:"force"`
}

// finishForced reads the optional finish body: whether to finish although
// phones hold unsent edits.
func finishForced(c *fiber.Ctx) (bool, error) {
	var req finishRequest
	if strings.TrimSpace(string(c.Body())) == "" {
		return false, nil
	}
	err := decodeBody(c, &req)
	return req.Force, err
}

// unsentSeat is a seat whose phone holds edits, as the unsent-changes
// problem lists it.
type unsentSeat struct {
	Seat int      `json:"seat"`
	Name string   `json:"name"`
	Sync syncView `json:"sync"`
}

// unsentMessage names the seats of an *models.UnsentError: "Ben's phone
// has changes it has not sent yet".
func unsentMessage(e *models.UnsentError) scoring.Message {
	names := make([]string, len(e.Seats))
	for i, st := range e.Seats {
		names[i] = st.Name
	}
	if len(names) == 1 {
		return say("%s's phone has changes it has not sent yet", names[0])
	}
	return say("%s phones have changes they have not sent yet", nameList{names: names, each: "%s's"})
}

// nameList is names for a sentence, "Ana's, Ben's and Cleo's": each
// written by the format each, then joined in the catalog's language.
type nameList struct {
	names []string
	each  string
}

func (l nameList) String() string { return l.In(nil) }

// In is the list in cat's language (nil: English).
func (l nameList) In(cat scoring.Catalog) string {
	out := make([]string, len(l.names))
	for i, n := range l.names {
		out[i] = say(l.each, n).In(cat)
	}
	last := len(out) - 1
	if last == 0 {
		return out[0]
	}
	return strings.Join(out[:last], ", ") + " " + cat.Text("api.word.and", "and") + " " + out[last]
}

// unsentProblem is the problem of the *models.UnsentError in err.
func unsentProblem(err error, now time.Time) problem {
	var ue *models.UnsentError
	errors.As(err, &ue)
	p := newProblem(fiber.StatusConflict, unsentMessage(ue), nil)
	p.Type = "/api/problems/unsent-changes"
	for _, st := range ue.Seats {
		p.Seats = append(p.Seats, unsentSeat{Seat: st.Seat, Name: st.Name, Sync: syncOf(st.Sync, now)})
	}
	return p
}

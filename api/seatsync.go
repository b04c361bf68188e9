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
	code, err := s.authorize(c, seat)
	if err != nil {
		return err
	}
	var req syncRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	if err := req.check(); err != nil {
		return err
	}
	now := s.cfg.Now()
	age := time.Duration(min(int64(req.UnsentSeconds), int64(maxUnsentAge/time.Second))) * time.Second
	since := now.Add(-age)
	st, changed, err := s.store.ReportSeatSync(c.UserContext(), code, seat, *req.Unsent, since)
	if err != nil {
		return err
	}
	if changed {
		_, _ = s.publish(c, code)
	}
	return c.JSON(fiber.Map{"seat": seat, "sync": syncOf(st, now)})
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

// unsentError refuses to finish a table while phones hold edits: the
// missing edit may be the one that changes the result, or fixes a board.
type unsentError struct {
	seats []unsentSeat
}

// unsentEdits lists the seats of v whose phones hold edits, as an
// *unsentError; nil when every seat is saved.
func unsentEdits(v tableView) error {
	var seats []unsentSeat
	for _, st := range v.Seats {
		if st.Sync.State != models.SyncSaved {
			seats = append(seats, unsentSeat{Seat: st.Seat, Name: st.Name, Sync: st.Sync})
		}
	}
	if len(seats) == 0 {
		return nil
	}
	return &unsentError{seats: seats}
}

// Error names the seats: "Ben's phone has changes it has not sent yet".
func (e *unsentError) Error() string { return e.in(nil) }

// in is the error in cat's language (nil: English).
func (e *unsentError) in(cat scoring.Catalog) string {
	names := make([]string, len(e.seats))
	for i, st := range e.seats {
		names[i] = st.Name
	}
	if len(names) == 1 {
		return cat.Format("api.", "%s's phone has changes it has not sent yet", names[0])
	}
	return cat.Format("api.", "%s phones have changes they have not sent yet", nameList{names: names, each: "%s's"})
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
		out[i] = cat.Format("api.", l.each, n)
	}
	last := len(out) - 1
	if last == 0 {
		return out[0]
	}
	return strings.Join(out[:last], ", ") + " " + cat.Text("api.word.and", "and") + " " + out[last]
}

// unsentProblem is the problem of the *unsentError in err.
func unsentProblem(err error) problem {
	var ue *unsentError
	errors.As(err, &ue)
	p := newProblem(fiber.StatusConflict, ue.Error(), nil)
	p.Type, p.Seats = "/api/problems/unsent-changes", ue.seats
	p.localized = func(cat scoring.Catalog) (string, []scoring.FieldError) { return ue.in(cat), nil }
	return p
}

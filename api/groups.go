package api

import (
	"bufio"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"insectscore/models"
	"insectscore/scoring"
)

// groupView is a group as the API shows it. Its inviteUrl is the group's
// capability: whoever opens it is in the group.
type groupView struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
	InviteURL string    `json:"inviteUrl"`
}

type createGroupRequest struct {
	Name string `json:"name"`
}

type playerRef struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// createGroup answers POST /api/v1/groups.
func (s *server) createGroup(c *fiber.Ctx) error {
	var req createGroupRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	req.Name = models.CleanName(req.Name)
	if err := checkGroupName(req.Name); err != nil {
		return err
	}
	_, ans, err := s.store.StartGroup(c.UserContext(), req.Name, reply(c, fiber.StatusCreated, func(g *models.Group) any {
		c.Location("/api/v1/groups/" + g.ID)
		return s.groupView(c, g)
	}))
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

// getGroup answers GET /api/v1/groups/{id}: what a phone opening an invite
// link shows before it switches to the group.
func (s *server) getGroup(c *fiber.Ctx) error {
	g, err := s.findGroup(c)
	if err != nil {
		return err
	}
	return c.JSON(s.groupView(c, g))
}

// groupQRPNG answers GET /api/v1/groups/{id}/qr.png: the invite link.
func (s *server) groupQRPNG(c *fiber.Ctx) error {
	g, err := s.findGroup(c)
	if err != nil {
		return err
	}
	return sendQRPNG(c, s.inviteURL(c, g.ID))
}

// groupQRSVG answers GET /api/v1/groups/{id}/qr.svg: the invite link.
func (s *server) groupQRSVG(c *fiber.Ctx) error {
	g, err := s.findGroup(c)
	if err != nil {
		return err
	}
	return sendQRSVG(c, s.inviteURL(c, g.ID))
}

// groupPlayer is a player of a group's list, with when they last played
// (null when no play of theirs is recorded), so forms offer the regulars first.
type groupPlayer struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	LastPlayedAt *time.Time `json:"lastPlayedAt"`
}

// listGroupPlayers answers GET /api/v1/groups/{id}/players, ordered by
// name: the suggestions of a form's name fields.
func (s *server) listGroupPlayers(c *fiber.Ctx) error {
	players, err := s.store.ListPlayers(c.UserContext(), groupParam(c))
	if err != nil {
		return err
	}
	out := make([]groupPlayer, len(players))
	for i, p := range players {
		out[i] = groupPlayer{ID: p.ID, Name: p.Name}
		if !p.LastPlayedAt.IsZero() {
			out[i].LastPlayedAt = &p.LastPlayedAt
		}
	}
	return c.JSON(fiber.Map{"players": out})
}

// exportGroup answers GET /api/v1/groups/{id}/export: the group's history
// as a JSON file that POST /api/v1/groups/import reads back unchanged.
func (s *server) exportGroup(c *fiber.Ctx) error {
	g, err := s.findGroup(c)
	if err != nil {
		return err
	}
	data, err := s.store.ExportGroup(c.UserContext(), g.ID)
	if err != nil {
		return err
	}
	download(c, fiber.MIMEApplicationJSON, "insectscore-"+g.ID+".json")
	return c.Send(data)
}

// importGroup answers POST /api/v1/groups/import: a group exported by this
// or another server becomes a group here. It is the one route that takes
// bodies up to ImportBodyLimit. The body is read as sent, never
// decompressed: a compressed 16 MiB could unpack to gigabytes.
func (s *server) importGroup(c *fiber.Ctx) error {
	body := c.Request().Body()
	if len(body) == 0 || !json.Valid(body) {
		return errorf(fiber.StatusBadRequest, "the body must be a group export as JSON")
	}
	if err := scoring.CheckText(body); err != nil {
		return err
	}
	_, ans, err := s.store.Import(c.UserContext(), body, reply(c, fiber.StatusCreated, func(g *models.Group) any {
		c.Location("/api/v1/groups/" + g.ID)
		return s.groupView(c, g)
	}))
	if err != nil {
		return err
	}
	return sendAnswer(c, ans)
}

// exportPlaysCSV answers GET /api/v1/groups/{id}/plays.csv: a row per
// player per play, streamed page by page so a long history never holds the
// database for long.
func (s *server) exportPlaysCSV(c *fiber.Ctx) error {
	g, err := s.findGroup(c)
	if err != nil {
		return err
	}
	ctx, log := c.UserContext(), s.log
	download(c, "text/csv; charset=utf-8", "insectscore-"+g.ID+"-plays.csv")
	c.Context().SetBodyStreamWriter(fasthttp.StreamWriter(func(w *bufio.Writer) {
		if err := s.store.ExportPlaysCSV(ctx, g.ID, w); err != nil {
			log.Warn("plays.csv cut short", "err", err)
		}
	}))
	return nil
}

// download marks the response as a file to save rather than show. Group
// ids are lower-case letters and digits, safe in a file name as they are.
func download(c *fiber.Ctx, contentType, filename string) {
	c.Set(fiber.HeaderContentType, contentType)
	c.Set(fiber.HeaderContentDisposition, `attachment; filename="`+filename+`"`)
	c.Set(fiber.HeaderCacheControl, "no-store")
}

func (s *server) groupView(c *fiber.Ctx, g *models.Group) groupView {
	return groupView{ID: g.ID, Name: g.Name, CreatedAt: g.CreatedAt, InviteURL: s.inviteURL(c, g.ID)}
}

// findGroup loads the group named by the :id parameter; an unknown one is
// a 404 that says so.
func (s *server) findGroup(c *fiber.Ctx) (*models.Group, error) {
	id := groupParam(c)
	g, err := s.store.FindGroup(c.UserContext(), id)
	if errors.Is(err, models.ErrNotFound) {
		return nil, &models.NotFoundError{Message: say("no group %q; open its invite link again", id)}
	}
	return g, err
}

// groupParam is the group id of the :id parameter. Ids are lower case and
// read aloud without case, so any case finds the group.
func groupParam(c *fiber.Ctx) string {
	return strings.ToLower(strings.TrimSpace(c.Params("id")))
}

// queryGroup is the group of a history request, ?group=<id>: the default
// group when none is given.
func queryGroup(c *fiber.Ctx) string {
	if g := strings.ToLower(strings.TrimSpace(c.Query("group"))); g != "" {
		return g
	}
	return models.DefaultGroup
}

// checkGroupName says what is wrong with a new group's name, at /name.
func checkGroupName(name string) error {
	name = strings.TrimSpace(name)
	var verr scoring.ValidationError
	switch {
	case name == "":
		verr.Add("/name", "give the group a name")
	case scoring.NameKey(name) == "":
		verr.Add("/name", "a group's name needs a letter or a sign that shows")
	case len([]rune(name)) > models.MaxGroupNameLength:
		verr.Add("/name", "a group name can be at most %d characters", models.MaxGroupNameLength)
	}
	return verr.Err()
}

package automation

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/integrations/codehost/hostapi"
	"github.com/vigilhq/vigil/platform/web"
)

type commentAnswer struct {
	CommentID string `json:"comment_id"`
	// Updated: an existing comment was edited in place.
	Updated bool `json:"updated"`
}

func (a *API) postComment(c *fiber.Ctx, comparison bool) error {
	r, t, err := a.decodeResult(c, comparison, false)
	if err != nil {
		return err
	}
	pr, err := prParam(c)
	if err != nil {
		return err
	}
	x, err := a.Host.CreateComment(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, pr, r.markdown(comparison))
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.Status(fiber.StatusCreated).JSON(commentAnswer{CommentID: strconv.FormatInt(x.ID, 10)})
}

func (a *API) validationComment(c *fiber.Ctx) error { return a.postComment(c, false) }
func (a *API) comparisonComment(c *fiber.Ctx) error { return a.postComment(c, true) }

// runningComment keeps one comment per identifier on the pull request:
// the comment whose body holds the identifier's hidden marker is edited
// in place; without one, a comment is posted with the marker.
func (a *API) runningComment(c *fiber.Ctx) error {
	var req struct {
		Body       string `json:"comment_body"`
		Identifier string `json:"comment_identifier"`
	}
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("comment_body", req.Body)
	v.MaxLen("comment_body", req.Body, maxComment)
	v.Text("comment_body", req.Body)
	if !identifierRE.MatchString(req.Identifier) {
		v.Add("comment_identifier", "must match "+IdentifierPattern)
	}
	if err := v.Err(); err != nil {
		return err
	}
	t, err := a.target(c)
	if err != nil {
		return err
	}
	pr, err := prParam(c)
	if err != nil {
		return err
	}
	body := withMarker(req.Body, req.Identifier)
	cs, err := a.Host.Comments(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, pr)
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	for _, x := range cs {
		if strings.Contains(x.Body, Marker(req.Identifier)) {
			y, err := a.Host.EditComment(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, x.ID, body)
			if err != nil {
				return hostapi.RepoAnswer(err, "")
			}
			return c.JSON(commentAnswer{CommentID: strconv.FormatInt(y.ID, 10), Updated: true})
		}
	}
	y, err := a.Host.CreateComment(c.UserContext(), t.token, t.repo.Owner, t.repo.Name, pr, body)
	if err != nil {
		return hostapi.RepoAnswer(err, "")
	}
	return c.Status(fiber.StatusCreated).JSON(commentAnswer{CommentID: strconv.FormatInt(y.ID, 10)})
}

// Marker is the hidden marker that identifies a running comment.
func Marker(identifier string) string {
	return "<!-- vigil:comment:" + identifier + " -->"
}

// withMarker returns body carrying the marker of identifier once, at its
// end.
func withMarker(body, identifier string) string {
	return strings.TrimRight(body, "\n") + "\n\n" + Marker(identifier)
}

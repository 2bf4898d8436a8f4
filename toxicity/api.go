package toxicity

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Completions finds a logged completion by its id within an organization
// and attaches a check to it (analytics.Store and analytics.Checks).
type Completions interface {
	Completion(ctx context.Context, orgID, id string) (eventlog.Completion, error)
	AttachToxicity(ctx context.Context, orgID, id string, t eventlog.Toxicity) error
}

// API serves POST /llm/toxicity.
type API struct {
	Checker     *Checker
	Completions Completions
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/llm/toxicity", Permission: "llm:write", Handler: a.score},
	}
}

// request is POST /llm/toxicity's body: a text, a logged completion's id,
// or both (the text is scored and the id answered with it, whether or not
// a completion of that id is logged; when one is, the scores are attached
// to it).
type request struct {
	Text         *string `json:"text"`
	CompletionID *string `json:"completion_id"`
}

// result is POST /llm/toxicity's answer.
type result struct {
	CompletionID     *string            `json:"completion_id"`
	ToxicityDetected bool               `json:"toxicity_detected"`
	Scores           map[string]float64 `json:"scores"`
	Flagged          bool               `json:"flagged"`
	Scorer           string             `json:"scorer"`
	Threshold        float64            `json:"threshold"`
}

// maxText bounds the text scored.
const maxText = 100_000

func (a *API) score(c *fiber.Ctx) error {
	var req request
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	if req.Text == nil && req.CompletionID == nil {
		v.Add("text", "is required unless completion_id is sent")
	}
	if req.Text != nil {
		v.MaxLen("text", *req.Text, maxText)
		v.Text("text", *req.Text)
	}
	if req.CompletionID != nil {
		v.Required("completion_id", *req.CompletionID)
		v.MaxLen("completion_id", *req.CompletionID, 128)
		v.Text("completion_id", *req.CompletionID)
	}
	if err := v.Err(); err != nil {
		return err
	}
	var text string
	if req.Text != nil {
		text = *req.Text
	}
	// With a text, the id is echoed whether or not it names a logged
	// completion (a client may score a completion before logging it);
	// alone, it must name one, whose completion is scored. Either way a
	// logged completion of that id gets the scores attached.
	if req.CompletionID != nil && req.Text == nil {
		comp, err := a.Completions.Completion(c.UserContext(), identity.OrgID(c), *req.CompletionID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			return web.NotFound("completion")
		case err != nil:
			return err
		}
		text = comp.Completion
	}
	t, err := a.Checker.Check(c.UserContext(), text)
	if err != nil {
		return web.Unavailable("the toxicity scorer is unavailable; retry shortly", 5*time.Second, err)
	}
	if req.CompletionID != nil {
		err := a.Completions.AttachToxicity(c.UserContext(), identity.OrgID(c), *req.CompletionID, t)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("attach toxicity to completion: %w", err)
		}
	}
	return c.Status(http.StatusOK).JSON(result{CompletionID: req.CompletionID, ToxicityDetected: a.Checker.Detected(t),
		Scores: t.Scores, Flagged: t.Flagged, Scorer: t.Scorer, Threshold: a.Checker.threshold()})
}

package alerts

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// dryRunRequest is the optional body of POST
// /alerts/rules/{rule_id}/evaluate: an empty object (no fields yet).
type dryRunRequest struct{}

// MaxDryRunModels bounds the models one dry run of a rule over every
// model observes; models_truncated says when there were more.
const MaxDryRunModels = 100

// dryRun is the answer of a dry run.
type dryRun struct {
	RuleID string `json:"rule_id"`
	// WouldFire is true when the rule holds for at least one model.
	WouldFire bool `json:"would_fire"`
	// WindowEnd is the end of the windows observed: the last whole minute.
	WindowEnd time.Time    `json:"window_end"`
	Models    []dryRunItem `json:"models"`
	// ModelsTruncated is true when the rule watches more than
	// MaxDryRunModels models and only that many were observed.
	ModelsTruncated bool `json:"models_truncated"`
}

type dryRunItem struct {
	ModelID      string        `json:"model_id"`
	WouldFire    bool          `json:"would_fire"`
	Observations []Observation `json:"observations"`
}

// evaluate answers POST /alerts/rules/{rule_id}/evaluate: whether the rule
// would fire now, with the observed value of each condition, per model
// (the rule's, or each model of the organization that is not archived);
// it creates nothing. A disabled rule is evaluated too (it is how one tries
// a rule before enabling it).
func (a *API) evaluate(c *fiber.Ctx) error {
	r, err := a.rule(c)
	if err != nil {
		return err
	}
	var q dryRunRequest
	if len(c.Body()) > 0 {
		if err := web.Decode(c, &q); err != nil {
			return err
		}
	}
	models, truncated, err := a.dryRunModels(c, r)
	if err != nil {
		return err
	}
	if a.Readings == nil {
		return web.Unavailable("the analytical store is not available to this process", 30*time.Second, nil)
	}
	end := a.Clock.Now().UTC().Truncate(time.Minute)
	out := dryRun{RuleID: r.ID, WindowEnd: end, Models: []dryRunItem{}, ModelsTruncated: truncated}
	for _, m := range models {
		o := NewObserver(a.Readings, r.OrgID, m, end)
		o.Findings = a.Findings
		obs, holds, err := o.Observe(c.UserContext(), r)
		if err != nil {
			return err
		}
		out.WouldFire = out.WouldFire || holds
		out.Models = append(out.Models, dryRunItem{ModelID: m, WouldFire: holds, Observations: obs})
	}
	return c.JSON(out)
}

// dryRunModels lists the models a dry run observes: the rule's, or the
// organization's that are not archived, newest first, at most
// MaxDryRunModels of them.
func (a *API) dryRunModels(c *fiber.Ctx, r Rule) ([]string, bool, error) {
	if r.ModelID != "" {
		return []string{r.ModelID}, false, nil
	}
	ms, err := a.Store.Models(c.UserContext(), identity.OrgID(c), registry.Filter{Limit: 1000})
	if err != nil {
		return nil, false, err
	}
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		if m.Status != registry.StatusArchived {
			out = append(out, m.ID)
		}
	}
	if len(out) > MaxDryRunModels {
		return out[:MaxDryRunModels], true, nil
	}
	return out, false, nil
}

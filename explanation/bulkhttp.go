package explanation

import (
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// MaxBulk bounds the instances of one bulk request (spec 3).
const MaxBulk = 100

// bulkBody is the body of POST /explanations/bulk.
type bulkBody struct {
	ModelID    string           `json:"model_id"`
	Instances  []map[string]any `json:"instances"`
	Method     string           `json:"method"`
	Background []map[string]any `json:"background"`
	UseCache   *bool            `json:"use_cache"`
	options
}

// bulkResult is one instance's explanation in the bulk answer.
type bulkResult struct {
	Index         int    `json:"index"`
	ExplanationID string `json:"explanation_id"`
	Status        string `json:"status"`
	Cached        bool   `json:"cached"`
}

// bulk answers POST /explanations/bulk: up to 100 instances of one model
// explained by one method against the same background rows. Every
// instance is checked first (422 naming instances[i].NAME, and nothing
// stored, when one does not fit the artifact); then one explanation per
// instance is stored, in order, pending or completed from the cache: 202
// with their ids.
func (a *API) bulk(c *fiber.Ctx) error {
	var b bulkBody
	if err := decodeWithOptions(c, &b); err != nil {
		return err
	}
	var v web.Problems
	v.Required("model_id", b.ModelID)
	v.Text("model_id", b.ModelID)
	if len(b.Instances) == 0 || len(b.Instances) > MaxBulk {
		v.Add("instances", fmt.Sprintf("must hold 1 to %d instances", MaxBulk))
	}
	for i, in := range b.Instances {
		if in == nil {
			v.Add(fmt.Sprintf("instances[%d]", i), "must be an object of feature name to number or null")
		}
	}
	b.Method = CanonicalMethod(b.Method)
	checkMethod(&v, "method", b.Method)
	shared := Request{Background: b.Background}
	b.options.apply(&v, b.ModelID, &shared)
	if err := v.Err(); err != nil {
		return err
	}
	ctx, orgID := c.UserContext(), identity.OrgID(c)
	cfg, err := a.enabled(ctx, orgID, b.ModelID, &b.Method)
	if err != nil {
		return err
	}
	art, err := a.artifact(ctx, orgID, b.ModelID)
	if err != nil {
		return err
	}
	reqs, keys := make([]Request, len(b.Instances)), make([]string, len(b.Instances))
	fallbacks := a.Access.fallbacks(ctx, orgID, b.ModelID)
	for i, in := range b.Instances {
		reqs[i] = shared
		reqs[i].Instance = in
		p, err := planFor(&art, reqs[i], b.Method, fallbacks)
		if err != nil {
			return renamed(err, "instance", fmt.Sprintf("instances[%d]", i))
		}
		keys[i] = p.cacheKey(&art, reqs[i], b.Method)
	}
	out := struct {
		ExplanationIDs []string     `json:"explanation_ids"`
		Total          int          `json:"total"`
		Results        []bulkResult `json:"results"`
		Message        string       `json:"message"`
	}{ExplanationIDs: []string{}, Total: len(reqs), Results: []bulkResult{},
		Message: "explanations accepted; poll GET /explanations/{explanation_id} of each until status is not pending"}
	for i, req := range reqs {
		e, err := a.enqueue(ctx, cfg, orgID, b.ModelID, keys[i], "", b.Method, req, b.UseCache == nil || *b.UseCache)
		if err != nil {
			return err
		}
		out.ExplanationIDs = append(out.ExplanationIDs, e.ID)
		out.Results = append(out.Results, bulkResult{Index: i, ExplanationID: e.ID, Status: e.Status, Cached: e.Outcome != nil})
	}
	a.wake()
	return c.Status(http.StatusAccepted).JSON(out)
}

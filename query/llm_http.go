package query

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// llmTotals are the totals of GET /llm/metrics.
type llmTotals struct {
	Completions      int64    `json:"completions"`
	TotalTokens      int64    `json:"total_tokens"`
	PromptTokens     int64    `json:"prompt_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	TotalCost        float64  `json:"total_cost"`
	AvgLatencyMS     *float64 `json:"avg_latency_ms"`
}

// llmModel is one LLM's share in GET /llm/metrics' by_model.
type llmModel struct {
	Completions  int64    `json:"completions"`
	Cost         float64  `json:"cost"`
	TotalTokens  int64    `json:"total_tokens"`
	AvgLatencyMS *float64 `json:"avg_latency_ms"`
}

// llmResponse is GET /llm/metrics.
type llmResponse struct {
	// ModelID is null when the totals are the organization's.
	ModelID *string             `json:"model_id"`
	Period  period              `json:"period"`
	Totals  llmTotals           `json:"totals"`
	ByModel map[string]llmModel `json:"by_model"`
}

// avgLatency is the mean latency of g's completions that reported one.
func avgLatency(g analytics.CompletionGroup) *float64 {
	if g.LatencyCount == 0 {
		return nil
	}
	v := g.LatencySum / float64(g.LatencyCount)
	return &v
}

// llmMetrics answers GET /llm/metrics: tokens, cost and latency of the
// LLM completions of one model (model_id) or of the organization, between
// start_date and end_date (by default the last 24 hours), in total and by
// the model_name they were logged with.
func (a *API) llmMetrics(c *fiber.Ctx) error {
	var v web.Problems
	r := a.period(c, &v, 24*time.Hour)
	v.IDQuery(c, "model_id")
	if err := v.Err(); err != nil {
		return err
	}
	resp := llmResponse{Period: period{r.From, r.To}, ByModel: map[string]llmModel{}}
	modelID := c.Query("model_id")
	if modelID != "" {
		if err := a.model(c, modelID); err != nil {
			return err
		}
		resp.ModelID = &modelID
	}
	groups, err := a.Store.CompletionGroups(c.UserContext(), identity.OrgID(c), modelID, r)
	if err != nil {
		return err
	}
	var all analytics.CompletionGroup
	for _, g := range groups {
		all.Add(g)
		resp.ByModel[g.Model] = llmModel{Completions: g.Completions, Cost: g.Cost, TotalTokens: g.TotalTokens, AvgLatencyMS: avgLatency(g)}
	}
	resp.Totals = llmTotals{Completions: all.Completions, TotalTokens: all.TotalTokens, PromptTokens: all.PromptTokens,
		CompletionTokens: all.CompletionTokens, TotalCost: all.Cost, AvgLatencyMS: avgLatency(all)}
	return c.JSON(resp)
}

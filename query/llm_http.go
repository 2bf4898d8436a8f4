package query

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// llmFigures are what a set of completions adds up to in GET
// /llm/metrics: in the totals, per model_name, per provider.
type llmFigures struct {
	Completions      int64    `json:"completions"`
	TotalTokens      int64    `json:"total_tokens"`
	PromptTokens     int64    `json:"prompt_tokens"`
	CompletionTokens int64    `json:"completion_tokens"`
	Cost             float64  `json:"cost"`
	Errors           int64    `json:"errors"`
	ErrorRate        *float64 `json:"error_rate"`
	AvgLatencyMS     *float64 `json:"avg_latency_ms"`
	P50LatencyMS     *float64 `json:"p50_latency_ms"`
	P95LatencyMS     *float64 `json:"p95_latency_ms"`
	P99LatencyMS     *float64 `json:"p99_latency_ms"`
	// ToxicityChecked completions had a toxicity check; ToxicityRate is
	// the share of them flagged, null without any.
	ToxicityChecked int64    `json:"toxicity_checked"`
	ToxicityRate    *float64 `json:"toxicity_rate"`
}

// llmTotals are the totals of GET /llm/metrics: the figures, and the
// cost under the name the specification gives it.
type llmTotals struct {
	llmFigures
	TotalCost float64 `json:"total_cost"`
}

// llmPoint is one bucket of GET /llm/metrics' trend.
type llmPoint struct {
	Start time.Time `json:"start"`
	llmFigures
}

// llmTrend is GET /llm/metrics' trend.
type llmTrend struct {
	Interval string     `json:"interval"`
	Points   []llmPoint `json:"points"`
}

// llmResponse is GET /llm/metrics.
type llmResponse struct {
	// ModelID is null when the totals are the organization's.
	ModelID    *string               `json:"model_id"`
	Period     period                `json:"period"`
	Totals     llmTotals             `json:"totals"`
	ByModel    map[string]llmFigures `json:"by_model"`
	ByProvider map[string]llmFigures `json:"by_provider"`
	Trend      llmTrend              `json:"trend"`
}

// ratio is n/d, nil when d is 0.
func ratio(n, d int64) *float64 {
	if d == 0 {
		return nil
	}
	v := float64(n) / float64(d)
	return &v
}

// figures are s as the API answers them.
func figures(s *analytics.LLMSums) (llmFigures, error) {
	f := llmFigures{Completions: s.Completions, TotalTokens: s.TotalTokens, PromptTokens: s.PromptTokens,
		CompletionTokens: s.CompletionTokens, Cost: s.Cost, Errors: s.Errors, ErrorRate: ratio(s.Errors, s.Completions),
		ToxicityChecked: s.Scored, ToxicityRate: ratio(s.Flagged, s.Scored)}
	if s.LatencyCount > 0 {
		avg := s.LatencySum / float64(s.LatencyCount)
		f.AvgLatencyMS = &avg
	}
	for _, p := range []struct {
		q   float64
		dst **float64
	}{{0.5, &f.P50LatencyMS}, {0.95, &f.P95LatencyMS}, {0.99, &f.P99LatencyMS}} {
		v, err := s.Percentile(p.q)
		if err != nil {
			return f, err
		}
		*p.dst = v
	}
	return f, nil
}

// llmMetrics answers GET /llm/metrics: tokens, cost, errors, latency
// (mean and p50/p95/p99) and toxicity of the LLM completions of one model
// (model_id) or of the organization, between start_date and end_date (by
// default the last 24 hours): in total, by the model_name and by the
// provider they were logged with, and per hour or day (interval) from the
// period's start.
func (a *API) llmMetrics(c *fiber.Ctx) error {
	var v web.Problems
	r := a.period(c, &v, 24*time.Hour)
	v.IDQuery(c, "model_id")
	interval, width := oneOf(c, &v, "interval", "hour", intervals)
	if err := v.Err(); err != nil {
		return err
	}
	resp := llmResponse{Period: period{r.From, r.To}, ByModel: map[string]llmFigures{}, ByProvider: map[string]llmFigures{},
		Trend: llmTrend{Interval: interval, Points: []llmPoint{}}}
	modelID := c.Query("model_id")
	if modelID != "" {
		if err := a.model(c, modelID); err != nil {
			return err
		}
		resp.ModelID = &modelID
	}
	orgID := identity.OrgID(c)
	groups, err := a.Store.LLMGroups(c.UserContext(), orgID, modelID, r)
	if err != nil {
		return err
	}
	var all analytics.LLMSums
	byModel, byProvider := map[string]*analytics.LLMSums{}, map[string]*analytics.LLMSums{}
	for _, g := range groups {
		for _, s := range []*analytics.LLMSums{&all, at(byModel, g.Model), at(byProvider, g.Provider)} {
			if err := s.Merge(&g.LLMSums); err != nil {
				return err
			}
		}
	}
	for _, m := range []struct {
		from map[string]*analytics.LLMSums
		to   map[string]llmFigures
	}{{byModel, resp.ByModel}, {byProvider, resp.ByProvider}} {
		for k, s := range m.from {
			if m.to[k], err = figures(s); err != nil {
				return err
			}
		}
	}
	if resp.Totals.llmFigures, err = figures(&all); err != nil {
		return err
	}
	resp.Totals.TotalCost = all.Cost
	points, err := a.Store.LLMTrend(c.UserContext(), orgID, modelID, analytics.Buckets{Range: r, Width: width})
	if err != nil {
		return err
	}
	for _, p := range points {
		f, err := figures(&p.LLMSums)
		if err != nil {
			return err
		}
		resp.Trend.Points = append(resp.Trend.Points, llmPoint{Start: p.Start, llmFigures: f})
	}
	return c.JSON(resp)
}

// at returns m[k], made when missing.
func at(m map[string]*analytics.LLMSums, k string) *analytics.LLMSums {
	s := m[k]
	if s == nil {
		s = &analytics.LLMSums{}
		m[k] = s
	}
	return s
}

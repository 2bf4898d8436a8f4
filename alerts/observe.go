package alerts

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vigilhq/vigil/analytics"
)

// Readings is what observing a rule reads: the analytical store's
// summaries of its per-minute and per-hour rollups (analytics.Store).
type Readings interface {
	PredictionStats(ctx context.Context, orgID, modelID string, r analytics.Range) (analytics.PredictionStats, error)
	MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error)
	CompletionGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.CompletionGroup, error)
}

// Observe reads each of r's conditions for the model over its window
// ending at end (a whole minute) and reports whether all of them hold.
// Conditions on the same window share one read of each source.
func Observe(ctx context.Context, rd Readings, r Rule, orgID, modelID string, end time.Time) ([]Observation, bool, error) {
	o := observer{rd: rd, orgID: orgID, modelID: modelID, stats: map[int]*analytics.PredictionStats{},
		llm: map[int]*analytics.CompletionGroup{}}
	out := make([]Observation, 0, len(r.Conditions))
	all := len(r.Conditions) > 0
	for _, c := range r.Conditions {
		rng := analytics.Range{From: end.Add(-c.Window()), To: end}
		v, err := o.value(ctx, c.MetricName, c.WindowMinutes, rng)
		if err != nil {
			return nil, false, fmt.Errorf("observe %s over %d minutes: %w", c.MetricName, c.WindowMinutes, err)
		}
		ob := Observation{Condition: c, Value: v, Holds: v != nil && c.Holds(*v)}
		all = all && ob.Holds
		out = append(out, ob)
	}
	return out, all, nil
}

// observer caches the reads of one model's observation by window.
type observer struct {
	rd             Readings
	orgID, modelID string
	stats          map[int]*analytics.PredictionStats
	llm            map[int]*analytics.CompletionGroup
}

func (o *observer) value(ctx context.Context, name string, minutes int, rng analytics.Range) (*float64, error) {
	if mt, ok := strings.CutPrefix(name, MetricPrefix); ok {
		sums, err := o.rd.MetricSeries(ctx, analytics.MetricFilter{OrgID: o.orgID, ModelID: o.modelID, MetricType: mt, Range: rng},
			analytics.Buckets{Range: rng})
		if err != nil || len(sums) == 0 || sums[0].Count == 0 {
			return nil, err
		}
		return ptr(sums[0].Sum / float64(sums[0].Count)), nil
	}
	if strings.HasPrefix(name, "llm_") {
		g, err := o.completions(ctx, minutes, rng)
		if err != nil {
			return nil, err
		}
		switch name {
		case "llm_completions":
			return ptr(float64(g.Completions)), nil
		case "llm_cost":
			return ptr(g.Cost), nil
		case "llm_tokens":
			return ptr(float64(g.TotalTokens)), nil
		case "llm_latency_avg_ms":
			if g.LatencyCount == 0 {
				return nil, nil
			}
			return ptr(g.LatencySum / float64(g.LatencyCount)), nil
		}
		return nil, fmt.Errorf("unknown metric %q", name)
	}
	st, err := o.predictions(ctx, minutes, rng)
	if err != nil {
		return nil, err
	}
	switch name {
	case "prediction_count":
		return ptr(float64(st.TotalPredictions)), nil
	case "latency_avg_ms":
		return st.AvgLatencyMS, nil
	case "latency_p50_ms":
		return st.P50LatencyMS, nil
	case "latency_p95_ms":
		return st.P95LatencyMS, nil
	case "latency_p99_ms":
		return st.P99LatencyMS, nil
	}
	return nil, fmt.Errorf("unknown metric %q", name)
}

func (o *observer) predictions(ctx context.Context, minutes int, rng analytics.Range) (*analytics.PredictionStats, error) {
	if st, ok := o.stats[minutes]; ok {
		return st, nil
	}
	st, err := o.rd.PredictionStats(ctx, o.orgID, o.modelID, rng)
	if err != nil {
		return nil, err
	}
	o.stats[minutes] = &st
	return &st, nil
}

func (o *observer) completions(ctx context.Context, minutes int, rng analytics.Range) (*analytics.CompletionGroup, error) {
	if g, ok := o.llm[minutes]; ok {
		return g, nil
	}
	groups, err := o.rd.CompletionGroups(ctx, o.orgID, o.modelID, rng)
	if err != nil {
		return nil, err
	}
	var g analytics.CompletionGroup
	for _, one := range groups {
		g.Add(one)
	}
	o.llm[minutes] = &g
	return &g, nil
}

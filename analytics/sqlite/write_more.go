package sqlite

import (
	"fmt"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

type metricBucket struct {
	orgID, modelID, metricType string
	start, n                   int64
	total, min, max            float64
}

func (w writer) metrics(ms []eventlog.Metric) error {
	if len(ms) == 0 {
		return nil
	}
	rows := make([][]any, len(ms))
	for i, m := range ms {
		meta, err := jsonText(m.Metadata)
		if err != nil {
			return err
		}
		rows[i] = []any{m.OrgID, m.ModelID, m.ID, m.MetricType, m.Value, meta, m.Timestamp.UnixMicro()}
	}
	added, err := w.insertNew("metrics", []string{"org_id", "model_id", "event_id", "metric_type", "value", "metadata", "ts"}, rows)
	if err != nil {
		return err
	}
	ms = newOnly(ms, added, func(m eventlog.Metric) eventKey { return eventKey{m.OrgID, m.ModelID, m.ID} })
	for _, res := range resolutions {
		buckets := map[[4]any]*metricBucket{}
		for _, m := range ms {
			k := [4]any{m.OrgID, m.ModelID, m.MetricType, res.start(m.Timestamp)}
			r := buckets[k]
			if r == nil {
				r = &metricBucket{orgID: m.OrgID, modelID: m.ModelID, metricType: m.MetricType,
					start: res.start(m.Timestamp), min: m.Value, max: m.Value}
				buckets[k] = r
			}
			r.n++
			r.total += m.Value
			r.min, r.max = min(r.min, m.Value), max(r.max, m.Value)
		}
		for _, r := range buckets {
			if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO metric_`+res.suffix+`
				(org_id, model_id, metric_type, `+res.column+`, n, total, min_value, max_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (org_id, model_id, metric_type, `+res.column+`) DO UPDATE SET
					n = n + excluded.n, total = total + excluded.total,
					min_value = min(min_value, excluded.min_value), max_value = max(max_value, excluded.max_value)`,
				r.orgID, r.modelID, r.metricType, r.start, r.n, r.total, r.min, r.max); err != nil {
				return fmt.Errorf("analytics rollup: %w", err)
			}
		}
	}
	return nil
}

type completionBucket struct {
	orgID, modelID, modelName string
	start, n                  int64
	prompt, completion, total int64
	cost, latencySum          float64
	latencyN                  int64
}

func (w writer) completions(cs []eventlog.Completion) error {
	if len(cs) == 0 {
		return nil
	}
	rows := make([][]any, len(cs))
	for i, c := range cs {
		meta, err := jsonText(c.Metadata)
		if err != nil {
			return err
		}
		tox, flagged, err := analytics.ToxicityColumns(c.Toxicity)
		if err != nil {
			return err
		}
		rows[i] = []any{c.OrgID, c.ModelID, c.ID, c.Provider, c.ModelName, c.Prompt, c.Completion,
			c.Tokens.PromptTokens, c.Tokens.CompletionTokens, c.Tokens.TotalTokens, nullFloat(c.LatencyMS), c.Cost, meta,
			c.Error, tox, flagged, c.Timestamp.UnixMicro()}
	}
	added, err := w.insertNew("completions", []string{"org_id", "model_id", "event_id", "provider", "model_name", "prompt",
		"completion", "prompt_tokens", "completion_tokens", "total_tokens", "latency_ms", "cost", "metadata",
		"error", "toxicity", "flagged", "ts"}, rows)
	if err != nil {
		return err
	}
	cs = newOnly(cs, added, func(c eventlog.Completion) eventKey { return eventKey{c.OrgID, c.ModelID, c.ID} })
	if err := w.llm(cs); err != nil {
		return err
	}
	for _, res := range resolutions {
		buckets := map[[4]any]*completionBucket{}
		for _, c := range cs {
			k := [4]any{c.OrgID, c.ModelID, c.ModelName, res.start(c.Timestamp)}
			r := buckets[k]
			if r == nil {
				r = &completionBucket{orgID: c.OrgID, modelID: c.ModelID, modelName: c.ModelName, start: res.start(c.Timestamp)}
				buckets[k] = r
			}
			r.n++
			r.prompt += c.Tokens.PromptTokens
			r.completion += c.Tokens.CompletionTokens
			r.total += c.Tokens.TotalTokens
			r.cost += c.Cost
			if c.LatencyMS != nil {
				r.latencyN++
				r.latencySum += *c.LatencyMS
			}
		}
		for _, r := range buckets {
			if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO completion_`+res.suffix+`
				(org_id, model_id, model_name, `+res.column+`, completions, prompt_tokens, completion_tokens, total_tokens, cost,
				 latency_count, latency_sum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT (org_id, model_id, model_name, `+res.column+`) DO UPDATE SET
					completions = completions + excluded.completions,
					prompt_tokens = prompt_tokens + excluded.prompt_tokens,
					completion_tokens = completion_tokens + excluded.completion_tokens,
					total_tokens = total_tokens + excluded.total_tokens,
					cost = cost + excluded.cost,
					latency_count = latency_count + excluded.latency_count,
					latency_sum = latency_sum + excluded.latency_sum`,
				r.orgID, r.modelID, r.modelName, r.start, r.n, r.prompt, r.completion, r.total, r.cost, r.latencyN, r.latencySum); err != nil {
				return fmt.Errorf("analytics rollup: %w", err)
			}
		}
	}
	return nil
}

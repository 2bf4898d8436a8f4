package sqlite

import (
	"fmt"

	"github.com/vigilhq/vigil/ingest"
)

type metricMinute struct {
	orgID, modelID, metricType string
	minute, n                  int64
	total, min, max            float64
}

func (w writer) metrics(ms []ingest.Metric) error {
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
	minutes := map[[4]any]*metricMinute{}
	for _, m := range ms {
		if !take(added, eventKey{m.OrgID, m.ModelID, m.ID}) {
			continue
		}
		k := [4]any{m.OrgID, m.ModelID, m.MetricType, minute(m.Timestamp)}
		r := minutes[k]
		if r == nil {
			r = &metricMinute{orgID: m.OrgID, modelID: m.ModelID, metricType: m.MetricType,
				minute: minute(m.Timestamp), min: m.Value, max: m.Value}
			minutes[k] = r
		}
		r.n++
		r.total += m.Value
		r.min, r.max = min(r.min, m.Value), max(r.max, m.Value)
	}
	for _, r := range minutes {
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO metric_minutes
			(org_id, model_id, metric_type, minute, n, total, min_value, max_value) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, model_id, metric_type, minute) DO UPDATE SET
				n = n + excluded.n, total = total + excluded.total,
				min_value = min(min_value, excluded.min_value), max_value = max(max_value, excluded.max_value)`,
			r.orgID, r.modelID, r.metricType, r.minute, r.n, r.total, r.min, r.max); err != nil {
			return fmt.Errorf("analytics rollup: %w", err)
		}
	}
	return nil
}

type completionMinute struct {
	orgID, modelID, modelName string
	minute, n                 int64
	prompt, completion, total int64
	cost, latencySum          float64
	latencyN                  int64
}

func (w writer) completions(cs []ingest.Completion) error {
	if len(cs) == 0 {
		return nil
	}
	rows := make([][]any, len(cs))
	for i, c := range cs {
		meta, err := jsonText(c.Metadata)
		if err != nil {
			return err
		}
		rows[i] = []any{c.OrgID, c.ModelID, c.ID, c.Provider, c.ModelName, c.Prompt, c.Completion,
			c.Tokens.PromptTokens, c.Tokens.CompletionTokens, c.Tokens.TotalTokens, nullFloat(c.LatencyMS), c.Cost, meta,
			c.Timestamp.UnixMicro()}
	}
	added, err := w.insertNew("completions", []string{"org_id", "model_id", "event_id", "provider", "model_name", "prompt",
		"completion", "prompt_tokens", "completion_tokens", "total_tokens", "latency_ms", "cost", "metadata", "ts"}, rows)
	if err != nil {
		return err
	}
	minutes := map[[4]any]*completionMinute{}
	for _, c := range cs {
		if !take(added, eventKey{c.OrgID, c.ModelID, c.ID}) {
			continue
		}
		k := [4]any{c.OrgID, c.ModelID, c.ModelName, minute(c.Timestamp)}
		r := minutes[k]
		if r == nil {
			r = &completionMinute{orgID: c.OrgID, modelID: c.ModelID, modelName: c.ModelName, minute: minute(c.Timestamp)}
			minutes[k] = r
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
	for _, r := range minutes {
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO completion_minutes
			(org_id, model_id, model_name, minute, completions, prompt_tokens, completion_tokens, total_tokens, cost,
			 latency_count, latency_sum) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, model_id, model_name, minute) DO UPDATE SET
				completions = completions + excluded.completions,
				prompt_tokens = prompt_tokens + excluded.prompt_tokens,
				completion_tokens = completion_tokens + excluded.completion_tokens,
				total_tokens = total_tokens + excluded.total_tokens,
				cost = cost + excluded.cost,
				latency_count = latency_count + excluded.latency_count,
				latency_sum = latency_sum + excluded.latency_sum`,
			r.orgID, r.modelID, r.modelName, r.minute, r.n, r.prompt, r.completion, r.total, r.cost, r.latencyN, r.latencySum); err != nil {
			return fmt.Errorf("analytics rollup: %w", err)
		}
	}
	return nil
}

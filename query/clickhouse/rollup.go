package clickhouse

import (
	"context"
	"fmt"
	"time"
)

// minuteRollup recomputes the minutes of one model that a write touched
// from the stored rows, server-side, and inserts them as those minutes'
// newest version: ClickHouse's INSERT ... SELECT, so no row crosses the
// wire. The statement's placeholders are the version, organization, model,
// time bounds and the minutes (an array).
type minuteRollup string

const metricRollup minuteRollup = `INSERT INTO metric_minutes
	(org_id, model_id, metric_type, minute, n, total, min_value, max_value, version)
	SELECT org_id, model_id, metric_type, intDiv(ts, 60000000) * 60000000 AS m,
		count(), sum(value), min(value), max(value), toUInt64(?)
	FROM metrics FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND has(?, m)
	GROUP BY org_id, model_id, metric_type, m`

const completionRollup minuteRollup = `INSERT INTO completion_minutes
	(org_id, model_id, model_name, minute, completions, prompt_tokens, completion_tokens, total_tokens, cost,
	 latency_count, latency_sum, version)
	SELECT org_id, model_id, model_name, intDiv(ts, 60000000) * 60000000 AS m,
		count(), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost),
		count(latency_ms), ifNull(sum(latency_ms), 0), toUInt64(?)
	FROM completions FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND has(?, m)
	GROUP BY org_id, model_id, model_name, m`

// touched collects the minutes of each model that a write stored events in.
type touched map[modelKey]map[int64]bool

func (t touched) add(k modelKey, ts time.Time) {
	if t[k] == nil {
		t[k] = map[int64]bool{}
	}
	t[k][ts.Truncate(time.Minute).UnixMicro()] = true
}

// rewrite returns the rollup that runs r for every model and its touched
// minutes.
func (r minuteRollup) rewrite(s *Store) func(context.Context, touched) error {
	return func(ctx context.Context, t touched) error { return r.run(ctx, s, t) }
}

func (r minuteRollup) run(ctx context.Context, s *Store, t touched) error {
	version := uint64(time.Now().UnixNano())
	for k, set := range t {
		minutes, lo, hi := span(set)
		if err := s.conn.Exec(ctx, string(r), version, k.org, k.model, lo, hi, minutes); err != nil {
			return fmt.Errorf("clickhouse rollup: %w", err)
		}
	}
	return nil
}

package clickhouse

import (
	"context"
	"fmt"
	"time"
)

// seriesRollup recomputes, server-side with INSERT ... SELECT so that no
// row crosses the wire, the minutes of one model that a write touched from
// the stored rows, then the hours holding them from their minutes, and
// inserts both as their newest version. The minutes statement's
// placeholders are the version, organization, model and time bounds, and
// it reads the minutes from startList; the hours statement's the version, organization,
// model and the bounds of the hours.
type seriesRollup struct{ minutes, hours string }

var metricRollup = seriesRollup{
	minutes: `INSERT INTO metric_minutes
	(org_id, model_id, metric_type, minute, n, total, min_value, max_value, version)
	SELECT org_id, model_id, metric_type, intDiv(ts, 60000000) * 60000000 AS m,
		count(), sum(value), min(value), max(value), toUInt64(?)
	FROM metrics FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND ` + startList.in("m") + `
	GROUP BY org_id, model_id, metric_type, m`,
	hours: `INSERT INTO metric_hours
	(org_id, model_id, metric_type, hour, n, total, min_value, max_value, version)
	SELECT org_id, model_id, metric_type, intDiv(minute, 3600000000) * 3600000000 AS h,
		sum(n), sum(total), min(min_value), max(max_value), toUInt64(?)
	FROM metric_minutes FINAL WHERE org_id = ? AND model_id = ? AND minute >= ? AND minute < ?
	GROUP BY org_id, model_id, metric_type, h`,
}

var completionRollup = seriesRollup{
	minutes: `INSERT INTO completion_minutes
	(org_id, model_id, model_name, minute, completions, prompt_tokens, completion_tokens, total_tokens, cost,
	 latency_count, latency_sum, version)
	SELECT org_id, model_id, model_name, intDiv(ts, 60000000) * 60000000 AS m,
		count(), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost),
		count(latency_ms), ifNull(sum(latency_ms), 0), toUInt64(?)
	FROM completions FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND ` + startList.in("m") + `
	GROUP BY org_id, model_id, model_name, m`,
	hours: `INSERT INTO completion_hours
	(org_id, model_id, model_name, hour, completions, prompt_tokens, completion_tokens, total_tokens, cost,
	 latency_count, latency_sum, version)
	SELECT org_id, model_id, model_name, intDiv(minute, 3600000000) * 3600000000 AS h,
		sum(completions), sum(prompt_tokens), sum(completion_tokens), sum(total_tokens), sum(cost),
		sum(latency_count), sum(latency_sum), toUInt64(?)
	FROM completion_minutes FINAL WHERE org_id = ? AND model_id = ? AND minute >= ? AND minute < ?
	GROUP BY org_id, model_id, model_name, h`,
}

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
func (r seriesRollup) rewrite(s *Store) func(context.Context, touched) error {
	return func(ctx context.Context, t touched) error { return r.run(ctx, s, t) }
}

func (r seriesRollup) run(ctx context.Context, s *Store, t touched) error {
	version := uint64(time.Now().UnixNano())
	for k, set := range t {
		minutes, lo, hi := span(set)
		mctx, err := withList(ctx, startList, minutes)
		if err != nil {
			return err
		}
		if err := s.conn.Exec(mctx, r.minutes, version, k.org, k.model, lo, hi); err != nil {
			return fmt.Errorf("clickhouse rollup: %w", err)
		}
		lo, hi = hours(lo, hi)
		if err := s.conn.Exec(ctx, r.hours, version, k.org, k.model, lo, hi); err != nil {
			return fmt.Errorf("clickhouse rollup: %w", err)
		}
	}
	return nil
}

// fill recomputes all of one model's hours from its minutes: the
// analytics.FillHours step.
func (r seriesRollup) fill(s *Store) func(ctx context.Context, orgID, modelID string) error {
	return func(ctx context.Context, orgID, modelID string) error {
		return s.conn.Exec(ctx, r.hours, uint64(time.Now().UnixNano()), orgID, modelID, int64(-1<<63), int64(1<<63-1))
	}
}

// hours widens [lo, hi), Unix microseconds, to whole hours.
func hours(lo, hi int64) (int64, int64) {
	const hour = int64(time.Hour / time.Microsecond)
	lo -= lo % hour
	if r := hi % hour; r != 0 {
		hi += hour - r
	}
	return lo, hi
}

package analytics

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// MetricFilter selects one model's values of one metric type.
type MetricFilter struct {
	OrgID, ModelID, MetricType string
	Range                      Range
}

// Buckets cut a Range into consecutive intervals of one Width, the first
// starting at the range's start; a zero Width is one bucket over the
// whole range. Stores read whole minutes, their rollups' resolution, so a
// width is a whole number of minutes and the range's start is widened to
// the start of its minute.
type Buckets struct {
	Range Range
	Width time.Duration
}

// Start is the start of the first bucket in Unix microseconds.
func (b Buckets) Start() int64 { return b.Range.From.Truncate(time.Minute).UnixMicro() }

// cover splits the buckets' range as Cover does when every whole hour
// lies in one bucket (one bucket over the range, or buckets of whole
// hours starting on the hour); otherwise head is all of it.
func (b Buckets) cover() (head, hours, tail Range) {
	head, hours, tail = Cover(b.Range)
	if b.Width <= 0 || b.Width%time.Hour == 0 && b.Start()%hourMicros == 0 {
		return head, hours, tail
	}
	return Range{head.From, tail.To}, Range{tail.To, tail.To}, Range{tail.To, tail.To}
}

// WidthMicros is the width of a bucket in microseconds.
func (b Buckets) WidthMicros() int64 {
	if b.Width <= 0 {
		return max(b.Range.To.UnixMicro()-b.Start(), 1)
	}
	return b.Width.Microseconds()
}

// Summary is what the values in one bucket add up to. Min and Max are
// meaningless when Count is 0.
type Summary struct {
	// Start is when the bucket starts.
	Start    time.Time
	Count    int64
	Sum      float64
	Min, Max float64
}

// CompletionGroup is what one LLM's completions add up to: Model is the
// model_name the completions were logged with.
type CompletionGroup struct {
	Model                                       string
	Completions                                 int64
	PromptTokens, CompletionTokens, TotalTokens int64
	Cost                                        float64
	// LatencyCount completions reported a latency, adding up to LatencySum.
	LatencyCount int64
	LatencySum   float64
}

// Add adds g's counts to c's.
func (c *CompletionGroup) Add(g CompletionGroup) {
	c.Completions += g.Completions
	c.PromptTokens += g.PromptTokens
	c.CompletionTokens += g.CompletionTokens
	c.TotalTokens += g.TotalTokens
	c.Cost += g.Cost
	c.LatencyCount += g.LatencyCount
	c.LatencySum += g.LatencySum
}

// Series is the part of the analytical store that sums metrics and LLM
// completions, read from their per-minute rollups.
type Series interface {
	// MetricSeries summarises f's values bucket by bucket, in time order,
	// leaving out the buckets without any.
	MetricSeries(ctx context.Context, f MetricFilter, b Buckets) ([]Summary, error)
	// MetricSummariesByModel summarises the values of one metric type in
	// r for each of the models, in one read of the rollups (the alert
	// evaluation's tick), never one read per model; a model without any
	// value has no entry.
	MetricSummariesByModel(ctx context.Context, orgID, metricType string, modelIDs []string, r Range) (map[string]Summary, error)
	// CompletionGroups sums the organization's completions in r by
	// model_name, of one model when modelID is set; ordered by model_name.
	CompletionGroups(ctx context.Context, orgID, modelID string, r Range) ([]CompletionGroup, error)
}

// ReadMetricSeries implements Series.MetricSeries on any engine that
// keeps the metric rollups named by t: the hours when whole hours fall in
// whole buckets, the minutes around them (and all of them otherwise).
// CAST(... AS Int64) is integer division on both engines: SQLite divides
// integers, ClickHouse floats exactly.
func ReadMetricSeries(ctx context.Context, read Reader, t RollupTables, f MetricFilter, b Buckets) ([]Summary, error) {
	head, hours, tail := b.cover()
	part := func(table, column string) string {
		return `SELECT CAST((` + column + ` - ?) / ? AS Int64) AS k, n, total, min_value, max_value FROM ` + table +
			` WHERE org_id = ? AND model_id = ? AND metric_type = ? AND (` + column + ` >= ? AND ` + column + ` < ? OR ` +
			column + ` >= ? AND ` + column + ` < ?)`
	}
	args := func(in ...Range) []any {
		out := []any{b.Start(), b.WidthMicros(), f.OrgID, f.ModelID, f.MetricType}
		for _, r := range in {
			out = append(out, r.From.UnixMicro(), r.To.UnixMicro())
		}
		return out
	}
	rows, err := read(ctx, `SELECT k, SUM(n), SUM(total), MIN(min_value), MAX(max_value) FROM (`+
		part(t.MetricMinutes, "minute")+` UNION ALL `+part(t.MetricHours, "hour")+`) GROUP BY k ORDER BY k`,
		append(args(head, tail), args(hours, hours)...)...)
	if err != nil {
		return nil, fmt.Errorf("metric series: %w", err)
	}
	defer rows.Close()
	out := []Summary{}
	for rows.Next() {
		var k int64
		var s Summary
		if err := rows.Scan(&k, &s.Count, &s.Sum, &s.Min, &s.Max); err != nil {
			return nil, err
		}
		s.Start = time.UnixMicro(b.Start() + k*b.WidthMicros()).UTC()
		out = append(out, s)
	}
	return out, rows.Err()
}

// ReadCompletionGroups implements Series.CompletionGroups on any engine
// that keeps the completion rollups named by t: whole hours from the hour
// rollup, the minutes around them from the minute rollup.
func ReadCompletionGroups(ctx context.Context, read Reader, t RollupTables, orgID, modelID string, r Range) ([]CompletionGroup, error) {
	head, hours, tail := Cover(r)
	where, args := PredictionFilter{OrgID: orgID, ModelID: modelID}.Where()
	const sums = `model_name, completions, prompt_tokens, completion_tokens, total_tokens, cost, latency_count, latency_sum`
	rows, err := read(ctx, `SELECT model_name, SUM(completions), SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens),
		SUM(cost), SUM(latency_count), SUM(latency_sum) FROM (
			SELECT `+sums+` FROM `+t.CompletionMinutes+` WHERE `+where+` AND (minute >= ? AND minute < ? OR minute >= ? AND minute < ?)
			UNION ALL SELECT `+sums+` FROM `+t.CompletionHours+` WHERE `+where+` AND hour >= ? AND hour < ?)
		GROUP BY model_name ORDER BY model_name`,
		slices.Concat(args, []any{head.From.UnixMicro(), head.To.UnixMicro(), tail.From.UnixMicro(), tail.To.UnixMicro()},
			args, []any{hours.From.UnixMicro(), hours.To.UnixMicro()})...)
	if err != nil {
		return nil, fmt.Errorf("completion totals: %w", err)
	}
	defer rows.Close()
	out := []CompletionGroup{}
	for rows.Next() {
		var g CompletionGroup
		if err := rows.Scan(&g.Model, &g.Completions, &g.PromptTokens, &g.CompletionTokens, &g.TotalTokens,
			&g.Cost, &g.LatencyCount, &g.LatencySum); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

// ReadMetricSummariesByModel implements Store.MetricSummariesByModel on
// any engine that keeps the metric rollups named by t, in one read as
// ReadMetricSeries reads one model over one bucket; in and inArgs test
// that model_id is one of the models as in ReadPredictionStatsByModel. A
// model without a value of the type in r has no entry; Start is r.From.
func ReadMetricSummariesByModel(ctx context.Context, read Reader, t RollupTables, orgID, metricType string, modelIDs []string,
	in string, inArgs []any, r Range) (map[string]Summary, error) {
	out := make(map[string]Summary, len(modelIDs))
	if len(modelIDs) == 0 {
		return out, nil
	}
	head, hours, tail := Cover(r)
	part := func(table, column string, ranges ...Range) (string, []any) {
		q := `SELECT model_id, n, total, min_value, max_value FROM ` + table + ` WHERE org_id = ? AND ` + in + ` AND metric_type = ? AND (`
		args := slices.Concat([]any{orgID}, inArgs, []any{metricType})
		for i, rg := range ranges {
			if i > 0 {
				q += ` OR `
			}
			q += column + ` >= ? AND ` + column + ` < ?`
			args = append(args, rg.From.UnixMicro(), rg.To.UnixMicro())
		}
		return q + `)`, args
	}
	minutes, minuteArgs := part(t.MetricMinutes, "minute", head, tail)
	hourly, hourArgs := part(t.MetricHours, "hour", hours)
	rows, err := read(ctx, `SELECT model_id, SUM(n), SUM(total), MIN(min_value), MAX(max_value) FROM (`+minutes+` UNION ALL `+hourly+
		`) GROUP BY model_id`, append(minuteArgs, hourArgs...)...)
	if err != nil {
		return nil, fmt.Errorf("metric summaries by model: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		s := Summary{Start: r.From}
		if err := rows.Scan(&id, &s.Count, &s.Sum, &s.Min, &s.Max); err != nil {
			return nil, fmt.Errorf("metric summaries by model: %w", err)
		}
		if s.Count > 0 {
			out[id] = s
		}
	}
	return out, rows.Err()
}

package analytics

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/vigilhq/vigil/stats/quantile"
)

// LLMTables name the LLM rollups as reads see them: completions by
// provider and model_name per minute and per hour, with their errors, the
// toxicity checks and flags, and a latency sketch.
type LLMTables struct{ Minutes, Hours string }

// LLMRollups names the LLM rollup tables; with a suffix (" FINAL"), each
// name followed by it.
func LLMRollups(suffix string) LLMTables {
	return LLMTables{Minutes: "llm_minutes" + suffix, Hours: "llm_hours" + suffix}
}

// LLMColumns are the summed columns of an LLM rollup row, in the order
// LLMSums.Scan reads them, in the types both engines scan alike.
const LLMColumns = `CAST(completions AS Int64), CAST(errors AS Int64), CAST(prompt_tokens AS Int64),
	CAST(completion_tokens AS Int64), CAST(total_tokens AS Int64), cost, CAST(scored AS Int64), CAST(flagged AS Int64),
	CAST(latency_count AS Int64), latency_sum, COALESCE(latency_sketch, '')`

// LLMSums are what completions add up to: one rollup row, or any number
// of them merged.
type LLMSums struct {
	Completions, Errors                         int64
	PromptTokens, CompletionTokens, TotalTokens int64
	Cost                                        float64
	// Scored completions had a toxicity check; Flagged of them were toxic.
	Scored, Flagged int64
	// LatencyCount completions reported a latency, adding up to
	// LatencySum; Latencies holds them for their percentiles.
	LatencyCount int64
	LatencySum   float64
	Latencies    quantile.Hybrid
}

// AddLatency counts one latency.
func (s *LLMSums) AddLatency(ms float64) {
	s.Latencies.Add(ms)
	s.LatencyCount++
	s.LatencySum += ms
}

// Merge adds o into s.
func (s *LLMSums) Merge(o *LLMSums) error {
	s.Completions += o.Completions
	s.Errors += o.Errors
	s.PromptTokens += o.PromptTokens
	s.CompletionTokens += o.CompletionTokens
	s.TotalTokens += o.TotalTokens
	s.Cost += o.Cost
	s.Scored += o.Scored
	s.Flagged += o.Flagged
	s.LatencyCount += o.LatencyCount
	s.LatencySum += o.LatencySum
	return s.Latencies.Merge(&o.Latencies)
}

// Sketch is the latencies as the latency_sketch column keeps them, empty
// without any.
func (s *LLMSums) Sketch() ([]byte, error) {
	if s.Latencies.Count() == 0 {
		return nil, nil
	}
	return s.Latencies.MarshalBinary()
}

// Scan reads one row of LLMColumns after the columns of first, merging
// the sums into s.
func (s *LLMSums) Scan(row Row, first ...any) error {
	var one LLMSums
	var sketch string
	if err := row.Scan(append(first, &one.Completions, &one.Errors, &one.PromptTokens, &one.CompletionTokens, &one.TotalTokens,
		&one.Cost, &one.Scored, &one.Flagged, &one.LatencyCount, &one.LatencySum, &sketch)...); err != nil {
		return err
	}
	if sketch != "" {
		if err := one.Latencies.UnmarshalBinary([]byte(sketch)); err != nil {
			return fmt.Errorf("stored latency sketch: %w", err)
		}
	}
	return s.Merge(&one)
}

// Percentile is the latency at quantile q (0.5 for the median), nil
// without latencies.
func (s *LLMSums) Percentile(q float64) (*float64, error) {
	if s.Latencies.Count() == 0 {
		return nil, nil
	}
	v, err := s.Latencies.Quantile(q)
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// LLMGroup is what one provider's model_name adds up to.
type LLMGroup struct {
	Provider, Model string
	LLMSums
}

// LLMPoint is what the completions of one bucket add up to.
type LLMPoint struct {
	Start time.Time
	LLMSums
}

// LLMSeries is the part of the analytical store that reads the LLM
// rollups.
type LLMSeries interface {
	// LLMGroups sums the organization's completions in r (of one model
	// when modelID is set) by provider and model_name, in that order.
	LLMGroups(ctx context.Context, orgID, modelID string, r Range) ([]LLMGroup, error)
	// LLMTrend sums the same completions bucket by bucket, in time order,
	// leaving out the buckets without any.
	LLMTrend(ctx context.Context, orgID, modelID string, b Buckets) ([]LLMPoint, error)
}

// llmRead reads the rows of the LLM rollups in the minutes head and tail
// and the hours of hours, each row's key first: key gives its columns
// from the name of the table's bucket column (minute, hour), keyArgs
// their arguments.
func llmRead(ctx context.Context, read Reader, t LLMTables, orgID, modelID string, key func(column string) string, keyArgs []any,
	head, hours, tail Range, each func(Row) error) error {
	where, args := PredictionFilter{OrgID: orgID, ModelID: modelID}.Where()
	q := func(table, column string) string {
		return `SELECT ` + key(column) + `, ` + LLMColumns + ` FROM ` + table + ` WHERE ` + where +
			` AND (` + column + ` >= ? AND ` + column + ` < ? OR ` + column + ` >= ? AND ` + column + ` < ?)`
	}
	rows, err := read(ctx, q(t.Minutes, "minute")+` UNION ALL `+q(t.Hours, "hour"), slices.Concat(
		keyArgs, args, []any{head.From.UnixMicro(), head.To.UnixMicro(), tail.From.UnixMicro(), tail.To.UnixMicro()},
		keyArgs, args, []any{hours.From.UnixMicro(), hours.To.UnixMicro(), hours.To.UnixMicro(), hours.To.UnixMicro()})...)
	if err != nil {
		return fmt.Errorf("llm rollups: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := each(rows); err != nil {
			return fmt.Errorf("llm rollups: %w", err)
		}
	}
	return rows.Err()
}

// ReadLLMGroups implements LLMSeries.LLMGroups on any engine that keeps
// the LLM rollups named by t: whole hours from the hour rollup, the
// minutes around them from the minute rollup, merged here with their
// latency sketches.
func ReadLLMGroups(ctx context.Context, read Reader, t LLMTables, orgID, modelID string, r Range) ([]LLMGroup, error) {
	head, hours, tail := Cover(r)
	groups := map[[2]string]*LLMGroup{}
	key := func(string) string { return "provider, model_name" }
	err := llmRead(ctx, read, t, orgID, modelID, key, nil, head, hours, tail, func(row Row) error {
		var g LLMGroup
		if err := g.Scan(row, &g.Provider, &g.Model); err != nil {
			return err
		}
		k := [2]string{g.Provider, g.Model}
		if groups[k] == nil {
			groups[k] = &LLMGroup{Provider: g.Provider, Model: g.Model}
		}
		return groups[k].Merge(&g.LLMSums)
	})
	if err != nil {
		return nil, err
	}
	out := make([]LLMGroup, 0, len(groups))
	for _, g := range groups {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b LLMGroup) int {
		return cmp.Or(cmp.Compare(a.Provider, b.Provider), cmp.Compare(a.Model, b.Model))
	})
	return out, nil
}

// ReadLLMTrend implements LLMSeries.LLMTrend as ReadLLMGroups does, the
// rows keyed by their bucket.
func ReadLLMTrend(ctx context.Context, read Reader, t LLMTables, orgID, modelID string, b Buckets) ([]LLMPoint, error) {
	head, hours, tail := b.cover()
	points := map[int64]*LLMPoint{}
	// CAST(... AS Int64) is integer division on both engines, as in
	// ReadMetricSeries.
	key := func(column string) string { return `CAST((` + column + ` - ?) / ? AS Int64)` }
	each := func(row Row) error {
		var k int64
		var p LLMPoint
		if err := p.Scan(row, &k); err != nil {
			return err
		}
		if points[k] == nil {
			points[k] = &LLMPoint{Start: time.UnixMicro(b.Start() + k*b.WidthMicros()).UTC()}
		}
		return points[k].Merge(&p.LLMSums)
	}
	err := llmRead(ctx, read, t, orgID, modelID, key, []any{b.Start(), b.WidthMicros()}, head, hours, tail, each)
	if err != nil {
		return nil, err
	}
	keys := make([]int64, 0, len(points))
	for k := range points {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]LLMPoint, 0, len(keys))
	for _, k := range keys {
		out = append(out, *points[k])
	}
	return out, nil
}

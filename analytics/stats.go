package analytics

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/stats/quantile"
)

// PredictionStats summarises a model's predictions over a range, from the
// per-minute and per-hour rollups rather than the rows.
type PredictionStats struct {
	TotalPredictions int64
	// Latencies are over the predictions that reported one; nil without.
	AvgLatencyMS, MinLatencyMS, MaxLatencyMS *float64
	// Percentiles interpolate linearly between the two latencies around
	// rank q·(n−1), as NumPy's default does (quantile.Hybrid): exactly
	// while the range holds at most quantile.ExactLimit latencies, within
	// a relative 1% beyond.
	P50LatencyMS, P95LatencyMS, P99LatencyMS *float64
	// Outputs counts the class labels the model answered (OutputLabels);
	// never nil.
	Outputs OutputDistribution
}

// RollupTables name the rollups of an analytical store as its reads see
// them (the engine may add to a name, as ClickHouse's FINAL). Every store
// keeps predictions, metric values and LLM completions summed per minute
// and per hour, each pair with the same columns but the bucket's: minute or
// hour, its start in Unix microseconds.
type RollupTables struct {
	PredictionMinutes, PredictionHours string
	MetricMinutes, MetricHours         string
	CompletionMinutes, CompletionHours string
}

// Rollups names the rollup tables as they are; with a suffix (" FINAL"),
// each name followed by it.
func Rollups(suffix string) RollupTables {
	return RollupTables{
		PredictionMinutes: "prediction_minutes" + suffix, PredictionHours: "prediction_hours" + suffix,
		MetricMinutes: "metric_minutes" + suffix, MetricHours: "metric_hours" + suffix,
		CompletionMinutes: "completion_minutes" + suffix, CompletionHours: "completion_hours" + suffix,
	}
}

// RollupColumns are the columns of a prediction rollup row that
// Bucket.Scan reads, in the types both engines scan alike.
const RollupColumns = `CAST(predictions AS Int64), CAST(latency_count AS Int64), latency_sum, latency_min, latency_max,
	COALESCE(latency_sketch, ''), COALESCE(output_counts, '')`

// Cover splits the minutes of r (from the start of From's minute to the
// end of the minute before To) into whole hours [hours.From, hours.To) and
// the minutes around them, head and tail; hours is empty (From == To)
// when r holds no whole hour, and head then covers all of r.
func Cover(r Range) (head, hours, tail Range) {
	from := r.From.Truncate(time.Minute)
	to := r.To.Truncate(time.Minute)
	if to.Before(r.To) {
		to = to.Add(time.Minute)
	}
	h1 := from.Truncate(time.Hour)
	if h1.Before(from) {
		h1 = h1.Add(time.Hour)
	}
	h2 := to.Truncate(time.Hour)
	if !h1.Before(h2) {
		return Range{from, to}, Range{h1, h1}, Range{to, to}
	}
	return Range{from, h1}, Range{h1, h2}, Range{h2, to}
}

// ReadPredictionStats implements Store.PredictionStats on any engine that
// keeps the prediction rollups: whole hours from the hour rollup, the
// minutes around them from the minute rollup, in one query, so that a
// month costs about 720 rows rather than 43,200.
func ReadPredictionStats(ctx context.Context, read Reader, t RollupTables, orgID, modelID string, r Range) (PredictionStats, error) {
	st := PredictionStats{Outputs: OutputDistribution{}}
	rows, err := read(ctx, coverSelect(RollupColumns, t, "model_id = ?"), coverArgs(orgID, []any{modelID}, r)...)
	if err != nil {
		return st, fmt.Errorf("prediction stats: %w", err)
	}
	defer rows.Close()
	var b Bucket
	for rows.Next() {
		var one Bucket
		if err := one.Scan(rows); err != nil {
			return st, fmt.Errorf("prediction stats: %w", err)
		}
		if err := b.Merge(&one); err != nil {
			return st, fmt.Errorf("prediction stats: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return st, fmt.Errorf("prediction stats: %w", err)
	}
	return st, b.fill(&st)
}

// ReadPredictionStatsByModel implements Store.PredictionStatsByModel on
// any engine that keeps the prediction rollups, in one read as
// ReadPredictionStats reads one model; in and inArgs test that model_id is
// one of the models as in ReadPredictionCounts. Every model asked for has
// an entry, the empty summary when it has no prediction in r.
func ReadPredictionStatsByModel(ctx context.Context, read Reader, t RollupTables, orgID string, modelIDs []string, in string, inArgs []any,
	r Range) (map[string]PredictionStats, error) {
	out := make(map[string]PredictionStats, len(modelIDs))
	for _, id := range modelIDs {
		out[id] = PredictionStats{Outputs: OutputDistribution{}}
	}
	if len(modelIDs) == 0 {
		return out, nil
	}
	args := coverArgs(orgID, inArgs, r)
	rows, err := read(ctx, coverSelect("model_id, "+RollupColumns, t, in), args...)
	if err != nil {
		return nil, fmt.Errorf("prediction stats by model: %w", err)
	}
	defer rows.Close()
	buckets := map[string]*Bucket{}
	for rows.Next() {
		var id string
		var one Bucket
		if err := one.Scan(rows, &id); err != nil {
			return nil, fmt.Errorf("prediction stats by model: %w", err)
		}
		b := buckets[id]
		if b == nil {
			b = &Bucket{}
			buckets[id] = b
		}
		if err := b.Merge(&one); err != nil {
			return nil, fmt.Errorf("prediction stats by model: %w", err)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("prediction stats by model: %w", err)
	}
	for id, b := range buckets {
		if _, asked := out[id]; !asked {
			continue
		}
		st := PredictionStats{Outputs: OutputDistribution{}}
		if err := b.fill(&st); err != nil {
			return nil, fmt.Errorf("prediction stats by model: %w", err)
		}
		out[id] = st
	}
	return out, nil
}

// fill sets st from the merged bucket.
func (b *Bucket) fill(st *PredictionStats) error {
	st.TotalPredictions = b.Predictions
	if b.Outputs != nil {
		st.Outputs = b.Outputs
		st.Outputs.Cap()
	}
	if b.LatencyCount == 0 {
		return nil
	}
	avg := b.LatencySum / float64(b.LatencyCount)
	st.AvgLatencyMS, st.MinLatencyMS, st.MaxLatencyMS = &avg, b.LatencyMin, b.LatencyMax
	for _, p := range []struct {
		q   float64
		dst **float64
	}{{0.5, &st.P50LatencyMS}, {0.95, &st.P95LatencyMS}, {0.99, &st.P99LatencyMS}} {
		v, err := b.Latencies.Quantile(p.q)
		if err != nil {
			return err
		}
		*p.dst = &v
	}
	return nil
}

// Bucket is one rollup row of a model's predictions: a minute or an hour,
// or any number of them merged.
type Bucket struct {
	Predictions  int64
	LatencyCount int64
	LatencySum   float64
	// LatencyMin and LatencyMax are nil when LatencyCount is 0.
	LatencyMin, LatencyMax *float64
	// Latencies holds the LatencyCount latencies for their percentiles.
	Latencies quantile.Hybrid
	// Outputs is nil until a prediction with labels is added.
	Outputs OutputDistribution
}

// AddLatency counts one latency.
func (b *Bucket) AddLatency(ms float64) {
	b.Latencies.Add(ms)
	b.LatencyCount++
	b.LatencySum += ms
	if b.LatencyMin == nil || ms < *b.LatencyMin {
		b.LatencyMin = &ms
	}
	if b.LatencyMax == nil || ms > *b.LatencyMax {
		b.LatencyMax = &ms
	}
}

// AddOutputs counts the labels of one prediction's output_data.
func (b *Bucket) AddOutputs(labels []Label) {
	for _, l := range labels {
		if b.Outputs == nil {
			b.Outputs = OutputDistribution{}
		}
		b.Outputs.Add(l, 1)
	}
}

// Merge adds o into b.
func (b *Bucket) Merge(o *Bucket) error {
	b.Predictions += o.Predictions
	b.LatencyCount += o.LatencyCount
	b.LatencySum += o.LatencySum
	if o.LatencyMin != nil && (b.LatencyMin == nil || *o.LatencyMin < *b.LatencyMin) {
		b.LatencyMin = o.LatencyMin
	}
	if o.LatencyMax != nil && (b.LatencyMax == nil || *o.LatencyMax > *b.LatencyMax) {
		b.LatencyMax = o.LatencyMax
	}
	if len(o.Outputs) > 0 {
		if b.Outputs == nil {
			b.Outputs = OutputDistribution{}
		}
		b.Outputs.Merge(o.Outputs)
	}
	return b.Latencies.Merge(&o.Latencies)
}

// Encode returns the latencies (quantile.Hybrid's encoding, in the
// latency_sketch column) and the output distribution as the rollups store
// them: empty when there is nothing to keep.
func (b *Bucket) Encode() (sketch, outputs []byte, err error) {
	if b.Latencies.Count() > 0 {
		if sketch, err = b.Latencies.MarshalBinary(); err != nil {
			return nil, nil, err
		}
	}
	outputs, err = b.Outputs.Encode()
	return sketch, outputs, err
}

// Decode sets the latencies and output distribution from their stored
// forms (Encode's, or a bare quantile.Sketch as rollups written before
// quantile.Hybrid hold), merging into what b holds.
func (b *Bucket) Decode(sketch, outputs []byte) error {
	if len(sketch) > 0 {
		var h quantile.Hybrid
		if err := h.UnmarshalBinary(sketch); err != nil {
			return fmt.Errorf("stored latency sketch: %w", err)
		}
		if err := b.Latencies.Merge(&h); err != nil {
			return err
		}
	}
	if len(outputs) == 0 {
		return nil
	}
	if b.Outputs == nil {
		b.Outputs = OutputDistribution{}
	}
	return b.Outputs.MergeEncoded(outputs)
}

// Scan reads one row of RollupColumns, after the columns of first.
func (b *Bucket) Scan(row Row, first ...any) error {
	var sketch, outputs string
	if err := row.Scan(append(first, &b.Predictions, &b.LatencyCount, &b.LatencySum, &b.LatencyMin, &b.LatencyMax, &sketch, &outputs)...); err != nil {
		return err
	}
	return b.Decode([]byte(sketch), []byte(outputs))
}

// ReadPredictionCounts implements Store.PredictionCounts on any engine
// that reads the rollups as t names them, in one read: the minutes around
// r's whole hours from the minute rollup, the hours from the hour rollup.
// in is the engine's test that model_id is one of the models, inArgs its
// arguments (SQLite: an IN list; ClickHouse: IN a list sent beside the
// query, no argument).
func ReadPredictionCounts(ctx context.Context, read Reader, t RollupTables, orgID, in string, inArgs []any, r Range) (map[string]int64, error) {
	args := coverArgs(orgID, inArgs, r)
	rows, err := read(ctx, `SELECT model_id, CAST(SUM(predictions) AS Int64) FROM (`+
		coverSelect("model_id, predictions", t, in)+`) GROUP BY model_id`, args...)
	if err != nil {
		return nil, fmt.Errorf("prediction counts: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("prediction counts: %w", err)
		}
		if n > 0 {
			out[id] = n
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("prediction counts: %w", err)
	}
	return out, nil
}

// coverArgs are the arguments of a read of the models' rollups over r as
// Cover splits it, in coverSelect's order: the minute rollup's head,
// its tail, then the hour rollup's hours, each with the organization and
// the models.
func coverArgs(orgID string, inArgs []any, r Range) []any {
	head, hours, tail := Cover(r)
	var args []any
	for _, p := range []Range{head, tail, hours} {
		args = append(append(append(args, orgID), inArgs...), p.From.UnixMicro(), p.To.UnixMicro())
	}
	return args
}

// coverSelect reads cols of the models' rollups (in tests model_id) over
// the three parts of Cover, each its own range of the tables' primary
// key: one OR of the two minute ranges would have the engine read every
// minute of the models (43,200 rows, sketches included, for 30 days).
func coverSelect(cols string, t RollupTables, in string) string {
	minutes := `SELECT ` + cols + ` FROM ` + t.PredictionMinutes + ` WHERE org_id = ? AND ` + in + ` AND minute >= ? AND minute < ?`
	return minutes + ` UNION ALL ` + minutes + ` UNION ALL SELECT ` + cols + ` FROM ` + t.PredictionHours +
		` WHERE org_id = ? AND ` + in + ` AND hour >= ? AND hour < ?`
}

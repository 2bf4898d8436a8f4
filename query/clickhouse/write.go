package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/processors/quantile"
)

var _ processors.Sink = (*Store)(nil)

// Write implements processors.Sink. ClickHouse has no transactions, so
// exactly-once counting rests on two steps that are each idempotent:
// events already stored (same organization, model and event id, within the
// batch's time window, where a replay of the log puts them) are left out of
// the insert; then each minute the batch touched is recomputed from the
// stored rows themselves and written as a new version of that minute's
// rollup. A crash anywhere leaves at worst a rollup that the replay
// recomputes.
//
// An event no store can hold, or one ClickHouse refuses as data, fails the
// batch with an error wrapping processors.ErrPermanent (see refused);
// anything else is retryable.
func (s *Store) Write(ctx context.Context, b processors.Batch) error {
	return processors.WriteChecked(ctx, b, s.write, refused)
}

func (s *Store) write(ctx context.Context, b processors.Batch) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	if err := s.writePredictions(ctx, b.Predictions); err != nil {
		return err
	}
	if err := s.writeMetrics(ctx, b.Metrics); err != nil {
		return err
	}
	return s.writeCompletions(ctx, b.Completions)
}

// modelKey groups a batch's events by organization and model.
type modelKey struct{ org, model string }

// stored returns which of ids are stored already for the model. Metrics
// and completions have server-made ids, so only a replay of the log
// repeats one, with its original time: the search stays within [from, to]
// (Unix microseconds). Predictions carry the caller's prediction_id, which
// a retry repeats with a new time: prediction_ids finds them by key.
func (s *Store) stored(ctx context.Context, table string, k modelKey, from, to int64, ids []string) (map[string]bool, error) {
	q := `SELECT event_id FROM ` + table + ` WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts <= ? AND has(?, event_id)`
	args := []any{k.org, k.model, from, to, ids}
	if table == "predictions" {
		q = `SELECT event_id FROM prediction_ids WHERE org_id = ? AND model_id = ? AND event_id IN (SELECT arrayJoin(?))`
		args = []any{k.org, k.model, ids}
	}
	rows, err := s.conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("clickhouse dedup read: %w", err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		seen[id] = true
	}
	return seen, rows.Err()
}

// eventKey places an event: its model, its id and its time.
type eventKey[E any] func(E) (modelKey, string, time.Time)

// write stores the events of one kind not stored yet with insert, then
// rolls up every minute the batch touches with rollup, whether its events
// were stored before or not: a replay after a crash between the insert
// and the rollup repairs the rollup.
func write[E any](ctx context.Context, s *Store, table string, es []E, key eventKey[E],
	insert func(context.Context, []E) error, rollup func(context.Context, touched) error) error {
	if len(es) == 0 {
		return nil
	}
	minutes := touched{}
	for _, e := range es {
		k, _, t := key(e)
		minutes.add(k, t)
	}
	es, err := fresh(ctx, s, table, es, key)
	if err != nil {
		return err
	}
	if len(es) > 0 {
		if err := insert(ctx, es); err != nil {
			return err
		}
	}
	return rollup(ctx, minutes)
}

// fresh filters events down to those not stored yet, per model.
func fresh[E any](ctx context.Context, s *Store, table string, es []E, key eventKey[E]) ([]E, error) {
	type group struct {
		ids      []string
		from, to int64
	}
	groups := map[modelKey]*group{}
	for _, e := range es {
		k, id, t := key(e)
		ts := t.UnixMicro()
		g := groups[k]
		if g == nil {
			g = &group{from: ts, to: ts}
			groups[k] = g
		}
		g.ids = append(g.ids, id)
		g.from, g.to = min(g.from, ts), max(g.to, ts)
	}
	seen := map[modelKey]map[string]bool{}
	for k, g := range groups {
		ids, err := s.stored(ctx, table, k, g.from, g.to, g.ids)
		if err != nil {
			return nil, err
		}
		seen[k] = ids
	}
	out := es[:0:0]
	dup := map[modelKey]map[string]bool{}
	for _, e := range es {
		k, id, _ := key(e)
		if seen[k][id] || dup[k][id] {
			continue
		}
		if dup[k] == nil {
			dup[k] = map[string]bool{}
		}
		dup[k][id] = true
		out = append(out, e)
	}
	return out, nil
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func (s *Store) writePredictions(ctx context.Context, ps []ingest.Prediction) error {
	return write(ctx, s, "predictions", ps, func(p ingest.Prediction) (modelKey, string, time.Time) {
		return modelKey{p.OrgID, p.ModelID}, p.PredictionID, p.Timestamp
	}, s.insertPredictions, s.rollupPredictions)
}

// rollupPredictions recomputes the touched minutes of each model.
func (s *Store) rollupPredictions(ctx context.Context, t touched) error {
	for k, set := range t {
		if err := s.rollupMinutes(ctx, k, set); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) insertPredictions(ctx context.Context, ps []ingest.Prediction) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO predictions
		(org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, p := range ps {
		in, out, meta := p.Documents()
		if err := batch.Append(p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), p.LatencyMS, in, out, meta); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	// The ids go in after the rows: a crash between the two leaves rows
	// whose replay inserts them again with the same sort key, merged away,
	// never ids without rows.
	return s.insertIDs(ctx, ps)
}

func (s *Store) insertIDs(ctx context.Context, ps []ingest.Prediction) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO prediction_ids (org_id, model_id, event_id, ts)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert ids: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, p := range ps {
		if err := batch.Append(p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro()); err != nil {
			return fmt.Errorf("clickhouse insert ids: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert ids: %w", err)
	}
	return nil
}

// predictionMinute is one minute's rollup row as rollupMinutes builds it.
type predictionMinute struct {
	n, latencyN uint64
	sum         float64
	lo, hi      *float64
	sketch      quantile.Sketch
}

// rollupMinutes recomputes a model's minutes from the stored rows, two
// server-side aggregations for all of them (so a batch that spans hours,
// as a backlog does, costs the same round trips as one that spans a
// minute), and writes them as the minutes' newest version.
func (s *Store) rollupMinutes(ctx context.Context, k modelKey, set map[int64]bool) error {
	minutes, lo, hi := span(set)
	// sum over a minute whose latencies are all NULL is NULL: ifNull keeps
	// the scan into a float.
	rows, err := s.conn.Query(ctx, `SELECT intDiv(ts, 60000000) * 60000000 AS m, count(), count(latency_ms),
		ifNull(sum(latency_ms), 0), min(latency_ms), max(latency_ms)
		FROM predictions FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND has(?, m) GROUP BY m`,
		k.org, k.model, lo, hi, minutes)
	if err != nil {
		return fmt.Errorf("clickhouse rollup read: %w", err)
	}
	defer rows.Close()
	got := map[int64]*predictionMinute{}
	for rows.Next() {
		var m int64
		r := &predictionMinute{}
		if err := rows.Scan(&m, &r.n, &r.latencyN, &r.sum, &r.lo, &r.hi); err != nil {
			return fmt.Errorf("clickhouse rollup read: %w", err)
		}
		got[m] = r
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("clickhouse rollup read: %w", err)
	}
	if err := s.latencySketches(ctx, k, minutes, lo, hi, got); err != nil {
		return err
	}
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO prediction_minutes
		(org_id, model_id, minute, predictions, latency_count, latency_sum, latency_min, latency_max, latency_sketch, version)`)
	if err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	version := uint64(time.Now().UnixNano())
	for m, r := range got {
		var sketch []byte
		if r.sketch.Count() > 0 {
			if sketch, err = r.sketch.MarshalBinary(); err != nil {
				return err
			}
		}
		if err := batch.Append(k.org, k.model, m, r.n, r.latencyN, r.sum, r.lo, r.hi, string(sketch), version); err != nil {
			return fmt.Errorf("clickhouse rollup: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
	}
	return nil
}

// span lists the minutes of set with the time range [lo, hi) that holds
// them, in Unix microseconds.
func span(set map[int64]bool) (minutes []int64, lo, hi int64) {
	lo, hi = int64(1<<63-1), int64(-1<<63)
	for m := range set {
		minutes = append(minutes, m)
		lo, hi = min(lo, m), max(hi, m)
	}
	return minutes, lo, hi + time.Minute.Microseconds()
}

// histogramWidth is the width, in natural log, of the latency histogram
// ClickHouse computes for a minute: 0.1%, so that a bucket's middle is
// within 0.1% of every latency in it, well inside the sketch's 1%.
const histogramWidth = 0.001

// latencySketches builds each minute's latency sketch from a histogram
// that ClickHouse computes over the stored rows, so the rows never cross
// the wire; latencies of 0, which have no logarithm, are the rest of the
// minute's latency count.
func (s *Store) latencySketches(ctx context.Context, k modelKey, minutes []int64, lo, hi int64, got map[int64]*predictionMinute) error {
	rows, err := s.conn.Query(ctx, `SELECT intDiv(ts, 60000000) * 60000000 AS m, floor(log(latency_ms) / ?) AS k, count()
		FROM predictions FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND has(?, m) AND latency_ms > 0
		GROUP BY m, k`, histogramWidth, k.org, k.model, lo, hi, minutes)
	if err != nil {
		return fmt.Errorf("clickhouse latency histogram: %w", err)
	}
	defer rows.Close()
	positive := map[int64]uint64{}
	for rows.Next() {
		var m int64
		var b float64
		var n uint64
		if err := rows.Scan(&m, &b, &n); err != nil {
			return fmt.Errorf("clickhouse latency histogram: %w", err)
		}
		if r := got[m]; r != nil {
			r.sketch.AddN(math.Exp((b+0.5)*histogramWidth), n)
			positive[m] += n
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("clickhouse latency histogram: %w", err)
	}
	for m, r := range got {
		if r.latencyN > positive[m] {
			r.sketch.AddN(0, r.latencyN-positive[m])
		}
	}
	return nil
}

func (s *Store) writeMetrics(ctx context.Context, ms []ingest.Metric) error {
	return write(ctx, s, "metrics", ms, func(m ingest.Metric) (modelKey, string, time.Time) {
		return modelKey{m.OrgID, m.ModelID}, m.ID, m.Timestamp
	}, s.insertMetrics, metricRollup.rewrite(s))
}

func (s *Store) insertMetrics(ctx context.Context, ms []ingest.Metric) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO metrics (org_id, model_id, event_id, metric_type, value, metadata, ts)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, m := range ms {
		meta, err := jsonText(m.Metadata)
		if err != nil {
			return err
		}
		if err := batch.Append(m.OrgID, m.ModelID, m.ID, m.MetricType, m.Value, meta, m.Timestamp.UnixMicro()); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	return nil
}

func (s *Store) writeCompletions(ctx context.Context, cs []ingest.Completion) error {
	return write(ctx, s, "completions", cs, func(c ingest.Completion) (modelKey, string, time.Time) {
		return modelKey{c.OrgID, c.ModelID}, c.ID, c.Timestamp
	}, s.insertCompletions, completionRollup.rewrite(s))
}

func (s *Store) insertCompletions(ctx context.Context, cs []ingest.Completion) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO completions (org_id, model_id, event_id, provider, model_name,
		prompt, completion, prompt_tokens, completion_tokens, total_tokens, latency_ms, cost, metadata, ts)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, c := range cs {
		meta, err := jsonText(c.Metadata)
		if err != nil {
			return err
		}
		if err := batch.Append(c.OrgID, c.ModelID, c.ID, c.Provider, c.ModelName, c.Prompt, c.Completion,
			c.Tokens.PromptTokens, c.Tokens.CompletionTokens, c.Tokens.TotalTokens, c.LatencyMS, c.Cost, meta,
			c.Timestamp.UnixMicro()); err != nil {
			return fmt.Errorf("clickhouse insert: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	return nil
}

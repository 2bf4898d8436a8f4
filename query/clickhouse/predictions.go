package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/query"
)

// tables names the rollups as reads see them: the newest
// version of each bucket.
var tables = query.Rollups(" FINAL")

func (s *Store) writePredictions(ctx context.Context, ps []ingest.Prediction) error {
	return write(ctx, s, "predictions", ps, func(p ingest.Prediction) (modelKey, string, time.Time) {
		return modelKey{p.OrgID, p.ModelID}, p.PredictionID, p.Timestamp
	}, s.insertPredictions, s.rollupPredictions)
}

// rollupPredictions recomputes the touched minutes of each model, then
// the hours that hold them from their minutes.
func (s *Store) rollupPredictions(ctx context.Context, t touched) error {
	for k, set := range t {
		if err := s.rollupMinutes(ctx, k, set); err != nil {
			return err
		}
		_, lo, hi := span(set)
		hours, err := query.SumHours(ctx, s.read, tables, k.org, k.model, lo, hi)
		if err != nil {
			return err
		}
		if err := s.writeHours(ctx, k.org, k.model, hours); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) insertPredictions(ctx context.Context, ps []ingest.Prediction) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO predictions
		(org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata, output_labels)`)
	if err != nil {
		return fmt.Errorf("clickhouse insert: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	for _, p := range ps {
		in, out, meta := p.Documents()
		labels, err := labelTexts(query.OutputLabels(p.OutputData))
		if err != nil {
			return err
		}
		if err := batch.Append(p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), p.LatencyMS, in, out, meta, labels); err != nil {
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

// labelTexts encodes labels for the output_labels column, each as the
// JSON array [field, value], so that no field or value can be mistaken
// for another.
func labelTexts(labels []query.Label) ([]string, error) {
	out := make([]string, len(labels))
	for i, l := range labels {
		b, err := json.Marshal([2]string{l.Field, l.Value})
		if err != nil {
			return nil, err
		}
		out[i] = string(b)
	}
	return out, nil
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

// rollupMinutes recomputes a model's minutes from the stored rows, two
// server-side aggregations for all of them (so a batch that spans hours,
// as a backlog does, costs the same round trips as one that spans a
// minute), and writes them as the minutes' newest version.
func (s *Store) rollupMinutes(ctx context.Context, k modelKey, set map[int64]bool) error {
	minutes, lo, hi := span(set)
	got, err := s.latencies(ctx, k, minutes, lo, hi)
	if err != nil {
		return err
	}
	if err := s.outputCounts(ctx, k, minutes, lo, hi, got); err != nil {
		return err
	}
	return s.writeBuckets(ctx, "prediction_minutes", "minute", k.org, k.model, got)
}

// writeHours writes one model's hours as their newest version.
func (s *Store) writeHours(ctx context.Context, orgID, modelID string, hours map[int64]*query.Bucket) error {
	return s.writeBuckets(ctx, "prediction_hours", "hour", orgID, modelID, hours)
}

// writeBuckets inserts one model's buckets into a prediction rollup, its
// start in column, as their newest version.
func (s *Store) writeBuckets(ctx context.Context, table, column, orgID, modelID string, buckets map[int64]*query.Bucket) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO `+table+`
		(org_id, model_id, `+column+`, predictions, latency_count, latency_sum, latency_min, latency_max,
		 latency_sketch, output_counts, version)`)
	if err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	version := uint64(time.Now().UnixNano())
	for start, b := range buckets {
		sketch, outputs, err := b.Encode()
		if err != nil {
			return err
		}
		if err := batch.Append(orgID, modelID, start, uint64(b.Predictions), uint64(b.LatencyCount), b.LatencySum,
			b.LatencyMin, b.LatencyMax, string(sketch), string(outputs), version); err != nil {
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

// latencies sums each minute's predictions and latencies and builds its
// latency sketch, in one scan: ClickHouse groups the rows by minute and
// by a histogram bucket of their latency (NULL without one, -Inf for 0,
// which has no logarithm), so the rows never cross the wire.
func (s *Store) latencies(ctx context.Context, k modelKey, minutes []int64, lo, hi int64) (map[int64]*query.Bucket, error) {
	// sum over a group whose latencies are all NULL is NULL: ifNull keeps
	// the scan into a float.
	rows, err := s.conn.Query(ctx, `SELECT intDiv(ts, 60000000) * 60000000 AS m, floor(log(latency_ms) / ?) AS k,
		CAST(count() AS Int64), CAST(count(latency_ms) AS Int64), ifNull(sum(latency_ms), 0), min(latency_ms), max(latency_ms)
		FROM predictions FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND has(?, m)
		GROUP BY m, k`, histogramWidth, k.org, k.model, lo, hi, minutes)
	if err != nil {
		return nil, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	defer rows.Close()
	got := map[int64]*query.Bucket{}
	for rows.Next() {
		var m int64
		var h *float64
		var one query.Bucket
		if err := rows.Scan(&m, &h, &one.Predictions, &one.LatencyCount, &one.LatencySum, &one.LatencyMin, &one.LatencyMax); err != nil {
			return nil, fmt.Errorf("clickhouse rollup read: %w", err)
		}
		switch {
		case h == nil:
		case math.IsInf(*h, -1):
			one.Sketch.AddN(0, uint64(one.LatencyCount))
		default:
			one.Sketch.AddN(math.Exp((*h+0.5)*histogramWidth), uint64(one.LatencyCount))
		}
		b := got[m]
		if b == nil {
			b = &query.Bucket{}
			got[m] = b
		}
		if err := b.Merge(&one); err != nil {
			return nil, err
		}
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	return got, nil
}

// outputCounts counts each minute's output labels over the stored rows,
// server-side.
func (s *Store) outputCounts(ctx context.Context, k modelKey, minutes []int64, lo, hi int64, got map[int64]*query.Bucket) error {
	rows, err := s.conn.Query(ctx, `SELECT intDiv(ts, 60000000) * 60000000 AS m, arrayJoin(output_labels) AS l, CAST(count() AS Int64)
		FROM predictions FINAL WHERE org_id = ? AND model_id = ? AND ts >= ? AND ts < ? AND has(?, m)
		GROUP BY m, l`, k.org, k.model, lo, hi, minutes)
	if err != nil {
		return fmt.Errorf("clickhouse output counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var m, n int64
		var text string
		if err := rows.Scan(&m, &text, &n); err != nil {
			return fmt.Errorf("clickhouse output counts: %w", err)
		}
		var l [2]string
		if err := json.Unmarshal([]byte(text), &l); err != nil {
			return fmt.Errorf("clickhouse output counts: stored label %q: %w", text, err)
		}
		if b := got[m]; b != nil {
			if b.Outputs == nil {
				b.Outputs = query.OutputDistribution{}
			}
			b.Outputs.Add(query.Label{Field: l[0], Value: l[1]}, n)
		}
	}
	return rows.Err()
}

package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/query"
)

// tables names the rollups as reads see them: the newest version of each
// bucket.
var tables = query.Rollups(" FINAL")

// writePredictions stores the predictions not stored yet and adds them to
// the minute and hour rollups, the rollups first: each rollup row records,
// per log partition, the highest offset it holds. A crash between the two
// steps replays events that the rollups skip by their offsets and that
// are stored then; a crash after both replays events that are stored
// already, left out as not fresh. Either way each is counted once, and a
// batch costs the same whatever its minute holds. Events without a log
// position (written straight to the Sink) are counted when fresh.
func (s *Store) writePredictions(ctx context.Context, ps []ingest.Prediction, positions map[processors.EventKey]processors.Position) error {
	if len(ps) == 0 {
		return nil
	}
	ps, err := fresh(ctx, s, "predictions", ps, func(p ingest.Prediction) (modelKey, string, time.Time) {
		return modelKey{p.OrgID, p.ModelID}, p.PredictionID, p.Timestamp
	})
	if err != nil || len(ps) == 0 {
		return err
	}
	byModel := map[modelKey][]ingest.Prediction{}
	for _, p := range ps {
		k := modelKey{p.OrgID, p.ModelID}
		byModel[k] = append(byModel[k], p)
	}
	var undo []func() error
	for k, mps := range byModel {
		for _, r := range resolutions {
			prev, err := s.addToRollup(ctx, r, k, mps, positions)
			if err != nil {
				return err
			}
			undo = append(undo, func() error { return s.insertBuckets(context.WithoutCancel(ctx), r, k.org, k.model, prev) })
		}
	}
	err = s.insertPredictions(ctx, ps)
	if err != nil && refused(err) {
		// The rows are refused for good: take the batch back out of the
		// rollups before the processor writes it in halves, so that the
		// events set aside are not counted. If that fails, the batch is
		// retried whole rather than split.
		for _, u := range undo {
			if uerr := u(); uerr != nil {
				return fmt.Errorf("clickhouse rollup undo after %v: %w", err, uerr)
			}
		}
	}
	return err
}

// resolution is one of the prediction rollups.
type resolution struct {
	table, column string
	width         time.Duration
}

var resolutions = []resolution{
	{"prediction_minutes", "minute", time.Minute},
	{"prediction_hours", "hour", time.Hour},
}

// counted is a rollup row being added to: its bucket and the highest log
// offset per partition it holds.
type counted struct {
	bucket  query.Bucket
	offsets map[int32]int64
}

// addToRollup adds one model's fresh predictions to the buckets of r they
// fall in: one read of those buckets' newest versions, one insert of
// their next ones. It returns the buckets as they were (empty ones for
// buckets that were not stored), to put back if the rows are refused.
func (s *Store) addToRollup(ctx context.Context, r resolution, k modelKey, ps []ingest.Prediction,
	positions map[processors.EventKey]processors.Position) (map[int64]*counted, error) {
	set := map[int64]bool{}
	for _, p := range ps {
		set[p.Timestamp.Truncate(r.width).UnixMicro()] = true
	}
	starts, lo, hi := span(set)
	buckets, err := s.loadBuckets(ctx, r, k, starts, lo, hi)
	if err != nil {
		return nil, err
	}
	prev := make(map[int64]*counted, len(starts))
	for _, start := range starts {
		if prev[start], err = buckets[start].clone(); err != nil {
			return nil, err
		}
	}
	for _, p := range ps {
		start := p.Timestamp.Truncate(r.width).UnixMicro()
		c := buckets[start]
		if c == nil {
			c = &counted{offsets: map[int32]int64{}}
			buckets[start] = c
		}
		pos, logged := positions[processors.EventKey{OrgID: p.OrgID, ModelID: p.ModelID, ID: p.PredictionID}]
		if last, ok := c.offsets[pos.Partition]; logged && ok && pos.Offset <= last {
			continue // counted before a crash cut this batch
		}
		if logged {
			c.offsets[pos.Partition] = pos.Offset
		}
		c.bucket.Predictions++
		if p.LatencyMS != nil {
			c.bucket.AddLatency(*p.LatencyMS)
		}
		c.bucket.AddOutputs(query.OutputLabels(p.OutputData))
	}
	return prev, s.insertBuckets(ctx, r, k.org, k.model, buckets)
}

// clone copies c, or makes an empty bucket when c is nil.
func (c *counted) clone() (*counted, error) {
	out := &counted{offsets: map[int32]int64{}}
	if c == nil {
		return out, nil
	}
	for p, o := range c.offsets {
		out.offsets[p] = o
	}
	b := c.bucket
	out.bucket = query.Bucket{Predictions: b.Predictions, LatencyCount: b.LatencyCount, LatencySum: b.LatencySum,
		LatencyMin: b.LatencyMin, LatencyMax: b.LatencyMax}
	sketch, outputs, err := b.Encode()
	if err != nil {
		return nil, err
	}
	return out, out.bucket.Decode(sketch, outputs)
}

// loadBuckets reads the newest version of one model's buckets of r that
// start in starts, within [lo, hi).
func (s *Store) loadBuckets(ctx context.Context, r resolution, k modelKey, starts []int64, lo, hi int64) (map[int64]*counted, error) {
	rows, err := s.conn.Query(ctx, `SELECT `+r.column+`, offsets, `+query.RollupColumns+` FROM `+r.table+` FINAL
		WHERE org_id = ? AND model_id = ? AND `+r.column+` >= ? AND `+r.column+` < ? AND has(?, `+r.column+`)`,
		k.org, k.model, lo, hi, starts)
	if err != nil {
		return nil, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	defer rows.Close()
	out := map[int64]*counted{}
	for rows.Next() {
		var start int64
		var offsets string
		c := &counted{}
		if err := c.bucket.Scan(rows, &start, &offsets); err != nil {
			return nil, fmt.Errorf("clickhouse rollup read: %w", err)
		}
		if offsets != "" {
			if err := json.Unmarshal([]byte(offsets), &c.offsets); err != nil {
				return nil, fmt.Errorf("clickhouse rollup read: stored offsets: %w", err)
			}
		}
		if c.offsets == nil {
			c.offsets = map[int32]int64{}
		}
		out[start] = c
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("clickhouse rollup read: %w", err)
	}
	return out, nil
}

// writeHours writes one model's hours as their newest version, holding no
// log offsets: query.FillHours's writer.
func (s *Store) writeHours(ctx context.Context, orgID, modelID string, hours map[int64]*query.Bucket) error {
	buckets := make(map[int64]*counted, len(hours))
	for h, b := range hours {
		buckets[h] = &counted{bucket: *b}
	}
	return s.insertBuckets(ctx, resolutions[1], orgID, modelID, buckets)
}

// insertBuckets inserts one model's buckets of r as their newest version.
func (s *Store) insertBuckets(ctx context.Context, r resolution, orgID, modelID string, buckets map[int64]*counted) error {
	batch, err := s.conn.PrepareBatch(ctx, `INSERT INTO `+r.table+`
		(org_id, model_id, `+r.column+`, predictions, latency_count, latency_sum, latency_min, latency_max,
		 latency_sketch, output_counts, offsets, version)`)
	if err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
	}
	defer batch.Close() // ends the INSERT when Send is not reached
	version := uint64(time.Now().UnixNano())
	for start, c := range buckets {
		sketch, outputs, err := c.bucket.Encode()
		if err != nil {
			return err
		}
		offsets := []byte("{}")
		if len(c.offsets) > 0 {
			if offsets, err = json.Marshal(c.offsets); err != nil {
				return err
			}
		}
		b := &c.bucket
		if err := batch.Append(orgID, modelID, start, uint64(b.Predictions), uint64(b.LatencyCount), b.LatencySum,
			b.LatencyMin, b.LatencyMax, string(sketch), string(outputs), string(offsets), version); err != nil {
			return fmt.Errorf("clickhouse rollup: %w", err)
		}
	}
	if err := batch.Send(); err != nil {
		return fmt.Errorf("clickhouse rollup: %w", err)
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

// span lists the bucket starts of set with the time range [lo, hi) that
// holds them, in Unix microseconds (hi is a minute past the last start).
func span(set map[int64]bool) (starts []int64, lo, hi int64) {
	lo, hi = int64(1<<63-1), int64(-1<<63)
	for m := range set {
		starts = append(starts, m)
		lo, hi = min(lo, m), max(hi, m)
	}
	return starts, lo, hi + time.Minute.Microseconds()
}

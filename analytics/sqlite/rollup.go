package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// resolution is one width of the rollups: the tables' suffix, the column
// holding a bucket's start and the bucket's width.
type resolution struct {
	suffix, column string
	width          time.Duration
}

// resolutions are the rollups' widths, finest first.
var resolutions = [...]resolution{
	{"minutes", "minute", time.Minute},
	{"hours", "hour", time.Hour},
}

// start is the start of t's bucket in Unix microseconds.
func (r resolution) start(t time.Time) int64 { return t.Truncate(r.width).UnixMicro() }

// tables names the rollups for the shared reads of package analytics.
var tables = analytics.Rollups("")

// bucketKey is one model's bucket at one resolution.
type bucketKey struct {
	org, model string
	start      int64
}

// rollupBatch sums a batch's newly stored predictions per bucket, at
// every resolution.
type rollupBatch [len(resolutions)]map[bucketKey]*analytics.Bucket

func (rb *rollupBatch) add(p eventlog.Prediction) {
	labels := analytics.PredictionLabels(p)
	for i, r := range resolutions {
		if rb[i] == nil {
			rb[i] = map[bucketKey]*analytics.Bucket{}
		}
		k := bucketKey{p.OrgID, p.ModelID, r.start(p.Timestamp)}
		b := rb[i][k]
		if b == nil {
			b = &analytics.Bucket{}
			rb[i][k] = b
		}
		b.Predictions++
		if p.LatencyMS != nil {
			b.AddLatency(*p.LatencyMS)
		}
		b.AddOutputs(labels)
	}
}

// rollup adds the batch's sums to the stored buckets: counts by addition,
// sketches and output distributions merged with the stored ones.
func (w writer) rollup(rb rollupBatch) error {
	for i, r := range resolutions {
		for k, b := range rb[i] {
			if err := w.upsert(r, k, b); err != nil {
				return fmt.Errorf("analytics rollup: %w", err)
			}
		}
	}
	return nil
}

func (w writer) upsert(r resolution, k bucketKey, b *analytics.Bucket) error {
	var sketch, outputs []byte
	err := w.tx.QueryRowContext(w.ctx, `SELECT latency_sketch, output_counts FROM prediction_`+r.suffix+
		` WHERE org_id = ? AND model_id = ? AND `+r.column+` = ?`, k.org, k.model, k.start).Scan(&sketch, &outputs)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	delta := struct{ n, latencyN int64 }{b.Predictions, b.LatencyCount}
	if err := b.Decode(sketch, outputs); err != nil {
		return err
	}
	if sketch, outputs, err = b.Encode(); err != nil {
		return err
	}
	_, err = w.tx.ExecContext(w.ctx, `INSERT INTO prediction_`+r.suffix+`
		(org_id, model_id, `+r.column+`, predictions, latency_count, latency_sum, latency_min, latency_max, latency_sketch, output_counts)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (org_id, model_id, `+r.column+`) DO UPDATE SET
			predictions = predictions + excluded.predictions,
			latency_count = latency_count + excluded.latency_count,
			latency_sum = latency_sum + excluded.latency_sum,
			latency_min = min(coalesce(latency_min, excluded.latency_min), coalesce(excluded.latency_min, latency_min)),
			latency_max = max(coalesce(latency_max, excluded.latency_max), coalesce(excluded.latency_max, latency_max)),
			latency_sketch = excluded.latency_sketch,
			output_counts = excluded.output_counts`,
		k.org, k.model, k.start, delta.n, delta.latencyN, b.LatencySum, b.LatencyMin, b.LatencyMax, nullBytes(sketch), string(outputs))
	return err
}

// nullBytes is NULL for an empty sketch, as the column has always held.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// writeHours replaces one model's hour rollups: analytics.FillHours's writer.
func (s *Store) writeHours(ctx context.Context, orgID, modelID string, hours map[int64]*analytics.Bucket) error {
	tx, end, err := s.beginWrite(ctx)
	if err != nil {
		return err
	}
	defer end()
	for h, b := range hours {
		sketch, outputs, err := b.Encode()
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT OR REPLACE INTO prediction_hours
			(org_id, model_id, hour, predictions, latency_count, latency_sum, latency_min, latency_max, latency_sketch, output_counts)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			orgID, modelID, h, b.Predictions, b.LatencyCount, b.LatencySum, b.LatencyMin, b.LatencyMax, nullBytes(sketch), string(outputs)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// fillSeries are the statements that sum one model's metric and
// completion minutes into hours, for analytics.FillHours; the placeholders are
// the organization and the model.
var fillSeries = []struct{ hours, minutes, stmt string }{
	{"metric_hours", "metric_minutes", `INSERT OR REPLACE INTO metric_hours
		(org_id, model_id, metric_type, hour, n, total, min_value, max_value)
		SELECT org_id, model_id, metric_type, minute / 3600000000 * 3600000000 AS h,
			SUM(n), SUM(total), MIN(min_value), MAX(max_value)
		FROM metric_minutes WHERE org_id = ? AND model_id = ? GROUP BY org_id, model_id, metric_type, h`},
	{"completion_hours", "completion_minutes", `INSERT OR REPLACE INTO completion_hours
		(org_id, model_id, model_name, hour, completions, prompt_tokens, completion_tokens, total_tokens, cost,
		 latency_count, latency_sum)
		SELECT org_id, model_id, model_name, minute / 3600000000 * 3600000000 AS h, SUM(completions),
			SUM(prompt_tokens), SUM(completion_tokens), SUM(total_tokens), SUM(cost), SUM(latency_count), SUM(latency_sum)
		FROM completion_minutes WHERE org_id = ? AND model_id = ? GROUP BY org_id, model_id, model_name, h`},
}

// fillHours fills every hour rollup that is empty from its minutes.
func (s *Store) fillHours(ctx context.Context) error {
	err := analytics.FillHours(ctx, s.read, tables.PredictionHours, tables.PredictionMinutes,
		analytics.PredictionHours(s.read, tables, s.writeHours))
	for _, f := range fillSeries {
		if err != nil {
			return err
		}
		err = analytics.FillHours(ctx, s.read, f.hours, f.minutes, func(ctx context.Context, orgID, modelID string) error {
			_, err := s.db.ExecContext(ctx, f.stmt, orgID, modelID)
			return err
		})
	}
	if err != nil {
		return err
	}
	return analytics.FillHours(ctx, s.read, llmTables.Hours, "completions", s.fillLLM)
}

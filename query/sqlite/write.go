package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/processors/quantile"
)

var _ processors.Sink = (*Store)(nil)

// minute is the start of t's minute in Unix microseconds.
func minute(t time.Time) int64 { return t.Truncate(time.Minute).UnixMicro() }

// Write implements processors.Sink: one transaction inserts the events not
// stored yet and adds exactly those to the rollups. An event no store can
// hold, or one SQLite refuses as data, fails the batch with an error
// wrapping processors.ErrPermanent; anything else is retryable.
func (s *Store) Write(ctx context.Context, b processors.Batch) error {
	return processors.WriteChecked(ctx, b, s.write, refused)
}

// SQLite's primary result codes that say the data is at fault.
const (
	sqliteTooBig     = 18
	sqliteConstraint = 19
	sqliteMismatch   = 20
	sqliteRange      = 25
)

// refused reports whether err says this batch's data can never be stored:
// it does not encode, or SQLite refuses it as too big, breaking a
// constraint or of the wrong type. Busy, I/O and full-disk errors are not.
func refused(err error) bool {
	var e *msqlite.Error
	if errors.As(err, &e) {
		switch e.Code() & 0xff {
		case sqliteTooBig, sqliteConstraint, sqliteMismatch, sqliteRange:
			return true
		}
	}
	return processors.Unencodable(err)
}

func (s *Store) write(ctx context.Context, b processors.Batch) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("analytics write: %w", err)
	}
	defer tx.Rollback()
	w := writer{tx: tx, ctx: ctx}
	if err := w.predictions(b.Predictions); err != nil {
		return err
	}
	if err := w.metrics(b.Metrics); err != nil {
		return err
	}
	if err := w.completions(b.Completions); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("analytics commit: %w", err)
	}
	return nil
}

// writer inserts one batch inside one transaction.
type writer struct {
	ctx context.Context
	tx  *sql.Tx
}

func jsonText(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func nullFloat(p *float64) sql.NullFloat64 {
	if p == nil {
		return sql.NullFloat64{}
	}
	return sql.NullFloat64{Float64: *p, Valid: true}
}

type predictionMinute struct {
	orgID, modelID         string
	minute                 int64
	n, latencyN            int64
	latencySum             float64
	latencyMin, latencyMax sql.NullFloat64
	sketch                 quantile.Sketch
}

// mergedSketch merges the minute's stored sketch, if any, into the batch's
// and encodes the result; nil when the minute has no latency at all.
func (w writer) mergedSketch(m *predictionMinute) ([]byte, error) {
	var stored []byte
	err := w.tx.QueryRowContext(w.ctx, `SELECT latency_sketch FROM prediction_minutes WHERE org_id = ? AND model_id = ? AND minute = ?`,
		m.orgID, m.modelID, m.minute).Scan(&stored)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("analytics rollup: %w", err)
	}
	if len(stored) > 0 {
		var s quantile.Sketch
		if err := s.UnmarshalBinary(stored); err != nil {
			return nil, fmt.Errorf("analytics rollup: stored sketch: %w", err)
		}
		if err := m.sketch.Merge(&s); err != nil {
			return nil, err
		}
	}
	if m.sketch.Count() == 0 {
		return nil, nil
	}
	return m.sketch.MarshalBinary()
}

func (w writer) predictions(ps []ingest.Prediction) error {
	if len(ps) == 0 {
		return nil
	}
	rows := make([][]any, len(ps))
	for i, p := range ps {
		in, out, meta := p.Documents()
		rows[i] = []any{p.OrgID, p.ModelID, p.PredictionID, p.Timestamp.UnixMicro(), nullFloat(p.LatencyMS), in, out, meta}
	}
	added, err := w.insertNew("predictions",
		[]string{"org_id", "model_id", "event_id", "ts", "latency_ms", "input_data", "output_data", "metadata"}, rows)
	if err != nil {
		return err
	}
	minutes := map[[3]any]*predictionMinute{}
	for _, p := range ps {
		if !take(added, eventKey{p.OrgID, p.ModelID, p.PredictionID}) {
			continue
		}
		k := [3]any{p.OrgID, p.ModelID, minute(p.Timestamp)}
		m := minutes[k]
		if m == nil {
			m = &predictionMinute{orgID: p.OrgID, modelID: p.ModelID, minute: minute(p.Timestamp)}
			minutes[k] = m
		}
		m.n++
		if l := p.LatencyMS; l != nil {
			m.sketch.Add(*l)
			m.latencyN++
			m.latencySum += *l
			if !m.latencyMin.Valid || *l < m.latencyMin.Float64 {
				m.latencyMin = sql.NullFloat64{Float64: *l, Valid: true}
			}
			if !m.latencyMax.Valid || *l > m.latencyMax.Float64 {
				m.latencyMax = sql.NullFloat64{Float64: *l, Valid: true}
			}
		}
	}
	for _, m := range minutes {
		sketch, err := w.mergedSketch(m)
		if err != nil {
			return err
		}
		if _, err := w.tx.ExecContext(w.ctx, `INSERT INTO prediction_minutes
			(org_id, model_id, minute, predictions, latency_count, latency_sum, latency_min, latency_max, latency_sketch)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (org_id, model_id, minute) DO UPDATE SET
				predictions = predictions + excluded.predictions,
				latency_count = latency_count + excluded.latency_count,
				latency_sum = latency_sum + excluded.latency_sum,
				latency_min = min(coalesce(latency_min, excluded.latency_min), coalesce(excluded.latency_min, latency_min)),
				latency_max = max(coalesce(latency_max, excluded.latency_max), coalesce(excluded.latency_max, latency_max)),
				latency_sketch = excluded.latency_sketch`,
			m.orgID, m.modelID, m.minute, m.n, m.latencyN, m.latencySum, m.latencyMin, m.latencyMax, sketch); err != nil {
			return fmt.Errorf("analytics rollup: %w", err)
		}
	}
	return nil
}

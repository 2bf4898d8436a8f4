package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	msqlite "modernc.org/sqlite"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

var _ analytics.Sink = (*Store)(nil)

// Write implements analytics.Sink: one transaction inserts the events not
// stored yet and adds exactly those to the rollups. An event no store can
// hold, or one SQLite refuses as data, fails the batch with an error
// wrapping analytics.ErrPermanent; anything else is retryable.
func (s *Store) Write(ctx context.Context, b analytics.Batch) error {
	return analytics.WriteChecked(ctx, b, s.write, refused)
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
	return analytics.Unencodable(err)
}

func (s *Store) write(ctx context.Context, b analytics.Batch) error {
	tx, end, err := s.beginWrite(ctx)
	if err != nil {
		return fmt.Errorf("analytics write: %w", err)
	}
	defer end()
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
	s.ckpt.written()
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

func (w writer) predictions(ps []eventlog.Prediction) error {
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
	var b rollupBatch
	for _, p := range newOnly(ps, added, func(p eventlog.Prediction) eventKey { return eventKey{p.OrgID, p.ModelID, p.PredictionID} }) {
		b.add(p)
	}
	return w.rollup(b)
}

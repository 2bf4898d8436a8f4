package analytics

import (
	"context"
	"fmt"
	"iter"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// PredictionColumns are the columns ScanPrediction reads, in order; every
// analytical store keeps predictions under these names.
const PredictionColumns = `org_id, model_id, event_id, ts, latency_ms, input_data, output_data, metadata`

// Row is one result row of any analytical engine's driver.
type Row interface{ Scan(dest ...any) error }

// Rows are result rows of any analytical engine's driver: *sql.Rows and
// ClickHouse's driver.Rows alike.
type Rows interface {
	Row
	Next() bool
	Err() error
}

// Reader runs a read query on an analytical engine: *sql.DB's
// QueryContext and ClickHouse's Query alike, through a one-line adapter.
type Reader func(ctx context.Context, q string, args ...any) (ClosingRows, error)

// ClosingRows are Rows that must be closed.
type ClosingRows interface {
	Rows
	Close() error
}

// ReadPredictions implements Store.EachPrediction on any engine: read runs
// f's query on table, the predictions as the engine reads them
// (ClickHouse: with FINAL, so that replays are merged away), and the rows
// are yielded as the driver reads them.
func ReadPredictions(ctx context.Context, read Reader, table string, f PredictionFilter) iter.Seq2[eventlog.Prediction, error] {
	return func(yield func(eventlog.Prediction, error) bool) {
		stmt, args := f.Select(table)
		rows, err := read(ctx, stmt, args...)
		if err != nil {
			yield(eventlog.Prediction{}, fmt.Errorf("query predictions: %w", err))
			return
		}
		defer rows.Close()
		yieldPredictions(rows, yield)
	}
}

// ScanPrediction reads one row of PredictionColumns.
func ScanPrediction(row Row) (eventlog.Prediction, error) {
	var p eventlog.Prediction
	var ts int64
	var in, out, meta string
	if err := row.Scan(&p.OrgID, &p.ModelID, &p.PredictionID, &ts, &p.LatencyMS, &in, &out, &meta); err != nil {
		return p, err
	}
	p.Timestamp = time.UnixMicro(ts).UTC()
	p.SetDocuments(in, out, meta)
	return p, nil
}

// ScanPredictions reads every row of PredictionColumns; never nil.
func ScanPredictions(rows Rows) ([]eventlog.Prediction, error) {
	return Collect(func(yield func(eventlog.Prediction, error) bool) { yieldPredictions(rows, yield) })
}

// yieldPredictions passes each row of PredictionColumns to yield as it is
// read, until yield returns false; a scan error or the rows' error is
// yielded once, last. The caller closes rows.
func yieldPredictions(rows Rows, yield func(eventlog.Prediction, error) bool) {
	for rows.Next() {
		p, err := ScanPrediction(rows)
		if err != nil {
			yield(eventlog.Prediction{}, err)
			return
		}
		if !yield(p, nil) {
			return
		}
	}
	if err := rows.Err(); err != nil {
		yield(eventlog.Prediction{}, err)
	}
}

// Collect gathers the predictions of seq up to its first error; never nil.
func Collect(seq iter.Seq2[eventlog.Prediction, error]) ([]eventlog.Prediction, error) {
	out := []eventlog.Prediction{}
	for p, err := range seq {
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

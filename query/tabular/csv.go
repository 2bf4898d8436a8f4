package tabular

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// csvWriter writes RFC 4180 CSV: a header row of Columns, then one row per
// prediction. The timestamp is RFC 3339 in UTC with as many fractional
// digits as it needs; latency_ms is empty when the prediction reported
// none. Cells are written as they are: a spreadsheet may read a
// prediction_id that starts with "=" as a formula.
type csvWriter struct {
	w     *csv.Writer
	cells []string
}

func newCSV(w io.Writer, _ Options) Writer {
	return &csvWriter{w: csv.NewWriter(w), cells: make([]string, len(Columns))}
}

func (c *csvWriter) Begin() error { return c.record(Columns) }

func (c *csvWriter) Write(p eventlog.Prediction) error {
	r := newRow(p)
	latency := ""
	if r.latency != nil {
		latency = strconv.FormatFloat(*r.latency, 'f', -1, 64)
	}
	c.cells[0], c.cells[1], c.cells[2], c.cells[3] = r.id, r.modelID, r.ts.Format(time.RFC3339Nano), latency
	c.cells[4], c.cells[5], c.cells[6] = r.input, r.output, r.metadata
	return c.record(c.cells)
}

func (c *csvWriter) Close() error {
	c.w.Flush()
	if err := c.w.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

func (c *csvWriter) record(cells []string) error {
	if err := c.w.Write(cells); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	return nil
}

package tabular

import (
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// row is a prediction as the text formats and the columnar ones write it:
// its documents as JSON text.
type row struct {
	id, modelID             string
	ts                      time.Time
	latency                 *float64
	input, output, metadata string
}

func newRow(p eventlog.Prediction) row {
	in, out, meta := p.Documents()
	return row{id: p.PredictionID, modelID: p.ModelID, ts: p.Timestamp.UTC(), latency: p.LatencyMS,
		input: in, output: out, metadata: meta}
}

// size is about how many bytes the row's text takes.
func (r row) size() int {
	return len(r.id) + len(r.modelID) + len(r.input) + len(r.output) + len(r.metadata) + 16
}

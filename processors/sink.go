package processors

import (
	"context"

	"github.com/vigilhq/vigil/ingest"
)

// Batch is what one poll of the log decodes to.
type Batch struct {
	Predictions []ingest.Prediction
	Metrics     []ingest.Metric
	Completions []ingest.Completion
}

// Len is the number of events in b.
func (b Batch) Len() int { return len(b.Predictions) + len(b.Metrics) + len(b.Completions) }

// Sink is the analytical store as the processors write it: SQLite on the
// embedded default (query/sqlite), ClickHouse at scale (query/clickhouse).
type Sink interface {
	// Write stores the batch's events and folds them into the per-minute
	// rollups. It is idempotent: an event already stored (same
	// organization, model and event id) is neither stored nor counted
	// again, so replaying a batch after a crash changes nothing. Durable
	// before nil; on error the processor retries the batch and does not
	// commit its offsets.
	Write(ctx context.Context, b Batch) error
}

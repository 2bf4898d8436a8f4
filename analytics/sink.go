package analytics

import (
	"context"

	"github.com/vigilhq/vigil/eventlog"
)

// Batch is what one poll of the log decodes to.
type Batch struct {
	Predictions []eventlog.Prediction
	Metrics     []eventlog.Metric
	Completions []eventlog.Completion
	// Positions places each prediction in the log, keyed by its
	// organization, model and id; nil for events that came from no log.
	// A sink may keep them with its rollups to count each log record
	// once, however a crash cuts the work (analytics/clickhouse does).
	Positions map[EventKey]Position
}

// EventKey identifies an event within its organization and model.
type EventKey struct{ OrgID, ModelID, ID string }

// Len is the number of events in b.
func (b Batch) Len() int { return len(b.Predictions) + len(b.Metrics) + len(b.Completions) }

// Sink is the analytical store as the processors write it: SQLite on the
// embedded default (analytics/sqlite), ClickHouse at scale (analytics/clickhouse).
type Sink interface {
	// Write stores the batch's events and folds them into the per-minute
	// rollups. It is idempotent: an event already stored (same
	// organization, model and event id) is neither stored nor counted
	// again, so replaying a batch after a crash changes nothing, nor does
	// writing part of a batch again. Durable before nil. An error wrapping
	// ErrPermanent says the batch holds data the store never takes: the
	// processor then writes it in halves and sets the refused events
	// aside (DeadLetters). Any other error (store down, network, timeout)
	// is retried with the offsets left uncommitted.
	Write(ctx context.Context, b Batch) error
}

package analytics

import (
	"context"
	"iter"
	"math"
	"strings"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// Range is a half-open time interval [From, To).
type Range struct {
	From, To time.Time
}

// PredictionFilter selects stored predictions of one organization.
type PredictionFilter struct {
	OrgID string
	// ModelID, when set, keeps one model's predictions.
	ModelID string
	Range   Range
	// Limit bounds the predictions returned; 0 means all of them.
	Limit  int
	Offset int
	// Oldest orders oldest first; the default is newest first. Ties on
	// the time are broken by the prediction id, the same way round.
	Oldest bool
}

// Where renders f as SQL conditions on org_id, model_id and ts (Unix
// microseconds) with ? placeholders, which every analytical engine takes.
func (f PredictionFilter) Where() (string, []any) {
	where, args := []string{"org_id = ?"}, []any{f.OrgID}
	if f.ModelID != "" {
		where, args = append(where, "model_id = ?"), append(args, f.ModelID)
	}
	if !f.Range.From.IsZero() {
		where, args = append(where, "ts >= ?"), append(args, f.Range.From.UnixMicro())
	}
	if !f.Range.To.IsZero() {
		where, args = append(where, "ts < ?"), append(args, f.Range.To.UnixMicro())
	}
	return strings.Join(where, " AND "), args
}

// Select renders the whole query for f over table (the engine may add to
// the name, as ClickHouse's FINAL): PredictionColumns, Where, the order and
// the page, with ? placeholders.
func (f PredictionFilter) Select(table string) (string, []any) {
	where, args := f.Where()
	order := "DESC"
	if f.Oldest {
		order = "ASC"
	}
	// Both engines take OFFSET only after a LIMIT: no limit is the
	// largest one.
	limit := int64(f.Limit)
	if limit <= 0 {
		limit = math.MaxInt64
	}
	return `SELECT ` + PredictionColumns + ` FROM ` + table + ` WHERE ` + where +
		` ORDER BY ts ` + order + `, event_id ` + order + ` LIMIT ? OFFSET ?`, append(args, limit, f.Offset)
}

// Activity is what a model's predictions add up to: how many are stored
// and when the newest was received.
type Activity struct {
	Predictions int64
	Last        *time.Time
}

// Store is the analytical store as the query API reads it: SQLite on the
// embedded default (analytics/sqlite), ClickHouse at scale (analytics/clickhouse).
// Every method is scoped to one organization.
type Store interface {
	// Predictions returns stored predictions in f's order.
	Predictions(ctx context.Context, f PredictionFilter) ([]eventlog.Prediction, error)
	// EachPrediction yields the same predictions as Predictions, one at a
	// time as the engine's driver reads them, so that memory does not grow
	// with their number. The query runs when the sequence is ranged over;
	// an error is yielded once and ends it, and stopping early releases the
	// engine's connection.
	EachPrediction(ctx context.Context, f PredictionFilter) iter.Seq2[eventlog.Prediction, error]
	// Prediction returns one model's prediction by its id;
	// store.ErrNotFound when there is none.
	Prediction(ctx context.Context, orgID, modelID, predictionID string) (eventlog.Prediction, error)
	// PredictionStats summarises a model's predictions in r.
	PredictionStats(ctx context.Context, orgID, modelID string, r Range) (PredictionStats, error)
	// PredictionStatsByModel is PredictionStats of each of the models in
	// one read of the rollups (the alert evaluation's tick), never one
	// read per model; every model asked for has an entry.
	PredictionStatsByModel(ctx context.Context, orgID string, modelIDs []string, r Range) (map[string]PredictionStats, error)
	// Activity returns the activity of each of the models that has any.
	Activity(ctx context.Context, orgID string, modelIDs []string) (map[string]Activity, error)
	// PredictionCounts returns how many predictions each of the models
	// with any has in r, in one read of the rollups (the dashboard's
	// figures), never one read per model.
	PredictionCounts(ctx context.Context, orgID string, modelIDs []string, r Range) (map[string]int64, error)
	Series
	LLMSeries
	// Completion returns the organization's completion with the id (its
	// model, provider, model_name, prompt and completion);
	// store.ErrNotFound when there is none.
	Completion(ctx context.Context, orgID, id string) (eventlog.Completion, error)
	// DeadLetters returns up to limit of the organization's dead letters
	// (events the store refused for good), newest first.
	DeadLetters(ctx context.Context, orgID string, limit int) ([]DeadLetter, error)
	// DeadLetterCount is how many of the model's events were set aside in
	// r (whole minutes), read from per-minute counts kept as they are set
	// aside, never from the dead letters themselves.
	DeadLetterCount(ctx context.Context, orgID, modelID string, r Range) (int64, error)
}

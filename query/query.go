package query

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/processors/quantile"
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
	Limit   int
	Offset  int
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

// PredictionStats summarises a model's predictions over a range, from the
// per-minute rollups rather than the rows.
type PredictionStats struct {
	TotalPredictions int64
	// Latencies are over the predictions that reported one; nil without.
	AvgLatencyMS, MinLatencyMS, MaxLatencyMS *float64
	// Percentiles come from the minutes' merged quantile sketches, within
	// about 1% of the exact value (processors/quantile).
	P50LatencyMS, P95LatencyMS, P99LatencyMS *float64
}

// MergePercentiles merges encoded minute sketches and fills the
// percentiles from the result; nothing when there are none.
func (st *PredictionStats) MergePercentiles(sketches [][]byte) error {
	var merged, one quantile.Sketch
	for _, b := range sketches {
		if err := one.UnmarshalBinary(b); err != nil {
			return fmt.Errorf("stored latency sketch: %w", err)
		}
		if err := merged.Merge(&one); err != nil {
			return err
		}
	}
	if merged.Count() == 0 {
		return nil
	}
	for _, p := range []struct {
		q   float64
		dst **float64
	}{{0.5, &st.P50LatencyMS}, {0.95, &st.P95LatencyMS}, {0.99, &st.P99LatencyMS}} {
		v, err := merged.Quantile(p.q)
		if err != nil {
			return err
		}
		*p.dst = &v
	}
	return nil
}

// Activity is what a model's predictions add up to: how many are stored
// and when the newest was received.
type Activity struct {
	Predictions int64
	Last        *time.Time
}

// Store is the analytical store as the query API reads it: SQLite on the
// embedded default (query/sqlite), ClickHouse at scale (query/clickhouse).
// Every method is scoped to one organization.
type Store interface {
	// Predictions returns stored predictions, newest first.
	Predictions(ctx context.Context, f PredictionFilter) ([]ingest.Prediction, error)
	// Prediction returns one model's prediction by its id;
	// store.ErrNotFound when there is none.
	Prediction(ctx context.Context, orgID, modelID, predictionID string) (ingest.Prediction, error)
	// PredictionStats summarises a model's predictions in r.
	PredictionStats(ctx context.Context, orgID, modelID string, r Range) (PredictionStats, error)
	// Activity returns the activity of each of the models that has any.
	Activity(ctx context.Context, orgID string, modelIDs []string) (map[string]Activity, error)
	Series
	// DeadLetters returns up to limit of the organization's dead letters
	// (events the store refused for good), newest first.
	DeadLetters(ctx context.Context, orgID string, limit int) ([]processors.DeadLetter, error)
}

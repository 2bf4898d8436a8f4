package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/store"
)

var _ analytics.Store = (*Store)(nil)

// Predictions implements analytics.Store.
func (s *Store) Predictions(ctx context.Context, f analytics.PredictionFilter) ([]eventlog.Prediction, error) {
	return analytics.Collect(s.EachPrediction(ctx, f))
}

// EachPrediction implements analytics.Store: SQLite steps through the rows as
// they are read. The read holds one of the pool's connections, and one
// snapshot of the file, until the sequence ends.
func (s *Store) EachPrediction(ctx context.Context, f analytics.PredictionFilter) iter.Seq2[eventlog.Prediction, error] {
	return analytics.ReadPredictions(ctx, s.read, "predictions", f)
}

// Prediction implements analytics.Store.
func (s *Store) Prediction(ctx context.Context, orgID, modelID, predictionID string) (eventlog.Prediction, error) {
	p, err := analytics.ScanPrediction(s.db.QueryRowContext(ctx, `SELECT `+analytics.PredictionColumns+
		` FROM predictions WHERE org_id = ? AND model_id = ? AND event_id = ?`, orgID, modelID, predictionID))
	if errors.Is(err, sql.ErrNoRows) {
		return p, store.ErrNotFound
	}
	return p, err
}

// PredictionStats implements analytics.Store from the hour and minute
// rollups. The range is widened to whole minutes, the rollups' resolution.
func (s *Store) PredictionStats(ctx context.Context, orgID, modelID string, r analytics.Range) (analytics.PredictionStats, error) {
	return analytics.ReadPredictionStats(ctx, s.read, tables, orgID, modelID, r)
}

// PredictionStatsByModel implements analytics.Store from the hour and
// minute rollups.
func (s *Store) PredictionStatsByModel(ctx context.Context, orgID string, modelIDs []string, r analytics.Range) (map[string]analytics.PredictionStats, error) {
	in, err := modelList(modelIDs)
	if err != nil {
		return nil, err
	}
	return analytics.ReadPredictionStatsByModel(ctx, s.read, tables, orgID, modelIDs, inModels, in, r)
}

// PredictionCounts implements analytics.Store from the hour and minute
// rollups.
func (s *Store) PredictionCounts(ctx context.Context, orgID string, modelIDs []string, r analytics.Range) (map[string]int64, error) {
	if len(modelIDs) == 0 {
		return map[string]int64{}, nil
	}
	in, err := modelList(modelIDs)
	if err != nil {
		return nil, err
	}
	return analytics.ReadPredictionCounts(ctx, s.read, tables, orgID, inModels, in, r)
}

// Activity implements analytics.Store: counts from the hour rollups, the
// newest time from the rows' time index.
func (s *Store) Activity(ctx context.Context, orgID string, modelIDs []string) (map[string]analytics.Activity, error) {
	out := map[string]analytics.Activity{}
	if len(modelIDs) == 0 {
		return out, nil
	}
	in, err := modelList(modelIDs)
	if err != nil {
		return nil, err
	}
	rows, err := s.db.QueryContext(ctx, `SELECT model_id, SUM(predictions) FROM prediction_hours
		WHERE org_id = ? AND `+inModels+` GROUP BY model_id`, append([]any{orgID}, in...)...)
	if err != nil {
		return nil, fmt.Errorf("model activity: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = analytics.Activity{Predictions: n}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for id, a := range out {
		var last int64
		if err := s.db.QueryRowContext(ctx, `SELECT MAX(ts) FROM predictions WHERE org_id = ? AND model_id = ?`, orgID, id).Scan(&last); err != nil {
			return nil, fmt.Errorf("model activity: %w", err)
		}
		t := time.UnixMicro(last).UTC()
		a.Last = &t
		out[id] = a
	}
	return out, nil
}

// inModels tests that model_id is one of a list of ids bound as one JSON
// array (modelList): one parameter however many models there are, where
// an IN list of parameters would pass SQLite's 32,766 (issue 33).
const inModels = "model_id IN (SELECT value FROM json_each(?))"

// modelList is the argument of inModels for ids.
func modelList(ids []string) ([]any, error) {
	b, err := json.Marshal(ids)
	if err != nil {
		return nil, fmt.Errorf("model list: %w", err)
	}
	return []any{string(b)}, nil
}

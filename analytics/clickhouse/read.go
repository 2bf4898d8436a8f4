package clickhouse

import (
	"context"
	"fmt"
	"iter"
	"slices"
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

// EachPrediction implements analytics.Store. FINAL merges replays away before
// the rows are ordered and counted out; the driver reads the answer one
// block at a time.
func (s *Store) EachPrediction(ctx context.Context, f analytics.PredictionFilter) iter.Seq2[eventlog.Prediction, error] {
	return analytics.ReadPredictions(ctx, s.read, "predictions FINAL", f)
}

// Prediction implements analytics.Store. prediction_ids, ordered by id, gives
// the prediction's time, which the predictions table is ordered by: both
// reads use the primary key, however many predictions the model has. (Ids
// are written after rows, so an id found has its row.)
func (s *Store) Prediction(ctx context.Context, orgID, modelID, predictionID string) (eventlog.Prediction, error) {
	if err := s.ensure(ctx); err != nil {
		return eventlog.Prediction{}, err
	}
	var ts []int64
	err := s.conn.QueryRow(ctx, `SELECT groupArray(ts) FROM prediction_ids WHERE org_id = ? AND model_id = ? AND event_id = ?`,
		orgID, modelID, predictionID).Scan(&ts)
	if err != nil {
		return eventlog.Prediction{}, fmt.Errorf("query prediction: %w", err)
	}
	if len(ts) == 0 {
		return eventlog.Prediction{}, store.ErrNotFound
	}
	first := slices.Min(ts)
	ps, err := func() ([]eventlog.Prediction, error) {
		rows, err := s.conn.Query(ctx, `SELECT `+analytics.PredictionColumns+` FROM predictions
			WHERE org_id = ? AND model_id = ? AND ts = ? AND event_id = ? LIMIT 1`, orgID, modelID, first, predictionID)
		if err != nil {
			return nil, fmt.Errorf("query prediction: %w", err)
		}
		defer rows.Close()
		return analytics.ScanPredictions(rows)
	}()
	if err != nil {
		return eventlog.Prediction{}, err
	}
	if len(ps) == 0 {
		return eventlog.Prediction{}, store.ErrNotFound
	}
	return ps[0], nil
}

// PredictionStats implements analytics.Store from the newest version of each
// hour's and minute's rollup.
func (s *Store) PredictionStats(ctx context.Context, orgID, modelID string, r analytics.Range) (analytics.PredictionStats, error) {
	return analytics.ReadPredictionStats(ctx, s.read, tables, orgID, modelID, r)
}

// PredictionStatsByModel implements analytics.Store from the newest
// version of each hour's and minute's rollup, in one query for all the
// models.
func (s *Store) PredictionStatsByModel(ctx context.Context, orgID string, modelIDs []string, r analytics.Range) (map[string]analytics.PredictionStats, error) {
	ctx, err := withList(ctx, modelList, modelIDs)
	if err != nil {
		return nil, err
	}
	return analytics.ReadPredictionStatsByModel(ctx, s.read, tables, orgID, modelIDs, modelList.in("model_id"), nil, r)
}

// PredictionCounts implements analytics.Store from the newest version of
// each hour's and minute's rollup.
func (s *Store) PredictionCounts(ctx context.Context, orgID string, modelIDs []string, r analytics.Range) (map[string]int64, error) {
	if len(modelIDs) == 0 {
		return map[string]int64{}, nil
	}
	ctx, err := withList(ctx, modelList, modelIDs)
	if err != nil {
		return nil, err
	}
	return analytics.ReadPredictionCounts(ctx, s.read, tables, orgID, modelList.in("model_id"), nil, r)
}

// Activity implements analytics.Store: counts from the newest version of each
// hour's rollup, the newest time from the rows.
func (s *Store) Activity(ctx context.Context, orgID string, modelIDs []string) (map[string]analytics.Activity, error) {
	out := map[string]analytics.Activity{}
	if len(modelIDs) == 0 {
		return out, nil
	}
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	ctx, err := withList(ctx, modelList, modelIDs)
	if err != nil {
		return nil, err
	}
	rows, err := s.conn.Query(ctx, `SELECT model_id, sum(predictions) FROM prediction_hours FINAL
		WHERE org_id = ? AND `+modelList.in("model_id")+` GROUP BY model_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("model activity: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n uint64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = analytics.Activity{Predictions: int64(n)}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	last, err := s.conn.Query(ctx, `SELECT model_id, max(ts) FROM predictions WHERE org_id = ? AND `+modelList.in("model_id")+
		` GROUP BY model_id`, orgID)
	if err != nil {
		return nil, fmt.Errorf("model activity: %w", err)
	}
	defer last.Close()
	for last.Next() {
		var id string
		var ts int64
		if err := last.Scan(&id, &ts); err != nil {
			return nil, err
		}
		if a, ok := out[id]; ok {
			t := time.UnixMicro(ts).UTC()
			a.Last = &t
			out[id] = a
		}
	}
	return out, last.Err()
}

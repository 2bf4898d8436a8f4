package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/autoexplain"
	"github.com/vigilhq/vigil/explanation/coverage"
	"github.com/vigilhq/vigil/governance/trust"
)

var (
	_ autoexplain.Store = (*DB)(nil)
	_ coverage.Store    = (*DB)(nil)
)

// AutoExplained implements autoexplain.Store.
func (s *DB) AutoExplained(ctx context.Context, orgID, modelID string, predictionIDs []string) (map[string]bool, error) {
	out := make(map[string]bool, len(predictionIDs))
	for start := 0; start < len(predictionIDs); start += 500 {
		ids := predictionIDs[start:min(start+500, len(predictionIDs))]
		args := []any{orgID, modelID}
		for _, id := range ids {
			args = append(args, id)
		}
		rows, err := s.db.QueryContext(ctx, s.q(`SELECT prediction_id FROM explanations WHERE org_id = ? AND model_id = ?
			AND origin = 'auto' AND prediction_id IN (`+placeholders(len(ids))+`)`), args...)
		if err != nil {
			return nil, s.wrap(err)
		}
		got, err := collect(rows, func(row interface{ Scan(...any) error }) (string, error) {
			var id string
			return id, s.wrap(row.Scan(&id))
		})
		if err != nil {
			return nil, err
		}
		for _, id := range got {
			out[id] = true
		}
	}
	return out, nil
}

// RecordAutoExplanation implements autoexplain.Store: one statement
// inserts the finished explanation when the organization has the model
// (store.ErrNotFound otherwise) and the prediction has no auto
// explanation (the unique index explanations_auto; false otherwise).
func (s *DB) RecordAutoExplanation(ctx context.Context, e explanation.Explanation) (bool, error) {
	req, err := toJSON(e.Request)
	if err != nil {
		return false, err
	}
	res, err := explanationResult(e)
	if err != nil {
		return false, err
	}
	var ms sql.NullFloat64
	if e.Outcome != nil {
		ms = sql.NullFloat64{Float64: e.Outcome.ComputationTimeMS, Valid: true}
	}
	n, err := s.exec(ctx, s.db, `INSERT INTO explanations (`+explanationColumns+`, computation_ms, origin)
		SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION), 'auto'
		WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?) ON CONFLICT DO NOTHING`,
		e.ID, e.OrgID, e.ModelID, e.PredictionID, e.Method, e.Status, req, res, e.Error, micros(e.CreatedAt), micros(e.UpdatedAt),
		nullMicros(e.CompletedAt), ms, e.OrgID, e.ModelID)
	if err != nil || n > 0 {
		return n > 0, err
	}
	if _, err := s.Model(ctx, e.OrgID, e.ModelID); err != nil {
		return false, err
	}
	return false, nil
}

// CoverageModels implements coverage.Store.
func (s *DB) CoverageModels(ctx context.Context) ([][2]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT org_id, model_id FROM explanation_configs WHERE auto_explain AND enabled
		UNION SELECT org_id, model_id FROM explanation_coverage ORDER BY 1, 2`)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, func(row interface{ Scan(...any) error }) ([2]string, error) {
		var k [2]string
		return k, s.wrap(row.Scan(&k[0], &k[1]))
	})
}

// ExplainedCounts implements coverage.Store: one grouped read
// (by the index explanations_explained).
func (s *DB) ExplainedCounts(ctx context.Context, orgID string, modelIDs []string, from, to time.Time) (map[string]int64, error) {
	out := map[string]int64{}
	if len(modelIDs) == 0 {
		return out, nil
	}
	args := []any{orgID, micros(from), micros(to)}
	for _, id := range modelIDs {
		args = append(args, id)
	}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT model_id, COUNT(DISTINCT prediction_id) FROM explanations
		WHERE org_id = ? AND status = 'completed' AND prediction_id <> '' AND created_at >= ? AND created_at < ?
		AND model_id IN (`+placeholders(len(modelIDs))+`) GROUP BY model_id`), args...)
	return s.counts(rows, err, out)
}

// counts reads the rows of a query of (id, count), or its error, into
// out.
func (s *DB) counts(rows *sql.Rows, err error, out map[string]int64) (map[string]int64, error) {
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var n int64
		if err := rows.Scan(&id, &n); err != nil {
			return nil, s.wrap(err)
		}
		out[id] = n
	}
	return out, s.wrap(rows.Err())
}

// PutExplanationCoverage implements coverage.Store: the upsert
// changes the row only when the ratio differs and says so by returning
// it; the trust snapshot then follows in the same transaction. A model
// gone meanwhile stores nothing (false).
func (s *DB) PutExplanationCoverage(ctx context.Context, c coverage.Coverage, at time.Time) (bool, error) {
	changed := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, s.q(`INSERT INTO explanation_coverage (model_id, org_id, explained, logged, ratio,
			window_start, window_end, updated_at)
			SELECT ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION), CAST(? AS BIGINT), CAST(? AS BIGINT),
			CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)
			ON CONFLICT (model_id) DO UPDATE SET explained = excluded.explained, logged = excluded.logged, ratio = excluded.ratio,
				window_start = excluded.window_start, window_end = excluded.window_end, updated_at = excluded.updated_at
			WHERE explanation_coverage.ratio <> excluded.ratio RETURNING model_id`),
			c.ModelID, c.OrgID, c.Explained, c.Logged, c.Ratio, micros(c.From), micros(c.To), micros(at), c.OrgID, c.ModelID)
		if err != nil {
			return s.wrap(err)
		}
		changed = rows.Next()
		if err := rows.Close(); err != nil {
			return s.wrap(err)
		}
		if !changed {
			return nil
		}
		return s.snapshotTrust(ctx, tx, c.OrgID, c.ModelID, trust.CauseExplanations, fmt.Sprint(micros(at)), at)
	})
	return changed, err
}

// explainedRatio reads the model's explained_predictions_ratio; nil when
// none is kept.
func (s *DB) explainedRatio(ctx context.Context, qr querier, orgID, modelID string) (*float64, error) {
	var r sql.NullFloat64
	err := qr.QueryRowContext(ctx, s.q(`SELECT ratio FROM explanation_coverage WHERE org_id = ? AND model_id = ?`), orgID, modelID).Scan(&r)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return nil, s.wrap(err)
	}
	if !r.Valid {
		return nil, nil
	}
	return &r.Float64, nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/store"
)

var _ explanation.Store = (*DB)(nil)

const explanationColumns = `id, org_id, model_id, prediction_id, method, status, request, result, error, created_at, updated_at, completed_at`

// explanationRead is what a read of an explanation selects: its columns
// and its progress.
const explanationRead = explanationColumns + `, progress_done, progress_total, progress_unit`

func (s *DB) scanExplanation(row interface{ Scan(...any) error }) (explanation.Explanation, error) {
	var e explanation.Explanation
	var req string
	var res sql.NullString
	var created, updated int64
	var completed sql.NullInt64
	if err := row.Scan(&e.ID, &e.OrgID, &e.ModelID, &e.PredictionID, &e.Method, &e.Status, &req, &res, &e.Error, &created, &updated, &completed,
		&e.Progress.Done, &e.Progress.Total, &e.Progress.Unit); err != nil {
		return e, s.wrap(err)
	}
	e.CreatedAt, e.UpdatedAt, e.CompletedAt = fromMicros(created), fromMicros(updated), fromNullMicros(completed)
	if err := fromJSON(req, &e.Request); err != nil {
		return e, err
	}
	if res.Valid {
		e.Outcome = &explanation.Outcome{}
		if err := fromJSON(res.String, e.Outcome); err != nil {
			return e, err
		}
	}
	return e, nil
}

// explanationResult is the result column of e: NULL without an outcome.
func explanationResult(e explanation.Explanation) (sql.NullString, error) {
	var res sql.NullString
	if e.Outcome == nil {
		return res, nil
	}
	var err error
	res.String, err = toJSON(e.Outcome)
	res.Valid = err == nil
	return res, err
}

// CreateExplanation implements explanation.Store. The model is checked in
// the same statement, so another organization's model id is
// store.ErrNotFound.
func (s *DB) CreateExplanation(ctx context.Context, e explanation.Explanation) error {
	req, err := toJSON(e.Request)
	if err != nil {
		return err
	}
	res, err := explanationResult(e)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `INSERT INTO explanations (`+explanationColumns+`) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?,
		CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)`,
		e.ID, e.OrgID, e.ModelID, e.PredictionID, e.Method, e.Status, req, res, e.Error, micros(e.CreatedAt), micros(e.UpdatedAt),
		nullMicros(e.CompletedAt), e.OrgID, e.ModelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// Explanation implements explanation.Store.
func (s *DB) Explanation(ctx context.Context, orgID, id string) (explanation.Explanation, error) {
	return s.scanExplanation(s.db.QueryRowContext(ctx, s.q(`SELECT `+explanationRead+` FROM explanations
		WHERE org_id = ? AND id = ?`), orgID, id))
}

// Explanations implements explanation.Store, newest first.
func (s *DB) Explanations(ctx context.Context, orgID string, f explanation.Filter) ([]explanation.Explanation, int64, error) {
	where, args := []string{"org_id = ?"}, []any{orgID}
	for _, c := range []struct{ col, v string }{{"model_id", f.ModelID}, {"prediction_id", f.PredictionID}, {"method", f.Method},
		{"status", f.Status}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	return listPage(ctx, s, "explanations", explanationRead, strings.Join(where, " AND "), "created_at DESC, id DESC",
		args, f.Offset, f.Limit, s.scanExplanation)
}

// FinishExplanation implements explanation.Store: only a pending
// explanation is written.
func (s *DB) FinishExplanation(ctx context.Context, e explanation.Explanation) error {
	res, err := explanationResult(e)
	if err != nil {
		return err
	}
	var ms sql.NullFloat64
	if e.Outcome != nil {
		ms = sql.NullFloat64{Float64: e.Outcome.ComputationTimeMS, Valid: true}
	}
	n, err := s.exec(ctx, s.db, `UPDATE explanations SET status = ?, result = ?, error = ?, updated_at = ?, completed_at = ?,
		computation_ms = ? WHERE org_id = ? AND id = ? AND status = 'pending'`,
		e.Status, res, e.Error, micros(e.UpdatedAt), nullMicros(e.CompletedAt), ms, e.OrgID, e.ID)
	if err != nil || n > 0 {
		return err
	}
	if _, err := s.Explanation(ctx, e.OrgID, e.ID); err != nil {
		return err
	}
	return store.ErrConflict
}

// ExplanationProgress implements explanation.Store: only a pending
// explanation's progress is written.
func (s *DB) ExplanationProgress(ctx context.Context, orgID, id string, p artifact.Progress) error {
	_, err := s.exec(ctx, s.db, `UPDATE explanations SET progress_done = ?, progress_total = ?, progress_unit = ?
		WHERE org_id = ? AND id = ? AND status = 'pending'`, p.Done, p.Total, p.Unit, orgID, id)
	return err
}

// CancelExplanation implements explanation.Store: only a pending
// explanation is cancelled.
func (s *DB) CancelExplanation(ctx context.Context, orgID, id string, at time.Time) error {
	n, err := s.exec(ctx, s.db, `UPDATE explanations SET status = 'cancelled', updated_at = ?, completed_at = ?
		WHERE org_id = ? AND id = ? AND status = 'pending'`, micros(at), micros(at), orgID, id)
	if err != nil || n > 0 {
		return err
	}
	if _, err := s.Explanation(ctx, orgID, id); err != nil {
		return err
	}
	return store.ErrConflict
}

// PendingExplanations implements explanation.Store.
func (s *DB) PendingExplanations(ctx context.Context, limit int) ([]explanation.Explanation, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+explanationRead+` FROM explanations WHERE status = 'pending'
		ORDER BY created_at, id LIMIT ?`), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanExplanation)
}

// ExplanationStats implements explanation.Store: one grouped read of the
// model's explanations.
func (s *DB) ExplanationStats(ctx context.Context, orgID, modelID string) (explanation.Stats, error) {
	st := explanation.Stats{ByMethod: map[string]int64{}, ByStatus: map[string]int64{}}
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT method, status, COUNT(*), SUM(computation_ms), COUNT(computation_ms)
		FROM explanations WHERE org_id = ? AND model_id = ? GROUP BY method, status`), orgID, modelID)
	if err != nil {
		return st, s.wrap(err)
	}
	defer rows.Close()
	var sum float64
	var timed int64
	for rows.Next() {
		var method, status string
		var n, c int64
		var total sql.NullFloat64
		if err := rows.Scan(&method, &status, &n, &total, &c); err != nil {
			return st, s.wrap(err)
		}
		st.Total += n
		st.ByMethod[method] += n
		st.ByStatus[status] += n
		sum, timed = sum+total.Float64, timed+c
	}
	if err := rows.Err(); err != nil {
		return st, s.wrap(err)
	}
	if timed > 0 {
		mean := sum / float64(timed)
		st.MeanComputationMS = &mean
	}
	return st, nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/store"
)

var _ bias.Store = (*DB)(nil)

const biasColumns = `id, org_id, model_id, status, request, result, error, created_at, updated_at, completed_at, governance_pending`

// biasState are the columns an update writes, with a's values.
func biasState(a bias.Audit) ([]any, error) {
	req, err := toJSON(a.Request)
	if err != nil {
		return nil, err
	}
	var res sql.NullString
	if a.Result != nil {
		if res.String, err = toJSON(a.Result); err != nil {
			return nil, err
		}
		res.Valid = true
	}
	return []any{string(a.Status), req, res, a.Error, micros(a.UpdatedAt), nullMicros(a.CompletedAt), a.GovernancePending}, nil
}

func (s *DB) scanBias(row interface{ Scan(...any) error }) (bias.Audit, error) {
	var a bias.Audit
	var status, req string
	var res sql.NullString
	var created, updated int64
	var completed sql.NullInt64
	if err := row.Scan(&a.ID, &a.OrgID, &a.ModelID, &status, &req, &res, &a.Error, &created, &updated, &completed, &a.GovernancePending); err != nil {
		return a, s.wrap(err)
	}
	a.Status, a.CreatedAt, a.UpdatedAt, a.CompletedAt = bias.Status(status), fromMicros(created), fromMicros(updated), fromNullMicros(completed)
	if err := fromJSON(req, &a.Request); err != nil {
		return a, err
	}
	if res.Valid {
		a.Result = &bias.Result{}
		if err := fromJSON(res.String, a.Result); err != nil {
			return a, err
		}
	}
	return a, nil
}

// CreateBiasAudit implements bias.Store. The model is checked in the same
// statement, so another organization's model id is store.ErrNotFound.
func (s *DB) CreateBiasAudit(ctx context.Context, a bias.Audit) error {
	state, err := biasState(a)
	if err != nil {
		return err
	}
	args := append([]any{a.ID, a.OrgID, a.ModelID}, state[:4]...)
	args = append(args, micros(a.CreatedAt), state[4], state[5], state[6], a.OrgID, a.ModelID)
	// The times and flag are cast: PostgreSQL types a bare parameter of a
	// SELECT as text.
	n, err := s.exec(ctx, s.db, `INSERT INTO bias_audits (`+biasColumns+`) SELECT ?, ?, ?, ?, ?, ?, ?,
		CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BOOLEAN)
		WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)`, args...)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// BiasAudit implements bias.Store.
func (s *DB) BiasAudit(ctx context.Context, orgID, id string) (bias.Audit, error) {
	return s.scanBias(s.db.QueryRowContext(ctx, s.q(`SELECT `+biasColumns+` FROM bias_audits WHERE org_id = ? AND id = ?`), orgID, id))
}

// BiasAudits implements bias.Store, newest first.
func (s *DB) BiasAudits(ctx context.Context, orgID string, f bias.Filter) ([]bias.Audit, int64, error) {
	where, args := []string{"org_id = ?"}, []any{orgID}
	if f.ModelID != "" {
		where, args = append(where, "model_id = ?"), append(args, f.ModelID)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	return listPage(ctx, s, "bias_audits", biasColumns, strings.Join(where, " AND "), "created_at DESC, id DESC",
		args, f.Offset, f.Limit, s.scanBias)
}

// UpdateBiasAudit implements bias.Store: a finished audit is not written.
// The write that completes an audit snapshots the model's trust score in
// its transaction.
func (s *DB) UpdateBiasAudit(ctx context.Context, a bias.Audit) error {
	state, err := biasState(a)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `UPDATE bias_audits SET status = ?, request = ?, result = ?, error = ?, updated_at = ?,
			completed_at = ?, governance_pending = ? WHERE org_id = ? AND id = ? AND `+unfinished, append(state, a.OrgID, a.ID)...)
		if err == nil && n == 0 {
			err = s.biasMissing(ctx, tx, a.OrgID, a.ID)
		}
		if err != nil || a.Status != bias.StatusCompleted {
			return err
		}
		at := a.UpdatedAt
		if a.CompletedAt != nil {
			at = *a.CompletedAt
		}
		return s.snapshotTrust(ctx, tx, a.OrgID, a.ModelID, trust.CauseBiasAudit, a.ID, at)
	})
}

// DeleteBiasAudit implements bias.Store: an audit owing its governance
// event is not deleted. Deleting a completed audit changes its model's
// fairness input: the trust score is snapshotted in the same transaction.
func (s *DB) DeleteBiasAudit(ctx context.Context, orgID, id string, at time.Time) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var model, status string
		err := tx.QueryRowContext(ctx, s.q(`SELECT model_id, status FROM bias_audits WHERE org_id = ? AND id = ? AND NOT governance_pending`),
			orgID, id).Scan(&model, &status)
		if errors.Is(err, sql.ErrNoRows) {
			return s.biasMissing(ctx, tx, orgID, id)
		} else if err != nil {
			return s.wrap(err)
		}
		if _, err := s.exec(ctx, tx, `DELETE FROM bias_audits WHERE org_id = ? AND id = ?`, orgID, id); err != nil {
			return err
		}
		if status != string(bias.StatusCompleted) {
			return nil
		}
		return s.snapshotTrust(ctx, tx, orgID, model, trust.CauseBiasAuditDeleted, id, at)
	})
}

// biasMissing says why a conditional write changed no audit:
// store.ErrNotFound when the organization has none of that id,
// store.ErrConflict when the condition did not hold.
func (s *DB) biasMissing(ctx context.Context, qr querier, orgID, id string) error {
	var one int
	err := qr.QueryRowContext(ctx, s.q(`SELECT 1 FROM bias_audits WHERE org_id = ? AND id = ?`), orgID, id).Scan(&one)
	if err == nil {
		return store.ErrConflict
	}
	return s.wrap(err)
}

// BiasGovernancePending implements bias.Store: oldest completion first.
func (s *DB) BiasGovernancePending(ctx context.Context, limit int) ([]bias.Audit, error) {
	return governancePending(ctx, s, "bias_audits", biasColumns, "completed_at", limit, s.scanBias)
}

// BiasGovernanceSent implements bias.Store.
func (s *DB) BiasGovernanceSent(ctx context.Context, orgID, id string) error {
	return s.governanceSent(ctx, "bias_audits", orgID, id)
}

// unfinished is the condition of a pending or running audit.
const unfinished = `status IN ('pending', 'running')`

// TouchBiasAudits implements bias.Store.
func (s *DB) TouchBiasAudits(ctx context.Context, ids []string, at time.Time) error {
	args := []any{micros(at)}
	for _, id := range ids {
		args = append(args, id)
	}
	_, err := s.exec(ctx, s.db, `UPDATE bias_audits SET updated_at = ? WHERE `+unfinished+` AND id IN (`+placeholders(len(ids))+`)`, args...)
	return err
}

// FailStaleBiasAudits implements bias.Store.
func (s *DB) FailStaleBiasAudits(ctx context.Context, before, at time.Time, reason string) (int64, error) {
	return s.exec(ctx, s.db, `UPDATE bias_audits SET status = 'failed', error = ?, updated_at = ?, completed_at = ?
		WHERE `+unfinished+` AND updated_at < ?`, reason, micros(at), micros(at), micros(before))
}

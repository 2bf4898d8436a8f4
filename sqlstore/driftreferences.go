package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/stats/profile"
	"github.com/vigilhq/vigil/store"
)

var (
	_ drift.ReferenceStore        = (*DB)(nil)
	_ explanation.ReferenceSample = (*DB)(nil)
)

// UpdateDriftReference implements drift.ReferenceStore: the reference on
// file is read for update, changed and written back in one transaction.
// A first reference is inserted when the organization has the model, in
// the same statement, so another organization's model id is
// store.ErrNotFound; a racing first write is store.ErrConflict.
func (s *DB) UpdateDriftReference(ctx context.Context, orgID, modelID string, change func(u *drift.Uploaded, exists bool) error) (drift.Uploaded, error) {
	var u drift.Uploaded
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = s.readReference(ctx, tx, orgID, modelID, s.d.ForUpdate)
		exists := err == nil
		switch {
		case errors.Is(err, store.ErrNotFound):
			u = drift.Uploaded{OrgID: orgID, ModelID: modelID}
		case err != nil:
			return err
		}
		if err := change(&u, exists); err != nil {
			return err
		}
		u.OrgID, u.ModelID = orgID, modelID
		in, err := toJSON(&u.Input)
		if err != nil {
			return err
		}
		var out sql.NullString
		if u.Output != nil {
			if out.String, err = toJSON(u.Output); err != nil {
				return err
			}
			out.Valid = true
		}
		rows := u.Sample.Rows
		if rows == nil {
			rows = []map[string]any{}
		}
		sample, err := toJSON(rows)
		if err != nil {
			return err
		}
		if exists {
			_, err = s.exec(ctx, tx, `UPDATE drift_references SET input_profile = ?, output_profile = ?, sample_rows = ?, sample_seen = ?,
				uploaded_at = ? WHERE org_id = ? AND model_id = ?`, in, out, sample, u.Sample.Seen, micros(u.UploadedAt), orgID, modelID)
			return err
		}
		n, err := s.exec(ctx, tx, `INSERT INTO drift_references (model_id, org_id, input_profile, output_profile, sample_rows, sample_seen, uploaded_at)
			SELECT ?, ?, ?, ?, ?, CAST(? AS BIGINT), CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)`,
			modelID, orgID, in, out, sample, u.Sample.Seen, micros(u.UploadedAt), orgID, modelID)
		if err == nil && n == 0 {
			err = store.ErrNotFound
		}
		return err
	})
	return u, err
}

// DriftReference implements drift.ReferenceStore.
func (s *DB) DriftReference(ctx context.Context, orgID, modelID string) (drift.Uploaded, error) {
	return s.readReference(ctx, s.db, orgID, modelID, "")
}

// readReference reads the model's reference; suffix ends the query (a
// dialect's FOR UPDATE).
func (s *DB) readReference(ctx context.Context, qr querier, orgID, modelID, suffix string) (drift.Uploaded, error) {
	u := drift.Uploaded{OrgID: orgID, ModelID: modelID}
	var in, sample string
	var out sql.NullString
	var at int64
	err := qr.QueryRowContext(ctx, s.q(`SELECT input_profile, output_profile, sample_rows, sample_seen, uploaded_at FROM drift_references
		WHERE org_id = ? AND model_id = ?`+suffix), orgID, modelID).Scan(&in, &out, &sample, &u.Sample.Seen, &at)
	if err != nil {
		return u, s.wrap(err)
	}
	u.UploadedAt = fromMicros(at)
	if err := fromJSON(in, &u.Input); err != nil {
		return u, err
	}
	if err := fromJSON(sample, &u.Sample.Rows); err != nil {
		return u, err
	}
	if out.Valid {
		u.Output = &profile.Profile{}
		if err := fromJSON(out.String, u.Output); err != nil {
			return u, err
		}
	}
	return u, nil
}

// DriftReferenceSample implements explanation.ReferenceSample: the
// sample column alone.
func (s *DB) DriftReferenceSample(ctx context.Context, orgID, modelID string) ([]map[string]any, error) {
	var sample string
	err := s.db.QueryRowContext(ctx, s.q(`SELECT sample_rows FROM drift_references WHERE org_id = ? AND model_id = ?`),
		orgID, modelID).Scan(&sample)
	if err != nil {
		return nil, s.wrap(err)
	}
	var rows []map[string]any
	return rows, fromJSON(sample, &rows)
}

// DeleteDriftReference implements drift.ReferenceStore.
func (s *DB) DeleteDriftReference(ctx context.Context, orgID, modelID string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM drift_references WHERE org_id = ? AND model_id = ?`, orgID, modelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

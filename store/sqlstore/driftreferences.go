package sqlstore

import (
	"context"
	"database/sql"
	"errors"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/stats/profile"
	"github.com/vigilhq/vigil/store"
)

var _ drift.ReferenceStore = (*DB)(nil)

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
		if exists {
			_, err = s.exec(ctx, tx, `UPDATE drift_references SET input_profile = ?, output_profile = ?, uploaded_at = ?
				WHERE org_id = ? AND model_id = ?`, in, out, micros(u.UploadedAt), orgID, modelID)
			return err
		}
		n, err := s.exec(ctx, tx, `INSERT INTO drift_references (model_id, org_id, input_profile, output_profile, uploaded_at)
			SELECT ?, ?, ?, ?, CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)`,
			modelID, orgID, in, out, micros(u.UploadedAt), orgID, modelID)
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
	var in string
	var out sql.NullString
	var at int64
	err := qr.QueryRowContext(ctx, s.q(`SELECT input_profile, output_profile, uploaded_at FROM drift_references
		WHERE org_id = ? AND model_id = ?`+suffix), orgID, modelID).Scan(&in, &out, &at)
	if err != nil {
		return u, s.wrap(err)
	}
	u.UploadedAt = fromMicros(at)
	if err := fromJSON(in, &u.Input); err != nil {
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

// DeleteDriftReference implements drift.ReferenceStore.
func (s *DB) DeleteDriftReference(ctx context.Context, orgID, modelID string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM drift_references WHERE org_id = ? AND model_id = ?`, orgID, modelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

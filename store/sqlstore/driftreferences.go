package sqlstore

import (
	"context"
	"database/sql"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/processors/profile"
	"github.com/vigilhq/vigil/store"
)

var _ drift.ReferenceStore = (*DB)(nil)

// PutDriftReference implements drift.ReferenceStore. The model is checked
// in the same statement, so another organization's model id is
// store.ErrNotFound.
func (s *DB) PutDriftReference(ctx context.Context, u drift.Uploaded) error {
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
	n, err := s.exec(ctx, s.db, `INSERT INTO drift_references (model_id, org_id, input_profile, output_profile, uploaded_at)
		SELECT ?, ?, ?, ?, CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)
		ON CONFLICT (model_id) DO UPDATE SET input_profile = excluded.input_profile,
			output_profile = excluded.output_profile, uploaded_at = excluded.uploaded_at`,
		u.ModelID, u.OrgID, in, out, micros(u.UploadedAt), u.OrgID, u.ModelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// DriftReference implements drift.ReferenceStore.
func (s *DB) DriftReference(ctx context.Context, orgID, modelID string) (drift.Uploaded, error) {
	u := drift.Uploaded{OrgID: orgID, ModelID: modelID}
	var in string
	var out sql.NullString
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT input_profile, output_profile, uploaded_at FROM drift_references
		WHERE org_id = ? AND model_id = ?`), orgID, modelID).Scan(&in, &out, &at)
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

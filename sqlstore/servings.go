package sqlstore

import (
	"context"

	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/store"
)

var _ serving.Store = (*DB)(nil)

// servingSpec is the spec column of model_servings.
type servingSpec struct {
	ModelName     string   `json:"model_name"`
	Features      []string `json:"features"`
	OutputIndex   int      `json:"output_index"`
	OutputName    string   `json:"output_name,omitempty"`
	TimeoutMS     int      `json:"timeout_ms"`
	MaxBatch      int      `json:"max_batch"`
	RequestBudget int      `json:"request_budget"`
	HeaderNames   []string `json:"header_names"`
}

// PutModelServing implements serving.Store: one statement
// inserts or replaces the endpoint when the organization has the model.
func (s *DB) PutModelServing(ctx context.Context, v serving.Serving) error {
	spec, err := toJSON(servingSpec{ModelName: v.ModelName, Features: v.Features, OutputIndex: v.OutputIndex,
		OutputName: v.OutputName, TimeoutMS: v.TimeoutMS, MaxBatch: v.MaxBatch, RequestBudget: v.RequestBudget, HeaderNames: v.HeaderNames})
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `INSERT INTO model_servings (model_id, org_id, protocol, url, spec, headers, updated_at)
		SELECT ?, ?, ?, ?, ?, ?, CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)
		ON CONFLICT (model_id) DO UPDATE SET protocol = excluded.protocol, url = excluded.url, spec = excluded.spec,
			headers = excluded.headers, updated_at = excluded.updated_at`,
		v.ModelID, v.OrgID, v.Protocol, v.URL, spec, v.SealedHeaders, micros(v.UpdatedAt), v.OrgID, v.ModelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// ModelServing implements serving.Store.
func (s *DB) ModelServing(ctx context.Context, orgID, modelID string) (serving.Serving, error) {
	v := serving.Serving{OrgID: orgID, ModelID: modelID}
	var spec string
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT protocol, url, spec, headers, updated_at FROM model_servings
		WHERE org_id = ? AND model_id = ?`), orgID, modelID).Scan(&v.Protocol, &v.URL, &spec, &v.SealedHeaders, &at)
	if err != nil {
		return v, s.wrap(err)
	}
	var sp servingSpec
	if err := fromJSON(spec, &sp); err != nil {
		return v, err
	}
	v.ModelName, v.Features, v.OutputIndex, v.TimeoutMS = sp.ModelName, sp.Features, sp.OutputIndex, sp.TimeoutMS
	v.OutputName, v.MaxBatch, v.RequestBudget, v.HeaderNames, v.UpdatedAt = sp.OutputName, sp.MaxBatch, sp.RequestBudget, sp.HeaderNames, fromMicros(at)
	return v, nil
}

// DeleteModelServing implements serving.Store.
func (s *DB) DeleteModelServing(ctx context.Context, orgID, modelID string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM model_servings WHERE org_id = ? AND model_id = ?`, orgID, modelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

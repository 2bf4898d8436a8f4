package sqlstore

import (
	"context"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/store"
)

var _ artifact.Store = (*DB)(nil)

// artifactSpec is the spec column of model_artifacts.
type artifactSpec struct {
	Features     []string  `json:"features"`
	Coefficients []float64 `json:"coefficients"`
	Intercept    float64   `json:"intercept"`
	Link         string    `json:"link"`
	NumFeatures  int       `json:"num_features"`
	NumTrees     int       `json:"num_trees"`
	MaxDepth     int       `json:"max_depth"`
}

// PutModelArtifact implements artifact.Store: one statement
// inserts or replaces the artifact when the organization has the model,
// so another organization's model id is store.ErrNotFound.
func (s *DB) PutModelArtifact(ctx context.Context, a artifact.Artifact) error {
	spec, err := toJSON(artifactSpec{Features: a.Features, Coefficients: a.Coefficients, Intercept: a.Intercept,
		Link: a.Link, NumFeatures: a.NumFeatures, NumTrees: a.NumTrees, MaxDepth: a.MaxDepth})
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `INSERT INTO model_artifacts (model_id, org_id, kind, spec, content, uploaded_at)
		SELECT ?, ?, ?, ?, ?, CAST(? AS BIGINT) WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)
		ON CONFLICT (model_id) DO UPDATE SET kind = excluded.kind, spec = excluded.spec, content = excluded.content,
			uploaded_at = excluded.uploaded_at`,
		a.ModelID, a.OrgID, a.Kind, spec, a.Content, micros(a.UploadedAt), a.OrgID, a.ModelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// ModelArtifact implements artifact.Store.
func (s *DB) ModelArtifact(ctx context.Context, orgID, modelID string) (artifact.Artifact, error) {
	a := artifact.Artifact{OrgID: orgID, ModelID: modelID}
	var spec string
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT kind, spec, content, uploaded_at FROM model_artifacts
		WHERE org_id = ? AND model_id = ?`), orgID, modelID).Scan(&a.Kind, &spec, &a.Content, &at)
	if err != nil {
		return a, s.wrap(err)
	}
	var sp artifactSpec
	if err := fromJSON(spec, &sp); err != nil {
		return a, err
	}
	a.Features, a.Coefficients, a.Intercept, a.Link = sp.Features, sp.Coefficients, sp.Intercept, sp.Link
	a.NumFeatures, a.NumTrees, a.MaxDepth, a.UploadedAt = sp.NumFeatures, sp.NumTrees, sp.MaxDepth, fromMicros(at)
	return a, nil
}

package sqlstore

import (
	"context"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/store"
)

var _ explanation.ConfigStore = (*DB)(nil)

// ExplanationConfig implements explanation.ConfigStore.
func (s *DB) ExplanationConfig(ctx context.Context, orgID, modelID string) (explanation.Config, error) {
	c := explanation.Config{OrgID: orgID, ModelID: modelID}
	var at int64
	err := s.db.QueryRowContext(ctx, s.q(`SELECT enabled, default_method, auto_explain, auto_explain_rate, cache_enabled,
		cache_ttl_hours, updated_at FROM explanation_configs WHERE org_id = ? AND model_id = ?`), orgID, modelID).
		Scan(&c.Enabled, &c.DefaultMethod, &c.AutoExplain, &c.AutoExplainRate, &c.CacheEnabled, &c.CacheTTLHours, &at)
	if err != nil {
		return c, s.wrap(err)
	}
	c.UpdatedAt = fromMicros(at)
	return c, nil
}

// PutExplanationConfig implements explanation.ConfigStore: one statement
// inserts or replaces the configuration when the organization has the
// model, so another organization's model id is store.ErrNotFound. The
// parameters are cast: PostgreSQL types a bare parameter of a SELECT as
// text.
func (s *DB) PutExplanationConfig(ctx context.Context, c explanation.Config) error {
	n, err := s.exec(ctx, s.db, `INSERT INTO explanation_configs (model_id, org_id, enabled, default_method, auto_explain,
		auto_explain_rate, cache_enabled, cache_ttl_hours, updated_at)
		SELECT ?, ?, CAST(? AS BOOLEAN), ?, CAST(? AS BOOLEAN), CAST(? AS DOUBLE PRECISION), CAST(? AS BOOLEAN),
		CAST(? AS INTEGER), CAST(? AS BIGINT)
		WHERE EXISTS (SELECT 1 FROM models WHERE org_id = ? AND id = ?)
		ON CONFLICT (model_id) DO UPDATE SET enabled = excluded.enabled, default_method = excluded.default_method,
			auto_explain = excluded.auto_explain, auto_explain_rate = excluded.auto_explain_rate, cache_enabled = excluded.cache_enabled,
			cache_ttl_hours = excluded.cache_ttl_hours, updated_at = excluded.updated_at`,
		c.ModelID, c.OrgID, c.Enabled, c.DefaultMethod, c.AutoExplain, c.AutoExplainRate, c.CacheEnabled, c.CacheTTLHours,
		micros(c.UpdatedAt), c.OrgID, c.ModelID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

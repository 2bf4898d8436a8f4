package sqlstore

import (
	"context"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/store"
)

var _ export.ConfigStore = (*DB)(nil)

const exportConfigColumns = `id, org_id, name, settings, created_at, updated_at`

// exportConfigSettings are the stored settings of a configuration.
type exportConfigSettings struct {
	Description string            `json:"description"`
	TemplateID  string            `json:"template_id"`
	ModelIDs    []string          `json:"model_ids"`
	Format      string            `json:"format"`
	DateRange   string            `json:"date_range"`
	Start       string            `json:"start"`
	End         string            `json:"end"`
	Sections    []string          `json:"sections"`
	Delivery    []export.Delivery `json:"delivery"`
}

func (s *DB) scanExportConfig(row interface{ Scan(...any) error }) (export.Config, error) {
	var c export.Config
	var settings string
	var created, updated int64
	if err := row.Scan(&c.ID, &c.OrgID, &c.Name, &settings, &created, &updated); err != nil {
		return c, s.wrap(err)
	}
	c.CreatedAt, c.UpdatedAt = fromMicros(created), fromMicros(updated)
	var st exportConfigSettings
	if err := fromJSON(settings, &st); err != nil {
		return c, err
	}
	c.Description, c.TemplateID, c.ModelIDs, c.Format = st.Description, st.TemplateID, st.ModelIDs, st.Format
	c.DateRange, c.Start, c.End, c.Sections, c.Delivery = st.DateRange, st.Start, st.End, st.Sections, st.Delivery
	return c, nil
}

func exportConfigJSON(c export.Config) (string, error) {
	return toJSON(exportConfigSettings{Description: c.Description, TemplateID: c.TemplateID, ModelIDs: c.ModelIDs,
		Format: c.Format, DateRange: c.DateRange, Start: c.Start, End: c.End, Sections: c.Sections, Delivery: c.Delivery})
}

// CreateExportConfig implements export.ConfigStore.
func (s *DB) CreateExportConfig(ctx context.Context, c export.Config) error {
	settings, err := exportConfigJSON(c)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO export_configs (`+exportConfigColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		c.ID, c.OrgID, c.Name, settings, micros(c.CreatedAt), micros(c.UpdatedAt))
	return err
}

// ExportConfig implements export.ConfigStore.
func (s *DB) ExportConfig(ctx context.Context, orgID, id string) (export.Config, error) {
	return s.scanExportConfig(s.db.QueryRowContext(ctx, s.q(`SELECT `+exportConfigColumns+` FROM export_configs
		WHERE org_id = ? AND id = ?`), orgID, id))
}

// ExportConfigs implements export.ConfigStore.
func (s *DB) ExportConfigs(ctx context.Context, orgID string, offset, limit int) ([]export.Config, int64, error) {
	return listPage(ctx, s, "export_configs", exportConfigColumns, "org_id = ?", "created_at, id", []any{orgID}, offset, limit,
		s.scanExportConfig)
}

// UpdateExportConfig implements export.ConfigStore: it writes the name,
// settings and update time.
func (s *DB) UpdateExportConfig(ctx context.Context, c export.Config) error {
	settings, err := exportConfigJSON(c)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `UPDATE export_configs SET name = ?, settings = ?, updated_at = ? WHERE org_id = ? AND id = ?`,
		c.Name, settings, micros(c.UpdatedAt), c.OrgID, c.ID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// DeleteExportConfig implements export.ConfigStore.
func (s *DB) DeleteExportConfig(ctx context.Context, orgID, id string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM export_configs WHERE org_id = ? AND id = ?`, orgID, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

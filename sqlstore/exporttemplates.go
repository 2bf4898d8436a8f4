package sqlstore

import (
	"context"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/store"
)

var _ export.Store = (*DB)(nil)

const exportTemplateColumns = `id, org_id, name, description, report_category, sections, created_at, updated_at`

func (s *DB) scanExportTemplate(row interface{ Scan(...any) error }) (export.Template, error) {
	var t export.Template
	var sections string
	var created, updated int64
	if err := row.Scan(&t.ID, &t.OrgID, &t.Name, &t.Description, &t.ReportCategory, &sections, &created, &updated); err != nil {
		return t, s.wrap(err)
	}
	t.CreatedAt, t.UpdatedAt = fromMicros(created), fromMicros(updated)
	return t, fromJSON(sections, &t.Sections)
}

// CreateExportTemplate implements export.Store.
func (s *DB) CreateExportTemplate(ctx context.Context, t export.Template) error {
	sections, err := toJSON(t.Sections)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO export_templates (`+exportTemplateColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.OrgID, t.Name, t.Description, t.ReportCategory, sections, micros(t.CreatedAt), micros(t.UpdatedAt))
	return err
}

// ExportTemplate implements export.Store.
func (s *DB) ExportTemplate(ctx context.Context, orgID, id string) (export.Template, error) {
	return s.scanExportTemplate(s.db.QueryRowContext(ctx, s.q(`SELECT `+exportTemplateColumns+` FROM export_templates
		WHERE org_id = ? AND id = ?`), orgID, id))
}

// ExportTemplates implements export.Store.
func (s *DB) ExportTemplates(ctx context.Context, orgID, category string, offset, limit int) ([]export.Template, int64, error) {
	where, args := "org_id = ?", []any{orgID}
	if category != "" {
		where, args = where+" AND report_category = ?", append(args, category)
	}
	return listPage(ctx, s, "export_templates", exportTemplateColumns, where, "created_at, id", args, offset, limit,
		s.scanExportTemplate)
}

// UpdateExportTemplate implements export.Store: it writes the name,
// description, category, sections and update time.
func (s *DB) UpdateExportTemplate(ctx context.Context, t export.Template) error {
	sections, err := toJSON(t.Sections)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `UPDATE export_templates SET name = ?, description = ?, report_category = ?, sections = ?,
		updated_at = ? WHERE org_id = ? AND id = ?`, t.Name, t.Description, t.ReportCategory, sections, micros(t.UpdatedAt), t.OrgID, t.ID)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// DeleteExportTemplate implements export.Store.
func (s *DB) DeleteExportTemplate(ctx context.Context, orgID, id string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM export_templates WHERE org_id = ? AND id = ?`, orgID, id)
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

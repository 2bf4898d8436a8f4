package sqlstore

import (
	"context"

	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/store"
)

var _ delivery.Store = (*DB)(nil)

const integrationColumns = `id, org_id, name, type, settings, secrets, masks, created_at, updated_at`

func (s *DB) scanIntegration(row interface{ Scan(...any) error }) (delivery.Integration, error) {
	var in delivery.Integration
	var settings, masks string
	var created, updated int64
	if err := row.Scan(&in.ID, &in.OrgID, &in.Name, &in.Type, &settings, &in.Sealed, &masks, &created, &updated); err != nil {
		return in, s.wrap(err)
	}
	in.CreatedAt, in.UpdatedAt = fromMicros(created), fromMicros(updated)
	if err := fromJSON(settings, &in.Settings); err != nil {
		return in, err
	}
	return in, fromJSON(masks, &in.Masks)
}

// integrationJSON is an integration's settings and masks as stored.
func integrationJSON(in delivery.Integration) (settings, masks string, err error) {
	if settings, err = toJSON(in.Settings); err != nil {
		return "", "", err
	}
	m := in.Masks
	if m == nil {
		m = map[string]string{}
	}
	masks, err = toJSON(m)
	return settings, masks, err
}

// CreateExportIntegration implements delivery.Store.
func (s *DB) CreateExportIntegration(ctx context.Context, in delivery.Integration) error {
	settings, masks, err := integrationJSON(in)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO export_integrations (`+integrationColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		in.ID, in.OrgID, in.Name, in.Type, settings, in.Sealed, masks, micros(in.CreatedAt), micros(in.UpdatedAt))
	return err
}

// ExportIntegration implements delivery.Store.
func (s *DB) ExportIntegration(ctx context.Context, orgID, id string) (delivery.Integration, error) {
	return s.scanIntegration(s.db.QueryRowContext(ctx, s.q(`SELECT `+integrationColumns+` FROM export_integrations
		WHERE org_id = ? AND id = ?`), orgID, id))
}

// ExportIntegrations implements delivery.Store.
func (s *DB) ExportIntegrations(ctx context.Context, orgID string, offset, limit int) ([]delivery.Integration, int64, error) {
	return listPage(ctx, s, "export_integrations", integrationColumns, "org_id = ?", "created_at, id", []any{orgID}, offset, limit,
		s.scanIntegration)
}

// UpdateExportIntegration implements delivery.Store.
func (s *DB) UpdateExportIntegration(ctx context.Context, in delivery.Integration) error {
	settings, masks, err := integrationJSON(in)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `UPDATE export_integrations SET name = ?, type = ?, settings = ?, secrets = ?, masks = ?, updated_at = ?
		WHERE org_id = ? AND id = ?`, in.Name, in.Type, settings, in.Sealed, masks, micros(in.UpdatedAt), in.OrgID, in.ID)
	if err == nil && n == 0 {
		return store.ErrNotFound
	}
	return err
}

// DeleteExportIntegration implements delivery.Store.
func (s *DB) DeleteExportIntegration(ctx context.Context, orgID, id string) error {
	n, err := s.exec(ctx, s.db, `DELETE FROM export_integrations WHERE org_id = ? AND id = ?`, orgID, id)
	if err == nil && n == 0 {
		return store.ErrNotFound
	}
	return err
}

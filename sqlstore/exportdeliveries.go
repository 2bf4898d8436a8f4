package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/store"
)

var _ delivery.DeliveryStore = (*DB)(nil)

const exportDeliveryColumns = `id, org_id, export_id, integration_id, method, recipients, status, attempts, error, detail, created_at,
	updated_at`

func (s *DB) scanExportDelivery(row interface{ Scan(...any) error }) (delivery.Delivery, error) {
	var d delivery.Delivery
	var created, updated int64
	var recipients string
	if err := row.Scan(&d.ID, &d.OrgID, &d.ExportID, &d.IntegrationID, &d.Method, &recipients, &d.Status, &d.Attempts, &d.Error,
		&d.Detail, &created, &updated); err != nil {
		return d, s.wrap(err)
	}
	d.CreatedAt, d.UpdatedAt = fromMicros(created), fromMicros(updated)
	if err := fromJSON(recipients, &d.Recipients); err != nil || len(d.Recipients) == 0 {
		d.Recipients = nil
		return d, err
	}
	return d, nil
}

// CreateDeliveredExportJob implements delivery.DeliveryStore.
func (s *DB) CreateDeliveredExportJob(ctx context.Context, j export.Job, ds []delivery.Delivery) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := s.createExportJob(ctx, tx, j); err != nil {
			return err
		}
		for _, d := range ds {
			if err := s.createExportDelivery(ctx, tx, d); err != nil {
				return err
			}
		}
		return nil
	})
}

// createExportDelivery stores d through q (the database or a
// transaction).
func (s *DB) createExportDelivery(ctx context.Context, q querier, d delivery.Delivery) error {
	recipients := d.Recipients
	if recipients == nil {
		recipients = []string{}
	}
	rs, err := toJSON(recipients)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, q, `INSERT INTO export_deliveries (`+exportDeliveryColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.OrgID, d.ExportID, d.IntegrationID, d.Method, rs, d.Status, d.Attempts, d.Error, d.Detail, micros(d.CreatedAt),
		micros(d.UpdatedAt))
	return err
}

// ExportDeliveries implements delivery.DeliveryStore.
func (s *DB) ExportDeliveries(ctx context.Context, orgID, exportID string, offset, limit int) ([]delivery.Delivery, int64, error) {
	return listPage(ctx, s, "export_deliveries", exportDeliveryColumns, "org_id = ? AND export_id = ?", "created_at, id",
		[]any{orgID, exportID}, offset, limit, s.scanExportDelivery)
}

// OwedExportDeliveries implements delivery.DeliveryStore.
func (s *DB) OwedExportDeliveries(ctx context.Context, before time.Time, limit int) ([]delivery.Delivery, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+exportDeliveryColumns+` FROM export_deliveries WHERE status = 'pending'
		AND updated_at < ? AND export_id IN (SELECT id FROM export_jobs WHERE status IN ('completed', 'failed', 'cancelled', 'expired'))
		ORDER BY created_at, id LIMIT ?`), micros(before), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanExportDelivery)
}

// SaveExportDelivery implements delivery.DeliveryStore.
func (s *DB) SaveExportDelivery(ctx context.Context, d, was delivery.Delivery) error {
	n, err := s.exec(ctx, s.db, `UPDATE export_deliveries SET method = ?, status = ?, attempts = ?, error = ?, detail = ?,
		updated_at = ? WHERE org_id = ? AND id = ? AND status = ? AND updated_at = ?`, d.Method, d.Status, d.Attempts, d.Error, d.Detail, micros(d.UpdatedAt),
		d.OrgID, d.ID, was.Status, micros(was.UpdatedAt))
	if err != nil || n > 0 {
		return err
	}
	return store.ErrConflict
}

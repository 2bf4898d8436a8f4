package delivery

import (
	"context"
	"errors"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Queue implements export.Delivering: an export asked for with
// deliveries (POST /export/exports with `deliveries`) is stored with a
// pending delivery to each integration, which the Deliverer sends once
// the export is completed.
type Queue struct {
	Integrations Store
	Deliveries   DeliveryStore
	// Clock defaults to the system clock.
	Clock clock.Clock
}

var _ export.Delivering = (*Queue)(nil)

// CheckIntegrations implements export.Delivering.
func (q *Queue) CheckIntegrations(ctx context.Context, orgID string, ids []string) error {
	for _, id := range ids {
		if _, err := q.Integrations.ExportIntegration(ctx, orgID, id); errors.Is(err, store.ErrNotFound) {
			return web.NotFound("integration")
		} else if err != nil {
			return err
		}
	}
	return nil
}

// CreateDeliveredExportJob implements export.Delivering.
func (q *Queue) CreateDeliveredExportJob(ctx context.Context, j export.Job, integrationIDs []string) error {
	return q.Deliveries.CreateDeliveredExportJob(ctx, j, NewDeliveries(j.OrgID, j.ID, integrationIDs, q.Clock.Now()))
}

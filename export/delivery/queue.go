package delivery

import (
	"context"
	"errors"
	"fmt"

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
func (q *Queue) CheckIntegrations(ctx context.Context, orgID, field string, to []export.Delivery) error {
	for i, d := range to {
		if d.IntegrationID == "" {
			continue
		}
		in, err := q.Integrations.ExportIntegration(ctx, orgID, d.IntegrationID)
		if errors.Is(err, store.ErrNotFound) {
			return web.NotFound("integration")
		} else if err != nil {
			return err
		}
		if d.Method != "" && d.Method != in.Type {
			return web.Invalid(fmt.Sprintf("%s[%d].integration_id", field, i), fmt.Sprintf("names a %s integration, not %s", in.Type, d.Method))
		}
	}
	return nil
}

// CreateDeliveredExportJob implements export.Delivering.
func (q *Queue) CreateDeliveredExportJob(ctx context.Context, j export.Job, to []export.Delivery) error {
	return q.Deliveries.CreateDeliveredExportJob(ctx, j, NewDeliveries(j.OrgID, j.ID, to, q.Clock.Now()))
}

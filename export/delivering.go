package export

import (
	"context"
	"fmt"

	"github.com/vigilhq/vigil/platform/web"
)

// MaxDeliveries bounds the integrations one export is delivered to.
const MaxDeliveries = 10

// Delivering stores an export together with the deliveries it owes, so
// that an export asked for with deliveries is never stored without them.
// export/delivery implements it (export does not import that package).
type Delivering interface {
	// CheckIntegrations answers the 404 of an integration unless every id
	// names an integration of the organization.
	CheckIntegrations(ctx context.Context, orgID string, ids []string) error
	// CreateDeliveredExportJob stores j and a pending delivery of it to
	// each of the integrations in one write.
	CreateDeliveredExportJob(ctx context.Context, j Job, integrationIDs []string) error
}

// checkDeliveries checks the integrations an export names: at most
// MaxDeliveries, none twice.
func checkDeliveries(v *web.Problems, ids []string) {
	if len(ids) > MaxDeliveries {
		v.Add("deliveries", fmt.Sprintf("must name at most %d integrations", MaxDeliveries))
		return
	}
	for i, id := range ids {
		for _, seen := range ids[:i] {
			if seen == id {
				v.Add(fmt.Sprintf("deliveries[%d]", i), "repeats an integration")
				break
			}
		}
	}
}

// checkIntegrations answers 404 unless every integration named is the
// organization's (422 when this server delivers nothing).
func (a *API) checkIntegrations(ctx context.Context, orgID string, ids []string) error {
	if len(ids) == 0 {
		return nil
	}
	if a.Delivering == nil {
		return web.Invalid("deliveries", "delivery is not available on this server")
	}
	return a.Delivering.CheckIntegrations(ctx, orgID, ids)
}

// create stores the prepared job j with its deliveries to the checked
// integrations, or alone when it names none.
func (a *API) create(ctx context.Context, j Job, integrationIDs []string) error {
	if len(integrationIDs) == 0 || a.Delivering == nil {
		return a.Jobs.CreateExportJob(ctx, j)
	}
	return a.Delivering.CreateDeliveredExportJob(ctx, j, integrationIDs)
}

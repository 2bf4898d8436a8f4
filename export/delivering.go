package export

import (
	"context"
	"fmt"
	"slices"

	"github.com/vigilhq/vigil/platform/web"
)

// MaxDeliveries bounds the integrations one export is delivered to.
const MaxDeliveries = 10

// Delivering stores an export together with the deliveries it owes, so
// that an export asked for with deliveries is never stored without them.
// export/delivery implements it (export does not import that package).
type Delivering interface {
	// CheckIntegrations answers the 404 of an integration unless every
	// integration named in to is the organization's, and a 422 naming
	// field[i].integration_id when one's type is not its entry's method
	// (entries that name none are not checked).
	CheckIntegrations(ctx context.Context, orgID, field string, to []Delivery) error
	// CreateDeliveredExportJob stores j and a pending delivery of it to
	// each destination in one write.
	CreateDeliveredExportJob(ctx context.Context, j Job, to []Delivery) error
}

// ToIntegrations are the destinations of integration ids.
func ToIntegrations(ids []string) []Delivery {
	out := make([]Delivery, 0, len(ids))
	for _, id := range ids {
		out = append(out, Delivery{IntegrationID: id})
	}
	return out
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

// checkIntegrations answers 404 unless every integration named in to is
// the organization's (422 naming field when this server delivers
// nothing).
func (a *API) checkIntegrations(ctx context.Context, orgID, field string, to []Delivery) error {
	if !slices.ContainsFunc(to, func(d Delivery) bool { return d.IntegrationID != "" }) {
		return nil
	}
	if a.Delivering == nil {
		return web.Invalid(field, "delivery is not available on this server")
	}
	return a.Delivering.CheckIntegrations(ctx, orgID, field, to)
}

// create stores the prepared job j with its deliveries to the checked
// destinations, or alone when it has none.
func (a *API) create(ctx context.Context, j Job, to []Delivery) error {
	if len(to) == 0 || a.Delivering == nil {
		return a.Jobs.CreateExportJob(ctx, j)
	}
	return a.Delivering.CreateDeliveredExportJob(ctx, j, to)
}

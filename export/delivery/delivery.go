package delivery

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
)

// Statuses of a delivery.
const (
	StatusPending = "pending"
	StatusSent    = "sent"
	StatusFailed  = "failed"
)

// MaxAttempts is how many tries a delivery gets before it fails.
const MaxAttempts = 3

// Delivery is one export owed to one destination: an integration
// (IntegrationID), or a method of spec 1 carried out without one
// (Method: email to Recipients, a scheduled report's recipients or a
// configuration's email entry; download and api, which leave the file
// for the API). It is pending until the export is final and a deliverer
// has tried it, then sent (Detail says where) or failed (Error says why).
type Delivery struct {
	ID, OrgID, ExportID string
	// IntegrationID is empty for a delivery straight to Method. Method
	// is the integration's type once a deliverer has read it.
	IntegrationID, Method string
	Recipients            []string
	Status                string
	Attempts              int
	Error, Detail         string
	CreatedAt, UpdatedAt  time.Time
}

// NewDeliveries are the pending deliveries of an export to each
// destination, asked for at now.
func NewDeliveries(orgID, exportID string, to []export.Delivery, now time.Time) []Delivery {
	out := make([]Delivery, 0, len(to))
	for _, d := range to {
		out = append(out, Delivery{ID: uuid.Must(uuid.NewV7()).String(), OrgID: orgID, ExportID: exportID,
			IntegrationID: d.IntegrationID, Method: d.Method, Recipients: d.Recipients, Status: StatusPending, CreatedAt: now,
			UpdatedAt: now})
	}
	return out
}

// DeliveryStore keeps the deliveries. A record of another organization
// is store.ErrNotFound, as a missing one.
type DeliveryStore interface {
	// ExportDeliveries lists an export's deliveries oldest first with
	// their total.
	ExportDeliveries(ctx context.Context, orgID, exportID string, offset, limit int) ([]Delivery, int64, error)
	// OwedExportDeliveries are pending deliveries whose export is final
	// (completed, failed or cancelled), not updated since before, oldest
	// first, in any organization.
	OwedExportDeliveries(ctx context.Context, before time.Time, limit int) ([]Delivery, error)
	// CreateDeliveredExportJob stores the export job j and its
	// deliveries ds in one write.
	CreateDeliveredExportJob(ctx context.Context, j export.Job, ds []Delivery) error
	// SaveExportDelivery writes d's method, status, attempts, error,
	// detail and update time if the stored delivery still has was's status and
	// update time (store.ErrConflict otherwise).
	SaveExportDelivery(ctx context.Context, d, was Delivery) error
}

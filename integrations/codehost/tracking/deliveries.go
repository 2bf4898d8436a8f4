package tracking

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/platform/web"
)

// deliveryView is a delivery as GET .../deliveries shows it.
type deliveryView struct {
	DeliveryID  string            `json:"delivery_id"`
	Event       string            `json:"event"`
	Status      string            `json:"status"`
	ReceivedAt  time.Time         `json:"received_at"`
	Attempts    int               `json:"attempts"`
	LastError   string            `json:"last_error"`
	ProcessedAt *time.Time        `json:"processed_at"`
	Outcome     *codehost.Outcome `json:"outcome"`
}

// deliveries lists a tracked repository's deliveries, newest first, with
// what processing made of them: the model versions registered, the files
// logged for review, the problems of .monitor.yml.
func (a *API) deliveries(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	r, err := codehost.RepositoryParam(c, a.Store)
	if err != nil {
		return err
	}
	ds, total, err := a.Queue.QueuedDeliveries(c.UserContext(), r.OrgID, r.ID, (page-1)*size, size)
	if err != nil {
		return err
	}
	out := make([]deliveryView, 0, len(ds))
	for _, d := range ds {
		out = append(out, deliveryView{DeliveryID: d.ID, Event: d.Event, Status: d.Status, ReceivedAt: d.ReceivedAt,
			Attempts: d.Attempts, LastError: d.LastError, ProcessedAt: d.ProcessedAt, Outcome: d.Outcome})
	}
	return c.JSON(struct {
		Deliveries []deliveryView `json:"deliveries"`
		web.Page
	}{out, web.NewPage(total, page, size)})
}

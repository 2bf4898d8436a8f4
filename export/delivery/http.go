package delivery

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// MaxRecipients bounds an email integration's recipients.
const MaxRecipients = 50

// API serves /export/integrations.
type API struct {
	Store Store
	// Deliveries and Jobs answer an export's deliveries.
	Deliveries DeliveryStore
	Jobs       export.JobStore
	// Box seals the secrets; Targets guards network targets.
	Box     *secretbox.Keyring
	Targets *outbound.Guard
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/export/integrations", Permission: export.PermRead, Handler: a.list},
		{Method: fiber.MethodPost, Path: "/export/integrations", Permission: export.PermWrite, Handler: a.create},
		{Method: fiber.MethodGet, Path: "/export/integrations/:integration_id", Permission: export.PermRead, Handler: a.get},
		{Method: fiber.MethodPut, Path: "/export/integrations/:integration_id", Permission: export.PermWrite, Handler: a.replace},
		{Method: fiber.MethodDelete, Path: "/export/integrations/:integration_id", Permission: export.PermWrite, Handler: a.delete},
		{Method: fiber.MethodGet, Path: "/export/exports/:export_id/deliveries", Permission: export.PermRead, Handler: a.deliveries},
	}
}

// view is an integration as the API answers it: its secrets masked.
type view struct {
	ID        string            `json:"id"`
	Name      string            `json:"name"`
	Type      string            `json:"type"`
	Settings  Settings          `json:"settings"`
	Secrets   map[string]string `json:"secrets"`
	CreatedAt time.Time         `json:"created_at"`
	UpdatedAt time.Time         `json:"updated_at"`
}

func newView(in Integration) view {
	masks := in.Masks
	if masks == nil {
		masks = map[string]string{}
	}
	return view{ID: in.ID, Name: in.Name, Type: in.Type, Settings: in.Settings, Secrets: masks, CreatedAt: in.CreatedAt.UTC(),
		UpdatedAt: in.UpdatedAt.UTC()}
}

// body is the body of POST and PUT.
type body struct {
	Name     *string   `json:"name"`
	Type     *string   `json:"type"`
	Settings *Settings `json:"settings"`
	Secrets  *Secrets  `json:"secrets"`
}

func (a *API) guard() *outbound.Guard {
	if a.Targets == nil {
		return &outbound.Guard{}
	}
	return a.Targets
}

// fill applies a checked body to in, sealing its secrets.
func (a *API) fill(b body, in *Integration) error {
	in.Name, in.Type, in.Settings = *b.Name, *b.Type, Settings{}
	if b.Settings != nil {
		in.Settings = *b.Settings
	}
	if in.Type == TypeSFTP && in.Settings.Port == 0 {
		in.Settings.Port = 22
	}
	if b.Secrets == nil && in.Sealed != "" {
		return nil // PUT without secrets keeps the stored ones
	}
	var sec Secrets
	if b.Secrets != nil {
		sec = *b.Secrets
	}
	sealed, masks, err := Seal(a.Box, in.OrgID, sec)
	if err != nil {
		return err
	}
	in.Sealed, in.Masks = sealed, masks
	return nil
}

func (a *API) create(c *fiber.Ctx) error {
	var b body
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if err := a.check(b, false); err != nil {
		return err
	}
	now := a.Clock.Now()
	in := Integration{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), CreatedAt: now, UpdatedAt: now}
	if err := a.fill(b, &in); err != nil {
		return err
	}
	if err := a.Store.CreateExportIntegration(c.UserContext(), in); err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/export/integrations/"+in.ID)
	return c.Status(http.StatusCreated).JSON(newView(in))
}

func (a *API) list(c *fiber.Ctx) error {
	return web.SendPage(c, "integrations", func(ctx context.Context, offset, limit int) ([]Integration, int64, error) {
		return a.Store.ExportIntegrations(ctx, identity.OrgID(c), offset, limit)
	}, newView)
}

// integration is the organization's integration of the path's id.
func (a *API) integration(c *fiber.Ctx) (Integration, error) {
	return identity.PathRecord(c, "integration_id", "integration", a.Store.ExportIntegration)
}

func (a *API) get(c *fiber.Ctx) error {
	in, err := a.integration(c)
	if err != nil {
		return err
	}
	return c.JSON(newView(in))
}

// replace answers PUT: name, type and settings anew; secrets replaced
// when sent, kept otherwise (not across a change of type).
func (a *API) replace(c *fiber.Ctx) error {
	in, err := a.integration(c)
	if err != nil {
		return err
	}
	var b body
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	keep := b.Secrets == nil && b.Type != nil && *b.Type == in.Type && in.Sealed != ""
	if err := a.check(b, keep); err != nil {
		return err
	}
	if !keep {
		in.Sealed, in.Masks = "", nil
	}
	if err := a.fill(b, &in); err != nil {
		return err
	}
	in.UpdatedAt = a.Clock.Now()
	if err := a.Store.UpdateExportIntegration(c.UserContext(), in); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("integration")
	} else if err != nil {
		return err
	}
	return c.JSON(newView(in))
}

func (a *API) delete(c *fiber.Ctx) error {
	in, err := a.integration(c)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteExportIntegration(c.UserContext(), in.OrgID, in.ID); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("integration")
	} else if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// deliveryView is a delivery as the API answers it: the integration
// null for a delivery straight to its method.
type deliveryView struct {
	ID            string    `json:"id"`
	Method        string    `json:"method"`
	IntegrationID *string   `json:"integration_id"`
	Status        string    `json:"status"`
	Recipients    []string  `json:"recipients"`
	Attempts      int       `json:"attempts"`
	Error         string    `json:"error"`
	Detail        string    `json:"detail"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// deliveries answers GET /export/exports/{export_id}/deliveries: the
// export's deliveries with their status, oldest first.
func (a *API) deliveries(c *fiber.Ctx) error {
	return web.SendPage(c, "deliveries", func(ctx context.Context, offset, limit int) ([]Delivery, int64, error) {
		j, err := export.PathJob(c, a.Jobs)
		if err != nil {
			return nil, 0, err
		}
		return a.Deliveries.ExportDeliveries(ctx, j.OrgID, j.ID, offset, limit)
	}, newDeliveryView)
}

func newDeliveryView(d Delivery) deliveryView {
	v := deliveryView{ID: d.ID, Method: d.Method, Status: d.Status, Recipients: d.Recipients, Attempts: d.Attempts, Error: d.Error,
		Detail: d.Detail, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
	if d.IntegrationID != "" {
		v.IntegrationID = &d.IntegrationID
	}
	if v.Recipients == nil {
		v.Recipients = []string{}
	}
	return v
}

package drift

import (
	"context"
	"errors"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// API serves /drift/detect, /drift/reports, /drift/trend,
// /drift/reference and /drift-config.
type API struct {
	Store Store
	// Reports keeps the reports of scheduled runs.
	Reports ReportStore
	// References keeps the models' uploaded references.
	References ReferenceStore
	Detector   Detector
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Box seals the secret targets of alert_config.channels at rest
	// (platform/target); without it, the API of a test, they stay in clear.
	Box *secretbox.Keyring
}

// Routes lists the operations of this package. The preset routes come
// before /drift-config/:model_id so that "presets" is never read as a
// model id.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/drift/detect", Permission: "drift:write", Bucket: web.BucketBatch, NonFinite: true, TypedBody: true, Handler: a.detect},
		{Method: fiber.MethodGet, Path: "/drift/reports", Permission: "drift:read", Handler: a.listReports},
		{Method: fiber.MethodGet, Path: "/drift/reports/:report_id", Permission: "drift:read", Handler: a.getReport},
		{Method: fiber.MethodGet, Path: "/drift/trend", Permission: "drift:read", Handler: a.trend},
		{Method: fiber.MethodPut, Path: "/drift/reference/:model_id", Permission: "drift:write", Bucket: web.BucketBatch, Handler: a.putReference},
		{Method: fiber.MethodPost, Path: "/drift/reference/:model_id/append", Permission: "drift:write", Bucket: web.BucketBatch, Handler: a.appendReference},
		{Method: fiber.MethodGet, Path: "/drift/reference/:model_id", Permission: "drift:read", Handler: a.getReference},
		{Method: fiber.MethodDelete, Path: "/drift/reference/:model_id", Permission: "drift:write", Handler: a.deleteReference},
		{Method: fiber.MethodGet, Path: "/drift-config/presets", Permission: "drift:read", Handler: a.presets},
		{Method: fiber.MethodGet, Path: "/drift-config/presets/:preset_name", Permission: "drift:read", Handler: a.preset},
		{Method: fiber.MethodPost, Path: "/drift-config/:model_id/default", Permission: "drift:write", Handler: a.createDefault},
		{Method: fiber.MethodPost, Path: "/drift-config/:model_id/sensitivity/:preset", Permission: "drift:write", Handler: a.applyPreset},
		{Method: fiber.MethodGet, Path: "/drift-config/:model_id", Permission: "drift:read", Handler: a.get},
		{Method: fiber.MethodPut, Path: "/drift-config/:model_id", Permission: "drift:write", Handler: a.put},
	}
}

// detect answers POST /drift/detect: the body's shape first (400, 422),
// then the model (404), then the values (422, 413) and the tests. The
// route is TypedBody: Detector.answer checks the body as it reads it.
func (a *API) detect(c *fiber.Ctx) error {
	d := a.Detector
	if d.Clock == nil {
		d.Clock = a.Clock
	}
	org := identity.OrgID(c)
	res, err := d.answer(c.UserContext(), c.Body(), func(ctx context.Context, modelID string) (Config, error) {
		return a.config(ctx, org, modelID)
	})
	if err != nil {
		return err
	}
	return c.JSON(res)
}

// config returns the model's configuration, or Default when none is on
// file; a 404 when the organization has no such model.
func (a *API) config(ctx context.Context, orgID, modelID string) (Config, error) {
	cfg, err := a.Store.DriftConfig(ctx, orgID, modelID)
	if !errors.Is(err, store.ErrNotFound) {
		return cfg, err
	}
	if err := a.model(ctx, orgID, modelID); err != nil {
		return cfg, err
	}
	return Default(orgID, modelID), nil
}

package drift

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

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
	// Govern, when set, puts the governance event of a report that
	// POST /drift/detect stored at high severity on the log (and marks it
	// sent); when it fails the report still owes it, and the processor
	// role's outbox sends it.
	Govern func(ctx context.Context, r Report) error
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
	if !res.transient {
		if res.ReportID, err = a.record(c.UserContext(), org, res); err != nil {
			return err
		}
	}
	return c.JSON(res)
}

// record stores an on-demand result as a data drift report of the model,
// listed and counted by the trust score as the stream's are; at high
// severity it owes a governance event (a risk entry is drafted from it),
// which Govern sends at once.
func (a *API) record(ctx context.Context, orgID string, res Result) (string, error) {
	at := res.Timestamp.UTC().Truncate(time.Microsecond)
	r := Report{ID: uuid.NewString(), OrgID: orgID, ModelID: res.ModelID, DriftType: TypeData, WindowStart: at, WindowEnd: at,
		Reference: Reference{Type: ReferenceRequest}, DriftDetected: res.DriftDetected, OverallDriftScore: res.OverallDriftScore,
		Severity: res.Severity, Features: make(map[string]ReportFeature, len(res.Features)), Skipped: res.Skipped,
		Problems: map[string]string{}, CreatedAt: at}
	if r.Skipped == nil {
		r.Skipped = []string{}
	}
	for name, f := range res.Features {
		r.Features[name] = ReportFeature{FeatureResult: f}
	}
	if err := a.Reports.CreateDriftReport(ctx, r); err != nil {
		return "", err
	}
	if r.Severity == High && a.Govern != nil {
		_ = a.Govern(ctx, r) // owed until sent: the outbox resends it
	}
	return r.ID, nil
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

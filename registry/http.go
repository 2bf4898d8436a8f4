package registry

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// API serves /models.
type API struct {
	Store Store
	// Users resolves the owner_id filter of the list within the caller's
	// organization.
	Users Users
	// Activities, when set, fills prediction_count and last_prediction_at.
	Activities Activities
	// Healths, when set, fills active_alerts and drift_status.
	Healths Healths
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/models", Permission: "models:write", Handler: a.create},
		{Method: fiber.MethodGet, Path: "/models", Permission: "models:read", Handler: a.list},
		{Method: fiber.MethodGet, Path: "/models/:model_id", Permission: "models:read", Handler: a.get},
		{Method: fiber.MethodPatch, Path: "/models/:model_id", Permission: "models:write", Handler: a.update},
		{Method: fiber.MethodDelete, Path: "/models/:model_id", Permission: "models:write", Handler: a.delete},
		{Method: fiber.MethodPatch, Path: "/models/:model_id/status", Permission: "models:write", Handler: a.setStatus},
		{Method: fiber.MethodPost, Path: "/models/:model_id/archive", Permission: "models:write", Handler: a.archive},
		{Method: fiber.MethodPost, Path: "/models/:model_id/restore", Permission: "models:write", Handler: a.restore},
		{Method: fiber.MethodPut, Path: "/models/:model_id/baseline", Permission: "models:write", Handler: a.setBaseline},
		{Method: fiber.MethodGet, Path: "/models/:model_name/versions", Permission: "models:read", Handler: a.versions},
		{Method: fiber.MethodGet, Path: "/models/:model_name/latest", Permission: "models:read", Handler: a.latest},
	}
}

type createRequest struct {
	Name             string         `json:"name"`
	Description      string         `json:"description"`
	ModelType        string         `json:"model_type"`
	Framework        string         `json:"framework"`
	Version          string         `json:"version"`
	Metadata         map[string]any `json:"metadata"`
	BaselineMetrics  web.Numbers    `json:"baseline_metrics"`
	MonitoringConfig map[string]any `json:"monitoring_config"`
	Tags             []string       `json:"tags"`
}

// created is the create response: the fields the specification lists.
type created struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	ModelType         string    `json:"model_type"`
	Framework         string    `json:"framework"`
	Version           string    `json:"version"`
	Status            string    `json:"status"`
	CreatedAt         time.Time `json:"created_at"`
	MonitoringEnabled bool      `json:"monitoring_enabled"`
}

func (a *API) create(c *fiber.Ctx) error {
	var req createRequest
	if err := web.Decode(c, &req); err != nil {
		return err
	}
	var v web.Problems
	v.Required("name", req.Name)
	v.MaxLen("name", req.Name, 255)
	v.Required("model_type", req.ModelType)
	v.OneOf("model_type", req.ModelType, ModelTypes...)
	v.MaxLen("description", req.Description, 10000)
	v.MaxLen("framework", req.Framework, 100)
	v.MaxLen("version", req.Version, 100)
	validateTags(&v, req.Tags)
	validateMetrics(&v, "baseline_metrics", req.BaselineMetrics)
	if err := v.Err(); err != nil {
		return err
	}
	if req.Version == "" {
		req.Version = "1"
	}
	now := a.Clock.Now()
	m := Model{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), Name: req.Name,
		Version: req.Version, Description: req.Description, ModelType: req.ModelType, Framework: req.Framework,
		Status: StatusActive, OwnerID: identity.FromCtx(c).UserID, Metadata: req.Metadata,
		BaselineMetrics: req.BaselineMetrics, MonitoringConfig: req.MonitoringConfig,
		MonitoringEnabled: true, Tags: req.Tags, CreatedAt: now, UpdatedAt: now}
	normalize(&m)
	if err := a.Store.CreateModel(c.UserContext(), m); errors.Is(err, store.ErrConflict) {
		return web.Conflict("a model with this name and version exists")
	} else if err != nil {
		return err
	}
	return c.Status(http.StatusCreated).JSON(created{ID: m.ID, Name: m.Name, ModelType: m.ModelType,
		Framework: m.Framework, Version: m.Version, Status: m.Status, CreatedAt: m.CreatedAt,
		MonitoringEnabled: m.MonitoringEnabled})
}

func validateTags(v *web.Problems, tags []string) {
	if len(tags) > 50 {
		v.Add("tags", "at most 50 tags")
	}
	for _, t := range tags {
		if t == "" || t != strings.TrimSpace(t) || utf8.RuneCountInString(t) > 100 || strings.Contains(t, ",") {
			v.Add("tags", "each tag must be 1-100 characters without commas or surrounding spaces")
		}
	}
}

// normalize gives nil collections their empty value, so responses carry
// {} and [] rather than null.
func normalize(m *Model) {
	if m.Metadata == nil {
		m.Metadata = map[string]any{}
	}
	if m.BaselineMetrics == nil {
		m.BaselineMetrics = map[string]float64{}
	}
	if m.MonitoringConfig == nil {
		m.MonitoringConfig = map[string]any{}
	}
	if m.ProtectedGroups == nil {
		m.ProtectedGroups = map[string]any{}
	}
	m.Tags = slices.Compact(slices.Sorted(slices.Values(m.Tags)))
	for _, s := range []*[]string{&m.Features, &m.FairnessAttributes, &m.Tags} {
		if *s == nil {
			*s = []string{}
		}
	}
}

func (a *API) list(c *fiber.Ctx) error {
	var f Filter
	var v web.Problems
	upper := make([]string, len(Statuses))
	for i, s := range Statuses {
		upper[i] = strings.ToUpper(s)
	}
	f.Status = strings.ToLower(v.EnumQuery(c, "status_filter", "", upper...))
	f.ModelType = v.EnumQuery(c, "model_type", "", ModelTypes...)
	f.OwnerID = c.Query("owner_id")
	v.UUID("owner_id", web.Query(c, "owner_id"))
	for _, t := range strings.Split(c.Query("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			f.Tags = append(f.Tags, t)
		}
	}
	f.Search = c.Query("search")
	if err := v.Err(); err != nil {
		return err
	}
	if f.OwnerID != "" {
		if err := findOwner(c.UserContext(), a.Users, identity.OrgID(c), f.OwnerID); err != nil {
			return err
		}
	}
	var err error
	if f.Offset, err = web.IntQuery(c, "skip", 0, 0, 1<<30); err != nil {
		return err
	}
	if f.Limit, err = web.IntQuery(c, "limit", 100, 1, 1000); err != nil {
		return err
	}
	models, err := a.Store.Models(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	if err := a.withActivity(c, models); err != nil {
		return err
	}
	if models == nil {
		models = []Model{}
	}
	return c.JSON(models)
}

// withActivity fills the models' prediction_count and
// last_prediction_at, active_alerts and drift_status.
func (a *API) withActivity(c *fiber.Ctx, ms []Model) error {
	if len(ms) == 0 {
		return nil
	}
	ids := make([]string, len(ms))
	for i, m := range ms {
		ids[i] = m.ID
	}
	ctx, org := c.UserContext(), identity.OrgID(c)
	if a.Activities != nil {
		act, err := a.Activities.Activities(ctx, org, ids)
		if err != nil {
			return err
		}
		for i := range ms {
			ms[i].PredictionCount, ms[i].LastPredictionAt = act[ms[i].ID].Predictions, act[ms[i].ID].Last
		}
	}
	if a.Healths != nil {
		health, err := a.Healths.ModelHealth(ctx, org, ids)
		if err != nil {
			return err
		}
		for i := range ms {
			ms[i].ActiveAlerts, ms[i].DriftStatus = health[ms[i].ID].ActiveAlerts, health[ms[i].ID].Drift
		}
	}
	return nil
}

// answer answers with one model, its activity filled.
func (a *API) answer(c *fiber.Ctx, m Model) error {
	ms := []Model{m}
	if err := a.withActivity(c, ms); err != nil {
		return err
	}
	return c.JSON(ms[0])
}

// load returns the caller's model named by the model_id path parameter.
func (a *API) load(c *fiber.Ctx) (Model, error) {
	return Find(c.UserContext(), a.Store, identity.OrgID(c), c.Params("model_id"))
}

func (a *API) get(c *fiber.Ctx) error {
	m, err := a.load(c)
	if err != nil {
		return err
	}
	return a.answer(c, m)
}

func (a *API) delete(c *fiber.Ctx) error {
	err := a.Store.DeleteModel(c.UserContext(), identity.OrgID(c), c.Params("model_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	}
	if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// modelVersions returns the versions of the model named by the model_name
// path parameter, newest first, or a 404.
func (a *API) modelVersions(c *fiber.Ctx) ([]Model, error) {
	name, err := web.PathParam(c, "model_name")
	if err != nil {
		return nil, err
	}
	ms, err := a.Store.ModelVersions(c.UserContext(), identity.OrgID(c), name)
	if err == nil && len(ms) == 0 {
		err = web.NotFound("model")
	}
	return ms, err
}

func (a *API) versions(c *fiber.Ctx) error {
	ms, err := a.modelVersions(c)
	if err != nil {
		return err
	}
	if err := a.withActivity(c, ms); err != nil {
		return err
	}
	return c.JSON(ms)
}

func (a *API) latest(c *fiber.Ctx) error {
	ms, err := a.modelVersions(c)
	if err != nil {
		return err
	}
	return a.answer(c, ms[0])
}

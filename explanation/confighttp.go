package explanation

import (
	"context"
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// configBody is the body of PUT /explanations/config/{model_id}: a field
// absent or null takes DefaultConfig's value.
type configBody struct {
	Enabled       *bool   `json:"enabled"`
	DefaultMethod *string `json:"default_method"`
	AutoExplain   *bool   `json:"auto_explain"`
	// AutoExplainRate null or absent takes the processor role's default.
	AutoExplainRate *float64 `json:"auto_explain_rate"`
	CacheEnabled    *bool    `json:"cache_enabled"`
	CacheTTLHours   *web.Int `json:"cache_ttl_hours"`
}

// configView is a configuration as the API answers it; updated_at is null
// for the defaults of a model that has none stored.
type configView struct {
	ModelID       string `json:"model_id"`
	Enabled       bool   `json:"enabled"`
	DefaultMethod string `json:"default_method"`
	AutoExplain   bool   `json:"auto_explain"`
	// AutoExplainRate is null while the processor role's default applies.
	AutoExplainRate *float64   `json:"auto_explain_rate"`
	CacheEnabled    bool       `json:"cache_enabled"`
	CacheTTLHours   int        `json:"cache_ttl_hours"`
	UpdatedAt       *time.Time `json:"updated_at"`
}

func newConfigView(c Config) configView {
	v := configView{ModelID: c.ModelID, Enabled: c.Enabled, DefaultMethod: CanonicalMethod(c.DefaultMethod), AutoExplain: c.AutoExplain,
		AutoExplainRate: c.AutoExplainRate, CacheEnabled: c.CacheEnabled, CacheTTLHours: c.CacheTTLHours}
	if !c.UpdatedAt.IsZero() {
		v.UpdatedAt = &c.UpdatedAt
	}
	return v
}

// config returns the model's configuration, DefaultConfig when it has
// none stored.
func (a *API) config(ctx context.Context, orgID, modelID string) (Config, error) {
	c, err := a.Configs.ExplanationConfig(ctx, orgID, modelID)
	if errors.Is(err, store.ErrNotFound) {
		return DefaultConfig(orgID, modelID), nil
	}
	return c, err
}

// getConfig answers GET /explanations/config/{model_id}: the stored
// configuration or the defaults; 404 for another organization's model.
func (a *API) getConfig(c *fiber.Ctx) error {
	ctx, orgID, modelID := c.UserContext(), identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	cfg, err := a.config(ctx, orgID, modelID)
	if err != nil {
		return err
	}
	return c.JSON(newConfigView(cfg))
}

// putConfig answers PUT /explanations/config/{model_id}: the model (404),
// the body (422 naming the field), then the configuration replaces the
// model's; 200 with it.
func (a *API) putConfig(c *fiber.Ctx) error {
	ctx, orgID, modelID := c.UserContext(), identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	var b configBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	cfg := DefaultConfig(orgID, modelID)
	var v web.Problems
	if b.DefaultMethod != nil {
		cfg.DefaultMethod = CanonicalMethod(*b.DefaultMethod)
		v.OneOf("default_method", cfg.DefaultMethod, RequestMethods...)
	}
	if b.CacheTTLHours != nil {
		cfg.CacheTTLHours = int(*b.CacheTTLHours)
		if cfg.CacheTTLHours < 1 || cfg.CacheTTLHours > MaxCacheTTLHours {
			v.Add("cache_ttl_hours", "must be 1 to 8760 (a year)")
		}
	}
	if r := b.AutoExplainRate; r != nil {
		if !(*r >= 0 && *r <= 1) {
			v.Add("auto_explain_rate", "must be a share from 0 to 1 (1 explains every logged prediction)")
		}
		cfg.AutoExplainRate = r
	}
	if err := v.Err(); err != nil {
		return err
	}
	for _, f := range []struct {
		to   *bool
		from *bool
	}{{&cfg.Enabled, b.Enabled}, {&cfg.AutoExplain, b.AutoExplain}, {&cfg.CacheEnabled, b.CacheEnabled}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	cfg.UpdatedAt = a.Clock.Now()
	if err := a.Configs.PutExplanationConfig(ctx, cfg); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	} else if err != nil {
		return err
	}
	return c.JSON(newConfigView(cfg))
}

// statsView is GET /explanations/stats' answer.
type statsView struct {
	ModelID           string           `json:"model_id"`
	Total             int64            `json:"total"`
	ByMethod          map[string]int64 `json:"by_method"`
	ByStatus          map[string]int64 `json:"by_status"`
	MeanComputationMS *float64         `json:"mean_computation_time_ms"`
}

// stats answers GET /explanations/stats?model_id=: the model's
// explanations counted by method and by status (every method and status
// named, zero included) and the mean computation time of the completed
// ones (null without any); 422 naming model_id when it is missing, 404
// for another organization's model.
func (a *API) stats(c *fiber.Ctx) error {
	modelID := c.Query("model_id")
	var v web.Problems
	v.Required("model_id", modelID)
	v.Text("model_id", modelID)
	if err := v.Err(); err != nil {
		return err
	}
	ctx, orgID := c.UserContext(), identity.OrgID(c)
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return err
	}
	st, err := a.Jobs.ExplanationStats(ctx, orgID, modelID)
	if err != nil {
		return err
	}
	out := statsView{ModelID: modelID, Total: st.Total, ByMethod: map[string]int64{}, ByStatus: map[string]int64{},
		MeanComputationMS: st.MeanComputationMS}
	for _, m := range RequestMethods {
		out.ByMethod[m] = 0
	}
	for m, n := range st.ByMethod {
		if _, ok := out.ByMethod[CanonicalMethod(m)]; ok {
			out.ByMethod[CanonicalMethod(m)] += n
		}
	}
	for _, s := range Statuses {
		out.ByStatus[s] = st.ByStatus[s]
	}
	return c.JSON(out)
}

package drift

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/target"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// view is a configuration as the API answers it.
type view struct {
	Config
	// Sensitivity names the preset the thresholds equal, or "custom".
	Sensitivity string `json:"sensitivity"`
	// IsDefault is true when no configuration is on file: the answer is
	// the default the detection uses.
	IsDefault bool `json:"is_default"`
}

func (a *API) answer(c *fiber.Ctx, status int, cfg Config) error {
	chans := make([]Channel, len(cfg.Alerts.Channels))
	for i, ch := range cfg.Alerts.Channels {
		chans[i] = Channel{Type: ch.Type, Target: target.Shown(a.Box, cfg.OrgID, ch.Type, ch.Target)}
	}
	cfg.Alerts.Channels = chans
	return c.Status(status).JSON(view{Config: cfg, Sensitivity: sensitivity(cfg.Thresholds), IsDefault: cfg.CreatedAt == nil})
}

// sealChannels returns the channels of a request with each masked target
// sent back replaced by the stored one it masks, and every secret target
// in clear sealed (platform/target), so that an edited answer keeps its
// secrets and none is stored in clear.
func (a *API) sealChannels(orgID string, req, stored []Channel) ([]Channel, error) {
	out := make([]Channel, len(req))
	for i, ch := range req {
		t, ok := target.Kept(a.Box, orgID, ch.Type, ch.Target, func(yield func(kind, target string) bool) {
			for _, s := range stored {
				if !yield(s.Type, s.Target) {
					return
				}
			}
		})
		if !ok {
			var err error
			if t, _, err = target.Seal(a.Box, orgID, ch.Type, ch.Target); err != nil {
				return nil, err
			}
		}
		out[i] = Channel{Type: ch.Type, Target: t}
	}
	return out, nil
}

// presetList is the answer of GET /drift-config/presets.
type presetList struct {
	Presets []Preset `json:"presets"`
	Default string   `json:"default"`
}

func (a *API) presets(c *fiber.Ctx) error {
	return c.JSON(presetList{Presets: Presets, Default: DefaultPreset})
}

func (a *API) preset(c *fiber.Ctx) error {
	p, err := pathPreset(c, "preset_name")
	if err != nil {
		return err
	}
	return c.JSON(p)
}

// pathPreset returns the preset the path parameter param names, or a 404.
func pathPreset(c *fiber.Ctx, param string) (Preset, error) {
	name, err := web.PathParam(c, param)
	if err != nil {
		return Preset{}, err
	}
	p, ok := PresetNamed(name)
	if !ok {
		return p, web.NotFound("preset")
	}
	return p, nil
}

func (a *API) get(c *fiber.Ctx) error {
	cfg, err := a.config(c.UserContext(), identity.OrgID(c), c.Params("model_id"))
	if err != nil {
		return err
	}
	return a.answer(c, http.StatusOK, cfg)
}

// createDefault stores the default configuration: 201, or 409 when the
// model has a configuration already (PUT or a preset changes it).
func (a *API) createDefault(c *fiber.Ctx) error {
	now := a.Clock.Now()
	cfg := Default(identity.OrgID(c), c.Params("model_id"))
	cfg.CreatedAt, cfg.UpdatedAt = &now, &now
	err := a.Store.CreateDriftConfig(c.UserContext(), cfg)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("model")
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the model has a drift configuration already; change it with PUT /drift-config/{model_id} " +
			"or POST /drift-config/{model_id}/sensitivity/{preset}")
	case err != nil:
		return err
	}
	return a.answer(c, http.StatusCreated, cfg)
}

// applyPreset sets the thresholds to a preset's, creating the default
// configuration first when none is on file; the other parts stay. An
// unknown model is a 404 MODEL_NOT_FOUND, an unknown preset NOT_FOUND.
func (a *API) applyPreset(c *fiber.Ctx) error {
	// The model first: its 404 must not depend on the preset named.
	if err := a.model(c.UserContext(), identity.OrgID(c), c.Params("model_id")); err != nil {
		return err
	}
	p, err := pathPreset(c, "preset")
	if err != nil {
		return err
	}
	return a.update(c, func(cfg *Config) error { cfg.Thresholds = p.Thresholds; return nil })
}

// putBody is the body of PUT /drift-config/{model_id}: the five parts,
// plus the read-only fields of a GET answer, which are ignored so that an
// answer can be edited and sent back.
type putBody struct {
	Settings
	ModelID     *string         `json:"model_id"`
	Sensitivity json.RawMessage `json:"sensitivity"`
	IsDefault   json.RawMessage `json:"is_default"`
	CreatedAt   json.RawMessage `json:"created_at"`
	UpdatedAt   json.RawMessage `json:"updated_at"`
}

// put replaces the configuration. A part or field left out takes its
// default value (the medium preset for thresholds), not the value on file.
func (a *API) put(c *fiber.Ctx) error {
	modelID := c.Params("model_id")
	body := putBody{Settings: Default("", modelID).Settings}
	// Inferred from the metric sent, unless sent.
	body.ConceptDrift.HigherIsBetter = nil
	if err := web.Decode(c, &body); err != nil {
		return decodeError(err)
	}
	var v web.Problems
	if body.ModelID != nil && *body.ModelID != modelID {
		v.Add("model_id", "must be the model_id of the path, or left out")
	}
	body.Settings.validate(&v)
	if err := v.Err(); err != nil {
		return err
	}
	return a.update(c, func(cfg *Config) error {
		chans, err := a.sealChannels(cfg.OrgID, body.Alerts.Channels, cfg.Alerts.Channels)
		cfg.Settings, cfg.Alerts.Channels = body.Settings, chans
		return err
	})
}

// decodeError names the fields of a PUT body's decoding error as the
// document does: encoding/json puts the embedded Settings in the path, and
// reports a bad timestamp as malformed JSON.
func decodeError(err error) error {
	var perr *time.ParseError
	if errors.As(err, &perr) {
		return web.Invalid("schedule_config.reference", "start and end must be RFC 3339 timestamps or null")
	}
	var e *web.Error
	if errors.As(err, &e) && len(e.Details) > 0 {
		details := map[string]any{}
		for field, problem := range e.Details {
			details[strings.TrimPrefix(field, "Settings.")] = problem
		}
		e.Details = details
	}
	return err
}

// update applies change to the model's configuration (the default when
// none is on file) and answers with the result.
func (a *API) update(c *fiber.Ctx, change func(*Config) error) error {
	now := a.Clock.Now()
	base := Default(identity.OrgID(c), c.Params("model_id"))
	apply := func(cfg *Config) error {
		if err := change(cfg); err != nil {
			return err
		}
		cfg.normalize()
		if cfg.CreatedAt == nil {
			cfg.CreatedAt = &now
		}
		cfg.UpdatedAt = &now
		return nil
	}
	cfg, err := a.Store.UpdateDriftConfig(c.UserContext(), base, apply)
	if errors.Is(err, store.ErrConflict) {
		// Another first write won the race: apply the change on top of it.
		cfg, err = a.Store.UpdateDriftConfig(c.UserContext(), base, apply)
	}
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	}
	if err != nil {
		return err
	}
	return a.answer(c, http.StatusOK, cfg)
}

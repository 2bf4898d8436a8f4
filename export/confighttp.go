package export

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// configBody is the body of POST /export/configs and of PUT
// /export/configs/{config_id}, which replaces the whole configuration.
type configBody struct {
	Name        *string     `json:"name"`
	Description *string     `json:"description"`
	TemplateID  *string     `json:"template_id"`
	ModelIDs    *[]string   `json:"model_ids"`
	Format      *string     `json:"format"`
	DateRange   *string     `json:"date_range"`
	Start       *string     `json:"start"`
	End         *string     `json:"end"`
	Sections    *[]string   `json:"sections"`
	Delivery    *[]Delivery `json:"delivery"`
}

// config validates the body into c (its id, organization and times
// kept), resolving the template and the models inside the organization:
// 422 naming the field, 404 for a template or model not the
// organization's.
func (a *API) config(c *fiber.Ctx, into Config) (Config, error) {
	var b configBody
	if err := web.Decode(c, &b); err != nil {
		return into, err
	}
	var v web.Problems
	for _, f := range []struct {
		name string
		sent bool
	}{{"name", b.Name != nil}, {"template_id", b.TemplateID != nil}, {"format", b.Format != nil},
		{"date_range", b.DateRange != nil}, {"model_ids", b.ModelIDs != nil}} {
		if !f.sent {
			v.Add(f.name, "is required")
		}
	}
	into.Name, into.Description, into.TemplateID = deref(b.Name), deref(b.Description), deref(b.TemplateID)
	into.Format, into.DateRange, into.Start, into.End = deref(b.Format), deref(b.DateRange), deref(b.Start), deref(b.End)
	into.ModelIDs, into.Sections = slices.Clone(deref(b.ModelIDs)), slices.Clone(deref(b.Sections))
	into.Delivery = append([]Delivery{}, deref(b.Delivery)...)
	if err := v.Err(); err != nil {
		return into, err
	}
	if err := into.Validate(); err != nil {
		return into, err
	}
	ctx, org := c.UserContext(), identity.OrgID(c)
	if _, err := findTemplate(ctx, a.Templates, org, into.TemplateID); err != nil {
		return into, err
	}
	if err := a.checkIntegrations(ctx, org, "delivery", into.Delivery); err != nil {
		return into, err
	}
	_, err := findModels(ctx, a.Models, org, into.ModelIDs)
	return into, err
}

func (a *API) listConfigs(c *fiber.Ctx) error {
	return web.SendPage(c, "configs", func(ctx context.Context, offset, limit int) ([]Config, int64, error) {
		return a.Configs.ExportConfigs(ctx, identity.OrgID(c), offset, limit)
	}, func(cfg Config) Config { return cfg })
}

func (a *API) createConfig(c *fiber.Ctx) error {
	now := a.Clock.Now().Truncate(time.Microsecond)
	cfg, err := a.config(c, Config{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), CreatedAt: now, UpdatedAt: now})
	if err != nil {
		return err
	}
	if err := a.Configs.CreateExportConfig(c.UserContext(), cfg); err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/export/configs/"+cfg.ID)
	return c.Status(http.StatusCreated).JSON(cfg)
}

// storedConfig returns the organization's configuration of the path's id.
func (a *API) storedConfig(c *fiber.Ctx) (Config, error) {
	id, err := web.PathParam(c, "config_id")
	if err != nil {
		return Config{}, err
	}
	cfg, err := a.Configs.ExportConfig(c.UserContext(), identity.OrgID(c), id)
	if errors.Is(err, store.ErrNotFound) {
		return cfg, web.NotFound("configuration")
	}
	return cfg, err
}

func (a *API) getConfig(c *fiber.Ctx) error {
	cfg, err := a.storedConfig(c)
	if err != nil {
		return err
	}
	return c.JSON(cfg)
}

func (a *API) putConfig(c *fiber.Ctx) error {
	cfg, err := a.storedConfig(c)
	if err != nil {
		return err
	}
	if cfg, err = a.config(c, cfg); err != nil {
		return err
	}
	cfg.UpdatedAt = a.Clock.Now().Truncate(time.Microsecond)
	if err := a.Configs.UpdateExportConfig(c.UserContext(), cfg); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("configuration")
	} else if err != nil {
		return err
	}
	return c.JSON(cfg)
}

func (a *API) deleteConfig(c *fiber.Ctx) error {
	cfg, err := a.storedConfig(c)
	if err != nil {
		return err
	}
	if err := a.Configs.DeleteExportConfig(c.UserContext(), cfg.OrgID, cfg.ID); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("configuration")
	} else if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

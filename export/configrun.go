package export

import (
	"bytes"
	"net/http"
	"slices"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/platform/web"
)

// runBody is the optional body of POST /export/configs/{config_id}/run.
type runBody struct {
	Deliveries *[]string `json:"deliveries"`
}

// runConfig answers POST /export/configs/{config_id}/run: 202 with the
// export of the configuration's template (its sections when it names
// them), models and format over its date range as of now (Period),
// delivered as the configuration's delivery entries say and to the
// integrations the body names.
func (a *API) runConfig(c *fiber.Ctx) error {
	var b runBody
	if len(bytes.TrimSpace(c.Body())) > 0 {
		if err := web.Decode(c, &b); err != nil {
			return err
		}
	}
	var v web.Problems
	checkDeliveries(&v, deref(b.Deliveries))
	if err := v.Err(); err != nil {
		return err
	}
	cfg, err := a.storedConfig(c)
	if err != nil {
		return err
	}
	ctx, now := c.UserContext(), a.Clock.Now()
	start, end := cfg.Period(now)
	j, err := NewJob(ctx, a.Templates, a.Models, cfg.OrgID, cfg.TemplateID, cfg.ModelIDs, cfg.Format, start, end, now)
	if err != nil {
		return err
	}
	if len(cfg.Sections) > 0 {
		j.Template.Sections = append([]string{}, cfg.Sections...)
	}
	if err := a.checkIntegrations(ctx, cfg.OrgID, "deliveries", ToIntegrations(deref(b.Deliveries))); err != nil {
		return err
	}
	if err := a.create(ctx, j, destinations(cfg.Delivery, deref(b.Deliveries))); err != nil {
		return err
	}
	a.Runner.Wake()
	c.Set(fiber.HeaderLocation, "/api/v1/export/exports/"+j.ID)
	return c.Status(http.StatusAccepted).JSON(newJobView(j))
}

// destinations are a configuration's delivery entries and the
// integrations a run names besides, an integration the configuration
// names already not twice.
func destinations(entries []Delivery, integrationIDs []string) []Delivery {
	out := slices.Clone(entries)
	for _, id := range integrationIDs {
		if !slices.ContainsFunc(entries, func(d Delivery) bool { return d.IntegrationID == id }) {
			out = append(out, Delivery{IntegrationID: id})
		}
	}
	return out
}

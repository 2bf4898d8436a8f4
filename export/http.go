package export

import (
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Permissions of exports: viewers read templates and reports, editors
// write templates.
const (
	PermRead  = "reports:read"
	PermWrite = "reports:write"
)

// API serves /export: the template catalogue (built-in and the
// organization's own templates) and export jobs; configurations,
// schedules and delivery are to come.
type API struct {
	// Templates keeps the organization's own templates, Jobs the export
	// jobs, Models resolves a job's models.
	Templates Store
	Jobs      JobStore
	Models    registry.Finder
	// Configs keeps the organization's configurations, Branding its
	// report branding.
	Configs  ConfigStore
	Branding BrandingStore
	// Quota, when set, takes a unit of the report-generation quota for
	// each export of a bulk request beyond the first.
	Quota Quota
	// Runner, when set, is woken for each new job (without it the job
	// waits for a Runner of another replica); Files keeps the generated
	// files, where downloads are read.
	Runner *Runner
	Files  Files
	// Delivering, when set, stores an export asked for with deliveries
	// together with them.
	Delivering Delivering
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/export/templates", Permission: PermRead, Handler: a.listTemplates},
		{Method: fiber.MethodPost, Path: "/export/templates", Permission: PermWrite, Handler: a.createTemplate},
		{Method: fiber.MethodGet, Path: "/export/templates/:template_id", Permission: PermRead, Handler: a.getTemplate},
		{Method: fiber.MethodPut, Path: "/export/templates/:template_id", Permission: PermWrite, Handler: a.replaceTemplate},
		{Method: fiber.MethodPatch, Path: "/export/templates/:template_id", Permission: PermWrite, Handler: a.updateTemplate},
		{Method: fiber.MethodDelete, Path: "/export/templates/:template_id", Permission: PermWrite, Handler: a.deleteTemplate},
		{Method: fiber.MethodPost, Path: "/export/exports", Permission: PermWrite, Bucket: web.BucketReports, Handler: a.createJob},
		{Method: fiber.MethodPost, Path: "/export/exports/bulk", Permission: PermWrite, Bucket: web.BucketReports, Handler: a.createBulk},
		{Method: fiber.MethodPost, Path: "/export/evidence-pack", Permission: PermWrite, Bucket: web.BucketReports, Handler: a.createPack},
		{Method: fiber.MethodGet, Path: "/export/exports", Permission: PermRead, Handler: a.listJobs},
		{Method: fiber.MethodGet, Path: "/export/exports/:export_id", Permission: PermRead, Handler: a.getJob},
		{Method: fiber.MethodPost, Path: "/export/exports/:export_id/cancel", Permission: PermWrite, Handler: a.cancelJob},
		{Method: fiber.MethodGet, Path: "/export/exports/:export_id/download", Permission: PermRead, Handler: a.download},
		{Method: fiber.MethodGet, Path: "/export/configs", Permission: PermRead, Handler: a.listConfigs},
		{Method: fiber.MethodPost, Path: "/export/configs", Permission: PermWrite, Handler: a.createConfig},
		{Method: fiber.MethodGet, Path: "/export/configs/:config_id", Permission: PermRead, Handler: a.getConfig},
		{Method: fiber.MethodPut, Path: "/export/configs/:config_id", Permission: PermWrite, Handler: a.putConfig},
		{Method: fiber.MethodDelete, Path: "/export/configs/:config_id", Permission: PermWrite, Handler: a.deleteConfig},
		{Method: fiber.MethodPost, Path: "/export/configs/:config_id/run", Permission: PermWrite, Bucket: web.BucketReports, Handler: a.runConfig},
		{Method: fiber.MethodGet, Path: "/organizations/:org_id/branding", Permission: PermRead, Handler: a.getBranding},
		{Method: fiber.MethodPatch, Path: "/organizations/:org_id/branding", Permission: PermConfigure, Handler: a.patchBranding},
		{Method: fiber.MethodPost, Path: "/organizations/:org_id/branding/logo", Permission: PermConfigure, RawBody: true, Handler: a.putLogo},
	}
}

// templatePage is a page of templates in the pagination envelope.
type templatePage struct {
	web.Page
	Templates []Template `json:"templates"`
}

// listTemplates answers the built-in templates, then the organization's
// own oldest first, of one report_category when the query names one, a
// page at a time.
func (a *API) listTemplates(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	ts, category := Builtins(), ""
	if cat := web.Query(c, "report_category"); cat != nil {
		if !slices.Contains(Categories, *cat) {
			return web.Invalid("report_category", "must be one of "+strings.Join(Categories, ", "))
		}
		category = *cat
		ts = slices.DeleteFunc(ts, func(t Template) bool { return t.ReportCategory != *cat })
	}
	from := (page - 1) * size
	out := ts[min(from, len(ts)):min(from+size, len(ts))]
	// The store reads at least one row (a limit of 0 reads them all);
	// the page keeps what fits.
	want := size - len(out)
	own, total, err := a.Templates.ExportTemplates(c.UserContext(), identity.OrgID(c), category,
		max(0, from-len(ts)), max(want, 1))
	if err != nil {
		return err
	}
	out = append(slices.Clip(out), own[:min(want, len(own))]...)
	return c.JSON(templatePage{Page: web.NewPage(int64(len(ts))+total, page, size), Templates: out})
}

// templateBody is the body of POST, PUT and PATCH /export/templates: POST
// and PUT (a full replacement) need name, report_category and sections;
// PATCH changes what it sends.
type templateBody struct {
	Name           *string   `json:"name"`
	Description    *string   `json:"description"`
	ReportCategory *string   `json:"report_category"`
	Sections       *[]string `json:"sections"`
}

// apply sets the fields the body sends on t.
func (b templateBody) apply(t *Template) {
	if b.Name != nil {
		t.Name = *b.Name
	}
	if b.Description != nil {
		t.Description = *b.Description
	}
	if b.ReportCategory != nil {
		t.ReportCategory = *b.ReportCategory
	}
	if b.Sections != nil {
		t.Sections = slices.Clone(*b.Sections)
	}
}

// whole answers 422 naming the first field a whole template needs that b
// leaves out.
func (b templateBody) whole() error {
	for _, f := range []struct {
		name string
		sent bool
	}{{"name", b.Name != nil}, {"report_category", b.ReportCategory != nil}, {"sections", b.Sections != nil}} {
		if !f.sent {
			return web.Invalid(f.name, "is required")
		}
	}
	return nil
}

func (a *API) createTemplate(c *fiber.Ctx) error {
	var b templateBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if err := b.whole(); err != nil {
		return err
	}
	now := a.Clock.Now()
	t := Template{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), CreatedAt: now, UpdatedAt: now}
	b.apply(&t)
	if err := t.Validate(); err != nil {
		return err
	}
	if err := a.Templates.CreateExportTemplate(c.UserContext(), t); err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/export/templates/"+t.ID)
	return c.Status(http.StatusCreated).JSON(t)
}

// template returns the built-in or the organization's template of the
// path's id: 404 for another organization's, as for a missing one.
func (a *API) template(c *fiber.Ctx) (Template, error) {
	id, err := web.PathParam(c, "template_id")
	if err != nil {
		return Template{}, err
	}
	return findTemplate(c.UserContext(), a.Templates, identity.OrgID(c), id)
}

// writable returns the organization's template of the path's id; a
// built-in one is 409: it cannot be changed.
func (a *API) writable(c *fiber.Ctx) (Template, error) {
	t, err := a.template(c)
	if err == nil && t.BuiltIn {
		err = web.Conflict("built-in templates cannot be changed or deleted; create a template of your own")
	}
	return t, err
}

func (a *API) getTemplate(c *fiber.Ctx) error {
	t, err := a.template(c)
	if err != nil {
		return err
	}
	return c.JSON(t)
}

// replaceTemplate answers PUT /export/templates/{template_id}: the
// organization's template replaced whole, validated as on create (a
// description left out is emptied).
func (a *API) replaceTemplate(c *fiber.Ctx) error { return a.changeTemplate(c, true) }

// updateTemplate answers PATCH /export/templates/{template_id}: the
// fields sent changed.
func (a *API) updateTemplate(c *fiber.Ctx) error { return a.changeTemplate(c, false) }

func (a *API) changeTemplate(c *fiber.Ctx, replace bool) error {
	var b templateBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if replace {
		if err := b.whole(); err != nil {
			return err
		}
	}
	t, err := a.writable(c)
	if err != nil {
		return err
	}
	if replace {
		t.Description = ""
	}
	b.apply(&t)
	if err := t.Validate(); err != nil {
		return err
	}
	t.UpdatedAt = a.Clock.Now()
	if err := a.Templates.UpdateExportTemplate(c.UserContext(), t); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("template")
	} else if err != nil {
		return err
	}
	return c.JSON(t)
}

func (a *API) deleteTemplate(c *fiber.Ctx) error {
	t, err := a.writable(c)
	if err != nil {
		return err
	}
	if err := a.Templates.DeleteExportTemplate(c.UserContext(), t.OrgID, t.ID); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("template")
	} else if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

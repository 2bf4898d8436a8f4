package reportschedule

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	netmail "net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

// API serves /export/scheduled-reports.
type API struct {
	// Store keeps the schedules; Templates and Models resolve a run's
	// template and models.
	Store     Store
	Templates export.Store
	Models    registry.Finder
	// Integrations resolves the delivery integrations a schedule names.
	Integrations delivery.Store
	// Runner, when set, is woken for a manual run's export.
	Runner *export.Runner
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodGet, Path: "/export/scheduled-reports", Permission: export.PermRead, Handler: a.list},
		{Method: fiber.MethodPost, Path: "/export/scheduled-reports", Permission: export.PermWrite, Handler: a.create},
		{Method: fiber.MethodGet, Path: "/export/scheduled-reports/:report_id", Permission: export.PermRead, Handler: a.get},
		{Method: fiber.MethodPut, Path: "/export/scheduled-reports/:report_id", Permission: export.PermWrite, Handler: a.replace},
		{Method: fiber.MethodDelete, Path: "/export/scheduled-reports/:report_id", Permission: export.PermWrite, Handler: a.delete},
		{Method: fiber.MethodPost, Path: "/export/scheduled-reports/:report_id/run", Permission: export.PermWrite,
			Bucket: web.BucketReports, Handler: a.run},
		{Method: fiber.MethodGet, Path: "/export/scheduled-reports/:report_id/runs", Permission: export.PermRead, Handler: a.runs},
	}
}

// view is a schedule as the API answers it.
type view struct {
	ID           string     `json:"id"`
	Name         string     `json:"name"`
	TemplateID   string     `json:"template_id"`
	Format       string     `json:"format"`
	Cron         string     `json:"cron_expression"`
	Recipients   []string   `json:"recipients"`
	ModelIDs     []string   `json:"model_ids"`
	Integrations []string   `json:"integration_ids"`
	PeriodDays   int        `json:"period_days"`
	Enabled      bool       `json:"enabled"`
	NextRuns     []string   `json:"next_runs"`
	LastRunAt    *time.Time `json:"last_run_at"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

func newView(s Schedule, now time.Time) view {
	v := view{ID: s.ID, Name: s.Name, TemplateID: s.TemplateID, Format: s.Format, Cron: s.Cron, Recipients: s.Recipients,
		ModelIDs: s.ModelIDs, Integrations: s.IntegrationIDs, PeriodDays: s.PeriodDays, Enabled: s.Enabled, NextRuns: []string{}, CreatedAt: s.CreatedAt.UTC(),
		UpdatedAt: s.UpdatedAt.UTC()}
	if s.LastRun != nil {
		t := s.LastRun.UTC()
		v.LastRunAt = &t
	}
	if s.Enabled {
		for _, t := range Upcoming(s.Cron, now, NextRuns) {
			v.NextRuns = append(v.NextRuns, t.Format(time.RFC3339))
		}
	}
	return v
}

// body is the body of POST and PUT: spec 1's scheduled report (name,
// template_id, format, cron_expression, recipients) with the models, the
// period and whether it is enabled.
type body struct {
	Name         *string   `json:"name"`
	TemplateID   *string   `json:"template_id"`
	Format       *string   `json:"format"`
	Cron         *string   `json:"cron_expression"`
	Recipients   *[]string `json:"recipients"`
	ModelIDs     *[]string `json:"model_ids"`
	Integrations *[]string `json:"integration_ids"`
	PeriodDays   *web.Int  `json:"period_days"`
	Enabled      *bool     `json:"enabled"`
}

// check validates the body's shape: 422 naming the field.
func (b body) check() error {
	var v web.Problems
	if b.Name == nil || strings.TrimSpace(*b.Name) == "" || utf8.RuneCountInString(*b.Name) > 200 {
		v.Add("name", "is required: 1 to 200 characters")
	}
	if b.TemplateID == nil {
		v.Add("template_id", "is required")
	}
	if b.Format == nil || !slices.Contains(report.Formats, *b.Format) {
		v.Add("format", "must be one of "+strings.Join(report.Formats, ", "))
	}
	if b.Cron == nil {
		v.Add("cron_expression", "is required: 5 fields (minute hour day-of-month month day-of-week), UTC")
	} else if _, err := Parse(*b.Cron); err != nil {
		v.Add("cron_expression", "is not a standard 5-field cron expression: "+err.Error())
	}
	if b.Recipients != nil {
		if len(*b.Recipients) > MaxRecipients {
			v.Add("recipients", fmt.Sprintf("must name at most %d addresses", MaxRecipients))
		}
		for i, r := range *b.Recipients {
			if a, err := netmail.ParseAddress(r); err != nil || a.Address != r || len(r) > 254 {
				v.Add(fmt.Sprintf("recipients[%d]", i), "must be an e-mail address (user@example.com)")
			} else if slices.Index(*b.Recipients, r) != i {
				v.Add(fmt.Sprintf("recipients[%d]", i), "repeats an address")
			}
		}
	}
	if b.ModelIDs == nil || len(*b.ModelIDs) == 0 || len(*b.ModelIDs) > report.MaxModels {
		v.Add("model_ids", fmt.Sprintf("must name 1 to %d models", report.MaxModels))
	} else {
		for i, id := range *b.ModelIDs {
			if slices.Index(*b.ModelIDs, id) != i {
				v.Add(fmt.Sprintf("model_ids[%d]", i), "repeats a model")
			}
		}
	}
	if b.Integrations != nil {
		if len(*b.Integrations) > MaxIntegrations {
			v.Add("integration_ids", fmt.Sprintf("must name at most %d integrations", MaxIntegrations))
		}
		for i, id := range *b.Integrations {
			if slices.Index(*b.Integrations, id) != i {
				v.Add(fmt.Sprintf("integration_ids[%d]", i), "repeats an integration")
			}
		}
	}
	if b.PeriodDays != nil && (*b.PeriodDays < 1 || *b.PeriodDays > MaxPeriod) {
		v.Add("period_days", fmt.Sprintf("must be 1 to %d", MaxPeriod))
	}
	return v.Err()
}

// read validates the body and its references (the template and models
// must be the organization's: 404 otherwise) into s.
func (a *API) read(c *fiber.Ctx, s *Schedule) error {
	var b body
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	if err := b.check(); err != nil {
		return err
	}
	s.Name, s.TemplateID, s.Format, s.Cron, s.ModelIDs = *b.Name, *b.TemplateID, *b.Format, strings.Join(strings.Fields(*b.Cron), " "), *b.ModelIDs
	s.Recipients, s.IntegrationIDs, s.PeriodDays, s.Enabled = []string{}, []string{}, DefaultPeriod, true
	if b.Recipients != nil {
		s.Recipients = *b.Recipients
	}
	if b.Integrations != nil {
		s.IntegrationIDs = *b.Integrations
	}
	for _, id := range s.IntegrationIDs {
		if _, err := a.Integrations.ExportIntegration(c.UserContext(), s.OrgID, id); errors.Is(err, store.ErrNotFound) {
			return web.NotFound("integration")
		} else if err != nil {
			return err
		}
	}
	if b.PeriodDays != nil {
		s.PeriodDays = int(*b.PeriodDays)
	}
	if b.Enabled != nil {
		s.Enabled = *b.Enabled
	}
	now := a.Clock.Now()
	if _, err := s.Job(c.UserContext(), a.Templates, a.Models, now, now); err != nil {
		return err
	}
	s.NextRun, s.UpdatedAt = Next(s.Cron, now), now
	return nil
}

func (a *API) create(c *fiber.Ctx) error {
	now := a.Clock.Now()
	s := Schedule{ID: uuid.Must(uuid.NewV7()).String(), OrgID: identity.OrgID(c), CreatedBy: identity.FromCtx(c).UserID, CreatedAt: now}
	if err := a.read(c, &s); err != nil {
		return err
	}
	if err := a.Store.CreateReportSchedule(c.UserContext(), s); err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/api/v1/export/scheduled-reports/"+s.ID)
	return c.Status(http.StatusCreated).JSON(newView(s, now))
}

func (a *API) list(c *fiber.Ctx) error {
	now := a.Clock.Now()
	return web.SendPage(c, "scheduled_reports", func(ctx context.Context, offset, limit int) ([]Schedule, int64, error) {
		return a.Store.ReportSchedules(ctx, identity.OrgID(c), offset, limit)
	}, func(s Schedule) view { return newView(s, now) })
}

// schedule is the organization's schedule of the path's id.
func (a *API) schedule(c *fiber.Ctx) (Schedule, error) {
	return identity.PathRecord(c, "report_id", "scheduled report", a.Store.ReportSchedule)
}

func (a *API) get(c *fiber.Ctx) error {
	s, err := a.schedule(c)
	if err != nil {
		return err
	}
	return c.JSON(newView(s, a.Clock.Now()))
}

// replace answers PUT: the whole schedule anew; its next run is
// recomputed from now.
func (a *API) replace(c *fiber.Ctx) error {
	s, err := a.schedule(c)
	if err != nil {
		return err
	}
	if err := a.read(c, &s); err != nil {
		return err
	}
	if err := a.Store.UpdateReportSchedule(c.UserContext(), s); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("scheduled report")
	} else if err != nil {
		return err
	}
	return c.JSON(newView(s, a.Clock.Now()))
}

func (a *API) delete(c *fiber.Ctx) error {
	s, err := a.schedule(c)
	if err != nil {
		return err
	}
	if err := a.Store.DeleteReportSchedule(c.UserContext(), s.OrgID, s.ID); errors.Is(err, store.ErrNotFound) {
		return web.NotFound("scheduled report")
	} else if err != nil {
		return err
	}
	return c.SendStatus(http.StatusNoContent)
}

// runView is a run as the API answers it.
type runView struct {
	Due       time.Time `json:"due_at"`
	Trigger   string    `json:"trigger"`
	ExportID  *string   `json:"export_id"`
	Error     string    `json:"error"`
	CreatedAt time.Time `json:"created_at"`
}

func newRunView(r Run) runView {
	v := runView{Due: r.Due.UTC(), Trigger: r.Trigger, Error: r.Error, CreatedAt: r.CreatedAt.UTC()}
	if r.ExportID != "" {
		v.ExportID = &r.ExportID
	}
	return v
}

// run answers POST .../{report_id}/run: an export of the schedule asked
// for now (202), its next scheduled run unchanged.
func (a *API) run(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	s, err := a.schedule(c)
	if err != nil {
		return err
	}
	now := a.Clock.Now()
	ctx := c.UserContext()
	job, err := s.Job(ctx, a.Templates, a.Models, now, now)
	if err != nil {
		return err
	}
	r := Run{ScheduleID: s.ID, OrgID: s.OrgID, Due: now, Trigger: TriggerManual, ExportID: job.ID, CreatedAt: now}
	owed := s.Deliveries(job.ID, now)
	if _, err := a.Store.FireReportSchedule(ctx, s, s.NextRun, r, job, owed); err != nil {
		return err
	}
	a.Runner.Wake()
	c.Set(fiber.HeaderLocation, "/api/v1/export/exports/"+job.ID)
	return c.Status(http.StatusAccepted).JSON(newRunView(r))
}

// runs answers GET .../{report_id}/runs, newest first.
func (a *API) runs(c *fiber.Ctx) error {
	return web.SendPage(c, "runs", func(ctx context.Context, offset, limit int) ([]Run, int64, error) {
		s, err := a.schedule(c)
		if err != nil {
			return nil, 0, err
		}
		return a.Store.ReportScheduleRuns(ctx, s.OrgID, s.ID, offset, limit)
	}, newRunView)
}

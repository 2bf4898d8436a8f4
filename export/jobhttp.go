package export

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

// jobView is a job as the API answers it.
type jobView struct {
	ID          string     `json:"export_id"`
	Kind        string     `json:"kind"`
	TemplateID  string     `json:"template_id"`
	ModelIDs    []string   `json:"model_ids"`
	Format      string     `json:"format"`
	DateFrom    string     `json:"date_from"`
	DateTo      string     `json:"date_to"`
	Start       string     `json:"start"`
	End         string     `json:"end"`
	Status      string     `json:"status"`
	Progress    int        `json:"progress"`
	Error       string     `json:"error"`
	SizeBytes   int64      `json:"size_bytes"`
	SHA256      string     `json:"sha256"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	CompletedAt *time.Time `json:"completed_at"`
}

func newJobView(j Job) jobView {
	v := jobView{ID: j.ID, Kind: KindReport, SHA256: j.Digest, TemplateID: j.Template.ID, ModelIDs: make([]string, 0, len(j.Models)), Format: j.Format,
		Start: j.Start.Format(time.DateOnly), End: j.End.Format(time.DateOnly), Status: j.Status, Progress: j.Progress,
		Error: j.Error, SizeBytes: j.Size, CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC()}
	v.DateFrom, v.DateTo = v.Start, v.End
	if j.Pack() {
		v.Kind = KindEvidencePack
	}
	for _, m := range j.Models {
		v.ModelIDs = append(v.ModelIDs, m.ID)
	}
	if j.CompletedAt != nil {
		t := j.CompletedAt.UTC()
		v.CompletedAt = &t
	}
	return v
}

// jobBody is the body of POST /export/exports: spec 1's export request.
type jobBody struct {
	TemplateID *string   `json:"template_id"`
	ModelIDs   *[]string `json:"model_ids"`
	Format     *string   `json:"format"`
	DateFrom   *string   `json:"date_from"`
	DateTo     *string   `json:"date_to"`
	// Start and End are the older names of DateFrom and DateTo, kept as
	// aliases.
	Start *string `json:"start"`
	End   *string `json:"end"`
	// Deliveries are the integrations (/export/integrations) the export
	// goes to once completed.
	Deliveries *[]string `json:"deliveries"`
}

// check validates the body's shape: 422 naming the field.
func (b jobBody) check() (start, end time.Time, err error) {
	var v web.Problems
	if b.TemplateID == nil {
		v.Add("template_id", "is required")
	}
	checkModels(&v, deref(b.ModelIDs))
	checkFormat(&v, b.Format)
	from, to := aliased(&v, "date_from", b.DateFrom, "start", b.Start), aliased(&v, "date_to", b.DateTo, "end", b.End)
	start, end = checkPeriodNamed(&v, from, to)
	checkDeliveries(&v, deref(b.Deliveries))
	return start, end, v.Err()
}

// deref is *p, or the zero value when p is nil (a field not sent).
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// checkFormat checks a report format: one of report.Formats.
func checkFormat(v *web.Problems, f *string) {
	if f == nil || !slices.Contains(report.Formats, *f) {
		v.Add("format", "must be one of "+strings.Join(report.Formats, ", "))
	}
}

// checkModels checks a list of model ids: 1 to report.MaxModels, none
// twice.
func checkModels(v *web.Problems, ids []string) {
	if len(ids) == 0 || len(ids) > report.MaxModels {
		v.Add("model_ids", fmt.Sprintf("must name 1 to %d models", report.MaxModels))
		return
	}
	for i, id := range ids {
		if slices.Index(ids, id) != i {
			v.Add(fmt.Sprintf("model_ids[%d]", i), "repeats a model")
		}
	}
}

// bound is one end of a period as a request sent it: its value and the
// name it came under.
type bound struct{ name, value string }

// aliased picks a bound sent under its name or under alias (its older
// name): sent under both, 422 naming alias.
func aliased(v *web.Problems, name string, value *string, alias string, old *string) bound {
	switch {
	case value != nil && old != nil:
		v.Add(alias, "is an alias of "+name+": send one of them")
	case old != nil:
		return bound{alias, *old}
	}
	return bound{name, deref(value)}
}

// checkPeriod checks a period's first and last day (YYYY-MM-DD, both
// required, end not before start, at most report.MaxDays) and returns
// them.
func checkPeriod(v *web.Problems, s, e string) (start, end time.Time) {
	return checkPeriodNamed(v, bound{"start", s}, bound{"end", e})
}

// checkPeriodNamed is checkPeriod of bounds sent under the names they
// carry, which its problems name.
func checkPeriodNamed(v *web.Problems, from, to bound) (start, end time.Time) {
	day := func(field, s string) time.Time {
		if s == "" {
			v.Add(field, "is required (YYYY-MM-DD)")
			return time.Time{}
		}
		t, perr := time.Parse(time.DateOnly, s)
		if perr != nil {
			v.Add(field, "must be a date, YYYY-MM-DD")
		}
		return t
	}
	start, end = day(from.name, from.value), day(to.name, to.value)
	if !start.IsZero() && !end.IsZero() {
		if end.Before(start) {
			v.Add(to.name, "must not be before "+from.name)
		} else if days := int(end.Sub(start).Hours()/24) + 1; days > report.MaxDays {
			v.Add(to.name, fmt.Sprintf("the period may span at most %d days", report.MaxDays))
		}
	}
	return start, end
}

// createJob answers POST /export/exports: 202 with the pending job, which
// a runner renders in the background.
func (a *API) createJob(c *fiber.Ctx) error {
	var b jobBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	j, err := a.queue(c.UserContext(), identity.OrgID(c), b)
	if err != nil {
		return err
	}
	a.Runner.Wake()
	c.Set(fiber.HeaderLocation, "/api/v1/export/exports/"+j.ID)
	return c.Status(http.StatusAccepted).JSON(newJobView(j))
}

// queue prepares the job of b and stores it.
func (a *API) queue(ctx context.Context, org string, b jobBody) (Job, error) {
	j, err := a.prepare(ctx, org, b)
	if err != nil {
		return j, err
	}
	return j, a.create(ctx, j, ToIntegrations(deref(b.Deliveries)))
}

// prepare validates b and resolves its template, models and delivery
// integrations inside the organization (404 otherwise) into a pending
// job.
func (a *API) prepare(ctx context.Context, org string, b jobBody) (Job, error) {
	start, end, err := b.check()
	if err != nil {
		return Job{}, err
	}
	j, err := NewJob(ctx, a.Templates, a.Models, org, *b.TemplateID, *b.ModelIDs, *b.Format, start, end, a.Clock.Now())
	if err != nil {
		return j, err
	}
	return j, a.checkIntegrations(ctx, org, "deliveries", ToIntegrations(deref(b.Deliveries)))
}

// listJobs answers GET /export/exports, newest first, of one status when
// the query names one.
func (a *API) listJobs(c *fiber.Ctx) error {
	return web.SendPage(c, "exports", func(ctx context.Context, offset, limit int) ([]Job, int64, error) {
		f := JobFilter{Offset: offset, Limit: limit}
		if s := web.Query(c, "status"); s != nil {
			if !slices.Contains(Statuses, *s) {
				return nil, 0, web.Invalid("status", "must be one of "+strings.Join(Statuses, ", "))
			}
			f.Status = *s
		}
		return a.Jobs.ExportJobs(ctx, identity.OrgID(c), f)
	}, newJobView)
}

// job returns the organization's job of the path's id.
func (a *API) job(c *fiber.Ctx) (Job, error) { return PathJob(c, a.Jobs) }

func (a *API) getJob(c *fiber.Ctx) error {
	j, err := a.job(c)
	if err != nil {
		return err
	}
	return c.JSON(newJobView(j))
}

// cancelJob answers POST /export/exports/{export_id}/cancel: a pending
// or running job becomes cancelled (its runner drops it); a final one is
// 409.
func (a *API) cancelJob(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	for {
		j, err := a.job(c)
		if err != nil {
			return err
		}
		if Final(j.Status) {
			return web.Conflict("the export is already " + j.Status)
		}
		was, now := j, nextUpdate(j.UpdatedAt, a.Clock.Now())
		j.Status, j.UpdatedAt, j.CompletedAt = StatusCancelled, now, &now
		err = a.Jobs.SaveExportJob(c.UserContext(), j, was)
		if errors.Is(err, store.ErrConflict) {
			continue // the runner moved it on: read it again
		}
		if err != nil {
			return err
		}
		return c.JSON(newJobView(j))
	}
}

// download answers the completed job's file, as an attachment.
func (a *API) download(c *fiber.Ctx) error {
	j, err := a.job(c)
	if err != nil {
		return err
	}
	return SendFile(c, a.Files, j)
}

package export

import (
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
	TemplateID  string     `json:"template_id"`
	ModelIDs    []string   `json:"model_ids"`
	Format      string     `json:"format"`
	Start       string     `json:"start"`
	End         string     `json:"end"`
	Status      string     `json:"status"`
	Progress    int        `json:"progress"`
	Error       string     `json:"error"`
	SizeBytes   int64      `json:"size_bytes"`
	CreatedAt   time.Time  `json:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at"`
	CompletedAt *time.Time `json:"completed_at"`
}

func newJobView(j Job) jobView {
	v := jobView{ID: j.ID, TemplateID: j.Template.ID, ModelIDs: make([]string, 0, len(j.Models)), Format: j.Format,
		Start: j.Start.Format(time.DateOnly), End: j.End.Format(time.DateOnly), Status: j.Status, Progress: j.Progress,
		Error: j.Error, SizeBytes: j.Size, CreatedAt: j.CreatedAt.UTC(), UpdatedAt: j.UpdatedAt.UTC()}
	for _, m := range j.Models {
		v.ModelIDs = append(v.ModelIDs, m.ID)
	}
	if j.CompletedAt != nil {
		t := j.CompletedAt.UTC()
		v.CompletedAt = &t
	}
	return v
}

// jobBody is the body of POST /export/exports.
type jobBody struct {
	TemplateID *string   `json:"template_id"`
	ModelIDs   *[]string `json:"model_ids"`
	Format     *string   `json:"format"`
	Start      *string   `json:"start"`
	End        *string   `json:"end"`
}

// check validates the body's shape: 422 naming the field.
func (b jobBody) check() (start, end time.Time, err error) {
	var v web.Problems
	if b.TemplateID == nil {
		v.Add("template_id", "is required")
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
	if b.Format == nil || !slices.Contains(report.Formats, *b.Format) {
		v.Add("format", "must be one of "+strings.Join(report.Formats, ", "))
	}
	day := func(field string, s *string) time.Time {
		if s == nil {
			v.Add(field, "is required (YYYY-MM-DD)")
			return time.Time{}
		}
		t, perr := time.Parse(time.DateOnly, *s)
		if perr != nil {
			v.Add(field, "must be a date, YYYY-MM-DD")
		}
		return t
	}
	start, end = day("start", b.Start), day("end", b.End)
	if !start.IsZero() && !end.IsZero() {
		if end.Before(start) {
			v.Add("end", "must not be before start")
		} else if days := int(end.Sub(start).Hours()/24) + 1; days > report.MaxDays {
			v.Add("end", fmt.Sprintf("the period may span at most %d days", report.MaxDays))
		}
	}
	return start, end, v.Err()
}

// createJob answers POST /export/exports: 202 with the pending job, which
// a runner renders in the background.
func (a *API) createJob(c *fiber.Ctx) error {
	var b jobBody
	if err := web.Decode(c, &b); err != nil {
		return err
	}
	start, end, err := b.check()
	if err != nil {
		return err
	}
	ctx, org := c.UserContext(), identity.OrgID(c)
	j, err := NewJob(ctx, a.Templates, a.Models, org, *b.TemplateID, *b.ModelIDs, *b.Format, start, end, a.Clock.Now())
	if err != nil {
		return err
	}
	if err := a.Jobs.CreateExportJob(ctx, j); err != nil {
		return err
	}
	a.Runner.Wake()
	c.Set(fiber.HeaderLocation, "/api/v1/export/exports/"+j.ID)
	return c.Status(http.StatusAccepted).JSON(newJobView(j))
}

// jobPage is a page of jobs in the pagination envelope.
type jobPage struct {
	web.Page
	Exports []jobView `json:"exports"`
}

// listJobs answers GET /export/exports, newest first, of one status when
// the query names one.
func (a *API) listJobs(c *fiber.Ctx) error {
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	f := JobFilter{Offset: (page - 1) * size, Limit: size}
	if s := web.Query(c, "status"); s != nil {
		if !slices.Contains(Statuses, *s) {
			return web.Invalid("status", "must be one of "+strings.Join(Statuses, ", "))
		}
		f.Status = *s
	}
	js, total, err := a.Jobs.ExportJobs(c.UserContext(), identity.OrgID(c), f)
	if err != nil {
		return err
	}
	out := jobPage{Page: web.NewPage(total, page, size), Exports: make([]jobView, 0, len(js))}
	for _, j := range js {
		out.Exports = append(out.Exports, newJobView(j))
	}
	return c.JSON(out)
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
	return SendFile(c, a.Dir, j)
}

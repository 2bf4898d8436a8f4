package drift

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

// reportFilter reads the filters of GET /drift/reports and /drift/trend
// that both share: model_id (required, the organization's) and drift_type.
func (a *API) reportFilter(c *fiber.Ctx, v *web.Problems) ReportFilter {
	f := ReportFilter{OrgID: identity.OrgID(c), ModelID: c.Query("model_id")}
	v.Required("model_id", f.ModelID)
	f.DriftType = v.EnumQuery(c, "drift_type", "", TypeData, TypePrediction, TypeConcept)
	return f
}

// dateQuery reads an optional date-time parameter.
func dateQuery(c *fiber.Ctx, v *web.Problems, name string) *time.Time {
	s := web.Query(c, name)
	t := v.Time(name, s)
	if s == nil || t.IsZero() {
		return nil
	}
	return &t
}

// model answers 404 unless the organization has the model (registry.Find).
func (a *API) model(ctx context.Context, orgID, id string) error {
	_, err := registry.Find(ctx, a.Store, orgID, id)
	return err
}

// listReports answers GET /drift/reports: a model's reports, newest
// first, filtered and paginated.
func (a *API) listReports(c *fiber.Ctx) error {
	var v web.Problems
	f := a.reportFilter(c, &v)
	f.Severity = Severity(v.EnumQuery(c, "severity", "", string(Low), string(Medium), string(High)))
	f.From, f.To = dateQuery(c, &v, "start_date"), dateQuery(c, &v, "end_date")
	if f.From != nil && f.To != nil && f.To.Before(*f.From) {
		v.Add("end_date", "must not be before start_date")
	}
	page, size, err := web.PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.model(c.UserContext(), f.OrgID, f.ModelID); err != nil {
		return err
	}
	f.Limit, f.Offset = size, (page-1)*size
	rs, total, err := a.Reports.DriftReports(c.UserContext(), f)
	if err != nil {
		return err
	}
	if rs == nil {
		rs = []Report{}
	}
	return c.JSON(struct {
		Reports []Report `json:"reports"`
		web.Page
	}{rs, web.NewPage(total, page, size)})
}

// getReport answers GET /drift/reports/{report_id}.
func (a *API) getReport(c *fiber.Ctx) error {
	r, err := a.Reports.DriftReport(c.UserContext(), identity.OrgID(c), c.Params("report_id"))
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("drift report")
	}
	if err != nil {
		return err
	}
	return c.JSON(r)
}

// trend answers GET /drift/trend: the overall score and severity of each
// of a model's reports of one drift type (default data) written in the
// last days days (default 30), oldest first; with interval=day, those
// reports summed per UTC day.
func (a *API) trend(c *fiber.Ctx) error {
	var v web.Problems
	f := a.reportFilter(c, &v)
	if f.DriftType == "" {
		f.DriftType = TypeData
	}
	interval := v.EnumQuery(c, "interval", IntervalReport, IntervalReport, IntervalDay)
	days, err := web.IntQuery(c, "days", 30, 1, 365)
	if err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	if err := a.model(c.UserContext(), f.OrgID, f.ModelID); err != nil {
		return err
	}
	from := a.Clock.Now().AddDate(0, 0, -days)
	f.From, f.Limit = &from, MaxTrendPoints
	if interval == IntervalDay {
		// Schedules run at most hourly: every report of the period.
		f.Limit = max(MaxTrendPoints, 24*(days+1))
	}
	rs, _, err := a.Reports.DriftReports(c.UserContext(), f)
	if err != nil {
		return err
	}
	points := make([]TrendPoint, len(rs))
	for i, r := range rs {
		// Newest first from the store, so that the limit drops the oldest.
		points[len(rs)-1-i] = TrendPoint{Timestamp: r.CreatedAt, WindowEnd: r.WindowEnd, ReportID: r.ID,
			DriftDetected: r.DriftDetected, OverallDriftScore: r.OverallDriftScore, Severity: r.Severity}
	}
	t := Trend{ModelID: f.ModelID, DriftType: f.DriftType, Days: days, Interval: interval, Data: points}
	if interval == IntervalDay {
		t.Data = Daily(points)
	}
	return c.JSON(t)
}

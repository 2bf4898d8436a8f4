package alerts

import (
	"context"
	"sort"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

// StatGroup is what the store sums for the alerts of one rule, status,
// severity and resolution: how many, and the acknowledged and resolved
// ones with their total times since triggered.
type StatGroup struct {
	RuleID, RuleName     string
	Status               Status
	Severity, Resolution string
	Count                int64
	Acknowledged         int64
	AckTotal             time.Duration
	Resolved             int64
	ResolveTotal         time.Duration
}

// Statistics sums alerts for GET /alerts/statistics.
type Statistics interface {
	// AlertStatistics sums the organization's alerts triggered in [from,
	// to), of one model when modelID is set, by rule, status, severity
	// and resolution.
	AlertStatistics(ctx context.Context, orgID, modelID string, from, to time.Time) ([]StatGroup, error)
}

// figures are the statistics of a set of alerts. MTTA is the mean time
// from triggered_at to the first acknowledgement over the alerts that were
// acknowledged; MTTR the mean time from triggered_at to resolved_at over
// the alerts that are resolved (by hand or automatically); both in
// seconds, null without such alerts.
type figures struct {
	Total          int64            `json:"total"`
	ByStatus       map[Status]int64 `json:"by_status"`
	BySeverity     map[string]int64 `json:"by_severity"`
	Acknowledged   int64            `json:"acknowledged"`
	Resolved       int64            `json:"resolved"`
	AutoResolved   int64            `json:"resolved_automatically"`
	MTTASeconds    *float64         `json:"mtta_seconds"`
	MTTRSeconds    *float64         `json:"mttr_seconds"`
	ackSum, resSum time.Duration
}

func newFigures() *figures {
	f := &figures{ByStatus: map[Status]int64{}, BySeverity: map[string]int64{}}
	for _, s := range Statuses {
		f.ByStatus[s] = 0
	}
	for _, s := range Severities {
		f.BySeverity[s] = 0
	}
	return f
}

func (f *figures) add(g StatGroup) {
	f.Total += g.Count
	f.ByStatus[g.Status] += g.Count
	f.BySeverity[g.Severity] += g.Count
	f.Acknowledged += g.Acknowledged
	f.Resolved += g.Resolved
	if g.Resolution == "auto" {
		f.AutoResolved += g.Resolved
	}
	f.ackSum += g.AckTotal
	f.resSum += g.ResolveTotal
}

func (f *figures) finish() {
	if f.Acknowledged > 0 {
		f.MTTASeconds = ptr(f.ackSum.Seconds() / float64(f.Acknowledged))
	}
	if f.Resolved > 0 {
		f.MTTRSeconds = ptr(f.resSum.Seconds() / float64(f.Resolved))
	}
}

// ruleFigures are one rule's statistics.
type ruleFigures struct {
	RuleID   string `json:"rule_id"`
	RuleName string `json:"rule_name"`
	*figures
}

// statistics answers GET /alerts/statistics: counts by status and
// severity, MTTA and MTTR, overall and per rule, of the alerts triggered
// in [start_time, end_time) (default the last 30 days), of one model with
// model_id.
func (a *API) statistics(c *fiber.Ctx) error {
	var v web.Problems
	v.IDQuery(c, "model_id")
	to := v.Time("end_time", web.Query(c, "end_time"))
	from := v.Time("start_time", web.Query(c, "start_time"))
	if to.IsZero() {
		to = a.Clock.Now().UTC()
	}
	if from.IsZero() {
		from = to.Add(-30 * 24 * time.Hour)
	}
	if !from.Before(to) {
		v.Add("end_time", "must be after start_time")
	}
	if err := v.Err(); err != nil {
		return err
	}
	modelID := c.Query("model_id")
	if err := a.knownModel(c, modelID); err != nil {
		return err
	}
	if a.Statistics == nil {
		return web.Unavailable("alert statistics are not available to this process", 30*time.Second, nil)
	}
	groups, err := a.Statistics.AlertStatistics(c.UserContext(), identity.OrgID(c), modelID, from, to)
	if err != nil {
		return err
	}
	all, rules := newFigures(), map[string]*ruleFigures{}
	for _, g := range groups {
		all.add(g)
		r := rules[g.RuleID]
		if r == nil {
			r = &ruleFigures{RuleID: g.RuleID, RuleName: g.RuleName, figures: newFigures()}
			rules[g.RuleID] = r
		}
		r.add(g)
	}
	all.finish()
	list := make([]ruleFigures, 0, len(rules))
	for _, r := range rules {
		r.finish()
		list = append(list, *r)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].Total != list[j].Total {
			return list[i].Total > list[j].Total
		}
		return list[i].RuleID < list[j].RuleID
	})
	return c.JSON(fiber.Map{"period": fiber.Map{"start": from, "end": to}, "overall": all, "rules": list})
}

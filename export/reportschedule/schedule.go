// Package reportschedule is the scheduled reports of spec 1
// (/export/scheduled-reports): a schedule names a template, a format,
// models, a standard 5-field cron expression (UTC, parsed by
// robfig/cron/v3) and recipients; the Scheduler turns each due time into
// one export job, once across replicas, and after a restart catches up
// with the latest missed due time only.
//
// It imports export (the jobs it asks for), the registry, identity, the
// platform's plumbing and the store contract; never the store engines
// that keep its records.
package reportschedule

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/registry"
)

// Triggers of a run.
const (
	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// Bounds of a schedule.
const (
	// DefaultPeriod is the days a report covers when the schedule does
	// not say; MaxPeriod the most it may.
	DefaultPeriod, MaxPeriod = 7, 366
	// MaxRecipients bounds the recipients of a schedule, MaxIntegrations
	// its delivery integrations.
	MaxRecipients   = 50
	MaxIntegrations = 10
	// NextRuns is how many next due times a schedule shows.
	NextRuns = 5
)

// Schedule is a scheduled report: Template rendered as Format over
// Models, covering the PeriodDays whole days (UTC) before each due time
// of Cron. NextRun is the next due time the Scheduler owes.
type Schedule struct {
	ID, OrgID, Name string
	TemplateID      string
	Format          string
	Cron            string
	Recipients      []string
	ModelIDs        []string
	// IntegrationIDs are the delivery integrations each export goes to.
	IntegrationIDs []string
	PeriodDays     int
	Enabled        bool
	NextRun        time.Time
	LastRun        *time.Time
	CreatedBy      string
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Run is one firing of a schedule: the due time it was for (the time it
// was asked for, for a manual run) and the export it asked for.
type Run struct {
	ScheduleID, OrgID string
	Due               time.Time
	Trigger           string
	// ExportID is the export asked for; empty when none could be (Error
	// says why: a model or template deleted since).
	ExportID  string
	Error     string
	CreatedAt time.Time
}

// Store keeps schedules and their runs. A record of another organization
// is store.ErrNotFound, as a missing one.
type Store interface {
	CreateReportSchedule(ctx context.Context, s Schedule) error
	ReportSchedule(ctx context.Context, orgID, id string) (Schedule, error)
	// ReportSchedules lists the organization's schedules oldest first
	// with their total.
	ReportSchedules(ctx context.Context, orgID string, offset, limit int) ([]Schedule, int64, error)
	// UpdateReportSchedule replaces the stored schedule of s's
	// organization and id.
	UpdateReportSchedule(ctx context.Context, s Schedule) error
	DeleteReportSchedule(ctx context.Context, orgID, id string) error
	// DueReportSchedules are the enabled schedules whose next run is at
	// or before now, in any organization, soonest first.
	DueReportSchedules(ctx context.Context, now time.Time, limit int) ([]Schedule, error)
	// FireReportSchedule records r, stores job and its deliveries and,
	// for a scheduled run, moves the schedule's next run from s.NextRun
	// to next, all in one transaction. It reports false, changing nothing, when the schedule
	// no longer has s.NextRun (another replica fired it) or r's due time
	// was already recorded.
	FireReportSchedule(ctx context.Context, s Schedule, next time.Time, r Run, job export.Job, deliveries []delivery.Delivery) (bool, error)
	// ReportScheduleRuns lists a schedule's runs newest first with their
	// total.
	ReportScheduleRuns(ctx context.Context, orgID, scheduleID string, offset, limit int) ([]Run, int64, error)
}

// parser reads the standard five fields: minute, hour, day of month,
// month, day of week; no seconds, no descriptors (@daily).
var parser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

// Parse reads a standard 5-field cron expression, in UTC. A time-zone
// prefix, a descriptor or a schedule that never comes due is an error.
func Parse(expr string) (cron.Schedule, error) {
	if f := strings.Fields(expr); len(f) != 5 {
		return nil, fmt.Errorf("must have 5 fields (minute hour day-of-month month day-of-week), got %d", len(f))
	}
	if strings.Contains(expr, "TZ=") {
		return nil, errors.New("takes no time zone: schedules run in UTC")
	}
	s, err := parser.Parse(expr)
	if err != nil {
		return nil, err
	}
	if s.Next(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)).IsZero() {
		return nil, errors.New("never comes due")
	}
	return s, nil
}

// Next is the first due time of expr after t (UTC); zero when expr does
// not parse.
func Next(expr string, t time.Time) time.Time {
	s, err := Parse(expr)
	if err != nil {
		return time.Time{}
	}
	return s.Next(t.UTC())
}

// Upcoming are the n due times of expr after t.
func Upcoming(expr string, t time.Time, n int) []time.Time {
	out := make([]time.Time, 0, n)
	for range n {
		if t = Next(expr, t); t.IsZero() {
			break
		}
		out = append(out, t)
	}
	return out
}

// Period is the days a run due at due covers: the PeriodDays whole days
// (UTC) before the day of due.
func (s Schedule) Period(due time.Time) (start, end time.Time) {
	day := due.UTC().Truncate(24 * time.Hour)
	return day.AddDate(0, 0, -s.PeriodDays), day.AddDate(0, 0, -1)
}

// Job is the export a run of s due at due asks for at now.
func (s Schedule) Job(ctx context.Context, templates export.Store, models registry.Finder, due, now time.Time) (export.Job, error) {
	start, end := s.Period(due)
	return export.NewJob(ctx, templates, models, s.OrgID, s.TemplateID, s.ModelIDs, s.Format, start, end, now)
}

// Deliveries are the pending deliveries a run of s owes for the export
// exportID, asked for at now: one to each of its integrations, and one
// by e-mail to its recipients when it has any.
func (s Schedule) Deliveries(exportID string, now time.Time) []delivery.Delivery {
	to := export.ToIntegrations(s.IntegrationIDs)
	if len(s.Recipients) > 0 {
		to = append(to, export.Delivery{Method: export.DeliverEmail, Recipients: s.Recipients})
	}
	return delivery.NewDeliveries(s.OrgID, exportID, to, now)
}

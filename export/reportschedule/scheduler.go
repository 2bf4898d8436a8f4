package reportschedule

import (
	"context"
	"log/slog"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/registry"
)

// defaultPoll is how often a Scheduler reads the due schedules.
const defaultPoll = 5 * time.Second

// maxCatchUp bounds the due times skipped over in one catch-up.
const maxCatchUp = 1 << 20

// Scheduler fires due schedules: every Poll it reads the enabled
// schedules whose next run is due and, for each, asks for one export of
// the latest due time at or before now and moves the next run past now,
// in one transaction that only one replica wins (a compare-and-swap on
// the next run, and a unique key on schedule and due time).
//
// Catch-up rule: due times missed while no replica ran (a restart, an
// outage) are not all replayed; the schedule fires once, for the latest
// of them, as soon as a replica runs again, and goes on from there.
type Scheduler struct {
	Store     Store
	Templates export.Store
	Models    registry.Finder
	// Runner, when set, is woken for each export asked for.
	Runner *export.Runner
	Poll   time.Duration
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger
}

func (s *Scheduler) log() *slog.Logger {
	if s.Log == nil {
		return slog.Default()
	}
	return s.Log
}

// Run fires due schedules until ctx ends.
func (s *Scheduler) Run(ctx context.Context) error {
	poll := s.Poll
	if poll <= 0 {
		poll = defaultPoll
	}
	clock.Every(ctx, poll, s.Tick, func(err error) { s.log().Warn("firing scheduled reports failed", "err", err) })
	return nil
}

// Tick fires every schedule due now once.
func (s *Scheduler) Tick(ctx context.Context) error {
	now := s.Clock.Now()
	due, err := s.Store.DueReportSchedules(ctx, now, 100)
	if err != nil {
		return err
	}
	for _, sc := range due {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		latest := sc.NextRun
		for i := 0; i < maxCatchUp; i++ {
			n := Next(sc.Cron, latest)
			if n.IsZero() || n.After(now) {
				break
			}
			latest = n
		}
		r := Run{ScheduleID: sc.ID, OrgID: sc.OrgID, Due: latest, Trigger: TriggerSchedule, CreatedAt: now}
		job, err := sc.Job(ctx, s.Templates, s.Models, latest, now)
		var owed []delivery.Delivery
		if err != nil {
			r.Error = err.Error()
		} else {
			r.ExportID = job.ID
			owed = sc.Deliveries(job.ID, now)
		}
		fired, err := s.Store.FireReportSchedule(ctx, sc, Next(sc.Cron, now), r, job, owed)
		if err != nil {
			s.log().Warn("firing a scheduled report failed", "schedule", sc.ID, "err", err)
			continue
		}
		if fired && r.ExportID != "" {
			s.Runner.Wake()
		}
	}
	return nil
}

package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/export/reportschedule"
	"github.com/vigilhq/vigil/store"
)

var _ reportschedule.Store = (*DB)(nil)

const scheduleColumns = `id, org_id, name, template_id, format, cron_expression, recipients, model_ids, integration_ids, period_days, enabled,
	next_run_at, last_run_at, created_by, created_at, updated_at`

func (s *DB) scanSchedule(row interface{ Scan(...any) error }) (reportschedule.Schedule, error) {
	var sc reportschedule.Schedule
	var recipients, models, integrations string
	var next, created, updated int64
	var last sql.NullInt64
	if err := row.Scan(&sc.ID, &sc.OrgID, &sc.Name, &sc.TemplateID, &sc.Format, &sc.Cron, &recipients, &models, &integrations, &sc.PeriodDays,
		&sc.Enabled, &next, &last, &sc.CreatedBy, &created, &updated); err != nil {
		return sc, s.wrap(err)
	}
	sc.NextRun, sc.LastRun, sc.CreatedAt, sc.UpdatedAt = fromMicros(next), fromNullMicros(last), fromMicros(created), fromMicros(updated)
	if err := fromJSON(recipients, &sc.Recipients); err != nil {
		return sc, err
	}
	if err := fromJSON(integrations, &sc.IntegrationIDs); err != nil {
		return sc, err
	}
	return sc, fromJSON(models, &sc.ModelIDs)
}

// scheduleJSON is a schedule's lists as stored.
func scheduleJSON(sc reportschedule.Schedule) (recipients, models, integrations string, err error) {
	if recipients, err = toJSON(sc.Recipients); err != nil {
		return
	}
	if models, err = toJSON(sc.ModelIDs); err != nil {
		return
	}
	ids := sc.IntegrationIDs
	if ids == nil {
		ids = []string{}
	}
	integrations, err = toJSON(ids)
	return
}

// CreateReportSchedule implements reportschedule.Store.
func (s *DB) CreateReportSchedule(ctx context.Context, sc reportschedule.Schedule) error {
	recipients, models, integrations, err := scheduleJSON(sc)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, s.db, `INSERT INTO export_schedules (`+scheduleColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sc.ID, sc.OrgID, sc.Name, sc.TemplateID, sc.Format, sc.Cron, recipients, models, integrations, sc.PeriodDays, sc.Enabled,
		micros(sc.NextRun), nullMicros(sc.LastRun), sc.CreatedBy, micros(sc.CreatedAt), micros(sc.UpdatedAt))
	return err
}

// ReportSchedule implements reportschedule.Store.
func (s *DB) ReportSchedule(ctx context.Context, orgID, id string) (reportschedule.Schedule, error) {
	return s.scanSchedule(s.db.QueryRowContext(ctx, s.q(`SELECT `+scheduleColumns+` FROM export_schedules WHERE org_id = ? AND id = ?`),
		orgID, id))
}

// ReportSchedules implements reportschedule.Store.
func (s *DB) ReportSchedules(ctx context.Context, orgID string, offset, limit int) ([]reportschedule.Schedule, int64, error) {
	return listPage(ctx, s, "export_schedules", scheduleColumns, "org_id = ?", "created_at, id", []any{orgID}, offset, limit,
		s.scanSchedule)
}

// UpdateReportSchedule implements reportschedule.Store.
func (s *DB) UpdateReportSchedule(ctx context.Context, sc reportschedule.Schedule) error {
	recipients, models, integrations, err := scheduleJSON(sc)
	if err != nil {
		return err
	}
	n, err := s.exec(ctx, s.db, `UPDATE export_schedules SET name = ?, template_id = ?, format = ?, cron_expression = ?,
		recipients = ?, model_ids = ?, integration_ids = ?, period_days = ?, enabled = ?, next_run_at = ?, updated_at = ?
		WHERE org_id = ? AND id = ?`,
		sc.Name, sc.TemplateID, sc.Format, sc.Cron, recipients, models, integrations, sc.PeriodDays, sc.Enabled, micros(sc.NextRun),
		micros(sc.UpdatedAt), sc.OrgID, sc.ID)
	if err == nil && n == 0 {
		return store.ErrNotFound
	}
	return err
}

// DeleteReportSchedule implements reportschedule.Store; its runs go with
// it.
func (s *DB) DeleteReportSchedule(ctx context.Context, orgID, id string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := s.exec(ctx, tx, `DELETE FROM export_schedules WHERE org_id = ? AND id = ?`, orgID, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return store.ErrNotFound
		}
		_, err = s.exec(ctx, tx, `DELETE FROM export_schedule_runs WHERE org_id = ? AND schedule_id = ?`, orgID, id)
		return err
	})
}

// DueReportSchedules implements reportschedule.Store.
func (s *DB) DueReportSchedules(ctx context.Context, now time.Time, limit int) ([]reportschedule.Schedule, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+scheduleColumns+` FROM export_schedules WHERE enabled = ? AND next_run_at <= ?
		ORDER BY next_run_at, id LIMIT ?`), true, micros(now), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanSchedule)
}

// FireReportSchedule implements reportschedule.Store.
func (s *DB) FireReportSchedule(ctx context.Context, sc reportschedule.Schedule, next time.Time, r reportschedule.Run,
	job export.Job, deliveries []delivery.Delivery) (bool, error) {
	fired := false
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var n int64
		var err error
		if r.Trigger == reportschedule.TriggerSchedule {
			n, err = s.exec(ctx, tx, `UPDATE export_schedules SET next_run_at = ?, last_run_at = ? WHERE org_id = ? AND id = ?
				AND next_run_at = ?`, micros(next), micros(r.Due), sc.OrgID, sc.ID, micros(sc.NextRun))
		} else {
			n, err = s.exec(ctx, tx, `UPDATE export_schedules SET last_run_at = ? WHERE org_id = ? AND id = ?`,
				micros(r.Due), sc.OrgID, sc.ID)
		}
		if err != nil || n == 0 {
			return err
		}
		if _, err := s.exec(ctx, tx, `INSERT INTO export_schedule_runs (schedule_id, due_at, org_id, run_trigger, export_id, error,
			created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`, r.ScheduleID, micros(r.Due), r.OrgID, r.Trigger, r.ExportID, r.Error,
			micros(r.CreatedAt)); err != nil {
			return err
		}
		if job.ID != "" {
			if err := s.createExportJob(ctx, tx, job); err != nil {
				return err
			}
		}
		for _, d := range deliveries {
			if err := s.createExportDelivery(ctx, tx, d); err != nil {
				return err
			}
		}
		fired = true
		return nil
	})
	if errors.Is(err, store.ErrConflict) {
		return false, nil // the due time is recorded already
	}
	return fired && err == nil, err
}

// ReportScheduleRuns implements reportschedule.Store.
func (s *DB) ReportScheduleRuns(ctx context.Context, orgID, scheduleID string, offset, limit int) ([]reportschedule.Run, int64, error) {
	return listPage(ctx, s, "export_schedule_runs", "schedule_id, due_at, org_id, run_trigger, export_id, error, created_at",
		"org_id = ? AND schedule_id = ?", "due_at DESC", []any{orgID, scheduleID}, offset, limit,
		func(row interface{ Scan(...any) error }) (reportschedule.Run, error) {
			var r reportschedule.Run
			var due, created int64
			err := row.Scan(&r.ScheduleID, &due, &r.OrgID, &r.Trigger, &r.ExportID, &r.Error, &created)
			r.Due, r.CreatedAt = fromMicros(due), fromMicros(created)
			return r, s.wrap(err)
		})
}

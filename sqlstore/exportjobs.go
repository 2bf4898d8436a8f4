package sqlstore

import (
	"context"
	"database/sql"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/store"
)

var _ export.JobStore = (*DB)(nil)

const exportJobColumns = `id, org_id, template, models, format, start_day, end_day, status, progress, error, file, size, attempts,
	created_at, updated_at, completed_at, kind, digest`

// exportJobTemplate is the stored copy of a job's template.
type exportJobTemplate struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Description    string   `json:"description"`
	ReportCategory string   `json:"report_category"`
	Sections       []string `json:"sections"`
	BuiltIn        bool     `json:"built_in"`
}

func (s *DB) scanExportJob(row interface{ Scan(...any) error }) (export.Job, error) {
	var j export.Job
	var tpl, models string
	var start, end, created, updated int64
	var completed sql.NullInt64
	if err := row.Scan(&j.ID, &j.OrgID, &tpl, &models, &j.Format, &start, &end, &j.Status, &j.Progress, &j.Error, &j.File,
		&j.Size, &j.Attempts, &created, &updated, &completed, &j.Kind, &j.Digest); err != nil {
		return j, s.wrap(err)
	}
	j.Start, j.End, j.CreatedAt, j.UpdatedAt = fromMicros(start), fromMicros(end), fromMicros(created), fromMicros(updated)
	j.CompletedAt = fromNullMicros(completed)
	var t exportJobTemplate
	if err := fromJSON(tpl, &t); err != nil {
		return j, err
	}
	j.Template = export.Template{ID: t.ID, OrgID: j.OrgID, Name: t.Name, Description: t.Description,
		ReportCategory: t.ReportCategory, Sections: t.Sections, BuiltIn: t.BuiltIn}
	if t.BuiltIn {
		j.Template.OrgID = ""
	}
	return j, fromJSON(models, &j.Models)
}

// CreateExportJob implements export.JobStore.
func (s *DB) CreateExportJob(ctx context.Context, j export.Job) error {
	return s.createExportJob(ctx, s.db, j)
}

// createExportJob stores j through q (the database or a transaction).
func (s *DB) createExportJob(ctx context.Context, q querier, j export.Job) error {
	tpl, err := toJSON(exportJobTemplate{ID: j.Template.ID, Name: j.Template.Name, Description: j.Template.Description,
		ReportCategory: j.Template.ReportCategory,
		Sections:       j.Template.Sections, BuiltIn: j.Template.BuiltIn})
	if err != nil {
		return err
	}
	models, err := toJSON(j.Models)
	if err != nil {
		return err
	}
	_, err = s.exec(ctx, q, `INSERT INTO export_jobs (`+exportJobColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.OrgID, tpl, models, j.Format, micros(j.Start), micros(j.End), j.Status, j.Progress, j.Error, j.File, j.Size,
		j.Attempts, micros(j.CreatedAt), micros(j.UpdatedAt), nullMicros(j.CompletedAt), j.Kind, j.Digest)
	return err
}

// ExportJob implements export.JobStore.
func (s *DB) ExportJob(ctx context.Context, orgID, id string) (export.Job, error) {
	return s.scanExportJob(s.db.QueryRowContext(ctx, s.q(`SELECT `+exportJobColumns+` FROM export_jobs WHERE org_id = ? AND id = ?`),
		orgID, id))
}

// ExportJobs implements export.JobStore.
func (s *DB) ExportJobs(ctx context.Context, orgID string, f export.JobFilter) ([]export.Job, int64, error) {
	where, args := "org_id = ?", []any{orgID}
	if f.Status != "" {
		where, args = where+" AND status = ?", append(args, f.Status)
	}
	return listPage(ctx, s, "export_jobs", exportJobColumns, where, "created_at DESC, id DESC", args, f.Offset, f.Limit,
		s.scanExportJob)
}

// SaveExportJob implements export.JobStore.
func (s *DB) SaveExportJob(ctx context.Context, j, was export.Job) error {
	n, err := s.exec(ctx, s.db, `UPDATE export_jobs SET status = ?, progress = ?, error = ?, file = ?, size = ?, digest = ?,
		attempts = ?, updated_at = ?, completed_at = ? WHERE org_id = ? AND id = ? AND status = ? AND updated_at = ?`,
		j.Status, j.Progress, j.Error, j.File, j.Size, j.Digest, j.Attempts, micros(j.UpdatedAt), nullMicros(j.CompletedAt),
		j.OrgID, j.ID, was.Status, micros(was.UpdatedAt))
	if err != nil || n > 0 {
		return err
	}
	if _, err := s.ExportJob(ctx, j.OrgID, j.ID); err != nil {
		return err
	}
	return store.ErrConflict
}

// ExpiringExportJobs implements export.JobStore.
func (s *DB) ExpiringExportJobs(ctx context.Context, before time.Time, limit int) ([]export.Job, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+exportJobColumns+` FROM export_jobs
		WHERE status = 'completed' AND completed_at < ? ORDER BY completed_at, id LIMIT ?`), micros(before), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanExportJob)
}

// OwedExportJobs implements export.JobStore.
func (s *DB) OwedExportJobs(ctx context.Context, staleBefore time.Time, limit int) ([]export.Job, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT `+exportJobColumns+` FROM export_jobs
		WHERE status = 'pending' OR (status = 'in_progress' AND updated_at < ?) ORDER BY created_at, id LIMIT ?`),
		micros(staleBefore), limit)
	if err != nil {
		return nil, s.wrap(err)
	}
	return collect(rows, s.scanExportJob)
}

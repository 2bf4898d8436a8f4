package export

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/report"
)

// Statuses of an export job: pending until a runner claims it,
// in_progress while it renders, then completed, failed (Error says why)
// or cancelled; a completed job is expired once the retention has passed
// and its file is removed.
const (
	StatusPending    = "pending"
	StatusInProgress = "in_progress"
	StatusCompleted  = "completed"
	StatusFailed     = "failed"
	StatusCancelled  = "cancelled"
	StatusExpired    = "expired"
)

// Statuses lists every status of an export job.
var Statuses = []string{StatusPending, StatusInProgress, StatusCompleted, StatusFailed, StatusCancelled, StatusExpired}

// Final reports whether status is one a job is never rendered from
// again (a completed one only expires).
func Final(status string) bool {
	return status == StatusCompleted || status == StatusFailed || status == StatusCancelled || status == StatusExpired
}

// Kinds of export job: a report rendered in one format, or an evidence
// pack: one document in its format (the compliance sections and the
// evidence appendices) or, asked for as a ZIP, that document beside each
// section as JSON and a manifest (KindEvidenceZip, shown as
// evidence_pack).
const (
	KindReport       = "report"
	KindEvidencePack = "evidence_pack"
	KindEvidenceZip  = "evidence_pack_zip"
)

// Job is one export: a report of Models over the days Start..End (both
// included, UTC) laid out as Template (a copy taken when the job was
// asked for, so that a later change of the template does not change it)
// and rendered as Format. Progress runs from 0 to 100; File is the
// rendered file's name in the runner's folder once completed, Size its
// bytes and Digest its SHA-256 (hex). Attempts counts the runs that
// claimed the job. Kind is KindReport ("" reads as it) or
// KindEvidencePack, whose Format is that of the report inside the pack.
type Job struct {
	ID          string
	OrgID       string
	Kind        string
	Template    Template
	Models      []report.Model
	Format      string
	Start, End  time.Time
	Status      string
	Progress    int
	Error       string
	File        string
	Size        int64
	Digest      string
	Attempts    int
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt *time.Time
}

// JobFilter narrows a list of jobs; Limit 0 is no limit.
type JobFilter struct {
	Status        string
	Offset, Limit int
}

// JobStore keeps export jobs. A record of another organization is
// store.ErrNotFound, as a missing one.
type JobStore interface {
	CreateExportJob(ctx context.Context, j Job) error
	ExportJob(ctx context.Context, orgID, id string) (Job, error)
	// ExportJobs lists the organization's jobs newest first with their
	// total.
	ExportJobs(ctx context.Context, orgID string, f JobFilter) ([]Job, int64, error)
	// SaveExportJob writes j's status, progress, error, file, size,
	// attempts and times if the stored job still has was's status and
	// update time (a compare-and-swap: store.ErrConflict otherwise).
	SaveExportJob(ctx context.Context, j Job, was Job) error
	// OwedExportJobs are the jobs a runner owes, oldest first: pending
	// ones, and those in progress but not updated since staleBefore (their
	// runner stopped).
	OwedExportJobs(ctx context.Context, staleBefore time.Time, limit int) ([]Job, error)
	// ExpiringExportJobs are completed jobs of any organization completed
	// before before, oldest first.
	ExpiringExportJobs(ctx context.Context, before time.Time, limit int) ([]Job, error)
}

// Pack reports whether the job is an evidence pack.
func (j Job) Pack() bool { return j.Kind == KindEvidencePack || j.Kind == KindEvidenceZip }

// Zipped reports whether the job's file is a ZIP: an evidence pack asked
// for as one.
func (j Job) Zipped() bool { return j.Kind == KindEvidenceZip }

// extensions are the file extensions of the formats.
var extensions = map[string]string{report.FormatJSON: "json", report.FormatCSV: "csv", report.FormatMarkdown: "md",
	report.FormatHTML: "html", report.FormatExcel: "xlsx", report.FormatPDF: "pdf"}

// nextUpdate is the update time of a job changed at now from one last
// updated at was: now to the microsecond the store keeps, and always
// after was, so that every change moves the compare-and-swap's key.
func nextUpdate(was, now time.Time) time.Time {
	now, was = now.Truncate(time.Microsecond), was.Truncate(time.Microsecond)
	if !now.After(was) {
		return was.Add(time.Microsecond)
	}
	return now
}

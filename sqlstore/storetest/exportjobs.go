package storetest

import (
	"testing"
	"time"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

var exportJobTests = []test{
	{"ExportJobs/Lifecycle", testExportJobs},
}

// testExportJobs: a job is stored as given, listed newest first by
// status, owed while pending or stale in progress, expiring once
// completed before the cut-off, and changed only by a compare-and-swap
// on its status and update time; another organization's id is
// store.ErrNotFound.
func testExportJobs(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	tpl, _ := export.Builtin(export.Builtins()[0].ID)
	mk := func(orgID string, n int) export.Job {
		return export.Job{ID: newID(), OrgID: orgID, Template: tpl, Models: []report.Model{{ID: "m1", Name: "churn"}},
			Format: report.FormatPDF, Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), End: time.Date(2026, 1, 31, 0, 0, 0, 0, time.UTC),
			Status: export.StatusPending, CreatedAt: stored(at(n)), UpdatedAt: stored(at(n))}
	}
	j1, j2, other := mk(a.ID, 1), mk(a.ID, 2), mk(b.ID, 3)
	j2.Kind = export.KindEvidencePack
	for _, j := range []export.Job{j1, j2, other} {
		must(t, s.CreateExportJob(ctx(t), j), "CreateExportJob")
	}
	got, err := s.ExportJob(ctx(t), a.ID, j1.ID)
	must(t, err, "ExportJob")
	equal(t, "stored job", got, j1)
	_, err = s.ExportJob(ctx(t), a.ID, other.ID)
	wantErr(t, err, store.ErrNotFound, "ExportJob of another organization")

	claimed := j1
	claimed.Status, claimed.Progress, claimed.Attempts, claimed.UpdatedAt = export.StatusInProgress, 10, 1, stored(at(5))
	must(t, s.SaveExportJob(ctx(t), claimed, j1), "SaveExportJob claim")
	wantErr(t, s.SaveExportJob(ctx(t), claimed, j1), store.ErrConflict, "SaveExportJob from a stale version")
	foreign := other
	foreign.OrgID = a.ID
	wantErr(t, s.SaveExportJob(ctx(t), foreign, foreign), store.ErrNotFound, "SaveExportJob of another organization")

	owed, err := s.OwedExportJobs(ctx(t), at(5), 10)
	must(t, err, "OwedExportJobs")
	equal(t, "owed before the claim is stale", ids(owed), []string{j2.ID, other.ID})
	owed, err = s.OwedExportJobs(ctx(t), at(6), 10)
	must(t, err, "OwedExportJobs")
	equal(t, "owed once the claim is stale", ids(owed), []string{j1.ID, j2.ID, other.ID})

	done := claimed
	completed := stored(at(7))
	done.Status, done.Progress, done.File, done.Size, done.UpdatedAt, done.CompletedAt = export.StatusCompleted, 100, j1.ID+".pdf", 1234, completed, &completed
	done.Digest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	must(t, s.SaveExportJob(ctx(t), done, claimed), "SaveExportJob finish")
	got, err = s.ExportJob(ctx(t), a.ID, j1.ID)
	must(t, err, "ExportJob")
	equal(t, "completed job", got, done)

	got, err = s.ExportJob(ctx(t), a.ID, j2.ID)
	must(t, err, "ExportJob")
	equal(t, "evidence pack job", got, j2)
	list, total, err := s.ExportJobs(ctx(t), a.ID, export.JobFilter{})
	must(t, err, "ExportJobs")
	equal(t, "jobs newest first", ids(list), []string{j2.ID, j1.ID})
	equal(t, "total", total, int64(2))
	list, total, err = s.ExportJobs(ctx(t), a.ID, export.JobFilter{Status: export.StatusCompleted, Limit: 1})
	must(t, err, "ExportJobs")
	equal(t, "completed jobs", ids(list), []string{j1.ID})
	equal(t, "completed total", total, int64(1))

	// Retention: a job completed before the cut-off expires.
	expiring, err := s.ExpiringExportJobs(ctx(t), at(7), 10)
	must(t, err, "ExpiringExportJobs")
	equal(t, "expiring at its completion", len(expiring), 0)
	expiring, err = s.ExpiringExportJobs(ctx(t), at(8), 10)
	must(t, err, "ExpiringExportJobs")
	equal(t, "expiring after its completion", ids(expiring), []string{j1.ID})
	expired := done
	expired.Status, expired.File, expired.UpdatedAt = export.StatusExpired, "", stored(at(9))
	must(t, s.SaveExportJob(ctx(t), expired, done), "SaveExportJob expire")
	expiring, err = s.ExpiringExportJobs(ctx(t), at(8), 10)
	must(t, err, "ExpiringExportJobs")
	equal(t, "expiring once expired", len(expiring), 0)
	list, _, err = s.ExportJobs(ctx(t), a.ID, export.JobFilter{Status: export.StatusExpired})
	must(t, err, "ExportJobs")
	equal(t, "expired jobs", list, []export.Job{expired})
}

// ids are the jobs' ids in order.
func ids(js []export.Job) []string {
	out := make([]string, len(js))
	for i, j := range js {
		out[i] = j.ID
	}
	return out
}

package storetest

import (
	"sync"
	"testing"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/export/reportschedule"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/store"
)

var exportScheduleTests = []test{
	{"ExportSchedules/Lifecycle", testExportSchedules},
	{"ExportSchedules/FireOnce", testExportScheduleFireOnce},
	{"ExportDeliveries/WithTheExport", testDeliveredExportJob},
}

// testDeliveredExportJob: an export asked for with deliveries is stored
// with them in one write; they are listed with it in its organization
// only; a failed write stores neither.
func testDeliveredExportJob(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	job := scheduledJob(reportschedule.Schedule{OrgID: a.ID, Format: report.FormatCSV}, 1)
	ds := delivery.NewDeliveries(a.ID, job.ID, []export.Delivery{{IntegrationID: newID()}, {IntegrationID: newID()},
		{Method: export.DeliverEmail, Recipients: []string{"cfo@example.com"}}}, stored(at(1)))
	must(t, s.CreateDeliveredExportJob(ctx(t), job, ds), "CreateDeliveredExportJob")
	got, err := s.ExportJob(ctx(t), a.ID, job.ID)
	must(t, err, "ExportJob")
	equal(t, "the export's status", got.Status, export.StatusPending)
	list, total, err := s.ExportDeliveries(ctx(t), a.ID, job.ID, 0, 10)
	must(t, err, "ExportDeliveries")
	equal(t, "the export's deliveries", []any{list, total}, []any{ds, int64(3)})
	_, total, err = s.ExportDeliveries(ctx(t), b.ID, job.ID, 0, 10)
	must(t, err, "ExportDeliveries of another organization")
	equal(t, "deliveries seen from another organization", total, int64(0))

	again := scheduledJob(reportschedule.Schedule{OrgID: a.ID, Format: report.FormatCSV}, 2)
	clash := delivery.NewDeliveries(a.ID, again.ID, export.ToIntegrations([]string{newID()}), stored(at(2)))
	clash[0].ID = ds[0].ID // a delivery id taken already: the write fails whole
	if err := s.CreateDeliveredExportJob(ctx(t), again, clash); err == nil {
		t.Fatal("got no error storing a delivery under a taken id, want one")
	}
	_, err = s.ExportJob(ctx(t), a.ID, again.ID)
	wantErr(t, err, store.ErrNotFound, "the export of a failed write")
}

// newSchedule stores an enabled schedule of org due at at(n).
func newSchedule(t *testing.T, s Store, orgID string, n int) reportschedule.Schedule {
	t.Helper()
	sc := reportschedule.Schedule{ID: newID(), OrgID: orgID, Name: "weekly", TemplateID: "t1", Format: report.FormatPDF,
		Cron: "0 9 * * 1", Recipients: []string{"cfo@example.com"}, ModelIDs: []string{"m1"}, IntegrationIDs: []string{"i1"}, PeriodDays: 7, Enabled: true,
		NextRun: stored(at(n)), CreatedBy: "u1", CreatedAt: stored(at(0)), UpdatedAt: stored(at(0))}
	must(t, s.CreateReportSchedule(ctx(t), sc), "CreateReportSchedule")
	return sc
}

// scheduledJob is the export a run of sc asks for.
func scheduledJob(sc reportschedule.Schedule, n int) export.Job {
	tpl, _ := export.Builtin(export.Builtins()[0].ID)
	return export.Job{ID: newID(), OrgID: sc.OrgID, Template: tpl, Models: []report.Model{{ID: "m1", Name: "churn"}},
		Format: sc.Format, Start: stored(at(0)), End: stored(at(0)), Status: export.StatusPending, CreatedAt: stored(at(n)),
		UpdatedAt: stored(at(n))}
}

// testExportSchedules: a schedule is stored as given, replaced, listed
// and deleted within its organization; it is due once its next run is
// reached and enabled; a fire moves the next run and records the run and
// its job; a manual run leaves the next run alone.
func testExportSchedules(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	sc := newSchedule(t, s, a.ID, 10)
	got, err := s.ReportSchedule(ctx(t), a.ID, sc.ID)
	must(t, err, "ReportSchedule")
	equal(t, "stored schedule", got, sc)
	_, err = s.ReportSchedule(ctx(t), b.ID, sc.ID)
	wantErr(t, err, store.ErrNotFound, "ReportSchedule of another organization")
	foreign := sc
	foreign.OrgID = b.ID
	wantErr(t, s.UpdateReportSchedule(ctx(t), foreign), store.ErrNotFound, "UpdateReportSchedule of another organization")
	wantErr(t, s.DeleteReportSchedule(ctx(t), b.ID, sc.ID), store.ErrNotFound, "DeleteReportSchedule of another organization")

	sc.Name, sc.Recipients, sc.UpdatedAt = "renamed", []string{"a@example.com", "b@example.com"}, stored(at(1))
	must(t, s.UpdateReportSchedule(ctx(t), sc), "UpdateReportSchedule")
	got, err = s.ReportSchedule(ctx(t), a.ID, sc.ID)
	must(t, err, "ReportSchedule")
	equal(t, "replaced schedule", got, sc)
	off := newSchedule(t, s, a.ID, 5)
	off.Enabled = false
	must(t, s.UpdateReportSchedule(ctx(t), off), "UpdateReportSchedule")
	list, total, err := s.ReportSchedules(ctx(t), a.ID, 0, 10)
	must(t, err, "ReportSchedules")
	equal(t, "schedules", []any{len(list), total}, []any{2, int64(2)})

	due, err := s.DueReportSchedules(ctx(t), at(9), 10)
	must(t, err, "DueReportSchedules")
	equal(t, "due before the next run", len(due), 0)
	due, err = s.DueReportSchedules(ctx(t), at(10), 10)
	must(t, err, "DueReportSchedules")
	equal(t, "due at the next run (the disabled one never)", len(due), 1)

	job := scheduledJob(sc, 11)
	run := reportschedule.Run{ScheduleID: sc.ID, OrgID: a.ID, Due: stored(at(10)), Trigger: reportschedule.TriggerSchedule,
		ExportID: job.ID, CreatedAt: stored(at(11))}
	owed := sc.Deliveries(job.ID, stored(at(11)))
	fired, err := s.FireReportSchedule(ctx(t), sc, stored(at(20)), run, job, owed)
	must(t, err, "FireReportSchedule")
	equal(t, "fired", fired, true)
	got, err = s.ReportSchedule(ctx(t), a.ID, sc.ID)
	must(t, err, "ReportSchedule")
	equal(t, "next and last run", []any{got.NextRun, got.LastRun}, []any{stored(at(20)), storedPtr(ptr(at(10)))})
	gotJob, err := s.ExportJob(ctx(t), a.ID, job.ID)
	must(t, err, "ExportJob")
	equal(t, "the run's job", gotJob, job)
	testExportDeliveries(t, s, job, owed)

	manual := reportschedule.Run{ScheduleID: sc.ID, OrgID: a.ID, Due: stored(at(12)), Trigger: reportschedule.TriggerManual,
		Error: "model m1 not found", CreatedAt: stored(at(12))}
	fired, err = s.FireReportSchedule(ctx(t), got, got.NextRun, manual, export.Job{}, nil)
	must(t, err, "FireReportSchedule manual")
	equal(t, "fired manually", fired, true)
	runs, total, err := s.ReportScheduleRuns(ctx(t), a.ID, sc.ID, 0, 10)
	must(t, err, "ReportScheduleRuns")
	equal(t, "runs newest first", runs, []reportschedule.Run{manual, run})
	equal(t, "runs total", total, int64(2))
	_, total, err = s.ReportScheduleRuns(ctx(t), b.ID, sc.ID, 0, 10)
	must(t, err, "ReportScheduleRuns")
	equal(t, "runs seen by another organization", total, int64(0))

	must(t, s.DeleteReportSchedule(ctx(t), a.ID, sc.ID), "DeleteReportSchedule")
	_, err = s.ReportSchedule(ctx(t), a.ID, sc.ID)
	wantErr(t, err, store.ErrNotFound, "ReportSchedule deleted")
}

// testExportScheduleFireOnce: ten replicas firing the same due time in
// parallel fire it once: one run, one job.
func testExportScheduleFireOnce(t *testing.T, s Store) {
	sc := newSchedule(t, s, newOrg(t, s).ID, 10)
	var wg sync.WaitGroup
	var mu sync.Mutex
	won, errs := 0, []error{}
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			job := scheduledJob(sc, 11)
			fired, err := s.FireReportSchedule(ctx(t), sc, stored(at(20)), reportschedule.Run{ScheduleID: sc.ID, OrgID: sc.OrgID,
				Due: stored(at(10)), Trigger: reportschedule.TriggerSchedule, ExportID: job.ID, CreatedAt: stored(at(11))}, job,
				sc.Deliveries(job.ID, stored(at(11))))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
			}
			if fired {
				won++
			}
		}()
	}
	wg.Wait()
	equal(t, "errors of parallel fires", errs, []error{})
	equal(t, "fires of one due time by ten replicas", won, 1)
	_, total, err := s.ReportScheduleRuns(ctx(t), sc.OrgID, sc.ID, 0, 10)
	must(t, err, "ReportScheduleRuns")
	equal(t, "runs", total, int64(1))
	_, total, err = s.ExportJobs(ctx(t), sc.OrgID, export.JobFilter{})
	must(t, err, "ExportJobs")
	equal(t, "jobs", total, int64(1))
	owed, err := s.OwedExportDeliveries(ctx(t), at(30), 100)
	must(t, err, "OwedExportDeliveries")
	equal(t, "deliveries owed while the job is pending", len(owed), 0)
}

// testExportDeliveries: a fired schedule's delivery is listed with its
// export, owed once the export is final, and changed only by a
// compare-and-swap.
func testExportDeliveries(t *testing.T, s Store, job export.Job, ds []delivery.Delivery) {
	t.Helper()
	list, total, err := s.ExportDeliveries(ctx(t), job.OrgID, job.ID, 0, 10)
	must(t, err, "ExportDeliveries")
	equal(t, "the export's deliveries", []any{list, total}, []any{ds, int64(len(ds))})
	owed, err := s.OwedExportDeliveries(ctx(t), at(30), 10)
	must(t, err, "OwedExportDeliveries")
	equal(t, "owed while the export is pending", len(owed), 0)
	done := job
	done.Status, done.UpdatedAt = export.StatusCompleted, stored(at(12))
	must(t, s.SaveExportJob(ctx(t), done, job), "SaveExportJob")
	owed, err = s.OwedExportDeliveries(ctx(t), at(30), 10)
	must(t, err, "OwedExportDeliveries")
	equal(t, "owed once the export is completed", owed, ds)
	var sent []delivery.Delivery
	for _, d := range ds {
		done := d
		done.Method, done.Status, done.Attempts, done.Detail, done.UpdatedAt = "email", delivery.StatusSent, 1, "mailed", stored(at(13))
		must(t, s.SaveExportDelivery(ctx(t), done, d), "SaveExportDelivery")
		wantErr(t, s.SaveExportDelivery(ctx(t), done, d), store.ErrConflict, "SaveExportDelivery from a stale version")
		sent = append(sent, done)
	}
	owed, err = s.OwedExportDeliveries(ctx(t), at(30), 10)
	must(t, err, "OwedExportDeliveries")
	equal(t, "owed once sent", len(owed), 0)
	list, _, err = s.ExportDeliveries(ctx(t), job.OrgID, job.ID, 0, 10)
	must(t, err, "ExportDeliveries")
	equal(t, "the deliveries once sent", list, sent)
}

package app

import (
	stdmaps "maps"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/reportschedule"
)

// TestScheduledReports: a schedule with a standard cron expression shows
// its next 5 due times; a bad expression answers 422 naming it; "run"
// asks for an export now; the scheduler fires a due time once (the
// export is rendered) and, after a gap of many due times (a restart),
// catches up with the latest one only; another organization's id
// answers 404; PUT and DELETE work.
func TestScheduledReports(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		model := s.model(admin, "churn", "1")
		body := map[string]any{"name": "weekly churn", "template_id": export.Builtins()[0].ID, "format": "csv",
			"cron_expression": "0 9 * * 1", "recipients": []string{"cfo@example.com"}, "model_ids": []string{model}}
		created := s.do("POST", "/export/scheduled-reports", admin, body).want(t, 201)
		id := created.str("id")
		next := created.at("next_runs").([]any)
		if len(next) != 5 {
			t.Fatalf("got next runs %v, want 5", next)
		}
		for i, n := range next {
			at, err := time.Parse(time.RFC3339, n.(string))
			if err != nil || at.Weekday() != time.Monday || at.Hour() != 9 || at.Minute() != 0 || (i > 0 && at.Sub(dueTime(t, next[i-1])) != 7*24*time.Hour) {
				t.Fatalf("got next runs %v, want the next five Mondays at 09:00 UTC", next)
			}
		}
		if created.at("period_days") != 7.0 || created.at("enabled") != true {
			t.Fatalf("got %s, want the defaults: 7 days, enabled", created.raw)
		}
		for _, bad := range []string{"0 9 * *", "61 9 * * 1", "@daily", "TZ=Europe/Paris 0 9 * * 1", "0 0 30 2 *", "0 9 * * 1 2026"} {
			b := stdmaps.Clone(body)
			b["cron_expression"] = bad
			s.do("POST", "/export/scheduled-reports", admin, b).wantField(t, "cron_expression")
		}
		b := stdmaps.Clone(body)
		b["recipients"] = []string{"not an address"}
		s.do("POST", "/export/scheduled-reports", admin, b).wantField(t, "recipients[0]")
		b = stdmaps.Clone(body)
		b["model_ids"] = []string{uuid.NewString()}
		s.do("POST", "/export/scheduled-reports", admin, b).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("POST", "/export/scheduled-reports", viewer, body).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")

		// Run now: an export of the last 7 days, rendered.
		run := s.do("POST", "/export/scheduled-reports/"+id+"/run", admin, nil).want(t, 202)
		if run.str("trigger") != reportschedule.TriggerManual {
			t.Fatalf("got %s, want a manual run", run.raw)
		}
		done := s.exportDone(t, admin, run.str("export_id"))
		today := time.Now().UTC().Truncate(24 * time.Hour)
		if done.str("status") != export.StatusCompleted || done.str("start") != today.AddDate(0, 0, -7).Format(time.DateOnly) ||
			done.str("end") != today.AddDate(0, 0, -1).Format(time.DateOnly) {
			t.Fatalf("got %s, want the 7 days before today exported", done.raw)
		}

		// Every minute: once a due time has passed, the scheduler fires it
		// once; after a gap of ten due times, only the latest.
		b = stdmaps.Clone(body)
		b["cron_expression"] = "* * * * *"
		b["name"] = "every minute"
		minutely := s.do("POST", "/export/scheduled-reports", admin, b).want(t, 201)
		first, _ := time.Parse(time.RFC3339, minutely.at("next_runs").([]any)[0].(string))
		runs := func() []any {
			return s.do("GET", "/export/scheduled-reports/"+minutely.str("id")+"/runs", viewer, nil).want(t, 200).at("runs").([]any)
		}
		s.skewTo(first.Add(2 * time.Second))
		waitFor(t, "the first due time fired", func() bool { return len(runs()) == 1 })
		r := runs()[0].(map[string]any)
		if r["due_at"] != first.Format(time.RFC3339) || r["trigger"] != reportschedule.TriggerSchedule {
			t.Fatalf("got run %v, want the due time %s fired by the schedule", r, first)
		}
		if s.exportDone(t, admin, r["export_id"].(string)).str("status") != export.StatusCompleted {
			t.Fatalf("want the scheduled export completed")
		}
		s.skewTo(first.Add(10*time.Minute + 2*time.Second))
		waitFor(t, "the catch-up fired", func() bool { return len(runs()) == 2 })
		if r := runs()[0].(map[string]any); r["due_at"] != first.Add(10*time.Minute).Format(time.RFC3339) {
			t.Fatalf("got run %v, want the latest missed due time only", r)
		}
		// A later tick fires nothing more for the same minute.
		if got := s.do("GET", "/export/scheduled-reports/"+minutely.str("id"), viewer, nil).want(t, 200); got.str("last_run_at") !=
			first.Add(10*time.Minute).Format(time.RFC3339) {
			t.Fatalf("got %s, want the last run at the latest due time", got.raw)
		}

		// Another organization sees none of it.
		mallory := s.signUp("mallory")
		for _, c := range []struct{ method, path string }{
			{"GET", "/export/scheduled-reports/" + id}, {"PUT", "/export/scheduled-reports/" + id},
			{"DELETE", "/export/scheduled-reports/" + id}, {"POST", "/export/scheduled-reports/" + id + "/run"},
			{"GET", "/export/scheduled-reports/" + id + "/runs"},
		} {
			var bd any
			if c.method == "PUT" {
				bd = body
			}
			s.do(c.method, c.path, mallory, bd).wantError(t, 404, "NOT_FOUND")
		}
		if list := s.do("GET", "/export/scheduled-reports", mallory, nil).want(t, 200); list.at("total") != 0.0 {
			t.Fatalf("got %s, want none of A's schedules", list.raw)
		}

		b = stdmaps.Clone(body)
		b["enabled"] = false
		if r := s.do("PUT", "/export/scheduled-reports/"+id, admin, b).want(t, 200); r.at("enabled") != false || len(r.at("next_runs").([]any)) != 0 {
			t.Fatalf("got %s, want the schedule disabled with no next runs", r.raw)
		}
		s.do("DELETE", "/export/scheduled-reports/"+id, admin, nil).want(t, 204)
		s.do("GET", "/export/scheduled-reports/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
	})
}

// dueTime reads an RFC 3339 due time of a schedule.
func dueTime(t *testing.T, v any) time.Time {
	t.Helper()
	at, err := time.Parse(time.RFC3339, v.(string))
	if err != nil {
		t.Fatal(err)
	}
	return at
}

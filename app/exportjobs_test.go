package app

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/report"
)

// exportDone waits until the export is final and returns it.
func (s *server) exportDone(t *testing.T, token, id string) response {
	t.Helper()
	var r response
	waitFor(t, "export "+id+" final", func() bool {
		r = s.do("GET", "/export/exports/"+id, token, nil).want(t, 200)
		return export.Final(r.str("status"))
	})
	return r
}

// TestExportJobs: predictions logged through the API are exported as
// PDF and CSV in the background (202 pending, then completed with
// progress 100) and downloaded with the format's media type and an
// attachment name; a final export cannot be cancelled; bad input answers
// 422 naming the field and a model of no one's 404.
func TestExportJobs(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		model := s.model(admin, "churn", "1")
		for range 5 {
			s.do("POST", "/predictions/log", admin, map[string]any{"model_id": model, "input_data": map[string]any{"x": 1},
				"output_data": map[string]any{"y": 1}, "latency_ms": 12}).want(t, 201)
		}
		s.waitStored(t, admin, model, 5)
		today := time.Now().UTC()
		body := func(format string) map[string]any {
			return map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model}, "format": format,
				"start": today.AddDate(0, 0, -1).Format(time.DateOnly), "end": today.AddDate(0, 0, 1).Format(time.DateOnly)}
		}
		for _, c := range []struct {
			format, disposition string
			head                []byte
		}{
			{"pdf", ".pdf\"", []byte("%PDF-")},
			{"csv", ".csv\"", []byte(strings.Join(report.CSVColumns, ",") + "\r\n")},
		} {
			r := s.do("POST", "/export/exports", admin, body(c.format)).want(t, 202)
			if r.str("status") != export.StatusPending || r.str("format") != c.format || r.at("progress") != float64(0) {
				t.Fatalf("got %s, want a pending %s export", r.raw, c.format)
			}
			id := r.str("export_id")
			done := s.exportDone(t, viewer, id)
			if done.str("status") != export.StatusCompleted || done.at("progress") != float64(100) || done.at("size_bytes") == float64(0) {
				t.Fatalf("got %s, want the export completed", done.raw)
			}
			file := s.do("GET", "/export/exports/"+id+"/download", viewer, nil).want(t, 200)
			if !bytes.HasPrefix(file.raw, c.head) || int(done.at("size_bytes").(float64)) != len(file.raw) {
				t.Errorf("%s: got %d bytes starting %q, want %v bytes starting %q", c.format, len(file.raw), file.raw[:min(len(file.raw), 40)],
					done.at("size_bytes"), c.head)
			}
			if ct, cd := file.header.Get("Content-Type"), file.header.Get("Content-Disposition"); !strings.HasPrefix(ct, strings.Split(report.ContentTypes[c.format], ";")[0]) ||
				!strings.HasPrefix(cd, "attachment; filename=") || !strings.HasSuffix(cd, c.disposition) {
				t.Errorf("%s: got Content-Type %q and Content-Disposition %q, want the format's type as an attachment", c.format, ct, cd)
			}
			if c.format == "csv" && !bytes.Contains(file.raw, []byte("churn")) {
				t.Errorf("csv: got %s, want the model named", file.raw)
			}
			s.do("POST", "/export/exports/"+id+"/cancel", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		}
		list := s.do("GET", "/export/exports?status=completed", viewer, nil).want(t, 200)
		if list.at("total") != float64(2) {
			t.Errorf("got %s, want the two completed exports", list.raw)
		}
		waitFor(t, "the two exports counted completed", func() bool {
			n, _ := sum(s.scrape(t), "vigil_exports_total", map[string]string{"outcome": export.StatusCompleted})
			return n == 2
		})
		// A cancel races the runner: either it wins (cancelled, no file) or
		// the export is already completed (409).
		id := s.do("POST", "/export/exports", admin, body("html")).want(t, 202).str("export_id")
		if r := s.do("POST", "/export/exports/"+id+"/cancel", admin, nil); r.status == 200 {
			if r.str("status") != export.StatusCancelled || s.exportDone(t, viewer, id).str("status") != export.StatusCancelled {
				t.Errorf("got %s, want the export cancelled for good", r.raw)
			}
			s.do("GET", "/export/exports/"+id+"/download", viewer, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		} else {
			r.wantError(t, 409, "RESOURCE_CONFLICT")
		}
		bad := body("docx")
		s.do("POST", "/export/exports", admin, bad).wantField(t, "format")
		bad = body("csv")
		bad["end"] = today.AddDate(0, 0, -3).Format(time.DateOnly)
		s.do("POST", "/export/exports", admin, bad).wantField(t, "end")
		bad = body("csv")
		bad["model_ids"] = []string{}
		s.do("POST", "/export/exports", admin, bad).wantField(t, "model_ids")
		bad = body("csv")
		bad["model_ids"] = []string{"00000000-0000-7000-8000-000000000000"}
		s.do("POST", "/export/exports", admin, bad).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("POST", "/export/exports", viewer, body("csv")).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	})
}

// TestExportJobsAfterRestart: a job left in progress by a runner that
// stopped is taken over once stale and completed; one interrupted too
// often fails saying why.
func TestExportJobsAfterRestart(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "churn", "1")
		org := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		tpl, _ := export.Builtin(export.Builtins()[0].ID)
		stale := time.Now().Add(-export.Stale - time.Minute).UTC().Truncate(time.Microsecond)
		day := time.Now().UTC().Truncate(24 * time.Hour)
		job := func(attempts int) string {
			j := export.Job{ID: uuid.NewString(), OrgID: org, Template: tpl,
				Models: []report.Model{{ID: model, Name: "churn"}}, Format: report.FormatJSON, Start: day, End: day,
				Status: export.StatusInProgress, Progress: 10, Attempts: attempts, CreatedAt: stale, UpdatedAt: stale}
			if err := s.app.store.CreateExportJob(t.Context(), j); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}
		resumed, given := job(1), job(export.MaxAttempts)
		if r := s.exportDone(t, admin, resumed); r.str("status") != export.StatusCompleted {
			t.Errorf("got %s, want the stale export taken over and completed", r.raw)
		}
		if r := s.exportDone(t, admin, given); r.str("status") != export.StatusFailed || !strings.Contains(r.str("error"), "interrupted") {
			t.Errorf("got %s, want the export failed as interrupted too often", r.raw)
		}
	})
}

// TestExportRateLimit: report generation is limited per organization to
// the reports quota (10 an hour by default, E17): the 11th POST
// /export/exports in the hour answers 429 with Retry-After, refused
// requests counting too; another organization keeps its own quota, and
// the standard bucket is untouched.
func TestExportRateLimit(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		a, b := s.admin(), s.signUp("second")
		body := func(token, format string) map[string]any {
			model := s.model(token, "m-"+uuid.NewString()[:8], "1")
			return map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model}, "format": format,
				"start": "2026-01-01", "end": "2026-01-02"}
		}
		bad := body(a, "docx")
		for i := 1; i <= 10; i++ {
			r := s.do("POST", "/export/exports", a, bad).wantError(t, 422, "VALIDATION_ERROR")
			if got := r.header.Get("X-RateLimit-Limit"); got != "10" {
				t.Fatalf("request %d: got X-RateLimit-Limit %q, want 10", i, got)
			}
		}
		r := s.do("POST", "/export/exports", a, body(a, "csv")).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		if r.header.Get("Retry-After") == "" {
			t.Fatalf("got headers %v, want Retry-After", r.header)
		}
		s.do("POST", "/export/exports", b, body(b, "csv")).want(t, 202)
		s.do("GET", "/export/exports", a, nil).want(t, 200)
	})
}

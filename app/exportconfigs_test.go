package app

import (
	"testing"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/config"
)

// configBody is a valid body of POST /export/configs for model.
func configBody(model string) map[string]any {
	return map[string]any{"name": "weekly churn", "template_id": export.Builtins()[0].ID, "model_ids": []string{model},
		"format": "pdf", "date_range": "last_30_days", "sections": []string{"trust_score", "executive_summary"},
		"delivery": []map[string]any{{"method": "email", "recipients": []string{"audit@example.com"}}, {"method": "download"}}}
}

// TestExportConfigs: a configuration is created (sections put in report
// order), listed, read, replaced whole and deleted; bad input answers 422
// naming the field and stores nothing; a template or model not the
// organization's answers 404; a viewer reads but cannot write.
func TestExportConfigs(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		model := s.model(admin, "churn", "1")
		created := s.do("POST", "/export/configs", admin, configBody(model)).want(t, 201)
		id := created.str("id")
		if created.header.Get("Location") != "/api/v1/export/configs/"+id || created.str("date_range") != "last_30_days" {
			t.Fatalf("got %s with Location %q, want the configuration and its URL", created.raw, created.header.Get("Location"))
		}
		if got := created.at("sections").([]any); len(got) != 2 || got[0] != "executive_summary" || got[1] != "trust_score" {
			t.Errorf("got sections %v, want them in report order", got)
		}
		if got := s.do("GET", "/export/configs/"+id, viewer, nil).want(t, 200); string(got.raw) != string(created.raw) {
			t.Errorf("got %s, want %s", got.raw, created.raw)
		}
		body := configBody(model)
		body["date_range"], body["start"], body["end"], body["format"] = "custom", "2026-01-01", "2026-01-31", "excel"
		delete(body, "sections")
		delete(body, "delivery")
		put := s.do("PUT", "/export/configs/"+id, admin, body).want(t, 200)
		if put.str("start") != "2026-01-01" || put.str("format") != "excel" || put.at("sections") != nil ||
			len(put.at("delivery").([]any)) != 0 || put.str("created_at") != created.str("created_at") {
			t.Errorf("got %s, want the configuration replaced whole (custom period, template's sections, no delivery)", put.raw)
		}
		list := s.do("GET", "/export/configs", viewer, nil).want(t, 200)
		if list.at("total") != float64(1) || len(list.at("configs").([]any)) != 1 {
			t.Errorf("got %s, want the one configuration", list.raw)
		}

		for _, c := range []struct {
			field  string
			change func(map[string]any)
		}{
			{"name", func(b map[string]any) { b["name"] = "  " }},
			{"date_range", func(b map[string]any) { b["date_range"] = "last_year" }},
			{"start", func(b map[string]any) { b["date_range"] = "custom" }},
			{"start", func(b map[string]any) { b["start"] = "2026-01-01" }},
			{"end", func(b map[string]any) { b["date_range"], b["start"], b["end"] = "custom", "2026-02-01", "2026-01-01" }},
			{"format", func(b map[string]any) { b["format"] = "docx" }},
			{"sections", func(b map[string]any) { b["sections"] = []string{"no_such_section"} }},
			{"delivery[0].recipients", func(b map[string]any) { b["delivery"] = []map[string]any{{"method": "email"}} }},
			{"delivery[0].recipients[0]", func(b map[string]any) {
				b["delivery"] = []map[string]any{{"method": "email", "recipients": []string{"not an address"}}}
			}},
			{"delivery[0].recipients", func(b map[string]any) {
				b["delivery"] = []map[string]any{{"method": "s3", "recipients": []string{"a@example.com"}}}
			}},
			{"delivery[1].method", func(b map[string]any) {
				b["delivery"] = []map[string]any{{"method": "download"}, {"method": "download"}}
			}},
			{"delivery[0].method", func(b map[string]any) { b["delivery"] = []map[string]any{{"method": "fax"}} }},
			{"model_ids", func(b map[string]any) { b["model_ids"] = []string{} }},
		} {
			b := configBody(model)
			c.change(b)
			s.do("POST", "/export/configs", admin, b).wantField(t, c.field)
			s.do("PUT", "/export/configs/"+id, admin, b).wantField(t, c.field)
		}
		b := configBody(model)
		b["template_id"] = uuid.NewString()
		s.do("POST", "/export/configs", admin, b).wantError(t, 404, "NOT_FOUND")
		b = configBody(model)
		b["model_ids"] = []string{uuid.NewString()}
		s.do("POST", "/export/configs", admin, b).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("POST", "/export/configs", viewer, configBody(model)).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if got := s.do("GET", "/export/configs", admin, nil).want(t, 200).at("total"); got != float64(1) {
			t.Errorf("got %v configurations after the refused writes, want 1", got)
		}
		s.do("DELETE", "/export/configs/"+id, viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", "/export/configs/"+id, admin, nil).want(t, 204)
		s.do("GET", "/export/configs/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("PUT", "/export/configs/"+id, admin, configBody(model)).wantError(t, 404, "NOT_FOUND")
	})
}

// TestExportBulk: several exports in one call are queued each on its own
// (the bad ones answer by index), each counting against the report quota:
// with a quota of 3, the fourth valid export is refused by index and the
// next call is 429; a call whose exports all fail answers 422, or 404 when
// each names a missing model.
func TestExportBulk(t *testing.T) {
	eachPipelineWith(t, func(c *config.Config) { c.Limits.Reports = 3 }, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "churn", "1")
		item := func(format string) map[string]any {
			return map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model}, "format": format,
				"start": "2026-01-01", "end": "2026-01-02"}
		}
		missing := item("csv")
		missing["model_ids"] = []string{uuid.NewString()}
		s.do("POST", "/export/exports/bulk", admin, map[string]any{"exports": []any{missing}}).wantError(t, 404, "MODEL_NOT_FOUND")
		bad := s.do("POST", "/export/exports/bulk", admin, map[string]any{"exports": []any{item("docx"), missing}}).
			wantError(t, 422, "VALIDATION_ERROR")
		if errs, _ := bad.at("error.details.errors").([]any); len(errs) != 2 {
			t.Errorf("got %s, want both exports' errors", bad.raw)
		}
		s.do("POST", "/export/exports/bulk", admin, map[string]any{"exports": []any{}}).wantField(t, "exports")

		// The three calls above took 3 units... of a quota of 3; start a
		// fresh organization for the counted run.
		other := s.signUp("second")
		model = s.model(other, "churn", "1")
		r := s.do("POST", "/export/exports/bulk", other, map[string]any{"exports": []any{item("csv"), item("docx"), item("json"),
			item("markdown"), item("html")}}).want(t, 202)
		if r.at("total") != float64(5) || r.at("queued") != float64(3) || r.at("failed") != float64(2) {
			t.Fatalf("got %s, want 3 of 5 exports queued", r.raw)
		}
		errs := r.at("errors").([]any)
		first, second := errs[0].(map[string]any), errs[1].(map[string]any)
		if first["index"] != float64(1) || first["field"] != "format" || second["index"] != float64(4) || second["code"] != "RATE_LIMIT_EXCEEDED" {
			t.Errorf("got errors %v, want index 1's format and index 4 over the quota", errs)
		}
		for _, e := range r.at("exports").([]any) {
			id := e.(map[string]any)["export_id"].(string)
			if done := s.exportDone(t, other, id); done.str("status") != export.StatusCompleted {
				t.Errorf("got %s, want the export completed", done.raw)
			}
		}
		if got := s.do("GET", "/export/exports", other, nil).want(t, 200).at("total"); got != float64(3) {
			t.Errorf("got %v exports, want the 3 queued", got)
		}
		s.do("POST", "/export/exports/bulk", other, map[string]any{"exports": []any{item("csv")}}).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
	})
}

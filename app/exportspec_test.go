package app

import (
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/export"
)

// TestExportRequestSpecFields (issue 41, point 2; spec 1, "Export
// request"): date_from and date_to (YYYY-MM-DD) name the period, echoed on
// the export; start and end stay as aliases, and a bound sent under both
// names answers 422 naming the alias. Another organization's model is 404.
func TestExportRequestSpecFields(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin, other := s.admin(), s.signUp("exportother")
		model := s.model(admin, "churn", "1")
		body := func(fields ...string) map[string]any {
			b := map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model}, "format": "json"}
			for i := 0; i < len(fields); i += 2 {
				b[fields[i]] = fields[i+1]
			}
			return b
		}
		r := s.do("POST", "/export/exports", admin, body("date_from", "2026-10-01", "date_to", "2026-10-31")).want(t, 202)
		if r.str("date_from") != "2026-10-01" || r.str("date_to") != "2026-10-31" {
			t.Fatalf("got %s, want date_from 2026-10-01 and date_to 2026-10-31", r.raw)
		}
		if done := s.exportDone(t, admin, r.str("export_id")); done.str("status") != export.StatusCompleted {
			t.Fatalf("got %s, want the export completed", done.raw)
		}
		alias := s.do("POST", "/export/exports", admin, body("start", "2026-10-01", "end", "2026-10-02")).want(t, 202)
		if alias.str("date_from") != "2026-10-01" || alias.str("date_to") != "2026-10-02" {
			t.Errorf("got %s, want start and end taken as date_from and date_to", alias.raw)
		}
		for _, c := range []struct {
			fields []string
			field  string
		}{
			{[]string{"date_to", "2026-10-31"}, "date_from"},
			{[]string{"date_from", "2026-10-01"}, "date_to"},
			{[]string{"date_from", "2026-10-31", "date_to", "2026-10-01"}, "date_to"},
			{[]string{"date_from", "01/10/2026", "date_to", "2026-10-31"}, "date_from"},
			{[]string{"date_from", "2026-10-01", "start", "2026-10-01", "date_to", "2026-10-31"}, "start"},
		} {
			s.do("POST", "/export/exports", admin, body(c.fields...)).wantField(t, c.field)
		}
		s.do("POST", "/export/exports", other, body("date_from", "2026-10-01", "date_to", "2026-10-31")).
			wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

// TestExportTemplatePut (issue 41, point 2; spec 1 lists PUT
// /export/templates/{template_id}): a full replacement, validated as on
// create (a field left out is 422, a description left out is emptied);
// a built-in template 409, another organization's 404, a viewer 403.
func TestExportTemplatePut(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin, other := s.admin(), s.signUp("templateother")
		viewer := s.user(admin, "vivian", "viewer")
		id := s.do("POST", "/export/templates", admin, map[string]any{"name": "Board pack", "description": "monthly",
			"report_category": "compliance", "sections": []string{"trust_score"}}).want(t, 201).str("id")
		whole := map[string]any{"name": "Drift pack", "report_category": "drift_analysis", "sections": []string{"executive_summary", "drift_reports"}}
		r := s.do("PUT", "/export/templates/"+id, admin, whole).want(t, 200)
		if r.str("name") != "Drift pack" || r.str("description") != "" || r.str("report_category") != "drift_analysis" ||
			fmt.Sprint(r.at("sections")) != "[executive_summary drift_reports]" {
			t.Fatalf("got %s, want the template replaced whole", r.raw)
		}
		if got := s.do("GET", "/export/templates/"+id, admin, nil).want(t, 200); string(got.raw) != string(r.raw) {
			t.Errorf("got %s, want %s", got.raw, r.raw)
		}
		for _, field := range []string{"name", "report_category", "sections"} {
			partial := map[string]any{}
			for k, v := range whole {
				if k != field {
					partial[k] = v
				}
			}
			s.do("PUT", "/export/templates/"+id, admin, partial).wantField(t, field)
		}
		bad := map[string]any{"name": "x", "report_category": "custom", "sections": []string{"nope"}}
		s.do("PUT", "/export/templates/"+id, admin, bad).wantField(t, "sections")
		s.do("PUT", "/export/templates/"+export.Builtins()[0].ID, admin, whole).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("PUT", "/export/templates/"+id, other, whole).wantError(t, 404, "NOT_FOUND")
		s.do("PUT", "/export/templates/"+id, viewer, whole).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if got := s.do("GET", "/export/templates/"+id, admin, nil).want(t, 200); got.str("name") != "Drift pack" {
			t.Errorf("got %s, want the refused PUTs to change nothing", got.raw)
		}
	})
}

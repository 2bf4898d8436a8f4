package app

import (
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/export"
)

// TestExportTemplates: a viewer lists the built-in template of every
// report category of spec 1, filters them by category, and a category
// that does not exist answers 422 naming it.
func TestExportTemplates(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		r := s.do("GET", "/export/templates", viewer, nil).want(t, 200)
		ts, _ := r.at("templates").([]any)
		if len(ts) != len(export.Categories) || r.at("total") != float64(len(export.Categories)) {
			t.Fatalf("got %d templates of %v, want %d", len(ts), r.at("total"), len(export.Categories))
		}
		for i, v := range ts {
			tp, _ := v.(map[string]any)
			if tp["report_category"] != export.Categories[i] || tp["built_in"] != true || len(tp["sections"].([]any)) == 0 {
				t.Errorf("template %d: got %v, want the built-in %s template with its sections", i, tp, export.Categories[i])
			}
		}
		r = s.do("GET", "/export/templates?report_category=compliance&page_size=5", viewer, nil).want(t, 200)
		if ts, _ := r.at("templates").([]any); len(ts) != 1 || r.at("total") != float64(1) {
			t.Errorf("compliance: got %v, want its one template", r.at("templates"))
		}
		s.do("GET", "/export/templates?page=2&page_size=5", viewer, nil).want(t, 200)
		s.do("GET", "/export/templates?page_size=1000", viewer, nil).want(t, 200)
		s.do("GET", "/export/templates?report_category=reports", viewer, nil).wantField(t, "report_category")
		s.do("GET", "/reports", admin, nil).want(t, 404)
	})
}

// TestExportTemplateCRUD: an editor creates, reads, changes and deletes a
// template of the organization's own, listed after the built-ins; bad
// input answers 422 naming the field, a built-in template 409 on change,
// a viewer reads but does not write.
func TestExportTemplateCRUD(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		editor := s.user(admin, "eddie", "editor")
		viewer := s.user(admin, "vivian", "viewer")
		body := map[string]any{"name": "Board pack", "description": "monthly", "report_category": "compliance",
			"sections": []string{"trust_score", "executive_summary"}}
		r := s.do("POST", "/export/templates", editor, body).want(t, 201)
		id := r.str("id")
		if r.at("built_in") != false || r.str("name") != "Board pack" || fmt.Sprint(r.at("sections")) != "[executive_summary trust_score]" {
			t.Fatalf("got %s, want the template with its sections in report order", r.raw)
		}
		if got := s.do("GET", "/export/templates/"+id, viewer, nil).want(t, 200); string(got.raw) != string(r.raw) {
			t.Errorf("got %s, want %s", got.raw, r.raw)
		}
		list := s.do("GET", "/export/templates?report_category=compliance", viewer, nil).want(t, 200)
		if ts, _ := list.at("templates").([]any); len(ts) != 2 || list.at("total") != float64(2) || ts[1].(map[string]any)["id"] != id {
			t.Errorf("got %s, want the built-in compliance template, then the new one", list.raw)
		}
		last := s.do("GET", fmt.Sprintf("/export/templates?page=%d&page_size=1", len(export.Categories)+1), viewer, nil).want(t, 200)
		if ts, _ := last.at("templates").([]any); len(ts) != 1 || ts[0].(map[string]any)["id"] != id {
			t.Errorf("got %s, want the organization's template last", last.raw)
		}
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"report_category": "custom", "sections": []string{"trust_score"}}, "name"},
			{map[string]any{"name": " ", "report_category": "custom", "sections": []string{"trust_score"}}, "name"},
			{map[string]any{"name": "n", "report_category": "reports", "sections": []string{"trust_score"}}, "report_category"},
			{map[string]any{"name": "n", "report_category": "custom", "sections": []string{}}, "sections"},
			{map[string]any{"name": "n", "report_category": "custom", "sections": []string{"nope"}}, "sections"},
		} {
			s.do("POST", "/export/templates", editor, c.body).wantField(t, c.field)
		}
		s.do("PATCH", "/export/templates/"+id, editor, map[string]any{"sections": []string{"x"}}).wantField(t, "sections")
		r = s.do("PATCH", "/export/templates/"+id, editor, map[string]any{"name": "Renamed"}).want(t, 200)
		if r.str("name") != "Renamed" || r.str("description") != "monthly" || r.str("report_category") != "compliance" {
			t.Errorf("got %s, want only the name changed", r.raw)
		}
		builtin := export.Builtins()[0].ID
		s.do("PATCH", "/export/templates/"+builtin, editor, map[string]any{"name": "mine"}).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("DELETE", "/export/templates/"+builtin, editor, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("GET", "/export/templates/"+builtin, viewer, nil).want(t, 200)
		s.do("POST", "/export/templates", viewer, body).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", "/export/templates/"+id, viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", "/export/templates/"+id, editor, nil).want(t, 204)
		s.do("GET", "/export/templates/"+id, viewer, nil).wantError(t, 404, "NOT_FOUND")
		s.do("DELETE", "/export/templates/"+id, editor, nil).wantError(t, 404, "NOT_FOUND")
	})
}

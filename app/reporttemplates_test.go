package app

import (
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

package export_test

import (
	"slices"
	"testing"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/report"
)

// TestBuiltins: one valid built-in template per category, with fixed,
// distinct ids.
func TestBuiltins(t *testing.T) {
	bs := export.Builtins()
	if len(bs) != len(export.Categories) {
		t.Fatalf("got %d built-in templates, want %d", len(bs), len(export.Categories))
	}
	ids := map[string]bool{}
	for i, b := range bs {
		if b.ReportCategory != export.Categories[i] || !b.BuiltIn || ids[b.ID] {
			t.Errorf("template %d: got %+v, want the built-in of %s with an id of its own", i, b, export.Categories[i])
		}
		ids[b.ID] = true
		v := b
		if err := v.Validate(); err != nil || !slices.Equal(v.Sections, b.Sections) {
			t.Errorf("%s: got %v and sections %q, want valid and in report order", b.ReportCategory, err, v.Sections)
		}
		if got, ok := export.Builtin(b.ID); !ok || got.ReportCategory != b.ReportCategory {
			t.Errorf("Builtin(%s): got %+v %v, want the %s template", b.ID, got, ok, b.ReportCategory)
		}
	}
	perf, _ := export.Builtin(bs[0].ID)
	if got := perf.Charts(); len(got) != 4 {
		t.Errorf("model_performance charts: got %q, want the four charts of spec 1", got)
	}
}

func TestValidate(t *testing.T) {
	f := func(tp export.Template, field string) {
		t.Helper()
		err := tp.Validate()
		switch {
		case field == "" && err != nil:
			t.Errorf("%+v: got %v, want valid", tp, err)
		case field != "" && (err == nil || err.Details[field] == nil):
			t.Errorf("%+v: got %v, want a problem with %s", tp, err, field)
		}
	}
	ok := export.Template{Name: "n", ReportCategory: export.CategoryCustom, Sections: []string{report.SectionTrustScore, report.SectionSummary}}
	f(ok, "")
	bad := ok
	bad.Name = " "
	f(bad, "name")
	bad = ok
	bad.ReportCategory = "reports"
	f(bad, "report_category")
	bad = ok
	bad.Sections = nil
	f(bad, "sections")
	bad.Sections = []string{"x"}
	f(bad, "sections")
	bad.Sections = []string{report.SectionSummary, report.SectionSummary}
	f(bad, "sections")
	v := ok
	_ = v.Validate()
	if !slices.Equal(v.Sections, []string{report.SectionSummary, report.SectionTrustScore}) {
		t.Errorf("got sections %q, want them in report order", v.Sections)
	}
}

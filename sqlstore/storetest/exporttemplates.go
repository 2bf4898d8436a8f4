package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/store"
)

var exportTemplateTests = []test{
	{"ExportTemplates/Lifecycle", testExportTemplates},
}

// testExportTemplates: templates are stored as given, listed oldest first
// by category and page, updated and deleted; another organization's id
// is store.ErrNotFound for every operation.
func testExportTemplates(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	mk := func(orgID, name, category string, n int) export.Template {
		return export.Template{ID: newID(), OrgID: orgID, Name: name, Description: "d " + name, ReportCategory: category,
			Sections: []string{"executive_summary", "trust_score"}, CreatedAt: stored(at(n)), UpdatedAt: stored(at(n))}
	}
	t1, t2, t3 := mk(a.ID, "one", export.CategoryCustom, 3), mk(a.ID, "two", export.CategoryCompliance, 1), mk(a.ID, "three", export.CategoryCustom, 2)
	other := mk(b.ID, "theirs", export.CategoryCustom, 0)
	for _, tp := range []export.Template{t1, t2, t3, other} {
		must(t, s.CreateExportTemplate(ctx(t), tp), "CreateExportTemplate")
	}
	got, err := s.ExportTemplate(ctx(t), a.ID, t1.ID)
	must(t, err, "ExportTemplate")
	equal(t, "stored template", got, t1)
	list, total, err := s.ExportTemplates(ctx(t), a.ID, "", 0, 10)
	must(t, err, "ExportTemplates")
	equal(t, "templates oldest first", list, []export.Template{t2, t3, t1})
	equal(t, "total", total, int64(3))
	list, total, err = s.ExportTemplates(ctx(t), a.ID, export.CategoryCustom, 1, 1)
	must(t, err, "ExportTemplates")
	equal(t, "second custom template", list, []export.Template{t1})
	equal(t, "custom total", total, int64(2))

	t1.Name, t1.ReportCategory, t1.Sections, t1.UpdatedAt = "renamed", export.CategoryRiskRegister, []string{"risk_register"}, stored(at(9))
	must(t, s.UpdateExportTemplate(ctx(t), t1), "UpdateExportTemplate")
	got, err = s.ExportTemplate(ctx(t), a.ID, t1.ID)
	must(t, err, "ExportTemplate")
	equal(t, "updated template", got, t1)

	foreign := other
	foreign.OrgID = a.ID
	_, err = s.ExportTemplate(ctx(t), a.ID, other.ID)
	wantErr(t, err, store.ErrNotFound, "ExportTemplate of another organization")
	wantErr(t, s.UpdateExportTemplate(ctx(t), foreign), store.ErrNotFound, "UpdateExportTemplate of another organization")
	wantErr(t, s.DeleteExportTemplate(ctx(t), a.ID, other.ID), store.ErrNotFound, "DeleteExportTemplate of another organization")
	must(t, s.DeleteExportTemplate(ctx(t), a.ID, t1.ID), "DeleteExportTemplate")
	_, err = s.ExportTemplate(ctx(t), a.ID, t1.ID)
	wantErr(t, err, store.ErrNotFound, "ExportTemplate after delete")
	wantErr(t, s.DeleteExportTemplate(ctx(t), a.ID, t1.ID), store.ErrNotFound, "DeleteExportTemplate twice")
	got, err = s.ExportTemplate(ctx(t), b.ID, other.ID)
	must(t, err, "ExportTemplate of the other organization")
	equal(t, "other organization's template", got, other)
}

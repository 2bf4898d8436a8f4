package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/store"
)

var exportConfigTests = []test{
	{"ExportConfigs/Lifecycle", testExportConfigs},
}

// testExportConfigs: configurations are stored as given (settings
// included), listed oldest first by page, replaced and deleted; another
// organization's id is store.ErrNotFound for every operation.
func testExportConfigs(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	mk := func(orgID, name string, n int) export.Config {
		return export.Config{ID: newID(), OrgID: orgID, Name: name, Description: "d " + name, TemplateID: newID(),
			ModelIDs: []string{newID(), newID()}, Format: "pdf", DateRange: export.RangeLast30Days,
			Delivery:  []export.Delivery{{Method: export.DeliverEmail, Recipients: []string{"a@example.com"}}, {Method: export.DeliverDownload}},
			CreatedAt: stored(at(n)), UpdatedAt: stored(at(n))}
	}
	c1, c2 := mk(a.ID, "one", 2), mk(a.ID, "two", 1)
	c2.DateRange, c2.Start, c2.End, c2.Sections = export.RangeCustom, "2026-01-01", "2026-01-31", []string{"executive_summary"}
	other := mk(b.ID, "theirs", 0)
	for _, c := range []export.Config{c1, c2, other} {
		must(t, s.CreateExportConfig(ctx(t), c), "CreateExportConfig")
	}
	got, err := s.ExportConfig(ctx(t), a.ID, c2.ID)
	must(t, err, "ExportConfig")
	equal(t, "stored configuration", got, c2)
	list, total, err := s.ExportConfigs(ctx(t), a.ID, 0, 10)
	must(t, err, "ExportConfigs")
	equal(t, "configurations oldest first", list, []export.Config{c2, c1})
	equal(t, "total", total, int64(2))
	list, _, err = s.ExportConfigs(ctx(t), a.ID, 1, 1)
	must(t, err, "ExportConfigs")
	equal(t, "second page", list, []export.Config{c1})

	c1.Name, c1.Format, c1.Delivery, c1.UpdatedAt = "renamed", "excel", []export.Delivery{{Method: export.DeliverS3}}, stored(at(9))
	must(t, s.UpdateExportConfig(ctx(t), c1), "UpdateExportConfig")
	got, err = s.ExportConfig(ctx(t), a.ID, c1.ID)
	must(t, err, "ExportConfig")
	equal(t, "replaced configuration", got, c1)

	foreign := other
	foreign.OrgID = a.ID
	_, err = s.ExportConfig(ctx(t), a.ID, other.ID)
	wantErr(t, err, store.ErrNotFound, "ExportConfig of another organization")
	wantErr(t, s.UpdateExportConfig(ctx(t), foreign), store.ErrNotFound, "UpdateExportConfig of another organization")
	wantErr(t, s.DeleteExportConfig(ctx(t), a.ID, other.ID), store.ErrNotFound, "DeleteExportConfig of another organization")
	must(t, s.DeleteExportConfig(ctx(t), a.ID, c1.ID), "DeleteExportConfig")
	_, err = s.ExportConfig(ctx(t), a.ID, c1.ID)
	wantErr(t, err, store.ErrNotFound, "ExportConfig after delete")
	got, err = s.ExportConfig(ctx(t), b.ID, other.ID)
	must(t, err, "ExportConfig of the other organization")
	equal(t, "other organization's configuration", got, other)
}

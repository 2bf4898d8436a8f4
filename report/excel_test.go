package report_test

import (
	"archive/zip"
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/vigilhq/vigil/report"
)

// TestExcel reads the workbook back: the summary sheet first, a sheet per
// chart (with its native chart) and per table, numbers as numbers, text
// that starts a formula defused.
func TestExcel(t *testing.T) {
	var b bytes.Buffer
	if err := report.Render(&b, report.Build(fixture(), spec()), report.FormatExcel); err != nil {
		t.Fatal(err)
	}
	if dir := os.Getenv("VIGIL_REPORT_OUT"); dir != "" { // to open it by hand
		_ = os.WriteFile(dir+"/model_performance.xlsx", b.Bytes(), 0o644)
	}
	z, err := zip.NewReader(bytes.NewReader(b.Bytes()), int64(b.Len()))
	if err != nil {
		t.Fatalf("read the zip: %v", err)
	}
	charts := 0
	for _, e := range z.File {
		if strings.HasPrefix(e.Name, "xl/charts/chart") {
			charts++
		}
	}
	if charts != 4 {
		t.Errorf("got %d native charts, want 4", charts)
	}
	f, err := excelize.OpenReader(&b)
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	defer f.Close()
	want := []string{"Summary", "Prediction volume over time", "Accuracy trend", "Precision and recall", "Prediction distribution",
		"Daily metrics", "Alert history", "Top features by importance", "Drift reports", "Risk register", "Trust score"}
	if got := f.GetSheetList(); !slices.Equal(got, want) {
		t.Fatalf("sheets: got %q, want %q", got, want)
	}
	f2 := func(sheet, cell, want string, typ excelize.CellType) {
		t.Helper()
		got, err := f.GetCellValue(sheet, cell)
		gt, _ := f.GetCellType(sheet, cell)
		if err != nil || got != want || gt != typ {
			t.Errorf("%s!%s: got %q of type %v (%v), want %q of type %v", sheet, cell, got, gt, err, want, typ)
		}
	}
	f2("Daily metrics", "C2", "15", excelize.CellTypeUnset)
	f2("Daily metrics", "B3", `'=HYPERLINK("x")`, excelize.CellTypeSharedString)
	f2("Risk register", "A2", "'-1+1 bias in *scoring*", excelize.CellTypeSharedString)
	f2("Prediction volume over time", "B2", "15", excelize.CellTypeUnset)
}

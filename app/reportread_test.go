package app

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/platform/testenv"
)

// readWorkbook is what openpyxl, the reader most spreadsheet tooling in
// Python is built on, sees in a workbook: its sheets in order and, per
// sheet, its rows (dates and numbers as JSON values, openpyxl's type of
// each cell beside).
const readWorkbook = `
import json, sys, openpyxl
wb = openpyxl.load_workbook(sys.argv[1])
out = {"sheets": wb.sheetnames, "rows": {}}
for ws in wb.worksheets:
    out["rows"][ws.title] = [[[c.value if isinstance(c.value, (int, float, str, type(None))) else str(c.value), c.data_type]
        for c in row] for row in ws.iter_rows()]
json.dump(out, sys.stdout)
`

// TestReportsAsRead opens a generated report the way its reader would:
// the HTML in headless Chromium (its own CSP holds: no script error, no
// violation; the executive summary says how many predictions were logged
// and the volume chart, drawn as SVG, has today's bar) and the workbook
// through openpyxl (a sheet per section of the template with data, in
// order; the daily predictions as numbers summing to what was logged).
// The HTML's screenshot goes to export/testdata/evidence with -update.
// (The PDF is read through pdftoppm by TestReportBranding.)
func TestReportsAsRead(t *testing.T) {
	python := testenv.URL(t, testenv.ReportsPython)
	s := start(t, testConfig(t))
	admin := s.admin()
	model := s.model(admin, "churn", "1")
	for i := range 7 {
		s.do("POST", "/predictions/log", admin, map[string]any{"model_id": model, "input_data": map[string]any{"x": i},
			"output_data": map[string]any{"y": i % 2}, "latency_ms": 10 + i}).want(t, 201)
	}
	s.waitStored(t, admin, model, 7)
	today := time.Now().UTC()
	download := func(t *testing.T, format, ext string) string {
		t.Helper()
		id := s.do("POST", "/export/exports", admin, map[string]any{"template_id": export.Builtins()[0].ID, "model_ids": []string{model},
			"format": format, "start": today.AddDate(0, 0, -6).Format(time.DateOnly), "end": today.Format(time.DateOnly)}).want(t, 202).str("export_id")
		if r := s.exportDone(t, admin, id); r.str("status") != export.StatusCompleted {
			t.Fatalf("got %s, want the %s export completed", r.raw, format)
		}
		path := filepath.Join(t.TempDir(), "report."+ext)
		if err := os.WriteFile(path, s.do("GET", "/export/exports/"+id+"/download", admin, nil).want(t, 200).raw, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}

	t.Run("html in chromium", func(t *testing.T) {
		b := openBrowser(t, "")
		b.updated = filepath.Join("..", "export", "testdata", "evidence")
		b.run(chromedp.Navigate("file://"+download(t, "html", "html")), chromedp.WaitVisible(chromedp.CSS("h1")))
		if got, want := b.text("h1"), "Model performance"; got != want {
			t.Errorf("got the title %q, want %q", got, want)
		}
		if got := b.texts("dt + dd"); len(got) < 3 || got[2] != "7" {
			t.Errorf("got the summary's figures %q, want Predictions (the third) 7", got)
		}
		bar := "churn " + today.Format("01-02") + ": 7"
		if got := b.texts(`svg[aria-label="Prediction volume over time"] title`); !slices.Contains(got, bar) {
			t.Errorf("got the volume chart's bars %q, want one %q", got, bar)
		}
		b.shot("report-html")
		b.checkProblems()
	})

	t.Run("workbook in openpyxl", func(t *testing.T) {
		out, err := exec.Command(python, "-c", readWorkbook, download(t, "excel", "xlsx")).Output()
		if err != nil {
			t.Fatalf("openpyxl could not read the workbook: %v", err)
		}
		var wb struct {
			Sheets []string
			Rows   map[string][][][2]any
		}
		if err := json.Unmarshal(out, &wb); err != nil {
			t.Fatalf("got %s: %v", out, err)
		}
		want := []string{"Summary", "Prediction volume over time", "Prediction distribution", "Daily metrics"} // the template's sections
		if !slices.Equal(wb.Sheets, want) {
			t.Fatalf("got the sheets %q, want %q", wb.Sheets, want)
		}
		daily := wb.Rows["Daily metrics"]
		if len(daily) < 2 || daily[0][2][0] != "predictions" {
			t.Fatalf("got the daily metrics %v, want a header with predictions third", daily)
		}
		total := 0.0
		for _, row := range daily[1:] {
			v, typ := row[2][0], row[2][1]
			if n, ok := v.(float64); ok && typ == "n" {
				total += n
			} else if v != nil {
				t.Errorf("got the daily predictions cell %v of type %v, want a number", v, typ)
			}
		}
		if total != 7 {
			t.Errorf("got %v daily predictions in the workbook, want the 7 logged", total)
		}
	})
}

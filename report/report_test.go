package report_test

import (
	"bytes"
	"encoding/csv"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/report"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func ptr(v float64) *float64 { return &v }

// fixture is a week of two models with every kind of data, one model's
// name a formula and a table cell with markup, so that every renderer's
// escaping shows in its golden file.
func fixture() report.Data {
	day := func(i int) time.Time { return time.Date(2026, 11, 1+i, 0, 0, 0, 0, time.UTC) }
	q := report.Request{OrgID: "org", Models: []report.Model{{ID: "m1", Name: "churn"}, {ID: "m2", Name: "=HYPERLINK(\"x\")"}},
		From: day(0), To: day(6)}
	d := report.Data{Request: q, Days: q.Days(), Stats: map[string][]analytics.PredictionStats{},
		Metrics: map[string]map[string][]*float64{}, Trust: map[string]trust.Snapshot{}, Missing: map[string]bool{}}
	for mi, m := range q.Models {
		st := make([]analytics.PredictionStats, 7)
		acc, prec, rec := make([]*float64, 7), make([]*float64, 7), make([]*float64, 7)
		for i := range st {
			od := analytics.OutputDistribution{}
			od.Add(analytics.Label{Field: "label", Value: "yes"}, int64(10*(i+1)))
			od.Add(analytics.Label{Field: "label", Value: "no"}, int64(5*(mi+1)))
			st[i] = analytics.PredictionStats{TotalPredictions: int64(10*(i+1) + 5*(mi+1)), AvgLatencyMS: ptr(12.5 + float64(i)), P95LatencyMS: ptr(40), Outputs: od}
			if i != 3 {
				acc[i] = ptr(0.95 - 0.02*float64(i) - 0.01*float64(mi))
				prec[i], rec[i] = ptr(0.9-0.01*float64(i)), ptr(0.8+0.01*float64(i))
			}
		}
		d.Stats[m.ID] = st
		d.Metrics[m.ID] = map[string][]*float64{report.MetricAccuracy: acc, report.MetricPrecision: prec, report.MetricRecall: rec}
	}
	d.Drift = []drift.Report{{ID: "d1", ModelID: "m1", DriftType: drift.TypeData, WindowStart: day(2), WindowEnd: day(3),
		DriftDetected: true, OverallDriftScore: 0.5, Severity: drift.High, CreatedAt: day(3).Add(time.Hour),
		Features: map[string]drift.ReportFeature{"age": {FeatureResult: drift.FeatureResult{DriftDetected: true}}}}}
	resolved := day(5)
	d.Alerts = []alerts.Instance{
		{ID: "a1", ModelID: "m1", RuleName: "latency | p95 > 30", AlertType: "latency", Severity: "high", Status: alerts.StatusOpen, Count: 3, TriggeredAt: day(4)},
		{ID: "a2", ModelID: "m2", RuleName: "<b>volume</b>", AlertType: "volume", Severity: "low", Status: alerts.StatusResolved, Count: 1, TriggeredAt: day(1), ResolvedAt: &resolved},
	}
	d.Risks = []risk.Entry{{ID: "r1", Title: "-1+1 bias in *scoring*", Category: "bias", Likelihood: 4, Impact: 4, Score: 16, Severity: "high", Status: risk.StatusIdentified, SourceType: "bias_audit"}}
	d.Trust["m1"] = trust.Snapshot{ModelID: "m1", Seq: 2, At: day(6), Result: trust.Result{Score: ptr(55.5), Components: trust.Components{Fairness: ptr(0.7), Drift: ptr(0.4)}}}
	d.Weights = map[string][]map[string]float64{"m1": {{"income": -0.5, "age": 0.25}, {"income": 0.3, "=tenure": 0.1}}}
	return d
}

func spec() report.Spec {
	return report.Spec{Title: "Model performance, November", Category: "model_performance",
		GeneratedAt: time.Date(2026, 11, 8, 9, 30, 0, 0, time.UTC), Brand: report.Brand{Primary: "#0f766e"}}
}

// golden compares got with testdata/name, or rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: got\n%s\nwant the golden file (go test ./report -run %s -update rewrites it)", name, got, t.Name())
	}
}

func TestRenderGolden(t *testing.T) {
	r := report.Build(fixture(), spec())
	for _, f := range report.Formats {
		if f == report.FormatExcel || f == report.FormatPDF { // binary: read back in TestExcel and TestPDF
			continue
		}
		var b bytes.Buffer
		if err := report.Render(&b, r, f); err != nil {
			t.Fatalf("render %s: %v", f, err)
		}
		golden(t, "model_performance."+f, b.Bytes())
	}
}

// TestCSVRoundTrip: the CSV reads back as RFC 4180 of fixed width, every
// line ended by CRLF, every formula-leading text cell defused and every
// number left a number.
func TestCSVRoundTrip(t *testing.T) {
	var b bytes.Buffer
	if err := report.Render(&b, report.Build(fixture(), spec()), report.FormatCSV); err != nil {
		t.Fatal(err)
	}
	if lf, crlf := bytes.Count(b.Bytes(), []byte("\n")), bytes.Count(b.Bytes(), []byte("\r\n")); lf == 0 || lf != crlf {
		t.Errorf("got %d line feeds of which %d after a carriage return, want every line ended by CRLF", lf, crlf)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("read back: %v", err)
	}
	if got := strings.Join(rows[0], ","); got != strings.Join(report.CSVColumns, ",") {
		t.Fatalf("header: got %s, want %v", got, report.CSVColumns)
	}
	sawName, sawRisk := false, false
	for _, row := range rows[1:] {
		for _, cell := range row {
			if cell != "" && strings.ContainsRune("=+@\t\r", rune(cell[0])) {
				t.Errorf("row %q: got a cell starting with %q, want it defused", row, cell[0])
			}
		}
		sawName = sawName || row[2] == `'=HYPERLINK("x")` || row[4] == `'=HYPERLINK("x")`
		sawRisk = sawRisk || row[4] == "'-1+1 bias in *scoring*"
	}
	if !sawName || !sawRisk {
		t.Errorf("got defused name %v, defused risk title %v, want both", sawName, sawRisk)
	}
}

// TestEmptySections: a period without data marks every data section
// empty with its reason and invents nothing.
func TestEmptySections(t *testing.T) {
	q := report.Request{OrgID: "org", Models: []report.Model{{ID: "m1", Name: "churn"}},
		From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), To: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}
	d := report.Data{Request: q, Days: q.Days(), Stats: map[string][]analytics.PredictionStats{"m1": make([]analytics.PredictionStats, 2)},
		Metrics: map[string]map[string][]*float64{"m1": {}}, Trust: map[string]trust.Snapshot{}, Missing: map[string]bool{}}
	r := report.Build(d, spec())
	for _, s := range r.Sections {
		want := s.ID != report.SectionSummary && s.ID != report.SectionRecommendation
		if s.Empty != want || s.Empty && s.Note == "" || s.Empty && (s.Chart != nil || s.Table != nil) {
			t.Errorf("section %s: got empty %v note %q chart %v table %v, want empty %v with a reason and nothing else",
				s.ID, s.Empty, s.Note, s.Chart != nil, s.Table != nil, want)
		}
	}
	if got := r.Sections[1].Lines; len(got) != 1 || !strings.HasPrefix(got[0], "No predictions") {
		t.Errorf("recommendations: got %q, want the no-predictions rule alone", got)
	}
}

// TestSectionsChosen: a template's sections are laid out in report order
// whatever order it names them in.
func TestSectionsChosen(t *testing.T) {
	s := spec()
	s.Sections = []string{report.SectionTrustScore, report.SectionSummary}
	r := report.Build(fixture(), s)
	if len(r.Sections) != 2 || r.Sections[0].ID != report.SectionSummary || r.Sections[1].ID != report.SectionTrustScore {
		t.Errorf("got %d sections %v, want executive_summary then trust_score", len(r.Sections), r.Sections)
	}
}

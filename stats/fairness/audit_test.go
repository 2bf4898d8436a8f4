package fairness

import (
	"math"
	"strings"
	"testing"
)

// TestNoLabels: metrics that need y_true are not computed, never 0.
func TestNoLabels(t *testing.T) {
	rep := audited(t, func(in *Input) { in.Truth = nil },
		cellsSpec{group: "f", tn: 60, fp: 40}, cellsSpec{group: "m", tn: 50, fp: 50})
	for _, m := range []Metric{EqualOpportunity, EqualizedOdds} {
		r := resultOf(t, rep, m)
		if r.Computed || !strings.Contains(r.Reason, "y_true") || r.Difference != nil {
			t.Errorf("%s: got computed %v, reason %q, difference %v; want not computed for want of y_true", m, r.Computed, r.Reason, r.Difference)
		}
	}
	if g := rep.Attributes[0].Groups[0]; g.TPR.Defined() || g.Positives != 0 || g.SelectionRate != (Rate{40, 100}) {
		t.Errorf("group without labels: got %+v, want selection 40/100 and undefined TPR", g)
	}
	if got := resultOf(t, rep, DisparateImpact); !got.Computed || got.Value != 0.8 || !got.Passed {
		t.Errorf("disparate impact: got %v %v %v, want 0.8 passed", got.Computed, got.Value, got.Passed)
	}
	last := rep.Recommendations[len(rep.Recommendations)-1]
	if want := "supply y_true (ground-truth labels) to compute equal_opportunity and equalized_odds"; last != want {
		t.Errorf("recommendation: got %q, want %q", last, want)
	}
	if rep.Metrics[1].Computed || rep.Metrics[1].Passed || rep.Metrics[1].Reason == "" {
		t.Errorf("summary of equal_opportunity: got %+v, want not computed with a reason", rep.Metrics[1])
	}
}

// TestGroupWithoutPositives: Vigil leaves the group out of the TPR
// comparison; UndefinedAsZero counts its TPR as 0, as fairlearn does.
func TestGroupWithoutPositives(t *testing.T) {
	specs := []cellsSpec{{group: "a", tn: 10, fp: 0, fn: 2, tp: 8}, {group: "b", tn: 10, fn: 3, tp: 7}, {group: "c", tn: 18, fp: 2}}
	f := func(asZero bool, value float64, cCompared bool) {
		t.Helper()
		rep := audited(t, func(in *Input) { in.UndefinedAsZero = asZero }, specs...)
		r := resultOf(t, rep, EqualOpportunity)
		if !r.Computed || math.Abs(r.Value-value) > 1e-15 || r.Groups[2].Compared != cCompared {
			t.Errorf("asZero %v: got value %v, c compared %v; want %v, %v", asZero, r.Value, r.Groups[2].Compared, value, cCompared)
		}
	}
	f(false, 0.1, false)
	f(true, 0.8, true)
}

func TestOneGroupWithRate(t *testing.T) {
	rep := audited(t, nil, cellsSpec{group: "a", tn: 5, tp: 5}, cellsSpec{group: "b", tn: 10})
	r := resultOf(t, rep, EqualOpportunity)
	if r.Computed || r.Reason != "needs two groups with a true positive rate, got 1" {
		t.Errorf("got computed %v, reason %q", r.Computed, r.Reason)
	}
	if !strings.Contains(strings.Join(rep.Recommendations, "\n"), "equal_opportunity not computed for attribute 'a': needs two groups") {
		t.Errorf("recommendations: got %q, want the reason", rep.Recommendations)
	}
}

func TestNobodySelected(t *testing.T) {
	rep := audited(t, nil, cellsSpec{group: "a", tn: 5, fn: 5}, cellsSpec{group: "b", tn: 4, fn: 6})
	r := resultOf(t, rep, DemographicParity)
	if r.Computed || r.Ratio != nil || r.Difference == nil || *r.Difference != 0 || !strings.Contains(r.Reason, "0/0") {
		t.Errorf("got computed %v, ratio %v, difference %v, reason %q", r.Computed, r.Ratio, r.Difference, r.Reason)
	}
	if eo := resultOf(t, rep, EqualOpportunity); !eo.Computed || eo.Value != 0 || !eo.Passed {
		t.Errorf("equal opportunity: got %+v, want computed 0", eo)
	}
}

// TestExactThresholds: an impact of exactly 0.8 passes, an opportunity
// difference of exactly 0.1 fails, with rates that are not exact in binary.
func TestExactThresholds(t *testing.T) {
	// Selection rates 0.28 and 0.35: ratio 0.8.
	rep := audited(t, nil,
		cellsSpec{group: "a", tn: 62, fp: 10, fn: 10, tp: 18},
		cellsSpec{group: "b", tn: 47, fp: 11, fn: 18, tp: 24},
	)
	a, b := rep.Attributes[0].Groups[0], rep.Attributes[0].Groups[1]
	if a.SelectionRate.Value() != 0.28 || b.SelectionRate.Value() != 0.35 {
		t.Fatalf("selection rates: got %v, %v, want 0.28, 0.35", a.SelectionRate.Value(), b.SelectionRate.Value())
	}
	di := resultOf(t, rep, DisparateImpact)
	if di.Value != 0.8 || !di.Passed || di.Score != 0.8 || di.Severity != SeverityNone {
		t.Errorf("disparate impact: got %.17g passed %v score %v %s, want 0.8 passed 0.8 none", di.Value, di.Passed, di.Score, di.Severity)
	}
	// TPRs 0.7 and 0.6: difference 0.1.
	rep = audited(t, nil,
		cellsSpec{group: "a", tn: 10, fn: 3, tp: 7},
		cellsSpec{group: "b", tn: 10, fn: 4, tp: 6},
	)
	eo := resultOf(t, rep, EqualOpportunity)
	if eo.Value != 0.1 || eo.Passed || eo.Score >= 0.8 || eo.Severity != SeverityLow {
		t.Errorf("equal opportunity: got %.17g passed %v score %v %s, want 0.1 failed below 0.8 low", eo.Value, eo.Passed, eo.Score, eo.Severity)
	}
	if !rep.BiasDetected || rep.Band != BandFair {
		t.Errorf("report: got bias %v band %s, want true fair", rep.BiasDetected, rep.Band)
	}
}

// TestReference compares groups with a reference group, both ways.
func TestReference(t *testing.T) {
	specs := []cellsSpec{
		{group: "asian", tn: 30, fp: 10, fn: 10, tp: 50}, // selection 0.60
		{group: "black", tn: 60, fp: 5, fn: 10, tp: 25},  // selection 0.30
		{group: "white", tn: 40, fp: 10, fn: 10, tp: 40}, // selection 0.50
	}
	rep := audited(t, func(in *Input) { in.Reference = map[string]string{"a": "white"} }, specs...)
	dp := resultOf(t, rep, DemographicParity)
	if dp.Reference != "white" || dp.Worst != "black" || dp.Versus != "white" || math.Abs(dp.Value-0.6) > 1e-15 || dp.Passed {
		t.Errorf("parity: got %s vs %s = %v passed %v", dp.Worst, dp.Versus, dp.Value, dp.Passed)
	}
	if g := dp.Groups[0]; g.Gap != 1.2 || !g.Passed {
		t.Errorf("asian: got gap %.17g passed %v, want 1.2 passed (inclusive)", g.Gap, g.Passed)
	}
	if g := dp.Groups[2]; g.Compared {
		t.Errorf("reference group: got compared, want the baseline")
	}
	if *dp.Ratio != 0.5 {
		t.Errorf("between-groups ratio: got %v, want 0.3/0.6 = 0.5", *dp.Ratio)
	}
	// A group selected far more than the reference fails parity but not impact.
	specs[0] = cellsSpec{group: "asian", tn: 20, fp: 10, fn: 0, tp: 70} // selection 0.80: 1.6
	specs[1] = cellsSpec{group: "black", tn: 50, fp: 10, fn: 0, tp: 40} // selection 0.50: 1.0
	rep = audited(t, func(in *Input) { in.Reference = map[string]string{"a": "white"} }, specs...)
	dp, di := resultOf(t, rep, DemographicParity), resultOf(t, rep, DisparateImpact)
	if dp.Worst != "asian" || dp.Value != 1.6 || dp.Passed || dp.Severity != SeverityHigh {
		t.Errorf("parity: got %s %v passed %v %s, want asian 1.6 failed high (miss 3)", dp.Worst, dp.Value, dp.Passed, dp.Severity)
	}
	if di.Value != 1 || !di.Passed {
		t.Errorf("impact: got %v passed %v, want 1 passed", di.Value, di.Passed)
	}
	want := "group 'asian' of attribute 'a' has selection rate 0.80 vs 0.50 for reference 'white': demographic parity ratio 1.60 outside [0.8, 1.2]"
	if !strings.HasPrefix(rep.Recommendations[0], want) {
		t.Errorf("recommendation: got %q, want it to start %q", rep.Recommendations[0], want)
	}
}

func TestReferenceNotUsable(t *testing.T) {
	f := func(ref string, specs []cellsSpec, m Metric, reason string) {
		t.Helper()
		rep := audited(t, func(in *Input) { in.Reference = map[string]string{"a": ref} }, specs...)
		r := resultOf(t, rep, m)
		if r.Computed || r.Reason != reason {
			t.Errorf("reference %q %s: got computed %v, reason %q, want %q", ref, m, r.Computed, r.Reason, reason)
		}
	}
	two := []cellsSpec{{group: "x", tn: 5, tp: 5}, {group: "y", tn: 10}}
	f("z", two, DisparateImpact, `reference group "z" has no rows, so its selection rate is undefined`)
	f("y", two, EqualOpportunity, `reference group "y" has no favourable labels, so its true positive rate is undefined`)
	f("y", two, DisparateImpact, `reference group "y" has selection rate 0, so ratios to it are undefined`)
	f("x", []cellsSpec{{group: "x", tn: 5, tp: 5}}, DemographicParity, `no group besides the reference "x" has a selection rate`)
	rep := audited(t, func(in *Input) { in.Reference = map[string]string{"a": "z"} }, two...)
	if g := rep.Attributes[0].Groups; len(g) != 3 || g[2].Name != "z" || g[2].Count != 0 {
		t.Errorf("groups: got %+v, want x, y and an empty z", g)
	}
}

// TestMissingValues: left out and counted, or a group of their own.
func TestMissingValues(t *testing.T) {
	v, p, l := rowsOf(cellsSpec{group: "f", tn: 5, fp: 5}, cellsSpec{group: "", tn: 1, fp: 3}, cellsSpec{group: "m", tn: 4, fp: 6})
	in := Input{Attributes: []Attribute{{Name: "g", Values: v}}, Pred: p, Truth: l}
	rep, err := Audit(in)
	if err != nil {
		t.Fatal(err)
	}
	ar := rep.Attributes[0]
	if ar.Missing != 4 || len(ar.Groups) != 2 || rep.Rows != 24 || rep.Overall.Count != 24 || rep.Overall.Selected != 14 {
		t.Errorf("left out: got missing %d, %d groups, rows %d, overall %d/%d", ar.Missing, len(ar.Groups), rep.Rows, rep.Overall.Selected, rep.Overall.Count)
	}
	if want := "attribute 'g' is missing for 4 of 24 rows (16.7%), which the audit left out"; !strings.Contains(strings.Join(rep.Recommendations, "\n"), want) {
		t.Errorf("recommendations: got %q, want %q", rep.Recommendations, want)
	}
	in.MissingGroup = "unknown"
	rep, err = Audit(in)
	if err != nil {
		t.Fatal(err)
	}
	ar = rep.Attributes[0]
	if ar.Missing != 0 || len(ar.Groups) != 3 || ar.Groups[2].Name != "unknown" || ar.Groups[2].Count != 4 {
		t.Errorf("as a group: got missing %d, groups %+v", ar.Missing, ar.Groups)
	}
	in.MissingGroup = "f"
	_, err = Audit(in)
	wantInvalid(t, err, `missing-value group "f"`)
}

// TestEncodedForm: the Levels/Codes form gives the same report as strings,
// and an unused level is a group of no rows that is never compared.
func TestEncodedForm(t *testing.T) {
	v, p, l := rowsOf(cellsSpec{group: "m", tn: 5, fp: 5, fn: 1, tp: 9}, cellsSpec{group: "", tp: 2}, cellsSpec{group: "f", tn: 7, fp: 3, fn: 4, tp: 6})
	levels := []string{"unused", "m", "f"}
	codes := make([]int32, len(v))
	for i, s := range v {
		codes[i] = map[string]int32{"": -1, "m": 1, "f": 2}[s]
	}
	a, err := Audit(Input{Attributes: []Attribute{{Name: "g", Values: v}}, Pred: p, Truth: l})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Audit(Input{Attributes: []Attribute{{Name: "g", Levels: levels, Codes: codes}}, Pred: p, Truth: l})
	if err != nil {
		t.Fatal(err)
	}
	bg := b.Attributes[0].Groups
	if len(bg) != 3 || bg[2].Name != "unused" || bg[2].Count != 0 {
		t.Fatalf("encoded groups: got %+v, want f, m, unused (0 rows)", bg)
	}
	if a.Attributes[0].Groups[0] != bg[0] || a.Attributes[0].Groups[1] != bg[1] || a.Attributes[0].Missing != b.Attributes[0].Missing {
		t.Errorf("groups differ: got %+v, want %+v", bg[:2], a.Attributes[0].Groups)
	}
	for k, r := range b.Attributes[0].Results {
		if r.Groups[2].Compared || r.Value != a.Attributes[0].Results[k].Value {
			t.Errorf("%s: got %v (unused compared %v), want %v", r.Metric, r.Value, r.Groups[2].Compared, a.Attributes[0].Results[k].Value)
		}
	}
	codes[3] = 3
	_, err = Audit(Input{Attributes: []Attribute{{Name: "g", Levels: levels, Codes: codes}}, Pred: p, Truth: l})
	wantInvalid(t, err, "code 3 at row 3", "below 3 levels")
}

func TestSeveralAttributes(t *testing.T) {
	v, p, l := rowsOf(cellsSpec{group: "x", tn: 50, fp: 50}, cellsSpec{group: "y", tn: 70, fp: 30})
	other := make([]string, len(v))
	for i := range other {
		other[i] = []string{"p", "q"}[i%2]
	}
	rep, err := Audit(Input{Attributes: []Attribute{{Name: "first", Values: v}, {Name: "second", Values: other}}, Pred: p, Truth: l, Metrics: []Metric{DisparateImpact}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Attributes) != 2 || len(rep.Metrics) != 1 || len(rep.Attributes[1].Results) != 1 {
		t.Fatalf("got %d attributes, %d summaries", len(rep.Attributes), len(rep.Metrics))
	}
	s := rep.Metrics[0]
	if s.Attribute != "first" || s.Value != 0.6 || s.Passed || s.Severity != SeverityMedium || rep.Score != s.Score || rep.Severity != SeverityMedium {
		t.Errorf("summary: got %+v, score %v", s, rep.Score)
	}
	if rep.Attributes[1].Results[0].Value != 1 {
		t.Errorf("second attribute: got %v, want 1 (rows alternate)", rep.Attributes[1].Results[0].Value)
	}
}

func TestPerfectParity(t *testing.T) {
	spec := cellsSpec{tn: 7, fp: 3, fn: 2, tp: 8}
	x, y, z := spec, spec, spec
	x.group, y.group, z.group = "x", "y", "z"
	rep := audited(t, nil, x, y, z)
	if !rep.Scored || rep.Score != 1 || rep.Band != BandExcellent || rep.BiasDetected || rep.Severity != SeverityNone {
		t.Errorf("got score %v %s bias %v %s, want 1 excellent none", rep.Score, rep.Band, rep.BiasDetected, rep.Severity)
	}
	for _, r := range rep.Attributes[0].Results {
		if !r.Passed || *r.Difference != 0 || *r.Ratio != 1 {
			t.Errorf("%s: got passed %v difference %v ratio %v", r.Metric, r.Passed, *r.Difference, *r.Ratio)
		}
	}
	// Only notes: three groups of 20 rows are small.
	if len(rep.Recommendations) != 3 {
		t.Errorf("recommendations: got %q, want three small-group notes", rep.Recommendations)
	}
}

func TestGroupOfOne(t *testing.T) {
	rep := audited(t, nil, cellsSpec{group: "big", tn: 60, fp: 20, fn: 4, tp: 16}, cellsSpec{group: "solo", fn: 1})
	di := resultOf(t, rep, DisparateImpact)
	if di.Value != 0 || di.Worst != "solo" || di.Severity != SeverityCritical {
		t.Errorf("impact: got %v %s %s, want 0 solo critical", di.Value, di.Worst, di.Severity)
	}
	if !strings.Contains(strings.Join(rep.Recommendations, "\n"), "group 'solo' of attribute 'a' has only 1 row (under 30)") {
		t.Errorf("recommendations: got %q", rep.Recommendations)
	}
}

func TestAuditInvalid(t *testing.T) {
	v := []string{"a", "b"}
	p := []bool{true, false}
	ok := []Attribute{{Name: "g", Values: v}}
	f := func(in Input, fragments ...string) {
		t.Helper()
		_, err := Audit(in)
		wantInvalid(t, err, fragments...)
	}
	f(Input{Attributes: ok}, "no predictions")
	f(Input{Attributes: ok, Pred: p, Truth: []bool{true}}, "y_true: got 1 labels, want 2")
	f(Input{Pred: p}, "no protected attributes")
	f(Input{Attributes: []Attribute{{Values: v}}, Pred: p}, "no name")
	f(Input{Attributes: []Attribute{{Name: "g"}}, Pred: p}, `"g": no values`)
	f(Input{Attributes: []Attribute{{Name: "g", Values: v[:1]}}, Pred: p}, "got 1 values, want 2")
	f(Input{Attributes: []Attribute{{Name: "g", Values: v, Codes: []int32{0, 0}}}, Pred: p}, "want one form")
	f(Input{Attributes: []Attribute{{Name: "g", Levels: []string{"a", "a"}, Codes: []int32{0, 1}}}, Pred: p}, `level "a" twice`)
	f(Input{Attributes: []Attribute{{Name: "g", Levels: []string{""}, Codes: []int32{0, 0}}}, Pred: p}, "empty level")
	f(Input{Attributes: append(ok, ok...), Pred: p}, `"g" twice`)
	f(Input{Attributes: ok, Pred: p, Reference: map[string]string{"h": "x"}}, `"h", which is not an audited attribute`)
	f(Input{Attributes: ok, Pred: p, Metrics: []Metric{"accuracy"}}, `metric "accuracy"`)
	f(Input{Attributes: ok, Pred: p, Metrics: []Metric{DisparateImpact, DisparateImpact}}, "twice")
	f(Input{Attributes: ok, Pred: p, Thresholds: Thresholds{ImpactMin: 2}}, "disparate impact minimum: got 2")
}

func TestReportString(t *testing.T) {
	rep := audited(t, nil, cellsSpec{group: "x", tn: 50, fp: 50}, cellsSpec{group: "y", tn: 70, fp: 30})
	if got, want := rep.String(), "fairness audit of 200 rows: score 0.60 (poor), severity medium"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (Report{Rows: 3}).String(); got != "fairness audit of 3 rows: no metric computed" {
		t.Errorf("unscored: got %q", got)
	}
}

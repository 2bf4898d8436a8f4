package bias

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/vigilhq/vigil/stats/fairness"
)

// audit runs fairness.Audit on in, failing the test on error.
func audit(t *testing.T, in fairness.Input) fairness.Report {
	t.Helper()
	rep, err := fairness.Audit(in)
	if err != nil {
		t.Fatalf("fairness.Audit: got error %v, want nil", err)
	}
	return rep
}

func TestNewResultShape(t *testing.T) {
	in := fairness.Input{
		Attributes: []fairness.Attribute{{Name: "gender", Values: []string{"f", "f", "f", "f", "m", "m", "m", "m", ""}},
			{Name: "band", Values: []string{"a", "b", "a", "b", "a", "b", "a", "b", "a"}}},
		Pred: []bool{true, false, false, false, true, true, true, false, true},
	}
	rep := audit(t, in)
	r := NewResult(rep)
	if len(r.Results) != 4 {
		t.Fatalf("got %d results, want one per metric (4)", len(r.Results))
	}
	for _, s := range rep.Metrics {
		m := r.Results[string(s.Metric)]
		if m.Passed != s.Passed || m.Threshold != s.Threshold || m.Computed != s.Computed || m.Reason != s.Reason {
			t.Errorf("%s: got %+v, want the summary %+v", s.Metric, m, s)
		}
		if s.Computed && (m.Score == nil || *m.Score != s.Score || *m.Value != s.Value) {
			t.Errorf("%s: got score %v value %v, want %v and %v", s.Metric, m.Score, m.Value, s.Score, s.Value)
		}
		if !s.Computed && (m.Score != nil || m.Value != nil || m.Passed) {
			t.Errorf("%s not computed: got score %v value %v passed %v, want null, null, false", s.Metric, m.Score, m.Value, m.Passed)
		}
		if len(m.Groups) != 2 || len(m.Groups["gender"]) != 2 || len(m.Groups["band"]) != 2 {
			t.Errorf("%s: got groups %+v, want gender's and band's two groups", s.Metric, m.Groups)
		}
	}
	if r.Results["equal_opportunity"].Computed || r.Labelled {
		t.Errorf("without y_true: got equal_opportunity computed %v, labelled %v, want false, false",
			r.Results["equal_opportunity"].Computed, r.Labelled)
	}
	di := r.Results["disparate_impact"]
	if g := di.Groups["gender"][0]; g.Group != "f" || g.Rate == nil || *g.Rate != 0.25 || g.Measure != "selection_rate" {
		t.Errorf("disparate impact of f: got %+v, want selection rate 0.25", g)
	}
	if *r.Score != rep.Score || r.Band != fairness.BandOf(rep.Score) || r.BiasDetected != rep.BiasDetected || r.Severity != rep.Severity.String() {
		t.Errorf("got score %v band %v bias %v severity %v, want %v %v %v %v", *r.Score, r.Band, r.BiasDetected, r.Severity,
			rep.Score, rep.Band, rep.BiasDetected, rep.Severity)
	}
	if a := r.Attributes[0]; a.Name != "gender" || a.Missing != 1 || a.Groups[1].Count != 4 || *a.Groups[1].SelectionRate != 0.75 {
		t.Errorf("got gender %+v, want 1 missing and m with 4 rows at 0.75", a)
	}
	// A result reads back from JSON as written: it is stored that way.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(back, r) {
		t.Errorf("JSON round trip: got %+v (%v), want %+v", back, err, r)
	}
}

func TestNewResultBands(t *testing.T) {
	// One attribute, two groups of 10: the favourable counts set the
	// disparate impact ratio, whose score (1 − (1 − r)/0.2 · 0.2 = r) sets the band.
	f := func(selectedB int, band fairness.Band, bias bool, severity string) {
		t.Helper()
		values, pred := make([]string, 20), make([]bool, 20)
		for i := range 20 {
			values[i] = map[bool]string{true: "a", false: "b"}[i < 10]
			pred[i] = i < 10 || i-10 < selectedB
		}
		r := NewResult(audit(t, fairness.Input{Attributes: []fairness.Attribute{{Name: "g", Values: values}}, Pred: pred,
			Metrics: []fairness.Metric{fairness.DisparateImpact}}))
		if r.Band != band || r.BiasDetected != bias || r.Severity != severity {
			t.Errorf("b selected %d/10: got band %q, bias %v, severity %s, want %q, %v, %s (score %v)",
				selectedB, r.Band, r.BiasDetected, r.Severity, band, bias, severity, *r.Score)
		}
	}
	f(10, fairness.BandExcellent, false, "none")
	f(9, fairness.BandExcellent, false, "none")
	f(8, fairness.BandGood, false, "none")
	f(7, fairness.BandFair, true, "low")
	f(6, fairness.BandPoor, true, "medium")
	f(5, fairness.BandCritical, true, "high")
	f(3, fairness.BandCritical, true, "critical")
}

func TestOutcome(t *testing.T) {
	f := func(v, fav any, want, wantErr bool) {
		t.Helper()
		got, err := Outcome(v, fav)
		if got != want || (err != nil) != wantErr {
			t.Errorf("Outcome(%v, %v): got %v, %v, want %v, error %v", v, fav, got, err, want, wantErr)
		}
	}
	f(1.0, nil, true, false)
	f(true, nil, true, false)
	f(0.0, nil, false, false)
	f(false, nil, false, false)
	f(2.0, nil, false, true)
	f("1", nil, false, true)
	f(nil, nil, false, true)
	f("approve", "approve", true, false)
	f("deny", "approve", false, false)
	f(2.0, 2.0, true, false)
	f("2", 2.0, false, false)
}

// TestResultStoredBefore: a result stored before score was put on the
// threshold's scale reads back with its score as fairness_score and its
// value as score, compared as its metric is.
func TestResultStoredBefore(t *testing.T) {
	var r Result
	old := `{"results":{"equal_opportunity":{"passed":false,"score":0.6,"threshold":0.1,"value":0.2,"computed":true},
		"demographic_parity":{"passed":true,"score":null,"threshold":0.8,"value":null,"computed":false}}}`
	if err := json.Unmarshal([]byte(old), &r); err != nil {
		t.Fatal(err)
	}
	eo, dp := r.Results["equal_opportunity"], r.Results["demographic_parity"]
	if *eo.Score != 0.2 || *eo.FairnessScore != 0.6 || eo.Comparison != Below || eo.ThresholdMax != nil {
		t.Errorf("equal_opportunity: got %+v, want score 0.2, fairness_score 0.6, below", eo)
	}
	if dp.Score != nil || dp.FairnessScore != nil || dp.Comparison != Within || *dp.ThresholdMax != 1.2 {
		t.Errorf("demographic_parity: got %+v, want no scores, within up to 1.2", dp)
	}
	again, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(again, &back); err != nil || *back.Results["equal_opportunity"].Score != 0.2 {
		t.Errorf("got %s read back as %+v (%v), want it unchanged", again, back, err)
	}
}

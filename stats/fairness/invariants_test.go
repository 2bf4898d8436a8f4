package fairness

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestInvariants audits many small random inputs (tiny and empty groups,
// missing values, references, with and without labels) and checks what
// must always hold: the report marshals to JSON (no NaN or Inf), a result
// passes exactly when it scores 0.80 or more, bias is detected exactly when
// the overall score is below 0.80, and the overall score and severity are
// the worst of the results'.
func TestInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	labels := []string{"", "a", "b", "c", "d"}
	for run := range 3000 {
		n := 1 + r.IntN(40)
		vals, pred, truth := make([]string, n), make([]bool, n), make([]bool, n)
		k := 1 + r.IntN(len(labels)-1)
		for i := range n {
			vals[i] = labels[r.IntN(k+1)]
			pred[i], truth[i] = r.IntN(3) == 0, r.IntN(2) == 0
		}
		in := Input{Attributes: []Attribute{{Name: "x", Values: vals}}, Pred: pred, Truth: truth, UndefinedAsZero: run%3 == 0}
		if run%2 == 0 {
			in.Truth = nil
		}
		if run%5 == 0 {
			in.Reference = map[string]string{"x": labels[1+r.IntN(len(labels)-1)]}
		}
		if run%7 == 0 {
			in.MissingGroup = "missing"
		}
		rep, err := Audit(in)
		if err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if _, err := json.Marshal(rep); err != nil {
			t.Fatalf("run %d: json: %v", run, err)
		}
		worst, sev, scored := 1.0, SeverityNone, false
		for _, res := range rep.Attributes[0].Results {
			if !res.Computed {
				if res.Reason == "" {
					t.Fatalf("run %d: %s not computed without a reason", run, res.Metric)
				}
				continue
			}
			if res.Passed != (res.Score >= 0.8) || res.Passed != (res.Severity == SeverityNone) {
				t.Fatalf("run %d: %s: passed %v, score %v, severity %s", run, res.Metric, res.Passed, res.Score, res.Severity)
			}
			worst, sev, scored = min(worst, res.Score), max(sev, res.Severity), true
		}
		if rep.Scored != scored || (scored && (rep.Score != worst || rep.BiasDetected != (rep.Score < 0.8) || rep.Severity != sev)) {
			t.Fatalf("run %d: got scored %v score %v bias %v %s, want %v %v %s", run, rep.Scored, rep.Score, rep.BiasDetected, rep.Severity, scored, worst, sev)
		}
	}
}

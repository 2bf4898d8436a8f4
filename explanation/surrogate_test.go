package explanation

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
)

// logged builds n logged predictions (newest first) of out(a, b), with a
// text field, and every seventh one unusable (no prediction).
func logged(n int, out func(a, b float64) any) []LoggedPrediction {
	var ps []LoggedPrediction
	for i := range n {
		a, b := float64(i%9), float64(i%4)-1
		in, _ := json.Marshal(map[string]any{"a": a, "b": b, "city": "Lyon"})
		o := map[string]any{"prediction": out(a, b)}
		if i%7 == 6 {
			o = map[string]any{"label": 1}
		}
		raw, _ := json.Marshal(o)
		ps = append(ps, LoggedPrediction{Input: in, Output: raw})
	}
	return ps
}

func TestFitSurrogate(t *testing.T) {
	f := func(name string, ps []LoggedPrediction, wantUsable int, wantMetric string, check func(s *Surrogate)) {
		t.Helper()
		s, usable := FitSurrogate(ps)
		if usable != wantUsable {
			t.Errorf("%s: got %d usable rows, want %d", name, usable, wantUsable)
		}
		if wantMetric == "" {
			if s != nil {
				t.Errorf("%s: got a surrogate from %d rows, want none under %d", name, usable, MinSurrogateRows)
			}
			return
		}
		if s == nil {
			t.Fatalf("%s: got no surrogate, want one", name)
		}
		if s.Fidelity.Metric != wantMetric || s.Fidelity.TrainRows+s.Fidelity.HoldoutRows != usable {
			t.Errorf("%s: got fidelity %+v, want %s over %d rows", name, s.Fidelity, wantMetric, usable)
		}
		if got := fmt.Sprint(s.Artifact.Features); got != "[a b]" {
			t.Errorf("%s: got features %s, want [a b] (the text field left out)", name, got)
		}
		check(s)
	}
	linear := func(a, b float64) any { return 2*a - 0.5*b + 3 }
	f("too few", logged(56, linear), 48, "", nil)
	f("linear", logged(70, linear), 60, "r2", func(s *Surrogate) {
		c := s.Artifact.Coefficients
		if math.Abs(c[0]-2) > 1e-9 || math.Abs(c[1]+0.5) > 1e-9 || math.Abs(s.Artifact.Intercept-3) > 1e-9 {
			t.Errorf("got %v + %v, want [2 -0.5] + 3", c, s.Artifact.Intercept)
		}
		if math.Abs(s.Fidelity.Value-1) > 1e-9 || s.Fidelity.HoldoutRows != 12 {
			t.Errorf("got fidelity %+v, want r2 1 on 12 held-out rows", s.Fidelity)
		}
	})
	f("binary", logged(70, func(a, b float64) any { return a > 4 }), 60, "accuracy", func(s *Surrogate) {
		if s.Fidelity.Value < 0.75 || s.Fidelity.Value > 1 {
			t.Errorf("got accuracy %v, want a threshold on a to be mostly right", s.Fidelity.Value)
		}
	})
}

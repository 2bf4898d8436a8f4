package explanation

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vigilhq/vigil/explanation/artifact"
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

// random builds n logged predictions (newest first) of out(x1, x2, x3)
// on uniform inputs from a fixed seed.
func random(n int, out func(x1, x2, x3 float64) any) []LoggedPrediction {
	r := rand.New(rand.NewPCG(16, 1))
	var ps []LoggedPrediction
	for range n {
		x1, x2, x3 := r.Float64(), r.Float64(), r.Float64()
		in, _ := json.Marshal(map[string]any{"x1": x1, "x2": x2, "x3": x3})
		o, _ := json.Marshal(map[string]any{"prediction": out(x1, x2, x3)})
		ps = append(ps, LoggedPrediction{Input: in, Output: o})
	}
	return ps
}

// TestSurrogateKind: a tree and a linear model are fitted on the same
// rows and the higher held-out fidelity wins: the tree for a logged
// model that is a rule on two features (accuracy above 0.9, the linear
// one's lower) and for a step in a number (r2), the linear one for a
// linear model. A tree surrogate is explained exactly by TreeSHAP
// (interventional on its training rows), its values adding up to its
// output.
func TestSurrogateKind(t *testing.T) {
	f := func(name string, ps []LoggedPrediction, wantKind, wantMetric string, wantAbove float64) *Surrogate {
		t.Helper()
		s, _ := FitSurrogate(ps)
		if s == nil {
			t.Fatalf("%s: got no surrogate", name)
		}
		c := s.Choice
		other := SurrogateLinear
		if wantKind == SurrogateLinear {
			other = SurrogateTree
		}
		if c.Kind != wantKind || s.Fidelity.Metric != wantMetric || s.Fidelity.Value <= wantAbove ||
			c.Fidelities[wantKind] != s.Fidelity.Value || !(c.Fidelities[other] < s.Fidelity.Value) {
			t.Errorf("%s: got %+v with fidelity %+v, want %s winning with %s above %v", name, c, s.Fidelity, wantKind, wantMetric, wantAbove)
		}
		if s.Fidelity.TrainRows != 1600 || s.Fidelity.HoldoutRows != 400 {
			t.Errorf("%s: got %d training and %d held-out rows, want 1600 and 400", name, s.Fidelity.TrainRows, s.Fidelity.HoldoutRows)
		}
		return s
	}
	rule := f("rule", random(2000, func(x1, x2, _ float64) any { return x1 > 0.5 && x2 < 0.3 }), SurrogateTree, "accuracy", 0.9)
	f("step", random(2000, func(x1, _, x3 float64) any {
		if x1 > 0.5 {
			return 10 + x3
		}
		return x3
	}), SurrogateTree, "r2", 0.95)
	f("linear", random(2000, func(x1, x2, x3 float64) any { return 3*x1 - x2 + 0.5*x3 + 2 }), SurrogateLinear, "r2", 1-1e-9)

	a := &rule.Artifact
	if a.Kind != artifact.KindTree || a.NumTrees != 1 || a.MaxDepth > surrogateDepth {
		t.Fatalf("got artifact %+v, want one tree of depth at most %d", a, surrogateDepth)
	}
	req := Request{Instance: map[string]any{"x1": 0.9, "x2": 0.1, "x3": 0.5}}
	p, err := rule.plan(req, RequestSHAP, []fallback{{source: BackgroundLogged, rows: func() ([]map[string]any, error) {
		return rule.background, nil
	}}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Compute(p.row, p.algorithm, p.background, artifact.Sampling{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.BaseValue
	for _, w := range res.FeatureWeights {
		sum += w.Weight
	}
	if res.Method != artifact.MethodTreeSHAP || res.Perturbation != "interventional" || res.Approximation != artifact.Exact ||
		math.Abs(sum-res.Output) > 1e-9 || res.Output < 0.9 {
		t.Errorf("got %+v, want exact interventional TreeSHAP adding up to an output near 1", res)
	}
	if w := res.FeatureWeights; len(w) != 3 || (w[0].Feature != "x1" && w[0].Feature != "x2") {
		t.Errorf("got weights %+v, want x1 or x2 first", w)
	}
}

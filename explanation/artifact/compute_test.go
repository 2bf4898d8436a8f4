package artifact_test

import (
	"math"
	"os"
	"testing"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/web"
)

// weights maps a result's feature weights by name.
func weights(r artifact.Result) map[string]float64 {
	m := map[string]float64{}
	for _, w := range r.FeatureWeights {
		m[w.Feature] = w.Weight
	}
	return m
}

// field returns the one field a 422 names, or "".
func field(err error) string {
	e := web.AsError(err)
	if e == nil || e.Status != 422 {
		return ""
	}
	for k := range e.Details {
		return k
	}
	return ""
}

// TestComputeAgrees checks the methods against each other on uploaded
// artifacts: Kernel SHAP over every coalition equals linear SHAP on a
// linear model and interventional TreeSHAP on an XGBoost model (same
// background) to 1e-9; every result adds up.
func TestComputeAgrees(t *testing.T) {
	bg := [][]float64{{0, 1, 2, -1, 0.5}, {1, -1, 0, 2, -0.5}, {-2, 0.5, 1, 0, 1}, {0.3, 0.3, -1, 1, 0}}
	x := []float64{0.7, -0.2, 1.5, 0.1, -1}
	lin := artifact.Artifact{Kind: artifact.KindLinear, Features: []string{"a", "b", "c", "d", "e"},
		Coefficients: []float64{1, -2, 0.5, 0, 3}, Intercept: 0.25, Link: "logit", NumFeatures: 5}
	content, err := os.ReadFile("../../stats/forest/testdata/models/xgb_reg.json")
	if err != nil {
		t.Fatal(err)
	}
	tree := artifact.Artifact{Kind: artifact.KindXGBoost, Content: string(content), Features: lin.Features, NumFeatures: 5, Link: "identity"}
	f := func(name string, a artifact.Artifact, exact, kernel string) {
		t.Helper()
		want, err := a.Compute(x, exact, bg, artifact.Sampling{Seed: 1})
		if err != nil {
			t.Fatalf("%s %s: %v", name, exact, err)
		}
		got, err := a.Compute(x, kernel, bg, artifact.Sampling{Seed: 1})
		if err != nil {
			t.Fatalf("%s %s: %v", name, kernel, err)
		}
		if got.Approximation != artifact.Exact || math.Abs(got.BaseValue-want.BaseValue) > 1e-9 {
			t.Errorf("%s: got %s base %v, want exact base %v", name, got.Approximation, got.BaseValue, want.BaseValue)
		}
		gw, ww := weights(got), weights(want)
		for k, w := range ww {
			if math.Abs(gw[k]-w) > 1e-9 {
				t.Errorf("%s feature %s: got %v, want %v", name, k, gw[k], w)
			}
		}
		for _, r := range []artifact.Result{got, want} {
			s := r.BaseValue
			for _, w := range r.FeatureWeights {
				s += w.Weight
			}
			if math.Abs(s-r.Output) > 1e-9 {
				t.Errorf("%s %s: base + weights = %v, output %v", name, r.Method, s, r.Output)
			}
		}
	}
	f("linear", lin, artifact.MethodLinearSHAP, artifact.MethodKernelSHAP)
	f("xgboost", tree, artifact.MethodTreeSHAP, artifact.MethodKernelSHAP)

	path, err := tree.Compute(x, artifact.MethodTreeSHAP, nil, artifact.Sampling{})
	if err != nil || path.Perturbation != "tree_path_dependent" {
		t.Errorf("got %v %v, want a path-dependent result", path.Perturbation, err)
	}
	l, err := lin.Compute(x, artifact.MethodLIME, bg, artifact.Sampling{Seed: 1})
	if err != nil || l.Approximation != artifact.Approximate || len(l.FeatureWeights) != 5 {
		t.Errorf("lime: got %+v %v, want an approximate result over 5 features", l, err)
	}
}

// TestComputeRefuses checks the 422s: a method that does not apply, a
// missing background, unknown and non-numeric instance values, a linear
// model's missing value.
func TestComputeRefuses(t *testing.T) {
	lin := artifact.Artifact{Kind: artifact.KindLinear, Features: []string{"a", "b"},
		Coefficients: []float64{1, 2}, Link: "identity", NumFeatures: 2}
	x := []float64{1, 2}
	_, err := lin.Compute(x, artifact.MethodTreeSHAP, nil, artifact.Sampling{})
	if got := field(err); got != "method" {
		t.Errorf("tree_shap on a linear model: got %v, want 422 method", err)
	}
	_, err = lin.Compute(x, artifact.MethodLinearSHAP, nil, artifact.Sampling{})
	if got := field(err); got != "background" {
		t.Errorf("linear_shap without background: got %v, want 422 background", err)
	}
	for _, tc := range []struct {
		instance map[string]any
		want     string
	}{
		{map[string]any{"a": 1.0, "b": 2.0, "zz": 1.0}, "instance.zz"},
		{map[string]any{"a": "1", "b": 2.0}, "instance.a"},
		{map[string]any{"a": 1.0}, "instance.b"},
	} {
		_, err := lin.Instance(tc.instance)
		if got := field(err); got != tc.want {
			t.Errorf("instance %v: got %v, want 422 %s", tc.instance, err, tc.want)
		}
	}
	row, err := lin.Instance(map[string]any{"b": 2.0, "a": 1.0})
	if err != nil || row[0] != 1 || row[1] != 2 {
		t.Errorf("got %v %v, want [1 2]", row, err)
	}
}

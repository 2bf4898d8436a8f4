package artifact

import (
	"math"
	"os"
	"testing"
	"time"

	"github.com/vigilhq/vigil/stats/lime"
)

// TestLimeSampleShared: the LIME explanations of an uploaded tree file
// with one seed share one sample and its model outputs (only the first
// labels 5,000 rows), each equal to lime fitted on the sample drawn for
// its instance with that seed; another seed or a new upload draws anew,
// and a linear artifact draws per explanation, the same numbers for the
// same seed.
func TestLimeSampleShared(t *testing.T) {
	content, err := os.ReadFile("../../stats/forest/testdata/models/xgb_reg.json")
	if err != nil {
		t.Fatal(err)
	}
	features := []string{"a", "b", "c", "d", "e"}
	tree := Artifact{OrgID: "o", ModelID: "m", Kind: KindXGBoost, Content: string(content), Features: features, NumFeatures: 5,
		Link: "identity", UploadedAt: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	bg := [][]float64{{0, 1, 2, -1, 0.5}, {1, -1, 0, 2, -0.5}, {-2, 0.5, 1, 0, 1}, {0.3, 0.3, -1, 1, 0}}
	x, y := []float64{0.7, -0.2, 1.5, 0.1, -1}, []float64{-1, 0.4, 0.2, 1.2, 0.3}

	// explain returns the result and how many rows its model labelled
	// for the sample.
	explain := func(a *Artifact, row []float64, seed uint64) (Result, int64) {
		t.Helper()
		var labelled int64
		rep := &Reporter{Report: func(p Progress) {
			if p.Unit == ProgressRows {
				labelled = p.Done
			}
		}}
		r, err := a.ComputeReporting(row, MethodLIME, bg, Sampling{Seed: seed}, rep)
		if err != nil {
			t.Fatal(err)
		}
		return r, labelled
	}
	same := func(what string, got, want Result) {
		t.Helper()
		if len(got.FeatureWeights) != len(want.FeatureWeights) || math.Abs(got.BaseValue-want.BaseValue) > 1e-12 {
			t.Fatalf("%s: got base %v, %d weights, want %v, %d", what, got.BaseValue, len(got.FeatureWeights), want.BaseValue, len(want.FeatureWeights))
		}
		for i, w := range want.FeatureWeights {
			if g := got.FeatureWeights[i]; g.Feature != w.Feature || math.Abs(g.Weight-w.Weight) > 1e-12 {
				t.Fatalf("%s: got weight %d %+v, want %+v", what, i, g, w)
			}
		}
	}

	first, n := explain(&tree, x, 1)
	if n != DefaultNumSamples {
		t.Fatalf("first explanation: got %d rows labelled, want %d", n, DefaultNumSamples)
	}
	second, n := explain(&tree, y, 1)
	if n != 0 {
		t.Fatalf("second explanation of the file: got %d rows labelled, want 0 (the sample shared)", n)
	}
	again, _ := explain(&tree, x, 1)
	same("x again, the same seed", again, first)
	if other, n := explain(&tree, x, 2); n != DefaultNumSamples || other.BaseValue == first.BaseValue {
		t.Errorf("another seed: got %d rows labelled, intercept %v, want %d and another sample", n, other.BaseValue, DefaultNumSamples)
	}

	// Each equals lime on the sample drawn for its own instance.
	mean, scale, err := limeScale(bg, 5)
	if err != nil {
		t.Fatal(err)
	}
	e, err := tree.parsedEnsemble()
	if err != nil {
		t.Fatal(err)
	}
	model := func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		e.RawRows(rows, out)
		return out, nil
	}
	for _, c := range []struct {
		row []float64
		got Result
	}{{x, first}, {y, second}} {
		rows, scaled, err := lime.Sample(c.row, mean, scale, DefaultNumSamples, false, 1)
		if err != nil {
			t.Fatal(err)
		}
		labels, err := model(rows)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := lime.Explain(lime.Input{Scaled: scaled, Labels: labels, Selection: "none"})
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(ex.Intercept-c.got.BaseValue) > 1e-12 {
			t.Errorf("got intercept %v, want lime's on the sample, %v", c.got.BaseValue, ex.Intercept)
		}
		for _, w := range ex.Weights {
			if g := weightOf(c.got, features[w.Feature]); math.Abs(g-w.Weight) > 1e-12 {
				t.Errorf("feature %s: got %v, want lime's on the sample, %v", features[w.Feature], g, w.Weight)
			}
		}
	}

	reloaded := tree
	reloaded.UploadedAt = reloaded.UploadedAt.Add(time.Minute)
	if _, n := explain(&reloaded, x, 1); n != DefaultNumSamples {
		t.Errorf("a new upload: got %d rows labelled, want %d (drawn anew)", n, DefaultNumSamples)
	}
	lin := Artifact{OrgID: "o", ModelID: "l", Kind: KindLinear, Features: features, Coefficients: []float64{1, -2, 0.5, 0, 3},
		Link: "identity", NumFeatures: 5}
	a, _ := explain(&lin, x, 1)
	b, n := explain(&lin, x, 2)
	if n != DefaultNumSamples || math.Abs(a.BaseValue-b.BaseValue) == 0 {
		t.Errorf("linear artifact: got %d rows labelled and intercepts %v, %v, want %d and a sample per seed", n, a.BaseValue, b.BaseValue, DefaultNumSamples)
	}
	c, n := explain(&lin, x, 1)
	same("linear artifact, the same seed", c, a)
	if n != DefaultNumSamples {
		t.Errorf("linear artifact: got %d rows labelled, want %d (drawn per explanation)", n, DefaultNumSamples)
	}
}

func weightOf(r Result, feature string) float64 {
	for _, w := range r.FeatureWeights {
		if w.Feature == feature {
			return w.Weight
		}
	}
	return math.NaN()
}

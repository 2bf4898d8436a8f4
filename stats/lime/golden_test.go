package lime_test

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/vigilhq/vigil/stats/lime"
)

// golden is testdata/golden.json, written by stats/shap/testdata/generate.py
// from lime 0.2.0.1: each case's perturbation sample as lime drew it, and
// lime's explanation.
type golden struct {
	Cases []struct {
		Name        string       `json:"name"`
		KernelWidth float64      `json:"kernel_width"`
		NumFeatures int          `json:"num_features"`
		Scaled      [][]float64  `json:"scaled"`
		Labels      []float64    `json:"labels"`
		Intercept   float64      `json:"intercept"`
		Weights     [][2]float64 `json:"weights"`
		Score       float64      `json:"score"`
		LocalPred   float64      `json:"local_pred"`
	} `json:"cases"`
}

// near reports whether got is within tol of want, relative above 1.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// TestExplainMatchesLime checks intercept, weights (and their order),
// score and local prediction against lime's LimeTabularExplainer given the
// same sample, with continuous and quartile-discretized features and with
// both feature selections of "auto" (forward selection up to 6 features,
// highest weights above: here 2, 3 and all 5).
func TestExplainMatchesLime(t *testing.T) {
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Cases) != 4 {
		t.Fatalf("got %d cases, want 4", len(g.Cases))
	}
	for _, c := range g.Cases {
		ex, err := lime.Explain(lime.Input{Scaled: c.Scaled, Labels: c.Labels, KernelWidth: c.KernelWidth,
			NumFeatures: c.NumFeatures})
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		if !near(ex.Intercept, c.Intercept, 1e-9) {
			t.Errorf("%s intercept: got %v, want %v", c.Name, ex.Intercept, c.Intercept)
		}
		if !near(ex.Score, c.Score, 1e-9) {
			t.Errorf("%s score: got %v, want %v", c.Name, ex.Score, c.Score)
		}
		if !near(ex.LocalPred, c.LocalPred, 1e-9) {
			t.Errorf("%s local prediction: got %v, want %v", c.Name, ex.LocalPred, c.LocalPred)
		}
		if len(ex.Weights) != len(c.Weights) {
			t.Fatalf("%s: got %d weights, want %d", c.Name, len(ex.Weights), len(c.Weights))
		}
		for i, w := range c.Weights {
			got := ex.Weights[i]
			if got.Feature != int(w[0]) || !near(got.Weight, w[1], 1e-9) {
				t.Errorf("%s weight %d: got feature %d %v, want feature %v %v", c.Name, i, got.Feature, got.Weight, w[0], w[1])
			}
		}
	}
}

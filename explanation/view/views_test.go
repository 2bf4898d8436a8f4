package view

import (
	"encoding/json"
	"math"
	"os"
	"testing"
)

// TestViewsGolden: global importance (mean |SHAP|), Spearman's rank
// correlation and the cosine similarity of shap's values of the xgb_bin
// model's rows equal numpy's and scipy's (testdata/views.py) to 1e-12.
func TestViewsGolden(t *testing.T) {
	b, err := os.ReadFile("testdata/views.json")
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Features   []string
		Values     [][]float64
		Importance map[string]struct {
			MeanAbs float64 `json:"mean_abs"`
			Mean    float64 `json:"mean"`
		}
		Pairs []struct {
			A, B     int
			Spearman *float64
			Cosine   float64
		}
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	rows := make([]map[string]float64, len(g.Values))
	for i, v := range g.Values {
		rows[i] = map[string]float64{}
		for j, f := range g.Features {
			rows[i][f] = v[j]
		}
	}
	near := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	imp := GlobalImportance(rows)
	for i, r := range imp {
		want := g.Importance[r.Feature]
		near("mean_abs "+r.Feature, r.MeanAbs, want.MeanAbs)
		near("mean "+r.Feature, r.Mean, want.Mean)
		if r.Count != len(rows) {
			t.Errorf("%s: got %d explanations, want %d", r.Feature, r.Count, len(rows))
		}
		if i > 0 && imp[i-1].MeanAbs < r.MeanAbs {
			t.Errorf("got %s before %s, want larger mean |weight| first", imp[i-1].Feature, r.Feature)
		}
	}
	for _, p := range g.Pairs {
		x, y := g.Values[p.A], g.Values[p.B]
		rho := Spearman(x, y)
		if (rho == nil) != (p.Spearman == nil) || (rho != nil && math.Abs(*rho-*p.Spearman) > 1e-12) {
			t.Errorf("spearman rows %d, %d: got %v, want %v", p.A, p.B, rho, p.Spearman)
		}
		near("cosine", *Cosine(x, y), p.Cosine)
	}
}

// TestAgree: ties share their rank, a constant vector has no rank
// correlation, the top-k overlap and sign agreement count features.
func TestAgree(t *testing.T) {
	if r := Spearman([]float64{1, 2, 2, 3}, []float64{1, 2, 2, 3}); r == nil || math.Abs(*r-1) > 1e-12 {
		t.Errorf("spearman of a vector with ties and itself: got %v, want 1", r)
	}
	if r := Spearman([]float64{1, 1}, []float64{1, 2}); r != nil {
		t.Errorf("spearman of a constant vector: got %v, want nil", *r)
	}
	g := Agree(map[string]float64{"a": 3, "b": -2, "c": 0.1}, map[string]float64{"a": 1, "b": 2, "d": 0.5})
	if g.K != 4 || g.TopKOverlap != 0.5 || g.SignAgreement != 0.25 {
		t.Errorf("got k %d, overlap %v, signs %v, want 4, 0.5, 0.25", g.K, g.TopKOverlap, g.SignAgreement)
	}
	if d := Distance(map[string]any{"a": 1.0, "b": 2.0, "c": nil}, map[string]any{"a": 4.0, "b": 6.0, "c": 1.0}); d == nil || *d != 5 {
		t.Errorf("distance: got %v, want 5", d)
	}
}

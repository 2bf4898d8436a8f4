package shap_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vigilhq/vigil/stats/forest"
	"github.com/vigilhq/vigil/stats/shap"
)

// explained is one set of reference values.
type explained struct {
	Base   float64      `json:"base"`
	Output []float64    `json:"output"`
	Values [][]*float64 `json:"values"`
}

// golden is testdata/golden.json, written by testdata/generate.py.
type golden struct {
	Trees []struct {
		Name           string       `json:"name"`
		Kind           string       `json:"kind"`
		File           string       `json:"file"`
		Rows           [][]*float64 `json:"rows"`
		Background     [][]*float64 `json:"background"`
		Native         *explained   `json:"native"`
		Path           explained    `json:"path"`
		Interventional explained    `json:"interventional"`
		Exact          explained    `json:"interventional_exact"`
	} `json:"trees"`
	Linear []struct {
		Name         string       `json:"name"`
		Link         string       `json:"link"`
		Coefficients []float64    `json:"coefficients"`
		Intercept    float64      `json:"intercept"`
		Background   [][]*float64 `json:"background"`
		Rows         [][]*float64 `json:"rows"`
		explained
	} `json:"linear"`
	Kernel []struct {
		Name         string       `json:"name"`
		Function     string       `json:"function"`
		Coefficients []float64    `json:"coefficients"`
		Intercept    float64      `json:"intercept"`
		Background   [][]*float64 `json:"background"`
		Rows         [][]*float64 `json:"rows"`
		explained
	} `json:"kernel"`
}

// load reads the golden file.
func load(t *testing.T) golden {
	t.Helper()
	b, err := os.ReadFile("testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g golden
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return g
}

// row turns a golden row (null for missing) into floats.
func row(r []*float64) []float64 {
	out := make([]float64, len(r))
	for i, v := range r {
		out[i] = math.NaN()
		if v != nil {
			out[i] = *v
		}
	}
	return out
}

// matrix turns golden rows into floats.
func matrix(rs [][]*float64) [][]float64 {
	out := make([][]float64, len(rs))
	for i, r := range rs {
		out[i] = row(r)
	}
	return out
}

// near reports whether got is within tol of want, relative above 1.
func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

// compare checks a result's base and values against the reference.
func compare(t *testing.T, name string, r shap.Result, base float64, want []*float64, tol float64) {
	t.Helper()
	if !near(r.Base, base, tol) {
		t.Errorf("%s base: got %v, want %v", name, r.Base, base)
	}
	for i, w := range row(want) {
		if !near(r.Values[i], w, tol) {
			t.Errorf("%s feature %d: got %v, want %v", name, i, r.Values[i], w)
		}
	}
}

// model reads one of the forest's test models.
func model(t *testing.T, kind, file string) *forest.Ensemble {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "forest", "testdata", "models", file))
	if err != nil {
		t.Fatal(err)
	}
	parse := map[string]func([]byte) (*forest.Ensemble, error){
		"xgboost_json": forest.ParseXGBoost, "lightgbm_text": forest.ParseLightGBM, "sklearn_json": forest.ParseSklearn,
	}[kind]
	e, err := parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTreeMatchesShap checks TreeSHAP on XGBoost, LightGBM and
// scikit-learn models. Path-dependent: against shap's float64
// TreeExplainer to 1e-9, and against XGBoost's and LightGBM's own TreeSHAP
// (what shap returns by default for them; XGBoost's in float32) to 1e-5.
// Interventional: to 1e-9 against the exact interventional Shapley values
// in float64 (shap.KernelExplainer enumerating every coalition over shap's
// float64 tree predictor, same background), and to 1e-6 against
// TreeExplainer(feature_perturbation="interventional"), whose C++ keeps
// its partial sums in float32.
func TestTreeMatchesShap(t *testing.T) {
	g := load(t)
	if len(g.Trees) != 7 {
		t.Fatalf("got %d tree models, want 7", len(g.Trees))
	}
	for _, c := range g.Trees {
		e := model(t, c.Kind, c.File)
		bg := matrix(c.Background)
		for i, r := range c.Rows {
			x := row(r)
			res, err := shap.Tree(e, x)
			if err != nil {
				t.Fatalf("%s row %d: %v", c.Name, i, err)
			}
			if !near(res.Output, c.Path.Output[i], 1e-9) {
				t.Errorf("%s row %d output: got %v, want %v", c.Name, i, res.Output, c.Path.Output[i])
			}
			compare(t, c.Name+" path", res, c.Path.Base, c.Path.Values[i], 1e-9)
			if c.Native != nil {
				compare(t, c.Name+" native", res, c.Native.Base, c.Native.Values[i], 1e-5)
			}
			res, err = shap.TreeInterventional(e, x, bg)
			if err != nil {
				t.Fatalf("%s row %d: %v", c.Name, i, err)
			}
			compare(t, c.Name+" interventional", res, c.Exact.Base, c.Exact.Values[i], 1e-9)
			compare(t, c.Name+" interventional (float32 sums)", res, c.Interventional.Base, c.Interventional.Values[i], 1e-6)
		}
	}
}

// TestLinearMatchesShap checks linear SHAP against shap.LinearExplainer
// for a linear and a logistic regression.
func TestLinearMatchesShap(t *testing.T) {
	for _, c := range load(t).Linear {
		m := &shap.LinearModel{Coefficients: c.Coefficients, Intercept: c.Intercept, Link: c.Link}
		mean, err := shap.Mean(matrix(c.Background), len(c.Coefficients))
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range c.Rows {
			res, err := shap.Linear(m, mean, row(r))
			if err != nil {
				t.Fatalf("%s row %d: %v", c.Name, i, err)
			}
			compare(t, c.Name, res, c.Base, c.Values[i], 1e-9)
		}
	}
}

// kernelModel returns the Go twin of a golden case's Python function.
func kernelModel(name string, coef []float64, intercept float64) shap.Model {
	return func(rows [][]float64) ([]float64, error) {
		out := make([]float64, len(rows))
		for i, a := range rows {
			switch name {
			case "logistic":
				z := intercept
				for j, c := range coef {
					z += a[j] * c
				}
				out[i] = 1 / (1 + math.Exp(-z))
			case "nonlinear8":
				out[i] = a[0]*a[1] + math.Tanh(a[2]-a[3]) + 0.5*a[4]*a[4] + a[5]*a[0] - a[6] + a[7]
			}
		}
		return out, nil
	}
}

// TestKernelMatchesShap checks Kernel SHAP with every coalition enumerated
// against shap.KernelExplainer (l1_reg=False) to 1e-9, including a
// feature that never varies (0).
func TestKernelMatchesShap(t *testing.T) {
	for _, c := range load(t).Kernel {
		f := kernelModel(c.Function, c.Coefficients, c.Intercept)
		for i, r := range c.Rows {
			res, err := shap.Kernel(f, row(r), matrix(c.Background), shap.KernelOptions{})
			if err != nil {
				t.Fatalf("%s row %d: %v", c.Name, i, err)
			}
			if !res.Exact {
				t.Errorf("%s row %d: got approximate, want exact", c.Name, i)
			}
			compare(t, c.Name, res.Result, c.Base, c.Values[i], 1e-9)
		}
	}
}

// TestTreeExplainerMatchesShap checks the tabulated TreeSHAP over many
// rows against shap's float64 TreeExplainer to 1e-9 (and against Tree),
// on every tree model of the golden file, with one worker and with three
// (and then most trees left to Tree's recursion).
func TestTreeExplainerMatchesShap(t *testing.T) {
	g := load(t)
	for _, c := range g.Trees {
		e := model(t, c.Kind, c.File)
		rows := matrix(c.Rows)
		for _, workers := range []int{1, 3} {
			te := shap.NewTreeExplainer(e)
			if workers == 3 { // trees whose paths split on more than 2 features go to the recursion
				te = shap.NewTreeExplainerLimit(e, 2)
			}
			got, err := te.ExplainRows(rows, workers)
			if err != nil {
				t.Fatalf("%s: %v", c.Name, err)
			}
			for i, x := range rows {
				compare(t, c.Name+" tabulated", got[i], c.Path.Base, c.Path.Values[i], 1e-9)
				want, err := shap.Tree(e, x)
				if err != nil {
					t.Fatal(err)
				}
				compare(t, c.Name+" tabulated vs Tree", got[i], want.Base, floatPtrs(want.Values), 1e-12)
			}
		}
	}
}

// floatPtrs turns values into golden's form.
func floatPtrs(v []float64) []*float64 {
	out := make([]*float64, len(v))
	for i := range v {
		out[i] = &v[i]
	}
	return out
}

package forest_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/stats/forest"
)

// margins is testdata/margins.json, written by stats/shap/testdata/generate.py.
type margins struct {
	Models []struct {
		Name   string       `json:"name"`
		Kind   string       `json:"kind"`
		File   string       `json:"file"`
		Rows   [][]*float64 `json:"rows"`
		Margin []float64    `json:"margin"`
	} `json:"models"`
}

// Parse reads a model file of the given artifact kind.
func parse(t *testing.T, kind, file string) *forest.Ensemble {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "models", file))
	if err != nil {
		t.Fatal(err)
	}
	var e *forest.Ensemble
	switch kind {
	case "xgboost_json":
		e, err = forest.ParseXGBoost(b)
	case "lightgbm_text":
		e, err = forest.ParseLightGBM(b)
	case "sklearn_json":
		e, err = forest.ParseSklearn(b)
	}
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	return e
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

// TestMarginsMatchLibraries checks each parsed model's raw output against
// the library's own prediction: XGBoost sums its leaves in float32, so
// within 1e-6 relative; LightGBM and scikit-learn within 1e-12. RawRows
// gives Raw's outputs to the bit.
func TestMarginsMatchLibraries(t *testing.T) {
	b, err := os.ReadFile("testdata/margins.json")
	if err != nil {
		t.Fatal(err)
	}
	var g margins
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if len(g.Models) != 7 {
		t.Fatalf("got %d models, want 7", len(g.Models))
	}
	for _, m := range g.Models {
		e := parse(t, m.Kind, m.File)
		tol := 1e-12
		if m.Kind == "xgboost_json" {
			tol = 1e-6
		}
		var rows [][]float64
		for range 70 { // more than one block of RawRows
			for _, r := range m.Rows {
				rows = append(rows, row(r))
			}
		}
		batch := make([]float64, len(rows))
		e.RawRows(rows, batch)
		for i, x := range rows {
			got, want := e.Raw(x), m.Margin[i%len(m.Rows)]
			if math.Abs(got-want) > tol*max(1, math.Abs(want)) {
				t.Errorf("%s row %d: got %v, want %v", m.Name, i, got, want)
			}
			if batch[i] != got {
				t.Errorf("%s row %d: RawRows got %v, Raw %v", m.Name, i, batch[i], got)
			}
		}
	}
}

// TestParseRefusesBadModels checks that malformed and unsupported models
// are refused with ErrInvalid and a message naming the problem.
func TestParseRefusesBadModels(t *testing.T) {
	xgb, err := os.ReadFile("testdata/models/xgb_reg.json")
	if err != nil {
		t.Fatal(err)
	}
	lgb, err := os.ReadFile("testdata/models/lgb_reg.txt")
	if err != nil {
		t.Fatal(err)
	}
	sk, err := os.ReadFile("testdata/models/sk_rf_reg.json")
	if err != nil {
		t.Fatal(err)
	}
	f := func(name string, parse func([]byte) (*forest.Ensemble, error), data, want string) {
		t.Helper()
		_, err := parse([]byte(data))
		if !errors.Is(err, forest.ErrInvalid) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want ErrInvalid mentioning %q", name, err, want)
		}
	}
	f("xgb not json", forest.ParseXGBoost, "{", "not an XGBoost JSON model")
	f("xgb objective", forest.ParseXGBoost, strings.Replace(string(xgb), `"reg:squarederror"`, `"multi:softprob"`, 1), "objective")
	f("xgb multi-class", forest.ParseXGBoost, strings.Replace(string(xgb), `"num_class":"0"`, `"num_class":"3"`, 1), "multi-class")
	f("xgb feature out of range", forest.ParseXGBoost, strings.Replace(string(xgb), `"num_feature":"5","num_target"`, `"num_feature":"2","num_target"`, 1), "splits on feature")
	f("xgb child out of range", forest.ParseXGBoost, strings.Replace(string(xgb), `"left_children":[1,`, `"left_children":[999,`, 1), "out of range")
	f("lgb no header", forest.ParseLightGBM, "hello", "no 'tree' header")
	f("lgb multi-class", forest.ParseLightGBM, strings.Replace(string(lgb), "num_class=1", "num_class=3", 1), "multi-output")
	f("lgb short array", forest.ParseLightGBM, strings.Replace(string(lgb), "\nleaf_value=", "\nleaf_value=1 ", 1), "leaf_value has")
	f("sk format", forest.ParseSklearn, strings.Replace(string(sk), "vigil-sklearn-trees", "other", 1), "format")
	f("sk link", forest.ParseSklearn, strings.Replace(string(sk), `"link": "identity"`, `"link": "probit"`, 1), "link")
}

// TestValidateRefusesDeepTrees checks the depth cap: a chain of
// MaxDepth+1 splits is refused, one of MaxDepth accepted.
func TestValidateRefusesDeepTrees(t *testing.T) {
	chain := func(depth int) *forest.Ensemble {
		nodes := make([]forest.Node, 0, 2*depth+1)
		for i := range depth {
			nodes = append(nodes, forest.Node{Left: 2*i + 1, Right: 2*i + 2, Cover: 1})
			nodes = append(nodes, forest.Node{Left: -1, Right: -1, Value: 1, Cover: 1})
		}
		nodes = append(nodes, forest.Node{Left: -1, Right: -1, Cover: 1})
		return &forest.Ensemble{Trees: []forest.Tree{{Nodes: nodes}}, Scale: 1, NumFeatures: 1}
	}
	if err := chain(forest.MaxDepth).Validate(); err != nil {
		t.Errorf("depth %d: got %v, want nil", forest.MaxDepth, err)
	}
	if err := chain(forest.MaxDepth + 1).Validate(); !errors.Is(err, forest.ErrInvalid) {
		t.Errorf("depth %d: got %v, want ErrInvalid", forest.MaxDepth+1, err)
	}
}

// TestXGBoostBaseScoreForms checks both forms of base_score: "0.5" before
// XGBoost 3 and "[5E-1]" since.
func TestXGBoostBaseScoreForms(t *testing.T) {
	b, err := os.ReadFile("testdata/models/xgb_reg.json")
	if err != nil {
		t.Fatal(err)
	}
	old := parse(t, "xgboost_json", "xgb_reg.json")
	s := string(b)
	i := strings.Index(s, `"base_score":"`) + len(`"base_score":"`)
	j := i + strings.Index(s[i:], `"`)
	e, err := forest.ParseXGBoost([]byte(s[:i] + "[" + s[i:j] + "]" + s[j:]))
	if err != nil {
		t.Fatal(err)
	}
	if e.Base != old.Base {
		t.Errorf("got base %v, want %v", e.Base, old.Base)
	}
}

package app

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestExplanationViews (issue 16 point 3) on every backend: bulk
// generation of the xgb_bin model's 20 golden rows (422 naming
// instances[i].NAME, nothing stored), the model's global importance equal
// to numpy's mean |SHAP| of shap's values
// (explanation/view/testdata/views.py), comparisons (Spearman's rank
// correlation equal to scipy's), and the plot data of one and of several
// explanations.
func TestExplanationViews(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	raw, err := os.ReadFile(filepath.Join("..", "explanation", "view", "testdata", "views.json"))
	if err != nil {
		t.Fatal(err)
	}
	var views struct {
		Importance map[string]struct {
			MeanAbs float64 `json:"mean_abs"`
			Mean    float64 `json:"mean"`
		}
		Pairs []struct {
			A, B     int
			Spearman float64
		}
	}
	if err := json.Unmarshal(raw, &views); err != nil {
		t.Fatal(err)
	}
	near := func(what string, got any, want float64) {
		t.Helper()
		if x, ok := got.(float64); !ok || math.Abs(x-want) > 1e-9 {
			t.Errorf("%s: got %v, want %v", what, got, want)
		}
	}
	eachBackend(t, nil, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
			"features": explainFeatures}).want(t, 200)
		var instances []any
		for _, r := range g.rows {
			instances = append(instances, explainRow(r))
		}
		bad := append([]any{}, instances[:3]...)
		bad = append(bad, map[string]any{"zz": 1})
		s.do("POST", "/explanations/bulk", key, map[string]any{"model_id": model, "instances": bad}).wantField(t, "instances[3].zz")
		s.do("POST", "/explanations/bulk", key, map[string]any{"model_id": model, "instances": make([]any, 101)}).wantField(t, "instances")
		if r := s.do("GET", "/explanations?model_id="+model, key, nil).want(t, 200); r.at("total") != 0.0 {
			t.Fatalf("after refused bulk requests: got %v explanations, want 0", r.at("total"))
		}
		acc := s.do("POST", "/explanations/bulk", key, map[string]any{"model_id": model, "instances": instances}).want(t, http.StatusAccepted)
		var ids []string
		for i, id := range acc.at("explanation_ids").([]any) {
			ids = append(ids, id.(string))
			if res := acc.at("results").([]any)[i].(map[string]any); res["index"] != float64(i) || res["explanation_id"] != id {
				t.Errorf("result %d: got %v, want index %d and id %v", i, res, i, id)
			}
		}
		if len(ids) != len(g.rows) || acc.at("total") != float64(len(g.rows)) {
			t.Fatalf("got %d ids, total %v, want %d", len(ids), acc.at("total"), len(g.rows))
		}
		for i, id := range ids {
			r := pollExplanation(t, s, key, id, "completed")
			near("bulk base_value", r.at("base_value"), g.base)
			for j, f := range explainFeatures {
				near("bulk row feature_weights."+f.(string), r.at("feature_weights."+f.(string)), g.values[i][j])
			}
		}

		imp := s.do("GET", "/explanations/importance/"+model, key, nil).want(t, 200)
		if imp.at("explanations") != float64(len(g.rows)) {
			t.Errorf("global importance over %v explanations, want %d", imp.at("explanations"), len(g.rows))
		}
		last := math.Inf(1)
		for _, f := range imp.at("features").([]any) {
			f := f.(map[string]any)
			want := views.Importance[f["feature"].(string)]
			near("mean_abs_weight of "+f["feature"].(string), f["mean_abs_weight"], want.MeanAbs)
			near("mean_weight of "+f["feature"].(string), f["mean_weight"], want.Mean)
			if f["mean_abs_weight"].(float64) > last {
				t.Errorf("got %v after a smaller mean |weight|, want decreasing", f["feature"])
			}
			last = f["mean_abs_weight"].(float64)
		}

		for _, p := range views.Pairs[:3] {
			r := s.do("POST", "/explanations/compare", key, map[string]any{"explanation_ids": []string{ids[p.A], ids[p.B]},
				"comparison_type": "method_agreement"}).want(t, 200)
			near("spearman_rank_correlation", r.at("pairs").([]any)[0].(map[string]any)["spearman_rank_correlation"], p.Spearman)
		}
		sim := s.do("POST", "/explanations/compare", key, map[string]any{"explanation_ids": ids[:3], "comparison_type": "instance_similarity"}).want(t, 200)
		if n := len(sim.at("pairs").([]any)); n != 3 {
			t.Errorf("instance_similarity of 3: got %d pairs, want 3", n)
		}
		fi := s.do("POST", "/explanations/compare", key, map[string]any{"explanation_ids": ids[:2], "comparison_type": "feature_importance"}).want(t, 200)
		for _, f := range fi.at("features").([]any) {
			f := f.(map[string]any)
			j := map[string]int{"a": 0, "b": 1, "c": 2, "d": 3, "e": 4}[f["feature"].(string)]
			for i, w := range f["weights"].([]any) {
				near("compared weight of "+f["feature"].(string), w, g.values[i][j])
			}
		}
		s.do("POST", "/explanations/compare", key, map[string]any{"explanation_ids": ids[:1], "comparison_type": "feature_importance"}).
			wantField(t, "explanation_ids")

		w := s.do("GET", "/explanations/"+ids[0]+"/visualization?plot_type=waterfall&max_features=2", key, nil).want(t, 200)
		steps := w.at("steps").([]any)
		end := steps[len(steps)-1].(map[string]any)["end"].(float64) + w.at("rest.contribution").(float64)
		if len(steps) != 2 || w.at("rest.features") != 3.0 {
			t.Errorf("waterfall of 2 features: got %d steps and rest of %v, want 2 and 3", len(steps), w.at("rest.features"))
		}
		near("waterfall's end", end, g.output[0])
		near("waterfall's output_value", w.at("output_value"), g.output[0])
		s.do("GET", "/explanations/"+ids[0]+"/visualization?plot_type=beeswarm", key, nil).wantField(t, "plot_type")
		for _, plot := range []string{"force", "feature_importance"} {
			s.do("GET", "/explanations/"+ids[0]+"/visualization?plot_type="+plot, key, nil).want(t, 200)
		}

		d := s.do("POST", "/explanations/visualization", key, map[string]any{"explanation_ids": ids, "plot_type": "decision"}).want(t, 200)
		for i, l := range d.at("lines").([]any) {
			pts := l.(map[string]any)["points"].([]any)
			near("decision line's end", pts[len(pts)-1], g.output[i])
		}
		sum := s.do("POST", "/explanations/visualization", key, map[string]any{"explanation_ids": ids, "plot_type": "summary", "max_features": 3}).want(t, 200)
		if n := len(sum.at("summary").([]any)); n != 3 {
			t.Errorf("summary of 3 features: got %d, want 3", n)
		}
		dep := s.do("POST", "/explanations/visualization", key, map[string]any{"explanation_ids": ids, "plot_type": "dependence", "feature": "c"}).want(t, 200)
		if n := len(dep.at("points").([]any)); n != len(ids) {
			t.Errorf("dependence: got %d points, want %d", n, len(ids))
		}
		s.do("POST", "/explanations/visualization", key, map[string]any{"explanation_ids": ids, "plot_type": "dependence", "feature": "zz"}).
			wantField(t, "feature")

		other := s.signUp("other-admin")
		s.do("POST", "/explanations/compare", other, map[string]any{"explanation_ids": ids[:2], "comparison_type": "method_agreement"}).
			wantError(t, http.StatusNotFound, "NOT_FOUND")
	})
}

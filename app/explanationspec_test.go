package app

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"testing"
)

// interactionTrees is a scikit-learn tree export over 16 features f0-f15
// whose trees of depth 3 split on three features along each path, so
// that its Kernel SHAP values (16 varying features: sampled) depend on
// the coalitions drawn (with paired sampling, a game of pairwise
// interactions alone would come out exact).
func interactionTrees(t *testing.T) (string, []any) {
	t.Helper()
	type tree struct {
		Left      []int     `json:"children_left"`
		Right     []int     `json:"children_right"`
		Feature   []int     `json:"feature"`
		Threshold []float64 `json:"threshold"`
		Value     []float64 `json:"value"`
		Weight    []float64 `json:"weighted_n_node_samples"`
	}
	var trees []tree
	for k := range 16 {
		f := func(d int) int { return (k + d) % 16 }
		leaves := make([]float64, 8)
		for i := range leaves {
			leaves[i] = float64((k*7+i*5)%11) - 5
		}
		trees = append(trees, tree{Left: []int{1, 3, 5, 7, 9, 11, 13, -1, -1, -1, -1, -1, -1, -1, -1},
			Right:     []int{2, 4, 6, 8, 10, 12, 14, -1, -1, -1, -1, -1, -1, -1, -1},
			Feature:   []int{f(0), f(1), f(5), f(2), f(3), f(7), f(11), -2, -2, -2, -2, -2, -2, -2, -2},
			Threshold: make([]float64, 15),
			Value:     append(make([]float64, 7), leaves...),
			Weight:    []float64{80, 40, 40, 20, 20, 20, 20, 10, 10, 10, 10, 10, 10, 10, 10}})
	}
	features := make([]any, 16)
	for i := range features {
		features[i] = fmt.Sprintf("f%d", i)
	}
	b, err := json.Marshal(map[string]any{"format": "vigil-sklearn-trees", "version": 1, "estimator": "GradientBoostingRegressor",
		"n_features": 16, "feature_names": []string{}, "base": 0.0, "scale": 1.0, "link": "identity", "trees": trees})
	if err != nil {
		t.Fatal(err)
	}
	return string(b), features
}

// interactionRow is a row of f0-f15: sign picks each feature's side of
// the trees' thresholds, shift moves it off them.
func interactionRow(sign func(i int) float64, shift float64) map[string]any {
	row := map[string]any{}
	for i := range 16 {
		row[fmt.Sprintf("f%d", i)] = sign(i) * (1 + shift + float64(i)/10)
	}
	return row
}

// TestExplanationSpecShapes is a client written from spec 3's text, on
// both pipelines: the request fields (config, num_features, num_samples,
// use_cache, seed, method shap_kernel and its alias kernel_shap), their
// range errors, the stored record's result and the instance form, global
// importance's shape, and reproducible sampled methods: one request and
// seed give identical values, another seed other values.
func TestExplanationSpecShapes(t *testing.T) {
	content, features := interactionTrees(t)
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "interactions", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "sklearn_json", "content": content,
			"features": features}).want(t, 200)
		instance := interactionRow(func(i int) float64 { return 1 }, 0)
		var background []any
		for r := range 8 {
			background = append(background, interactionRow(func(i int) float64 {
				if (7*i+3*r)%5 < 2 {
					return -1
				}
				return 1
			}, float64(r)/8))
		}
		body := func(extra map[string]any) map[string]any {
			b := map[string]any{"model_id": model, "instance": instance, "method": "shap_kernel", "background": background, "use_cache": false}
			for k, v := range extra {
				b[k] = v
			}
			return b
		}
		for _, tc := range []struct {
			extra map[string]any
			field string
		}{
			{map[string]any{"num_features": 0}, "num_features"},
			{map[string]any{"num_features": 101}, "num_features"},
			{map[string]any{"num_features": 2.5}, "num_features"},
			{map[string]any{"num_samples": 99}, "num_samples"},
			{map[string]any{"num_samples": 50001}, "num_samples"},
			{map[string]any{"seed": -1}, "seed"},
			{map[string]any{"seed": 1 << 53}, "seed"},
			{map[string]any{"config": map[string]any{"background_samples": 0}}, "config.background_samples"},
			{map[string]any{"config": map[string]any{"background_samples": 201}}, "config.background_samples"},
			{map[string]any{"config": map[string]any{"max_features": 101}}, "config.max_features"},
			{map[string]any{"config": map[string]any{"max_features": 4}, "num_features": 3}, "config.max_features"},
			{map[string]any{"config": map[string]any{"nothing": 1}}, "nothing"},
			{map[string]any{"method": "kernel"}, "method"},
			{map[string]any{"use_cache": "yes"}, "use_cache"},
		} {
			s.do("POST", "/explanations/generate", key, body(tc.extra)).wantField(t, tc.field)
		}
		if n := s.do("GET", "/explanations?model_id="+model, key, nil).want(t, 200).at("total"); n != 0.0 {
			t.Fatalf("got %v explanations after refused requests, want 0", n)
		}

		spec := body(map[string]any{"num_features": 3, "num_samples": 2000, "seed": 42,
			"config": map[string]any{"background_samples": 6, "max_features": 3}})
		acc := s.do("POST", "/explanations/generate", key, spec).want(t, http.StatusAccepted)
		if acc.str("method") != "shap_kernel" || acc.at("seed") != 42.0 || acc.at("num_samples") != 2000.0 || acc.at("num_features") != 3.0 {
			t.Errorf("got %s, want method shap_kernel, seed 42, num_samples 2000, num_features 3", acc.raw)
		}
		first := pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
		specRecord(t, first, 16, 3)
		if first.at("exactness") != "approximate" || first.at("background_rows") != 6.0 || first.at("seed") != 42.0 ||
			first.at("num_samples") != 2000.0 {
			t.Errorf("got %s, want a sampled (approximate) Kernel SHAP over 6 background rows, seed 42, num_samples 2000", first.raw)
		}
		again := pollExplanation(t, s, key, s.do("POST", "/explanations/generate", key, spec).want(t, http.StatusAccepted).str("explanation_id"), "completed")
		alias := body(map[string]any{"num_features": 3, "num_samples": 2000, "seed": 42, "method": "kernel_shap",
			"config": map[string]any{"background_samples": 6}})
		aliased := pollExplanation(t, s, key, s.do("POST", "/explanations/generate", key, alias).want(t, http.StatusAccepted).str("explanation_id"), "completed")
		for _, r := range []response{again, aliased} {
			if !reflect.DeepEqual(r.at("result"), first.at("result")) || r.at("base_value") != first.at("base_value") || r.str("method") != "shap_kernel" {
				t.Errorf("got result %v (method %v), want exactly the first run's %v", r.at("result"), r.at("method"), first.at("result"))
			}
		}
		other := pollExplanation(t, s, key, s.do("POST", "/explanations/generate", key,
			body(map[string]any{"num_samples": 2000, "seed": 43, "config": map[string]any{"background_samples": 6}})).
			want(t, http.StatusAccepted).str("explanation_id"), "completed")
		if d := maxDiff(other.at("feature_weights"), first.at("feature_weights")); d < 1e-6 {
			t.Errorf("got values within %g for seeds 42 and 43, want the coalitions drawn by the seed to show", d)
		}

		specDefaults(t, s, key, model, body)
		specImportance(t, s, key, model)
	})
}

// specRecord checks a completed explanation's shape: the stored record's
// result {base_value, predicted_value, feature_contributions,
// top_features [{feature, value, impact}]} of features features and
// listed of them, and the instance form (base_value, score,
// feature_weights, cached, computation_time_ms) agreeing with it.
func specRecord(t *testing.T, r response, features, listed int) {
	t.Helper()
	contributions, _ := r.at("result.feature_contributions").(map[string]any)
	top, _ := r.at("result.top_features").([]any)
	if len(contributions) != features || len(top) != listed || r.at("created_at") == nil || r.at("completed_at") == nil {
		t.Fatalf("got %s, want result.feature_contributions of %d features, %d top_features, created_at and completed_at", r.raw, features, listed)
	}
	for i, x := range top {
		f, _ := x.(map[string]any)
		if f["feature"] == nil || f["value"] == nil || contributions[f["feature"].(string)] != f["impact"] {
			t.Errorf("top_features[%d]: got %v, want {feature, value, impact} with impact its contribution", i, x)
		}
	}
	_, timed := r.at("computation_time_ms").(float64)
	if r.at("score") != r.at("result.predicted_value") || r.at("base_value") != r.at("result.base_value") || !timed ||
		!reflect.DeepEqual(r.at("feature_weights"), r.at("result.feature_contributions")) || r.at("cached") != false {
		t.Errorf("got %s, want the instance form (score = predicted_value, base_value, feature_weights, cached, computation_time_ms)", r.raw)
	}
}

// specDefaults: a request naming none of the options takes num_features
// 10, num_samples 5000 and a seed it echoes, which reproduces its values
// when sent; with use_cache the second is answered from the cache.
func specDefaults(t *testing.T, s *server, key, model string, body func(map[string]any) map[string]any) {
	t.Helper()
	plain := body(nil)
	delete(plain, "use_cache")
	acc := s.do("POST", "/explanations/generate", key, plain).want(t, http.StatusAccepted)
	seed, ok := acc.at("seed").(float64)
	if !ok || acc.at("num_samples") != 5000.0 || acc.at("num_features") != 10.0 {
		t.Fatalf("got %s, want the defaults num_samples 5000, num_features 10 and the seed chosen", acc.raw)
	}
	first := pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
	specRecord(t, first, 16, 10)
	cached := s.do("POST", "/explanations/generate", key, plain).want(t, http.StatusAccepted)
	if cached.at("cached") != true || cached.str("status") != "completed" || cached.at("id") != cached.at("explanation_id") ||
		cached.at("score") != first.at("score") || cached.at("base_value") != first.at("base_value") ||
		!reflect.DeepEqual(cached.at("feature_weights"), first.at("feature_weights")) || cached.at("computation_time_ms") == nil {
		t.Errorf("got %s, want the same request answered from the cache in the instance form (id, base_value, score, feature_weights, computation_time_ms)", cached.raw)
	}
	if acc.at("score") != nil || acc.at("base_value") != nil || acc.at("id") != acc.at("explanation_id") {
		t.Errorf("got %s, want a pending 202 with id and a null score and base_value", acc.raw)
	}
	sent := body(map[string]any{"seed": int64(seed)})
	again := pollExplanation(t, s, key, s.do("POST", "/explanations/generate", key, sent).want(t, http.StatusAccepted).str("explanation_id"), "completed")
	if !reflect.DeepEqual(again.at("result"), first.at("result")) {
		t.Errorf("got %v with the echoed seed %v, want exactly %v", again.at("result"), seed, first.at("result"))
	}
	lime := map[string]any{"method": "lime", "seed": 7, "num_samples": 1000}
	a := pollExplanation(t, s, key, s.do("POST", "/explanations/generate", key, body(lime)).want(t, http.StatusAccepted).str("explanation_id"), "completed")
	b := pollExplanation(t, s, key, s.do("POST", "/explanations/generate", key, body(lime)).want(t, http.StatusAccepted).str("explanation_id"), "completed")
	if !reflect.DeepEqual(a.at("result"), b.at("result")) || a.at("num_samples") != 1000.0 || a.at("seed") != 7.0 {
		t.Errorf("lime, seed 7, 1000 samples: got %v then %v, want identical results echoing seed and num_samples", a.raw, b.at("result"))
	}
}

// specImportance: GET /explanations/importance/{model_id} answers spec
// 3's {model_id, method, feature_importance, calculated_at}; another
// organization's model is a 404.
func specImportance(t *testing.T, s *server, key, model string) {
	t.Helper()
	imp := s.do("GET", "/explanations/importance/"+model, key, nil).want(t, 200)
	fi, _ := imp.at("feature_importance").(map[string]any)
	if imp.str("model_id") != model || imp.str("method") != "shap" || len(fi) != 16 || imp.str("calculated_at") == "" {
		t.Errorf("got %s, want {model_id, method shap, feature_importance of 16 features, calculated_at}", imp.raw)
	}
	if lime := s.do("GET", "/explanations/importance/"+model+"?method=lime", key, nil).want(t, 200); lime.at("explanations") != 2.0 {
		t.Errorf("got %s, want the importance over the 2 LIME explanations", lime.raw)
	}
	s.do("GET", "/explanations/importance/"+model+"?method=tree", key, nil).wantField(t, "method")
	otherKey, _ := s.key(s.signUp("other-admin"), "read", "write")
	s.do("GET", "/explanations/importance/"+model, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
}

// maxDiff is the largest difference between two objects of numbers.
func maxDiff(a, b any) float64 {
	x, _ := a.(map[string]any)
	y, _ := b.(map[string]any)
	d := 0.0
	for k, v := range x {
		p, _ := v.(float64)
		q, _ := y[k].(float64)
		d = max(d, math.Abs(p-q))
	}
	return d
}

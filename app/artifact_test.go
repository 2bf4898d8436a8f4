package app

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testModelFile reads one of stats/forest's test models.
func testModelFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "stats", "forest", "testdata", "models", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestModelArtifact covers PUT and GET /models/{model_id}/artifact on every
// backend: each kind is stored and described (a tree model parsed on
// upload), a later upload replaces the artifact, bad bodies answer 422
// naming the field and store nothing, another organization's model is a
// 404 MODEL_NOT_FOUND.
func TestModelArtifact(t *testing.T) {
	xgb := testModelFile(t, "xgb_bin.json")
	lgb := testModelFile(t, "lgb_reg.txt")
	sk := testModelFile(t, "sk_rf_reg.json")
	eachBackend(t, nil, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		path := "/models/" + model + "/artifact"
		s.do("GET", path, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")

		linear := map[string]any{"kind": "linear", "features": []any{"age", "income"}, "coefficients": []any{0.5, -0.25},
			"intercept": -1.5, "link": "logit"}
		with := func(k string, v any) map[string]any {
			m := map[string]any{}
			for a, b := range linear {
				m[a] = b
			}
			if v == nil {
				delete(m, k)
			} else {
				m[k] = v
			}
			return m
		}
		for _, tc := range []struct {
			body  any
			field string
		}{
			{map[string]any{}, "kind"},
			{with("kind", "onnx"), "kind"},
			{with("features", nil), "features"},
			{with("features", []any{"a", "a"}), "features"},
			{with("coefficients", []any{1}), "coefficients"},
			{with("coefficients", []any{1, 2e301}), "coefficients"},
			{with("intercept", nil), "intercept"},
			{with("link", "probit"), "link"},
			{with("content", "x"), "content"},
			{map[string]any{"kind": "xgboost_json"}, "content"},
			{map[string]any{"kind": "xgboost_json", "content": "{}"}, "content"},
			{map[string]any{"kind": "xgboost_json", "content": 12}, "content"},
			{map[string]any{"kind": "lightgbm_text", "content": "not a model"}, "content"},
			{map[string]any{"kind": "lightgbm_text", "content": map[string]any{"a": 1}}, "content"},
			{map[string]any{"kind": "sklearn_json", "content": sk, "link": "logit"}, "link"},
			{map[string]any{"kind": "sklearn_json", "content": sk, "features": []any{"a", "b"}}, "features"},
			{map[string]any{"kind": "xgboost_json", "content": strings.Replace(xgb, `"binary:logistic"`, `"multi:softmax"`, 1)}, "content"},
		} {
			s.do("PUT", path, key, tc.body).wantField(t, tc.field)
		}
		s.do("GET", path, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND") // nothing stored by refusals

		put := s.do("PUT", path, key, linear).want(t, 200)
		got := s.do("GET", path, key, nil).want(t, 200)
		if string(got.raw) != string(put.raw) || got.at("kind") != "linear" || got.at("link") != "logit" ||
			got.at("num_features") != 2.0 || got.at("intercept") != -1.5 || got.at("num_trees") != nil || got.at("content_bytes") != 0.0 {
			t.Fatalf("got %s after PUT %s, want the linear artifact", got.raw, put.raw)
		}

		var xgbObject map[string]any
		if err := json.Unmarshal([]byte(xgb), &xgbObject); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			body                  map[string]any
			kind, link            string
			trees, features, cols float64
		}{
			{map[string]any{"kind": "xgboost_json", "content": xgbObject}, "xgboost_json", "logit", 30, 5, 0},
			{map[string]any{"kind": "xgboost_json", "content": xgb, "features": []any{"a", "b", "c", "d", "e"}}, "xgboost_json", "logit", 30, 5, 5},
			{map[string]any{"kind": "lightgbm_text", "content": lgb}, "lightgbm_text", "identity", 30, 5, 5},
			{map[string]any{"kind": "sklearn_json", "content": sk}, "sklearn_json", "identity", 10, 5, 0},
		} {
			put := s.do("PUT", path, key, tc.body).want(t, 200)
			got := s.do("GET", path, key, nil).want(t, 200)
			feats, _ := got.at("features").([]any)
			if string(got.raw) != string(put.raw) || got.at("kind") != tc.kind || got.at("link") != tc.link ||
				got.at("num_trees") != tc.trees || got.at("num_features") != tc.features || float64(len(feats)) != tc.cols ||
				got.at("coefficients") != nil || got.at("content_bytes") == 0.0 {
				t.Errorf("got %s after PUT %s, want a %s artifact of %v trees", got.raw, put.raw, tc.kind, tc.trees)
			}
		}

		other := s.signUp("other-admin")
		otherKey, _ := s.key(other, "read", "write")
		s.do("GET", path, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("PUT", path, otherKey, linear).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("GET", "/models/"+model+"x/artifact", key, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
	})
}

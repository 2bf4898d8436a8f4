package app

import (
	"encoding/json"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// shapGolden is the XGBoost case of stats/shap's golden file (shap 0.49.1,
// written by stats/shap/testdata/generate.py).
type shapGolden struct {
	rows, background [][]*float64
	base             float64
	values           [][]float64
	output           []float64
}

func loadSHAPGolden(t *testing.T, name string) shapGolden {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "stats", "shap", "testdata", "golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Trees []struct {
			Name       string       `json:"name"`
			Rows       [][]*float64 `json:"rows"`
			Background [][]*float64 `json:"background"`
			Path       struct {
				Base   float64     `json:"base"`
				Output []float64   `json:"output"`
				Values [][]float64 `json:"values"`
			} `json:"path"`
		} `json:"trees"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	for _, c := range g.Trees {
		if c.Name == name {
			return shapGolden{rows: c.Rows, background: c.Background, base: c.Path.Base, values: c.Path.Values, output: c.Path.Output}
		}
	}
	t.Fatalf("no golden case %s", name)
	return shapGolden{}
}

// completeBackground is up to 8 of the golden background rows that have
// no missing value, as rows of features a-e (Kernel SHAP and LIME need
// complete rows).
func (g shapGolden) completeBackground() []any {
	var rows []any
	for _, r := range g.background {
		if !slices.Contains(r, nil) && len(rows) < 8 {
			rows = append(rows, explainRow(r))
		}
	}
	return rows
}

var explainFeatures = []any{"a", "b", "c", "d", "e"}

// explainRow is a golden row as an instance of features a-e (null missing).
func explainRow(row []*float64) map[string]any {
	m := map[string]any{}
	for i, v := range row {
		if v == nil {
			m[explainFeatures[i].(string)] = nil
		} else {
			m[explainFeatures[i].(string)] = *v
		}
	}
	return m
}

// pollExplanation polls GET /explanations/{id} until it is not pending and
// fails the test unless it ended in status.
func pollExplanation(t *testing.T, s *server, token, id, status string) response {
	t.Helper()
	var r response
	waitFor(t, "explanation "+id+" finishing", func() bool {
		r = s.do("GET", "/explanations/"+id, token, nil).want(t, 200)
		return r.str("status") != "pending"
	})
	if r.str("status") != status {
		t.Fatalf("explanation %s: got status %q, want %q; body %s", id, r.str("status"), status, r.raw)
	}
	return r
}

// TestExplanations covers POST /explanations/generate, GET
// /explanations/{id} and GET /explanations on every backend: an uploaded
// XGBoost model's exact SHAP values equal shap's TreeExplainer to 1e-9,
// Kernel SHAP and LIME complete with their exactness, the stats count
// them, bad input answers
// 422 naming the field, the list filters, and another organization sees
// nothing.
func TestExplanations(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	eachBackend(t, nil, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		bare := s.model(key, "bare", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
			"features": explainFeatures}).want(t, 200)
		instance := explainRow(g.rows[0])
		background := g.completeBackground()
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"instance": instance}, "model_id"},
			{map[string]any{"model_id": model}, "instance"},
			{map[string]any{"model_id": model, "instance": instance, "method": "tree"}, "method"},
			{map[string]any{"model_id": model, "instance": map[string]any{"zz": 1}}, "instance.zz"},
			{map[string]any{"model_id": model, "instance": map[string]any{"a": "x"}}, "instance.a"},
			{map[string]any{"model_id": model, "instance": instance, "method": "kernel_shap"}, "background"},
			{map[string]any{"model_id": model, "instance": instance, "method": "lime", "background": []any{map[string]any{"q": 1}}}, "background[0].q"},
			{map[string]any{"model_id": model, "instance": map[string]any{"a": 1}, "method": "lime", "background": background}, "instance.b"},
			{map[string]any{"model_id": bare, "instance": instance}, "model_id"},
		} {
			s.do("POST", "/explanations/generate", key, tc.body).wantField(t, tc.field)
		}

		acc := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance}).
			want(t, http.StatusAccepted)
		if acc.str("status") != "pending" || acc.str("method") != "shap" || acc.str("explanation_id") == "" {
			t.Fatalf("got %s, want a pending shap explanation", acc.raw)
		}
		r := pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
		if r.str("algorithm") != "tree_shap" || r.str("exactness") != "exact" || r.str("perturbation") != "tree_path_dependent" {
			t.Errorf("got algorithm %v, exactness %v, perturbation %v, want tree_shap, exact, tree_path_dependent",
				r.at("algorithm"), r.at("exactness"), r.at("perturbation"))
		}
		near := func(what string, got any, want float64) {
			t.Helper()
			x, ok := got.(float64)
			if !ok || math.Abs(x-want) > 1e-9 {
				t.Errorf("%s: got %v, want %v (shap.TreeExplainer)", what, got, want)
			}
		}
		near("base_value", r.at("base_value"), g.base)
		near("predicted_value", r.at("predicted_value"), g.output[0])
		for i, f := range explainFeatures {
			near("feature_weights."+f.(string), r.at("feature_weights."+f.(string)), g.values[0][i])
		}

		for _, tc := range []struct{ method, exactness string }{{"kernel_shap", "exact"}, {"lime", "approximate"}} {
			acc := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance,
				"method": tc.method, "background": background}).want(t, http.StatusAccepted)
			r := pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
			weights, _ := r.at("feature_weights").(map[string]any)
			if r.str("algorithm") != tc.method || r.str("exactness") != tc.exactness || len(weights) != 5 {
				t.Errorf("got %s, want a %s explanation, %s, of 5 features", r.raw, tc.method, tc.exactness)
			}
		}

		list := s.do("GET", "/explanations?model_id="+model, key, nil).want(t, 200)
		if list.at("total") != 3.0 || list.at("limit") != 50.0 {
			t.Errorf("got %s, want 3 explanations, limit 50", list.raw)
		}
		list = s.do("GET", "/explanations?model_id="+model+"&method=lime&status=completed", key, nil).want(t, 200)
		if items, _ := list.at("explanations").([]any); list.at("total") != 1.0 || len(items) != 1 {
			t.Errorf("got %s, want the one lime explanation", list.raw)
		}
		st := s.do("GET", "/explanations/stats?model_id="+model, key, nil).want(t, 200)
		if st.at("total") != 3.0 || st.at("by_method.shap") != 1.0 || st.at("by_method.shap_kernel") != 1.0 ||
			st.at("by_method.lime") != 1.0 || st.at("by_status.completed") != 3.0 || st.at("by_status.pending") != 0.0 {
			t.Errorf("got stats %s, want 3 completed, one of each method", st.raw)
		}
		if ms, ok := st.at("mean_computation_time_ms").(float64); !ok || ms < 0 {
			t.Errorf("got mean_computation_time_ms %v, want a number", st.at("mean_computation_time_ms"))
		}
		if st := s.do("GET", "/explanations/stats?model_id="+bare, key, nil).want(t, 200); st.at("total") != 0.0 ||
			st.at("mean_computation_time_ms") != nil {
			t.Errorf("got stats %s of a model without explanations, want 0 and a null mean", st.raw)
		}
		s.do("GET", "/explanations/stats", key, nil).wantField(t, "model_id")
		s.do("GET", "/explanations?limit=51", key, nil).wantField(t, "limit")
		s.do("GET", "/explanations?status=running", key, nil).wantField(t, "status")

		other := s.signUp("other-admin")
		otherKey, _ := s.key(other, "read", "write")
		s.do("GET", "/explanations/"+acc.str("explanation_id"), otherKey, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
		s.do("POST", "/explanations/generate", otherKey, map[string]any{"model_id": model, "instance": instance}).
			wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("GET", "/explanations?model_id="+model, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("GET", "/explanations/stats?model_id="+model, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		if n := s.do("GET", "/explanations", otherKey, nil).want(t, 200).at("total"); n != 0.0 {
			t.Errorf("got %v explanations in another organization, want 0", n)
		}
	})
}

// TestExplanationSurvivesRestart: an explanation accepted by a server
// that computes none stays pending across its stop, and the next server
// picks it up and completes it.
func TestExplanationSurvivesRestart(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := b.cfg(t)
			paused := cfg
			paused.ExplainWorkers = -1
			s := start(t, paused)
			token := s.admin()
			model := s.model(token, "fraud", "1")
			s.do("PUT", "/models/"+model+"/artifact", token, map[string]any{"kind": "xgboost_json", "content": xgb,
				"features": explainFeatures}).want(t, 200)
			id := s.do("POST", "/explanations/generate", token, map[string]any{"model_id": model,
				"instance": explainRow(g.rows[1])}).want(t, http.StatusAccepted).str("explanation_id")
			if got := s.do("GET", "/explanations/"+id, token, nil).want(t, 200).str("status"); got != "pending" {
				t.Fatalf("got status %q on a server computing no explanations, want pending", got)
			}
			s.shutdown()

			s = start(t, cfg)
			r := pollExplanation(t, s, token, id, "completed")
			if x, _ := r.at("feature_weights.c").(float64); math.Abs(x-g.values[1][2]) > 1e-9 {
				t.Errorf("got weight %v of c after the restart, want %v", r.at("feature_weights.c"), g.values[1][2])
			}
		})
	}
}

// TestExplainLoggedPrediction: a prediction logged through the API is
// explained by its id on both pipelines (embedded; Kafka and ClickHouse): its input_data is the instance
// (exact SHAP equal to shap.TreeExplainer's, Kernel SHAP equal to the
// same instance sent inline), the record keeps prediction_id and GET
// /explanations/by-prediction/{prediction_id} answers the newest; an
// unknown or another organization's prediction is a 404.
func TestExplainLoggedPrediction(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
			"features": explainFeatures}).want(t, 200)
		instance := explainRow(g.rows[0])
		s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "prediction_id": "p-explain-1",
			"input_data": instance, "output_data": map[string]any{"score": g.output[0]}}).want(t, http.StatusCreated)
		s.waitStored(t, key, model, 1)

		acc := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "prediction_id": "p-explain-1"}).
			want(t, http.StatusAccepted)
		if acc.str("prediction_id") != "p-explain-1" {
			t.Errorf("got prediction_id %v in the 202, want p-explain-1", acc.at("prediction_id"))
		}
		r := pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
		if r.str("prediction_id") != "p-explain-1" || r.str("algorithm") != "tree_shap" {
			t.Errorf("got prediction_id %v, algorithm %v, want p-explain-1, tree_shap", r.at("prediction_id"), r.at("algorithm"))
		}
		near := func(what string, got any, want float64) {
			t.Helper()
			if x, ok := got.(float64); !ok || math.Abs(x-want) > 1e-9 {
				t.Errorf("%s: got %v, want %v", what, got, want)
			}
		}
		near("base_value", r.at("base_value"), g.base)
		for i, f := range explainFeatures {
			near("feature_weights."+f.(string), r.at("feature_weights."+f.(string)), g.values[0][i])
		}

		background := g.completeBackground()
		inline := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance,
			"method": "kernel_shap", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		logged := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "prediction_id": "p-explain-1",
			"method": "kernel_shap", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		want := pollExplanation(t, s, key, inline, "completed")
		got := pollExplanation(t, s, key, logged, "completed")
		for _, f := range explainFeatures {
			w, _ := want.at("feature_weights." + f.(string)).(float64)
			near("kernel_shap feature_weights."+f.(string), got.at("feature_weights."+f.(string)), w)
		}

		newest := s.do("GET", "/explanations/by-prediction/p-explain-1", key, nil).want(t, 200)
		if newest.str("id") != logged {
			t.Errorf("got explanation %v by prediction, want the newest, %s", newest.at("id"), logged)
		}
		s.do("GET", "/explanations/by-prediction/p-nothing", key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
		if list := s.do("GET", "/explanations?model_id="+model, key, nil).want(t, 200); list.at("total") != 3.0 {
			t.Errorf("got %v explanations, want 3", list.at("total"))
		}

		s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "prediction_id": "p-unknown"}).
			wantError(t, http.StatusNotFound, "NOT_FOUND")
		s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "prediction_id": "p-explain-1",
			"instance": instance}).wantField(t, "instance")

		other := s.signUp("other-admin")
		otherKey, _ := s.key(other, "read", "write")
		otherModel := s.model(otherKey, "fraud", "1")
		s.do("POST", "/explanations/generate", otherKey, map[string]any{"model_id": otherModel, "prediction_id": "p-explain-1"}).
			wantError(t, http.StatusNotFound, "NOT_FOUND")
		s.do("POST", "/explanations/generate", otherKey, map[string]any{"model_id": model, "prediction_id": "p-explain-1"}).
			wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("GET", "/explanations/by-prediction/p-explain-1", otherKey, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
	})
}

// TestExplanationConfig: a model's explanation configuration answers the
// defaults until one is put, is stored on every backend, and is applied:
// default_method is the method of a request naming none, enabled false
// refuses generation with 409; bad values are 422 naming the field and
// another organization's model is a 404.
func TestExplanationConfig(t *testing.T) {
	g := loadSHAPGolden(t, "xgb_bin")
	xgb := testModelFile(t, "xgb_bin.json")
	eachBackend(t, nil, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
			"features": explainFeatures}).want(t, 200)
		path := "/explanations/config/" + model
		got := s.do("GET", path, key, nil).want(t, 200)
		if got.at("enabled") != true || got.str("default_method") != "shap" || got.at("auto_explain") != false ||
			got.at("cache_enabled") != true || got.at("cache_ttl_hours") != 24.0 || got.at("updated_at") != nil {
			t.Errorf("got %s, want the defaults (enabled, shap, no auto-explain, cache 24 h, updated_at null)", got.raw)
		}
		put := s.do("PUT", path, key, map[string]any{"default_method": "kernel_shap", "auto_explain": true,
			"cache_enabled": false, "cache_ttl_hours": 48}).want(t, 200)
		got = s.do("GET", path, key, nil).want(t, 200)
		if string(got.raw) != string(put.raw) || got.str("default_method") != "shap_kernel" || got.at("auto_explain") != true ||
			got.at("cache_enabled") != false || got.at("cache_ttl_hours") != 48.0 || got.at("updated_at") == nil {
			t.Errorf("got %s after the put, want %s (shap_kernel, auto-explain, no cache, 48 h)", got.raw, put.raw)
		}

		background := g.completeBackground()
		instance := explainRow(g.rows[0])
		acc := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance,
			"background": background}).want(t, http.StatusAccepted)
		if acc.str("method") != "shap_kernel" {
			t.Errorf("got method %v for a request naming none, want the model's default_method shap_kernel (put as its alias kernel_shap)", acc.at("method"))
		}
		pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
		if m := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance,
			"method": "shap"}).want(t, http.StatusAccepted).str("method"); m != "shap" {
			t.Errorf("got method %q for a request naming shap, want shap", m)
		}

		s.do("PUT", path, key, map[string]any{"enabled": false}).want(t, 200)
		s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance}).
			wantError(t, http.StatusConflict, "RESOURCE_CONFLICT")
		if got := s.do("PUT", path, key, map[string]any{}).want(t, 200); got.at("enabled") != true || got.str("default_method") != "shap" {
			t.Errorf("got %s after an empty put, want the defaults", got.raw)
		}
		s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance}).want(t, http.StatusAccepted)

		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"default_method": "tree"}, "default_method"},
			{map[string]any{"cache_ttl_hours": 0}, "cache_ttl_hours"},
			{map[string]any{"cache_ttl_hours": 8761}, "cache_ttl_hours"},
			{map[string]any{"enabled": "yes"}, "enabled"},
		} {
			s.do("PUT", path, key, tc.body).wantField(t, tc.field)
		}
		if got := s.do("GET", path, key, nil).want(t, 200); got.at("enabled") != true {
			t.Errorf("got %s after refused puts, want the configuration unchanged", got.raw)
		}

		other := s.signUp("other-admin")
		otherKey, _ := s.key(other, "read", "write")
		s.do("GET", path, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("PUT", path, otherKey, map[string]any{"enabled": false}).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		if got := s.do("GET", path, key, nil).want(t, 200); got.at("enabled") != true {
			t.Errorf("got %s after another organization's put, want it unchanged", got.raw)
		}
	})
}

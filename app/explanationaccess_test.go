package app

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// servedGolden is explanation/modelserver/testdata/golden.json: shap's
// Kernel SHAP of the scikit-learn model that server.py serves.
type servedGolden struct {
	Features []string `json:"features"`
	Kernel   struct {
		Background [][]float64 `json:"background"`
		Rows       [][]float64 `json:"rows"`
		Base       float64     `json:"base"`
		Values     [][]float64 `json:"values"`
		Outputs    []float64   `json:"outputs"`
	} `json:"kernel"`
}

// servedFixture reads the golden, starts server.py for the test and
// returns the golden's background rows as instances.
func servedFixture(t *testing.T) (servedGolden, *testenv.ModelServer, []any) {
	t.Helper()
	raw, err := os.ReadFile("../explanation/modelserver/testdata/golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var g servedGolden
	if err := json.Unmarshal(raw, &g); err != nil {
		t.Fatal(err)
	}
	srv := testenv.StartModelServer(t, "../explanation/modelserver/testdata/server.py")
	background := make([]any, len(g.Kernel.Background))
	for i, r := range g.Kernel.Background {
		background[i] = g.named(r)
	}
	return g, srv, background
}

// named turns a row into an instance of the golden's features.
func (g servedGolden) named(row []float64) map[string]any {
	out := map[string]any{}
	for i, f := range g.Features {
		out[f] = row[i]
	}
	return out
}

// nearValue fails unless got is a number within 1e-9 of want.
func nearValue(t *testing.T, what string, got any, want float64) {
	t.Helper()
	if x, ok := got.(float64); !ok || math.Abs(x-want) > 1e-9*max(1, math.Abs(want)) {
		t.Errorf("%s: got %v, want %v", what, got, want)
	}
}

// TestServedExplanations: a real scikit-learn model behind server.py (KServe
// V2 on loopback) is explained through POST /explanations/generate on
// both pipelines: Kernel SHAP equals shap.KernelExplainer's values to 1e-9
// in 5 batched requests, LIME completes, both say model_access served; a
// budget too small, or a server that is not there, fails the explanation
// with the reason; bad endpoints and instances are 422 naming the field;
// the headers are sealed and masked; another organization sees a 404.
func TestServedExplanations(t *testing.T) {
	g, srv, background := servedFixture(t)
	allow := func(c *config.Config) { c.OutboundAllow = []string{"127.0.0.1"} }
	eachPipelineWith(t, allow, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "credit", "1")
		serving := map[string]any{"protocol": "kserve_v2", "url": srv.URL, "model_name": "credit", "features": g.Features,
			"max_batch": 64, "request_budget": 10, "headers": map[string]any{"Authorization": "Bearer s3cret"}}
		put := s.do("PUT", "/models/"+model+"/serving", key, serving).want(t, 200)
		if put.str("headers.Authorization") != "********" || strings.Contains(string(put.raw), "s3cret") {
			t.Errorf("got %s, want the header masked", put.raw)
		}
		s.do("GET", "/models/"+model+"/serving", key, nil).want(t, 200)

		for i, row := range g.Kernel.Rows[:2] {
			id := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": g.named(row),
				"method": "kernel_shap", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
			r := pollExplanation(t, s, key, id, "completed")
			if r.str("model_access") != "served" || r.str("algorithm") != "kernel_shap" || r.str("exactness") != "exact" ||
				r.at("model_requests") != 5.0 || r.at("fidelity") != nil {
				t.Errorf("row %d: got %s, want served exact kernel_shap in 5 requests", i, r.raw)
			}
			if r.at("progress") != 1.0 || r.str("progress_detail.unit") != "coalitions" || r.at("progress_detail.done") == nil ||
				r.at("progress_detail.done") != r.at("progress_detail.total") {
				t.Errorf("row %d: got %s, want every coalition reported evaluated", i, r.raw)
			}
			nearValue(t, "base_value", r.at("base_value"), g.Kernel.Base)
			nearValue(t, "predicted_value", r.at("predicted_value"), g.Kernel.Outputs[i])
			for j, f := range g.Features {
				nearValue(t, fmt.Sprintf("row %d %s", i, f), r.at("feature_weights."+f), g.Kernel.Values[i][j])
			}
		}
		// LIME's 5000 rows take 79 requests of 64, past a budget of 10, so
		// it fails saying so.
		id := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": g.named(g.Kernel.Rows[2]),
			"method": "lime", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		if r := pollExplanation(t, s, key, id, "failed"); !strings.Contains(r.str("error"), "request budget exhausted") {
			t.Errorf("got error %q, want the request budget", r.str("error"))
		}
		// With max_batch 1000 LIME takes 6 requests: a budget of 5 covers
		// the sample but not the instance's own call, and fails saying so.
		serving["max_batch"], serving["request_budget"] = 1000, 5
		serving["headers"] = map[string]any{"Authorization": "********"}
		s.do("PUT", "/models/"+model+"/serving", key, serving).want(t, 200)
		id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": g.named(g.Kernel.Rows[2]),
			"method": "lime", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		if r := pollExplanation(t, s, key, id, "failed"); !strings.Contains(r.str("error"), "request budget exhausted") {
			t.Errorf("got error %q, want the request budget", r.str("error"))
		}
		serving["request_budget"] = 10
		s.do("PUT", "/models/"+model+"/serving", key, serving).want(t, 200)
		id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": g.named(g.Kernel.Rows[2]),
			"method": "lime", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		if r := pollExplanation(t, s, key, id, "completed"); r.str("model_access") != "served" || r.str("algorithm") != "lime" ||
			r.at("model_requests") != 6.0 {
			t.Errorf("got %s, want served lime in 6 requests", r.raw)
		}
		if r := s.do("GET", "/explanations/"+id, key, nil).want(t, 200); r.str("progress_detail.unit") != "rows" ||
			r.at("progress_detail.done") != 5000.0 || r.at("progress_detail.total") != 5000.0 {
			t.Errorf("got %s, want LIME's 5000 rows reported labelled", r.raw)
		}
		id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": g.named(g.Kernel.Rows[2]),
			"background": background}).want(t, http.StatusAccepted).str("explanation_id")
		if r := pollExplanation(t, s, key, id, "completed"); r.str("algorithm") != "kernel_shap" {
			t.Errorf("got algorithm %v for shap on a served model, want kernel_shap", r.at("algorithm"))
		}

		// A V2 model answering two outputs ("scaled" first): output_name
		// reads "predict" (shap's values again); a name it lacks fails the
		// explanation naming the outputs it has.
		multi := s.model(key, "credit-multi", "1")
		byName := map[string]any{"protocol": "kserve_v2", "url": srv.URL, "model_name": "credit-multi", "features": g.Features,
			"max_batch": 64, "request_budget": 10, "output_name": "predict"}
		if r := s.do("PUT", "/models/"+multi+"/serving", key, byName).want(t, 200); r.str("output_name") != "predict" {
			t.Errorf("got %s, want output_name predict", r.raw)
		}
		id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": multi, "instance": g.named(g.Kernel.Rows[0]),
			"method": "kernel_shap", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		r := pollExplanation(t, s, key, id, "completed")
		nearValue(t, "output predict: predicted_value", r.at("predicted_value"), g.Kernel.Outputs[0])
		for j, f := range g.Features {
			nearValue(t, "output predict: "+f, r.at("feature_weights."+f), g.Kernel.Values[0][j])
		}
		byName["output_name"] = "predict_proba"
		s.do("PUT", "/models/"+multi+"/serving", key, byName).want(t, 200)
		id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": multi, "instance": g.named(g.Kernel.Rows[0]),
			"method": "kernel_shap", "background": background}).want(t, http.StatusAccepted).str("explanation_id")
		if r := pollExplanation(t, s, key, id, "failed"); !strings.Contains(r.str("error"), `no output named "predict_proba"; its outputs are ["scaled" "predict"]`) {
			t.Errorf("got error %q, want the missing output and the outputs returned", r.str("error"))
		}
		if r := s.do("GET", "/models/"+model+"/serving", key, nil).want(t, 200); r.at("output_name") != nil {
			t.Errorf("got output_name %v for an endpoint without one, want null", r.at("output_name"))
		}

		// Bad input: 422 naming the field, nothing changed.
		gen := func(instance map[string]any, bg []any) response {
			return s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance,
				"method": "kernel_shap", "background": bg})
		}
		partial := g.named(g.Kernel.Rows[0])
		delete(partial, "tenure")
		gen(partial, background).wantField(t, "instance.tenure")
		extra := g.named(g.Kernel.Rows[0])
		extra["zip"] = 1.0
		gen(extra, background).wantField(t, "instance.zip")
		text := g.named(g.Kernel.Rows[0])
		text["age"] = "old"
		gen(text, background).wantField(t, "instance.age")
		gen(g.named(g.Kernel.Rows[0]), nil).wantField(t, "background")
		bad := func(field string, change map[string]any) {
			t.Helper()
			body := map[string]any{}
			for k, v := range serving {
				body[k] = v
			}
			for k, v := range change {
				body[k] = v
			}
			s.do("PUT", "/models/"+model+"/serving", key, body).wantField(t, field)
		}
		bad("protocol", map[string]any{"protocol": "grpc"})
		bad("url", map[string]any{"url": "http://[::1]:8080"})
		bad("url", map[string]any{"url": "http://169.254.169.254/"})
		bad("url", map[string]any{"url": "ftp://models.example.com"})
		bad("model_name", map[string]any{"protocol": "mlflow"})
		bad("features", map[string]any{"features": []string{}})
		bad("output_name", map[string]any{"output_name": ""})
		bad("output_name", map[string]any{"output_name": strings.Repeat("o", 201)})
		bad("output_name", map[string]any{"protocol": "kserve_v1", "output_name": "predict"})
		bad("output_name", map[string]any{"protocol": "mlflow", "model_name": nil, "output_name": "predict"})
		bad("max_batch", map[string]any{"max_batch": 0})
		bad("request_budget", map[string]any{"request_budget": 1001})
		bad("headers", map[string]any{"headers": map[string]any{"Host": "x"}})
		bad("headers", map[string]any{"headers": map[string]any{"X-Key": "********"}})
		if got := s.do("GET", "/models/"+model+"/serving", key, nil).want(t, 200); got.at("max_batch") != 1000.0 {
			t.Errorf("got max_batch %v after refused puts, want 1000", got.at("max_batch"))
		}

		// A server that is not there: the explanation fails with the reason.
		serving["url"], serving["protocol"], serving["model_name"] = "http://127.0.0.1:1", "mlflow", nil
		s.do("PUT", "/models/"+model+"/serving", key, serving).want(t, 200)
		id = gen(g.named(g.Kernel.Rows[0]), background).want(t, http.StatusAccepted).str("explanation_id")
		if r := pollExplanation(t, s, key, id, "failed"); !strings.Contains(r.str("error"), "model server") {
			t.Errorf("got error %q, want the model server's failure", r.str("error"))
		}

		other := s.signUp("other-admin")
		otherKey, _ := s.key(other, "read", "write")
		s.do("GET", "/models/"+model+"/serving", otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("PUT", "/models/"+model+"/serving", otherKey, serving).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("DELETE", "/models/"+model+"/serving", otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
		s.do("DELETE", "/models/"+model+"/serving", key, nil).want(t, http.StatusNoContent)
		s.do("GET", "/models/"+model+"/serving", key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
		s.do("DELETE", "/models/"+model+"/serving", key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
	})
}

// TestSurrogateExplanations: a model with neither artifact nor endpoint
// is 422 on model_id while it has fewer than 50 usable logged predictions
// (saying how many), then explained through a linear surrogate fitted on
// them, on both pipelines: labelled surrogate and approximate, with its
// fidelity (r2 on the held-out fifth, 1 for an exactly linear model), the
// SHAP values of the fitted line, and text fields of the input left out.
func TestSurrogateExplanations(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "pricing", "1")
		logRows := func(from, to int) {
			var items []any
			for i := from; i < to; i++ {
				a, b := float64(i%7), float64(i%5)*0.5
				items = append(items, map[string]any{"prediction_id": fmt.Sprintf("p-%d", i),
					"input_data":  map[string]any{"a": a, "b": b, "segment": "retail"},
					"output_data": map[string]any{"prediction": 3*a - 2*b + 1}})
			}
			s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
			s.waitStored(t, key, model, float64(to))
		}
		logRows(0, 40)
		instance := map[string]any{"a": 1.0, "b": 2.0, "segment": "retail"}
		r := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance})
		r.wantField(t, "model_id")
		if msg := fmt.Sprint(r.at("error.details")); !strings.Contains(msg, "40 usable") || !strings.Contains(msg, "at least 50") {
			t.Errorf("got %s, want the 422 to say 40 usable of at least 50", msg)
		}
		logRows(40, 100)
		id := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance}).
			want(t, http.StatusAccepted).str("explanation_id")
		e := pollExplanation(t, s, key, id, "completed")
		if e.str("model_access") != "surrogate" || e.str("algorithm") != "linear_shap" || e.str("exactness") != "approximate" ||
			e.at("model_requests") != nil {
			t.Errorf("got %s, want an approximate linear_shap of the surrogate", e.raw)
		}
		if e.str("background_source") != "logged_predictions" || e.at("background_rows") != 80.0 {
			t.Errorf("got background %v of %v rows, want the 80 training rows of logged predictions", e.at("background_source"), e.at("background_rows"))
		}
		if e.str("fidelity.metric") != "r2" || e.at("fidelity.train_rows") != 80.0 || e.at("fidelity.holdout_rows") != 20.0 {
			t.Errorf("got fidelity %v, want r2 on 80 training and 20 held-out rows", e.at("fidelity"))
		}
		if v, _ := e.at("fidelity.value").(float64); v < 1-1e-9 {
			t.Errorf("got r2 %v, want 1 for an exactly linear model", v)
		}
		if tree, _ := e.at("surrogate.fidelities.tree").(float64); e.str("surrogate.kind") != "linear" ||
			e.at("surrogate.fidelities.linear") != e.at("fidelity.value") || tree >= 1-1e-9 {
			t.Errorf("got surrogate %v, want the linear one kept over a worse tree", e.at("surrogate"))
		}
		nearValue(t, "predicted_value", e.at("predicted_value"), 3*1.0-2*2.0+1)
		sum, _ := e.at("base_value").(float64)
		for _, w := range e.body["feature_weights"].(map[string]any) {
			sum += w.(float64)
		}
		nearValue(t, "base_value plus the weights", sum, 3*1.0-2*2.0+1)
		if e.at("feature_weights.segment") != nil || e.at("instance.segment") != nil {
			t.Errorf("got the text field segment in %s, want it left out", e.raw)
		}
		// With a background whose mean is (2, 0.5), both SHAP methods give
		// the fitted line's coefficient × (x − mean): 3·(1−2), −2·(2−0.5).
		bg := []any{map[string]any{"a": 0.0, "b": 0.0}, map[string]any{"a": 4.0, "b": 1.0}}
		for _, method := range []string{"shap", "kernel_shap"} {
			id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": instance,
				"method": method, "background": bg}).want(t, http.StatusAccepted).str("explanation_id")
			k := pollExplanation(t, s, key, id, "completed")
			if k.str("model_access") != "surrogate" {
				t.Errorf("%s: got %s, want the surrogate", method, k.raw)
			}
			nearValue(t, method+" feature_weights.a", k.at("feature_weights.a"), -3)
			nearValue(t, method+" feature_weights.b", k.at("feature_weights.b"), -3)
		}
		s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": map[string]any{"a": 1.0, "c": 2.0}}).
			wantField(t, "instance.c")

		// A logged model that is a rule on two features: the tree wins
		// (r2 1 on the held-out rows; the line's is far lower) and TreeSHAP
		// explains it, its values adding up to the rule's output.
		rule := s.model(key, "rule", "1")
		var items []any
		for i := range 200 {
			x1, x2, x3 := float64(i*37%100)/100, float64(i*61%100)/100, float64(i%10)
			y := 0.0
			if x1 > 0.5 && x2 < 0.3 {
				y = 10
			}
			items = append(items, map[string]any{"prediction_id": fmt.Sprintf("r-%d", i),
				"input_data": map[string]any{"x1": x1, "x2": x2, "x3": x3}, "output_data": map[string]any{"prediction": y}})
		}
		s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": rule, "predictions": items}).want(t, 201)
		s.waitStored(t, key, rule, 200)
		id = s.do("POST", "/explanations/generate", key, map[string]any{"model_id": rule,
			"instance": map[string]any{"x1": 0.9, "x2": 0.1, "x3": 4.0}}).want(t, http.StatusAccepted).str("explanation_id")
		e = pollExplanation(t, s, key, id, "completed")
		linear, _ := e.at("surrogate.fidelities.linear").(float64)
		if e.str("surrogate.kind") != "tree" || e.str("algorithm") != "tree_shap" || e.str("perturbation") != "interventional" ||
			e.str("model_access") != "surrogate" || e.str("fidelity.metric") != "r2" || e.at("fidelity.value") != 1.0 ||
			e.at("surrogate.fidelities.tree") != 1.0 || linear > 0.9 {
			t.Errorf("got %s, want the tree surrogate (r2 1, the line's below 0.9) explained by TreeSHAP", e.raw)
		}
		nearValue(t, "the tree's predicted_value", e.at("predicted_value"), 10)
		sum, _ = e.at("base_value").(float64)
		for _, w := range e.body["feature_weights"].(map[string]any) {
			sum += w.(float64)
		}
		nearValue(t, "the tree's base_value plus the weights", sum, 10)
	})
}

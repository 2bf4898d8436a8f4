package app

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// TestExplanationBackground: a served scikit-learn model (server.py, KServe
// V2 on loopback) explained without background rows, on both backends: 422
// naming background while it has neither drift reference nor logged
// predictions; after a reference upload, completed with background_source
// drift_reference and the reference's rows (its text column left out, a
// row with a null skipped), Kernel SHAP values equal to the same request
// with those rows sent (and to shap's golden values); the request's rows
// win when sent; the reference's sample keeps at most 200 rows across an
// append; after the reference is deleted the newest logged predictions
// are the background.
func TestExplanationBackground(t *testing.T) {
	g, srv, background := servedFixture(t)
	// The reference: the golden background's rows as columns, a text column
	// and, third, a row whose age is null (a served model needs every
	// feature: skipped).
	reference := map[string][]any{"segment": {}}
	for _, f := range g.Features {
		reference[f] = []any{}
	}
	for i, r := range g.Kernel.Background {
		if i == 2 {
			for _, f := range g.Features {
				reference[f] = append(reference[f], 1.0)
			}
			reference["age"][len(reference["age"])-1] = nil
			reference["segment"] = append(reference["segment"], "retail")
		}
		for j, f := range g.Features {
			reference[f] = append(reference[f], r[j])
		}
		reference["segment"] = append(reference["segment"], "retail")
	}
	allow := func(c *config.Config) { c.OutboundAllow = []string{"127.0.0.1"} }
	eachBackend(t, allow, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "credit", "1")
		s.do("PUT", "/models/"+model+"/serving", key, map[string]any{"protocol": "kserve_v2", "url": srv.URL, "model_name": "credit",
			"features": g.Features, "max_batch": 64, "request_budget": 20}).want(t, 200)
		explain := func(bg []any) response {
			t.Helper()
			body := map[string]any{"model_id": model, "instance": g.named(g.Kernel.Rows[0]), "method": "kernel_shap"}
			if bg != nil {
				body["background"] = bg
			}
			return s.do("POST", "/explanations/generate", key, body)
		}
		done := func(bg []any, source string, rows float64) response {
			t.Helper()
			r := pollExplanation(t, s, key, explain(bg).want(t, http.StatusAccepted).str("explanation_id"), "completed")
			if r.str("background_source") != source || r.at("background_rows") != rows {
				t.Fatalf("got background %v of %v rows, want %s of %v", r.at("background_source"), r.at("background_rows"), source, rows)
			}
			return r
		}
		explain(nil).wantField(t, "background")

		put := s.do("PUT", "/drift/reference/"+model, key, map[string]any{"reference_data": reference}).want(t, 200)
		if put.at("sample_rows") != float64(len(background)+1) {
			t.Errorf("got sample_rows %v, want %d", put.at("sample_rows"), len(background)+1)
		}
		fromReference := done(nil, "drift_reference", float64(len(background)))
		sent := done(background, "request", float64(len(background)))
		nearValue(t, "base_value", fromReference.at("base_value"), sent.at("base_value").(float64))
		nearValue(t, "base_value (golden)", fromReference.at("base_value"), g.Kernel.Base)
		for j, f := range g.Features {
			nearValue(t, f, fromReference.at("feature_weights."+f), sent.at("feature_weights."+f).(float64))
			nearValue(t, f+" (golden)", fromReference.at("feature_weights."+f), g.Kernel.Values[0][j])
		}

		// Another organization's model id reads no reference.
		other := s.signUp("other-admin")
		otherKey, _ := s.key(other, "read", "write")
		s.do("POST", "/explanations/generate", otherKey, map[string]any{"model_id": model, "instance": g.named(g.Kernel.Rows[0]),
			"method": "kernel_shap"}).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")

		// 150 rows, then 150 more appended: 300 profiled, 200 sampled.
		column := func(from int) map[string]any {
			out := map[string]any{}
			for j, f := range g.Features {
				values := make([]any, 150)
				for i := range values {
					values[i] = float64(from+i) + float64(j)
				}
				out[f] = values
			}
			return out
		}
		s.do("PUT", "/drift/reference/"+model, key, map[string]any{"reference_data": column(0)}).want(t, 200)
		app := s.do("POST", "/drift/reference/"+model+"/append", key, map[string]any{"reference_data": column(150)}).want(t, 200)
		if app.at("sample_rows") != 200.0 || app.at("reference_data.rows") != 300.0 {
			t.Errorf("got %v rows sampled of %v, want 200 of 300", app.at("sample_rows"), app.at("reference_data.rows"))
		}
		if got := s.do("GET", "/drift/reference/"+model, key, nil).want(t, 200); got.at("sample_rows") != 200.0 {
			t.Errorf("got sample_rows %v on GET, want 200", got.at("sample_rows"))
		}
		s.do("DELETE", "/drift/reference/"+model, key, nil).want(t, http.StatusNoContent)
		explain(nil).wantField(t, "background")

		// Without a reference, the newest logged predictions' inputs.
		var items []any
		for i, r := range g.Kernel.Background {
			items = append(items, map[string]any{"prediction_id": fmt.Sprintf("p-%d", i), "input_data": g.named(r),
				"output_data": map[string]any{"prediction": 0.5}})
		}
		s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
		s.waitStored(t, key, model, float64(len(items)))
		logged := done(nil, "logged_predictions", float64(len(items)))
		nearValue(t, "base_value (logged)", logged.at("base_value"), g.Kernel.Base)
	})
}

// TestExplanationBackgroundArtifact: linear SHAP of an uploaded linear
// model without background rows, on both backends: 422 naming background
// with no reference; then the reference's rows (a row with a null
// skipped: a linear model has no missing values), weights coef × (x −
// mean of those rows); the second identical request comes from the cache
// saying drift_reference; a new reference is a new key (computed afresh,
// its own mean), and the same rows sent in the request are not taken from
// the reference's cache entry.
func TestExplanationBackgroundArtifact(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "line", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "linear", "features": []string{"a", "b"},
			"coefficients": []float64{2, -1}, "intercept": 0.5, "link": "identity"}).want(t, 200)
		s.do("PUT", "/explanations/config/"+model, key, map[string]any{"cache_ttl_hours": 2}).want(t, 200)
		body := map[string]any{"model_id": model, "instance": map[string]any{"a": 4.0, "b": 1.0}}
		s.do("POST", "/explanations/generate", key, body).wantField(t, "background")
		generate := func(b map[string]any, cached bool, source string, rows, wa, wb float64) {
			t.Helper()
			acc := s.do("POST", "/explanations/generate", key, b).want(t, http.StatusAccepted)
			if acc.at("cached") != cached {
				t.Fatalf("got cached %v, want %v", acc.at("cached"), cached)
			}
			r := pollExplanation(t, s, key, acc.str("explanation_id"), "completed")
			if r.str("background_source") != source || r.at("background_rows") != rows {
				t.Errorf("got background %v of %v rows, want %s of %v", r.at("background_source"), r.at("background_rows"), source, rows)
			}
			nearValue(t, "feature_weights.a", r.at("feature_weights.a"), wa)
			nearValue(t, "feature_weights.b", r.at("feature_weights.b"), wb)
		}
		s.do("PUT", "/drift/reference/"+model, key, map[string]any{"reference_data": map[string]any{
			"a": []any{1.0, 3.0, nil, 5.0}, "b": []any{2.0, 4.0, 7.0, 6.0}, "city": []any{"Oslo", "Bergen", "Oslo", "Tromsø"}}}).want(t, 200)
		// Mean of the usable rows (3, 4): 2·(4−3), −1·(1−4).
		generate(body, false, "drift_reference", 3, 2, 3)
		generate(body, true, "drift_reference", 3, 2, 3)
		sent := map[string]any{"model_id": model, "instance": body["instance"], "background": []any{
			map[string]any{"a": 1.0, "b": 2.0}, map[string]any{"a": 3.0, "b": 4.0}, map[string]any{"a": 5.0, "b": 6.0}}}
		generate(sent, false, "request", 3, 2, 3)
		s.do("PUT", "/drift/reference/"+model, key, map[string]any{"reference_data": map[string]any{
			"a": []any{0.0, 2.0}, "b": []any{0.0, 2.0}}}).want(t, 200)
		// Mean (1, 1): 2·(4−1), −1·(1−1).
		generate(body, false, "drift_reference", 2, 6, 0)
	})
}

package app

import (
	"net/http"
	"testing"
)

// TestDriftReference covers PUT, POST .../append, GET and DELETE
// /drift/reference/{model_id} on every backend, then a scheduled run against the uploaded reference:
// traffic like the uploaded data gets no drift, where the model's own
// first day (shifted) would have.
func TestDriftReference(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			s := startDrift(t, p.cfg(t))
			key, _ := s.key(s.admin(), "read", "write")
			model := s.model(key, "fraud", "1")
			path := "/drift/reference/" + model

			s.do("GET", path, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
			for _, tc := range []struct {
				body  any
				field string
			}{
				{map[string]any{}, "reference_data"},
				{map[string]any{"reference_data": map[string]any{}}, "reference_data"},
				{map[string]any{"reference_data": map[string]any{"x": []any{}}}, "reference_data.x"},
				{map[string]any{"reference_data": map[string]any{"a": []any{1, 2}, "x": []any{1}}}, "reference_data.x"},
				{map[string]any{"reference_data": map[string]any{"x": []any{1, map[string]any{"v": 1}}}}, "reference_data.x[1]"},
				{map[string]any{"reference_data": map[string]any{"x": []any{1}}, "prediction_data": map[string]any{"score": []any{}}}, "prediction_data.score"},
				{map[string]any{"reference_data": map[string]any{"x": "1,2"}}, "reference_data"},
				{map[string]any{"model_id": "other", "reference_data": map[string]any{"x": []any{1}}}, "model_id"},
			} {
				s.do("PUT", path, key, tc.body).wantField(t, tc.field)
			}
			s.do("GET", path, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND") // nothing stored by refusals

			xs, scores, plans := make([]any, 500), make([]any, 500), make([]any, 500)
			for i := range xs {
				v := float64(i) / 500
				xs[i], scores[i], plans[i] = v+5, 0.1+v/5+0.5, []any{"a", "b", nil}[i%3]
			}
			// A replaced first upload, then the data in two parts.
			s.do("PUT", path, key, map[string]any{"reference_data": map[string]any{"y": []any{1, 2}}}).want(t, 200)
			s.do("PUT", path, key, map[string]any{"reference_data": map[string]any{"x": xs[:250], "plan": plans[:250]}}).want(t, 200)
			put := s.do("POST", path+"/append", key, map[string]any{"reference_data": map[string]any{"x": xs[250:], "plan": plans[250:]},
				"prediction_data": map[string]any{"score": scores}}).want(t, 200)
			s.do("POST", path+"/append", key, map[string]any{"reference_data": map[string]any{"x": []any{}}}).wantField(t, "reference_data.x")
			got := s.do("GET", path, key, nil).want(t, 200)
			if string(got.raw) != string(put.raw) || got.at("reference_data.rows") != 500.0 || got.at("reference_data.features.y") != nil ||
				got.at("reference_data.features.x.type") != "numeric" || got.at("reference_data.features.plan.type") != "categorical" ||
				got.at("reference_data.features.plan.missing") != 166.0 || got.at("prediction_data.features.score.values") != 500.0 {
				t.Fatalf("got %s after PUT %s, want the summary of the upload", got.raw, put.raw)
			}

			other := s.signUp("other-admin")
			otherKey, _ := s.key(other, "read", "write")
			s.do("GET", path, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
			s.do("PUT", path, otherKey, map[string]any{"reference_data": map[string]any{"x": xs}}).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
			s.do("DELETE", path, otherKey, nil).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")
			s.do("POST", path+"/append", otherKey, map[string]any{"reference_data": map[string]any{"x": xs}}).wantError(t, http.StatusNotFound, "MODEL_NOT_FOUND")

			// Scheduled runs against the upload: the traffic is shifted from
			// the model's first day, like the uploaded data.
			s.do("PUT", "/drift-config/"+model, key, map[string]any{"schedule_config": map[string]any{"enabled": true,
				"reference": map[string]any{"type": "uploaded"}}}).want(t, 200)
			items := make([]map[string]any, 300)
			for i := range items {
				v := float64(i) / float64(len(items))
				items[i] = map[string]any{"input_data": map[string]any{"x": v + 5, "plan": []any{"a", "b", nil}[i%3]},
					"output_data": map[string]any{"score": 0.1 + v/5 + 0.5}}
			}
			s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
			var reports []any
			waitFor(t, "a data and a prediction report", func() bool {
				reports, _ = s.do("GET", "/drift/reports?model_id="+model, key, nil).want(t, 200).at("reports").([]any)
				return len(reports) == 2
			})
			for _, r := range reports {
				m := r.(map[string]any)
				if m["drift_detected"] != false || m["reference"].(map[string]any)["type"] != "uploaded" {
					t.Errorf("got report %v, want no drift against the uploaded reference", m)
				}
			}
			if x, _ := reports[0].(map[string]any)["features"].(map[string]any)["x"].(map[string]any); x != nil &&
				x["sample_size"].(map[string]any)["reference"] != 500.0 {
				t.Errorf("got x %v, want 500 reference values", x)
			}

			s.do("DELETE", path, key, nil).want(t, 204)
			s.do("GET", path, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
			s.do("DELETE", path, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
		})
	}
}

package app

import (
	"math/rand/v2"
	"testing"
)

// driftColumns returns n values from N(mean, 1) and n categories, seeded.
func driftColumns(seed uint64, n int, mean float64, plans []string) ([]float64, []any) {
	r := rand.New(rand.NewPCG(seed, 9))
	nums, cats := make([]float64, n), make([]any, n)
	for i := range nums {
		nums[i] = mean + r.NormFloat64()
		cats[i] = plans[r.IntN(len(plans))]
	}
	cats[0] = nil // a missing value
	return nums, cats
}

// TestDriftDetect covers POST /drift/detect end to end: the default
// configuration, the model's stored one, validation and the model lookup.
func TestDriftDetect(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "churn", "1")
		refAge, refPlan := driftColumns(1, 600, 40, []string{"basic", "pro"})
		curAge, curPlan := driftColumns(2, 300, 43, []string{"basic", "pro", "pro", "enterprise"})
		req := map[string]any{"model_id": model,
			"reference_data": map[string]any{"age": refAge, "plan": refPlan, "zip": refAge},
			"current_data":   map[string]any{"age": curAge, "plan": curPlan, "zip": refAge}}

		r := s.do("POST", "/drift/detect", admin, req).want(t, 200)
		for name, want := range map[string]string{"age": "ks_test", "plan": "chi_squared", "zip": "ks_test"} {
			if got := r.str("features." + name + ".method"); got != want {
				t.Errorf("%s: got method %q, want %q (chosen by type)", name, got, want)
			}
		}
		if r.at("drift_detected") != true || r.at("overall_drift_score") != 2.0/3 || r.at("features.zip.drift_detected") != false {
			t.Errorf("got drift %v, overall %v, zip %v, want true, 2/3, false; body %s",
				r.at("drift_detected"), r.at("overall_drift_score"), r.at("features.zip.drift_detected"), r.raw)
		}
		if r.at("features.age.severity") != "high" || r.at("features.zip.severity") != "low" || r.at("features.age.threshold") != 0.05 {
			t.Errorf("got age severity %v at threshold %v, zip %v, want high at 0.05, low", r.at("features.age.severity"),
				r.at("features.age.threshold"), r.at("features.zip.severity"))
		}
		if r.at("features.plan.missing.reference") != 1.0 || r.at("features.plan.sample_size.current") != 299.0 ||
			r.at("features.plan.p_value") == nil || r.at("features.age.feature_type") != "numeric" {
			t.Errorf("got plan missing %v, sample %v, p %v, want 1, 299 and a p-value; body %s", r.at("features.plan.missing"),
				r.at("features.plan.sample_size"), r.at("features.plan.p_value"), r.raw)
		}
		if r.str("model_id") != model || r.str("timestamp") == "" {
			t.Errorf("got model_id %q, timestamp %q, want %s and a time", r.str("model_id"), r.str("timestamp"), model)
		}

		// The request's config applies to every feature.
		req["config"] = map[string]any{"method": "psi", "threshold": 0.5}
		r = s.do("POST", "/drift/detect", admin, req).want(t, 200)
		if r.at("features.age.method") != "psi" || r.at("features.age.p_value") != nil || r.at("features.age.method_source") != "request" {
			t.Errorf("config psi: got %v", r.at("features.age"))
		}
		delete(req, "config")

		// The model's configuration: per-feature method, threshold and switch.
		s.do("PUT", "/drift-config/"+model, admin, map[string]any{
			"feature_configs": map[string]any{"age": map[string]any{"method": "js_divergence", "threshold": 0.9}, "zip": map[string]any{"enabled": false}},
		}).want(t, 200)
		r = s.do("POST", "/drift/detect", admin, req).want(t, 200)
		if r.at("features.age.method") != "js_divergence" || r.at("features.age.threshold") != 0.9 || r.at("features.age.drift_detected") != false ||
			r.at("features.zip") != nil || r.at("skipped_features.0") != nil && r.list != nil {
			t.Errorf("with the model's configuration: got %s", r.raw)
		}
		if sk, _ := r.at("skipped_features").([]any); len(sk) != 1 || sk[0] != "zip" {
			t.Errorf("got skipped_features %v, want [zip]", r.at("skipped_features"))
		}

		// Validation names the field; the model is looked up after it.
		for _, tc := range []struct {
			body  any
			field string
		}{
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": refAge}, "current_data": map[string]any{}}, "current_data"},
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": refAge}, "current_data": map[string]any{"agee": curAge}}, "current_data.age"},
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": []any{1, "x"}}, "current_data": map[string]any{"age": curAge}}, "reference_data.age"},
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": []any{nil, nil}}, "current_data": map[string]any{"age": curAge}}, "reference_data.age"},
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": refAge}, "current_data": map[string]any{"age": "young"}}, "current_data.age"},
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": refAge}, "current_data": map[string]any{"age": curAge}, "config": map[string]any{"method": "ttest"}}, "config.method"},
			{map[string]any{"model_id": model, "reference_data": map[string]any{"age": refAge}, "current_data": map[string]any{"age": curAge}, "config": map[string]any{"threshold": 2}}, "config.threshold"},
			{map[string]any{"reference_data": map[string]any{"age": refAge}, "current_data": map[string]any{"age": curAge}}, "model_id"},
		} {
			s.do("POST", "/drift/detect", admin, tc.body).wantField(t, tc.field)
		}
		s.do("POST", "/drift/detect", admin, `{"model_id": "`+model+`", "reference_data": {"age": [1, Infinity]}, "current_data": {"age": [1]}}`).
			wantField(t, "reference_data.age")
		s.do("POST", "/drift/detect", admin, `{"model_id": "x", "reference_data": {"age": [1, 2`).wantError(t, 400, "BAD_REQUEST")
		req["model_id"] = "00000000-0000-0000-0000-000000000000"
		s.do("POST", "/drift/detect", admin, req).wantError(t, 404, "MODEL_NOT_FOUND")

		// Another organization's model answers exactly like a missing one.
		other := s.signUp("mallory")
		req["model_id"] = model
		theirs := s.do("POST", "/drift/detect", other, req).wantError(t, 404, "MODEL_NOT_FOUND")
		req["model_id"] = "00000000-0000-0000-0000-000000000000"
		if random := s.do("POST", "/drift/detect", other, req); random.str("error.message") != theirs.str("error.message") {
			t.Errorf("got %s for A's model, want exactly %s", theirs.raw, random.raw)
		}
	})
}

// TestDriftConfig covers every /drift-config route.
func TestDriftConfig(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "fraud", "1")
		path := "/drift-config/" + model

		presets := s.do("GET", "/drift-config/presets", admin, nil).want(t, 200)
		if list, _ := presets.at("presets").([]any); len(list) != 3 || presets.at("default") != "medium" {
			t.Fatalf("got presets %s, want three and the default medium", presets.raw)
		}
		high := s.do("GET", "/drift-config/presets/high", admin, nil).want(t, 200)
		if high.at("threshold_config.ks_test") != 0.1 || high.at("threshold_config.severity.high") != 0.2 {
			t.Errorf("got high preset %s, want ks_test 0.1 and severity high 0.2", high.raw)
		}
		s.do("GET", "/drift-config/presets/extreme", admin, nil).wantError(t, 404, "NOT_FOUND")

		// Before any configuration: the default, not on file.
		r := s.do("GET", path, admin, nil).want(t, 200)
		if r.at("is_default") != true || r.at("sensitivity") != "medium" || r.at("created_at") != nil ||
			r.at("threshold_config.psi") != 0.2 || r.at("alert_config.min_severity") != "high" || r.str("model_id") != model {
			t.Fatalf("got %s, want the medium default, not on file", r.raw)
		}
		created := s.do("POST", path+"/default", admin, nil).want(t, 201)
		if created.at("is_default") != false || created.str("created_at") == "" || created.at("sensitivity") != "medium" {
			t.Fatalf("got %s, want a stored medium configuration", created.raw)
		}
		s.do("POST", path+"/default", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")

		r = s.do("POST", path+"/sensitivity/low", admin, nil).want(t, 200)
		if r.at("sensitivity") != "low" || r.at("threshold_config.ks_test") != 0.01 || r.str("created_at") != created.str("created_at") {
			t.Fatalf("got %s, want the low preset's thresholds and the first created_at", r.raw)
		}
		s.do("POST", path+"/sensitivity/extreme", admin, nil).wantError(t, 404, "NOT_FOUND")

		full := map[string]any{
			"feature_configs":      map[string]any{"age": map[string]any{"method": "psi", "threshold": 0.25}, "zip": map[string]any{"enabled": false}},
			"concept_drift_config": map[string]any{"enabled": true, "metric": "f1_score", "window": "30d", "min_samples": 250},
			"alert_config":         map[string]any{"enabled": true, "min_severity": "medium", "channels": []any{map[string]any{"type": "email", "target": "ml@example.com"}}},
			"schedule_config": map[string]any{"enabled": true, "interval": "6h", "window": "7d",
				"reference": map[string]any{"type": "window", "start": "2025-01-01T00:00:00Z", "end": "2025-02-01T00:00:00Z"}},
			"threshold_config": map[string]any{"ks_test": 0.02, "chi_squared": 0.03, "psi": 0.3, "js_divergence": 0.15, "concept_drift": 0.1,
				"severity": map[string]any{"medium": 0.2, "high": 0.5}},
		}
		put := s.do("PUT", path, admin, full).want(t, 200)
		got := s.do("GET", path, admin, nil).want(t, 200)
		if string(got.raw) != string(put.raw) || got.at("sensitivity") != "custom" || got.at("feature_configs.age.threshold") != 0.25 ||
			got.at("feature_configs.zip.enabled") != false || got.at("schedule_config.reference.end") != "2025-02-01T00:00:00Z" ||
			got.at("alert_config.channels.0") != nil && got.list != nil {
			t.Fatalf("got %s after PUT %s, want the configuration sent", got.raw, put.raw)
		}
		// A GET answer can be sent back as it is.
		s.do("PUT", path, admin, got.raw).want(t, 200)
		// Parts left out take their defaults.
		r = s.do("PUT", path, admin, map[string]any{"threshold_config": map[string]any{"psi": 0.5}}).want(t, 200)
		if r.at("threshold_config.ks_test") != 0.05 || r.at("threshold_config.psi") != 0.5 || r.at("concept_drift_config.enabled") != true ||
			r.at("concept_drift_config.higher_is_better") != true {
			t.Errorf("got %s, want medium thresholds but psi 0.5, concept drift on (accuracy, higher is better)", r.raw)
		}
		// Which way a metric worsens is inferred from its name unless sent.
		for _, tc := range []struct {
			concept map[string]any
			want    bool
		}{
			{map[string]any{"metric": "rmse"}, false},
			{map[string]any{"metric": "rmse", "higher_is_better": true}, true},
			{map[string]any{"metric": "precision"}, true},
		} {
			r = s.do("PUT", path, admin, map[string]any{"concept_drift_config": tc.concept}).want(t, 200)
			if r.at("concept_drift_config.higher_is_better") != tc.want {
				t.Errorf("PUT concept_drift_config %v: got %s, want higher_is_better %v", tc.concept, r.raw, tc.want)
			}
		}

		for _, tc := range []struct {
			body  any
			field string
		}{
			{map[string]any{"threshold_config": map[string]any{"psi": 0}}, "threshold_config.psi"},
			{map[string]any{"threshold_config": map[string]any{"ks_test": 1.5}}, "threshold_config.ks_test"},
			{map[string]any{"threshold_config": map[string]any{"severity": map[string]any{"medium": 0.4, "high": 0.3}}}, "threshold_config.severity.high"},
			{map[string]any{"threshold_config": map[string]any{"psi": "high"}}, "threshold_config.psi"},
			{map[string]any{"feature_configs": map[string]any{"age": map[string]any{"method": "ttest"}}}, "feature_configs.age.method"},
			{map[string]any{"feature_configs": map[string]any{"age": map[string]any{"feature_type": "ordinal"}}}, "feature_configs.age.feature_type"},
			{map[string]any{"concept_drift_config": map[string]any{"window": "2d"}}, "concept_drift_config.window"},
			{map[string]any{"alert_config": map[string]any{"min_severity": "critical"}}, "alert_config.min_severity"},
			{map[string]any{"alert_config": map[string]any{"channels": []any{map[string]any{"type": "sms", "target": "1"}}}}, "alert_config.channels[0].type"},
			{map[string]any{"schedule_config": map[string]any{"interval": "5m"}}, "schedule_config.interval"},
			{map[string]any{"schedule_config": map[string]any{"reference": map[string]any{"type": "uploaded", "start": "2025-01-01T00:00:00Z"}}}, "schedule_config.reference"},
			{map[string]any{"schedule_config": map[string]any{"reference": map[string]any{"type": "file"}}}, "schedule_config.reference.type"},
			{map[string]any{"schedule_config": map[string]any{"reference": map[string]any{"type": "window", "start": "yesterday"}}}, "schedule_config.reference"},
			{map[string]any{"model_id": "another"}, "model_id"},
			{map[string]any{"thresholds": map[string]any{}}, "thresholds"},
		} {
			s.do("PUT", path, admin, tc.body).wantField(t, tc.field)
		}

		// Unknown models and another organization's answer alike.
		other := s.signUp("mallory")
		before := s.do("GET", path, admin, nil).want(t, 200)
		missing := "/drift-config/00000000-0000-0000-0000-000000000000"
		for _, op := range []struct{ method, suffix string }{{"GET", ""}, {"PUT", ""}, {"POST", "/default"}, {"POST", "/sensitivity/high"}} {
			theirs := s.do(op.method, path+op.suffix, other, map[string]any{}).wantError(t, 404, "MODEL_NOT_FOUND")
			random := s.do(op.method, missing+op.suffix, other, map[string]any{}).wantError(t, 404, "MODEL_NOT_FOUND")
			if theirs.str("error.message") != random.str("error.message") {
				t.Errorf("%s %s: got %s for A's model, want exactly %s", op.method, op.suffix, theirs.raw, random.raw)
			}
			s.do(op.method, missing+op.suffix, admin, map[string]any{}).wantError(t, 404, "MODEL_NOT_FOUND")
		}
		if after := s.do("GET", path, admin, nil).want(t, 200); string(after.raw) != string(before.raw) {
			t.Errorf("got %s after the other organization's calls, want %s", after.raw, before.raw)
		}

		// Deleting the model removes its configuration.
		s.do("DELETE", "/models/"+model, admin, nil).want(t, 204)
		s.do("GET", path, admin, nil).wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

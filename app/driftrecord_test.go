package app

import "testing"

// TestDriftDetectRecords (issue 41, point 9; spec 1: "a drift report
// arrives at high or critical severity"): POST /drift/detect on a
// registered model stores its result as a data drift report, listed by GET
// /drift/reports, counted by the trust score and shown as the model's
// drift_status; at high severity the processors draft a risk entry from it
// as from a stream report. "record": false stores nothing. Another
// organization neither detects on the model nor reads the report.
func TestDriftDetectRecords(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin, other := s.admin(), s.signUp("driftother")
		model := s.model(admin, "churn", "1")
		refAge, refPlan := driftColumns(1, 600, 40, []string{"basic", "pro"})
		curAge, curPlan := driftColumns(2, 300, 43, []string{"basic", "pro", "pro", "enterprise"})
		req := map[string]any{"model_id": model, "reference_data": map[string]any{"age": refAge, "plan": refPlan},
			"current_data": map[string]any{"age": curAge, "plan": curPlan}}
		r := s.do("POST", "/drift/detect", admin, req).want(t, 200)
		id := r.str("report_id")
		if id == "" || r.str("severity") != "high" {
			t.Fatalf("got %s, want a high-severity result with its report_id", r.raw)
		}
		report := s.do("GET", "/drift/reports/"+id, admin, nil).want(t, 200)
		if report.str("model_id") != model || report.str("drift_type") != "data" || report.str("severity") != "high" ||
			report.at("drift_detected") != true || report.str("reference.type") != "request" || report.at("features.age") == nil {
			t.Errorf("got report %s, want the result as a high data drift report", report.raw)
		}
		if l := s.do("GET", "/drift/reports?model_id="+model, admin, nil).want(t, 200); l.at("total") != float64(1) {
			t.Errorf("got %s, want the one report listed", l.raw)
		}
		if ts := trustScore(t, s, admin, model); ts.at("drift_component") == nil || ts.str("last_drift_report_at") == "" {
			t.Errorf("got trust score %s, want the report counted", ts.raw)
		}
		if m := s.do("GET", "/models/"+model, admin, nil).want(t, 200); m.str("drift_status.report_id") != id {
			t.Errorf("got model %s, want drift_status of report %s", m.raw, id)
		}
		drafted := waitDrafted(t, s, admin, model, 1)
		if e := drafted[0]; e.str("source_type") != "drift_report" || e.str("source_id") != id || e.str("severity") != "high" {
			t.Errorf("got drafted entry %s, want one from report %s", e.raw, id)
		}

		req["record"] = false
		if r := s.do("POST", "/drift/detect", admin, req).want(t, 200); r.str("report_id") != "" || r.str("severity") != "high" {
			t.Errorf("record false: got %s, want the result and no report_id", r.raw)
		}
		if l := s.do("GET", "/drift/reports?model_id="+model, admin, nil).want(t, 200); l.at("total") != float64(1) {
			t.Errorf("record false: got %s, want still one report", l.raw)
		}
		req["record"] = "no"
		s.do("POST", "/drift/detect", admin, req).wantField(t, "record")
		delete(req, "record")
		s.do("POST", "/drift/detect", other, req).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("GET", "/drift/reports/"+id, other, nil).wantError(t, 404, "NOT_FOUND")
	})
}

package app

import (
	"net/http"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// TestExplanationCancel (issue 16 point 5) on every backend, with no
// runner in the process so that explanations stay pending: progress is 0
// while pending; cancel makes it cancelled with progress 1, a second
// cancel answers 409, the stats and the status filter count it, another
// organization's cancel is a 404 and a body member a 422.
func TestExplanationCancel(t *testing.T) {
	xgb := testModelFile(t, "xgb_bin.json")
	idle := func(c *config.Config) { c.ExplainWorkers = -1 }
	eachBackend(t, idle, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		s.do("PUT", "/models/"+model+"/artifact", key, map[string]any{"kind": "xgboost_json", "content": xgb,
			"features": explainFeatures}).want(t, 200)
		id := s.do("POST", "/explanations/generate", key, map[string]any{"model_id": model, "instance": map[string]any{"a": 1}}).
			want(t, http.StatusAccepted).str("explanation_id")
		if r := s.do("GET", "/explanations/"+id, key, nil).want(t, 200); r.str("status") != "pending" || r.at("progress") != 0.0 {
			t.Fatalf("got status %v, progress %v, want pending, 0", r.at("status"), r.at("progress"))
		}
		other := s.signUp("other-admin")
		s.do("POST", "/explanations/"+id+"/cancel", other, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
		s.do("POST", "/explanations/"+id+"/cancel", key, map[string]any{"reason": "x"}).wantField(t, "reason")
		r := s.do("POST", "/explanations/"+id+"/cancel", key, nil).want(t, 200)
		if r.str("status") != "cancelled" || r.at("progress") != 1.0 || r.at("completed_at") == nil {
			t.Errorf("got status %v, progress %v, completed_at %v, want cancelled, 1, set", r.at("status"), r.at("progress"), r.at("completed_at"))
		}
		s.do("POST", "/explanations/"+id+"/cancel", key, nil).wantError(t, http.StatusConflict, "RESOURCE_CONFLICT")
		if st := s.do("GET", "/explanations/stats?model_id="+model, key, nil).want(t, 200); st.at("by_status.cancelled") != 1.0 {
			t.Errorf("got by_status.cancelled %v, want 1", st.at("by_status.cancelled"))
		}
		if l := s.do("GET", "/explanations?status=cancelled", key, nil).want(t, 200); l.at("total") != 1.0 {
			t.Errorf("got %v cancelled explanations listed, want 1", l.at("total"))
		}
	})
}

// TestExplanationIntegers: an integer-valued number written with a
// fraction is an integer, as the document's type says (Schemathesis sent
// cache_ttl_hours 1882.0); a fraction is a 422.
func TestExplanationIntegers(t *testing.T) {
	s := start(t, testConfig(t))
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "fraud", "1")
	if r := s.raw("PUT", "/explanations/config/"+model, key, "application/json", `{"cache_ttl_hours": 1882.0}`).want(t, 200); r.at("cache_ttl_hours") != 1882.0 {
		t.Errorf("got cache_ttl_hours %v, want 1882", r.at("cache_ttl_hours"))
	}
	s.raw("PUT", "/explanations/config/"+model, key, "application/json", `{"cache_ttl_hours": 2.5}`).wantField(t, "cache_ttl_hours")
	s.raw("POST", "/explanations/visualization", key, "application/json", `{"explanation_ids": ["x"], "plot_type": "summary", "max_features": 1.5}`).
		wantField(t, "max_features")
}

package app

import (
	"testing"
	"time"
)

// TestDashboard: the dashboard's figures and the heat map count the
// organization's models, predictions, alerts and drift, and nothing of
// another organization's.
func TestDashboard(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		// The process's clock reads 01:00 UTC of the next day, so that
		// "today" holds the whole test whenever it runs: the predictions are
		// logged then, the alert fired at the real time is hours before.
		s.skewTo(time.Now().UTC().Truncate(24 * time.Hour).Add(25 * time.Hour))
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		model := s.model(admin, "credit", "1")
		other := s.model(admin, "churn", "1")
		s.do("PATCH", "/models/"+other+"/status", admin, map[string]any{"status": "inactive"}).want(t, 200)
		items := make([]map[string]any, 5)
		for i := range items {
			items[i] = map[string]any{"input_data": map[string]any{"x": i}, "output_data": map[string]any{"y": 1}, "latency_ms": 10}
		}
		s.do("POST", "/predictions/log/batch", admin, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
		s.waitStored(t, admin, model, 5)
		rule := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id")
		first := s.fire(t, admin, rule, model)
		s.do("POST", "/alerts/instances/"+first+"/acknowledge", admin, nil).want(t, 200)

		st := s.do("GET", "/dashboard/statistics", viewer, nil).want(t, 200)
		if st.at("models.total") != 2.0 || st.at("models.active") != 1.0 || st.at("models.inactive") != 1.0 ||
			st.at("predictions.total") != 5.0 || st.at("predictions.today") != 5.0 || st.at("predictions.avg_per_day") != 5.0 ||
			st.at("alerts.acknowledged") != 1.0 || st.at("alerts.active") != 0.0 || st.at("drift.models_with_drift") != 0.0 {
			t.Fatalf("dashboard: got %s, want 2 models (1 active), 5 predictions today, 1 acknowledged alert, no drift", st.raw)
		}
		hm := s.do("GET", "/executive-dashboard/risk-register", viewer, nil).want(t, 200)
		cells := hm.at("cells").([]any)
		if len(cells) != 16 || hm.at("models") != 1.0 {
			t.Fatalf("heat map: got %s, want 16 cells and one model", hm.raw)
		}
		found := false
		for _, c := range cells {
			c := c.(map[string]any)
			ms := c["models"].([]any)
			if len(ms) == 1 {
				m := ms[0].(map[string]any)
				found = c["likelihood"] == "rare" && c["impact"] == "high" && m["model_id"] == model && m["unresolved"] == 1.0
			}
		}
		if !found {
			t.Fatalf("heat map: got %s, want the model in the rare x high cell with one unresolved alert", hm.raw)
		}
		b := s.signUp("mallory")
		if other := s.do("GET", "/dashboard/statistics", b, nil).want(t, 200); other.at("models.total") != 0.0 || other.at("alerts.acknowledged") != 0.0 {
			t.Fatalf("another organization's dashboard: got %s, want nothing of the first's", other.raw)
		}
		if other := s.do("GET", "/executive-dashboard/risk-register", b, nil).want(t, 200); other.at("models") != 0.0 {
			t.Fatalf("another organization's heat map: got %s, want empty", other.raw)
		}
	})
}

package app

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/drift"
)

// TestModelHealth (issue 41, point 7; spec 3: "also tracked
// automatically: ... active alerts, drift status"): GET /models/{id} and
// the list carry active_alerts (open or snoozed, as the dashboard counts
// them: an acknowledged one is not) and drift_status (the newest drift
// report's detection, severity, type, id and time; null before any).
// Another organization's model is 404 and its list shows none of them.
func TestModelHealth(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin, other := s.admin(), s.signUp("healthother")
		model := s.model(admin, "credit", "1")
		fresh := s.do("GET", "/models/"+model, admin, nil).want(t, 200)
		if fresh.at("active_alerts") != float64(0) || fresh.at("drift_status") != nil || fresh.raw == nil {
			t.Fatalf("got %s, want active_alerts 0 and drift_status null", fresh.raw)
		}
		first := s.fire(t, admin, s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id"), model)
		second := slowRule(model)
		second["name"] = "slower predictions"
		s.fire(t, admin, s.do("POST", "/alerts/rules", admin, second).want(t, 201).str("id"), model)
		s.do("POST", "/alerts/instances/"+first+"/acknowledge", admin, nil).want(t, 200)
		orgID := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		now := time.Now().UTC().Truncate(time.Second)
		older := drift.Report{ID: uuid.NewString(), OrgID: orgID, ModelID: model, DriftType: drift.TypeData, DriftDetected: true,
			OverallDriftScore: 0.5, Severity: drift.High, CreatedAt: now.Add(-time.Hour)}
		newer := drift.Report{ID: uuid.NewString(), OrgID: orgID, ModelID: model, DriftType: drift.TypePrediction, DriftDetected: false,
			Severity: drift.Low, CreatedAt: now}
		for _, r := range []drift.Report{older, newer} {
			if err := s.app.store.CreateDriftReport(t.Context(), r); err != nil {
				t.Fatalf("CreateDriftReport: %v", err)
			}
		}
		check := func(what string, m map[string]any) {
			t.Helper()
			st, _ := m["drift_status"].(map[string]any)
			if m["active_alerts"] != float64(1) || st == nil || st["report_id"] != newer.ID || st["drift_detected"] != false ||
				st["severity"] != string(drift.Low) || st["drift_type"] != drift.TypePrediction || st["reported_at"] != now.Format(time.RFC3339) {
				t.Errorf("%s: got %v, want one active alert and the newer report %s", what, m, newer.ID)
			}
		}
		check("GET /models/{id}", s.do("GET", "/models/"+model, admin, nil).want(t, 200).body)
		list := s.do("GET", "/models", admin, nil).want(t, 200).list
		if len(list) != 1 {
			t.Fatalf("got %d models, want 1", len(list))
		}
		check("GET /models", list[0].(map[string]any))
		s.do("GET", "/models/"+model, other, nil).wantError(t, 404, "MODEL_NOT_FOUND")
		if l := s.do("GET", "/models", other, nil).want(t, 200).list; len(l) != 0 {
			t.Errorf("got %v for another organization, want no models", l)
		}
	})
}

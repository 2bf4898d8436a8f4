package app

import (
	"math"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/drift"
)

// fairAudit runs a label-supplied audit on rows whose predictions are
// their labels, at equal rates in both groups (a fairness score of 1),
// and returns it completed.
func fairAudit(t *testing.T, s *server, token, model string) response {
	t.Helper()
	var g []string
	var y []int
	for i := range 200 {
		g, y = append(g, []string{"f", "m"}[i%2]), append(y, (i/2)%2)
	}
	id := s.do("POST", "/bias/audit", token, map[string]any{"model_id": model, "sensitive_attributes": []string{"gender"},
		"y_true": y, "y_pred": y, "group_data": map[string]any{"gender": g}}).want(t, 202).str("id")
	return pollAudit(t, s, token, id, "completed")
}

// trustScore reads the model's trust score.
func trustScore(t *testing.T, s *server, token, model string) response {
	t.Helper()
	return s.do("GET", "/trust-score/models/"+model, token, nil).want(t, 200)
}

// wantScore fails the test unless r's trust_score is want (nil: null).
func wantScore(t *testing.T, r response, want any) {
	t.Helper()
	got := r.at("trust_score")
	if w, ok := want.(float64); ok {
		if g, ok := got.(float64); ok && math.Abs(g-w) < 0.006 {
			return
		}
	} else if got == want {
		return
	}
	t.Fatalf("got trust_score %v, want %v: %s", got, want, r.raw)
}

// TestTrustScore: the weights and their 422s, a model's score from its
// snapshots as inputs arrive, the history and its trend, the portfolio,
// on every backend.
func TestTrustScore(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer, editor := s.user(admin, "vivian", "viewer"), s.user(admin, "eddie", "editor")
		model, idle := s.model(admin, "credit", "1"), s.model(admin, "idle", "1")

		c := s.do("GET", "/trust-score/config", viewer, nil).want(t, 200)
		if c.at("fairness_weight") != 0.4 || c.at("drift_weight") != 0.4 || c.at("explainability_weight") != 0.2 ||
			c.at("is_default") != true || c.at("updated_at") != nil {
			t.Fatalf("got config %s, want the defaults", c.raw)
		}
		s.do("PUT", "/trust-score/config", editor, map[string]any{"drift_weight": 0.5}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		for field, body := range map[string]map[string]any{
			"fairness_weight":       {"fairness_weight": 1.5},
			"drift_weight":          {"drift_weight": -0.1},
			"explainability_weight": {"explainability_weight": "high"},
			"org_id":                {"org_id": "x"},
		} {
			s.do("PUT", "/trust-score/config", admin, body).wantField(t, field)
		}
		s.do("PUT", "/trust-score/config", admin, map[string]any{"fairness_weight": 0, "drift_weight": 0, "explainability_weight": 0}).
			wantField(t, "fairness_weight")
		if got := s.do("GET", "/trust-score/config", viewer, nil).want(t, 200); string(got.raw) != string(c.raw) {
			t.Fatalf("got %s after refused PUTs, want the defaults unchanged", got.raw)
		}

		// No input yet: a null score.
		r := trustScore(t, s, viewer, model)
		wantScore(t, r, nil)
		if r.str("model_id") != model || r.str("model_name") != "credit" || r.at("inputs_available.fairness") != false ||
			r.at("inputs_available.drift") != false || r.at("inputs_available.explainability") != false || r.at("snapshot_at") != nil ||
			r.str("methodology_note") == "" || r.at("fairness_component") != nil {
			t.Fatalf("got %s, want a null score with no input", r.raw)
		}
		h := s.do("GET", "/trust-score/models/"+model+"/history", viewer, nil).want(t, 200)
		if pts, _ := h.at("data_points").([]any); len(pts) != 0 || h.at("trend_direction") != nil {
			t.Fatalf("got history %s, want no point and a null trend", h.raw)
		}

		// A fair audit: fairness alone, 100.
		audit := fairAudit(t, s, admin, model)
		if audit.at("overall_fairness_score") != 1.0 {
			t.Fatalf("got audit %s, want a fairness score of 1", audit.raw)
		}
		r = trustScore(t, s, viewer, model)
		wantScore(t, r, 100.0)
		if r.at("fairness_component") != 100.0 || r.at("weights.fairness") != 1.0 || r.at("drift_component") != nil ||
			r.at("explainability_component") != nil || r.at("explained_predictions_ratio") != nil || r.str("last_bias_audit_at") == "" ||
			r.at("inputs_available.fairness") != true || r.at("inputs_available.explainability") != false {
			t.Fatalf("got %s, want fairness alone at 100", r.raw)
		}

		// Half the features drift at high severity: drift 30, score (0.4 × 100 + 0.4 × 30) / 0.8.
		orgID := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.organization_id")
		report := drift.Report{ID: uuid.NewString(), OrgID: orgID, ModelID: model, DriftType: drift.TypeData, DriftDetected: true,
			OverallDriftScore: 0.5, Severity: drift.High, CreatedAt: time.Now()}
		if err := s.app.store.CreateDriftReport(t.Context(), report); err != nil {
			t.Fatalf("CreateDriftReport: %v", err)
		}
		r = trustScore(t, s, viewer, model)
		wantScore(t, r, 65.0)
		if r.at("drift_component") != 30.0 || r.at("weights.fairness") != 0.5 || r.at("weights.drift") != 0.5 || r.str("last_drift_report_at") == "" {
			t.Fatalf("got %s, want drift 30 and weights 0.5 each", r.raw)
		}
		h = s.do("GET", "/trust-score/models/"+model+"/history?days=7", viewer, nil).want(t, 200)
		pts, _ := h.at("data_points").([]any)
		if len(pts) != 2 || h.str("trend_direction") != "declining" || pts[1].(map[string]any)["cause_type"] != "drift_report" ||
			pts[1].(map[string]any)["cause_id"] != report.ID || pts[0].(map[string]any)["trust_score"] != 100.0 {
			t.Fatalf("got history %s, want 100 then 65, declining", h.raw)
		}
		p := s.do("GET", "/trust-score/portfolio", viewer, nil).want(t, 200)
		if p.at("org_average_trust_score") != 65.0 || p.at("models_with_insufficient_data") != 1.0 || len(p.at("models").([]any)) != 2 ||
			p.str("methodology_note") == "" {
			t.Fatalf("got portfolio %s, want the mean 65 over credit, idle without data", p.raw)
		}
		wantScore(t, trustScore(t, s, viewer, idle), nil)

		// New weights: a snapshot under them, at once.
		c = s.do("PUT", "/trust-score/config", admin, map[string]any{"drift_weight": 0.8}).want(t, 200)
		if c.at("is_default") != false || c.at("fairness_weight") != 0.4 || c.at("drift_weight") != 0.8 || c.str("updated_at") == "" {
			t.Fatalf("got %s, want drift 0.8 beside the default fairness", c.raw)
		}
		wantScore(t, trustScore(t, s, viewer, model), (0.4*100+0.8*30)/1.2)
		h = s.do("GET", "/trust-score/models/"+model+"/history", viewer, nil).want(t, 200)
		if pts, _ := h.at("data_points").([]any); len(pts) != 3 || pts[2].(map[string]any)["cause_type"] != "config" {
			t.Fatalf("got history %s, want a third point for the new weights", h.raw)
		}
		s.do("GET", "/trust-score/models/"+model+"/history?days=0", viewer, nil).wantField(t, "days")
		other := s.signUp("mallory")
		s.do("GET", "/trust-score/models/"+model, other, nil).wantError(t, 404, "MODEL_NOT_FOUND")
		if p := s.do("GET", "/trust-score/portfolio", other, nil).want(t, 200); len(p.at("models").([]any)) != 0 || p.at("org_average_trust_score") != nil {
			t.Fatalf("got another organization's portfolio %s, want it empty", p.raw)
		}
	})
}

package app

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/drift"
)

// tenancyBodies are valid bodies for the {id} routes that take one, so that
// validation cannot answer before the lookup does.
var tenancyBodies = map[string]any{
	"PATCH /models/:model_id":                map[string]any{"description": "changed by another organization"},
	"PATCH /models/:model_id/status":         map[string]any{"status": "inactive"},
	"PUT /models/:model_id/baseline":         map[string]any{"baseline_metrics": map[string]any{"accuracy": 0.1}},
	"PUT /users/:user_id/role":               map[string]any{"role": "viewer"},
	"PUT /drift/reference/:model_id":         map[string]any{"reference_data": map[string]any{"x": []any{1, 2}}},
	"POST /drift/reference/:model_id/append": map[string]any{"reference_data": map[string]any{"x": []any{1, 2}}},
}

// TestCrossOrganization: organization B calls every route that takes an id
// with organization A's ids, on every verb. Each answers exactly as a
// random id does, and A's records are unchanged afterwards.
func TestCrossOrganization(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		a := s.admin()
		model := s.model(a, "secret-model", "1")
		s.user(a, "alice", "editor")
		aliceID := s.do("GET", "/users?page_size=10", a, nil).at("users").([]any)[1].(map[string]any)["id"].(string)
		role := s.do("POST", "/roles", a, map[string]any{"name": "auditor", "permissions": []string{"models:read"}}).want(t, 201).str("id")
		keyRaw, keyID := s.key(a, "read")

		s.do("POST", "/predictions/log", a, map[string]any{"model_id": model, "prediction_id": "secret-prediction",
			"input_data": map[string]any{}, "output_data": map[string]any{}}).want(t, 201)
		waitFor(t, "A's prediction stored", func() bool {
			return s.do("GET", "/predictions/models/"+model+"/predictions/secret-prediction", a, nil).status == 200
		})
		orgA := s.do("GET", "/auth/me", a, nil).want(t, 200).str("user.organization_id")
		report := drift.Report{ID: uuid.NewString(), OrgID: orgA, ModelID: model, DriftType: drift.TypeData, Severity: drift.Low,
			CreatedAt: time.Now()}
		if err := s.app.store.CreateDriftReport(t.Context(), report); err != nil {
			t.Fatalf("CreateDriftReport: %v", err)
		}
		audit := s.do("POST", "/bias/audit", a, map[string]any{"model_id": model, "sensitive_attributes": []string{"g"},
			"y_pred": []int{1, 0}, "group_data": map[string]any{"g": []string{"x", "y"}}}).want(t, 202).str("id")
		pollAudit(t, s, a, audit, "completed")
		before := s.do("GET", "/models/"+model, a, nil).want(t, 200)
		b := s.signUp("mallory")
		ids := map[string]string{"model_id": model, "model_name": "secret-model", "user_id": aliceID, "role_id": role,
			"key_id": keyID, "prediction_id": "secret-prediction", "preset": "high", "report_id": report.ID, "audit_id": audit}
		routes := allRoutes()
		checked := 0
		for _, r := range routes {
			if !strings.Contains(r.Path, ":") || r.Path == "/drift-config/presets/:preset_name" { // a preset is no organization's
				continue
			}
			checked++
			name := r.Method + " " + r.Path
			t.Run(name, func(t *testing.T) {
				theirs, random := r.Path, r.Path
				for param, id := range ids {
					theirs = strings.ReplaceAll(theirs, ":"+param, id)
					random = strings.ReplaceAll(random, ":"+param, uuid.NewString())
				}
				if strings.Contains(theirs, ":") {
					t.Fatalf("no id of organization A for %s; add it to the test", r.Path)
				}
				body := tenancyBodies[name]
				if body == nil && (r.Method == "POST" || r.Method == "PUT" || r.Method == "PATCH") {
					body = map[string]any{}
				}
				got := s.do(r.Method, theirs, b, body)
				want := s.do(r.Method, random, b, body)
				if got.status != 404 || got.status != want.status || got.str("error.code") != want.str("error.code") ||
					got.str("error.message") != want.str("error.message") {
					t.Fatalf("got %d %s for A's id, want 404 exactly like a random id's %d %s", got.status, got.raw, want.status, want.raw)
				}
			})
		}
		if checked < 10 {
			t.Fatalf("checked %d routes with ids, want every one of them", checked)
		}
		after := s.do("GET", "/models/"+model, a, nil).want(t, 200)
		if string(after.raw) != string(before.raw) {
			t.Fatalf("got model %s after B's calls, want it unchanged: %s", after.raw, before.raw)
		}
		s.do("GET", "/models", keyRaw, nil).want(t, 200)
		s.do("GET", "/roles/"+role, a, nil).want(t, 200)
		if r := s.do("GET", "/users/"+aliceID, a, nil).want(t, 200); r.str("role") != "editor" {
			t.Fatalf("got alice's role %q, want editor", r.str("role"))
		}
		// Lists and filters never show A's records, whatever B asks for.
		if n := len(s.do("GET", "/models?owner_id="+before.str("owner_id"), b, nil).want(t, 200).list); n != 0 {
			t.Fatalf("got %d of A's models in B's list, want 0", n)
		}
		if total := s.do("GET", "/users", b, nil).at("total"); total != float64(1) {
			t.Fatalf("got %v users in B's organization, want 1", total)
		}
		if n := len(s.do("GET", "/api-keys", b, nil).at("api_keys").([]any)); n != 0 {
			t.Fatalf("got %d keys in B's list, want 0", n)
		}
		if total := s.do("GET", "/bias/audits?model_id="+model, b, nil).want(t, 200).at("total"); total != 0.0 {
			t.Fatalf("got %v of A's audits in B's list, want 0", total)
		}
	})
}

package app

import (
	"testing"
)

// TestRiskNullsAndLimit: a PATCH field sent as null clears it when it can
// be cleared and answers 422 naming it when it cannot (nothing changed);
// the list honours limit, page_size's alias.
func TestRiskNullsAndLimit(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		me := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.id")
		model := s.model(admin, "credit", "1")
		id := s.do("POST", "/risk-register", admin, riskEntry(map[string]any{"description": "why", "owner_id": me,
			"mitigation_plan": "retrain", "target_resolution_date": "2027-01-31", "review_cadence_days": 30,
			"model_ids": []string{model}})).want(t, 201).str("id")
		for _, field := range []string{"title", "category", "likelihood", "impact", "status"} {
			s.do("PATCH", "/risk-register/"+id, admin, map[string]any{field: nil}).wantField(t, field)
		}
		if r := s.do("GET", "/risk-register/"+id, admin, nil).want(t, 200); r.str("owner_id") != me || r.str("title") == "" {
			t.Fatalf("got %s after refused nulls, want the entry unchanged", r.raw)
		}
		r := s.do("PATCH", "/risk-register/"+id, admin, map[string]any{"description": nil, "owner_id": nil, "mitigation_plan": nil,
			"target_resolution_date": nil, "review_cadence_days": nil, "model_ids": nil}).want(t, 200)
		for _, field := range []string{"owner_id", "target_resolution_date", "review_cadence_days", "next_review_at"} {
			if r.at(field) != nil {
				t.Errorf("got %s %v after a null, want it cleared", field, r.at(field))
			}
		}
		if r.str("description") != "" || r.str("mitigation_plan") != "" || len(r.at("model_ids").([]any)) != 0 {
			t.Errorf("got %s, want description, mitigation plan and models cleared", r.raw)
		}

		s.do("POST", "/risk-register", admin, riskEntry(nil)).want(t, 201)
		s.do("POST", "/risk-register", admin, riskEntry(nil)).want(t, 201)
		page := s.do("GET", "/risk-register?limit=2", admin, nil).want(t, 200)
		if n := len(page.at("risk_entries").([]any)); n != 2 || page.at("page_size") != 2.0 || page.at("total") != 3.0 {
			t.Errorf("got %s, want 2 of the 3 entries", page.raw)
		}
		s.do("GET", "/risk-register?limit=0", admin, nil).wantField(t, "limit")
		s.do("GET", "/risk-register?limit=2&page_size=2", admin, nil).wantField(t, "limit")
	})
}

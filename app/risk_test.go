package app

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// riskEntry is a valid create body with the given changes applied.
func riskEntry(changes map[string]any) map[string]any {
	b := map[string]any{"title": "Credit model drifts on income", "category": "drift", "likelihood": 3, "impact": 4}
	for k, v := range changes {
		b[k] = v
	}
	return b
}

// TestRiskRegister: create, read, the 422s that change nothing, the
// workflow, scoring under thresholds at the time of change, reviews,
// filters and the pagination envelope, on every backend.
func TestRiskRegister(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		editor := s.user(admin, "eddie", "editor")
		model := s.model(admin, "credit", "1")
		me := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.id")
		other := s.signUp("mallory")
		foreignModel := s.model(other, "theirs", "1")
		foreignUser := s.do("GET", "/auth/me", other, nil).want(t, 200).str("user.id")

		e := s.do("POST", "/risk-register", editor, riskEntry(map[string]any{"owner_id": me, "model_ids": []string{model},
			"review_cadence_days": 30, "target_resolution_date": "2026-12-31", "description": "d", "mitigation_plan": "p"})).want(t, 201)
		id := e.str("id")
		if e.at("risk_score") != float64(12) || e.str("severity") != "high" || e.str("status") != "identified" ||
			e.str("owner_id") != me || e.at("model_ids").([]any)[0] != model || e.at("closed_at") != nil || e.at("source_type") != nil {
			t.Fatalf("got %s, want score 12, high, identified, owned by the admin, naming the model", e.raw)
		}
		created, _ := time.Parse(time.RFC3339Nano, e.str("created_at"))
		next, _ := time.Parse(time.RFC3339Nano, e.str("next_review_at"))
		if !next.Equal(created.AddDate(0, 0, 30)) {
			t.Fatalf("got next_review_at %s, want created_at %s plus 30 days", next, created)
		}
		if got := s.do("GET", "/risk-register/"+id, admin, nil).want(t, 200); string(got.raw) != string(e.raw) {
			t.Fatalf("got %s, want the created entry %s", got.raw, e.raw)
		}

		// Bad input answers 422 naming the field and stores nothing.
		for field, body := range map[string]map[string]any{
			"title":                  riskEntry(map[string]any{"title": strings.Repeat("x", 501)}),
			"category":               riskEntry(map[string]any{"category": "astrology"}),
			"likelihood":             riskEntry(map[string]any{"likelihood": 0}),
			"impact":                 riskEntry(map[string]any{"impact": 6}),
			"org_id":                 riskEntry(map[string]any{"org_id": "x"}),
			"status":                 riskEntry(map[string]any{"status": "closed"}),
			"model_ids":              riskEntry(map[string]any{"model_ids": []string{foreignModel}}),
			"owner_id":               riskEntry(map[string]any{"owner_id": foreignUser}),
			"target_resolution_date": riskEntry(map[string]any{"target_resolution_date": "31/12/2026"}),
			"review_cadence_days":    riskEntry(map[string]any{"review_cadence_days": 0}),
		} {
			s.do("POST", "/risk-register", editor, body).wantField(t, field)
		}
		missing := riskEntry(nil)
		delete(missing, "title")
		s.do("POST", "/risk-register", editor, missing).wantField(t, "title")
		s.do("POST", "/risk-register", editor, riskEntry(map[string]any{"title": strings.Repeat("é", 500)})).want(t, 201)
		if total := s.do("GET", "/risk-register", admin, nil).want(t, 200).at("total"); total != float64(2) {
			t.Fatalf("got %v entries, want 2: no refused create stored anything", total)
		}

		// Workflow: a status needs its reason; a forbidden move is a 422
		// naming status; nothing changes.
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "assessed"}).wantField(t, "status_reason")
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status_reason": "why"}).wantField(t, "status_reason")
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "mitigated", "status_reason": "skip", "title": "t2"}).wantField(t, "status")
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"likelihood": 6}).wantField(t, "likelihood")
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"model_ids": []string{foreignModel}}).wantField(t, "model_ids")
		if got := s.do("GET", "/risk-register/"+id, admin, nil).want(t, 200); string(got.raw) != string(e.raw) {
			t.Fatalf("got %s after refused changes, want it unchanged %s", got.raw, e.raw)
		}
		for _, move := range []string{"assessed", "mitigation_planned", "mitigated", "closed"} {
			r := s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": move, "status_reason": "to " + move}).want(t, 200)
			if r.str("status") != move {
				t.Fatalf("got %s, want status %s", r.raw, move)
			}
		}
		closed := s.do("GET", "/risk-register/"+id, admin, nil).want(t, 200)
		if closed.at("closed_at") == nil || closed.at("next_review_at") != nil {
			t.Fatalf("got %s, want closed_at set and no next review once closed", closed.raw)
		}
		s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "assessed", "status_reason": "no"}).wantField(t, "status")
		reopened := s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"status": "identified", "status_reason": "it came back"}).want(t, 200)
		if reopened.at("closed_at") != nil || reopened.at("next_review_at") == nil {
			t.Fatalf("got %s, want closed_at cleared and a next review on reopening", reopened.raw)
		}

		// Thresholds apply when likelihood or impact next change; stored
		// severities stay.
		s.do("PUT", "/risk-register/config", editor, map[string]any{"severity_thresholds": map[string]any{"critical": 12, "high": 8, "medium": 4}}).
			wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("PUT", "/risk-register/config", admin, map[string]any{"severity_thresholds": map[string]any{"critical": 12, "high": 8, "medium": 4}}).want(t, 200)
		if r := s.do("GET", "/risk-register/"+id, admin, nil).want(t, 200); r.str("severity") != "high" {
			t.Fatalf("got severity %s after the thresholds changed, want high kept", r.str("severity"))
		}
		if r := s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"title": "renamed"}).want(t, 200); r.str("severity") != "high" {
			t.Fatalf("got severity %s after a title edit, want high kept", r.str("severity"))
		}
		r := s.do("PATCH", "/risk-register/"+id, editor, map[string]any{"likelihood": 4, "impact": 3, "owner_id": ""}).want(t, 200)
		if r.str("severity") != "critical" || r.at("risk_score") != float64(12) || r.at("owner_id") != nil {
			t.Fatalf("got %s, want score 12 critical under the new thresholds and no owner", r.raw)
		}

		// Filters and the envelope.
		for i := range 3 {
			s.do("POST", "/risk-register", editor, riskEntry(map[string]any{"title": fmt.Sprint("bias ", i), "category": "bias",
				"likelihood": 1, "impact": 1})).want(t, 201)
		}
		page := s.do("GET", "/risk-register?category=bias&page=2&page_size=2", admin, nil).want(t, 200)
		if page.at("total") != float64(3) || page.at("total_pages") != float64(2) || page.at("has_next") != false ||
			page.at("has_prev") != true || page.at("prev_page") != float64(1) || page.at("next_page") != nil ||
			len(page.at("risk_entries").([]any)) != 1 {
			t.Fatalf("got %s, want page 2 of 2 with one bias entry", page.raw)
		}
		for q, want := range map[string]float64{"model_id=" + model: 1, "owner_id=" + me: 0, "status=identified": 5,
			"severity=critical": 1, "severity=low": 3, "status=closed": 0} {
			if got := s.do("GET", "/risk-register?"+q, admin, nil).want(t, 200).at("total"); got != want {
				t.Errorf("GET /risk-register?%s: got total %v, want %v", q, got, want)
			}
		}
		s.do("GET", "/risk-register?status=open", admin, nil).wantField(t, "status")
		s.do("GET", "/risk-register?severity=", admin, nil).wantField(t, "severity")
		s.do("GET", "/risk-register?category=", admin, nil).wantField(t, "category")
		s.do("GET", "/risk-register?page_size=1001", admin, nil).wantField(t, "page_size")
		s.do("GET", "/risk-register?model_id="+foreignModel, admin, nil).wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

// TestRiskConfig: defaults with is_default, partial overrides, 422s that
// store nothing.
func TestRiskConfig(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		viewer := s.user(admin, "vivian", "viewer")
		c := s.do("GET", "/risk-register/config", viewer, nil).want(t, 200)
		if c.at("is_default") != true || len(c.at("category_taxonomy").([]any)) != 8 || c.at("severity_thresholds.critical") != float64(20) ||
			c.at("likelihood_scale").([]any)[4].(map[string]any)["label"] != "Almost Certain" {
			t.Fatalf("got %s, want the spec's defaults", c.raw)
		}
		for field, body := range map[string]map[string]any{
			"category_taxonomy":            {"category_taxonomy": []string{}},
			"category_taxonomy[1]":         {"category_taxonomy": []string{"bias", "bias"}},
			"category_taxonomy[0]":         {"category_taxonomy": []string{"Not OK"}},
			"severity_thresholds":          {"severity_thresholds": map[string]any{"critical": 10, "high": 12, "medium": 4}},
			"severity_thresholds.medium":   {"severity_thresholds": map[string]any{"critical": 20, "high": 12}},
			"likelihood_scale":             {"likelihood_scale": []any{map[string]any{"value": 1, "label": "x"}}},
			"impact_scale[1].value":        {"impact_scale": scale(map[int]int{2: 4})},
			"is_default":                   {"is_default": false},
			"severity_thresholds.critical": {"severity_thresholds": map[string]any{"critical": 26, "high": 12, "medium": 4}},
		} {
			s.do("PUT", "/risk-register/config", admin, body).wantField(t, field)
		}
		if got := s.do("GET", "/risk-register/config", viewer, nil).want(t, 200); string(got.raw) != string(c.raw) {
			t.Fatalf("got %s after refused PUTs, want the defaults unchanged", got.raw)
		}
		r := s.do("PUT", "/risk-register/config", admin, map[string]any{"category_taxonomy": []string{"privacy", "bias"}}).want(t, 200)
		if r.at("is_default") != false || fmt.Sprint(r.at("category_taxonomy")) != "[privacy bias]" || r.at("severity_thresholds.critical") != float64(20) {
			t.Fatalf("got %s, want the new taxonomy beside default thresholds", r.raw)
		}
		r = s.do("PUT", "/risk-register/config", admin, map[string]any{"likelihood_scale": scale(nil)}).want(t, 200)
		if fmt.Sprint(r.at("category_taxonomy")) != "[privacy bias]" || r.at("likelihood_scale").([]any)[0].(map[string]any)["label"] != "level 1" {
			t.Fatalf("got %s, want the taxonomy kept and the scale replaced", r.raw)
		}
		s.do("POST", "/risk-register", admin, riskEntry(map[string]any{"category": "drift"})).wantField(t, "category")
		s.do("POST", "/risk-register", admin, riskEntry(map[string]any{"category": "privacy"})).want(t, 201)
	})
}

// scale is a valid 1-5 scale, with the values of wrong's positions
// replaced.
func scale(wrong map[int]int) []any {
	var out []any
	for i := 1; i <= 5; i++ {
		v := i
		if w, ok := wrong[i]; ok {
			v = w
		}
		out = append(out, map[string]any{"value": v, "label": fmt.Sprint("level ", i)})
	}
	return out
}

package app

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/platform/config"
)

// slowRule is a valid rule body on the model ("" for every model).
func slowRule(model string) map[string]any {
	body := map[string]any{"name": "slow predictions", "alert_type": "performance", "severity": "high",
		"conditions": []any{map[string]any{"metric_name": "latency_p95_ms", "operator": "gt", "threshold": 500, "window_minutes": 1}},
		"notification_channels": []any{map[string]any{"type": "webhook", "target": "https://hooks.example.com/vigil"},
			map[string]any{"type": "email", "target": "oncall@example.com"}}}
	if model != "" {
		body["model_id"] = model
	}
	return body
}

// TestAlertRules: the rules' API on every backend. The API role alone:
// the processor role's drift schedule writes each model's default drift
// rule at its first tick, which would race the counts below.
func TestAlertRules(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.Roles = []string{config.RoleAPI} }, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "credit", "1")
		r := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201)
		id := r.str("id")
		if r.header.Get("Location") != "/api/v1/alerts/rules/"+id || r.str("model_id") != model || r.at("enabled") != true ||
			r.at("cooldown_minutes") != float64(alerts.DefaultCooldownMinutes) || r.str("created_by") == "" {
			t.Fatalf("created rule: got %s, want it echoed with defaults (enabled, cooldown 15), Location and created_by", r.raw)
		}
		every := s.do("POST", "/alerts/rules", admin, map[string]any{"name": "no volume", "alert_type": "performance", "severity": "low",
			"conditions": []any{map[string]any{"metric_name": "prediction_count", "operator": "lt", "threshold": 1}}}).want(t, 201)
		if conds := every.at("conditions").([]any); conds[0].(map[string]any)["window_minutes"] != float64(alerts.DefaultWindowMinutes) {
			t.Fatalf("rule without window_minutes: got %v, want the default %d", conds, alerts.DefaultWindowMinutes)
		}
		if every.at("model_id") != nil {
			t.Fatalf("rule without model_id: got model_id %v, want null (every model)", every.at("model_id"))
		}

		got := s.do("GET", "/alerts/rules/"+id, admin, nil).want(t, 200)
		if string(got.raw) != string(r.raw) {
			t.Fatalf("GET after create: got %s, want %s", got.raw, r.raw)
		}
		list := s.do("GET", "/alerts/rules?page_size=1", admin, nil).want(t, 200)
		if list.at("total") != float64(2) || list.at("has_next") != true || len(list.at("rules").([]any)) != 1 {
			t.Fatalf("list: got %s, want 2 rules in pages of 1", list.raw)
		}
		if l := s.do("GET", "/alerts/rules?model_id="+model, admin, nil).want(t, 200); l.at("total") != float64(1) {
			t.Fatalf("list of the model's rules: got %s, want 1", l.raw)
		}

		up := s.do("PATCH", "/alerts/rules/"+id, admin, map[string]any{"enabled": false, "cooldown_minutes": 0, "model_id": ""}).want(t, 200)
		if up.at("enabled") != false || up.at("cooldown_minutes") != float64(0) || up.at("model_id") != nil || up.str("name") != "slow predictions" {
			t.Fatalf("PATCH: got %s, want disabled, no cooldown, every model, the name kept", up.raw)
		}
		if l := s.do("GET", "/alerts/rules?enabled=false", admin, nil).want(t, 200); l.at("total") != float64(1) {
			t.Fatalf("list of disabled rules: got %s, want 1", l.raw)
		}
		s.do("PATCH", "/alerts/rules/"+id, admin, map[string]any{"model_id": uuid.NewString()}).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("POST", "/alerts/rules", admin, slowRule(uuid.NewString())).wantError(t, 404, "MODEL_NOT_FOUND")

		s.do("DELETE", "/alerts/rules/"+id, admin, nil).want(t, 204)
		s.do("GET", "/alerts/rules/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("DELETE", "/alerts/rules/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")

		cat := s.do("GET", "/alerts/metrics", admin, nil).want(t, 200)
		if n := len(cat.at("metrics").([]any)); n != len(alerts.Catalogue) {
			t.Fatalf("catalogue: got %d metrics, want %d", n, len(alerts.Catalogue))
		}
	})
}

// TestAlertRuleValidation: every bad field answers 422 naming it, and
// changes nothing.
func TestAlertRuleValidation(t *testing.T) {
	s := start(t, testConfig(t))
	admin := s.admin()
	model := s.model(admin, "credit", "1")
	f := func(field string, change func(b map[string]any)) {
		t.Helper()
		b := slowRule(model)
		change(b)
		s.do("POST", "/alerts/rules", admin, b).wantField(t, field)
	}
	cond := func(b map[string]any) map[string]any { return b["conditions"].([]any)[0].(map[string]any) }
	f("conditions[0].metric_name", func(b map[string]any) { cond(b)["metric_name"] = "latency_p42_ms" })
	f("conditions[0].metric_name", func(b map[string]any) { cond(b)["metric_name"] = "metric:" })
	f("conditions[0].operator", func(b map[string]any) { cond(b)["operator"] = "between" })
	f("conditions[0].threshold", func(b map[string]any) { delete(cond(b), "threshold") })
	f("conditions[0].window_minutes", func(b map[string]any) { cond(b)["window_minutes"] = 0 })
	f("conditions", func(b map[string]any) { b["conditions"] = []any{} })
	f("notification_channels[1].type", func(b map[string]any) {
		b["notification_channels"].([]any)[1].(map[string]any)["type"] = "pager"
	})
	f("notification_channels[0].target", func(b map[string]any) {
		b["notification_channels"].([]any)[0].(map[string]any)["target"] = "ftp://example.com/x"
	})
	f("notification_channels[1].target", func(b map[string]any) {
		b["notification_channels"].([]any)[1].(map[string]any)["target"] = "not an address"
	})
	f("severity", func(b map[string]any) { delete(b, "severity") })
	f("severity", func(b map[string]any) { b["severity"] = "urgent" })
	f("alert_type", func(b map[string]any) { b["alert_type"] = "vibes" })
	f("name", func(b map[string]any) { b["name"] = "  " })
	f("cooldown_minutes", func(b map[string]any) { b["cooldown_minutes"] = -1 })
	f("org_id", func(b map[string]any) { b["org_id"] = "someone else's" })
	if l := s.do("GET", "/alerts/rules", admin, nil).want(t, 200); l.at("total") != float64(0) {
		t.Fatalf("rules after refused creates: got %s, want none", l.raw)
	}
	id := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id")
	before := s.do("GET", "/alerts/rules/"+id, admin, nil).want(t, 200)
	s.do("PATCH", "/alerts/rules/"+id, admin, map[string]any{"name": "renamed",
		"conditions": []any{map[string]any{"metric_name": "nope", "operator": "gt", "threshold": 1}}}).wantField(t, "conditions[0].metric_name")
	if after := s.do("GET", "/alerts/rules/"+id, admin, nil).want(t, 200); string(after.raw) != string(before.raw) {
		t.Fatalf("rule after a refused PATCH: got %s, want it unchanged %s", after.raw, before.raw)
	}
	s.do("GET", "/alerts/instances?status=burning", admin, nil).wantField(t, "status")
	s.do("GET", "/alerts/instances?start_time=2026-01-02T00:00:00Z&end_time=2026-01-01T00:00:00Z", admin, nil).wantField(t, "end_time")
}

// fire opens an instance of the rule for the model as the evaluation
// does, and returns its id.
func (s *server) fire(t *testing.T, token, ruleID, model string) string {
	t.Helper()
	orgID := s.do("GET", "/auth/me", token, nil).want(t, 200).str("user.organization_id")
	r, err := s.app.store.AlertRule(t.Context(), orgID, ruleID)
	if err != nil {
		t.Fatalf("AlertRule: %v", err)
	}
	now := time.Now().UTC().Truncate(time.Minute)
	in := alerts.NewInstance(r, model, now, []alerts.Observation{}, now)
	got, created, err := s.app.store.FireAlert(t.Context(), in, now.Add(-r.Cooldown()), nil, nil)
	if err != nil || !created {
		t.Fatalf("FireAlert: got created %v, %v, want a new instance", created, err)
	}
	return got.ID
}

// TestAlertLifecycle walks an instance through acknowledge, snooze and
// resolve; illegal moves answer 409 and change nothing.
func TestAlertLifecycle(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		editor := s.user(admin, "eddie", "editor")
		viewer := s.user(admin, "vivian", "viewer")
		model := s.model(admin, "credit", "1")
		rule := s.do("POST", "/alerts/rules", admin, slowRule(model)).want(t, 201).str("id")
		id := s.fire(t, admin, rule, model)
		path := "/alerts/instances/" + id
		in := s.do("GET", path, viewer, nil).want(t, 200)
		if in.str("status") != "open" || in.str("rule_id") != rule || in.str("model_id") != model || in.str("severity") != "high" {
			t.Fatalf("fired instance: got %s, want open, of the rule and model, high", in.raw)
		}
		s.do("POST", path+"/acknowledge", viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		ack := s.do("POST", path+"/acknowledge", editor, map[string]any{"note": "looking"}).want(t, 200)
		if ack.str("status") != "acknowledged" || ack.str("acknowledged_at") == "" || ack.str("acknowledged_by") == "" {
			t.Fatalf("acknowledged: got %s", ack.raw)
		}
		conflict := s.do("POST", path+"/acknowledge", editor, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		if conflict.str("error.details.status") != "acknowledged" {
			t.Fatalf("409: got details %v, want status acknowledged", conflict.at("error.details"))
		}
		s.do("POST", path+"/snooze", editor, map[string]any{}).wantField(t, "until")
		s.do("POST", path+"/snooze", editor, map[string]any{"until": "2001-01-01T00:00:00Z"}).wantField(t, "until")
		until := time.Now().Add(time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339)
		sn := s.do("POST", path+"/snooze", editor, map[string]any{"until": until}).want(t, 200)
		if sn.str("status") != "snoozed" || sn.str("snoozed_until") != until {
			t.Fatalf("snoozed: got %s, want snoozed until %s", sn.raw, until)
		}
		res := s.do("POST", path+"/resolve", admin, map[string]any{"note": "fixed the cache"}).want(t, 200)
		if res.str("status") != "resolved" || res.str("resolution") != "manual" || res.str("snoozed_until") != "" {
			t.Fatalf("resolved: got %s", res.raw)
		}
		for _, action := range []string{"acknowledge", "resolve"} {
			s.do("POST", path+"/"+action, admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		}
		s.do("POST", path+"/snooze", admin, map[string]any{"until": until}).wantError(t, 409, "RESOURCE_CONFLICT")
		final := s.do("GET", path, admin, nil).want(t, 200)
		hist := final.at("history").([]any)
		var actions []string
		for _, h := range hist {
			m := h.(map[string]any)
			if m["user_id"] == "" || m["at"] == "" {
				t.Errorf("move %v: want a user and a time", m)
			}
			actions = append(actions, m["action"].(string))
		}
		if want := []string{"trigger", "acknowledge", "snooze", "resolve"}; len(actions) != len(want) ||
			actions[0] != want[0] || actions[1] != want[1] || actions[2] != want[2] || actions[3] != want[3] {
			t.Fatalf("history: got %v, want %v", actions, want)
		}
		s.do("POST", "/alerts/instances/"+uuid.NewString()+"/acknowledge", admin, nil).wantError(t, 404, "NOT_FOUND")

		l := s.do("GET", "/alerts/instances?status=resolved&rule_id="+rule+"&model_id="+model+"&severity=high", admin, nil).want(t, 200)
		if l.at("total") != float64(1) || l.at("alerts").([]any)[0].(map[string]any)["id"] != id {
			t.Fatalf("filtered list: got %s, want the instance", l.raw)
		}
		if l := s.do("GET", "/alerts/instances?status=open", admin, nil).want(t, 200); l.at("total") != float64(0) {
			t.Fatalf("open instances: got %s, want none", l.raw)
		}
		s.do("GET", "/alerts/instances?rule_id="+uuid.NewString(), admin, nil).wantError(t, 404, "NOT_FOUND")

		st := s.do("GET", "/alerts/statistics?model_id="+model, viewer, nil).want(t, 200)
		mtta, _ := st.at("overall.mtta_seconds").(float64)
		mttr, _ := st.at("overall.mttr_seconds").(float64)
		if st.at("overall.total") != 1.0 || st.at("overall.by_status.resolved") != 1.0 || st.at("overall.by_severity.high") != 1.0 ||
			st.at("overall.acknowledged") != 1.0 || st.at("overall.resolved") != 1.0 || mtta <= 0 || mttr < mtta {
			t.Fatalf("statistics: got %s, want one resolved high alert with MTTA > 0 and MTTR >= MTTA", st.raw)
		}
		rules := st.at("rules").([]any)
		if len(rules) != 1 || rules[0].(map[string]any)["rule_id"] != rule || rules[0].(map[string]any)["mttr_seconds"] != mttr {
			t.Fatalf("statistics per rule: got %v, want the rule with the same MTTR", rules)
		}
		empty := s.do("GET", "/alerts/statistics?end_time=2001-01-01T00:00:00Z", admin, nil).want(t, 200)
		if empty.at("overall.total") != 0.0 || empty.at("overall.mtta_seconds") != nil {
			t.Fatalf("statistics of 2000: got %s, want none and MTTA null", empty.raw)
		}
		s.do("GET", "/alerts/statistics?start_time=2026-01-02T00:00:00Z&end_time=2026-01-01T00:00:00Z", admin, nil).wantField(t, "end_time")
	})
}

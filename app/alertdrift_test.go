package app

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestManagedDriftRule: a drift configuration's alert_config becomes a
// rule managed by it, which users see but cannot change or delete (409
// naming the configuration); shifted traffic a day later makes the
// schedule write a drift report, the managed rule fires and pages the
// configuration's webhook; disabling alert_config deletes the rule and
// resolves its alert, in the configuration's own write.
func TestManagedDriftRule(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			cfg.AlertTick = 50 * time.Millisecond
			cfg.OutboundAllow = []string{"127.0.0.1"}
			hook := newHookReceiver(t)
			s := startDrift(t, cfg)
			admin := s.admin()
			key, _ := s.key(admin, "read", "write")
			model := s.model(key, "fraud", "1")
			s.do("PUT", "/drift-config/"+model, key, map[string]any{"alert_config": map[string]any{"enabled": true, "min_severity": "high",
				"channels": []any{map[string]any{"type": "webhook", "target": hook.URL + "/drift"}}}}).want(t, 200)
			list := s.do("GET", "/alerts/rules?model_id="+model, key, nil).want(t, 200)
			rules, _ := list.at("rules").([]any)
			if len(rules) != 1 {
				t.Fatalf("rules of the model: got %s, want the managed one", list.raw)
			}
			rule := rules[0].(map[string]any)
			cond := rule["conditions"].([]any)[0].(map[string]any)
			if rule["managed_by"] != "drift_config:"+model || rule["alert_type"] != "drift" || rule["severity"] != "high" ||
				cond["metric_name"] != "drift_score" || cond["operator"] != "gte" || cond["threshold"] != 0.3 || cond["window_minutes"] != 60.0 {
				t.Fatalf("managed rule: got %v, want drift_score gte 0.3 (the high cutoff) over the schedule's hour, managed by the config", rule)
			}
			id := rule["id"].(string)
			for _, method := range []string{"PATCH", "DELETE"} {
				r := s.do(method, "/alerts/rules/"+id, key, map[string]any{"enabled": false}).wantError(t, http.StatusConflict, "RESOURCE_CONFLICT")
				if !strings.Contains(r.str("error.message"), "drift_config:"+model) {
					t.Fatalf("%s of the managed rule: got %s, want a message naming the drift configuration", method, r.raw)
				}
			}

			traffic := func(shift float64) { t.Helper(); shiftedTraffic(t, s, key, model, shift) }
			traffic(0)
			s.waitStored(t, key, model, 300)
			s.app.skew.Store(int64(25 * time.Hour))
			traffic(5)
			s.waitStored(t, key, model, 600)
			waitFor(t, "a data-drift report", func() bool {
				return s.do("GET", "/drift/reports?model_id="+model+"&drift_type=data", key, nil).want(t, 200).at("total") == 1.0
			})
			// The report's minute is then complete.
			s.app.skew.Store(int64(25*time.Hour + 2*time.Minute))
			var alert response
			waitFor(t, "the managed rule's alert", func() bool {
				alert = s.do("GET", "/alerts/instances?rule_id="+id, key, nil).want(t, 200)
				return alert.at("total") == 1.0
			})
			in := alert.at("alerts").([]any)[0].(map[string]any)
			waitFor(t, "the configuration's webhook paged", func() bool { b, _ := hook.got(); return b != nil })
			if b, _ := hook.got(); !strings.Contains(string(b), in["id"].(string)) {
				t.Fatalf("webhook: got %s, want alert %s", b, in["id"])
			}

			s.do("PUT", "/drift-config/"+model, key, map[string]any{"alert_config": map[string]any{"enabled": false}}).want(t, 200)
			s.do("GET", "/alerts/rules/"+id, key, nil).wantError(t, http.StatusNotFound, "NOT_FOUND")
			if got := s.do("GET", "/alerts/instances/"+in["id"].(string), key, nil).want(t, 200); got.str("status") != "resolved" {
				t.Fatalf("the managed rule's alert after alert_config is disabled: got %s, want resolved", got.raw)
			}
		})
	}
}

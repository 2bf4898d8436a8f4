package app

import (
	"strings"
	"testing"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/platform/secretbox"
)

// TestAlertRuleSecrets: a Slack webhook URL never appears in a rule's
// responses (masked to its host and last four characters) and is sealed
// at rest; a PATCH without the channels, or with the masked target sent
// back, keeps it; a new URL replaces it.
func TestAlertRuleSecrets(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "read", "write")
		model := s.model(key, "fraud", "1")
		const secret = "https://hooks.slack.com/services/T0001/B0002/s3cr3tTOKENabcd"
		body := slowRule(model)
		body["notification_channels"] = []any{map[string]any{"type": "slack", "target": secret},
			map[string]any{"type": "email", "target": "oncall@example.com"}}
		const masked = "https://hooks.slack.com/…/****abcd"
		check := func(what string, r response, wantClear string) {
			t.Helper()
			if strings.Contains(string(r.raw), "s3cr3t") || strings.Contains(string(r.raw), "n3w") {
				t.Fatalf("%s: got %s, want no Slack secret in the response", what, r.raw)
			}
			stored := storedRule(t, s, r.str("id"))
			target := stored.Channels[0].Target
			if !secretbox.IsSealed(target) || strings.Contains(target, "hooks.slack.com") {
				t.Fatalf("%s: stored target %q, want it sealed", what, target)
			}
			box, err := s.app.masterKey()
			if err != nil {
				t.Fatal(err)
			}
			if clear, err := alerts.OpenTarget(box, stored.OrgID, target); err != nil || clear != wantClear {
				t.Fatalf("%s: stored target opens to %q (%v), want %q", what, clear, err, wantClear)
			}
			if stored.Channels[1].Target != "oncall@example.com" {
				t.Fatalf("%s: e-mail target %q, want it in clear", what, stored.Channels[1].Target)
			}
		}
		r := s.do("POST", "/alerts/rules", key, body).want(t, 201)
		if slackTarget(r) != masked {
			t.Fatalf("created: got target %q in %s, want %q", slackTarget(r), r.raw, masked)
		}
		check("created", r, secret)
		id := r.str("id")
		check("read", s.do("GET", "/alerts/rules/"+id, key, nil).want(t, 200), secret)
		if l := s.do("GET", "/alerts/rules?model_id="+model, key, nil).want(t, 200); strings.Contains(string(l.raw), "s3cr3t") || !strings.Contains(string(l.raw), "****abcd") {
			t.Fatalf("list: got %s, want the target masked", l.raw)
		}
		check("PATCH without channels", s.do("PATCH", "/alerts/rules/"+id, key, map[string]any{"name": "renamed"}).want(t, 200), secret)
		back := []any{map[string]any{"type": "slack", "target": masked}, map[string]any{"type": "email", "target": "oncall@example.com"}}
		check("PATCH with the masked target", s.do("PATCH", "/alerts/rules/"+id, key, map[string]any{"notification_channels": back}).want(t, 200), secret)
		const fresh = "https://hooks.slack.com/services/T0001/B0002/n3wTOKENwxyz"
		back[0] = map[string]any{"type": "slack", "target": fresh}
		r = s.do("PATCH", "/alerts/rules/"+id, key, map[string]any{"notification_channels": back}).want(t, 200)
		if slackTarget(r) != "https://hooks.slack.com/…/****wxyz" {
			t.Fatalf("new URL: got target %q, want it masked", slackTarget(r))
		}
		check("PATCH with a new URL", r, fresh)
	})
}

// storedRule reads the rule as the transactional store holds it (the
// evaluation's view across organizations).
func storedRule(t *testing.T, s *server, id string) alerts.Rule {
	t.Helper()
	targets, err := s.app.store.AlertTargets(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Rule.ID == id {
			return tg.Rule
		}
	}
	t.Fatalf("rule %s not among the stored targets", id)
	return alerts.Rule{}
}

// slackTarget is the target of a rule response's first channel.
func slackTarget(r response) string {
	chans, _ := r.at("notification_channels").([]any)
	if len(chans) == 0 {
		return ""
	}
	target, _ := chans[0].(map[string]any)["target"].(string)
	return target
}

package app

import (
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/platform/secretbox"
)

// TestAlertRuleSecrets: a secret channel target, a Slack webhook URL or a
// webhook URL with a query (where a token usually travels), never appears
// in a rule's responses (masked to its host and last four characters)
// and is sealed at rest; a PATCH without the channels, or with the masked
// target sent back, keeps it; a new URL replaces it. A webhook URL without
// a query stays in clear.
func TestAlertRuleSecrets(t *testing.T) {
	cases := []struct {
		kind, host, secret, masked, fresh, freshMasked string
	}{
		{"slack", "hooks.slack.com", "https://hooks.slack.com/services/T0001/B0002/s3cr3tTOKENabcd", "https://hooks.slack.com/…/****abcd",
			"https://hooks.slack.com/services/T0001/B0002/n3wTOKENwxyz", "https://hooks.slack.com/…/****wxyz"},
		{"webhook", "hooks.example.com", "https://hooks.example.com/vigil?token=s3cr3tabcd", "https://hooks.example.com/…/****abcd",
			"https://hooks.example.com/vigil?key=n3wpasswxyz", "https://hooks.example.com/…/****wxyz"},
	}
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "read", "write")
		model := s.model(key, "fraud", "1")
		for _, c := range cases {
			body := slowRule(model)
			body["notification_channels"] = []any{map[string]any{"type": c.kind, "target": c.secret},
				map[string]any{"type": "email", "target": "oncall@example.com"}}
			check := func(what string, r response, wantClear string) {
				t.Helper()
				if strings.Contains(string(r.raw), "s3cr3t") || strings.Contains(string(r.raw), "n3w") {
					t.Fatalf("%s %s: got %s, want no secret in the response", c.kind, what, r.raw)
				}
				stored := storedRule(t, s, r.str("id"))
				target := stored.Channels[0].Target
				if !secretbox.IsSealed(target) || strings.Contains(target, c.host) {
					t.Fatalf("%s %s: stored target %q, want it sealed", c.kind, what, target)
				}
				box, err := s.app.masterKey()
				if err != nil {
					t.Fatal(err)
				}
				if clear, err := alerts.OpenTarget(box, stored.OrgID, target); err != nil || clear != wantClear {
					t.Fatalf("%s %s: stored target opens to %q (%v), want %q", c.kind, what, clear, err, wantClear)
				}
				if stored.Channels[1].Target != "oncall@example.com" {
					t.Fatalf("%s %s: e-mail target %q, want it in clear", c.kind, what, stored.Channels[1].Target)
				}
			}
			r := s.do("POST", "/alerts/rules", key, body).want(t, 201)
			if slackTarget(r) != c.masked {
				t.Fatalf("%s created: got target %q in %s, want %q", c.kind, slackTarget(r), r.raw, c.masked)
			}
			check("created", r, c.secret)
			id := r.str("id")
			check("read", s.do("GET", "/alerts/rules/"+id, key, nil).want(t, 200), c.secret)
			if l := s.do("GET", "/alerts/rules?model_id="+model, key, nil).want(t, 200); strings.Contains(string(l.raw), "s3cr3t") || !strings.Contains(string(l.raw), "****abcd") {
				t.Fatalf("%s list: got %s, want the target masked", c.kind, l.raw)
			}
			check("PATCH without channels", s.do("PATCH", "/alerts/rules/"+id, key, map[string]any{"name": "renamed"}).want(t, 200), c.secret)
			back := []any{map[string]any{"type": c.kind, "target": c.masked}, map[string]any{"type": "email", "target": "oncall@example.com"}}
			check("PATCH with the masked target", s.do("PATCH", "/alerts/rules/"+id, key, map[string]any{"notification_channels": back}).want(t, 200), c.secret)
			back[0] = map[string]any{"type": c.kind, "target": c.fresh}
			r = s.do("PATCH", "/alerts/rules/"+id, key, map[string]any{"notification_channels": back}).want(t, 200)
			if slackTarget(r) != c.freshMasked {
				t.Fatalf("%s new URL: got target %q, want %q", c.kind, slackTarget(r), c.freshMasked)
			}
			check("PATCH with a new URL", r, c.fresh)
			s.do("DELETE", "/alerts/rules/"+id, key, nil).want(t, 204)
		}
		plain := slowRule(model)
		plain["notification_channels"] = []any{map[string]any{"type": "webhook", "target": "https://hooks.example.com/vigil"}}
		r := s.do("POST", "/alerts/rules", key, plain).want(t, 201)
		if got := storedRule(t, s, r.str("id")).Channels[0].Target; slackTarget(r) != "https://hooks.example.com/vigil" || got != slackTarget(r) {
			t.Fatalf("webhook without a query: got %q answered and %q stored, want it in clear in both", slackTarget(r), got)
		}
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

// TestWebhookSecretRotation: a rotation answers a new secret, which GET
// then shows, with the end of the previous one's overlap (24 h by
// default, none with overlap_hours 0); the processor role signs with
// both during the overlap; a bad overlap is a 422 naming it.
func TestWebhookSecretRotation(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "read", "write")
		first := s.do("GET", "/alerts/webhook-secret", key, nil).want(t, 200)
		if first.at("previous_valid_until") != nil {
			t.Fatalf("before any rotation: got %s, want no previous secret", first.raw)
		}
		before := time.Now()
		r := s.do("POST", "/alerts/webhook-secret/rotate", key, nil).want(t, 200)
		if r.str("secret") == first.str("secret") || len(r.str("secret")) != 64 {
			t.Fatalf("rotated: got %s, want a new 64-character secret", r.raw)
		}
		until, err := time.Parse(time.RFC3339Nano, r.str("previous_valid_until"))
		if err != nil || until.Before(before.Add(24*time.Hour-time.Minute)) || until.After(time.Now().Add(24*time.Hour+time.Minute)) {
			t.Fatalf("previous_valid_until: got %q (%v), want 24 hours from now", r.str("previous_valid_until"), err)
		}
		if again := s.do("GET", "/alerts/webhook-secret", key, nil).want(t, 200); again.str("secret") != r.str("secret") ||
			again.str("previous_valid_until") != r.str("previous_valid_until") {
			t.Fatalf("GET after the rotation: got %s, want %s", again.raw, r.raw)
		}
		orgID := storedOrg(t, s, key)
		keys, err := s.app.webhookKeys(mustBox(t, s))(t.Context(), orgID)
		if err != nil || len(keys.Signing(time.Now())) != 2 || string(keys.Signing(time.Now())[1]) != first.str("secret") {
			t.Fatalf("the processor role's keys in the overlap: got %d signing (%v), want the new then the old", len(keys.Signing(time.Now())), err)
		}
		last := s.do("POST", "/alerts/webhook-secret/rotate", key, map[string]any{"overlap_hours": 0}).want(t, 200)
		if last.at("previous_valid_until") != nil || last.str("secret") == r.str("secret") {
			t.Fatalf("rotation with no overlap: got %s, want a new secret alone", last.raw)
		}
		s.do("POST", "/alerts/webhook-secret/rotate", key, map[string]any{"overlap_hours": 169}).wantField(t, "overlap_hours")
		if got := s.do("GET", "/alerts/webhook-secret", key, nil).want(t, 200); got.str("secret") != last.str("secret") {
			t.Fatalf("after a refused rotation: got %s, want the secret unchanged", got.raw)
		}
	})
}

func mustBox(t *testing.T, s *server) *secretbox.Keyring {
	t.Helper()
	box, err := s.app.masterKey()
	if err != nil {
		t.Fatal(err)
	}
	return box
}

// storedOrg is the organization of the key's caller, read from a rule it
// creates.
func storedOrg(t *testing.T, s *server, key string) string {
	t.Helper()
	model := s.model(key, "org-probe", "1")
	id := s.do("POST", "/alerts/rules", key, slowRule(model)).want(t, 201).str("id")
	return storedRule(t, s, id).OrgID
}

// TestAlertTargetsResealed: a rule stored with a secret target in clear
// (before targets were sealed, or before webhook URLs with a query counted
// as secrets) is sealed by the processor role at its next start, its
// other fields and updated_at kept; a target that is no secret stays.
func TestAlertTargetsResealed(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			s := start(t, cfg)
			admin := s.admin()
			key, _ := s.key(admin, "read", "write")
			model := s.model(key, "fraud", "1")
			r := s.do("POST", "/alerts/rules", key, slowRule(model)).want(t, 201)
			legacy := storedRule(t, s, r.str("id"))
			const slack, hook = "https://hooks.slack.com/services/T1/B2/s3cr3tabcd", "https://hooks.example.com/in?token=s3cr3twxyz"
			legacy.Channels = []alerts.Channel{{Type: "slack", Target: slack}, {Type: "webhook", Target: hook},
				{Type: "email", Target: "oncall@example.com"}}
			if _, err := s.app.store.UpdateAlertRule(t.Context(), legacy.OrgID, legacy.ID, func(cur *alerts.Rule) error {
				cur.Channels = legacy.Channels
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			s.shutdown()

			s = start(t, cfg)
			box, err := s.app.masterKey()
			if err != nil {
				t.Fatal(err)
			}
			var got alerts.Rule
			waitFor(t, "the clear targets sealed", func() bool {
				got = storedRule(t, s, legacy.ID)
				return secretbox.IsSealed(got.Channels[0].Target) && secretbox.IsSealed(got.Channels[1].Target)
			})
			for i, want := range []string{slack, hook} {
				if clear, err := alerts.OpenTarget(box, got.OrgID, got.Channels[i].Target); err != nil || clear != want {
					t.Fatalf("channel %d opens to %q (%v), want %q", i, clear, err, want)
				}
			}
			if got.Channels[2].Target != "oncall@example.com" || !got.UpdatedAt.Equal(legacy.UpdatedAt) || got.Name != legacy.Name {
				t.Fatalf("resealed rule: got %+v, want the e-mail in clear and the rest, updated_at included, as before (%v)", got, legacy.UpdatedAt)
			}
			if view := s.do("GET", "/alerts/rules/"+legacy.ID, key, nil).want(t, 200); strings.Contains(string(view.raw), "s3cr3t") {
				t.Fatalf("GET after the reseal: got %s, want the targets masked", view.raw)
			}
		})
	}
}

// TestDriftAlertChannelSecrets: a Slack URL in a drift configuration's
// alert_config is sealed at rest, in the configuration and in the rule it
// manages, shown masked by both, kept when the mask is sent back, and
// opens to the URL for the channel that delivers.
func TestDriftAlertChannelSecrets(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "fraud", "1")
		const secret, masked = "https://hooks.slack.com/services/T1/B2/s3cr3tabcd", "https://hooks.slack.com/…/****abcd"
		put := func(target string) response {
			t.Helper()
			return s.do("PUT", "/drift-config/"+model, key, map[string]any{"alert_config": map[string]any{"enabled": true, "min_severity": "high",
				"channels": []any{map[string]any{"type": "slack", "target": target}, map[string]any{"type": "email", "target": "ml@example.com"}}}}).want(t, 200)
		}
		shown := func(what string, r response, path string) {
			t.Helper()
			chans, _ := r.at(path).([]any)
			if strings.Contains(string(r.raw), "s3cr3t") || len(chans) != 2 || chans[0].(map[string]any)["target"] != masked ||
				chans[1].(map[string]any)["target"] != "ml@example.com" {
				t.Fatalf("%s: got %s, want the Slack URL masked as %s and the e-mail in clear", what, r.raw, masked)
			}
		}
		shown("PUT", put(secret), "alert_config.channels")
		shown("GET", s.do("GET", "/drift-config/"+model, key, nil).want(t, 200), "alert_config.channels")
		org := s.do("GET", "/auth/me", key, nil).want(t, 200).str("user.organization_id")
		stored, err := s.app.store.DriftConfig(t.Context(), org, model)
		if err != nil {
			t.Fatal(err)
		}
		sealed := stored.Alerts.Channels[0].Target
		if !secretbox.IsSealed(sealed) {
			t.Fatalf("stored drift channel %q, want it sealed", sealed)
		}
		shown("PUT with the mask sent back", put(masked), "alert_config.channels")
		if again, _ := s.app.store.DriftConfig(t.Context(), org, model); again.Alerts.Channels[0].Target != sealed {
			t.Fatalf("after the mask was sent back: stored %q, want the same sealed %q", again.Alerts.Channels[0].Target, sealed)
		}
		rules, _ := s.do("GET", "/alerts/rules?model_id="+model, key, nil).want(t, 200).at("rules").([]any)
		if len(rules) != 1 {
			t.Fatalf("got %d rules, want the managed one", len(rules))
		}
		rule := storedRule(t, s, rules[0].(map[string]any)["id"].(string))
		box, err := s.app.masterKey()
		if err != nil {
			t.Fatal(err)
		}
		if clear, err := alerts.OpenTarget(box, org, rule.Channels[0].Target); !secretbox.IsSealed(rule.Channels[0].Target) || err != nil || clear != secret {
			t.Fatalf("managed rule's target %q opens to %q (%v), want it sealed and opening to the URL", rule.Channels[0].Target, clear, err)
		}
		if r := s.do("GET", "/alerts/rules/"+rule.ID, key, nil).want(t, 200); strings.Contains(string(r.raw), "s3cr3t") {
			t.Fatalf("managed rule: got %s, want the target masked", r.raw)
		}
	})
}

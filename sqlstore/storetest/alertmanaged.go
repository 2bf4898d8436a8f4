package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/store"
)

// managedRules returns the organization's rules managed by the model's
// drift configuration.
func managedRules(t *testing.T, s Store, orgID, modelID string) []alerts.Rule {
	t.Helper()
	rules, _, err := s.AlertRules(ctx(t), orgID, alerts.RuleFilter{ModelID: modelID})
	must(t, err, "AlertRules")
	var out []alerts.Rule
	for _, r := range rules {
		if r.ManagedBy == alerts.ManagedByDrift(modelID) {
			out = append(out, r)
		}
	}
	return out
}

// testAlertManagedByDrift: a drift configuration's alert_config becomes
// one managed rule in the configuration's own write, is changed with it,
// and goes (its alerts resolved) when alert_config is disabled; a change
// of the configuration that the rule does not see leaves it as it is.
func testAlertManagedByDrift(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	c := drift.Default(o.ID, m.ID)
	c.Alerts.Channels = []drift.Channel{{Type: "webhook", Target: "https://hooks.example.com/d"}}
	c.CreatedAt, c.UpdatedAt = ptr(at(10)), ptr(at(10))
	must(t, s.CreateDriftConfig(ctx(t), c), "CreateDriftConfig")
	rules := managedRules(t, s, o.ID, m.ID)
	want, _ := alerts.DriftRule(c)
	if len(rules) != 1 {
		t.Fatalf("managed rules after the configuration's creation: got %d, want 1", len(rules))
	}
	got := rules[0]
	want.ID, want.CreatedAt, want.UpdatedAt = got.ID, stored(at(10)), stored(at(10))
	equal(t, "managed rule", got, want)

	in := newInstance(got, m.ID, 60)
	_, _, err := s.FireAlert(ctx(t), in, at(0), nil, nil)
	must(t, err, "FireAlert")
	update := func(n int, change func(*drift.Config)) {
		t.Helper()
		_, err := s.UpdateDriftConfig(ctx(t), c, func(cur *drift.Config) error { change(cur); cur.UpdatedAt = ptr(at(n)); return nil })
		must(t, err, "UpdateDriftConfig")
	}
	update(20, func(cur *drift.Config) { cur.Schedule.Enabled = false })
	if r := managedRules(t, s, o.ID, m.ID); len(r) != 1 || !r[0].UpdatedAt.Equal(stored(at(10))) {
		t.Fatalf("after a change the rule does not see: got %+v, want the rule untouched", r)
	}
	update(30, func(cur *drift.Config) { cur.Alerts.MinSeverity = drift.Medium })
	r := managedRules(t, s, o.ID, m.ID)
	if len(r) != 1 || r[0].ID != got.ID || r[0].Severity != "medium" || r[0].Conditions[0].Threshold != c.Thresholds.Severity.Medium ||
		!r[0].UpdatedAt.Equal(stored(at(30))) {
		t.Fatalf("after min_severity medium: got %+v, want the same rule at the medium cutoff", r)
	}
	if cur, err := s.AlertInstance(ctx(t), o.ID, in.ID); err != nil || cur.Status != alerts.StatusResolved {
		t.Fatalf("the alert of the old conditions: got %s, %v, want resolved", cur.Status, err)
	}
	update(40, func(cur *drift.Config) { cur.Alerts.Enabled = false })
	if r := managedRules(t, s, o.ID, m.ID); len(r) != 0 {
		t.Fatalf("after alert_config is disabled: got %d managed rules, want none", len(r))
	}
	update(50, func(cur *drift.Config) { cur.Alerts.Enabled = true })
	if r := managedRules(t, s, o.ID, m.ID); len(r) != 1 || r[0].ID == got.ID {
		t.Fatalf("after alert_config is enabled again: got %+v, want a new managed rule", r)
	}
}

// testAlertDefaultDriftRule: a model without a drift configuration gets
// the rule of the default one, written once however often it is ensured;
// a configuration on file takes the rule over and is never overridden;
// another organization's model is not found.
func testAlertDefaultDriftRule(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	must(t, s.EnsureDefaultDriftRule(ctx(t), o.ID, m.ID, at(10)), "EnsureDefaultDriftRule")
	must(t, s.EnsureDefaultDriftRule(ctx(t), o.ID, m.ID, at(20)), "EnsureDefaultDriftRule again")
	rules := managedRules(t, s, o.ID, m.ID)
	if len(rules) != 1 {
		t.Fatalf("managed rules of a model without a configuration: got %d, want 1", len(rules))
	}
	want, _ := alerts.DriftRule(drift.Default(o.ID, m.ID))
	want.ID, want.CreatedAt, want.UpdatedAt = rules[0].ID, stored(at(10)), stored(at(10))
	equal(t, "default managed rule", rules[0], want)

	c := drift.Default(o.ID, m.ID)
	_, err := s.UpdateDriftConfig(ctx(t), c, func(cur *drift.Config) error {
		cur.Alerts.MinSeverity, cur.CreatedAt, cur.UpdatedAt = drift.Medium, ptr(at(30)), ptr(at(30))
		return nil
	})
	must(t, err, "UpdateDriftConfig")
	must(t, s.EnsureDefaultDriftRule(ctx(t), o.ID, m.ID, at(40)), "EnsureDefaultDriftRule with a configuration on file")
	if r := managedRules(t, s, o.ID, m.ID); len(r) != 1 || r[0].ID != rules[0].ID || r[0].Severity != "medium" {
		t.Fatalf("after the configuration took over and an ensure: got %+v, want the same rule at medium", r)
	}

	other := newOrg(t, s)
	if err := s.EnsureDefaultDriftRule(ctx(t), other.ID, m.ID, at(50)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another organization's model: got %v, want store.ErrNotFound", err)
	}
	if r := managedRules(t, s, other.ID, m.ID); len(r) != 0 {
		t.Fatalf("another organization's model: got %d managed rules, want none", len(r))
	}
}

// testAlertDefaultDriftRuleRace: the scheduler ensuring a new model's
// default drift rule while a user stores the model's first configuration
// (both writing the managed rule) never fails the user's write: each pair
// ends with the configuration on file and one managed rule, its own.
func testAlertDefaultDriftRuleRace(t *testing.T, s Store) {
	o := newOrg(t, s)
	const pairs = 40
	for i := range pairs {
		m := modelFor(t, s, o.ID, fmt.Sprintf("race-%d", i))
		c := drift.Default(o.ID, m.ID)
		c.Alerts.MinSeverity = drift.Medium
		c.CreatedAt, c.UpdatedAt = ptr(at(10)), ptr(at(10))
		var ensure, create error
		var wg sync.WaitGroup
		wg.Go(func() { ensure = s.EnsureDefaultDriftRule(context.WithoutCancel(ctx(t)), o.ID, m.ID, at(5)) })
		wg.Go(func() { create = s.CreateDriftConfig(context.WithoutCancel(ctx(t)), c) })
		wg.Wait()
		if ensure != nil || create != nil {
			t.Fatalf("pair %d: EnsureDefaultDriftRule got %v, CreateDriftConfig got %v; want both nil", i, ensure, create)
		}
		rules := managedRules(t, s, o.ID, m.ID)
		if len(rules) != 1 || rules[0].Severity != "medium" {
			t.Fatalf("pair %d: got managed rules %+v, want one, the configuration's (medium)", i, rules)
		}
	}
}

package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

var alertTests = []test{
	{"Alerts/RuleRoundTrip", testAlertRuleRoundTrip},
	{"Alerts/RuleOtherOrg", testAlertRuleOtherOrg},
	{"Alerts/RuleList", testAlertRuleList},
	{"Alerts/Targets", testAlertTargets},
	{"Alerts/Fire", testAlertFire},
	{"Alerts/FireConcurrent", testAlertFireConcurrent},
	{"Alerts/Cooldown", testAlertCooldown},
	{"Alerts/Moves", testAlertMoves},
	{"Alerts/InstanceList", testAlertInstanceList},
	{"Alerts/DeleteRule", testAlertDeleteRule},
	{"Alerts/ChangeConditions", testAlertChangeConditions},
	{"Alerts/DeleteModel", testAlertDeleteModel},
	{"Alerts/ManagedByDrift", testAlertManagedByDrift},
	{"Alerts/DefaultDriftRuleRace", testAlertDefaultDriftRuleRace},
	{"Alerts/DefaultDriftRule", testAlertDefaultDriftRule},
}

// newRule returns an enabled rule of the model ("" for every model)
// created n seconds after base.
func newRule(orgID, modelID string, n int) alerts.Rule {
	return alerts.Rule{ID: newID(), OrgID: orgID, Name: "slow predictions", Description: "p95 over 500 ms",
		AlertType: "performance", Severity: "high", ModelID: modelID,
		Conditions: []alerts.Condition{{MetricName: "latency_p95_ms", Operator: "gt", Threshold: 500, WindowMinutes: 5},
			{MetricName: "metric:accuracy", Operator: "lt", Threshold: 0.9, WindowMinutes: 60}},
		Channels: []alerts.Channel{{Type: "webhook", Target: "https://hooks.example.com/x"}, {Type: "email", Target: "oncall@example.com"}},
		Enabled:  true, CooldownMinutes: 15, CreatedBy: "user-1", CreatedAt: at(n), UpdatedAt: at(n)}
}

func storedRule(r alerts.Rule) alerts.Rule {
	r.CreatedAt, r.UpdatedAt = stored(r.CreatedAt), stored(r.UpdatedAt)
	return r
}

// newInstance returns an open instance of r for the model, triggered at
// second n for the window ending then.
func newInstance(r alerts.Rule, modelID string, n int) alerts.Instance {
	v := 612.5
	return alerts.Instance{ID: newID(), OrgID: r.OrgID, RuleID: r.ID, ModelID: modelID, ConditionKey: r.ConditionKey(),
		RuleName: r.Name, AlertType: r.AlertType, Severity: r.Severity, Status: alerts.StatusOpen,
		Observations: []alerts.Observation{{Condition: r.Conditions[0], Value: &v, Holds: true}}, Count: 1,
		WindowEnd: at(n), TriggeredAt: at(n), LastTriggeredAt: at(n), UpdatedAt: at(n),
		History: []alerts.Move{{Action: alerts.ActionTrigger, To: alerts.StatusOpen, UserID: alerts.SystemUser, At: stored(at(n))}}}
}

func storedInstance(in alerts.Instance) alerts.Instance {
	in.WindowEnd, in.TriggeredAt, in.LastTriggeredAt, in.UpdatedAt = stored(in.WindowEnd), stored(in.TriggeredAt), stored(in.LastTriggeredAt), stored(in.UpdatedAt)
	in.AcknowledgedAt, in.SnoozedUntil, in.ResolvedAt = storedPtr(in.AcknowledgedAt), storedPtr(in.SnoozedUntil), storedPtr(in.ResolvedAt)
	for i := range in.History {
		in.History[i].At = stored(in.History[i].At)
		in.History[i].Until = storedPtr(in.History[i].Until)
	}
	return in
}

// modelFor creates a model in the organization.
func modelFor(t *testing.T, s Store, orgID, name string) registry.Model {
	t.Helper()
	m := newModel(orgID, name, "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	return m
}

// fired creates an organization with a model and a rule on it, and fires
// the rule's first alert (window ending at second 60).
func fired(t *testing.T, s Store) (org, registry.Model, alerts.Rule, alerts.Instance) {
	t.Helper()
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	r := newRule(o.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	in := newInstance(r, m.ID, 60)
	_, _, err := s.FireAlert(ctx(t), in, at(0), nil, nil)
	must(t, err, "FireAlert")
	return o, m, r, in
}

func testAlertRuleRoundTrip(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	r := newRule(o.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	got, err := s.AlertRule(ctx(t), o.ID, r.ID)
	must(t, err, "AlertRule")
	equal(t, "stored rule", got, storedRule(r))
	checkUTC(t, "rule", &got.CreatedAt, &got.UpdatedAt)

	every := newRule(o.ID, "", 3)
	every.Channels, every.Enabled = nil, false
	must(t, s.CreateAlertRule(ctx(t), every), "CreateAlertRule every model")
	got, err = s.AlertRule(ctx(t), o.ID, every.ID)
	must(t, err, "AlertRule every model")
	equal(t, "rule over every model", got, storedRule(every))

	up, err := s.UpdateAlertRule(ctx(t), o.ID, r.ID, func(r *alerts.Rule) error {
		r.Name, r.ModelID, r.Enabled, r.UpdatedAt = "renamed", "", false, at(9)
		return nil
	})
	must(t, err, "UpdateAlertRule")
	got, err = s.AlertRule(ctx(t), o.ID, r.ID)
	must(t, err, "AlertRule after update")
	equal(t, "updated rule", got, storedRule(up))
	if got.Name != "renamed" || got.ModelID != "" || got.Enabled {
		t.Errorf("updated rule: got %+v, want renamed, every model, disabled", got)
	}
	boom := errors.New("boom")
	if _, err := s.UpdateAlertRule(ctx(t), o.ID, r.ID, func(r *alerts.Rule) error { r.Name = "lost"; return boom }); !errors.Is(err, boom) {
		t.Errorf("UpdateAlertRule with a failing change: got %v, want %v", err, boom)
	}
	if got, _ := s.AlertRule(ctx(t), o.ID, r.ID); got.Name != "renamed" {
		t.Errorf("after a failed change: got name %q, want renamed", got.Name)
	}
}

func testAlertRuleOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := modelFor(t, s, a.ID, "credit")
	r := newRule(a.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	wantErr(t, s.CreateAlertRule(ctx(t), newRule(b.ID, m.ID, 3)), store.ErrNotFound, "CreateAlertRule on another organization's model")
	_, err := s.AlertRule(ctx(t), b.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "AlertRule of another organization")
	_, err = s.UpdateAlertRule(ctx(t), b.ID, r.ID, func(*alerts.Rule) error { return nil })
	wantErr(t, err, store.ErrNotFound, "UpdateAlertRule of another organization")
	wantErr(t, s.DeleteAlertRule(ctx(t), b.ID, r.ID, "u", at(4)), store.ErrNotFound, "DeleteAlertRule of another organization")
	own := newRule(b.ID, "", 3)
	must(t, s.CreateAlertRule(ctx(t), own), "CreateAlertRule in b")
	_, err = s.UpdateAlertRule(ctx(t), b.ID, own.ID, func(r *alerts.Rule) error { r.ModelID = m.ID; return nil })
	wantErr(t, err, store.ErrNotFound, "UpdateAlertRule to another organization's model")
	in := newInstance(r, m.ID, 5)
	_, _, err = s.FireAlert(ctx(t), in, at(0), nil, nil)
	must(t, err, "FireAlert")
	_, err = s.AlertInstance(ctx(t), b.ID, in.ID)
	wantErr(t, err, store.ErrNotFound, "AlertInstance of another organization")
	_, err = s.UpdateAlertInstance(ctx(t), b.ID, in.ID, func(*alerts.Instance) error { return nil })
	wantErr(t, err, store.ErrNotFound, "UpdateAlertInstance of another organization")
	if list, n, err := s.AlertInstances(ctx(t), b.ID, alerts.InstanceFilter{}); err != nil || n != 0 || len(list) != 0 {
		t.Errorf("AlertInstances of b: got %d (%d), %v, want none", len(list), n, err)
	}
	if list, n, err := s.AlertRules(ctx(t), b.ID, alerts.RuleFilter{}); err != nil || n != 1 || len(list) != 1 || list[0].ID != own.ID {
		t.Errorf("AlertRules of b: got %d (%d), %v, want b's own rule", len(list), n, err)
	}
}

func testAlertRuleList(t *testing.T, s Store) {
	o := newOrg(t, s)
	m1, m2 := modelFor(t, s, o.ID, "a"), modelFor(t, s, o.ID, "b")
	var ids []string
	for i, mid := range []string{m1.ID, m2.ID, "", m1.ID} {
		r := newRule(o.ID, mid, 10+i)
		r.Enabled = i != 3
		must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
		ids = append(ids, r.ID)
	}
	f := func(what string, filter alerts.RuleFilter, total int64, want ...string) {
		t.Helper()
		got, n, err := s.AlertRules(ctx(t), o.ID, filter)
		must(t, err, what)
		var gotIDs []string
		for _, r := range got {
			gotIDs = append(gotIDs, r.ID)
		}
		if n != total {
			t.Errorf("%s: got total %d, want %d", what, n, total)
		}
		equal(t, what, gotIDs, want)
	}
	f("all, newest first", alerts.RuleFilter{}, 4, ids[3], ids[2], ids[1], ids[0])
	f("model 1", alerts.RuleFilter{ModelID: m1.ID}, 2, ids[3], ids[0])
	f("disabled", alerts.RuleFilter{Enabled: ptr(false)}, 1, ids[3])
	f("second page of two", alerts.RuleFilter{Limit: 2, Offset: 2}, 4, ids[1], ids[0])
}

func testAlertTargets(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m1, m2 := modelFor(t, s, a.ID, "a"), modelFor(t, s, a.ID, "b")
	archived := newModel(a.ID, "old", "1", 1)
	archived.Status = registry.StatusArchived
	must(t, s.CreateModel(ctx(t), archived), "CreateModel archived")
	mb := modelFor(t, s, b.ID, "b")
	one, every, off := newRule(a.ID, m1.ID, 2), newRule(a.ID, "", 3), newRule(a.ID, "", 4)
	off.Enabled = false
	other := newRule(b.ID, "", 5)
	for _, r := range []alerts.Rule{one, every, off, other} {
		must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	}
	got, err := s.AlertTargets(ctx(t))
	must(t, err, "AlertTargets")
	pairs := map[string]bool{}
	for _, tg := range got {
		pairs[tg.Rule.ID+" "+tg.ModelID] = true
		if tg.Rule.ID == one.ID {
			equal(t, "target's rule", tg.Rule, storedRule(one))
		}
	}
	want := map[string]bool{one.ID + " " + m1.ID: true, every.ID + " " + m1.ID: true, every.ID + " " + m2.ID: true, other.ID + " " + mb.ID: true}
	equal(t, "targets (enabled rules; models not archived; own organization)", pairs, want)
}

func testAlertFire(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	r := newRule(o.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	in := newInstance(r, m.ID, 60)
	got, created, err := s.FireAlert(ctx(t), in, at(0), func(*alerts.Instance) error { t.Fatal("change called without an instance"); return nil }, nil)
	must(t, err, "FireAlert first")
	if !created || got.ID != in.ID {
		t.Fatalf("FireAlert first: got created %v id %s, want true %s", created, got.ID, in.ID)
	}
	stored, err := s.AlertInstance(ctx(t), o.ID, in.ID)
	must(t, err, "AlertInstance")
	equal(t, "fired instance", stored, storedInstance(in))
	open, err := s.OpenAlert(ctx(t), o.ID, r.ID, m.ID, r.ConditionKey())
	must(t, err, "OpenAlert")
	equal(t, "open instance", open.ID, in.ID)

	again := newInstance(r, m.ID, 120)
	got, created, err = s.FireAlert(ctx(t), again, at(0), func(cur *alerts.Instance) error {
		cur.Count++
		cur.WindowEnd, cur.LastTriggeredAt = again.WindowEnd, again.LastTriggeredAt
		return nil
	}, nil)
	must(t, err, "FireAlert again")
	if created || got.ID != in.ID || got.Count != 2 {
		t.Fatalf("FireAlert again: got created %v id %s count %d, want false %s 2", created, got.ID, got.Count, in.ID)
	}
	if n := countInstances(t, s, o.ID); n != 1 {
		t.Fatalf("instances after two fires: got %d, want 1", n)
	}
	other := r
	other.Conditions = r.Conditions[:1]
	_, created, err = s.FireAlert(ctx(t), newInstance(other, m.ID, 120), at(0), nil, nil)
	must(t, err, "FireAlert with other conditions")
	if !created {
		t.Errorf("FireAlert with another condition set: got created false, want a new instance")
	}
	_, err = s.OpenAlert(ctx(t), o.ID, r.ID, m.ID, "no-such-key")
	wantErr(t, err, store.ErrNotFound, "OpenAlert of another condition key")
}

func countInstances(t *testing.T, s Store, orgID string) int64 {
	t.Helper()
	_, n, err := s.AlertInstances(ctx(t), orgID, alerts.InstanceFilter{})
	must(t, err, "AlertInstances")
	return n
}

// testAlertFireConcurrent: replicas firing the same rule and model at once
// open one instance, and each fire after the first updates it.
func testAlertFireConcurrent(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	r := newRule(o.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	const n = 8
	created := make([]bool, n)
	errs := parallel(n, func(i int) error {
		var err error
		_, created[i], err = s.FireAlert(ctx(t), newInstance(r, m.ID, 60), at(0), func(cur *alerts.Instance) error {
			cur.Count++
			return nil
		}, nil)
		return err
	})
	opened := 0
	for i, err := range errs {
		must(t, err, "concurrent FireAlert")
		if created[i] {
			opened++
		}
	}
	if opened != 1 {
		t.Fatalf("concurrent fires: got %d created, want 1", opened)
	}
	list, total, err := s.AlertInstances(ctx(t), o.ID, alerts.InstanceFilter{})
	must(t, err, "AlertInstances")
	if total != 1 || list[0].Count != n {
		t.Fatalf("after %d concurrent fires: got %d instances, count %d, want 1 with count %d", n, total, list[0].Count, n)
	}
}

func testAlertCooldown(t *testing.T, s Store) {
	o, m, r, in := fired(t, s)
	var err error
	_, err = s.UpdateAlertInstance(ctx(t), o.ID, in.ID, func(cur *alerts.Instance) error {
		return cur.Apply(alerts.ActionAutoResolve, alerts.SystemUser, at(120), nil, "")
	})
	must(t, err, "auto-resolve")
	got, created, err := s.FireAlert(ctx(t), newInstance(r, m.ID, 180), at(100), nil, nil)
	must(t, err, "FireAlert in the cooldown")
	if created || got.ID != "" {
		t.Fatalf("FireAlert resolved at 120 since 100: got created %v id %q, want nothing", created, got.ID)
	}
	_, created, err = s.FireAlert(ctx(t), newInstance(r, m.ID, 1200), at(121), nil, nil)
	must(t, err, "FireAlert after the cooldown")
	if !created {
		t.Fatalf("FireAlert resolved at 120 since 121: got created false, want a new instance")
	}
}

func testAlertMoves(t *testing.T, s Store) {
	o, _, _, in := fired(t, s)
	var err error
	until := at(600)
	steps := []struct {
		action string
		until  *time.Time
	}{{alerts.ActionAcknowledge, nil}, {alerts.ActionSnooze, &until}, {alerts.ActionResolve, nil}}
	for i, st := range steps {
		want := in
		must(t, want.Apply(st.action, o.Admin.ID, at(100+i), st.until, "note"), "Apply "+st.action)
		got, err := s.UpdateAlertInstance(ctx(t), o.ID, in.ID, func(cur *alerts.Instance) error {
			return cur.Apply(st.action, o.Admin.ID, at(100+i), st.until, "note")
		})
		must(t, err, "UpdateAlertInstance "+st.action)
		stored, err := s.AlertInstance(ctx(t), o.ID, in.ID)
		must(t, err, "AlertInstance")
		equal(t, "after "+st.action, stored, storedInstance(want))
		equal(t, "returned after "+st.action, got.Status, want.Status)
		in = want
	}
	var illegal *alerts.IllegalMove
	_, err = s.UpdateAlertInstance(ctx(t), o.ID, in.ID, func(cur *alerts.Instance) error {
		return cur.Apply(alerts.ActionAcknowledge, o.Admin.ID, at(200), nil, "")
	})
	if !errors.As(err, &illegal) || illegal.Status != alerts.StatusResolved {
		t.Fatalf("acknowledge a resolved instance: got %v, want an IllegalMove from resolved", err)
	}
	if got, _ := s.AlertInstance(ctx(t), o.ID, in.ID); len(got.History) != 4 {
		t.Fatalf("history: got %d moves, want 4 (trigger, acknowledge, snooze, resolve)", len(got.History))
	}
}

func testAlertInstanceList(t *testing.T, s Store) {
	o := newOrg(t, s)
	m1, m2 := modelFor(t, s, o.ID, "a"), modelFor(t, s, o.ID, "b")
	r1, r2 := newRule(o.ID, "", 2), newRule(o.ID, m2.ID, 3)
	r2.Severity = "low"
	must(t, s.CreateAlertRule(ctx(t), r1), "CreateAlertRule")
	must(t, s.CreateAlertRule(ctx(t), r2), "CreateAlertRule")
	a, b, c := newInstance(r1, m1.ID, 10), newInstance(r1, m2.ID, 20), newInstance(r2, m2.ID, 30)
	for _, in := range []alerts.Instance{a, b, c} {
		_, _, err := s.FireAlert(ctx(t), in, at(0), nil, nil)
		must(t, err, "FireAlert")
	}
	_, err := s.UpdateAlertInstance(ctx(t), o.ID, b.ID, func(cur *alerts.Instance) error {
		return cur.Apply(alerts.ActionAcknowledge, "u", at(40), nil, "")
	})
	must(t, err, "acknowledge")
	f := func(what string, filter alerts.InstanceFilter, total int64, want ...string) {
		t.Helper()
		got, n, err := s.AlertInstances(ctx(t), o.ID, filter)
		must(t, err, what)
		var ids []string
		for _, in := range got {
			ids = append(ids, in.ID)
		}
		if n != total {
			t.Errorf("%s: got total %d, want %d", what, n, total)
		}
		equal(t, what, ids, want)
	}
	f("all, newest first", alerts.InstanceFilter{}, 3, c.ID, b.ID, a.ID)
	f("acknowledged", alerts.InstanceFilter{Status: alerts.StatusAcknowledged}, 1, b.ID)
	f("low", alerts.InstanceFilter{Severity: "low"}, 1, c.ID)
	f("model 2", alerts.InstanceFilter{ModelID: m2.ID}, 2, c.ID, b.ID)
	f("rule 1", alerts.InstanceFilter{RuleID: r1.ID}, 2, b.ID, a.ID)
	f("time range [20, 30)", alerts.InstanceFilter{From: at(20), To: at(30)}, 1, b.ID)
	f("first page", alerts.InstanceFilter{Limit: 1}, 3, c.ID)
}

func testAlertDeleteRule(t *testing.T, s Store) {
	o, _, r, in := fired(t, s)
	var err error
	must(t, s.DeleteAlertRule(ctx(t), o.ID, r.ID, o.Admin.ID, at(90)), "DeleteAlertRule")
	_, err = s.AlertRule(ctx(t), o.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "AlertRule after delete")
	got, err := s.AlertInstance(ctx(t), o.ID, in.ID)
	must(t, err, "AlertInstance after the rule's delete")
	if got.Status != alerts.StatusResolved || got.ResolvedBy != o.Admin.ID || got.History[len(got.History)-1].Note != "rule deleted" {
		t.Fatalf("instance after its rule's delete: got %+v, want resolved by the admin, note rule deleted", got)
	}
	wantErr(t, s.DeleteAlertRule(ctx(t), o.ID, r.ID, o.Admin.ID, at(91)), store.ErrNotFound, "DeleteAlertRule again")
}

func testAlertDeleteModel(t *testing.T, s Store) {
	o, m, r, in := fired(t, s)
	var err error
	must(t, s.DeleteModel(ctx(t), o.ID, m.ID), "DeleteModel")
	_, err = s.AlertRule(ctx(t), o.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "the model's rule after its delete")
	_, err = s.AlertInstance(ctx(t), o.ID, in.ID)
	wantErr(t, err, store.ErrNotFound, "the model's instance after its delete")
}

// testAlertChangeConditions: changing a rule's conditions resolves its
// instances of the old condition set; other changes leave them open.
func testAlertChangeConditions(t *testing.T, s Store) {
	o, _, r, in := fired(t, s)
	var err error
	_, err = s.UpdateAlertRule(ctx(t), o.ID, r.ID, func(r *alerts.Rule) error { r.Name, r.UpdatedAt = "renamed", at(70); return nil })
	must(t, err, "UpdateAlertRule name")
	if got, _ := s.AlertInstance(ctx(t), o.ID, in.ID); got.Status != alerts.StatusOpen {
		t.Fatalf("after a rename: got status %s, want open", got.Status)
	}
	_, err = s.UpdateAlertRule(ctx(t), o.ID, r.ID, func(r *alerts.Rule) error {
		r.Conditions[0].Threshold, r.UpdatedAt = 800, at(80)
		return nil
	})
	must(t, err, "UpdateAlertRule conditions")
	got, err := s.AlertInstance(ctx(t), o.ID, in.ID)
	must(t, err, "AlertInstance")
	if got.Status != alerts.StatusResolved || got.ResolvedBy != alerts.SystemUser || !got.ResolvedAt.Equal(stored(at(80))) {
		t.Fatalf("after a change of conditions: got %s by %q at %v, want resolved by system at %v", got.Status, got.ResolvedBy, got.ResolvedAt, stored(at(80)))
	}
}

package storetest

import (
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/alerts"
)

var alertBatchTests = []test{
	{"Alerts/FireBatch", testAlertFireBatch},
	{"Alerts/FireBatchAllOrNothing", testAlertFireBatchAllOrNothing},
	{"Alerts/FireBatchReplicas", testAlertFireBatchReplicas},
}

// batchPairs creates an organization with n models and one rule on each,
// and returns the rules (rule i watches model i).
func batchPairs(t *testing.T, s Store, n int) (org, []alerts.Rule) {
	t.Helper()
	o := newOrg(t, s)
	rules := make([]alerts.Rule, n)
	for i := range rules {
		m := modelFor(t, s, o.ID, "m"+newID())
		rules[i] = newRule(o.ID, m.ID, 2)
		must(t, s.CreateAlertRule(ctx(t), rules[i]), "CreateAlertRule")
	}
	return o, rules
}

// batchOutbox owes one delivery per alert opened, none per update.
func batchOutbox(r alerts.Rule) alerts.Outbox {
	return func(in alerts.Instance, created bool) ([]alerts.Delivery, error) {
		if !created {
			return nil, nil
		}
		return newDeliveries(r, in, 1), nil
	}
}

func countDeliveries(t *testing.T, s Store, orgID string) int {
	t.Helper()
	db := sqlDB(s)
	if db == nil {
		return -1
	}
	var n int
	// orgID is a UUID: a literal keeps the query the same on every dialect.
	must(t, db.QueryRowContext(ctx(t), `SELECT COUNT(*) FROM alert_deliveries WHERE org_id = '`+orgID+`'`).Scan(&n), "count deliveries")
	return n
}

// testAlertFireBatch: one batch opens the new pairs' alerts, updates the
// open one, skips the one cooling down, answers in the batch's order and
// stores the deliveries of the opened ones.
func testAlertFireBatch(t *testing.T, s Store) {
	o, rules := batchPairs(t, s, 4)
	open, _, err := s.FireAlert(ctx(t), newInstance(rules[1], rules[1].ModelID, 60), at(0), nil, nil)
	must(t, err, "FireAlert open")
	cooling, _, err := s.FireAlert(ctx(t), newInstance(rules[2], rules[2].ModelID, 60), at(0), nil, nil)
	must(t, err, "FireAlert cooling")
	_, err = s.UpdateAlertInstance(ctx(t), o.ID, cooling.ID, func(cur *alerts.Instance) error {
		return cur.Apply(alerts.ActionAutoResolve, alerts.SystemUser, at(120), nil, "")
	})
	must(t, err, "auto-resolve")
	fires := make([]alerts.Fire, len(rules))
	for i, r := range rules {
		fires[i] = alerts.Fire{Instance: newInstance(r, r.ModelID, 180), Since: at(100), Outbox: batchOutbox(r),
			Change: func(cur *alerts.Instance) error { cur.Count++; return nil }}
	}
	got, err := s.FireAlerts(ctx(t), fires)
	must(t, err, "FireAlerts")
	if len(got) != len(fires) {
		t.Fatalf("FireAlerts: got %d answers, want %d", len(got), len(fires))
	}
	for i, want := range []struct {
		id      string
		created bool
	}{{fires[0].Instance.ID, true}, {open.ID, false}, {"", false}, {fires[3].Instance.ID, true}} {
		if got[i].Instance.ID != want.id || got[i].Created != want.created {
			t.Errorf("FireAlerts answer %d: got id %q created %v, want %q %v", i, got[i].Instance.ID, got[i].Created, want.id, want.created)
		}
	}
	if got[1].Instance.Count != 2 {
		t.Errorf("FireAlerts on the open alert: got count %d, want 2", got[1].Instance.Count)
	}
	if n := countInstances(t, s, o.ID); n != 4 {
		t.Errorf("after the batch: got %d instances, want 4 (2 opened, 1 updated, 1 resolved)", n)
	}
	if n := countDeliveries(t, s, o.ID); n != 2 && n != -1 {
		t.Errorf("after the batch: got %d deliveries, want 2 (one per alert opened)", n)
	}
}

// testAlertFireBatchAllOrNothing: a fault at the batch's last alert
// leaves none of its alerts or deliveries written.
func testAlertFireBatchAllOrNothing(t *testing.T, s Store) {
	o, rules := batchPairs(t, s, 3)
	fault := errors.New("injected fault at the batch's last alert")
	fires := make([]alerts.Fire, len(rules))
	for i, r := range rules {
		fires[i] = alerts.Fire{Instance: newInstance(r, r.ModelID, 60), Since: at(0), Outbox: batchOutbox(r)}
	}
	fires[2].Outbox = func(alerts.Instance, bool) ([]alerts.Delivery, error) { return nil, fault }
	if _, err := s.FireAlerts(ctx(t), fires); !errors.Is(err, fault) {
		t.Fatalf("FireAlerts with a failing outbox: got %v, want the fault", err)
	}
	if n := countInstances(t, s, o.ID); n != 0 {
		t.Errorf("after a failed batch: got %d instances, want none", n)
	}
	if n := countDeliveries(t, s, o.ID); n > 0 {
		t.Errorf("after a failed batch: got %d deliveries, want none", n)
	}
}

// testAlertFireBatchReplicas: replicas writing the same pairs at once, each
// in its own order, open one instance per pair, owe its deliveries once,
// and every other write of the pair updates it.
func testAlertFireBatchReplicas(t *testing.T, s Store) {
	const pairs, replicas = 40, 3
	o, rules := batchPairs(t, s, pairs)
	var mu sync.Mutex
	opened := map[string]int{}
	errs := parallel(replicas, func(k int) error {
		fires := make([]alerts.Fire, pairs)
		for i, r := range rules {
			fires[i] = alerts.Fire{Instance: newInstance(r, r.ModelID, 60), Since: at(0), Outbox: batchOutbox(r),
				Change: func(cur *alerts.Instance) error { cur.Count++; return nil }}
		}
		if k%2 == 1 {
			slices.Reverse(fires)
		}
		got, err := s.FireAlerts(ctx(t), fires)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		for _, f := range got {
			if f.Created {
				opened[f.Instance.RuleID]++
			}
		}
		return nil
	})
	for _, err := range errs {
		must(t, err, "concurrent FireAlerts")
	}
	for _, r := range rules {
		if opened[r.ID] != 1 {
			t.Errorf("rule %s: got %d replicas opening its alert, want 1", r.ID, opened[r.ID])
		}
	}
	list, total, err := s.AlertInstances(ctx(t), o.ID, alerts.InstanceFilter{Limit: pairs + 1})
	must(t, err, "AlertInstances")
	if total != pairs {
		t.Fatalf("after %d replicas: got %d instances, want %d", replicas, total, pairs)
	}
	for _, in := range list {
		if in.Count != replicas {
			t.Errorf("instance of rule %s: got count %d, want %d", in.RuleID, in.Count, replicas)
		}
	}
	if n := countDeliveries(t, s, o.ID); n != pairs && n != -1 {
		t.Errorf("after %d replicas: got %d deliveries, want %d (one per alert opened)", replicas, n, pairs)
	}
}

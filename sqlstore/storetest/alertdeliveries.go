package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
)

var alertDeliveryTests = []test{
	{"Alerts/Deliveries", testAlertDeliveries},
	{"Alerts/DeliveriesClaimedOnce", testAlertDeliveriesClaimedOnce},
	{"Alerts/DeliveriesInTheAlertsWrite", testAlertDeliveriesInTheAlertsWrite},
	{"Alerts/Statistics", testAlertStatistics},
}

// newDeliveries returns n pending deliveries of the alert, due at second
// 60.
func newDeliveries(r alerts.Rule, in alerts.Instance, n int) []alerts.Delivery {
	out := make([]alerts.Delivery, n)
	for i := range out {
		out[i] = alerts.Delivery{ID: newID(), OrgID: in.OrgID, AlertID: in.ID, RuleID: r.ID, Event: alerts.EventOpened, ChannelIndex: i,
			Channel: alerts.Channel{Type: "webhook", Target: "https://hooks.example.com/" + newID()}, Payload: []byte(`{"event":"alert.opened"}`),
			Status: alerts.DeliveryPending, Attempts: []alerts.Attempt{}, NextAttemptAt: stored(at(60)), CreatedAt: stored(at(60)), UpdatedAt: stored(at(60))}
	}
	return out
}

func testAlertDeliveries(t *testing.T, s Store) {
	o, _, r, in := fired(t, s)
	ds := newDeliveries(r, in, 2)
	must(t, s.CreateAlertDeliveries(ctx(t), ds), "CreateAlertDeliveries")
	got, err := s.AlertDeliveries(ctx(t), o.ID, in.ID)
	must(t, err, "AlertDeliveries")
	equal(t, "stored deliveries", got, ds)
	if early, err := s.ClaimAlertDeliveries(ctx(t), at(59), at(120), 10); err != nil || len(early) != 0 {
		t.Fatalf("claim before they are due: got %d, %v, want none", len(early), err)
	}
	claimed, err := s.ClaimAlertDeliveries(ctx(t), at(60), at(120), 10)
	must(t, err, "ClaimAlertDeliveries")
	if len(claimed) != 2 || !claimed[0].NextAttemptAt.Equal(at(120)) {
		t.Fatalf("claim when due: got %+v, want both leased until second 120", claimed)
	}
	if again, err := s.ClaimAlertDeliveries(ctx(t), at(90), at(150), 10); err != nil || len(again) != 0 {
		t.Fatalf("claim within the lease: got %d, %v, want none", len(again), err)
	}
	done := claimed[0]
	done.Status, done.UpdatedAt = alerts.DeliveryDelivered, stored(at(61))
	done.Attempts = []alerts.Attempt{{At: stored(at(60)), OK: true, StatusCode: 204, DurationMS: 12.5}}
	must(t, s.UpdateAlertDelivery(ctx(t), done), "UpdateAlertDelivery")
	got, err = s.AlertDeliveries(ctx(t), o.ID, in.ID)
	must(t, err, "AlertDeliveries")
	equal(t, "the delivered one", got[0].Attempts, done.Attempts)
	equal(t, "its status", got[0].Status, alerts.DeliveryDelivered)
	after, err := s.ClaimAlertDeliveries(ctx(t), at(120), at(180), 10)
	must(t, err, "claim after the lease")
	if len(after) != 1 || after[0].ID != claimed[1].ID {
		t.Fatalf("claim after the lease: got %d, want the pending one alone", len(after))
	}
	other := newOrg(t, s)
	if list, err := s.AlertDeliveries(ctx(t), other.ID, in.ID); err != nil || len(list) != 0 {
		t.Fatalf("another organization's read: got %d, %v, want none", len(list), err)
	}
}

// testAlertDeliveriesClaimedOnce: dispatchers claiming at once share the
// due deliveries out, none twice.
func testAlertDeliveriesClaimedOnce(t *testing.T, s Store) {
	_, _, r, in := fired(t, s)
	must(t, s.CreateAlertDeliveries(ctx(t), newDeliveries(r, in, 8)), "CreateAlertDeliveries")
	const n = 4
	got := make([][]alerts.Delivery, n)
	errs := parallel(n, func(i int) error {
		var err error
		got[i], err = s.ClaimAlertDeliveries(ctx(t), at(60), at(120), 100)
		return err
	})
	seen := map[string]int{}
	for i, err := range errs {
		must(t, err, "concurrent claim")
		for _, d := range got[i] {
			seen[d.ID]++
		}
	}
	if len(seen) != 8 {
		t.Fatalf("concurrent claims: got %d deliveries claimed, want all 8", len(seen))
	}
	for id, k := range seen {
		if k != 1 {
			t.Fatalf("delivery %s claimed %d times, want once", id, k)
		}
	}
}

func testAlertStatistics(t *testing.T, s Store) {
	o := newOrg(t, s)
	m1, m2 := modelFor(t, s, o.ID, "a"), modelFor(t, s, o.ID, "b")
	r1, r2 := newRule(o.ID, "", 2), newRule(o.ID, "", 3)
	r2.Severity = "critical"
	must(t, s.CreateAlertRule(ctx(t), r1), "CreateAlertRule")
	must(t, s.CreateAlertRule(ctx(t), r2), "CreateAlertRule")
	fire := func(r alerts.Rule, model string, n int) alerts.Instance {
		t.Helper()
		in := newInstance(r, model, n)
		_, _, err := s.FireAlert(ctx(t), in, at(0), nil, nil)
		must(t, err, "FireAlert")
		return in
	}
	move := func(in alerts.Instance, action string, n int) {
		t.Helper()
		_, err := s.UpdateAlertInstance(ctx(t), o.ID, in.ID, func(cur *alerts.Instance) error { return cur.Apply(action, "u", at(n), nil, "") })
		must(t, err, action)
	}
	a := fire(r1, m1.ID, 100) // acknowledged after 60 s, resolved after 300 s
	move(a, alerts.ActionAcknowledge, 160)
	move(a, alerts.ActionResolve, 400)
	b := fire(r1, m2.ID, 200) // resolved automatically after 120 s
	move(b, alerts.ActionAutoResolve, 320)
	fire(r2, m1.ID, 300)  // open
	fire(r2, m2.ID, 5000) // outside the period
	groups, err := s.AlertStatistics(ctx(t), o.ID, "", at(0), at(1000))
	must(t, err, "AlertStatistics")
	var total, acked, resolved int64
	var ack, res time.Duration
	byRule := map[string]int64{}
	for _, g := range groups {
		total += g.Count
		acked += g.Acknowledged
		resolved += g.Resolved
		ack += g.AckTotal
		res += g.ResolveTotal
		byRule[g.RuleID] += g.Count
		if g.RuleID == r1.ID && g.RuleName != r1.Name {
			t.Errorf("group of rule 1: got name %q, want %q", g.RuleName, r1.Name)
		}
	}
	if total != 3 || acked != 1 || resolved != 2 || ack != 60*time.Second || res != 420*time.Second || byRule[r1.ID] != 2 || byRule[r2.ID] != 1 {
		t.Fatalf("statistics of [0, 1000): got total %d, acknowledged %d in %v, resolved %d in %v, by rule %v; "+
			"want 3, 1 in 1m0s, 2 in 7m0s, rule 1: 2, rule 2: 1", total, acked, ack, resolved, res, byRule)
	}
	groups, err = s.AlertStatistics(ctx(t), o.ID, m2.ID, at(0), at(1000))
	must(t, err, "AlertStatistics of model 2")
	if len(groups) != 1 || groups[0].Resolution != "auto" || groups[0].Status != alerts.StatusResolved {
		t.Fatalf("statistics of model 2: got %+v, want its auto-resolved alert alone", groups)
	}
	if g, err := s.AlertStatistics(ctx(t), newOrg(t, s).ID, "", at(0), at(1000)); err != nil || len(g) != 0 {
		t.Fatalf("another organization's statistics: got %d, %v, want none", len(g), err)
	}

	// An alert stored resolved before it was triggered (as an evaluation
	// could write it before Apply kept moves in order) counts as resolved
	// at once, never as a negative time.
	early := fire(r1, modelFor(t, s, o.ID, "c").ID, 500)
	_, err = s.UpdateAlertInstance(ctx(t), o.ID, early.ID, func(cur *alerts.Instance) error {
		when := at(450)
		cur.Status, cur.ResolvedAt, cur.Resolution = alerts.StatusResolved, &when, "auto"
		return nil
	})
	must(t, err, "UpdateAlertInstance")
	groups, err = s.AlertStatistics(ctx(t), o.ID, "", at(500), at(501))
	must(t, err, "AlertStatistics of the early resolution")
	if len(groups) != 1 || groups[0].Resolved != 1 || groups[0].ResolveTotal != 0 {
		t.Fatalf("statistics of an alert resolved before its trigger: got %+v, want 1 resolved in 0s", groups)
	}
}

// testAlertDeliveriesInTheAlertsWrite: an alert and the deliveries it owes
// commit in one transaction. A fault between the two writes (the outbox
// failing, or a delivery row the store refuses) leaves neither; an update
// that announces nothing writes no delivery.
func testAlertDeliveriesInTheAlertsWrite(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	r := newRule(o.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	var calls int
	outbox := func(ds func(in alerts.Instance) ([]alerts.Delivery, error)) alerts.Outbox {
		return func(in alerts.Instance, created bool) ([]alerts.Delivery, error) {
			calls++
			if !created {
				return nil, nil
			}
			return ds(in)
		}
	}
	nothing := func(what string) {
		t.Helper()
		if n := countInstances(t, s, o.ID); n != 0 {
			t.Fatalf("%s: got %d instances, want none (nothing half-written)", what, n)
		}
		if db := sqlDB(s); db != nil {
			var n int
			// o.ID is a UUID: a literal keeps the query the same on every dialect.
			must(t, db.QueryRowContext(ctx(t), `SELECT COUNT(*) FROM alert_deliveries WHERE org_id = '`+o.ID+`'`).Scan(&n), "count deliveries")
			if n != 0 {
				t.Fatalf("%s: got %d deliveries, want none", what, n)
			}
		}
	}

	fault := errors.New("injected fault between the alert's write and its deliveries'")
	_, _, err := s.FireAlert(ctx(t), newInstance(r, m.ID, 60), at(0), nil,
		outbox(func(alerts.Instance) ([]alerts.Delivery, error) { return nil, fault }))
	if !errors.Is(err, fault) {
		t.Fatalf("FireAlert with a failing outbox: got %v, want the fault", err)
	}
	nothing("a failing outbox")

	_, _, err = s.FireAlert(ctx(t), newInstance(r, m.ID, 60), at(0), nil, outbox(func(in alerts.Instance) ([]alerts.Delivery, error) {
		ds := newDeliveries(r, in, 2)
		ds[1].ID = ds[0].ID // the second row fails on the primary key
		return ds, nil
	}))
	if err == nil {
		t.Fatal("FireAlert with a refused delivery row: got nil, want an error")
	}
	nothing("a refused delivery row")

	o = newOrg(t, s)
	m = modelFor(t, s, o.ID, "credit")
	r = newRule(o.ID, m.ID, 2)
	must(t, s.CreateAlertRule(ctx(t), r), "CreateAlertRule")
	var want []alerts.Delivery
	in, created, err := s.FireAlert(ctx(t), newInstance(r, m.ID, 60), at(0), nil, outbox(func(in alerts.Instance) ([]alerts.Delivery, error) {
		want = newDeliveries(r, in, 2)
		return want, nil
	}))
	must(t, err, "FireAlert with deliveries")
	if !created {
		t.Fatal("FireAlert with deliveries: got created false, want true")
	}
	got, err := s.AlertDeliveries(ctx(t), o.ID, in.ID)
	must(t, err, "AlertDeliveries")
	equal(t, "deliveries written with the alert", got, want)
	calls = 0
	_, created, err = s.FireAlert(ctx(t), newInstance(r, m.ID, 120), at(0), func(cur *alerts.Instance) error { cur.Count++; return nil },
		outbox(func(alerts.Instance) ([]alerts.Delivery, error) {
			t.Fatal("deliveries asked of an update")
			return nil, nil
		}))
	must(t, err, "FireAlert update")
	if created || calls != 1 {
		t.Fatalf("FireAlert update: got created %v, outbox called %d times, want false, once", created, calls)
	}
	got, err = s.AlertDeliveries(ctx(t), o.ID, in.ID)
	must(t, err, "AlertDeliveries")
	if len(got) != 2 {
		t.Fatalf("deliveries after an update: got %d, want the 2 of the opening", len(got))
	}
}

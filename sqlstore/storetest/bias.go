package storetest

import (
	"testing"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/stats/fairness"
	"github.com/vigilhq/vigil/store"
)

var biasTests = []test{
	{"Bias/RoundTrip", testBiasRoundTrip},
	{"Bias/OtherOrg", testBiasOtherOrg},
	{"Bias/List", testBiasList},
	{"Bias/Stale", testBiasStale},
	{"Bias/DeleteModel", testBiasDeleteModel},
}

// newAudit returns a pending audit of the model created n seconds after base.
func newAudit(orgID, modelID string, n int) bias.Audit {
	return bias.Audit{ID: newID(), OrgID: orgID, ModelID: modelID, Status: bias.StatusPending,
		Request: bias.Summary{Form: bias.FormLabels, Attributes: []string{"gender"}, Metrics: []string{"disparate_impact"},
			Threshold: ptr(0.75), Reference: map[string]string{"gender": "male"}, Favourable: "approve", Rows: 4},
		CreatedAt: at(n), UpdatedAt: at(n)}
}

// storedAudit is a as the store gives it back.
func storedAudit(a bias.Audit) bias.Audit {
	a.CreatedAt, a.UpdatedAt, a.CompletedAt = stored(a.CreatedAt), stored(a.UpdatedAt), storedPtr(a.CompletedAt)
	return a
}

// checkAudit fails the test unless the stored audit is want as stored.
func checkAudit(t *testing.T, s Store, what string, want bias.Audit) {
	t.Helper()
	got, err := s.BiasAudit(ctx(t), want.OrgID, want.ID)
	must(t, err, what+": BiasAudit")
	equal(t, what, got, storedAudit(want))
	checkUTC(t, what, &got.CreatedAt, &got.UpdatedAt, got.CompletedAt)
}

// auditResult is the result of a small real audit.
func auditResult(t *testing.T) *bias.Result {
	t.Helper()
	rep, err := fairness.Audit(fairness.Input{Attributes: []fairness.Attribute{{Name: "gender", Values: []string{"f", "f", "m", "m", ""}}},
		Pred: []bool{true, false, true, true, false}, Truth: []bool{true, true, true, false, false}})
	must(t, err, "fairness.Audit")
	r := bias.NewResult(rep)
	return &r
}

func testBiasRoundTrip(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := newModel(o.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	a := newAudit(o.ID, m.ID, 2)
	must(t, s.CreateBiasAudit(ctx(t), a), "CreateBiasAudit")
	checkAudit(t, s, "pending audit", a)

	a.Status, a.UpdatedAt = bias.StatusRunning, at(3)
	must(t, s.UpdateBiasAudit(ctx(t), a), "UpdateBiasAudit running")
	checkAudit(t, s, "running audit", a)

	a.Status, a.UpdatedAt, a.CompletedAt, a.Result = bias.StatusCompleted, at(4), ptr(at(4)), auditResult(t)
	a.Request.Rows = 5
	must(t, s.UpdateBiasAudit(ctx(t), a), "UpdateBiasAudit completed")
	checkAudit(t, s, "completed audit", a)

	f := newAudit(o.ID, m.ID, 5)
	must(t, s.CreateBiasAudit(ctx(t), f), "CreateBiasAudit second")
	f.Status, f.Error, f.CompletedAt, f.Request.Favourable = bias.StatusFailed, "no predictions", ptr(at(6)), 1.0
	must(t, s.UpdateBiasAudit(ctx(t), f), "UpdateBiasAudit failed")
	checkAudit(t, s, "failed audit", f)
}

func testBiasOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	au := newAudit(a.ID, m.ID, 2)
	must(t, s.CreateBiasAudit(ctx(t), au), "CreateBiasAudit")

	_, err := s.BiasAudit(ctx(t), b.ID, au.ID)
	wantErr(t, err, store.ErrNotFound, "BiasAudit from another organization")
	wantErr(t, s.CreateBiasAudit(ctx(t), newAudit(b.ID, m.ID, 3)), store.ErrNotFound, "CreateBiasAudit for another organization's model")
	wantErr(t, s.CreateBiasAudit(ctx(t), newAudit(a.ID, newID(), 3)), store.ErrNotFound, "CreateBiasAudit for an unknown model")
	theirs := au
	theirs.OrgID, theirs.Status = b.ID, bias.StatusFailed
	wantErr(t, s.UpdateBiasAudit(ctx(t), theirs), store.ErrNotFound, "UpdateBiasAudit from another organization")
	list, total, err := s.BiasAudits(ctx(t), b.ID, bias.Filter{})
	must(t, err, "BiasAudits of the other organization")
	if len(list) != 0 || total != 0 {
		t.Errorf("other organization's list: got %d audits of %d, want none", len(list), total)
	}
	checkAudit(t, s, "audit after the other organization's attempts", au)
}

func testBiasList(t *testing.T, s Store) {
	o := newOrg(t, s)
	m1, m2 := newModel(o.ID, "credit", "1", 1), newModel(o.ID, "credit", "2", 1)
	must(t, s.CreateModel(ctx(t), m1), "CreateModel 1")
	must(t, s.CreateModel(ctx(t), m2), "CreateModel 2")
	var ids []string
	for i, m := range []string{m1.ID, m2.ID, m1.ID, m1.ID} {
		a := newAudit(o.ID, m, 10+i)
		if i == 2 {
			a.Status = bias.StatusCompleted
		}
		must(t, s.CreateBiasAudit(ctx(t), a), "CreateBiasAudit")
		ids = append(ids, a.ID)
	}
	f := func(filter bias.Filter, wantTotal int64, want ...string) {
		t.Helper()
		list, total, err := s.BiasAudits(ctx(t), o.ID, filter)
		must(t, err, "BiasAudits")
		var got []string
		for _, a := range list {
			got = append(got, a.ID)
		}
		equal(t, "BiasAudits ids", got, want)
		if total != wantTotal {
			t.Errorf("BiasAudits(%+v): got total %d, want %d", filter, total, wantTotal)
		}
	}
	f(bias.Filter{}, 4, ids[3], ids[2], ids[1], ids[0])
	f(bias.Filter{Limit: 2, Offset: 1}, 4, ids[2], ids[1])
	f(bias.Filter{ModelID: m1.ID}, 3, ids[3], ids[2], ids[0])
	f(bias.Filter{ModelID: m1.ID, Status: bias.StatusPending}, 2, ids[3], ids[0])
	f(bias.Filter{Status: bias.StatusFailed}, 0)
}

func testBiasStale(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	ma, mb := newModel(a.ID, "credit", "1", 1), newModel(b.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), ma), "CreateModel a")
	must(t, s.CreateModel(ctx(t), mb), "CreateModel b")
	old, beat, fresh, done := newAudit(a.ID, ma.ID, 10), newAudit(b.ID, mb.ID, 10), newAudit(a.ID, ma.ID, 100), newAudit(a.ID, ma.ID, 10)
	beat.Status = bias.StatusRunning
	done.Status, done.CompletedAt = bias.StatusCompleted, ptr(at(11))
	for _, au := range []bias.Audit{old, beat, fresh, done} {
		must(t, s.CreateBiasAudit(ctx(t), au), "CreateBiasAudit")
	}
	must(t, s.TouchBiasAudits(ctx(t), []string{beat.ID, done.ID}, at(95)), "TouchBiasAudits")
	n, err := s.FailStaleBiasAudits(ctx(t), at(90), at(120), "stale")
	must(t, err, "FailStaleBiasAudits")
	if n != 1 {
		t.Errorf("FailStaleBiasAudits: got %d marked, want 1 (the audit without heartbeat)", n)
	}
	old.Status, old.Error, old.UpdatedAt, old.CompletedAt = bias.StatusFailed, "stale", at(120), ptr(at(120))
	checkAudit(t, s, "stale audit", old)
	beat.UpdatedAt = at(95)
	checkAudit(t, s, "audit with a heartbeat", beat)
	checkAudit(t, s, "fresh audit", fresh)
	checkAudit(t, s, "completed audit, not touched", done)
}

func testBiasDeleteModel(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := newModel(o.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	a := newAudit(o.ID, m.ID, 2)
	must(t, s.CreateBiasAudit(ctx(t), a), "CreateBiasAudit")
	must(t, s.DeleteModel(ctx(t), o.ID, m.ID), "DeleteModel")
	_, err := s.BiasAudit(ctx(t), o.ID, a.ID)
	wantErr(t, err, store.ErrNotFound, "BiasAudit after DeleteModel")
	wantErr(t, s.UpdateBiasAudit(ctx(t), a), store.ErrNotFound, "UpdateBiasAudit after DeleteModel")
}

package storetest

import (
	"slices"
	"testing"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/store"
)

// biasOwedTests are the bias audits' governance outbox, the finality of a
// finished audit and deletion.
var biasOwedTests = []test{
	{"Bias/GovernanceOwed", testBiasGovernanceOwed},
	{"Bias/Finished", testBiasFinished},
	{"Bias/Delete", testBiasDelete},
}

// completed is a completed at n seconds, owing its governance event or not.
func completed(t *testing.T, a bias.Audit, n int, owes bool) bias.Audit {
	t.Helper()
	a.Status, a.Result, a.UpdatedAt, a.CompletedAt, a.GovernancePending = bias.StatusCompleted, auditResult(t), at(n), ptr(at(n)), owes
	return a
}

// testBiasGovernanceOwed: audits completed owing their governance event,
// of any organization, are listed oldest first until marked sent.
func testBiasGovernanceOwed(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	ma, mb := newModel(a.ID, "credit", "1", 1), newModel(b.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), ma), "CreateModel a")
	must(t, s.CreateModel(ctx(t), mb), "CreateModel b")
	late, early, fair := newAudit(a.ID, ma.ID, 1), newAudit(b.ID, mb.ID, 2), newAudit(a.ID, ma.ID, 3)
	for _, c := range []struct {
		au   *bias.Audit
		at   int
		owes bool
	}{{&late, 20, true}, {&early, 10, true}, {&fair, 5, false}} {
		must(t, s.CreateBiasAudit(ctx(t), *c.au), "CreateBiasAudit")
		*c.au = completed(t, *c.au, c.at, c.owes)
		must(t, s.UpdateBiasAudit(ctx(t), *c.au), "UpdateBiasAudit completed")
	}
	owed := func(limit int, want ...string) {
		t.Helper()
		got, err := s.BiasGovernancePending(ctx(t), limit)
		must(t, err, "BiasGovernancePending")
		var ids []string
		for _, au := range got {
			ids = append(ids, au.ID)
		}
		if !slices.Equal(ids, want) {
			t.Fatalf("BiasGovernancePending(%d): got %v, want %v (oldest completion first)", limit, ids, want)
		}
	}
	owed(10, early.ID, late.ID)
	owed(1, early.ID)
	checkAudit(t, s, "audit owing its event", late)
	must(t, s.BiasGovernanceSent(ctx(t), a.ID, early.ID), "BiasGovernanceSent with another organization's id")
	must(t, s.BiasGovernanceSent(ctx(t), b.ID, early.ID), "BiasGovernanceSent")
	owed(10, late.ID)
	early.GovernancePending = false
	checkAudit(t, s, "audit whose event was sent", early)
}

// testBiasFinished: a completed, failed or cancelled audit is final.
func testBiasFinished(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := newModel(o.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	for _, st := range []bias.Status{bias.StatusCompleted, bias.StatusFailed, bias.StatusCancelled} {
		a := newAudit(o.ID, m.ID, 2)
		must(t, s.CreateBiasAudit(ctx(t), a), "CreateBiasAudit")
		a.Status, a.Error, a.UpdatedAt, a.CompletedAt = st, "", at(3), ptr(at(3))
		must(t, s.UpdateBiasAudit(ctx(t), a), "UpdateBiasAudit to "+string(st))
		late := completed(t, a, 4, true)
		wantErr(t, s.UpdateBiasAudit(ctx(t), late), store.ErrConflict, "UpdateBiasAudit of a "+string(st)+" audit")
		checkAudit(t, s, string(st)+" audit after a late update", a)
	}
}

// testBiasDelete: an audit is deleted in its organization only, and not
// while it owes its governance event.
func testBiasDelete(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	running, owing := newAudit(a.ID, m.ID, 2), newAudit(a.ID, m.ID, 3)
	running.Status = bias.StatusRunning
	must(t, s.CreateBiasAudit(ctx(t), running), "CreateBiasAudit running")
	must(t, s.CreateBiasAudit(ctx(t), owing), "CreateBiasAudit")
	owing = completed(t, owing, 4, true)
	must(t, s.UpdateBiasAudit(ctx(t), owing), "UpdateBiasAudit completed")

	wantErr(t, s.DeleteBiasAudit(ctx(t), b.ID, running.ID, at(9)), store.ErrNotFound, "DeleteBiasAudit from another organization")
	checkAudit(t, s, "audit after another organization's delete", running)
	must(t, s.DeleteBiasAudit(ctx(t), a.ID, running.ID, at(9)), "DeleteBiasAudit of a running audit")
	_, err := s.BiasAudit(ctx(t), a.ID, running.ID)
	wantErr(t, err, store.ErrNotFound, "BiasAudit after DeleteBiasAudit")
	wantErr(t, s.UpdateBiasAudit(ctx(t), completed(t, running, 5, true)), store.ErrNotFound, "UpdateBiasAudit after DeleteBiasAudit")
	wantErr(t, s.DeleteBiasAudit(ctx(t), a.ID, running.ID, at(9)), store.ErrNotFound, "DeleteBiasAudit twice")

	wantErr(t, s.DeleteBiasAudit(ctx(t), a.ID, owing.ID, at(9)), store.ErrConflict, "DeleteBiasAudit of an audit owing its event")
	checkAudit(t, s, "audit owing its event after a refused delete", owing)
	must(t, s.BiasGovernanceSent(ctx(t), a.ID, owing.ID), "BiasGovernanceSent")
	must(t, s.DeleteBiasAudit(ctx(t), a.ID, owing.ID, at(9)), "DeleteBiasAudit once sent")
}

package storetest

import (
	"math"
	"testing"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/store"
)

var trustTests = []test{
	{"Trust/Snapshots", testTrustSnapshots},
	{"Trust/OtherOrg", testTrustOtherOrg},
	{"Trust/Once", testTrustOnce},
	{"Trust/DeleteModel", testTrustDeleteModel},
}

// checkLatest fails the test unless the model's newest snapshot is number
// seq with the score want (nil: none).
func checkLatest(t *testing.T, s Store, orgID, modelID string, seq int64, want *float64) trust.Snapshot {
	t.Helper()
	got, err := s.TrustLatest(ctx(t), orgID, modelID)
	must(t, err, "TrustLatest")
	if got.Seq != seq || (got.Score == nil) != (want == nil) || want != nil && math.Abs(*got.Score-*want) > 0.005 {
		t.Fatalf("got snapshot %d with score %v, want %d with %v", got.Seq, fmtScore(got.Score), seq, fmtScore(want))
	}
	return got
}

func fmtScore(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// testTrustSnapshots: a drift report, a completed audit and a change of
// weights each take one snapshot, computed from the inputs then on file.
func testTrustSnapshots(t *testing.T, s Store) {
	o := newOrg(t, s)
	m, idle := modelFor(t, s, o.ID, "credit"), modelFor(t, s, o.ID, "idle")
	cfg, err := s.TrustConfig(ctx(t), o.ID)
	must(t, err, "TrustConfig")
	equal(t, "default config", cfg, trust.Config{Weights: trust.DefaultWeights, IsDefault: true})
	checkLatest(t, s, o.ID, m.ID, 0, nil)

	// Half the features drifted at high severity: 100 × (1 − 0.5), capped at 30.
	data := newReport(o.ID, m.ID, drift.TypeData, drift.High, 10)
	must(t, s.CreateDriftReport(ctx(t), data), "CreateDriftReport")
	first := checkLatest(t, s, o.ID, m.ID, 1, ptr(30.0))
	equal(t, "first snapshot's weights", first.Weights, trust.Weights{Drift: 1})
	equal(t, "first snapshot's inputs", first.Available, trust.Available{Drift: true})
	equal(t, "first snapshot's cause", [2]string{first.CauseType, first.CauseID}, [2]string{trust.CauseDriftReport, data.ID})
	equal(t, "first snapshot's time", first.At, stored(data.CreatedAt))
	equal(t, "last drift report", first.LastDriftReportAt, storedPtr(&data.CreatedAt))

	failed, a := trustAudits(t, s, o.ID, m.ID)
	fair := 100 * *a.Result.Score

	// A calm prediction report: the worst drift type still decides.
	calm := newReport(o.ID, m.ID, drift.TypePrediction, drift.Low, 30)
	calm.DriftDetected, calm.OverallDriftScore = false, 0
	must(t, s.CreateDriftReport(ctx(t), calm), "CreateDriftReport calm")
	checkLatest(t, s, o.ID, m.ID, 3, ptr((0.4*fair+0.4*30)/0.8))
	// The data drift is over: both types calm.
	over := newReport(o.ID, m.ID, drift.TypeData, drift.Low, 40)
	over.DriftDetected, over.OverallDriftScore = false, 0
	must(t, s.CreateDriftReport(ctx(t), over), "CreateDriftReport over")
	checkLatest(t, s, o.ID, m.ID, 4, ptr((0.4*fair+0.4*100)/0.8))

	// New weights snapshot every model with an input, not the idle one.
	w := trust.Weights{Fairness: 1}
	must(t, s.PutTrustConfig(ctx(t), o.ID, w, "change-1", at(50)), "PutTrustConfig")
	cfg, err = s.TrustConfig(ctx(t), o.ID)
	must(t, err, "TrustConfig")
	equal(t, "stored config", cfg, trust.Config{Weights: w, UpdatedAt: ptr(stored(at(50)))})
	last := checkLatest(t, s, o.ID, m.ID, 5, ptr(fair))
	equal(t, "config snapshot's cause", [2]string{last.CauseType, last.CauseID}, [2]string{trust.CauseConfig, "change-1"})
	checkLatest(t, s, o.ID, idle.ID, 0, nil)

	trustRead(t, s, o.ID, m.ID, idle.ID, last)

	// Deleting a failed audit changes no input; deleting the completed one
	// leaves drift alone, which the weights in force do not weigh: null.
	must(t, s.DeleteBiasAudit(ctx(t), o.ID, failed.ID, at(55)), "DeleteBiasAudit failed")
	checkLatest(t, s, o.ID, m.ID, 5, ptr(fair))
	must(t, s.DeleteBiasAudit(ctx(t), o.ID, a.ID, at(60)), "DeleteBiasAudit completed")
	gone := checkLatest(t, s, o.ID, m.ID, 6, nil)
	equal(t, "after the delete", [3]any{gone.Available, gone.CauseType, gone.At},
		[3]any{trust.Available{Drift: true}, trust.CauseBiasAuditDeleted, stored(at(60))})
}

// trustAudits: a failed audit of the model drifted to 30 is no input; a
// completed one is, weighed half and half with drift. It returns both.
func trustAudits(t *testing.T, s Store, orgID, modelID string) (failed, done bias.Audit) {
	t.Helper()
	failed = newAudit(orgID, modelID, 11)
	must(t, s.CreateBiasAudit(ctx(t), failed), "CreateBiasAudit")
	failed.Status, failed.Error, failed.CompletedAt = bias.StatusFailed, "no rows", ptr(at(12))
	must(t, s.UpdateBiasAudit(ctx(t), failed), "UpdateBiasAudit failed")
	checkLatest(t, s, orgID, modelID, 1, ptr(30.0))
	done = newAudit(orgID, modelID, 13)
	must(t, s.CreateBiasAudit(ctx(t), done), "CreateBiasAudit")
	done = completed(t, done, 20, false)
	must(t, s.UpdateBiasAudit(ctx(t), done), "UpdateBiasAudit completed")
	fair := 100 * *done.Result.Score
	second := checkLatest(t, s, orgID, modelID, 2, ptr((0.4*fair+0.4*30)/0.8))
	equal(t, "second snapshot's weights", second.Weights, trust.Weights{Fairness: 0.5, Drift: 0.5})
	equal(t, "last bias audit", second.LastBiasAuditAt, storedPtr(done.CompletedAt))
	return failed, done
}

// trustRead: the model's history holds snapshots 2 to 5 since second
// 20, the newest two oldest first when limited; the portfolio holds it
// at last and the idle model without a snapshot.
func trustRead(t *testing.T, s Store, orgID, modelID, idleID string, last trust.Snapshot) {
	t.Helper()
	hist, err := s.TrustHistory(ctx(t), orgID, modelID, at(20), 10)
	must(t, err, "TrustHistory")
	var seqs []int64
	for _, h := range hist {
		seqs = append(seqs, h.Seq)
		checkUTC(t, "history", &h.At, h.LastBiasAuditAt, h.LastDriftReportAt)
	}
	equal(t, "history since second 20", seqs, []int64{2, 3, 4, 5})
	hist, err = s.TrustHistory(ctx(t), orgID, modelID, at(0), 2)
	must(t, err, "TrustHistory limited")
	if len(hist) != 2 || hist[0].Seq != 4 || hist[1].Seq != 5 {
		t.Fatalf("got %d snapshots, want the newest two (4, 5) oldest first", len(hist))
	}

	all, err := s.TrustPortfolio(ctx(t), orgID)
	must(t, err, "TrustPortfolio")
	if len(all) != 2 || all[0].Model.ID != modelID || all[0].Snapshot.Seq != 5 || all[1].Model.ID != idleID || all[1].Snapshot.Seq != 0 {
		t.Fatalf("got portfolio %+v, want credit at snapshot 5 and idle without one", all)
	}
	equal(t, "portfolio snapshot", all[0].Snapshot, last)
}

// testTrustOtherOrg: another organization reads nothing of a model.
func testTrustOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := modelFor(t, s, a.ID, "credit")
	must(t, s.CreateDriftReport(ctx(t), newReport(a.ID, m.ID, drift.TypeData, drift.High, 10)), "CreateDriftReport")
	checkLatest(t, s, b.ID, m.ID, 0, nil)
	hist, err := s.TrustHistory(ctx(t), b.ID, m.ID, at(0), 10)
	must(t, err, "TrustHistory")
	all, err := s.TrustPortfolio(ctx(t), b.ID)
	must(t, err, "TrustPortfolio")
	if len(hist) != 0 || len(all) != 0 {
		t.Fatalf("got %d snapshots and %d models for another organization, want none", len(hist), len(all))
	}
	// Another organization's weights change nothing of a's model.
	must(t, s.PutTrustConfig(ctx(t), b.ID, trust.Weights{Drift: 1}, "change-b", at(20)), "PutTrustConfig")
	checkLatest(t, s, a.ID, m.ID, 1, ptr(30.0))
	// A report for a's model under b is refused and snapshots nothing.
	wantErr(t, s.CreateDriftReport(ctx(t), newReport(b.ID, m.ID, drift.TypeData, drift.High, 30)), store.ErrNotFound, "CreateDriftReport under another organization")
	checkLatest(t, s, a.ID, m.ID, 1, ptr(30.0))
}

// testTrustOnce: a write replayed (the same run's report, a finished
// audit written again) takes no second snapshot.
func testTrustOnce(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	r := newReport(o.ID, m.ID, drift.TypeData, drift.High, 10)
	must(t, s.CreateDriftReport(ctx(t), r), "CreateDriftReport")
	again := r
	again.ID = newID()
	wantErr(t, s.CreateDriftReport(ctx(t), again), store.ErrConflict, "CreateDriftReport of the same run")
	a := newAudit(o.ID, m.ID, 11)
	must(t, s.CreateBiasAudit(ctx(t), a), "CreateBiasAudit")
	a = completed(t, a, 12, false)
	must(t, s.UpdateBiasAudit(ctx(t), a), "UpdateBiasAudit")
	wantErr(t, s.UpdateBiasAudit(ctx(t), a), store.ErrConflict, "UpdateBiasAudit of a finished audit")
	checkLatest(t, s, o.ID, m.ID, 2, ptr((0.4*100**a.Result.Score+0.4*30)/0.8))
}

// testTrustDeleteModel: a model's snapshots go with it.
func testTrustDeleteModel(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := modelFor(t, s, o.ID, "credit")
	must(t, s.CreateDriftReport(ctx(t), newReport(o.ID, m.ID, drift.TypeData, drift.High, 10)), "CreateDriftReport")
	must(t, s.DeleteModel(ctx(t), o.ID, m.ID), "DeleteModel")
	checkLatest(t, s, o.ID, m.ID, 0, nil)
	all, err := s.TrustPortfolio(ctx(t), o.ID)
	must(t, err, "TrustPortfolio")
	if len(all) != 0 {
		t.Fatalf("got %d models after the delete, want none", len(all))
	}
	// A model created again later numbers its snapshots from 1.
	m2 := modelFor(t, s, o.ID, "credit")
	must(t, s.CreateDriftReport(ctx(t), newReport(o.ID, m2.ID, drift.TypeData, drift.High, 20)), "CreateDriftReport")
	checkLatest(t, s, o.ID, m2.ID, 1, ptr(30.0))
}

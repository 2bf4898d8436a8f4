package storetest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/store"
)

var riskTests = []test{
	{"Risk/RoundTrip", testRiskRoundTrip},
	{"Risk/OtherOrg", testRiskOtherOrg},
	{"Risk/List", testRiskList},
	{"Risk/Update", testRiskUpdate},
	{"Risk/DraftOnce", testRiskDraftOnce},
	{"Risk/DraftBatch", testRiskDraftBatch},
	{"Risk/DraftRepeat", testRiskDraftRepeat},
	{"Risk/Config", testRiskConfig},
	{"Risk/Portfolio", testRiskPortfolio},
	{"Risk/DeleteModel", testRiskDeleteModel},
}

// newEntry returns an identified entry created n seconds after base.
func newEntry(orgID, title string, likelihood, impact, n int, models ...string) risk.Entry {
	sc := likelihood * impact
	return risk.Entry{ID: newID(), OrgID: orgID, Title: title, Description: "about " + title, Category: "drift",
		Likelihood: likelihood, Impact: impact, Score: sc, Severity: risk.Default().Thresholds.Severity(sc),
		Status: risk.StatusIdentified, MitigationPlan: "watch it", ModelIDs: models, CreatedBy: "user-1",
		CreatedAt: at(n), UpdatedAt: at(n)}
}

// createEvent is e's create event by user-1.
func createEvent(e risk.Entry) risk.Event {
	return risk.Event{ID: newID(), OrgID: e.OrgID, EntryID: e.ID, Action: risk.ActionCreate, Description: "created",
		Details: map[string]any{"title": e.Title}, UserID: "user-1", Username: "ann", CreatedAt: e.CreatedAt}
}

func storedEntry(e risk.Entry) risk.Entry {
	e.CreatedAt, e.UpdatedAt = stored(e.CreatedAt), stored(e.UpdatedAt)
	e.NextReview, e.ClosedAt = storedPtr(e.NextReview), storedPtr(e.ClosedAt)
	return e
}

func createEntry(t *testing.T, s Store, e risk.Entry) {
	t.Helper()
	created, err := s.CreateRiskEntry(ctx(t), e, createEvent(e))
	must(t, err, "CreateRiskEntry")
	if !created {
		t.Fatalf("CreateRiskEntry %s: got created false, want true", e.Title)
	}
}

func checkEntry(t *testing.T, s Store, what string, want risk.Entry) {
	t.Helper()
	got, err := s.RiskEntry(ctx(t), want.OrgID, want.ID)
	must(t, err, what+": RiskEntry")
	equal(t, what, got, storedEntry(want))
	checkUTC(t, what, &got.CreatedAt, &got.UpdatedAt, got.NextReview, got.ClosedAt)
}

func testRiskRoundTrip(t *testing.T, s Store) {
	o := newOrg(t, s)
	m1, m2 := newModel(o.ID, "credit", "1", 1), newModel(o.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m1), "CreateModel")
	must(t, s.CreateModel(ctx(t), m2), "CreateModel")
	models := []string{m1.ID, m2.ID}
	if models[0] > models[1] {
		models[0], models[1] = models[1], models[0]
	}
	e := newEntry(o.ID, "full", 4, 5, 2, models...)
	e.OwnerID, e.TargetDate, e.Cadence, e.NextReview = o.Admin.ID, "2026-12-31", 30, ptr(at(2+30*86400))
	createEntry(t, s, e)
	checkEntry(t, s, "full entry", e)

	bare := newEntry(o.ID, "bare", 1, 1, 3)
	bare.Description, bare.MitigationPlan, bare.CreatedBy = "", "", ""
	bare.SourceType, bare.SourceID = risk.SourceDriftReport, newID()
	createEntry(t, s, bare)
	checkEntry(t, s, "bare drafted entry", bare)

	evs, err := s.RiskHistory(ctx(t), o.ID, e.ID)
	must(t, err, "RiskHistory")
	want := createEvent(e)
	want.ID, want.CreatedAt = evs[0].ID, stored(want.CreatedAt)
	equal(t, "history", evs, []risk.Event{want})
}

func testRiskOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	e := newEntry(a.ID, "a's", 3, 3, 2, m.ID)
	createEntry(t, s, e)
	_, err := s.RiskEntry(ctx(t), b.ID, e.ID)
	wantErr(t, err, store.ErrNotFound, "RiskEntry of another organization")
	_, err = s.RiskHistory(ctx(t), b.ID, e.ID)
	wantErr(t, err, store.ErrNotFound, "RiskHistory of another organization")
	called := false
	_, err = s.UpdateRiskEntry(ctx(t), b.ID, e.ID, func(*risk.Entry) ([]risk.Event, error) { called = true; return nil, nil })
	wantErr(t, err, store.ErrNotFound, "UpdateRiskEntry of another organization")
	if called {
		t.Errorf("UpdateRiskEntry of another organization: got change called, want not")
	}
	// An entry of b naming a's model is refused whole.
	bad := newEntry(b.ID, "b's", 2, 2, 3, m.ID)
	_, err = s.CreateRiskEntry(ctx(t), bad, createEvent(bad))
	wantErr(t, err, store.ErrNotFound, "CreateRiskEntry naming another organization's model")
	_, err = s.RiskEntry(ctx(t), b.ID, bad.ID)
	wantErr(t, err, store.ErrNotFound, "RiskEntry of the refused entry")
	list, total, err := s.RiskEntries(ctx(t), b.ID, risk.Filter{})
	must(t, err, "RiskEntries")
	if total != 0 || len(list) != 0 {
		t.Errorf("b's register: got %d entries (total %d), want none", len(list), total)
	}
	c, err := s.RiskCounts(ctx(t), b.ID)
	must(t, err, "RiskCounts")
	if len(c.Cells) != 0 {
		t.Errorf("b's counts: got %v, want none", c.Cells)
	}
}

func titles(es []risk.Entry) string {
	var out []string
	for _, e := range es {
		out = append(out, e.Title)
	}
	return fmt.Sprint(out)
}

func testRiskList(t *testing.T, s Store) {
	o := newOrg(t, s)
	m := newModel(o.ID, "credit", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	e1 := newEntry(o.ID, "e1", 1, 1, 1, m.ID)
	e2 := newEntry(o.ID, "e2", 5, 5, 2)
	e2.Category, e2.OwnerID = "bias", o.Admin.ID
	e3 := newEntry(o.ID, "e3", 3, 4, 3, m.ID)
	e3.Status = risk.StatusAssessed
	for _, e := range []risk.Entry{e1, e2, e3} {
		createEntry(t, s, e)
	}
	f := func(what string, filter risk.Filter, want string, wantTotal int64) {
		t.Helper()
		got, total, err := s.RiskEntries(ctx(t), o.ID, filter)
		must(t, err, what)
		if titles(got) != want || total != wantTotal {
			t.Errorf("%s: got %s (total %d), want %s (total %d)", what, titles(got), total, want, wantTotal)
		}
	}
	f("all", risk.Filter{}, "[e3 e2 e1]", 3)
	f("page 2 of 2", risk.Filter{Limit: 2, Offset: 2}, "[e1]", 3)
	f("category", risk.Filter{Category: "bias"}, "[e2]", 1)
	f("model", risk.Filter{ModelID: m.ID}, "[e3 e1]", 2)
	f("owner", risk.Filter{OwnerID: o.Admin.ID}, "[e2]", 1)
	f("status", risk.Filter{Status: risk.StatusAssessed}, "[e3]", 1)
	f("severity", risk.Filter{Severity: "critical"}, "[e2]", 1)
	f("severity and model", risk.Filter{Severity: "high", ModelID: m.ID}, "[e3]", 1)
	f("nothing", risk.Filter{Category: "security"}, "[]", 0)
	f("status and category", risk.Filter{Status: risk.StatusIdentified, Category: "drift"}, "[e1]", 1)
	f("model, page 2", risk.Filter{ModelID: m.ID, Limit: 1, Offset: 1}, "[e1]", 2)
	f("past the end", risk.Filter{Category: "drift", Limit: 5, Offset: 5}, "[]", 2)
	got, _, err := s.RiskEntries(ctx(t), o.ID, risk.Filter{ModelID: m.ID})
	must(t, err, "RiskEntries")
	equal(t, "listed e3", got[0], storedEntry(e3))

	// Totals follow the moves: e1 rescored to critical, recategorized and
	// closed; e2 reassessed.
	_, err = s.UpdateRiskEntry(ctx(t), o.ID, e1.ID, func(x *risk.Entry) ([]risk.Event, error) {
		x.Likelihood, x.Impact, x.Score, x.Severity, x.Category, x.Status = 5, 4, 20, "critical", "security", risk.StatusClosed
		return []risk.Event{createEvent(*x)}, nil
	})
	must(t, err, "UpdateRiskEntry e1")
	_, err = s.UpdateRiskEntry(ctx(t), o.ID, e2.ID, func(x *risk.Entry) ([]risk.Event, error) {
		x.Status = risk.StatusAssessed
		return []risk.Event{createEvent(*x)}, nil
	})
	must(t, err, "UpdateRiskEntry e2")
	f("all after the moves", risk.Filter{}, "[e3 e2 e1]", 3)
	f("critical", risk.Filter{Severity: "critical"}, "[e2 e1]", 2)
	f("assessed", risk.Filter{Status: risk.StatusAssessed}, "[e3 e2]", 2)
	f("identified", risk.Filter{Status: risk.StatusIdentified}, "[]", 0)
	f("security, closed", risk.Filter{Category: "security", Status: risk.StatusClosed}, "[e1]", 1)
	f("drift", risk.Filter{Category: "drift"}, "[e3]", 1)
	// Another organization's register counts nothing of these.
	other := newOrg(t, s)
	if _, total, err := s.RiskEntries(ctx(t), other.ID, risk.Filter{}); err != nil || total != 0 {
		t.Errorf("another organization: got total %d (error %v), want 0", total, err)
	}
}

func testRiskUpdate(t *testing.T, s Store) {
	o := newOrg(t, s)
	m, n := newModel(o.ID, "credit", "1", 1), newModel(o.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), n), "CreateModel")
	e := newEntry(o.ID, "e", 2, 2, 1, m.ID)
	createEntry(t, s, e)
	ev := risk.Event{ID: newID(), OrgID: o.ID, EntryID: e.ID, Action: risk.ActionStatusChange, Description: "closed",
		Details: map[string]any{"from": "identified", "to": "closed", "reason": "fixed"}, UserID: o.Admin.ID, Username: "admin", CreatedAt: at(5)}
	got, err := s.UpdateRiskEntry(ctx(t), o.ID, e.ID, func(x *risk.Entry) ([]risk.Event, error) {
		x.Status, x.ClosedAt, x.UpdatedAt, x.ModelIDs, x.Title = risk.StatusClosed, ptr(at(5)), at(5), []string{n.ID}, "e closed"
		return []risk.Event{ev}, nil
	})
	must(t, err, "UpdateRiskEntry")
	e.Status, e.ClosedAt, e.UpdatedAt, e.ModelIDs, e.Title = risk.StatusClosed, ptr(at(5)), at(5), []string{n.ID}, "e closed"
	equal(t, "returned entry", got, storedEntry(e))
	checkEntry(t, s, "updated entry", e)
	evs, err := s.RiskHistory(ctx(t), o.ID, e.ID)
	must(t, err, "RiskHistory")
	ev.CreatedAt = stored(ev.CreatedAt)
	if len(evs) != 2 {
		t.Fatalf("history: got %d events, want 2", len(evs))
	}
	equal(t, "status event", evs[1], ev)

	// A change that fails, or names a model the organization lacks,
	// stores nothing.
	boom := errors.New("boom")
	_, err = s.UpdateRiskEntry(ctx(t), o.ID, e.ID, func(x *risk.Entry) ([]risk.Event, error) {
		x.Title = "changed"
		return nil, boom
	})
	wantErr(t, err, boom, "UpdateRiskEntry failing")
	_, err = s.UpdateRiskEntry(ctx(t), o.ID, e.ID, func(x *risk.Entry) ([]risk.Event, error) {
		x.Title, x.ModelIDs = "changed", []string{newID()}
		ev.ID = newID()
		return []risk.Event{ev}, nil
	})
	wantErr(t, err, store.ErrNotFound, "UpdateRiskEntry naming a missing model")
	checkEntry(t, s, "entry after refused changes", e)
	evs, err = s.RiskHistory(ctx(t), o.ID, e.ID)
	must(t, err, "RiskHistory")
	if len(evs) != 2 {
		t.Errorf("history after refused changes: got %d events, want 2", len(evs))
	}
}

func testRiskDraftOnce(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	src := newID()
	draft := func(orgID string) risk.Entry {
		e := newEntry(orgID, "drafted", 4, 3, 1)
		e.SourceType, e.SourceID, e.CreatedBy = risk.SourceDriftReport, src, ""
		return e
	}
	errs := parallel(8, func(int) error {
		e := draft(a.ID)
		_, err := s.CreateRiskEntry(ctx(t), e, createEvent(e))
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("CreateRiskEntry %d", i))
	}
	again := draft(a.ID)
	created, err := s.CreateRiskEntry(ctx(t), again, createEvent(again))
	must(t, err, "CreateRiskEntry again")
	if created {
		t.Errorf("CreateRiskEntry of a drafted source again: got created true, want false")
	}
	list, total, err := s.RiskEntries(ctx(t), a.ID, risk.Filter{})
	must(t, err, "RiskEntries")
	if total != 1 {
		t.Fatalf("drafted entries of one source: got %d, want 1", total)
	}
	evs, err := s.RiskHistory(ctx(t), a.ID, list[0].ID)
	must(t, err, "RiskHistory")
	if len(evs) != 1 {
		t.Errorf("events of the drafted entry: got %d, want 1", len(evs))
	}
	// Manual entries have no source and never collide.
	createEntry(t, s, newEntry(a.ID, "manual 1", 1, 1, 2))
	createEntry(t, s, newEntry(a.ID, "manual 2", 1, 1, 3))
	// Another organization's record of the same id is its own source.
	createEntry(t, s, draft(b.ID))
}

// testRiskDraftBatch: a batch stores each source once (on file before,
// twice in the batch, or batches racing), with its models, event and
// counts; a batch naming another organization's model stores nothing.
func testRiskDraftBatch(t *testing.T, s Store) {
	o, other := newOrg(t, s), newOrg(t, s)
	m, m1, m4 := modelFor(t, s, o.ID, "credit"), modelFor(t, s, o.ID, "fraud"), modelFor(t, s, o.ID, "churn")
	foreign := modelFor(t, s, other.ID, "theirs")
	drafted := func(src string, n int, models ...string) risk.Drafted {
		e := newEntry(o.ID, "drafted "+src, 4, 3, n, models...)
		e.SourceType, e.SourceID, e.CreatedBy = risk.SourceDriftReport, src, ""
		return risk.Drafted{Entry: e, Event: createEvent(e)}
	}
	before := drafted("s0", 1, m.ID)
	createEntry(t, s, before.Entry)
	batch := []risk.Drafted{drafted("s0", 2, m.ID), drafted("s1", 3, m1.ID), drafted("s2", 4), drafted("s1", 5, m1.ID)}
	created, err := s.CreateRiskEntries(ctx(t), batch)
	must(t, err, "CreateRiskEntries")
	equal(t, "created", created, []bool{false, true, true, false})
	checkEntry(t, s, "batch entry", batch[1].Entry)
	evs, err := s.RiskHistory(ctx(t), o.ID, batch[1].Entry.ID)
	must(t, err, "RiskHistory")
	if len(evs) != 1 {
		t.Errorf("events of a batch entry: got %d, want 1", len(evs))
	}
	errs := parallel(4, func(int) error {
		_, err := s.CreateRiskEntries(ctx(t), []risk.Drafted{drafted("s3", 6), drafted("s4", 7, m4.ID)})
		return err
	})
	for i, err := range errs {
		must(t, err, fmt.Sprintf("CreateRiskEntries racing %d", i))
	}
	_, err = s.CreateRiskEntries(ctx(t), []risk.Drafted{drafted("s5", 8), drafted("s6", 9, foreign.ID)})
	wantErr(t, err, store.ErrNotFound, "CreateRiskEntries naming another organization's model")
	_, total, err := s.RiskEntries(ctx(t), o.ID, risk.Filter{})
	must(t, err, "RiskEntries")
	_, linked, err := s.RiskEntries(ctx(t), o.ID, risk.Filter{ModelID: m.ID})
	must(t, err, "RiskEntries of the model")
	counts, err := s.RiskCounts(ctx(t), o.ID)
	must(t, err, "RiskCounts")
	if total != 5 || linked != 1 || counts.BySeverity["high"] != 5 {
		t.Fatalf("got %d entries, %d of the model, %d counted high, want 5 (s0-s4), 1 and 5", total, linked, counts.BySeverity["high"])
	}
}

// testRiskDraftRepeat: while a drafted drift entry of a model is open, a
// later drift report of the model is added to its trail (once, however
// often it comes) and raises its likelihood when higher, with the counts;
// another source type, another model, or the entry closed opens a new
// entry.
func testRiskDraftRepeat(t *testing.T, s Store) {
	o := newOrg(t, s)
	m, other := modelFor(t, s, o.ID, "credit"), modelFor(t, s, o.ID, "fraud")
	drafted := func(src, sourceType string, likelihood, n int, model string) risk.Drafted {
		e := newEntry(o.ID, "drafted "+src, likelihood, 3, n, model)
		e.SourceType, e.SourceID, e.CreatedBy = sourceType, src, ""
		return risk.Drafted{Entry: e, Event: createEvent(e), Thresholds: risk.Default().Thresholds}
	}
	first := drafted("r1", risk.SourceDriftReport, 4, 1, m.ID)
	batch := []risk.Drafted{first, drafted("r2", risk.SourceDriftReport, 5, 2, m.ID), drafted("r2", risk.SourceDriftReport, 5, 3, m.ID),
		drafted("b1", risk.SourceBiasAudit, 4, 4, m.ID), drafted("r3", risk.SourceDriftReport, 4, 5, other.ID)}
	created, err := s.CreateRiskEntries(ctx(t), batch)
	must(t, err, "CreateRiskEntries")
	equal(t, "created", created, []bool{true, false, false, true, true})
	created, err = s.CreateRiskEntries(ctx(t), []risk.Drafted{drafted("r2", risk.SourceDriftReport, 5, 6, m.ID)})
	must(t, err, "CreateRiskEntries replayed")
	equal(t, "created by a replay", created, []bool{false})
	got, err := s.RiskEntry(ctx(t), o.ID, first.Entry.ID)
	must(t, err, "RiskEntry")
	equal(t, "the raised entry", []any{got.Likelihood, got.Score, got.Severity}, []any{5, 15, "high"})
	evs, err := s.RiskHistory(ctx(t), o.ID, first.Entry.ID)
	must(t, err, "RiskHistory")
	var actions []string
	for _, ev := range evs {
		actions = append(actions, ev.Action)
	}
	equal(t, "the trail", actions, []string{risk.ActionCreate, risk.ActionRepeat, risk.ActionUpdate})
	equal(t, "the repeat's source", evs[1].Details["source_id"], "r2")
	counts, err := s.RiskCounts(ctx(t), o.ID)
	must(t, err, "RiskCounts")
	equal(t, "open entries per cell", []int{counts.Cells[43], counts.Cells[53]}, []int{2, 1})

	_, err = s.UpdateRiskEntry(ctx(t), o.ID, first.Entry.ID, func(e *risk.Entry) ([]risk.Event, error) {
		e.Status = risk.StatusClosed
		return []risk.Event{{ID: newID(), OrgID: o.ID, EntryID: e.ID, Action: risk.ActionStatusChange, Username: "ann",
			CreatedAt: stored(at(7))}}, nil
	})
	must(t, err, "UpdateRiskEntry")
	created, err = s.CreateRiskEntries(ctx(t), []risk.Drafted{drafted("r4", risk.SourceDriftReport, 4, 8, m.ID)})
	must(t, err, "CreateRiskEntries after the close")
	equal(t, "created once the entry is closed", created, []bool{true})
}

func testRiskConfig(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	got, err := s.RiskConfig(ctx(t), a.ID)
	must(t, err, "RiskConfig")
	equal(t, "no override", got, risk.Override{})
	cats := []string{"bias", "privacy"}
	o := risk.Override{Categories: &cats, Thresholds: &risk.Thresholds{Critical: 16, High: 9, Medium: 4}}
	must(t, s.PutRiskConfig(ctx(t), a.ID, o, at(1)), "PutRiskConfig")
	got, err = s.RiskConfig(ctx(t), a.ID)
	must(t, err, "RiskConfig")
	o.UpdatedAt = stored(at(1))
	equal(t, "override", got, o)
	scale := []risk.Level{{Value: 1, Label: "a"}, {Value: 2, Label: "b"}, {Value: 3, Label: "c"}, {Value: 4, Label: "d"}, {Value: 5, Label: "e"}}
	o2 := risk.Override{LikelihoodScale: &scale}
	must(t, s.PutRiskConfig(ctx(t), a.ID, o2, at(2)), "PutRiskConfig again")
	got, err = s.RiskConfig(ctx(t), a.ID)
	must(t, err, "RiskConfig")
	o2.UpdatedAt = stored(at(2))
	equal(t, "replaced override", got, o2)
	got, err = s.RiskConfig(ctx(t), b.ID)
	must(t, err, "RiskConfig of another organization")
	equal(t, "other organization's override", got, risk.Override{})
}

func testRiskPortfolio(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	high1, crit, low := newEntry(a.ID, "high1", 3, 4, 1), newEntry(a.ID, "crit", 4, 5, 2), newEntry(a.ID, "low", 1, 2, 3)
	high2 := newEntry(a.ID, "high2", 4, 4, 4)
	closed := newEntry(a.ID, "closed", 5, 5, 5)
	closed.Status, closed.ClosedAt = risk.StatusClosed, ptr(at(6))
	mitigated := newEntry(a.ID, "mitigated", 3, 4, 6)
	mitigated.Status = risk.StatusMitigated
	for _, e := range []risk.Entry{high1, crit, low, high2, closed, mitigated, newEntry(b.ID, "b's", 5, 5, 1)} {
		createEntry(t, s, e)
	}
	c, err := s.RiskCounts(ctx(t), a.ID)
	must(t, err, "RiskCounts")
	equal(t, "cells", c.Cells, map[int]int{34: 2, 45: 1, 12: 1, 44: 1})
	equal(t, "by severity", c.BySeverity, map[string]int{"critical": 1, "high": 3, "low": 1})
	top, err := s.TopRisks(ctx(t), a.ID, 3)
	must(t, err, "TopRisks")
	if got := titles(top); got != "[crit high2 mitigated]" {
		t.Errorf("top risks: got %s, want [crit high2 mitigated] (severity, then score, then newest)", got)
	}
	// The counts follow closing, reopening and rescoring.
	update := func(id string, fn func(*risk.Entry)) {
		t.Helper()
		_, err := s.UpdateRiskEntry(ctx(t), a.ID, id, func(e *risk.Entry) ([]risk.Event, error) {
			fn(e)
			return []risk.Event{{ID: newID(), OrgID: a.ID, EntryID: id, Action: risk.ActionUpdate, Username: "ann", CreatedAt: at(9)}}, nil
		})
		must(t, err, "UpdateRiskEntry")
	}
	update(high1.ID, func(e *risk.Entry) { e.Status = risk.StatusClosed })
	update(closed.ID, func(e *risk.Entry) { e.Status = risk.StatusIdentified })
	update(low.ID, func(e *risk.Entry) { e.Likelihood, e.Impact, e.Score, e.Severity = 5, 3, 15, "high" })
	c, err = s.RiskCounts(ctx(t), a.ID)
	must(t, err, "RiskCounts after updates")
	equal(t, "cells after updates", c.Cells, map[int]int{34: 1, 45: 1, 53: 1, 44: 1, 55: 1})
	equal(t, "by severity after updates", c.BySeverity, map[string]int{"critical": 2, "high": 3})
}

func testRiskDeleteModel(t *testing.T, s Store) {
	o := newOrg(t, s)
	m, n := newModel(o.ID, "credit", "1", 1), newModel(o.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), n), "CreateModel")
	e := newEntry(o.ID, "e", 2, 2, 1, m.ID, n.ID)
	if e.ModelIDs[0] > e.ModelIDs[1] {
		e.ModelIDs[0], e.ModelIDs[1] = e.ModelIDs[1], e.ModelIDs[0]
	}
	createEntry(t, s, e)
	must(t, s.DeleteModel(ctx(t), o.ID, m.ID), "DeleteModel")
	e.ModelIDs = []string{n.ID}
	checkEntry(t, s, "entry after its model was deleted", e)
}

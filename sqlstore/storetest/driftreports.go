package storetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

var reportTests = []test{
	{"DriftReports/RoundTrip", testReportRoundTrip},
	{"DriftReports/Filters", testReportFilters},
	{"DriftReports/OtherOrg", testReportOtherOrg},
	{"DriftReports/Due", testReportDue},
	{"DriftReports/NewestPerModel", testNewestReports},
	{"DriftReports/GovernanceOwed", testReportGovernanceOwed},
}

// testReportGovernanceOwed: reports stored at high severity, of any
// organization, owe their governance event until marked sent.
func testReportGovernanceOwed(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m, n := newModel(a.ID, "fraud", "1", 1), newModel(b.ID, "churn", "1", 2)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), n), "CreateModel other organization")
	high := newReport(a.ID, m.ID, drift.TypeData, drift.High, 10)
	other := newReport(b.ID, n.ID, drift.TypeData, drift.High, 20)
	for _, r := range []drift.Report{high, newReport(a.ID, m.ID, drift.TypePrediction, drift.Medium, 10), other} {
		must(t, s.CreateDriftReport(ctx(t), r), "CreateDriftReport")
	}
	owed := func(want ...string) {
		t.Helper()
		got, err := s.GovernancePending(ctx(t), 10)
		must(t, err, "GovernancePending")
		var ids []string
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		if fmt.Sprint(ids) != fmt.Sprint(want) {
			t.Fatalf("got reports owing %v, want %v (oldest first)", ids, want)
		}
	}
	owed(high.ID, other.ID)
	must(t, s.GovernanceSent(ctx(t), a.ID, high.ID), "GovernanceSent")
	must(t, s.GovernanceSent(ctx(t), a.ID, other.ID), "GovernanceSent with another organization's id")
	owed(other.ID)
}

// newReport returns a report of the model written created seconds after
// base, with one drifted feature.
func newReport(orgID, modelID, driftType string, severity drift.Severity, created int) drift.Report {
	p := 0.001
	return drift.Report{ID: newID(), OrgID: orgID, ModelID: modelID, DriftType: driftType,
		WindowStart: at(created - 3600), WindowEnd: at(created),
		Reference:     drift.Reference{Type: drift.ReferenceWindow, Start: ptr(at(-7200)), End: ptr(at(-3600))},
		DriftDetected: true, OverallDriftScore: 0.5, Severity: severity,
		Features: map[string]drift.ReportFeature{
			"âge": {FeatureResult: drift.FeatureResult{DriftDetected: true, DriftScore: 0.61, PValue: &p, Method: drift.KS,
				Severity: severity, Threshold: 0.05, Statistic: 0.61, Type: drift.Numeric, TypeSource: "inferred",
				MethodSource: "default", SampleSize: drift.Sides{Reference: 120, Current: 130}}, KSBound: ptr(0.01)},
			"plan": {FeatureResult: drift.FeatureResult{Method: drift.ChiSquared, Severity: drift.Low, Type: drift.Categorical}},
		},
		Skipped: []string{"country"}, Problems: map[string]string{"blob": "no values"}, CreatedAt: at(created)}
}

// storedReport is r as the store gives it back.
func storedReport(r drift.Report) drift.Report {
	r.WindowStart, r.WindowEnd, r.CreatedAt = stored(r.WindowStart), stored(r.WindowEnd), stored(r.CreatedAt)
	r.Reference.Start, r.Reference.End = storedPtr(r.Reference.Start), storedPtr(r.Reference.End)
	return r
}

// reportIDs lists the ids of rs.
func reportIDs(rs []drift.Report) []string {
	out := []string{}
	for _, r := range rs {
		out = append(out, r.ID)
	}
	return out
}

func testReportRoundTrip(t *testing.T, s Store) {
	a := newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	r := newReport(a.ID, m.ID, drift.TypeData, drift.High, 10)
	must(t, s.CreateDriftReport(ctx(t), r), "CreateDriftReport")
	got, err := s.DriftReport(ctx(t), a.ID, r.ID)
	must(t, err, "DriftReport")
	equal(t, "report", got, storedReport(r))
	checkUTC(t, "report", &got.WindowStart, &got.WindowEnd, &got.CreatedAt, got.Reference.Start, got.Reference.End)
	c := newReport(a.ID, m.ID, drift.TypeConcept, drift.Medium, 10)
	c.Features, c.Skipped, c.Problems = map[string]drift.ReportFeature{}, []string{}, map[string]string{}
	c.Concept = &drift.Concept{Metric: "accuracy", HigherIsBetter: true, Current: drift.Figure{Value: 0.8, Source: drift.SourceLabels, Samples: 120},
		Baseline: drift.Figure{Value: 0.9, Source: drift.SourceBaseline}, Change: -0.1 / 0.9, Degradation: 0.1 / 0.9,
		Threshold: 0.05, DriftDetected: true, Severity: drift.Medium}
	must(t, s.CreateDriftReport(ctx(t), c), "CreateDriftReport of a concept report")
	got, err = s.DriftReport(ctx(t), a.ID, c.ID)
	must(t, err, "DriftReport of a concept report")
	equal(t, "concept report", got, storedReport(c))
	_, err = s.DriftReport(ctx(t), a.ID, newID())
	wantErr(t, err, store.ErrNotFound, "DriftReport of an unknown id")
	must(t, s.DeleteModel(ctx(t), a.ID, m.ID), "DeleteModel")
	_, err = s.DriftReport(ctx(t), a.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReport of a deleted model")
}

func testReportFilters(t *testing.T, s Store) {
	a := newOrg(t, s)
	m, other := newModel(a.ID, "fraud", "1", 1), newModel(a.ID, "churn", "1", 2)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), other), "CreateModel other")
	rs := []drift.Report{newReport(a.ID, m.ID, drift.TypeData, drift.High, 10), newReport(a.ID, m.ID, drift.TypePrediction, drift.Low, 20),
		newReport(a.ID, m.ID, drift.TypeData, drift.Medium, 30), newReport(a.ID, other.ID, drift.TypeData, drift.High, 40)}
	for _, r := range rs {
		must(t, s.CreateDriftReport(ctx(t), r), "CreateDriftReport")
	}
	for _, c := range []struct {
		name      string
		f         drift.ReportFilter
		want      []string
		wantTotal int64
	}{
		{"all, newest first", drift.ReportFilter{}, []string{rs[2].ID, rs[1].ID, rs[0].ID}, 3},
		{"oldest first", drift.ReportFilter{Oldest: true}, []string{rs[0].ID, rs[1].ID, rs[2].ID}, 3},
		{"data", drift.ReportFilter{DriftType: drift.TypeData}, []string{rs[2].ID, rs[0].ID}, 2},
		{"high", drift.ReportFilter{Severity: drift.High}, []string{rs[0].ID}, 1},
		// [From, To): a report on From is in, one on To is not.
		{"from and to", drift.ReportFilter{From: ptr(at(20)), To: ptr(at(30))}, []string{rs[1].ID}, 1},
		{"to a microsecond later", drift.ReportFilter{From: ptr(at(20)), To: ptr(at(30).Add(time.Microsecond))}, []string{rs[2].ID, rs[1].ID}, 2},
		{"from a microsecond later", drift.ReportFilter{From: ptr(at(20).Add(time.Microsecond)), To: ptr(at(30))}, []string{}, 0},
		{"page", drift.ReportFilter{Limit: 1, Offset: 1}, []string{rs[1].ID}, 3},
		{"concept", drift.ReportFilter{DriftType: drift.TypeConcept}, []string{}, 0},
	} {
		c.f.OrgID, c.f.ModelID = a.ID, m.ID
		got, total, err := s.DriftReports(ctx(t), c.f)
		must(t, err, c.name)
		equal(t, c.name, reportIDs(got), c.want)
		equal(t, c.name+" total", total, c.wantTotal)
	}
}

func testReportOtherOrg(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m := newModel(a.ID, "fraud", "1", 1)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	r := newReport(a.ID, m.ID, drift.TypeData, drift.High, 10)
	must(t, s.CreateDriftReport(ctx(t), r), "CreateDriftReport")
	_, err := s.DriftReport(ctx(t), b.ID, r.ID)
	wantErr(t, err, store.ErrNotFound, "DriftReport from another organization")
	got, total, err := s.DriftReports(ctx(t), drift.ReportFilter{OrgID: b.ID, ModelID: m.ID})
	must(t, err, "DriftReports from another organization")
	equal(t, "reports seen by another organization", len(got)+int(total), 0)
	wantErr(t, s.CreateDriftReport(ctx(t), newReport(b.ID, m.ID, drift.TypeData, drift.Low, 20)), store.ErrNotFound,
		"CreateDriftReport for another organization's model")
	// A second run of the same window (another processor replica's) is a
	// conflict; another drift type of that window is not.
	wantErr(t, s.CreateDriftReport(ctx(t), newReport(a.ID, m.ID, drift.TypeData, drift.Low, 10)), store.ErrConflict,
		"CreateDriftReport of a window reported already")
	must(t, s.CreateDriftReport(ctx(t), newReport(a.ID, m.ID, drift.TypePrediction, drift.Low, 10)), "CreateDriftReport of the other drift type")
}

func testReportDue(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m, n := newModel(a.ID, "fraud", "1", 1), newModel(b.ID, "churn", "1", 2)
	must(t, s.CreateModel(ctx(t), m), "CreateModel")
	must(t, s.CreateModel(ctx(t), n), "CreateModel other organization")
	must(t, s.CreateDriftReport(ctx(t), newReport(a.ID, m.ID, drift.TypeData, drift.High, 10)), "CreateDriftReport")
	must(t, s.CreateDriftReport(ctx(t), newReport(a.ID, m.ID, drift.TypePrediction, drift.Low, 20)), "CreateDriftReport")
	must(t, s.CreateDriftReport(ctx(t), newReport(a.ID, m.ID, drift.TypeData, drift.Low, 30)), "CreateDriftReport")
	// A report of POST /drift/detect is no run of the schedule.
	onDemand := newReport(a.ID, m.ID, drift.TypeData, drift.Low, 40)
	onDemand.Reference = drift.Reference{Type: drift.ReferenceRequest}
	must(t, s.CreateDriftReport(ctx(t), onDemand), "CreateDriftReport on demand")
	got, err := s.DriftDue(ctx(t))
	must(t, err, "DriftDue")
	want := map[string]drift.Due{
		m.ID: {OrgID: a.ID, ModelID: m.ID, Last: map[string]time.Time{drift.TypeData: stored(at(30)), drift.TypePrediction: stored(at(20))}},
		n.ID: {OrgID: b.ID, ModelID: n.ID, Last: map[string]time.Time{}}}
	seen := map[string]drift.Due{}
	for _, d := range got {
		if _, ok := want[d.ModelID]; ok {
			seen[d.ModelID] = d
		}
	}
	equal(t, "due models", seen, want)
}

// testNewestReports: one read answers each model's newest report since a
// time (any drift type; the greater id on a tie), none of another
// organization's, none of a model without a report since then.
func testNewestReports(t *testing.T, s Store) {
	a, b := newOrg(t, s), newOrg(t, s)
	m1, m2, m3 := newModel(a.ID, "fraud", "1", 1), newModel(a.ID, "churn", "1", 2), newModel(a.ID, "old", "1", 3)
	foreign := newModel(b.ID, "fraud", "1", 4)
	for _, m := range []registry.Model{m1, m2, m3, foreign} {
		must(t, s.CreateModel(ctx(t), m), "CreateModel")
	}
	tie := newReport(a.ID, m2.ID, drift.TypePrediction, drift.Low, 30)
	other := newReport(a.ID, m2.ID, drift.TypeData, drift.High, 30)
	if other.ID < tie.ID {
		tie, other = other, tie
	}
	rs := []drift.Report{newReport(a.ID, m1.ID, drift.TypeData, drift.High, 10), newReport(a.ID, m1.ID, drift.TypePrediction, drift.Low, 20),
		tie, other, newReport(a.ID, m3.ID, drift.TypeData, drift.High, 5), newReport(b.ID, foreign.ID, drift.TypeData, drift.High, 50)}
	for _, r := range rs {
		must(t, s.CreateDriftReport(ctx(t), r), "CreateDriftReport")
	}
	f := func(from int, want ...drift.Report) {
		t.Helper()
		got, err := s.NewestDriftReports(ctx(t), a.ID, at(from))
		must(t, err, "NewestDriftReports")
		wantIDs := map[string]string{}
		for _, r := range want {
			wantIDs[r.ModelID] = r.ID
		}
		gotIDs := map[string]string{}
		for _, r := range got {
			gotIDs[r.ModelID] = r.ID
		}
		equal(t, fmt.Sprintf("newest reports since %d", from), gotIDs, wantIDs)
		equal(t, fmt.Sprintf("reports since %d", from), len(got), len(want))
	}
	f(0, rs[1], other, rs[4])
	f(6, rs[1], other)
	f(20, rs[1], other)
	f(21, other)
	f(31)
	got, err := s.NewestDriftReports(ctx(t), a.ID, at(0))
	must(t, err, "NewestDriftReports")
	for _, r := range got {
		if r.ModelID == m1.ID {
			equal(t, "a newest report as stored", r, storedReport(rs[1]))
		}
	}
}

package schedule

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/stats/profile"
	"github.com/vigilhq/vigil/store"
)

// fakeStore has one model without a configuration on file, with
// baseline metrics. Reports at high severity owe their governance event
// until marked sent.
type fakeStore struct {
	// last is when every drift type was last reported; lastOf, when set,
	// says it type by type instead.
	last     *time.Time
	lastOf   map[string]time.Time
	uploaded *drift.Uploaded
	baseline map[string]float64
	reports  []drift.Report
	owed     map[string]bool
}

func (f *fakeStore) DriftReference(context.Context, string, string) (drift.Uploaded, error) {
	if f.uploaded == nil {
		return drift.Uploaded{}, store.ErrNotFound
	}
	return *f.uploaded, nil
}

func (f *fakeStore) Model(context.Context, string, string) (registry.Model, error) {
	return registry.Model{ID: "m", BaselineMetrics: f.baseline}, nil
}

func (f *fakeStore) DriftDue(context.Context) ([]drift.Due, error) {
	d := drift.Due{OrgID: "o", ModelID: "m", Last: map[string]time.Time{}}
	if f.lastOf != nil {
		d.Last = f.lastOf
	} else if f.last != nil {
		for _, t := range []string{drift.TypeData, drift.TypePrediction, drift.TypeConcept} {
			d.Last[t] = *f.last
		}
	}
	return []drift.Due{d}, nil
}

func (f *fakeStore) DriftConfig(context.Context, string, string) (drift.Config, error) {
	return drift.Config{}, store.ErrNotFound
}

func (f *fakeStore) CreateDriftReport(_ context.Context, r drift.Report) error {
	f.reports = append(f.reports, r)
	if r.Severity == drift.High {
		if f.owed == nil {
			f.owed = map[string]bool{}
		}
		f.owed[r.ID] = true
	}
	return nil
}

func (f *fakeStore) GovernancePending(context.Context, int) ([]drift.Report, error) {
	var out []drift.Report
	for _, r := range f.reports {
		if f.owed[r.ID] {
			out = append(out, r)
		}
	}
	return out, nil
}

func (f *fakeStore) GovernanceSent(_ context.Context, _, id string) error {
	delete(f.owed, id)
	return nil
}

func (f *fakeStore) DriftReport(context.Context, string, string) (drift.Report, error) {
	return drift.Report{}, store.ErrNotFound
}

func (f *fakeStore) DriftReports(context.Context, drift.ReportFilter) ([]drift.Report, int64, error) {
	return nil, 0, nil
}

// fakeProfiles holds n rows of x in each of the 27 hours from t0's hour:
// the first 24 hours in [0, 1), later ones shifted by 5. Every output
// row is labelled: 90% are right in the first 24 hours, 50% later. reads,
// when set, counts the profiles read.
type fakeProfiles struct {
	n     int
	reads *int
	// fail, when set and true, fails every read.
	fail *bool
}

func (f fakeProfiles) MergedProfile(_ context.Context, _, _, side string, r analytics.Range) (*profile.Profile, error) {
	if f.reads != nil {
		*f.reads++
	}
	if f.fail != nil && *f.fail {
		return nil, errors.New("analytical store unreachable")
	}
	p := &profile.Profile{}
	start := t0.Truncate(time.Hour)
	for h := r.From; h.Before(r.To); h = h.Add(time.Hour) {
		shift, wrong := 0.0, 10
		if !h.Before(start.Add(24 * time.Hour)) {
			shift, wrong = 5, 2
		}
		for i := range f.n {
			if h.Before(start) || h.After(start.Add(26*time.Hour)) {
				break
			}
			p.Add(json.RawMessage(fmt.Sprintf(`{"x":%v}`, float64(i)/float64(f.n)+shift)))
			if side == analytics.SideOutput {
				label := "1"
				if i%wrong == 0 {
					label = "0"
				}
				p.Quality.Add(json.RawMessage(`1`), json.RawMessage(label))
			}
		}
	}
	return p, nil
}

func (f fakeProfiles) FirstProfileHour(context.Context, string, string, string) (time.Time, bool, error) {
	return t0.Truncate(time.Hour), true, nil
}

// fakeLog records what is appended; while down it refuses.
type fakeLog struct {
	recs []eventlog.Record
	down bool
}

func (l *fakeLog) Append(_ context.Context, recs []eventlog.Record) error {
	if l.down {
		return errors.New("log unreachable")
	}
	l.recs = append(l.recs, recs...)
	return nil
}

// TestGovernanceOwed: reports written while the log is down owe their
// events, which the next tick appends, once each, with the report's id.
func TestGovernanceOwed(t *testing.T) {
	st, log := &fakeStore{}, &fakeLog{down: true}
	s := &Scheduler{Store: st, Profiles: fakeProfiles{n: 60}, Log: log, Clock: func() time.Time { return t0.Add(25 * time.Hour) }}
	if _, err := s.RunOnce(context.Background()); err == nil {
		t.Fatal("RunOnce with the log down: got nil error, want the failed appends")
	}
	if len(st.reports) != 3 || len(st.owed) != 3 || len(log.recs) != 0 {
		t.Fatalf("got %d reports, %d owing, %d events; want 3, 3, 0", len(st.reports), len(st.owed), len(log.recs))
	}
	log.down = false
	last := t0.Add(25 * time.Hour)
	st.last = &last // not due again: only the owed events go out
	for range 2 {
		if _, err := s.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if len(st.owed) != 0 || len(log.recs) != 3 {
		t.Fatalf("got %d owing, %d events; want 0 and 3", len(st.owed), len(log.recs))
	}
	ids := map[string]bool{}
	for _, r := range st.reports {
		ids[r.ID] = true
	}
	for _, rec := range log.recs {
		var e governance.Event
		if err := json.Unmarshal(rec.Value, &e); err != nil || !ids[e.EventID] || e.SourceID != e.EventID {
			t.Errorf("got event %s (%v), want one whose id is its report's", rec.Value, err)
		}
	}
}

func TestRunOnce(t *testing.T) {
	f := func(name string, rows int, last *time.Time, after time.Duration, wantReports, wantEvents int) {
		t.Helper()
		st, log := &fakeStore{last: last}, &fakeLog{}
		s := &Scheduler{Store: st, Profiles: fakeProfiles{n: rows}, Log: log, Clock: func() time.Time { return t0.Add(after) }}
		got, err := s.RunOnce(context.Background())
		if err != nil {
			t.Fatalf("%s: RunOnce: %v", name, err)
		}
		if len(got) != wantReports || len(st.reports) != wantReports || len(log.recs) != wantEvents {
			t.Fatalf("%s: got %d reports (%d stored) and %d events, want %d and %d", name, len(got), len(st.reports), len(log.recs), wantReports, wantEvents)
		}
		for _, r := range got {
			if r.DriftType == drift.TypeConcept {
				continue // TestConcept
			}
			if r.Severity != drift.High || !r.Features["x"].DriftDetected {
				t.Errorf("%s: got %s report %+v, want x drifted at high severity", name, r.DriftType, r)
			}
		}
	}
	recent := t0.Add(25*time.Hour - time.Minute)
	f("inside the reference", 60, nil, 3*time.Hour, 0, 0)
	f("too few rows", 2, nil, 25*time.Hour, 0, 0)
	f("shifted", 60, nil, 25*time.Hour, 3, 3)
	f("not due", 60, &recent, 25*time.Hour, 0, 0)
}

// TestDuePerType: each drift type is due on its own: a concept report
// written alone does not hold back the data and prediction reports.
func TestDuePerType(t *testing.T) {
	now := t0.Add(25 * time.Hour)
	st := &fakeStore{lastOf: map[string]time.Time{drift.TypeConcept: now.Add(-time.Minute)}}
	s := &Scheduler{Store: st, Profiles: fakeProfiles{n: 60}, Log: &fakeLog{}, Clock: func() time.Time { return now }}
	got, err := s.RunOnce(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, r := range got {
		types = append(types, r.DriftType)
	}
	if fmt.Sprint(types) != "[data prediction]" {
		t.Fatalf("got reports of %v, want [data prediction]", types)
	}
}

// TestUploadedReference: with the uploaded reference configured, the
// window is compared with the uploaded profiles; a run is skipped while
// none is uploaded, and prediction drift while it has no outputs.
func TestUploadedReference(t *testing.T) {
	cfg := drift.Default("o", "m")
	cfg.Schedule.Reference = drift.Reference{Type: drift.ReferenceUploaded}
	cfg.ConceptDrift.Enabled = false
	st := &configStore{cfg: cfg}
	now := t0.Add(25 * time.Hour)
	s := &Scheduler{Store: st, Profiles: fakeProfiles{n: 60}, Log: &fakeLog{}, Clock: func() time.Time { return now }}
	got, err := s.RunOnce(context.Background())
	if err != nil || len(got) != 0 {
		t.Fatalf("none uploaded: got %d reports (%v), want none", len(got), err)
	}
	now = now.Add(10 * DefaultTick) // the skipped run's retry
	// The uploaded inputs are like the shifted traffic: no drift.
	var in profile.Profile
	values := make([]json.RawMessage, 500)
	for i := range values {
		values[i] = json.RawMessage(fmt.Sprint(5 + float64(i)/500))
	}
	in.AddColumn("x", values)
	st.uploaded = &drift.Uploaded{OrgID: "o", ModelID: "m", Input: in}
	got, err = s.RunOnce(context.Background())
	if err != nil || len(got) != 1 {
		t.Fatalf("got %d reports (%v), want the data report alone", len(got), err)
	}
	r := got[0]
	// The last 24 hours hold the first hours' unshifted rows too.
	if r.DriftType != drift.TypeData || r.Reference.Type != drift.ReferenceUploaded || r.Reference.Start != nil ||
		r.Features["x"].SampleSize.Reference != 500 || r.WindowEnd.Sub(r.WindowStart) != 24*time.Hour {
		t.Fatalf("got %+v, want a data report against the 500 uploaded rows over the last 24 hours", r)
	}
}

// TestSkipRetry: a run skipped for want of data is not tried again, and
// its profiles not read, until its retry; a written one is due an interval
// later.
func TestSkipRetry(t *testing.T) {
	reads := 0
	now := t0.Add(25 * time.Hour)
	s := &Scheduler{Store: &fakeStore{}, Profiles: fakeProfiles{n: 2, reads: &reads}, Log: &fakeLog{}, Tick: time.Second,
		Clock: func() time.Time { return now }}
	run := func(wantReads int) {
		t.Helper()
		reads = 0
		if got, err := s.RunOnce(context.Background()); err != nil || len(got) != 0 {
			t.Fatalf("got %d reports (%v), want none: too few rows", len(got), err)
		}
		if reads != wantReads {
			t.Fatalf("got %d profile reads, want %d", reads, wantReads)
		}
	}
	run(5) // data: 2, prediction: 2, concept (labels): 1
	now = now.Add(9 * time.Second)
	run(0)
	now = now.Add(time.Second) // ten ticks after the skip
	run(5)

	// A failed read is no skip: the next tick tries again.
	fail := true
	s = &Scheduler{Store: &fakeStore{}, Profiles: fakeProfiles{n: 2, reads: &reads, fail: &fail}, Log: &fakeLog{}, Tick: time.Second,
		Clock: func() time.Time { return now }}
	for range 2 {
		reads = 0
		if _, err := s.RunOnce(context.Background()); err == nil || reads != 1 {
			t.Fatalf("store down: got %d reads (%v), want 1 and the error, on every tick", reads, err)
		}
	}
	fail = false
	run(5)
}

// rulesRecorder records the models whose default drift rule was ensured.
type rulesRecorder struct{ models []string }

func (r *rulesRecorder) EnsureDefaultDriftRule(_ context.Context, orgID, modelID string, _ time.Time) error {
	r.models = append(r.models, orgID+"/"+modelID)
	return nil
}

// TestDefaultRule: a model without a drift configuration gets the default
// one's alert rule on the first look and is not asked again; a model with
// a configuration on file is left to it.
func TestDefaultRule(t *testing.T) {
	now := t0.Add(25 * time.Hour)
	rules := &rulesRecorder{}
	s := &Scheduler{Store: &fakeStore{}, Profiles: fakeProfiles{n: 60}, Log: &fakeLog{}, Clock: func() time.Time { return now }, Rules: rules}
	for range 2 {
		if _, err := s.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(rules.models) != "[o/m]" {
		t.Fatalf("without a configuration: got default rules ensured for %v, want [o/m] once", rules.models)
	}
	configured := &rulesRecorder{}
	s = &Scheduler{Store: &configStore{cfg: drift.Default("o", "m")}, Profiles: fakeProfiles{n: 60}, Log: &fakeLog{},
		Clock: func() time.Time { return now }, Rules: configured}
	if _, err := s.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(configured.models) != 0 {
		t.Fatalf("with a configuration on file: got default rules ensured for %v, want none", configured.models)
	}
}

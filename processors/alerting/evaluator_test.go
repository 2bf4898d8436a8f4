package alerting_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/processors/alerting"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// analyticalStore is what the test writes and the evaluator reads.
type analyticalStore interface {
	analytics.Sink
	analytics.DeadLetters
	alerts.Readings
}

// engines are the pairs of stores the evaluation runs on: the embedded
// default, and PostgreSQL with ClickHouse.
var engines = []struct {
	name string
	open func(t *testing.T) (*sqlstore.DB, analyticalStore)
}{
	{"sqlite", func(t *testing.T) (*sqlstore.DB, analyticalStore) {
		dir := t.TempDir()
		s, err := sqlitestore.Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		a, err := sqlite.Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		return s, a
	}},
	{"postgres+clickhouse", func(t *testing.T) (*sqlstore.DB, analyticalStore) {
		s, err := postgres.Open(t.Context(), testenv.PostgresSchema(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		conn, err := clickhouse.Open(testenv.ClickHouseDatabase(t))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return s, clickhouse.New(conn)
	}},
}

// fixture is an organization with one model and a rule on its p95
// latency over one minute, and a clock the test moves.
type fixture struct {
	t     *testing.T
	store *sqlstore.DB
	an    analyticalStore
	orgID string
	model string
	rule  alerts.Rule
	now   time.Time
	mu    sync.Mutex
}

// base is the start of the first minute the tests log into.
var base = time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC)

func newFixture(t *testing.T, s *sqlstore.DB, an analyticalStore) *fixture {
	t.Helper()
	ctx := t.Context()
	f := &fixture{t: t, store: s, an: an, orgID: uuid.NewString(), model: uuid.NewString(), now: base}
	org := identity.Organization{ID: f.orgID, Name: "org-" + f.orgID[:8], CreatedAt: base}
	admin := identity.User{ID: uuid.NewString(), OrgID: f.orgID, Username: "admin-" + f.orgID[:8], Email: "a@example.com",
		Role: identity.RoleAdmin, Active: true, PasswordHash: "x", CreatedAt: base, UpdatedAt: base}
	if err := s.CreateOrganization(ctx, org, nil, admin); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateModel(ctx, registry.Model{ID: f.model, OrgID: f.orgID, Name: "credit", Version: "1", ModelType: "classification",
		Status: registry.StatusActive, CreatedAt: base, UpdatedAt: base}); err != nil {
		t.Fatal(err)
	}
	f.rule = alerts.Rule{ID: uuid.NewString(), OrgID: f.orgID, Name: "slow", AlertType: "performance", Severity: "high",
		Conditions: []alerts.Condition{{MetricName: "latency_p95_ms", Operator: "gt", Threshold: 500, WindowMinutes: 1},
			{MetricName: "prediction_count", Operator: "gte", Threshold: 3, WindowMinutes: 1}},
		Enabled: true, CreatedBy: admin.ID, CreatedAt: base, UpdatedAt: base}
	if err := s.CreateAlertRule(ctx, f.rule); err != nil {
		t.Fatal(err)
	}
	return f
}

func (f *fixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

// at moves the clock to 3 s past the end of minute n after base.
func (f *fixture) at(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = base.Add(time.Duration(n+1)*time.Minute + 3*time.Second)
}

// log stores predictions with the latencies in minute n after base.
func (f *fixture) log(n int, latencies ...float64) {
	f.t.Helper()
	var b analytics.Batch
	for i, l := range latencies {
		b.Predictions = append(b.Predictions, eventlog.Prediction{OrgID: f.orgID, ModelID: f.model,
			PredictionID: fmt.Sprintf("m%d-%d", n, i), InputData: json.RawMessage(`{}`), OutputData: json.RawMessage(`{}`),
			Metadata: json.RawMessage(`{}`), LatencyMS: &l, Timestamp: base.Add(time.Duration(n)*time.Minute + time.Duration(i)*time.Second)})
	}
	if err := f.an.Write(f.t.Context(), b); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) evaluator() *alerting.Evaluator {
	return &alerting.Evaluator{Ledger: f.store, Readings: f.an, Clock: f.clock}
}

// run runs one pass and checks what it did.
func (f *fixture) run(e *alerting.Evaluator, want alerting.Result) {
	f.t.Helper()
	got, err := e.RunOnce(f.t.Context())
	if err != nil {
		f.t.Fatalf("RunOnce: %v", err)
	}
	if got != want {
		f.t.Fatalf("RunOnce at %v: got %+v, want %+v", f.clock(), got, want)
	}
}

// instances returns the organization's instances, newest first.
func (f *fixture) instances() []alerts.Instance {
	f.t.Helper()
	list, _, err := f.store.AlertInstances(f.t.Context(), f.orgID, alerts.InstanceFilter{})
	if err != nil {
		f.t.Fatal(err)
	}
	return list
}

// TestEvaluation: a rule fires once its minute is complete, updates the
// alert while it keeps holding, resolves it when it stops, and fires anew
// after that.
func TestEvaluation(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			e := f.evaluator()
			f.log(0, 600, 700, 800, 900)
			f.now = base.Add(time.Minute) // minute 0 ended, not yet settled
			f.run(e, alerting.Result{Evaluated: 1})
			if n := len(f.instances()); n != 0 {
				t.Fatalf("before minute 0 is complete: got %d alerts, want 0 (window -1 held nothing)", n)
			}
			f.at(0)
			f.run(e, alerting.Result{Evaluated: 1, Fired: 1})
			f.run(e, alerting.Result{}) // the window is evaluated once
			in := f.instances()[0]
			if in.Status != alerts.StatusOpen || in.Count != 1 || !in.WindowEnd.Equal(base.Add(time.Minute)) ||
				*in.Observations[0].Value <= 500 || *in.Observations[1].Value != 4 {
				t.Fatalf("fired alert: got %+v, want open, count 1, window ending at minute 1, p95 over 500 and 4 predictions", in)
			}

			f.log(1, 900, 950, 990)
			f.at(1)
			f.run(e, alerting.Result{Evaluated: 1, Updated: 1})
			if got := f.instances(); len(got) != 1 || got[0].Count != 2 {
				t.Fatalf("while it holds: got %+v, want the same alert with count 2", got)
			}

			f.log(2, 10, 20, 30)
			f.at(2)
			f.run(e, alerting.Result{Evaluated: 1, Resolved: 1})
			got := f.instances()[0]
			if got.Status != alerts.StatusResolved || got.Resolution != "auto" || got.ResolvedBy != alerts.SystemUser {
				t.Fatalf("after it stops holding: got %+v, want resolved automatically", got)
			}

			f.log(3, 600, 600, 600)
			f.at(3)
			f.run(e, alerting.Result{Evaluated: 1, Fired: 1})
			if got := f.instances(); len(got) != 2 || got[0].Status != alerts.StatusOpen {
				t.Fatalf("when it holds again: got %d alerts, want a second, open", len(got))
			}
		})
	}
}

// TestReplicas: evaluators of several replicas on the same minutes open
// one alert and count each window once.
func TestReplicas(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			const n = 4
			replicas := make([]*alerting.Evaluator, n)
			for i := range replicas {
				replicas[i] = f.evaluator()
			}
			pass := func() alerting.Result {
				var mu sync.Mutex
				var sum alerting.Result
				var wg sync.WaitGroup
				for _, e := range replicas {
					wg.Go(func() {
						r, err := e.RunOnce(context.WithoutCancel(t.Context()))
						if err != nil {
							t.Errorf("RunOnce: %v", err)
						}
						mu.Lock()
						sum.Fired += r.Fired
						sum.Updated += r.Updated
						sum.Resolved += r.Resolved
						mu.Unlock()
					})
				}
				wg.Wait()
				return sum
			}
			for minute := range 3 {
				f.log(minute, 600, 700, 800)
				f.at(minute)
				got := pass()
				want := alerting.Result{Fired: 1}
				if minute > 0 {
					want = alerting.Result{Updated: 1}
				}
				if got != want {
					t.Fatalf("minute %d, %d replicas: got %+v, want %+v", minute, n, got, want)
				}
			}
			list := f.instances()
			if len(list) != 1 || list[0].Count != 3 {
				t.Fatalf("after 3 minutes on %d replicas: got %d alerts (count %d), want 1 counted 3 times", n, len(list), list[0].Count)
			}
		})
	}
}

// TestResolvedNotBeforeTriggered: a replica whose tick read its clock
// before another replica opened the alert, but evaluates a later window,
// resolves it no earlier than it was opened, so the time to resolve is
// never negative.
func TestResolvedNotBeforeTriggered(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			f.log(0, 600, 700, 800)
			f.log(1, 10, 20, 30)
			opened := base.Add(2*time.Minute + 10*time.Second)
			// Replica B lags: it settles 70 s, so at 2m10s it evaluates minute 0, which holds.
			b := &alerting.Evaluator{Ledger: s, Readings: an, Settle: 70 * time.Second, Clock: func() time.Time { return opened }}
			f.run(b, alerting.Result{Evaluated: 1, Fired: 1})
			// Replica A read 2m03s when its tick began: minute 1 does not hold.
			a := &alerting.Evaluator{Ledger: s, Readings: an, Clock: func() time.Time { return base.Add(2*time.Minute + 3*time.Second) }}
			f.run(a, alerting.Result{Evaluated: 1, Resolved: 1})
			got := f.instances()[0]
			if got.ResolvedAt == nil || got.ResolvedAt.Before(got.TriggeredAt) {
				t.Fatalf("resolved at %v, triggered at %v: want resolved no earlier than triggered", got.ResolvedAt, got.TriggeredAt)
			}
			if last := got.History[len(got.History)-1]; !last.At.Equal(opened) {
				t.Fatalf("auto_resolve move at %v, want %v (the alert's last change)", last.At, opened)
			}
			groups, err := s.AlertStatistics(t.Context(), f.orgID, "", base, base.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			for _, g := range groups {
				if g.ResolveTotal < 0 {
					t.Fatalf("statistics: got a time to resolve of %v, want >= 0", g.ResolveTotal)
				}
			}
		})
	}
}

// TestSnoozeEnds: a snoozed alert whose snooze has ended goes back to open
// when the rule still holds; before its end it stays snoozed.
func TestSnoozeEnds(t *testing.T) {
	s, an := engines[0].open(t)
	f := newFixture(t, s, an)
	e := f.evaluator()
	var notices []alerting.Notice
	e.Notify = func(_ context.Context, n alerting.Notice) { notices = append(notices, n) }
	f.log(0, 600, 700, 800)
	f.at(0)
	f.run(e, alerting.Result{Evaluated: 1, Fired: 1})
	id := f.instances()[0].ID
	until := base.Add(150 * time.Second)
	if _, err := f.store.UpdateAlertInstance(t.Context(), f.orgID, id, func(in *alerts.Instance) error {
		return in.Apply(alerts.ActionSnooze, "u", f.clock(), &until, "")
	}); err != nil {
		t.Fatal(err)
	}
	f.log(1, 600, 700, 800)
	f.at(1) // 2m03s: before the snooze's end
	f.run(e, alerting.Result{Evaluated: 1, Updated: 1})
	if got := f.instances()[0]; got.Status != alerts.StatusSnoozed {
		t.Fatalf("before the snooze ends: got %s, want snoozed", got.Status)
	}
	f.log(2, 600, 700, 800)
	f.at(2) // 3m03s: past it
	f.run(e, alerting.Result{Evaluated: 1, Reopened: 1})
	got := f.instances()[0]
	if got.Status != alerts.StatusOpen || got.History[len(got.History)-1].Action != alerts.ActionReopen {
		t.Fatalf("after the snooze ends: got %+v, want open by a reopen move", got)
	}
	if len(notices) != 2 || notices[0].Reopened || !notices[1].Reopened {
		t.Fatalf("notices: got %+v, want the fire then the reopen", notices)
	}
}

// TestDriftScore: rules on a model's drift score, overall and of one
// feature, fire from the newest data-drift report written in their window,
// and a rule on its fairness score from its newest completed bias audit.
func TestDriftScore(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			for _, c := range []alerts.Condition{{MetricName: "drift_score", Operator: "gte", Threshold: 0.3, WindowMinutes: 60},
				{MetricName: "drift_score:age", Operator: "gt", Threshold: 0.6, WindowMinutes: 60},
				{MetricName: "drift_score:income", Operator: "gt", Threshold: 0.6, WindowMinutes: 60},
				{MetricName: "fairness_score", Operator: "lt", Threshold: 0.6, WindowMinutes: 60}} {
				r := f.rule
				r.ID, r.Conditions = uuid.NewString(), []alerts.Condition{c}
				if err := s.CreateAlertRule(t.Context(), r); err != nil {
					t.Fatal(err)
				}
			}
			rep := drift.Report{ID: uuid.NewString(), OrgID: f.orgID, ModelID: f.model, DriftType: drift.TypeData, DriftDetected: true,
				OverallDriftScore: 0.5, Severity: drift.High, CreatedAt: base.Add(30 * time.Second),
				Features: map[string]drift.ReportFeature{"age": {FeatureResult: drift.FeatureResult{DriftDetected: true, DriftScore: 0.7}},
					"income": {FeatureResult: drift.FeatureResult{DriftScore: 0.1}}}}
			if err := s.CreateDriftReport(t.Context(), rep); err != nil {
				t.Fatal(err)
			}
			score, done := 0.55, base.Add(40*time.Second)
			audit := bias.Audit{ID: uuid.NewString(), OrgID: f.orgID, ModelID: f.model, Status: bias.StatusPending,
				Request: bias.Summary{Form: bias.FormLabels}, CreatedAt: base, UpdatedAt: base}
			if err := s.CreateBiasAudit(t.Context(), audit); err != nil {
				t.Fatal(err)
			}
			audit.Status, audit.Result, audit.CompletedAt, audit.UpdatedAt = bias.StatusCompleted, &bias.Result{Score: &score}, &done, done
			if err := s.UpdateBiasAudit(t.Context(), audit); err != nil {
				t.Fatal(err)
			}
			e := f.evaluator()
			e.Findings = s
			f.at(0)
			// The latency rule sees no predictions; of the drift rules, the
			// overall score and age's hold, income's does not; the fairness
			// score of 0.55 is below 0.6.
			f.run(e, alerting.Result{Evaluated: 5, Fired: 3})
			for _, in := range f.instances() {
				if v := *in.Observations[0].Value; v != 0.5 && v != 0.7 && v != 0.55 {
					t.Fatalf("alert: got observed %v, want the report's 0.5, age's 0.7 or the audit's 0.55", v)
				}
			}
		})
	}
}

// TestOutbox: an alert's deliveries are stored in the alert's write. When
// building them fails the alert is not written either, and the next tick
// opens it with its deliveries; an update owes none.
func TestOutbox(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			f.rule.Channels = []alerts.Channel{{Type: "webhook", Target: "https://hooks.example.com/a"}}
			if _, err := s.UpdateAlertRule(t.Context(), f.orgID, f.rule.ID, func(r *alerts.Rule) error { r.Channels = f.rule.Channels; return nil }); err != nil {
				t.Fatal(err)
			}
			e := f.evaluator()
			fail := true
			var events []string
			e.Outbox = func(r alerts.Rule, in alerts.Instance, event string) ([]alerts.Delivery, error) {
				if fail {
					return nil, fmt.Errorf("injected fault")
				}
				events = append(events, event)
				return []alerts.Delivery{{ID: uuid.NewString(), OrgID: in.OrgID, AlertID: in.ID, RuleID: r.ID, Event: event, Channel: r.Channels[0],
					Payload: []byte(`{}`), Status: alerts.DeliveryPending, NextAttemptAt: f.clock(), CreatedAt: f.clock(), UpdatedAt: f.clock()}}, nil
			}
			f.log(0, 600, 700, 800)
			f.at(0)
			if _, err := e.RunOnce(t.Context()); err == nil {
				t.Fatal("RunOnce with a failing outbox: got nil error, want the fault")
			}
			if n := len(f.instances()); n != 0 {
				t.Fatalf("after a failing outbox: got %d alerts, want none (nothing half-written)", n)
			}
			fail = false
			f.run(e, alerting.Result{Evaluated: 1, Fired: 1})
			in := f.instances()[0]
			ds, err := s.AlertDeliveries(t.Context(), f.orgID, in.ID)
			if err != nil || len(ds) != 1 || ds[0].Event != alerts.EventOpened {
				t.Fatalf("deliveries of the opened alert: got %+v, %v, want one alert.opened", ds, err)
			}
			f.log(1, 600, 700, 800)
			f.at(1)
			f.run(e, alerting.Result{Evaluated: 1, Updated: 1})
			if len(events) != 1 {
				t.Fatalf("outbox events: got %v, want only the opening", events)
			}
		})
	}
}

// TestDeadLetters: a rule on dead_letters fires from the per-minute counts
// once its minute holds a dead letter of the model, and a replay of the
// same dead letter does not count twice.
func TestDeadLetters(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			f.rule.Conditions = []alerts.Condition{{MetricName: "dead_letters", Operator: "gte", Threshold: 2, WindowMinutes: 1}}
			if _, err := s.UpdateAlertRule(t.Context(), f.orgID, f.rule.ID, func(r *alerts.Rule) error { r.Conditions = f.rule.Conditions; return nil }); err != nil {
				t.Fatal(err)
			}
			e := f.evaluator()
			dl := func(id string) analytics.DeadLetter {
				return analytics.DeadLetter{OrgID: f.orgID, Kind: eventlog.KindPrediction, ModelID: f.model, EventID: id, Event: []byte(`{}`),
					Reason: "refused", FailedAt: base.Add(10 * time.Second)}
			}
			for range 2 { // the second is a replay
				if err := an.SetAside(t.Context(), []analytics.DeadLetter{dl("a")}); err != nil {
					t.Fatal(err)
				}
			}
			f.at(0)
			f.run(e, alerting.Result{Evaluated: 1})
			if err := an.SetAside(t.Context(), []analytics.DeadLetter{dl("b")}); err != nil {
				t.Fatal(err)
			}
			e = f.evaluator() // the window again, as a fresh replica would
			f.run(e, alerting.Result{Evaluated: 1, Fired: 1})
			if in := f.instances()[0]; *in.Observations[0].Value != 2 {
				t.Fatalf("observed dead letters: got %v, want 2", *in.Observations[0].Value)
			}
		})
	}
}

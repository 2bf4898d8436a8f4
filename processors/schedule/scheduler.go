package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/stats/profile"
	"github.com/vigilhq/vigil/store"
)

// DefaultTick is how often a Scheduler looks for due models when Tick is 0.
const DefaultTick = time.Minute

// Store is the transactional store as the scheduler uses it: the models,
// their drift configurations and their reports.
type Store interface {
	drift.ReportStore
	// DriftConfig returns the model's configuration; store.ErrNotFound
	// when none is on file.
	DriftConfig(ctx context.Context, orgID, modelID string) (drift.Config, error)
	// Model returns the model (its baseline_metrics are concept drift's
	// baseline); store.ErrNotFound when it is gone.
	Model(ctx context.Context, orgID, id string) (registry.Model, error)
	// DriftReference returns the model's uploaded reference;
	// store.ErrNotFound when none is.
	DriftReference(ctx context.Context, orgID, modelID string) (drift.Uploaded, error)
}

// Profiles reads the hourly feature profiles the processors keep: the
// analytical store (analytics/sqlite, analytics/clickhouse).
type Profiles interface {
	// MergedProfile merges the profiles of a model's side whose hour
	// starts in r.
	MergedProfile(ctx context.Context, orgID, modelID, side string, r analytics.Range) (*profile.Profile, error)
	// FirstProfileHour returns the model's first profiled hour of side;
	// false when none is.
	FirstProfileHour(ctx context.Context, orgID, modelID, side string) (time.Time, bool, error)
}

// Scheduler writes the drift reports of every model whose schedule is due,
// each tick: data drift of the inputs, prediction drift of the outputs
// and, when the configuration enables it and the metric can be had,
// concept drift. Store, Profiles and Log are required; the rest have
// working zero values.
type Scheduler struct {
	Store    Store
	Profiles Profiles
	// Metrics, when set, lets concept drift read logged metric values;
	// without it concept drift is judged from labelled predictions only.
	Metrics Metrics
	// Log receives a governance event per report at high severity.
	Log      eventlog.Log
	Detector drift.Detector
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Tick is the pause between looks for due models (DefaultTick).
	Tick time.Duration
	// Retry is how long a due run that was skipped (too few predictions,
	// no labels or metric values yet, no uploaded reference) waits before
	// it is tried again, so that models without the data are not read
	// every tick; 0 means ten ticks. Each replica keeps its own.
	Retry  time.Duration
	Logger *slog.Logger
	// Rules, when set, gives each model without a drift configuration
	// the alert rule of the default one, whose alert_config is on, so that
	// drift reports raise alerts before anyone configures anything.
	Rules DefaultRules

	mu      sync.Mutex
	skipped map[skipKey]time.Time // when each skipped run was tried
	ensured map[[2]string]bool    // models whose default rule was written
}

// DefaultRules writes the alert rule a model's default drift
// configuration manages: the transactional store.
type DefaultRules interface {
	// EnsureDefaultDriftRule creates the rule of drift.Default's
	// alert_config for a model without a configuration on file, or brings
	// it back to it; a model with one is left to it. Idempotent.
	EnsureDefaultDriftRule(ctx context.Context, orgID, modelID string, at time.Time) error
}

// skipKey names a model's runs of one drift type.
type skipKey struct{ orgID, modelID, driftType string }

// Run looks for due models every tick until ctx ends. A failed look is
// logged and tried again on the next tick.
func (s *Scheduler) Run(ctx context.Context) error {
	tick := s.Tick
	if tick <= 0 {
		tick = DefaultTick
	}
	clock.Every(ctx, tick, func(ctx context.Context) error { _, err := s.RunOnce(ctx); return err },
		func(err error) {
			s.logger().Warn("scheduled drift detection failed; trying again next tick", "err", err)
		})
	return nil
}

// RunOnce runs detection for every due model of every organization and
// returns the reports written. A model that fails is logged and the
// others still run; the errors are returned joined.
func (s *Scheduler) RunOnce(ctx context.Context) ([]drift.Report, error) {
	var errs []error
	if err := s.resend(ctx); err != nil {
		errs = append(errs, err)
	}
	due, err := s.Store.DriftDue(ctx)
	if err != nil {
		return nil, errors.Join(append(errs, fmt.Errorf("list models for drift detection: %w", err))...)
	}
	var out []drift.Report
	for _, d := range due {
		rs, err := s.model(ctx, d)
		out = append(out, rs...)
		if err != nil {
			errs = append(errs, fmt.Errorf("model %s: %w", d.ModelID, err))
		}
	}
	return out, errors.Join(errs...)
}

// ensureRule writes the default configuration's alert rule of a model
// without a configuration, once per model and process: a configuration
// written later manages the rule itself, and none is ever deleted.
func (s *Scheduler) ensureRule(ctx context.Context, d drift.Due) error {
	if s.Rules == nil {
		return nil
	}
	k := [2]string{d.OrgID, d.ModelID}
	s.mu.Lock()
	done := s.ensured[k]
	s.mu.Unlock()
	if done {
		return nil
	}
	if err := s.Rules.EnsureDefaultDriftRule(ctx, d.OrgID, d.ModelID, s.Clock.Now().UTC()); err != nil {
		return fmt.Errorf("write the default drift alert rule: %w", err)
	}
	s.mu.Lock()
	if s.ensured == nil {
		s.ensured = map[[2]string]bool{}
	}
	s.ensured[k] = true
	s.mu.Unlock()
	return nil
}

// model runs one model's detection when it is due.
func (s *Scheduler) model(ctx context.Context, d drift.Due) ([]drift.Report, error) {
	cfg, err := s.config(ctx, d)
	if err != nil {
		return nil, err
	}
	now := s.Clock.Now()
	types := s.dueTypes(d, cfg, now)
	if len(types) == 0 {
		return nil, nil
	}
	// done says, of each type tried, whether it was written (or failed,
	// to be tried again next tick) or skipped for want of data; a type
	// not tried (an error came first) is tried again next tick.
	done := map[string]bool{}
	defer func() {
		for t, ok := range done {
			s.tried(d, t, now, ok)
		}
	}()
	plan, skipped, err := s.runPlan(ctx, d, cfg, now)
	if err != nil {
		return nil, err
	}
	if skipped != "" {
		s.skip(d, "", skipped)
		for _, t := range types {
			done[t] = false
		}
		return nil, nil
	}
	return s.detect(ctx, d, cfg, plan, types, now, done)
}

// config is the model's drift configuration or, when it has none, the
// default one, whose alert rule it then ensures.
func (s *Scheduler) config(ctx context.Context, d drift.Due) (drift.Config, error) {
	cfg, err := s.Store.DriftConfig(ctx, d.OrgID, d.ModelID)
	if !errors.Is(err, store.ErrNotFound) {
		return cfg, err
	}
	if err := s.ensureRule(ctx, d); err != nil { // detection goes on; the next tick tries again
		s.logger().Warn("could not write a model's default drift alert rule", "model_id", d.ModelID, "err", err)
	}
	return drift.Default(d.OrgID, d.ModelID), nil
}

// dueTypes lists the types of drift due for the model now: those its
// schedule says are due, concept drift only when enabled, and none that
// waits after a run skipped for want of data.
func (s *Scheduler) dueTypes(d drift.Due, cfg drift.Config, now time.Time) []string {
	types := []string{}
	for _, t := range []string{drift.TypeData, drift.TypePrediction, drift.TypeConcept} {
		var last *time.Time
		if l, ok := d.Last[t]; ok {
			last = &l
		}
		if Due(cfg.Schedule, last, now) && (t != drift.TypeConcept || cfg.ConceptDrift.Enabled) && !s.waiting(d, t, now) {
			types = append(types, t)
		}
	}
	return types
}

// runPlan is the plan of the model's run now, holding its uploaded
// reference when the configuration names one; skipped says why there is
// none: no data to plan from, or no reference uploaded.
func (s *Scheduler) runPlan(ctx context.Context, d drift.Due, cfg drift.Config, now time.Time) (plan Plan, skipped string, err error) {
	first, ok, err := s.Profiles.FirstProfileHour(ctx, d.OrgID, d.ModelID, analytics.SideInput)
	if err != nil {
		return Plan{}, "", err
	}
	plan, err = NewPlan(cfg.Schedule, first, ok, now)
	if err != nil {
		return Plan{}, err.Error(), nil
	}
	if cfg.Schedule.Reference.Type != drift.ReferenceUploaded {
		return plan, "", nil
	}
	u, err := s.Store.DriftReference(ctx, d.OrgID, d.ModelID)
	if errors.Is(err, store.ErrNotFound) {
		return Plan{}, "the configuration names the uploaded reference, and none is uploaded", nil
	} else if err != nil {
		return Plan{}, "", fmt.Errorf("read uploaded reference: %w", err)
	}
	plan.Uploaded = &u
	return plan, "", nil
}

// detect runs each of the types on plan and notes in done whether each
// was written (or failed) or skipped. A report stored that owes its
// governance event does not stop the other types; any other error does.
func (s *Scheduler) detect(ctx context.Context, d drift.Due, cfg drift.Config, plan Plan, types []string, now time.Time,
	done map[string]bool) ([]drift.Report, error) {
	var out []drift.Report
	var errs []error
	for _, driftType := range types {
		var r *drift.Report
		var err error
		switch driftType {
		case drift.TypeData:
			r, err = s.compare(ctx, d, cfg, plan, analytics.SideInput, driftType, now)
		case drift.TypePrediction:
			r, err = s.compare(ctx, d, cfg, plan, analytics.SideOutput, driftType, now)
		default:
			r, err = s.concept(ctx, d, cfg, plan, now)
		}
		if r != nil {
			out = append(out, *r)
		}
		done[driftType] = r != nil || err != nil
		switch {
		case err != nil && r != nil:
			// Stored, owing its governance event: the other types still run.
			errs = append(errs, err)
		case err != nil:
			return out, errors.Join(append(errs, err)...)
		}
	}
	return out, errors.Join(errs...)
}

// compare writes the report of one side of plan; nil when the run is
// skipped.
func (s *Scheduler) compare(ctx context.Context, d drift.Due, cfg drift.Config, plan Plan, side, driftType string, now time.Time) (*drift.Report, error) {
	ref, err := s.reference(ctx, d, plan, side)
	if err != nil || ref == nil {
		return nil, err
	}
	cur, err := s.Profiles.MergedProfile(ctx, d.OrgID, d.ModelID, side, plan.Window)
	if err != nil {
		return nil, err
	}
	if ref.Rows < MinRows || cur.Rows < MinRows {
		s.skip(d, driftType, fmt.Sprintf("fewer than %d predictions: %d in the reference, %d in the window", MinRows, ref.Rows, cur.Rows))
		return nil, nil
	}
	det := s.Detector
	if det.Clock == nil {
		det.Clock = s.Clock
	}
	res, bounds, problems := det.FromProfiles(d.ModelID, ref, cur, cfg)
	return s.write(ctx, featureReport(d, driftType, plan, res, bounds, problems, now))
}

// reference returns the profile of side's reference: the uploaded one's,
// else the merged profiles of the reference window; nil, with the reason
// logged, when no prediction_data was uploaded.
func (s *Scheduler) reference(ctx context.Context, d drift.Due, plan Plan, side string) (*profile.Profile, error) {
	switch {
	case plan.Uploaded == nil:
		return s.Profiles.MergedProfile(ctx, d.OrgID, d.ModelID, side, plan.Reference)
	case side == analytics.SideInput:
		return &plan.Uploaded.Input, nil
	case plan.Uploaded.Output == nil:
		s.skip(d, drift.TypePrediction, "the uploaded reference has no prediction_data")
	}
	return plan.Uploaded.Output, nil
}

// write stores r and, at high severity, appends its governance event; nil
// when another processor replica wrote the run's report first.
func (s *Scheduler) write(ctx context.Context, r drift.Report) (*drift.Report, error) {
	if err := s.Store.CreateDriftReport(ctx, r); errors.Is(err, store.ErrConflict) {
		// Another processor replica ran this window first; its report and
		// governance event stand.
		s.logger().Debug("drift report of this window written by another processor", "org_id", r.OrgID,
			"model_id", r.ModelID, "drift_type", r.DriftType)
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("write %s drift report: %w", r.DriftType, err)
	}
	s.logger().Info("drift report written", "org_id", r.OrgID, "model_id", r.ModelID, "drift_type", r.DriftType,
		"report_id", r.ID, "drift_detected", r.DriftDetected, "severity", r.Severity)
	if r.Severity == drift.High {
		if err := s.govern(ctx, r); err != nil {
			return &r, fmt.Errorf("%w (appended again on a later tick)", err)
		}
	}
	return &r, nil
}

// waiting reports whether a skipped run of the model's driftType waits
// for its retry at now.
func (s *Scheduler) waiting(d drift.Due, driftType string, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.skipped[skipKey{d.OrgID, d.ModelID, driftType}]
	return ok && now.Before(at.Add(s.retry()))
}

// tried records a due run of the model's driftType at now: skipped (it
// waits for its retry) unless done.
func (s *Scheduler) tried(d drift.Due, driftType string, now time.Time, done bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := skipKey{d.OrgID, d.ModelID, driftType}
	if done {
		delete(s.skipped, k)
		return
	}
	if s.skipped == nil {
		s.skipped = map[skipKey]time.Time{}
	}
	s.skipped[k] = now
}

func (s *Scheduler) retry() time.Duration {
	switch {
	case s.Retry > 0:
		return s.Retry
	case s.Tick > 0:
		return 10 * s.Tick
	}
	return 10 * DefaultTick
}

// resend appends the governance events that reports still owe (an append
// that failed after its report was stored), oldest first.
func (s *Scheduler) resend(ctx context.Context) error {
	return s.outbox().Resend(ctx)
}

// newReport is an empty report of a run: no result yet.
func newReport(d drift.Due, driftType string, plan Plan, now time.Time) drift.Report {
	ref := drift.Reference{Type: drift.ReferenceWindow, Start: &plan.Reference.From, End: &plan.Reference.To}
	if plan.Uploaded != nil {
		ref = drift.Reference{Type: drift.ReferenceUploaded}
	}
	return drift.Report{ID: uuid.NewString(), OrgID: d.OrgID, ModelID: d.ModelID, DriftType: driftType,
		WindowStart: plan.Window.From, WindowEnd: plan.Window.To, Reference: ref,
		Severity: drift.Low, Features: map[string]drift.ReportFeature{}, Skipped: []string{}, Problems: map[string]string{},
		CreatedAt: now}
}

// featureReport makes the report of a data or prediction drift run from
// its detection result.
func featureReport(d drift.Due, driftType string, plan Plan, res drift.Result, bounds map[string]float64, problems map[string]error, now time.Time) drift.Report {
	r := newReport(d, driftType, plan, now)
	r.DriftDetected, r.OverallDriftScore, r.Severity = res.DriftDetected, res.OverallDriftScore, res.Severity
	if res.Skipped != nil {
		r.Skipped = res.Skipped
	}
	for name, f := range res.Features {
		rf := drift.ReportFeature{FeatureResult: f}
		if b, ok := bounds[name]; ok {
			rf.KSBound = &b
		}
		r.Features[name] = rf
	}
	for name, err := range problems {
		r.Problems[name] = err.Error()
	}
	return r
}

// govern puts the governance event of a report at high severity on the
// log and records it sent.
func (s *Scheduler) govern(ctx context.Context, r drift.Report) error {
	return s.outbox().Send(ctx, r)
}

// outbox delivers the governance events reports owe.
func (s *Scheduler) outbox() governance.Outbox[drift.Report] {
	return governance.Outbox[drift.Report]{Log: s.Log, Event: GovernanceEvent, Pending: s.Store.GovernancePending, Sent: s.Store.GovernanceSent}
}

// GovernanceEvent is the governance event of a report at high severity.
// Its id is the report's, so an event appended twice is one event to its
// readers.
func GovernanceEvent(r drift.Report) governance.Event {
	return governance.Event{EventID: r.ID, OrgID: r.OrgID, ModelID: r.ModelID, SourceType: governance.SourceDriftReport,
		SourceID: r.ID, Severity: string(r.Severity), Timestamp: r.CreatedAt,
		Summary: r.Summary()}
}

// skip logs why a due model's run (of driftType, or of both types) was
// skipped. It is logged at debug level: a new model is skipped every tick
// until its reference window has passed.
func (s *Scheduler) skip(d drift.Due, driftType, reason string) {
	s.logger().Debug("scheduled drift detection skipped", "org_id", d.OrgID, "model_id", d.ModelID, "drift_type", driftType, "reason", reason)
}

func (s *Scheduler) logger() *slog.Logger {
	if s.Logger == nil {
		return slog.Default()
	}
	return s.Logger
}

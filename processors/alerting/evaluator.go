package alerting

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/store"
)

// Defaults of an Evaluator's zero fields.
const (
	DefaultTick   = time.Second
	DefaultSettle = 2 * time.Second
)

// Notice is an alert that opened, or went back to open, in this replica's
// write: what the channels deliver.
type Notice struct {
	Rule     alerts.Rule
	Instance alerts.Instance
	// Reopened is true when a snoozed alert went back to open.
	Reopened bool
}

// Evaluator evaluates every enabled rule once per complete minute. Ledger
// and Readings are required; the rest have working zero values.
type Evaluator struct {
	Ledger   alerts.Ledger
	Readings alerts.Readings
	// Findings, when set, serves the drift_score metrics.
	Findings alerts.Findings
	// Outbox, when set, returns the deliveries an alert that opens or
	// goes back to open owes its rule's channels; they are stored in the
	// alert's own transaction (alerts.Ledger.FireAlert), so a crash never
	// keeps the alert and loses its page.
	Outbox func(r alerts.Rule, in alerts.Instance, event string) ([]alerts.Delivery, error)
	// Notify, when set, receives each alert this replica opened or
	// reopened, after it is stored.
	Notify func(ctx context.Context, n Notice)
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Landing, when set, holds a minute back until the processors have
	// landed it; without it a minute counts as complete Settle after it
	// ends, however far behind the processors are.
	Landing *Landing
	// Tick is the pause between looks (DefaultTick). Settle (DefaultSettle)
	// bounds the time from ingest stamping an event to the log holding it:
	// a minute is looked at Settle after it ends.
	Tick, Settle time.Duration
	// Batch is how many holding pairs one transaction writes (FireBatch
	// when 0; 1 writes each alone).
	Batch  int
	Logger *slog.Logger
	// Metrics, when set, records each minute's delay and evaluation time.
	Metrics *Metrics

	mu      sync.Mutex
	done    map[pairKey]time.Time // the last window end evaluated per pair
	landing landing
	last    time.Time // the newest minute end taken up
}

// pairKey names a rule's condition set on one model.
type pairKey struct{ ruleID, modelID, conditions string }

// Run evaluates every tick until ctx ends.
func (e *Evaluator) Run(ctx context.Context) error {
	tick := e.Tick
	if tick <= 0 {
		tick = DefaultTick
	}
	clock.Every(ctx, tick, func(ctx context.Context) error { _, err := e.RunOnce(ctx); return err },
		func(err error) { e.logger().Warn("alert evaluation failed; trying again next tick", "err", err) })
	return nil
}

// Result counts what one pass did.
type Result struct {
	Evaluated, Fired, Updated, Resolved, Reopened int
}

// WindowEnd is the end of the last minute that ended Settle or more
// before now: complete unless the processors lag (see Landing).
func (e *Evaluator) WindowEnd(now time.Time) time.Time {
	settle := e.Settle
	if settle <= 0 {
		settle = DefaultSettle
	}
	return now.Add(-settle).UTC().Truncate(time.Minute)
}

// RunOnce evaluates every pair not evaluated yet for the last complete
// minute. A pair that fails is logged and left for the next tick; the
// errors are returned joined.
func (e *Evaluator) RunOnce(ctx context.Context) (Result, error) {
	var res Result
	now := e.Clock.Now().UTC()
	e.mu.Lock()
	defer e.mu.Unlock()
	end, err := e.completeEnd(ctx, now)
	if err != nil || end.IsZero() {
		return res, err
	}
	if end.After(e.last) {
		e.last = end
		defer func() { e.Metrics.minute(end, now, e.Clock.Now().UTC()) }()
	}
	targets, err := e.Ledger.AlertTargets(ctx)
	if err != nil {
		return res, fmt.Errorf("list alert rules: %w", err)
	}
	if e.done == nil {
		e.done = map[pairKey]time.Time{}
	}
	observers := e.observers(ctx, targets, end)
	live := make(map[pairKey]bool, len(targets))
	var errs []error
	var batch []holding
	flush := func() {
		for _, err := range e.fire(ctx, batch, end, now, &res) {
			errs = append(errs, err)
		}
		batch = batch[:0]
	}
	for _, t := range targets {
		k := pairKey{t.Rule.ID, t.ModelID, t.Rule.ConditionKey()}
		live[k] = true
		if last, ok := e.done[k]; ok && !end.After(last) {
			continue
		}
		obs, holds, err := observers.of(t).Observe(ctx, t.Rule)
		if err == nil && !holds {
			err = e.clear(ctx, t, end, now, &res)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("rule %s, model %s: %w", t.Rule.ID, t.ModelID, err))
			continue
		}
		if holds {
			if batch = append(batch, holding{t, k, obs}); len(batch) >= e.batch() {
				flush()
			}
			continue
		}
		e.done[k] = end
		res.Evaluated++
	}
	flush()
	for k := range e.done {
		if !live[k] { // a rule deleted, disabled or changed, a model gone
			delete(e.done, k)
		}
	}
	return res, errors.Join(errs...)
}

func (e *Evaluator) batch() int {
	if e.Batch > 0 {
		return e.Batch
	}
	return FireBatch
}

// observerSet holds a tick's observers, one per organization and model.
type observerSet struct {
	e   *Evaluator
	end time.Time
	m   map[[2]string]*alerts.Observer
}

// of is the observer of t's model, made on first use.
func (s observerSet) of(t Target) *alerts.Observer {
	k := [2]string{t.Rule.OrgID, t.ModelID}
	o := s.m[k]
	if o == nil {
		o = alerts.NewObserver(s.e.Readings, t.Rule.OrgID, t.ModelID, s.end)
		o.Findings = s.e.Findings
		s.m[k] = o
	}
	return o
}

// StatsBatch is how many models one batched read asks for.
const StatsBatch = 1000

// batchKey names one batched read of a tick: an organization's prediction
// summaries (metricType "") or one logged metric type's values, over a
// window.
type batchKey struct {
	org, metricType string
	minutes         int
}

// observers returns the tick's observers. When Readings is also
// alerts.ReadingsByModel, each organization's prediction summaries, and
// each metric:<type> condition's values, over each window the conditions
// ask for are read for all its models in one read per StatsBatch models
// and given to the observers; a batch that fails is logged and left to
// the observers' own reads.
func (e *Evaluator) observers(ctx context.Context, targets []Target, end time.Time) observerSet {
	set := observerSet{e: e, end: end, m: map[[2]string]*alerts.Observer{}}
	byModel, ok := e.Readings.(alerts.ReadingsByModel)
	if !ok {
		return set
	}
	models := map[batchKey][]string{}
	seen := map[struct {
		batchKey
		model string
	}]bool{}
	for _, t := range targets {
		if last, ok := e.done[pairKey{t.Rule.ID, t.ModelID, t.Rule.ConditionKey()}]; ok && !end.After(last) {
			continue
		}
		for _, c := range t.Rule.Conditions {
			k := batchKey{org: t.Rule.OrgID, minutes: c.WindowMinutes}
			if mt, ok := strings.CutPrefix(c.MetricName, alerts.MetricPrefix); ok {
				k.metricType = mt
			} else if !alerts.PredictionMetric(c.MetricName) {
				continue
			}
			if km := (struct {
				batchKey
				model string
			}{k, t.ModelID}); !seen[km] {
				seen[km] = true
				models[k] = append(models[k], t.ModelID)
			}
		}
	}
	for k, ids := range models {
		for lo := 0; lo < len(ids); lo += StatsBatch {
			chunk := ids[lo:min(lo+StatsBatch, len(ids))]
			if err := e.readBatch(ctx, set, byModel, k, chunk, end); err != nil {
				e.logger().Warn("batched read failed; reading model by model", "org_id", k.org, "metric_type", k.metricType, "err", err)
			}
		}
	}
	return set
}

// readBatch reads one batch of k for the models and gives each observer
// its value.
func (e *Evaluator) readBatch(ctx context.Context, set observerSet, byModel alerts.ReadingsByModel, k batchKey, models []string, end time.Time) error {
	rng := analytics.Range{From: end.Add(-alerts.Condition{WindowMinutes: k.minutes}.Window()), To: end}
	of := func(id string) *alerts.Observer { return set.of(Target{Rule: alerts.Rule{OrgID: k.org}, ModelID: id}) }
	if k.metricType == "" {
		stats, err := byModel.PredictionStatsByModel(ctx, k.org, models, rng)
		if err != nil {
			return err
		}
		for _, id := range models {
			of(id).Know(k.minutes, stats[id])
		}
		return nil
	}
	sums, err := byModel.MetricSummariesByModel(ctx, k.org, k.metricType, models, rng)
	if err != nil {
		return err
	}
	for _, id := range models {
		var s *analytics.Summary
		if one, ok := sums[id]; ok {
			s = &one
		}
		of(id).KnowMetric(k.metricType, k.minutes, s)
	}
	return nil
}

// FireBatch is how many holding pairs a tick writes in one transaction
// by default (Evaluator.Batch).
const FireBatch = 500

// holding is a pair whose rule held in the window, waiting for its write.
type holding struct {
	t   Target
	k   pairKey
	obs []alerts.Observation
}

// fire writes the holding pairs of batch in one transaction
// (alerts.Ledger.FireAlerts), counts and announces what they did and marks
// them done. When the batch's write fails, each pair is written alone, so
// that only the pairs that fail again are left (their errors returned) to
// be tried next tick.
func (e *Evaluator) fire(ctx context.Context, batch []holding, end, now time.Time, res *Result) []error {
	if len(batch) == 0 {
		return nil
	}
	fires := make([]alerts.Fire, len(batch))
	reopened, updated := make([]bool, len(batch)), make([]bool, len(batch))
	for i, h := range batch {
		fires[i] = alerts.Fire{Instance: alerts.NewInstance(h.t.Rule, h.t.ModelID, end, h.obs, now), Since: now.Add(-h.t.Rule.Cooldown()),
			Change: e.change(h.obs, end, now, &reopened[i], &updated[i]), Outbox: e.outbox(h.t.Rule, &reopened[i])}
	}
	out, err := e.Ledger.FireAlerts(ctx, fires)
	if err != nil && len(batch) > 1 && !errors.Is(err, store.ErrUnavailable) && ctx.Err() == nil {
		// One pair's failure must not hold back the rest: each is
		// written alone, and only the failing ones wait for next tick
		// (an unavailable store fails them all alike).
		var errs []error
		for _, h := range batch {
			errs = append(errs, e.fire(ctx, []holding{h}, end, now, res)...)
		}
		return errs
	}
	if err != nil {
		errs := make([]error, len(batch))
		for i, h := range batch {
			errs[i] = fmt.Errorf("rule %s, model %s: %w", h.t.Rule.ID, h.t.ModelID, err)
		}
		return errs
	}
	for i, h := range batch {
		switch {
		case out[i].Created:
			res.Fired++
			e.logger().Info("alert opened", "alert_id", out[i].Instance.ID, "rule_id", h.t.Rule.ID, "model_id", h.t.ModelID,
				"window_end", end, "severity", h.t.Rule.Severity)
			e.notify(ctx, Notice{Rule: h.t.Rule, Instance: out[i].Instance})
		case reopened[i]:
			res.Reopened++
			e.notify(ctx, Notice{Rule: h.t.Rule, Instance: out[i].Instance, Reopened: true})
		case updated[i]:
			res.Updated++
		}
		e.done[h.k] = end
		res.Evaluated++
	}
	return nil
}

// change is the update of a holding pair's unresolved alert: counted once
// per window, reopened when its snooze ended. It sets *reopened and
// *updated afresh on each call, as a batch run again calls it again.
func (e *Evaluator) change(obs []alerts.Observation, end, now time.Time, reopened, updated *bool) func(*alerts.Instance) error {
	return func(cur *alerts.Instance) error {
		*reopened, *updated = false, false
		if !end.After(cur.WindowEnd) {
			return nil // another replica counted this window
		}
		// Times never go back: a replica may have written this alert after
		// this tick read its clock.
		now := alerts.NotBefore(now, cur.UpdatedAt)
		cur.Observations, cur.WindowEnd, cur.LastTriggeredAt, cur.UpdatedAt = obs, end, now, now
		cur.Count++
		*updated = true
		if cur.Status == alerts.StatusSnoozed && cur.SnoozedUntil != nil && !now.Before(*cur.SnoozedUntil) {
			*reopened = true
			return cur.Apply(alerts.ActionReopen, alerts.SystemUser, now, nil, "the snooze ended and the rule still holds")
		}
		return nil
	}
}

// outbox is the alerts.Outbox of a write of r's alert: an opened alert
// announces alert.opened, a reopened one (*reopened, set by the write's
// change) alert.reopened, an update nothing.
func (e *Evaluator) outbox(r alerts.Rule, reopened *bool) alerts.Outbox {
	if e.Outbox == nil {
		return nil
	}
	return func(in alerts.Instance, created bool) ([]alerts.Delivery, error) {
		switch {
		case created:
			return e.Outbox(r, in, alerts.EventOpened)
		case *reopened:
			return e.Outbox(r, in, alerts.EventReopened)
		}
		return nil, nil
	}
}

// Target is alerts.Target.
type Target = alerts.Target

// clear resolves the pair's unresolved alert whose last holding window
// ended before end.
func (e *Evaluator) clear(ctx context.Context, t Target, end, now time.Time, res *Result) error {
	open, err := e.Ledger.OpenAlert(ctx, t.Rule.OrgID, t.Rule.ID, t.ModelID, t.Rule.ConditionKey())
	if errors.Is(err, store.ErrNotFound) {
		return nil
	} else if err != nil {
		return err
	}
	if !end.After(open.WindowEnd) {
		return nil
	}
	resolved := false
	_, err = e.Ledger.UpdateAlertInstance(ctx, open.OrgID, open.ID, func(cur *alerts.Instance) error {
		resolved = false
		if cur.Status == alerts.StatusResolved || !end.After(cur.WindowEnd) {
			return nil // resolved meanwhile, or it held in a later window
		}
		resolved = true
		return cur.Apply(alerts.ActionAutoResolve, alerts.SystemUser, now, nil,
			"the rule no longer holds in the window ending "+end.Format(time.RFC3339))
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil // its model was deleted meanwhile
	}
	if resolved && err == nil {
		res.Resolved++
	}
	return err
}

// notify hands n to Notify, if set; a panic there is its own bug, not the
// evaluation's, and is logged.
func (e *Evaluator) notify(ctx context.Context, n Notice) {
	if e.Notify == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			e.logger().Error("alert notification panicked", "alert_id", n.Instance.ID, "panic", p)
		}
	}()
	e.Notify(ctx, n)
}

func (e *Evaluator) logger() *slog.Logger {
	if e.Logger != nil {
		return e.Logger
	}
	return slog.Default()
}

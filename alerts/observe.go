package alerts

import (
	"context"
	"fmt"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/drift"
)

// Readings is what observing a rule reads: the analytical store's
// summaries of its per-minute and per-hour rollups (analytics.Store).
type Readings interface {
	PredictionStats(ctx context.Context, orgID, modelID string, r analytics.Range) (analytics.PredictionStats, error)
	MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error)
	CompletionGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.CompletionGroup, error)
	DeadLetterCount(ctx context.Context, orgID, modelID string, r analytics.Range) (int64, error)
	LLMGroups(ctx context.Context, orgID, modelID string, r analytics.Range) ([]analytics.LLMGroup, error)
}

// ReadingsByModel is what Readings may offer besides: many models'
// prediction summaries, or values of one metric type, in one read
// (analytics.Store has it), with which an evaluation reads each window
// once per organization and tick rather than once per model
// (Observer.Know, Observer.KnowMetric).
type ReadingsByModel interface {
	PredictionStatsByModel(ctx context.Context, orgID string, modelIDs []string, r analytics.Range) (map[string]analytics.PredictionStats, error)
	MetricSummariesByModel(ctx context.Context, orgID, metricType string, modelIDs []string, r analytics.Range) (map[string]analytics.Summary, error)
}

// Findings reads the transactional store's drift reports and bias audits
// for the drift_score and fairness_score metrics.
type Findings interface {
	DriftReports(ctx context.Context, f drift.ReportFilter) ([]drift.Report, int64, error)
	BiasAudits(ctx context.Context, orgID string, f bias.Filter) ([]bias.Audit, int64, error)
}

// Observe reads each of r's conditions for the model over its window
// ending at end (a whole minute) and reports whether all of them hold.
func Observe(ctx context.Context, rd Readings, r Rule, orgID, modelID string, end time.Time) ([]Observation, bool, error) {
	return NewObserver(rd, orgID, modelID, end).Observe(ctx, r)
}

// Observer observes rules for one model over windows ending at one time,
// reading each source once per window length however many rules and
// conditions ask for it: the evaluation keeps one per model and tick.
type Observer struct {
	rd Readings
	// Findings, when set, serves the drift_score metrics; without it
	// they observe no value.
	Findings       Findings
	reports        map[int]*drift.Report
	orgID, modelID string
	end            time.Time
	stats          map[int]*analytics.PredictionStats
	llm            map[int]*analytics.CompletionGroup
	metrics        map[metricKey]*float64
}

type metricKey struct {
	metricType string
	minutes    int
}

// NewObserver returns an Observer of the model's windows ending at end.
func NewObserver(rd Readings, orgID, modelID string, end time.Time) *Observer {
	return &Observer{rd: rd, orgID: orgID, modelID: modelID, end: end, stats: map[int]*analytics.PredictionStats{},
		llm: map[int]*analytics.CompletionGroup{}, metrics: map[metricKey]*float64{}, reports: map[int]*drift.Report{}}
}

// Observe reads each of r's conditions and reports whether all of them
// hold.
func (o *Observer) Observe(ctx context.Context, r Rule) ([]Observation, bool, error) {
	out := make([]Observation, 0, len(r.Conditions))
	all := len(r.Conditions) > 0
	for _, c := range r.Conditions {
		rng := analytics.Range{From: o.end.Add(-c.Window()), To: o.end}
		v, err := o.value(ctx, c.MetricName, c.WindowMinutes, rng)
		if err != nil {
			return nil, false, fmt.Errorf("observe %s over %d minutes: %w", c.MetricName, c.WindowMinutes, err)
		}
		ob := Observation{Condition: c, Value: v, Holds: v != nil && c.Holds(*v)}
		all = all && ob.Holds
		out = append(out, ob)
	}
	return out, all, nil
}

// value observes the metric name over the window of minutes ending at
// rng.To, by the reader its catalogue entry names.
func (o *Observer) value(ctx context.Context, name string, minutes int, rng analytics.Range) (*float64, error) {
	m, param, ok := lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown metric %q", name)
	}
	return m.read.read(ctx, o, window{param: param, minutes: minutes, rng: rng})
}

// metricMean is the mean of the model's values of the metric type
// w.param in the window, nil when none was logged.
func (o *Observer) metricMean(ctx context.Context, w window) (*float64, error) {
	k := metricKey{w.param, w.minutes}
	if v, ok := o.metrics[k]; ok {
		return v, nil
	}
	f := analytics.MetricFilter{OrgID: o.orgID, ModelID: o.modelID, MetricType: w.param, Range: w.rng}
	sums, err := o.rd.MetricSeries(ctx, f, analytics.Buckets{Range: w.rng})
	if err != nil {
		return nil, err
	}
	var s *analytics.Summary
	if len(sums) > 0 {
		s = &sums[0]
	}
	o.KnowMetric(w.param, w.minutes, s)
	return o.metrics[k], nil
}

// deadLetters is the number of the model's events set aside as dead
// letters in the window.
func (o *Observer) deadLetters(ctx context.Context, w window) (*float64, error) {
	n, err := o.rd.DeadLetterCount(ctx, o.orgID, o.modelID, w.rng)
	if err != nil {
		return nil, err
	}
	return ptr(float64(n)), nil
}

// Know gives o the model's prediction summary over the window of the
// minutes ending at its end, read beforehand (ReadingsByModel): the
// conditions over that window then read nothing more.
func (o *Observer) Know(minutes int, st analytics.PredictionStats) {
	o.stats[minutes] = &st
}

// KnowMetric gives o the summary of the model's values of metricType over
// the window of the minutes ending at its end (nil: none), read
// beforehand (ReadingsByModel): its value is their mean.
func (o *Observer) KnowMetric(metricType string, minutes int, s *analytics.Summary) {
	var v *float64
	if s != nil && s.Count > 0 {
		v = ptr(s.Sum / float64(s.Count))
	}
	o.metrics[metricKey{metricType, minutes}] = v
}

func (o *Observer) predictions(ctx context.Context, minutes int, rng analytics.Range) (*analytics.PredictionStats, error) {
	if st, ok := o.stats[minutes]; ok {
		return st, nil
	}
	st, err := o.rd.PredictionStats(ctx, o.orgID, o.modelID, rng)
	if err != nil {
		return nil, err
	}
	o.stats[minutes] = &st
	return &st, nil
}

func (o *Observer) completions(ctx context.Context, minutes int, rng analytics.Range) (*analytics.CompletionGroup, error) {
	if g, ok := o.llm[minutes]; ok {
		return g, nil
	}
	groups, err := o.rd.CompletionGroups(ctx, o.orgID, o.modelID, rng)
	if err != nil {
		return nil, err
	}
	var g analytics.CompletionGroup
	for _, one := range groups {
		g.Add(one)
	}
	o.llm[minutes] = &g
	return &g, nil
}

// toxicityRate is the share of the toxicity-checked completions in the
// window that were flagged, nil when none was checked.
func (o *Observer) toxicityRate(ctx context.Context, w window) (*float64, error) {
	groups, err := o.rd.LLMGroups(ctx, o.orgID, o.modelID, w.rng)
	if err != nil {
		return nil, err
	}
	var scored, flagged int64
	for _, g := range groups {
		scored, flagged = scored+g.Scored, flagged+g.Flagged
	}
	if scored == 0 {
		return nil, nil
	}
	return ptr(float64(flagged) / float64(scored)), nil
}

// report is the model's newest data-drift report written in rng, nil
// when there is none.
func (o *Observer) report(ctx context.Context, minutes int, rng analytics.Range) (*drift.Report, error) {
	if r, ok := o.reports[minutes]; ok {
		return r, nil
	}
	if o.Findings == nil {
		return nil, nil
	}
	rs, _, err := o.Findings.DriftReports(ctx, drift.ReportFilter{OrgID: o.orgID, ModelID: o.modelID, DriftType: drift.TypeData,
		From: &rng.From, To: &rng.To, Limit: 1})
	if err != nil {
		return nil, err
	}
	var r *drift.Report
	if len(rs) > 0 {
		r = &rs[0]
	}
	o.reports[minutes] = r
	return r, nil
}

// fairness is overall_fairness_score of the model's newest completed bias
// audit, when it completed within the window.
func (o *Observer) fairness(ctx context.Context, w window) (*float64, error) {
	if o.Findings == nil {
		return nil, nil
	}
	as, _, err := o.Findings.BiasAudits(ctx, o.orgID, bias.Filter{ModelID: o.modelID, Status: bias.StatusCompleted, Limit: 1})
	if err != nil || len(as) == 0 {
		return nil, err
	}
	a := as[0]
	if a.Result == nil || a.CompletedAt == nil || a.CompletedAt.Before(w.rng.From) || !a.CompletedAt.Before(w.rng.To) {
		return nil, nil
	}
	return a.Result.Score, nil
}

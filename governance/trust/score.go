package trust

import (
	"fmt"
	"math"
	"time"
)

// Weights are the relative weights of the three inputs. Stored weights
// are the organization's configuration; a Result's are renormalized over
// the inputs that exist, so that they sum to 1 (or are all 0 when no
// input exists).
type Weights struct {
	Fairness       float64 `json:"fairness"`
	Drift          float64 `json:"drift"`
	Explainability float64 `json:"explainability"`
}

// DefaultWeights apply while an organization has no override on file.
var DefaultWeights = Weights{Fairness: 0.4, Drift: 0.4, Explainability: 0.2}

// Drift severities as drift reports grade them.
const (
	severityLow    = "low"
	severityMedium = "medium"
	severityHigh   = "high"
)

// severityCap bounds the drift component of a report whose drift was
// detected, by the report's severity: a detected drift never leaves the
// component above its cap, however few features drifted.
var severityCap = map[string]float64{severityLow: 80, severityMedium: 60, severityHigh: 30}

// DriftReading is one drift report as the trust score reads it: the
// newest report of one drift type of the model.
type DriftReading struct {
	ReportID  string
	DriftType string
	// Score is the report's overall_drift_score: the share of the tested
	// features that drifted (data and prediction reports) or the
	// metric's relative degradation (concept reports).
	Score    float64
	Severity string
	Detected bool
	At       time.Time
}

// Component maps the report to 0-100: 100 × (1 − min(1, max(0, score))),
// and, when drift was detected, at most the cap of its severity (low 80,
// medium 60, high 30).
func (r DriftReading) Component() float64 {
	c := 100 * (1 - math.Min(1, math.Max(0, r.Score)))
	if r.Detected {
		if limit, ok := severityCap[r.Severity]; ok {
			c = math.Min(c, limit)
		}
	}
	return c
}

// Inputs are what a model's trust score is computed from. A nil or empty
// input is unavailable.
type Inputs struct {
	// FairnessScore is the overall_fairness_score (0-1) of the model's
	// newest completed bias audit that has one; BiasAuditAt its
	// completion time.
	FairnessScore *float64
	BiasAuditAt   *time.Time
	// Drift holds the newest report of each drift type of the model.
	Drift []DriftReading
	// ExplainedRatio is explained_predictions_ratio (0-1): the share of
	// the model's logged predictions that carry a completed explanation
	// over the trailing window (coverage.Coverage, kept by the
	// processor role's auto-explainer); nil while none is kept (the input
	// is unavailable).
	ExplainedRatio *float64
}

// Available says which inputs exist.
type Available struct {
	Fairness       bool `json:"fairness"`
	Drift          bool `json:"drift"`
	Explainability bool `json:"explainability"`
}

// Components are the inputs mapped to 0-100; nil for an unavailable
// input.
type Components struct {
	Fairness       *float64 `json:"fairness_component"`
	Drift          *float64 `json:"drift_component"`
	Explainability *float64 `json:"explainability_component"`
}

// Result is a computed trust score.
type Result struct {
	// Score is the weighted mean of the available components, rounded to
	// 2 decimals; nil when no input with a positive weight exists.
	Score      *float64
	Components Components
	Available  Available
	// Weights are renormalized over the available inputs.
	Weights Weights
	// LastBiasAuditAt and LastDriftReportAt date the inputs read.
	LastBiasAuditAt   *time.Time
	LastDriftReportAt *time.Time
	ExplainedRatio    *float64
}

// Compute scores in under the configured weights w:
//
//	fairness_component       = 100 × overall_fairness_score
//	drift_component          = the lowest DriftReading.Component over the newest report of each drift type
//	explainability_component = 100 × explained_predictions_ratio
//	trust_score              = Σ wᵢ·cᵢ / Σ wᵢ over the available inputs i
//
// The drift mapping reads the share of drifted features (data and
// prediction reports) or the relative degradation of the quality metric
// (concept reports) as the loss of trust, and lets the severity bound it,
// so that one feature drifting badly among many still weighs; the worst
// drift type decides, as the worst metric decides a fairness score.
// explained_predictions_ratio is the share of the model's logged
// predictions of the last 7 days that have a completed explanation; the
// processor role keeps it for the models with auto_explain on
// (coverage.Coverer) and the store snapshots the score when it
// changes. Before a ratio is kept, explainability is unavailable. The weights
// answered with a score are renormalized over the available inputs (they
// sum to 1); trust_score is null when no input with a positive weight
// exists. The defaults are 0.4 fairness, 0.4 drift, 0.2 explainability.
func Compute(in Inputs, w Weights) Result {
	var r Result
	if in.FairnessScore != nil {
		r.Components.Fairness = ptr(100 * clamp01(*in.FairnessScore))
		r.Available.Fairness, r.LastBiasAuditAt = true, in.BiasAuditAt
	}
	for _, d := range in.Drift {
		c := d.Component()
		if r.Components.Drift == nil || c < *r.Components.Drift {
			r.Components.Drift = ptr(c)
		}
		if r.LastDriftReportAt == nil || d.At.After(*r.LastDriftReportAt) {
			r.LastDriftReportAt = ptr(d.At)
		}
		r.Available.Drift = true
	}
	if in.ExplainedRatio != nil {
		r.Components.Explainability = ptr(100 * clamp01(*in.ExplainedRatio))
		r.Available.Explainability, r.ExplainedRatio = true, ptr(clamp01(*in.ExplainedRatio))
	}
	var sum, total float64
	add := func(c *float64, wi float64, dst *float64) {
		if c != nil {
			*dst = wi
			sum += wi
			total += wi * *c
		}
	}
	add(r.Components.Fairness, w.Fairness, &r.Weights.Fairness)
	add(r.Components.Drift, w.Drift, &r.Weights.Drift)
	add(r.Components.Explainability, w.Explainability, &r.Weights.Explainability)
	if sum <= 0 {
		r.Weights = Weights{}
		return r
	}
	r.Weights = Weights{Fairness: r.Weights.Fairness / sum, Drift: r.Weights.Drift / sum, Explainability: r.Weights.Explainability / sum}
	r.Score = ptr(math.Round(100*total/sum) / 100)
	return r
}

// Note is the methodology_note: the formula under the weights w in force.
func Note(w Weights) string {
	return fmt.Sprintf("trust_score = (%g × fairness_component + %g × drift_component + %g × explainability_component) / "+
		"(sum of the weights of the available inputs), over the available inputs only (null when none is available). "+
		"fairness_component = 100 × overall_fairness_score of the newest completed bias audit; "+
		"drift_component = the lowest, over the newest drift report of each drift type, of 100 × (1 − overall_drift_score clamped to [0, 1]), "+
		"capped when drift was detected at 80 (low severity), 60 (medium) or 30 (high); "+
		"explainability_component = 100 × explained_predictions_ratio, the share of the model's logged predictions of the last 7 days "+
		"with a completed explanation (kept while auto_explain is on; unavailable before). "+
		"A snapshot is taken whenever an input changes (a drift report is stored, a bias audit completes or a completed one is deleted, "+
		"the explained ratio changes, the weights change).",
		w.Fairness, w.Drift, w.Explainability)
}

func clamp01(v float64) float64 { return math.Min(1, math.Max(0, v)) }

func ptr[T any](v T) *T { return &v }

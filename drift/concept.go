package drift

import (
	"fmt"
	"math"
	"slices"
)

// Sources of a concept-drift figure.
const (
	// SourceLabels: computed from logged predictions that carry their
	// label (stats/profile.Quality).
	SourceLabels = "labels"
	// SourceMetrics: the mean of the values logged with POST /metrics.
	SourceMetrics = "logged_metrics"
	// SourceBaseline: the model's baseline_metrics.
	SourceBaseline = "baseline_metrics"
)

// lowerIsBetter are the metric names, as logged or as computed from
// labels, for which a rise is the worsening; any other metric is taken to
// be better higher (accuracy, precision, recall, f1_score, auc, r2, ...).
var lowerIsBetter = []string{"error_rate", "mae", "mse", "rmse", "mape", "log_loss", "loss", "brier_score"}

// HigherIsBetter reports whether a rise of the named metric is an
// improvement, as concept_drift_config.higher_is_better is inferred.
func HigherIsBetter(metric string) bool { return !slices.Contains(lowerIsBetter, metric) }

// Figure is a quality metric's value and where it comes from.
type Figure struct {
	Value float64 `json:"value"`
	// Source is SourceLabels, SourceMetrics or SourceBaseline.
	Source string `json:"source"`
	// Samples is how many labelled predictions (SourceLabels) or logged
	// values (SourceMetrics) Value is over; 0 for a baseline.
	Samples int64 `json:"samples"`
}

// Concept is a concept-drift result: a quality metric over a recent window
// against its baseline.
type Concept struct {
	Metric         string `json:"metric"`
	HigherIsBetter bool   `json:"higher_is_better"`
	Current        Figure `json:"current"`
	Baseline       Figure `json:"baseline"`
	// Change is the relative change of the metric, (current − baseline) /
	// |baseline|, signed; the absolute change when the baseline is 0.
	Change float64 `json:"relative_change"`
	// Degradation is the change in the worsening direction, 0 when the
	// metric held or improved: the report's drift score.
	Degradation float64 `json:"degradation"`
	// Threshold is threshold_config.concept_drift: drift when Degradation
	// is at least Threshold.
	Threshold     float64  `json:"threshold"`
	DriftDetected bool     `json:"drift_detected"`
	Severity      Severity `json:"severity"`
}

// JudgeConcept compares the current figure of metric with its baseline
// under t (threshold_config: the concept-drift threshold and the severity
// cutoffs, which grade Degradation as they grade a feature's drift
// score).
func JudgeConcept(metric string, higherIsBetter bool, current, baseline Figure, t Thresholds) (Concept, error) {
	if !finiteFloat(current.Value) || !finiteFloat(baseline.Value) {
		return Concept{}, fmt.Errorf("%s is not a finite number (current %v, baseline %v)", metric, current.Value, baseline.Value)
	}
	t = t.Effective()
	c := Concept{Metric: metric, HigherIsBetter: higherIsBetter, Current: current, Baseline: baseline,
		Threshold: t.ConceptDrift, Severity: Low}
	c.Change = current.Value - baseline.Value
	if baseline.Value != 0 {
		c.Change /= math.Abs(baseline.Value)
	}
	c.Degradation = c.Change
	if higherIsBetter {
		c.Degradation = -c.Change
	}
	c.Degradation = max(c.Degradation, 0)
	c.DriftDetected = c.Degradation >= c.Threshold
	if c.DriftDetected {
		c.Severity = t.Severity.Grade(c.Degradation)
	}
	return c, nil
}

func finiteFloat(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

package fairness

// Metric names one fairness metric, as the API spells it.
//
// Without a reference group, groups are compared with each other as
// fairlearn's between_groups method does. Every Result carries fairlearn's
// figures: Difference (largest rate − smallest) and Ratio (smallest /
// largest):
//
//   - demographic_parity: selection rates; fairlearn's
//     demographic_parity_difference and demographic_parity_ratio.
//   - equal_opportunity: TPRs; fairlearn's equal_opportunity_difference and
//     equal_opportunity_ratio (MetricFrame(true_positive_rate).difference()).
//   - equalized_odds: TPRs and FPRs; fairlearn's equalized_odds_difference
//     and equalized_odds_ratio with agg="worst_case" (its default in
//     0.15.0): the larger difference and the smaller ratio.
//   - disparate_impact: selection rates; smallest / largest.
//
// The value a pass condition tests (Result.Value) and the conditions:
//
//	demographic_parity  Ratio                  passes within [0.8, 1.2]
//	equal_opportunity   Difference             passes below 0.1
//	equalized_odds      Difference             passes below 0.1 (the spec states no
//	                                           condition: Vigil uses equal opportunity's)
//	disparate_impact    Ratio                  passes at 0.8 or more
//
// Input.Thresholds replaces these numbers (zero fields keep them). The
// request's single threshold field, which the spec does not define further,
// is for the API layer to map onto them.
//
// With a reference group for an attribute (the spec's reference_group),
// every other group is compared with it instead: demographic parity tests
// each group's selection rate over the reference's against [0.8, 1.2]
// (so a group selected much more often than the reference fails too: this
// is what the bound 1.2 is for) and reports the ratio with the largest
// miss (see Score); disparate impact reports the smallest such ratio (one-sided);
// equal opportunity and equalized odds report the largest absolute
// difference from the reference's TPR (or FPR). Difference and Ratio stay
// fairlearn's between-groups figures over all groups.
//
// Result.Groups gives each group's gap: for a difference metric its largest
// difference from any compared group (between groups) or from the
// reference, for a ratio metric its rate over the highest rate or the
// reference's; the headline is the gap with the largest miss. Differences and ratios are computed from the counts, rounded once
// (exact below 2^53, every audit of fewer than 94 million rows), so a
// difference of exactly 0.1 fails "below 0.1" and a ratio of exactly 0.8
// passes "at least 0.8"; fairlearn rounds each rate first and agrees to
// within a few units in the last place.
type Metric string

// The four metrics of POST /bias/audit.
const (
	// DemographicParity compares selection rates: passes when the ratio is
	// within [0.8, 1.2].
	DemographicParity Metric = "demographic_parity"
	// EqualOpportunity compares true positive rates: passes when the
	// difference is below 0.1. Needs labels.
	EqualOpportunity Metric = "equal_opportunity"
	// EqualizedOdds compares true and false positive rates: passes when the
	// larger difference is below 0.1. Needs labels.
	EqualizedOdds Metric = "equalized_odds"
	// DisparateImpact compares selection rates: passes when the ratio is at
	// least 0.8.
	DisparateImpact Metric = "disparate_impact"
)

// Metrics lists every metric in the order reports use; an Input that names
// none audits all of them.
var Metrics = []Metric{DemographicParity, EqualOpportunity, EqualizedOdds, DisparateImpact}

// NeedsLabels reports whether the metric needs ground-truth labels.
func (m Metric) NeedsLabels() bool { return m == EqualOpportunity || m == EqualizedOdds }

// known reports whether m is one of Metrics.
func (m Metric) known() bool {
	for _, k := range Metrics {
		if m == k {
			return true
		}
	}
	return false
}

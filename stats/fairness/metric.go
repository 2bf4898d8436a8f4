package fairness

// Metric names one fairness metric, as the API spells it.
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

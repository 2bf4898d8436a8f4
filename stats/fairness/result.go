package fairness

// Result is one metric over one attribute.
type Result struct {
	// Metric is the metric.
	Metric Metric `json:"metric"`
	// Attribute names the attribute.
	Attribute string `json:"attribute"`
	// Computed is false when the metric could not be computed: Reason says why.
	Computed bool `json:"computed"`
	// Reason says why the metric was not computed ("" when it was).
	Reason string `json:"reason,omitempty"`
	// Value is the headline figure the pass condition tests: the parity or
	// impact ratio, the opportunity or odds difference.
	Value float64 `json:"value"`
	// Threshold is the number of the pass condition: the lower bound of a
	// ratio, the maximum of a difference.
	Threshold float64 `json:"threshold"`
	// Condition states the pass condition, e.g. "ratio within [0.8, 1.2]".
	Condition string `json:"condition"`
	// Passed reports whether Value meets the condition.
	Passed bool `json:"passed"`
	// Miss is how many allowances the disparity spends: 0 for none, 1 at the
	// threshold.
	Miss float64 `json:"miss"`
	// Score is the metric's fairness score in [0, 1]: 1 − 0.2·Miss.
	Score float64 `json:"score"`
	// Severity grades a failure by its Miss.
	Severity Severity `json:"severity"`
	// Difference is fairlearn's between-groups difference (largest minus
	// smallest rate; for equalized odds the larger of the TPR and FPR ones),
	// nil when the groups could not be compared.
	Difference *float64 `json:"difference"`
	// Ratio is fairlearn's between-groups ratio (smallest over largest rate;
	// for equalized odds the smaller of the two), nil when the largest rate
	// is 0.
	Ratio *float64 `json:"ratio"`
	// Reference is the reference group the groups were compared with, ""
	// when they were compared with each other.
	Reference string `json:"reference,omitempty"`
	// Worst is the group whose gap is Value, and Versus the group it was
	// compared with ("" when not computed).
	Worst  string `json:"worst_group,omitempty"`
	Versus string `json:"versus_group,omitempty"`
	// Groups has one entry per group of the attribute, in the attribute's
	// group order.
	Groups []GroupGap `json:"groups"`
}

// GroupGap is one group's standing in one metric.
type GroupGap struct {
	// Group is the group label.
	Group string `json:"group"`
	// Measure names the rate compared: selection_rate, true_positive_rate
	// or false_positive_rate (for equalized odds, the one with the larger gap).
	Measure string `json:"measure"`
	// Rate is the group's rate of Measure (null when undefined).
	Rate Rate `json:"rate"`
	// Compared is false for a group left out (its rate is undefined) and
	// for the reference group itself.
	Compared bool `json:"compared"`
	// Gap is the group's difference from, or ratio to, Versus: for a
	// difference metric the largest absolute difference to any compared
	// group (or to the reference), for a ratio metric its rate over the
	// highest rate (or the reference's). 0 when not compared.
	Gap float64 `json:"gap"`
	// Versus is the group of the comparison, and VersusRate its rate.
	Versus     string `json:"versus,omitempty"`
	VersusRate Rate   `json:"versus_rate"`
	// Passed reports whether Gap meets the metric's condition; false for a
	// group not compared.
	Passed bool `json:"passed"`
}

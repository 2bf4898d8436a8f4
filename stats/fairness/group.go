package fairness

// Group is one group of an attribute: its confusion counts and the rates
// made from them. Without labels only Count, Selected and SelectionRate are
// filled, and the other rates are undefined.
//
// A group's rates are kept as counts (Rate): selection rate
// Selected/Count, TPR = TP/(TP+FN), FPR = FP/(FP+TN), FNR, precision and
// accuracy. A rate over no rows is undefined (JSON null): the TPR and FNR of
// a group with no favourable label, its FPR with no unfavourable label, its
// precision with no favourable prediction. Groups are sorted by label
// (byte order, which is fairlearn's code-point order).
//
// Missing attribute values ("" in Values, a negative code in Codes) are left
// out of that attribute's groups and counted in AttributeReport.Missing, as
// fairlearn needs them dropped first (it refuses missing values); with
// Input.MissingGroup set they form a group of that name instead. A
// recommendation reports how many rows were left out.
//
// Small groups are audited like any other, as in fairlearn: a group of one
// row has rates of 0 or 1 and can decide a metric. Groups under
// Input.SmallGroup rows (default 30) draw a recommendation that their rates
// are unreliable. A group of no rows (an unused level, a reference group
// absent from the data) is listed with Count 0 and never compared.
type Group struct {
	// Name is the group label.
	Name string `json:"name"`
	// Count is the number of rows in the group.
	Count int64 `json:"count"`
	// Selected is the number of favourable predictions.
	Selected int64 `json:"selected"`
	// Positives is the number of favourable labels.
	Positives int64 `json:"positives"`
	// TP, FP, TN and FN are the confusion counts, favourable being positive.
	TP int64 `json:"tp"`
	FP int64 `json:"fp"`
	TN int64 `json:"tn"`
	FN int64 `json:"fn"`
	// SelectionRate is Selected/Count (fairlearn's selection_rate).
	SelectionRate Rate `json:"selection_rate"`
	// TPR is TP/(TP+FN), undefined without positive labels.
	TPR Rate `json:"true_positive_rate"`
	// FPR is FP/(FP+TN), undefined without negative labels.
	FPR Rate `json:"false_positive_rate"`
	// FNR is FN/(TP+FN), undefined without positive labels.
	FNR Rate `json:"false_negative_rate"`
	// Precision is TP/(TP+FP), undefined without favourable predictions.
	Precision Rate `json:"precision"`
	// Accuracy is (TP+TN)/Count.
	Accuracy Rate `json:"accuracy"`
}

// newGroup builds a group from its four cells.
func newGroup(name string, c [cells]int64, labelled bool) Group {
	g := Group{Name: name, Count: c[cellTN] + c[cellFP] + c[cellFN] + c[cellTP]}
	g.Selected = c[cellFP] + c[cellTP]
	g.SelectionRate = Rate{g.Selected, g.Count}
	if !labelled {
		return g
	}
	g.TP, g.FP, g.TN, g.FN = c[cellTP], c[cellFP], c[cellTN], c[cellFN]
	g.Positives = g.TP + g.FN
	g.TPR = Rate{g.TP, g.Positives}
	g.FPR = Rate{g.FP, g.FP + g.TN}
	g.FNR = Rate{g.FN, g.Positives}
	g.Precision = Rate{g.TP, g.Selected}
	g.Accuracy = Rate{g.TP + g.TN, g.Count}
	return g
}

// measure is the per-group rate a metric compares.
type measure int

const (
	selectionRate measure = iota
	truePositiveRate
	falsePositiveRate
)

// of returns the measure's rate of g.
func (m measure) of(g Group) Rate {
	switch m {
	case truePositiveRate:
		return g.TPR
	case falsePositiveRate:
		return g.FPR
	}
	return g.SelectionRate
}

// String names the measure in recommendations.
func (m measure) String() string {
	switch m {
	case truePositiveRate:
		return "true positive rate"
	case falsePositiveRate:
		return "false positive rate"
	}
	return "selection rate"
}

// key names the measure in JSON.
func (m measure) key() string {
	switch m {
	case truePositiveRate:
		return "true_positive_rate"
	case falsePositiveRate:
		return "false_positive_rate"
	}
	return "selection_rate"
}

// undefinedBecause says why a group has no rate of this measure.
func (m measure) undefinedBecause() string {
	switch m {
	case truePositiveRate:
		return "no favourable labels"
	case falsePositiveRate:
		return "no unfavourable labels"
	}
	return "no rows"
}

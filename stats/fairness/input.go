package fairness

// Input is one audit's data and settings. The zero values of the optional
// fields give the spec's behaviour: every metric, the spec's thresholds,
// groups compared with each other, missing attribute values left out.
type Input struct {
	// Attributes are the protected attributes, each audited on its own.
	// For intersectional groups pass a combined column (see Intersect).
	Attributes []Attribute
	// Pred is the prediction per row, true where it is the favourable
	// outcome (see Binary and Favourable).
	Pred []bool
	// Truth is the ground-truth label per row, true where favourable; nil
	// when the caller has no labels, which leaves equal opportunity and
	// equalized odds not computed.
	Truth []bool
	// Metrics selects the metrics; empty means all of Metrics.
	Metrics []Metric
	// Reference maps an attribute name to its reference (privileged) group:
	// that attribute's groups are then compared with it instead of with
	// each other.
	Reference map[string]string
	// Thresholds are the pass conditions; zero fields take the defaults.
	Thresholds Thresholds
	// MissingGroup, when not "", names a group that collects the rows whose
	// attribute value is missing. When "", those rows are left out of that
	// attribute's groups and counted in AttributeReport.Missing.
	MissingGroup string
	// SmallGroup is the row count under which a group draws a
	// recommendation that its rates are unreliable; 0 means 30.
	SmallGroup int
	// UndefinedAsZero counts a group's undefined true or false positive
	// rate as 0, as fairlearn does, instead of leaving the group out of
	// that comparison. For reproducing fairlearn's numbers.
	UndefinedAsZero bool
}

// defaultSmallGroup is SmallGroup's default.
const defaultSmallGroup = 30

// checked validates in and returns it with defaults resolved.
func (in Input) checked() (Input, error) {
	n := len(in.Pred)
	if n == 0 {
		return in, invalid("no predictions")
	}
	if in.Truth != nil && len(in.Truth) != n {
		return in, invalid("y_true: got %d labels, want %d (one per prediction)", len(in.Truth), n)
	}
	if len(in.Attributes) == 0 {
		return in, invalid("no protected attributes")
	}
	names := make(map[string]bool, len(in.Attributes))
	for _, a := range in.Attributes {
		if err := a.validate(n); err != nil {
			return in, err
		}
		if names[a.Name] {
			return in, invalid("attribute %q twice", a.Name)
		}
		names[a.Name] = true
	}
	for attr := range in.Reference {
		if !names[attr] {
			return in, invalid("reference group for %q, which is not an audited attribute", attr)
		}
	}
	if len(in.Metrics) == 0 {
		in.Metrics = Metrics
	}
	seen := make(map[Metric]bool, len(in.Metrics))
	for _, m := range in.Metrics {
		if !m.known() {
			return in, invalid("metric %q: want one of demographic_parity, equal_opportunity, equalized_odds, disparate_impact", m)
		}
		if seen[m] {
			return in, invalid("metric %q twice", m)
		}
		seen[m] = true
	}
	t, err := in.Thresholds.resolved()
	if err != nil {
		return in, err
	}
	in.Thresholds = t
	if in.SmallGroup <= 0 {
		in.SmallGroup = defaultSmallGroup
	}
	return in, nil
}

package bias

import (
	"encoding/json"

	"github.com/vigilhq/vigil/stats/fairness"
)

// Result is a completed audit's outcome in the spec's shape: the overall
// score and its band, whether bias was found, the results object keyed by
// metric, recommendations, plus the groups' counts per attribute. Every
// field reads back from JSON as written, so it is stored as it is answered.
type Result struct {
	// Score is overall_fairness_score, nil when no metric could be computed.
	Score *float64 `json:"overall_fairness_score"`
	// Band names Score's range ("" without a score).
	Band fairness.Band `json:"band"`
	// BiasDetected is true when a computed metric failed.
	BiasDetected bool `json:"bias_detected"`
	// Severity is none, low, medium, high or critical: the worst metric's.
	Severity string `json:"severity"`
	// Results has one entry per requested metric, keyed by its name.
	Results map[string]MetricResult `json:"results"`
	// Recommendations name group, attribute and metric of each failure,
	// then what could not be judged.
	Recommendations []string `json:"recommendations"`
	// Rows is the number of rows audited; Labelled whether y_true was known.
	Rows     int64 `json:"rows"`
	Labelled bool  `json:"labelled"`
	// Attributes has each attribute's groups with their counts and rates.
	Attributes []AttributeResult `json:"attributes"`
}

// MetricResult is one metric over every attribute: the attribute with the
// lowest score speaks for it.
type MetricResult struct {
	// Passed is true when the metric was computed and every attribute passed.
	Passed bool `json:"passed"`
	// Score is the metric's measured figure on Threshold's scale (a ratio
	// for demographic_parity and disparate_impact, a difference for
	// equal_opportunity and equalized_odds), nil when not computed: spec
	// 3's pass conditions compare it with Threshold as Comparison says, so
	// a client comparing the two gets Passed's answer. It equals Value.
	Score *float64 `json:"score"`
	// FairnessScore is the metric's fairness score in [0, 1] (1 fair), the
	// figure overall_fairness_score is made of; nil when not computed.
	FairnessScore *float64 `json:"fairness_score"`
	// Threshold is the number of the pass condition: a ratio's lower bound
	// or a difference's maximum.
	Threshold float64 `json:"threshold"`
	// ThresholdMax is demographic_parity's upper bound (nil on the others).
	ThresholdMax *float64 `json:"threshold_max"`
	// Comparison is how Score passes: at_least (Score >= Threshold),
	// below (Score < Threshold) or within (Threshold <= Score <=
	// ThresholdMax).
	Comparison string `json:"comparison"`
	// Condition states the pass condition in words.
	Condition string `json:"condition"`
	// Computed is false when the metric could not be computed; Reason says why.
	Computed bool   `json:"computed"`
	Reason   string `json:"reason,omitempty"`
	// Value is the figure the condition tests, nil when not computed.
	Value *float64 `json:"value"`
	// Severity grades a failure: none, low, medium, high or critical.
	Severity string `json:"severity"`
	// Attribute names the attribute with the lowest score.
	Attribute string `json:"attribute,omitempty"`
	// Groups maps each audited attribute to its groups' standing in this metric.
	Groups map[string][]GroupResult `json:"groups"`
}

// GroupResult is one group's standing in one metric.
type GroupResult struct {
	Group string `json:"group"`
	// Measure is selection_rate, true_positive_rate or false_positive_rate.
	Measure string `json:"measure"`
	// Rate is the group's rate, nil when undefined.
	Rate *float64 `json:"rate"`
	// Compared is false for a group left out and for the reference group.
	Compared bool `json:"compared"`
	// Gap is the group's difference from, or ratio to, Versus.
	Gap        float64  `json:"gap"`
	Versus     string   `json:"versus,omitempty"`
	VersusRate *float64 `json:"versus_rate"`
	Passed     bool     `json:"passed"`
}

// AttributeResult is one attribute's groups.
type AttributeResult struct {
	Name string `json:"name"`
	// Reference is the reference group, "" when groups were compared with
	// each other.
	Reference string `json:"reference,omitempty"`
	// Missing counts the rows left out for a missing value.
	Missing int64         `json:"missing"`
	Groups  []GroupCounts `json:"groups"`
}

// GroupCounts is a group's size and rates; rates are nil when undefined.
type GroupCounts struct {
	Group             string   `json:"group"`
	Count             int64    `json:"count"`
	Selected          int64    `json:"selected"`
	Positives         int64    `json:"positives"`
	SelectionRate     *float64 `json:"selection_rate"`
	TruePositiveRate  *float64 `json:"true_positive_rate"`
	FalsePositiveRate *float64 `json:"false_positive_rate"`
}

// NewResult builds the spec's result from a fairness report: the results
// object keyed by metric from Report.Metrics, each metric's groups from
// the attributes' results of that metric.
func NewResult(rep fairness.Report) Result {
	r := Result{BiasDetected: rep.BiasDetected, Severity: rep.Severity.String(), Band: rep.Band,
		Results: make(map[string]MetricResult, len(rep.Metrics)), Recommendations: rep.Recommendations,
		Rows: rep.Rows, Labelled: rep.Labelled, Attributes: []AttributeResult{}}
	if r.Recommendations == nil {
		r.Recommendations = []string{}
	}
	if rep.Scored {
		r.Score = &rep.Score
	}
	for k, s := range rep.Metrics {
		m := MetricResult{Passed: s.Passed, Threshold: s.Threshold, Condition: s.Condition, Computed: s.Computed,
			Reason: s.Reason, Severity: s.Severity.String(), Attribute: s.Attribute, Groups: map[string][]GroupResult{}}
		m.Comparison, m.ThresholdMax = comparison(s.Metric, s.Threshold)
		if s.Computed {
			m.Score, m.FairnessScore, m.Value = ptr(s.Value), ptr(s.Score), ptr(s.Value)
		}
		for _, a := range rep.Attributes {
			m.Groups[a.Name] = groupResults(a.Results[k].Groups)
		}
		r.Results[string(s.Metric)] = m
	}
	for _, a := range rep.Attributes {
		ar := AttributeResult{Name: a.Name, Reference: a.Reference, Missing: a.Missing, Groups: []GroupCounts{}}
		for _, g := range a.Groups {
			ar.Groups = append(ar.Groups, GroupCounts{Group: g.Name, Count: g.Count, Selected: g.Selected, Positives: g.Positives,
				SelectionRate: rate(g.SelectionRate), TruePositiveRate: rate(g.TPR), FalsePositiveRate: rate(g.FPR)})
		}
		r.Attributes = append(r.Attributes, ar)
	}
	return r
}

// Comparisons of MetricResult.Comparison.
const (
	AtLeast = "at_least"
	Below   = "below"
	Within  = "within"
)

// comparison is how metric m's figure passes threshold t, and the upper
// bound of a range (demographic parity's 2 − t, as Thresholds maps it).
func comparison(m fairness.Metric, t float64) (string, *float64) {
	switch m {
	case fairness.DemographicParity:
		return Within, ptr(decimal(2 - t))
	case fairness.DisparateImpact:
		return AtLeast, nil
	}
	return Below, nil
}

// UnmarshalJSON reads a result, also one stored before each metric's
// score was put on its threshold's scale: such a metric has no
// fairness_score and its score is the fairness score.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	if err := json.Unmarshal(b, (*plain)(r)); err != nil {
		return err
	}
	for k, m := range r.Results {
		if m.Comparison != "" {
			continue
		}
		m.Comparison, m.ThresholdMax = comparison(fairness.Metric(k), m.Threshold)
		m.FairnessScore, m.Score = m.Score, m.Value
		r.Results[k] = m
	}
	return nil
}

func groupResults(gaps []fairness.GroupGap) []GroupResult {
	out := make([]GroupResult, 0, len(gaps))
	for _, g := range gaps {
		out = append(out, GroupResult{Group: g.Group, Measure: g.Measure, Rate: rate(g.Rate), Compared: g.Compared,
			Gap: g.Gap, Versus: g.Versus, VersusRate: rate(g.VersusRate), Passed: g.Passed})
	}
	return out
}

// rate is r's value, nil when undefined.
func rate(r fairness.Rate) *float64 {
	if !r.Defined() {
		return nil
	}
	return ptr(r.Value())
}

func ptr[T any](v T) *T { return &v }

package fairness

// Report is the result of an audit.
type Report struct {
	// Rows is the number of rows audited.
	Rows int64 `json:"rows"`
	// Labelled reports whether ground-truth labels were supplied.
	Labelled bool `json:"labelled"`
	// Overall holds the counts and rates over every row.
	Overall Group `json:"overall"`
	// Attributes has one report per attribute, in input order.
	Attributes []AttributeReport `json:"attributes"`
	// Metrics summarises each requested metric over every attribute, in the
	// order of AttributeReport.Results: the spec's results object.
	Metrics []Summary `json:"metrics"`
	// Scored is false when no metric could be computed; Score and Band are
	// then zero.
	Scored bool `json:"scored"`
	// Score is overall_fairness_score: the lowest metric score.
	Score float64 `json:"overall_fairness_score"`
	// Band names Score's range.
	Band Band `json:"band,omitempty"`
	// BiasDetected reports whether any computed metric failed.
	BiasDetected bool `json:"bias_detected"`
	// Severity is the highest severity of any metric.
	Severity Severity `json:"severity"`
	// Recommendations name the group, the attribute and the metric of each
	// failure, most severe first, then notes on what could not be judged.
	Recommendations []string `json:"recommendations"`
}

// AttributeReport is the audit of one attribute.
type AttributeReport struct {
	// Name is the attribute's name.
	Name string `json:"name"`
	// Groups are the attribute's groups sorted by label; a reference group
	// that has no rows appears with Count 0.
	Groups []Group `json:"groups"`
	// Missing counts the rows left out for a missing value (0 when they
	// form Input.MissingGroup).
	Missing int64 `json:"missing"`
	// Reference is the reference group, "" when groups are compared with
	// each other.
	Reference string `json:"reference,omitempty"`
	// Results has one result per requested metric, in the order of
	// Input.Metrics (of Metrics when it names none).
	Results []Result `json:"results"`
}

// Summary is one metric over every attribute: the attribute with the
// lowest score speaks for it.
type Summary struct {
	// Metric is the metric.
	Metric Metric `json:"metric"`
	// Computed is true when at least one attribute computed the metric.
	Computed bool `json:"computed"`
	// Reason is the first attribute's reason when none computed it.
	Reason string `json:"reason,omitempty"`
	// Passed is true when every attribute that computed the metric passed.
	Passed bool `json:"passed"`
	// Attribute names the attribute with the lowest score.
	Attribute string `json:"attribute,omitempty"`
	// Value, Score and Severity are that attribute's.
	Value    float64  `json:"value"`
	Score    float64  `json:"score"`
	Severity Severity `json:"severity"`
	// Threshold and Condition state the pass condition.
	Threshold float64 `json:"threshold"`
	Condition string  `json:"condition"`
}

// summarise builds the per-metric summaries and the overall score.
func (r *Report) summarise(metrics []Metric) {
	for k, m := range metrics {
		s := Summary{Metric: m, Passed: true}
		for _, a := range r.Attributes {
			res := a.Results[k]
			s.Threshold, s.Condition = res.Threshold, res.Condition
			if !res.Computed {
				if s.Reason == "" {
					s.Reason = res.Reason
				}
				continue
			}
			s.Passed = s.Passed && res.Passed
			if !s.Computed || res.Score < s.Score {
				s.Attribute, s.Value, s.Score = res.Attribute, res.Value, res.Score
			}
			s.Computed = true
			s.Severity = max(s.Severity, res.Severity)
		}
		if s.Computed {
			s.Reason = ""
			r.BiasDetected = r.BiasDetected || !s.Passed
			r.Severity = max(r.Severity, s.Severity)
			if !r.Scored || s.Score < r.Score {
				r.Score = s.Score
			}
			r.Scored = true
		} else {
			s.Passed = false
		}
		r.Metrics = append(r.Metrics, s)
	}
	if r.Scored {
		r.Band = BandOf(r.Score)
	}
}

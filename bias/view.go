package bias

import "time"

// view is an audit as the API answers it: the spec's result fields at the
// top, null (score, bias_detected, severity, band) or empty (results,
// recommendations) until the audit has completed.
type view struct {
	ID                  string                  `json:"id"`
	ModelID             string                  `json:"model_id"`
	Status              Status                  `json:"status"`
	ProtectedAttributes []string                `json:"protected_attributes"`
	Score               *float64                `json:"overall_fairness_score"`
	Band                *string                 `json:"band"`
	BiasDetected        *bool                   `json:"bias_detected"`
	Severity            *string                 `json:"severity"`
	Results             map[string]MetricResult `json:"results"`
	Recommendations     []string                `json:"recommendations"`
	Attributes          []AttributeResult       `json:"attributes"`
	Labelled            *bool                   `json:"labelled"`
	Request             Summary                 `json:"request"`
	Error               *string                 `json:"error"`
	CreatedAt           time.Time               `json:"created_at"`
	UpdatedAt           time.Time               `json:"updated_at"`
	CompletedAt         *time.Time              `json:"completed_at"`
}

func newView(a Audit) view {
	v := view{ID: a.ID, ModelID: a.ModelID, Status: a.Status, ProtectedAttributes: a.Request.Attributes,
		Results: map[string]MetricResult{}, Recommendations: []string{}, Attributes: []AttributeResult{},
		Request: a.Request, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt, CompletedAt: a.CompletedAt}
	if a.Error != "" {
		v.Error = &a.Error
	}
	if r := a.Result; r != nil {
		v.Score, v.BiasDetected, v.Severity, v.Labelled = r.Score, &r.BiasDetected, &r.Severity, &r.Labelled
		v.Results, v.Recommendations, v.Attributes = r.Results, r.Recommendations, r.Attributes
		if r.Band != "" {
			b := string(r.Band)
			v.Band = &b
		}
	}
	return v
}

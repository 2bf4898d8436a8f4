package bias

import (
	"fmt"
	"slices"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/fairness"
)

// body is POST /bias/audit's body: the fields of both forms. Which are
// present decides the form (see formOf). C is the type an array of the
// label-supplied form decodes into: *values, read straight into codes, or
// []any, the generic reading that answers every body *values refuses.
type body[C any] struct {
	ModelID         string            `json:"model_id"`
	Threshold       *float64          `json:"threshold"`
	ReferenceGroup  map[string]string `json:"reference_group"`
	FavourableLabel any               `json:"favourable_label"`

	ProtectedAttributes []string `json:"protected_attributes"`
	Metrics             []string `json:"metrics"`
	PredictionField     *string  `json:"prediction_field"`
	LabelField          *string  `json:"label_field"`
	StartDate           *string  `json:"start_date"`
	EndDate             *string  `json:"end_date"`

	SensitiveAttributes []string     `json:"sensitive_attributes"`
	YTrue               C            `json:"y_true"`
	YPred               C            `json:"y_pred"`
	GroupData           map[string]C `json:"group_data"`
	MetricsToCompute    []string     `json:"metrics_to_compute"`
}

// request is a body whose arrays are values, whichever way it was read.
type request body[*values]

// readBody decodes raw as web.DecodeBody does. The label-supplied form's
// arrays, megabytes of labels, are read straight into values; a body that
// reading refuses for any reason is decoded again into []any, whose answer
// (every 400 and 422, the field named) is the answer, so the typed reading
// changes no answer, only the time and memory an accepted body takes.
func readBody(raw []byte) (request, error) {
	var typed body[*values]
	if web.DecodeBody(raw, &typed) == nil {
		return request(typed), nil
	}
	return readGeneric(raw)
}

// readGeneric is readBody's generic reading, the arrays decoded into []any.
func readGeneric(raw []byte) (request, error) {
	var b body[[]any]
	if err := web.DecodeBody(raw, &b); err != nil {
		return request{}, err
	}
	r := request{ModelID: b.ModelID, Threshold: b.Threshold, ReferenceGroup: b.ReferenceGroup,
		FavourableLabel: b.FavourableLabel, ProtectedAttributes: b.ProtectedAttributes, Metrics: b.Metrics,
		PredictionField: b.PredictionField, LabelField: b.LabelField, StartDate: b.StartDate, EndDate: b.EndDate,
		SensitiveAttributes: b.SensitiveAttributes, YTrue: generic(b.YTrue), YPred: generic(b.YPred),
		MetricsToCompute: b.MetricsToCompute}
	if b.GroupData != nil {
		r.GroupData = make(map[string]*values, len(b.GroupData))
		for name, col := range b.GroupData {
			r.GroupData[name] = generic(col)
		}
	}
	return r, nil
}

// Defaults of the logged-predictions form.
const (
	// DefaultPredictionField is the output_data field holding the prediction.
	DefaultPredictionField = eventlog.PredictionField
	// MaxRows is the default bound on the rows of one audit
	// (Runner.MaxRows): the logged-predictions form reads the newest
	// MaxRows in the requested range, the label-supplied form may send no
	// more.
	MaxRows = 1_000_000
	// maxAttributes bounds the protected attributes of one audit.
	maxAttributes = 20
)

// DefaultLabelFields are the fields that hold a logged prediction's ground
// truth, looked up in metadata, then input_data, in this order.
var DefaultLabelFields = eventlog.LabelFields

// Plan is a checked request: what to store and what to compute.
type Plan struct {
	ModelID string
	Summary Summary
	// Input holds the settings (metrics, reference groups, thresholds) and,
	// for the label-supplied form, the data.
	Input fairness.Input
	// MaxRows bounds the logged predictions read (0: MaxRows).
	MaxRows int
}

// ParseRequest reads and checks a POST /bias/audit body. Unknown fields,
// fields of the other form and invalid values answer 422 naming the field;
// malformed JSON answers 400.
//
// Both forms share one route and are told apart by their fields:
// any of sensitive_attributes, y_true, y_pred, group_data or
// metrics_to_compute makes the label-supplied form, which then may hold
// no field of the logged-predictions form (protected_attributes, metrics,
// prediction_field, label_field, start_date, end_date), and the other way
// round; the first such field is named in a 422. model_id, threshold,
// reference_group and favourable_label belong to both.
//
// The label-supplied form takes its arrays from the body: y_pred sets the
// row count, at most Runner.MaxRows; y_true and every group_data column
// must match it (a 422 names the array whose length differs).
//
// The logged-predictions form reads the model's stored predictions through
// analytics.Store.EachPrediction: the newest Runner.MaxRows (VIGIL_BIAS_MAX_ROWS,
// default MaxRows, 1,000,000) within start_date and end_date. Per prediction, each protected attribute is
// input_data's top-level field of that name, else metadata's (absent,
// null, an object or an array is a missing value); the prediction is
// output_data's prediction_field (default "prediction"), or output_data
// itself when it is not an object (predictions without one are skipped
// and counted); the label is metadata's, else input_data's, field "label",
// then "y_true" (or label_field). Label-based metrics need every audited
// prediction labelled: otherwise they are reported not computed, with a
// recommendation saying how many were.
//
// Outcomes: with favourable_label, a prediction or label is favourable
// exactly when it equals it (same JSON type); without, 1 and true are
// favourable, 0 and false unfavourable and anything else is an error.
func ParseRequest(raw []byte) (Plan, error) {
	b, err := readBody(raw)
	if err != nil {
		return Plan{}, err
	}
	return b.plan()
}

// plan checks a body read.
func (b request) plan() (Plan, error) {
	form, err := b.form()
	if err != nil {
		return Plan{}, err
	}
	var v web.Problems
	v.Required("model_id", b.ModelID)
	p := Plan{ModelID: b.ModelID, Summary: Summary{Form: form, Threshold: b.Threshold, Reference: b.ReferenceGroup,
		Favourable: b.FavourableLabel}}
	if b.Threshold != nil && !validThreshold(*b.Threshold) {
		v.Add("threshold", fmt.Sprintf("got %v, want a ratio between 0 and 1 exclusive (default 0.8)", *b.Threshold))
	}
	if _, ok := labelOf(b.FavourableLabel); !ok {
		v.Add("favourable_label", "must be a string, a number or a boolean")
	}
	attrsField, metricsField := "protected_attributes", "metrics"
	attrs, metrics := b.ProtectedAttributes, b.Metrics
	if form == FormLabels {
		attrsField, metricsField = "sensitive_attributes", "metrics_to_compute"
		attrs, metrics = b.SensitiveAttributes, b.MetricsToCompute
	}
	p.Summary.Attributes = checkNames(&v, attrsField, attrs)
	p.Summary.Metrics = checkMetrics(&v, metricsField, metrics)
	for attr, group := range b.ReferenceGroup {
		switch {
		case !slices.Contains(attrs, attr):
			v.Add("reference_group."+attr, "is not one of "+attrsField)
		case group == "":
			v.Add("reference_group."+attr, "must name a group")
		}
	}
	p.Input = fairness.Input{Reference: b.ReferenceGroup, Thresholds: Thresholds(b.Threshold)}
	for _, m := range p.Summary.Metrics {
		p.Input.Metrics = append(p.Input.Metrics, fairness.Metric(m))
	}
	if form == FormLabels {
		b.labelData(&v, &p)
	} else {
		b.predictionSource(&v, &p)
	}
	return p, v.Err()
}

// labelOnly and predictionOnly are the fields of one form alone.
var (
	labelOnly      = []string{"sensitive_attributes", "y_true", "y_pred", "group_data", "metrics_to_compute"}
	predictionOnly = []string{"protected_attributes", "metrics", "prediction_field", "label_field", "start_date", "end_date"}
)

// present lists the form-specific fields b holds, by name.
func (b request) present() map[string]bool {
	return map[string]bool{
		"sensitive_attributes": b.SensitiveAttributes != nil, "y_true": b.YTrue != nil, "y_pred": b.YPred != nil,
		"group_data": b.GroupData != nil, "metrics_to_compute": b.MetricsToCompute != nil,
		"protected_attributes": b.ProtectedAttributes != nil, "metrics": b.Metrics != nil,
		"prediction_field": b.PredictionField != nil, "label_field": b.LabelField != nil,
		"start_date": b.StartDate != nil, "end_date": b.EndDate != nil,
	}
}

// form tells the two forms apart: any label-supplied field makes it the
// label-supplied form, and then no field of the other form may appear.
func (b request) form() (string, error) {
	has := b.present()
	first := func(fields []string) string {
		for _, f := range fields {
			if has[f] {
				return f
			}
		}
		return ""
	}
	l, p := first(labelOnly), first(predictionOnly)
	switch {
	case l != "" && p != "":
		return "", web.Invalid(p, fmt.Sprintf("belongs to the logged-predictions form, but %s is of the label-supplied form: send one form", l))
	case l != "":
		return FormLabels, nil
	}
	return FormPredictions, nil
}

// checkNames checks a list of attribute names: at least one, none blank or
// repeated.
func checkNames(v *web.Problems, field string, names []string) []string {
	switch {
	case len(names) == 0:
		v.Add(field, "is required: name at least one attribute")
	case len(names) > maxAttributes:
		v.Add(field, fmt.Sprintf("got %d attributes, want at most %d", len(names), maxAttributes))
	}
	for i, n := range names {
		if n == "" || slices.Contains(names[:i], n) {
			v.Add(field, fmt.Sprintf("%q at %d: want unique, non-empty names", n, i))
		}
	}
	return names
}

// checkMetrics checks the metric names; none means all four.
func checkMetrics(v *web.Problems, field string, names []string) []string {
	if len(names) == 0 {
		out := make([]string, 0, len(fairness.Metrics))
		for _, m := range fairness.Metrics {
			out = append(out, string(m))
		}
		return out
	}
	for i, n := range names {
		if !slices.Contains(fairness.Metrics, fairness.Metric(n)) || slices.Contains(names[:i], n) {
			v.Add(field, fmt.Sprintf("%q: want each of demographic_parity, equal_opportunity, equalized_odds, disparate_impact at most once", n))
		}
	}
	return names
}

// predictionSource checks the logged-predictions form's own fields.
func (b request) predictionSource(v *web.Problems, p *Plan) {
	p.Summary.PredictionField, p.Summary.LabelFields = DefaultPredictionField, DefaultLabelFields
	if b.PredictionField != nil {
		v.Required("prediction_field", *b.PredictionField)
		p.Summary.PredictionField = *b.PredictionField
	}
	if b.LabelField != nil {
		v.Required("label_field", *b.LabelField)
		p.Summary.LabelFields = []string{*b.LabelField}
	}
	p.Summary.Start = timeField(v, "start_date", b.StartDate)
	p.Summary.End = timeField(v, "end_date", b.EndDate)
	if s, e := p.Summary.Start, p.Summary.End; s != nil && e != nil && !s.Before(*e) {
		v.Add("end_date", "must be after start_date")
	}
}

// timeField parses a date-time, nil when absent.
func timeField(v *web.Problems, field string, s *string) *time.Time {
	t := v.Time(field, s)
	if s == nil || t.IsZero() {
		return nil
	}
	return &t
}

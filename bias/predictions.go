package bias

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/stats/fairness"
)

// Logged is what the logged-predictions form read: the columns for
// fairness.Input and the counts reported beside the result.
type Logged struct {
	Attributes []fairness.Attribute
	Pred       []bool
	// Truth is nil unless every row read carries a label.
	Truth []bool
	// Labelled counts the rows that carry a label; Skipped the predictions
	// left out because their output_data holds no prediction.
	Labelled, Skipped int64
}

// row is one logged prediction's fields that an audit reads.
type row struct {
	input, metadata map[string]json.RawMessage
	output          json.RawMessage
}

// newRow splits a prediction's JSON documents; a document that is not an
// object has no fields (output_data then is the prediction itself).
func newRow(p eventlog.Prediction) row {
	r := row{output: p.OutputData}
	_ = json.Unmarshal(p.InputData, &r.input)
	_ = json.Unmarshal(p.Metadata, &r.metadata)
	return r
}

// field returns the decoded value of name in input_data, else metadata
// (first is true), or in metadata, else input_data; nil when absent.
func (r row) field(name string, inputFirst bool) any {
	docs := [2]map[string]json.RawMessage{r.input, r.metadata}
	if !inputFirst {
		docs[0], docs[1] = docs[1], docs[0]
	}
	for _, d := range docs {
		if raw, ok := d[name]; ok {
			var v any
			if json.Unmarshal(raw, &v) == nil && v != nil {
				return v
			}
		}
	}
	return nil
}

// prediction returns output_data's field, or output_data itself when it
// is not an object; nil when there is none.
func (r row) prediction(field string) any {
	var out any
	if json.Unmarshal(r.output, &out) != nil {
		return nil
	}
	if obj, ok := out.(map[string]any); ok {
		return obj[field]
	}
	return out
}

// ReadLogged reads the newest p.MaxRows (default MaxRows) predictions of
// the model in the plan's range from qs. Each protected attribute comes
// from input_data, else metadata (a missing value when in neither or not
// a scalar); the prediction from output_data's prediction field; the
// label from metadata, else input_data, under the first label field
// present. An unusable prediction or label fails the audit with a reason
// naming the prediction.
func ReadLogged(ctx context.Context, qs analytics.Store, orgID string, p Plan) (Logged, error) {
	s := p.Summary
	f := analytics.PredictionFilter{OrgID: orgID, ModelID: p.ModelID, Limit: p.rowLimit()}
	if s.Start != nil {
		f.Range.From = *s.Start
	}
	if s.End != nil {
		f.Range.To = *s.End
	}
	var out Logged
	values := make([][]string, len(s.Attributes))
	var labels []bool
	for pr, err := range qs.EachPrediction(ctx, f) {
		if err != nil {
			return out, fmt.Errorf("read logged predictions: %w", err)
		}
		r := newRow(pr)
		pv := r.prediction(s.PredictionField)
		if pv == nil {
			out.Skipped++
			continue
		}
		fav, err := Outcome(pv, s.Favourable)
		if err != nil {
			return out, fmt.Errorf("prediction %s, output_data.%s: %w", pr.PredictionID, s.PredictionField, err)
		}
		out.Pred = append(out.Pred, fav)
		for i, name := range s.Attributes {
			l, _ := labelOf(r.field(name, true))
			values[i] = append(values[i], l)
		}
		if lv := r.label(s.LabelFields); lv != nil {
			ok, err := Outcome(lv, s.Favourable)
			if err != nil {
				return out, fmt.Errorf("prediction %s, label: %w", pr.PredictionID, err)
			}
			labels = append(labels, ok)
			out.Labelled++
		}
	}
	if out.Labelled > 0 && out.Labelled == int64(len(out.Pred)) {
		out.Truth = labels
	}
	for i, name := range s.Attributes {
		out.Attributes = append(out.Attributes, fairness.Attribute{Name: name, Values: values[i]})
	}
	return out, nil
}

// label returns the first label field's value, metadata first; nil when
// the prediction carries none.
func (r row) label(fields []string) any {
	for _, f := range fields {
		if v := r.field(f, false); v != nil {
			return v
		}
	}
	return nil
}

// rowLimit is the logged predictions an audit reads at most.
func (p Plan) rowLimit() int { return orDefault(p.MaxRows, MaxRows) }

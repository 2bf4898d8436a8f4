package bias

import (
	"context"
	"encoding/json"
	"iter"
	"reflect"
	"testing"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/stats/fairness"
)

// fakePredictions serves EachPrediction from a slice; the other methods of
// analytics.Store are not called by the audit.
type fakePredictions struct {
	analytics.Store
	rows []eventlog.Prediction
	got  analytics.PredictionFilter
}

func (f *fakePredictions) EachPrediction(_ context.Context, pf analytics.PredictionFilter) iter.Seq2[eventlog.Prediction, error] {
	f.got = pf
	return func(yield func(eventlog.Prediction, error) bool) {
		for _, p := range f.rows {
			if !yield(p, nil) {
				return
			}
		}
	}
}

// logged is a prediction with the three JSON documents.
func logged(id, input, output, metadata string) eventlog.Prediction {
	return eventlog.Prediction{PredictionID: id, InputData: json.RawMessage(input), OutputData: json.RawMessage(output),
		Metadata: json.RawMessage(metadata)}
}

// plan parses a logged-predictions request, failing the test on error.
func plan(t *testing.T, body string) Plan {
	t.Helper()
	p, err := ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest: got error %v, want nil", err)
	}
	return p
}

func TestReadLogged(t *testing.T) {
	qs := &fakePredictions{rows: []eventlog.Prediction{
		logged("p1", `{"gender": "f", "age": 30, "label": 1}`, `{"prediction": 1}`, `{}`),
		logged("p2", `{"age": 41}`, `{"prediction": 0}`, `{"gender": "m", "label": 0}`),
		logged("p3", `{"gender": null}`, `true`, `{"y_true": true}`),
		logged("p4", `{"gender": {"x": 1}}`, `{"score": 0.3}`, `{"label": 1}`),
		logged("p5", `{"gender": "f"}`, `{"prediction": false}`, `{"label": 0}`),
	}}
	p := plan(t, `{"model_id": "m1", "protected_attributes": ["gender", "age"], "start_date": "2025-01-01T00:00:00Z"}`)
	l, err := ReadLogged(t.Context(), qs, "o1", p)
	if err != nil {
		t.Fatalf("ReadLogged: got error %v, want nil", err)
	}
	want := Logged{Attributes: []fairness.Attribute{{Name: "gender", Values: []string{"f", "m", "", "f"}}, {Name: "age", Values: []string{"30", "41", "", ""}}},
		Pred: []bool{true, false, true, false}, Truth: []bool{true, false, true, false}, Labelled: 4, Skipped: 1}
	if !reflect.DeepEqual(l, want) {
		t.Errorf("got %+v, want %+v", l, want)
	}
	if f := qs.got; f.OrgID != "o1" || f.ModelID != "m1" || f.Limit != MaxRows || f.Range.From.IsZero() || !f.Range.To.IsZero() {
		t.Errorf("got filter %+v, want org o1, model m1, limit %d, from start_date", f, MaxRows)
	}

	// Without a label on every row, label-based metrics are not computed.
	qs.rows = append(qs.rows, logged("p6", `{"gender": "m"}`, `{"prediction": 1}`, `{}`))
	var sum Summary
	res, _, err := Execute(t.Context(), qs, "o1", p, &sum)
	if err != nil {
		t.Fatalf("Execute: got error %v, want nil", err)
	}
	if res.Labelled || res.Results["equal_opportunity"].Computed || sum.Rows != 5 || sum.Skipped != 1 {
		t.Errorf("partly labelled: got labelled %v, equal_opportunity computed %v, rows %d skipped %d, want false, false, 5, 1",
			res.Labelled, res.Results["equal_opportunity"].Computed, sum.Rows, sum.Skipped)
	}

	// A prediction that is not 0/1 without favourable_label fails the audit, naming it.
	qs.rows = append(qs.rows, logged("p7", `{}`, `{"prediction": "approve"}`, `{}`))
	if _, _, err := Execute(t.Context(), qs, "o1", p, &sum); err == nil {
		t.Errorf("prediction approve: got no error, want one naming p7")
	}
	p = plan(t, `{"model_id": "m1", "protected_attributes": ["gender"], "favourable_label": "approve", "label_field": "outcome"}`)
	if res, _, err = Execute(t.Context(), qs, "o1", p, &sum); err != nil || res.Rows != 6 || res.Labelled {
		t.Errorf("favourable_label approve: got %+v, %v, want 6 rows unlabelled", res, err)
	}
	qs.rows = nil
	if _, _, err := Execute(t.Context(), qs, "o1", p, &sum); err == nil {
		t.Errorf("no predictions: got no error, want one")
	}
}

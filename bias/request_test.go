package bias

import (
	"errors"
	"reflect"
	"testing"

	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/stats/fairness"
)

// wantField fails the test unless err is a 422 naming field.
func wantField(t *testing.T, err error, field string) {
	t.Helper()
	var e *web.Error
	if !errors.As(err, &e) || e.Status != 422 {
		t.Fatalf("got error %v, want a 422 naming %q", err, field)
	}
	if _, ok := e.Details[field]; !ok {
		t.Fatalf("got details %v, want one naming %q", e.Details, field)
	}
}

func TestParseRequestForms(t *testing.T) {
	for _, tc := range []struct {
		name, body, form string
	}{
		{"logged", `{"model_id": "m", "protected_attributes": ["gender"]}`, FormPredictions},
		{"logged with every field", `{"model_id": "m", "protected_attributes": ["gender"], "metrics": ["disparate_impact"], "threshold": 0.9,
			"reference_group": {"gender": "m"}, "prediction_field": "p", "label_field": "y", "start_date": "2025-01-01T00:00:00Z",
			"end_date": "2025-02-01T00:00:00Z", "favourable_label": "approve"}`, FormPredictions},
		{"labels", `{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}}`, FormLabels},
	} {
		p, err := ParseRequest([]byte(tc.body))
		if err != nil {
			t.Fatalf("%s: got error %v, want nil", tc.name, err)
		}
		if p.Summary.Form != tc.form {
			t.Errorf("%s: got form %q, want %q", tc.name, p.Summary.Form, tc.form)
		}
	}
}

func TestParseRequestLabels(t *testing.T) {
	p, err := ParseRequest([]byte(`{"model_id": "m", "sensitive_attributes": ["g", "age"], "y_pred": [true, false, 1, 0],
		"y_true": [1, 1, 0, 0], "group_data": {"g": ["a", "b", null, ""], "age": [30, 40.5, true, "x"]},
		"metrics_to_compute": ["equal_opportunity"], "threshold": 0.9, "reference_group": {"g": "a"}}`))
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	want := fairness.Input{
		Attributes: []fairness.Attribute{{Name: "g", Levels: []string{"a", "b"}, Codes: []int32{0, 1, -1, -1}},
			{Name: "age", Levels: []string{"30", "40.5", "true", "x"}, Codes: []int32{0, 1, 2, 3}}},
		Pred: []bool{true, false, true, false}, Truth: []bool{true, true, false, false},
		Metrics: []fairness.Metric{fairness.EqualOpportunity}, Reference: map[string]string{"g": "a"}, Thresholds: Thresholds(ptr(0.9)),
	}
	if !reflect.DeepEqual(p.Input, want) {
		t.Errorf("got input %+v, want %+v", p.Input, want)
	}
	if p.Summary.Rows != 4 || !reflect.DeepEqual(p.Summary.Attributes, []string{"g", "age"}) || p.Summary.Metrics[0] != "equal_opportunity" {
		t.Errorf("got summary %+v, want 4 rows of g and age, equal_opportunity", p.Summary)
	}
	fav, err := ParseRequest([]byte(`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": ["yes", "no", 1],
		"group_data": {"g": ["a", "b", "a"]}, "favourable_label": "yes"}`))
	if err != nil || !reflect.DeepEqual(fav.Input.Pred, []bool{true, false, false}) || fav.Input.Truth != nil {
		t.Errorf("favourable_label yes: got pred %v truth %v (%v), want [true false false] and nil", fav.Input.Pred, fav.Input.Truth, err)
	}
	if len(fav.Input.Metrics) != 4 {
		t.Errorf("no metrics named: got %v, want all four", fav.Input.Metrics)
	}
}

func TestParseRequestLogged(t *testing.T) {
	p, err := ParseRequest([]byte(`{"model_id": "m", "protected_attributes": ["gender"]}`))
	if err != nil {
		t.Fatalf("got error %v, want nil", err)
	}
	s := p.Summary
	if s.PredictionField != "prediction" || !reflect.DeepEqual(s.LabelFields, []string{"label", "y_true"}) || s.Start != nil || p.Input.Pred != nil {
		t.Errorf("got summary %+v, want the defaults", s)
	}
	p, err = ParseRequest([]byte(`{"model_id": "m", "protected_attributes": ["gender"], "label_field": "outcome", "start_date": "2025-01-01T01:00:00+01:00"}`))
	if err != nil || !reflect.DeepEqual(p.Summary.LabelFields, []string{"outcome"}) || p.Summary.Start.Hour() != 0 {
		t.Errorf("got %+v (%v), want label field outcome, start 00:00 UTC", p.Summary, err)
	}
}

func TestParseRequestInvalid(t *testing.T) {
	labels := `"model_id": "m", "sensitive_attributes": ["g"], "group_data": {"g": ["a", "b"]}`
	for _, tc := range []struct {
		body, field string
	}{
		{`{"model_id": "m"}`, "protected_attributes"},
		{`{"protected_attributes": ["g"]}`, "model_id"},
		{`{"model_id": "m", "protected_attributes": ["g"], "colour": 1}`, "colour"},
		{`{"model_id": "m", "protected_attributes": ["g"], "y_pred": [1]}`, "protected_attributes"},
		{`{` + labels + `, "y_pred": [1, 0], "metrics": ["disparate_impact"]}`, "metrics"},
		{`{` + labels + `}`, "y_pred"},
		{`{` + labels + `, "y_pred": [1, 2]}`, "y_pred"},
		{`{` + labels + `, "y_pred": [1, null]}`, "y_pred"},
		{`{` + labels + `, "y_pred": [1, 0, 1]}`, "group_data.g"},
		{`{` + labels + `, "y_pred": [1, 0], "y_true": [1]}`, "y_true"},
		{`{` + labels + `, "y_pred": [1, 0], "y_true": [1, 0, 1]}`, "y_true"},
		{`{"model_id": "m", "sensitive_attributes": ["g", "h"], "group_data": {"g": ["a", "b"]}, "y_pred": [1, 0]}`, "group_data.h"},
		{`{"model_id": "m", "sensitive_attributes": ["g"], "group_data": {"g": ["a", "b"], "x": [1, 2]}, "y_pred": [1, 0]}`, "group_data.x"},
		{`{"model_id": "m", "sensitive_attributes": ["g"], "group_data": {"g": ["a", [1]]}, "y_pred": [1, 0]}`, "group_data.g"},
		{`{` + labels + `, "y_pred": [1, 0], "metrics_to_compute": ["accuracy"]}`, "metrics_to_compute"},
		{`{"model_id": "m", "protected_attributes": ["g", "g"]}`, "protected_attributes"},
		{`{"model_id": "m", "protected_attributes": ["g"], "threshold": 1}`, "threshold"},
		{`{"model_id": "m", "protected_attributes": ["g"], "threshold": 0}`, "threshold"},
		{`{"model_id": "m", "protected_attributes": ["g"], "reference_group": {"h": "a"}}`, "reference_group.h"},
		{`{"model_id": "m", "protected_attributes": ["g"], "favourable_label": {"a": 1}}`, "favourable_label"},
		{`{"model_id": "m", "protected_attributes": ["g"], "start_date": "yesterday"}`, "start_date"},
		{`{"model_id": "m", "protected_attributes": ["g"], "start_date": "2025-02-01T00:00:00Z", "end_date": "2025-01-01T00:00:00Z"}`, "end_date"},
		{`{"model_id": "m", "protected_attributes": ["g"], "prediction_field": ""}`, "prediction_field"},
	} {
		_, err := ParseRequest([]byte(tc.body))
		wantField(t, err, tc.field)
	}
}

func TestThresholds(t *testing.T) {
	f := func(in *float64, want fairness.Thresholds) {
		t.Helper()
		if got := Thresholds(in); got != want {
			t.Errorf("Thresholds(%v): got %+v, want %+v", in, got, want)
		}
	}
	f(nil, fairness.Thresholds{})
	f(ptr(0.8), fairness.Thresholds{ParityMin: 0.8, ParityMax: 1.2, ImpactMin: 0.8, OpportunityMax: 0.1, OddsMax: 0.1})
	f(ptr(0.7), fairness.Thresholds{ParityMin: 0.7, ParityMax: 1.3, ImpactMin: 0.7, OpportunityMax: 0.15, OddsMax: 0.15})
	f(ptr(0.9), fairness.Thresholds{ParityMin: 0.9, ParityMax: 1.1, ImpactMin: 0.9, OpportunityMax: 0.05, OddsMax: 0.05})
}

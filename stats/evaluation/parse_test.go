package evaluation

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseRequestErrors(t *testing.T) {
	tests := []struct {
		name, body, field, reason string
	}{
		{"not an object", `[1,2]`, "body", "must be a JSON object"},
		{"not json", `{"y_true":`, "body", "must be a JSON object"},
		{"null label", `{"y_true":[1,null]}`, "y_true", "element 1 is null"},
		{"null string label", `{"y_true":["a",null]}`, "y_true", "element 1 is null"},
		{"boolean label", `{"y_true":[true,false]}`, "y_true", "element 0 is a boolean"},
		{"mixed labels", `{"y_pred":[1,"a"]}`, "y_pred", "element 1 is a string but element 0 is a number"},
		{"nested label", `{"labels":[[1]]}`, "labels", "element 0 is an array or object"},
		{"labels not array", `{"labels":"a"}`, "labels", "must be an array"},
		{"y_score null", `{"y_score":[0.1,null]}`, "y_score", "contains null"},
		{"y_score strings", `{"y_score":["0.1"]}`, "y_score", "must be an array of numbers"},
		{"y_prob null", `{"y_prob":[[0.1,0.9],null]}`, "y_prob", "contains null"},
		{"y_prob null cell", `{"y_prob":[[0.1,null]]}`, "y_prob", "contains null"},
		{"y_prob flat", `{"y_prob":[0.1,0.9]}`, "y_prob", "must be an array of arrays"},
		{"metric_types", `{"metric_types":"accuracy"}`, "metric_types", "must be an array"},
		{"average", `{"average":1}`, "average", "must be a string"},
		{"pos_label", `{"pos_label":{"a":1}}`, "pos_label", "must be a number or a string"},
		{"pos_label bool", `{"pos_label":true}`, "pos_label", "must be a number or a string"},
		{"huge number", `{"y_true":[1e400]}`, "y_true", "must be an array of numbers or of strings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseRequest([]byte(tt.body))
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("got %v, want *FieldError on %s", err, tt.field)
			}
			if fe.Field != tt.field || !strings.Contains(fe.Reason, tt.reason) {
				t.Errorf("got %q, want field %s with %q", err, tt.field, tt.reason)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
		})
	}
}

func TestParseRequest(t *testing.T) {
	body := `{"model_id":"m1","y_true":["spam","ham"],"y_pred":["ham","ham"],"y_score":[0.9,0.2],
		"metric_types":["accuracy","roc_auc"],"average":"binary","pos_label":"spam","labels":["ham","spam"],"y_prob":null}`
	got, err := ParseRequest([]byte(body))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	want := Request{
		YTrue: strs("spam", "ham"), YPred: strs("ham", "ham"), YScore: []float64{0.9, 0.2},
		Metrics: []string{"accuracy", "roc_auc"}, Average: "binary", PosLabel: slbl("spam"), Labels: strs("ham", "spam"),
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Absent and null fields stay absent; an empty array is present.
	got, err = ParseRequest([]byte(`{"y_true":[],"y_pred":null}`))
	if err != nil {
		t.Fatalf("ParseRequest: %v", err)
	}
	if !got.YTrue.Present() || got.YTrue.Len() != 0 || got.YPred.Present() || got.Labels.Present() {
		t.Errorf("got y_true present=%v len=%d, y_pred present=%v, labels present=%v; want true 0 false false",
			got.YTrue.Present(), got.YTrue.Len(), got.YPred.Present(), got.Labels.Present())
	}
}

// TestRequestJSONRoundTrip checks that json.Marshal of a Request parses back
// to the same Request, with ParseRequest and with plain json.Unmarshal.
func TestRequestJSONRoundTrip(t *testing.T) {
	reqs := []Request{
		{YTrue: nums(0, 1, 2.5), YPred: nums(1, 1, 2), Metrics: []string{MSE}},
		{YTrue: strs("a", "b"), YPred: strs("b", "b"), YProb: [][]float64{{0.3, 0.7}, {0.1, 0.9}}, Metrics: []string{LogLoss}, PosLabel: slbl("a"), Labels: strs("a", "b")},
		{YTrue: nums(-1, 1), YScore: []float64{-3, 4}, Metrics: []string{ROCAUC}, Average: "macro", PosLabel: lbl(-1)},
	}
	for i, req := range reqs {
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("%d: marshal: %v", i, err)
		}
		got, err := ParseRequest(data)
		if err != nil {
			t.Fatalf("%d: ParseRequest(%s): %v", i, data, err)
		}
		if !reflect.DeepEqual(got, req) {
			t.Errorf("%d: ParseRequest: got %+v, want %+v", i, got, req)
		}
		var plain Request
		if err := json.Unmarshal(data, &plain); err != nil {
			t.Fatalf("%d: Unmarshal(%s): %v", i, data, err)
		}
		if !reflect.DeepEqual(plain, req) {
			t.Errorf("%d: Unmarshal: got %+v, want %+v", i, plain, req)
		}
	}
}

func TestLabelString(t *testing.T) {
	tests := []struct {
		l    Label
		want string
	}{
		{NumberLabel(1), "1"},
		{NumberLabel(-2.5), "-2.5"},
		{StringLabel("ham"), `"ham"`},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("got %s, want %s", got, tt.want)
		}
	}
}

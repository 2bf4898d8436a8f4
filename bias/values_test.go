package bias

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/web"
)

// generically parses raw as ParseRequest did before the typed reading:
// every array decoded into []any.
func generically(raw []byte) (Plan, error) {
	b, err := readGeneric(raw)
	if err != nil {
		return Plan{}, err
	}
	return b.plan()
}

// sameAsGeneric fails t unless ParseRequest gives body the plan or the
// error (status, message, details) the generic reading gives it.
func sameAsGeneric(t *testing.T, body string) {
	t.Helper()
	got, gotErr := ParseRequest([]byte(body))
	want, wantErr := generically([]byte(body))
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(details(gotErr), details(wantErr)) {
		t.Fatalf("body %s: got error %v, want %v", body, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("body %s: got plan %+v, want %+v", body, got, want)
	}
}

// details returns the status and details of a *web.Error.
func details(err error) any {
	var e *web.Error
	if !errors.As(err, &e) {
		return nil
	}
	return []any{e.Status, e.Code, e.Details}
}

// labelBodies are label-supplied bodies, accepted and refused, that the
// typed reading must answer as the generic one does.
var labelBodies = []string{
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0, 1], "group_data": {"g": ["a", "b", "a"]}}`,
	`{"model_id":"m","sensitive_attributes":["g","h"],"y_pred":[true,false,1,0],"y_true":[1,1,0,0],"group_data":{"g":["a","b",null,""],"h":[30,40.5,true,"x"]}}`,
	` { "model_id" : "m" , "sensitive_attributes" : [ "g" ] , "y_pred" : [ 1 , 0 ] , "group_data" : { "g" : [ "a" , "b" ] } } `,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": ["yes", "no", 1], "group_data": {"g": ["a", "b", "a"]}, "favourable_label": "yes"}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1.0, 0e0, 1e0, -0], "group_data": {"g": [1.50, 1.5, 15e-1, -0.0]}, "favourable_label": 1}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["Jos\u00e9", "José"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a\"b", "a,b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a\u0000", "b"]}}`,
	`{"model_id": "m\u0000", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", [1]]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", {"x": 1}]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 2], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, null], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [], "group_data": {"g": []}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": null, "group_data": {"g": null}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": 5, "group_data": {"g": ["a"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": "1,0", "group_data": {"g": ["a"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": "ab"}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": ["a", "b"]}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "y_true": [1], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"], "x": [1, 2]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}, "colour": 1}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "Y_PRED": [1, 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}, "metrics": ["disparate_impact"]}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0,], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [01, 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1e400, 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [NaN, 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [tru, 0], "group_data": {"g": ["a", "b"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}} x`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b` + "\xff" + `"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b` + "\t" + `"]}}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}, "favourable_label": [1]}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}, "reference_group": {"g": "a"}, "threshold": 0.9}`,
	`{"model_id": "m", "sensitive_attributes": ["g"], "y_pred": [1, 0], "group_data": {"g": ["a", "b"]}, "y_pred": [0, 0]}`,
	`{"model_id": "m", "protected_attributes": ["g"]}`,
	`{"model_id": "m", "protected_attributes": ["g"], "y_pred": [1]}`,
	`null`, ``, `[]`, `{}`,
}

func TestTypedReadingAnswersAsGeneric(t *testing.T) {
	for _, body := range labelBodies {
		sameAsGeneric(t, body)
	}
	// A long column with a few labels, a long one of distinct numbers.
	var rows, nums []string
	for i := range 5000 {
		rows = append(rows, []string{`"a"`, `"b"`, `"c"`}[i%3])
		nums = append(nums, fmt.Sprint(float64(i)/7))
	}
	preds := strings.Repeat("1,0,", 2500)
	sameAsGeneric(t, `{"model_id":"m","sensitive_attributes":["g","n"],"y_pred":[`+preds[:len(preds)-1]+`],"group_data":{"g":[`+
		strings.Join(rows, ",")+`],"n":[`+strings.Join(nums, ",")+`]}}`)
}

func FuzzTypedReading(f *testing.F) {
	for _, body := range labelBodies {
		f.Add(body)
	}
	f.Fuzz(func(t *testing.T, body string) { sameAsGeneric(t, body) })
}

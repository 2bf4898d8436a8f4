package drift

import (
	"fmt"
	"net/http"
	"reflect"
	"testing"
)

func TestParseRequest(t *testing.T) {
	req, err := ParseRequest([]byte(` { "model_id" : "m1", "config": {"threshold": 0.01, "method": "psi"},
		"reference_data": {"b": [1, 2.5, null], "a": ["x", "y\"z"]},
		"current_data": {"a": ["x"], "b": [3]} } `))
	if err != nil {
		t.Fatalf("ParseRequest: got error %v, want nil", err)
	}
	if req.ModelID != "m1" || req.Method != PSI || req.Threshold == nil || *req.Threshold != 0.01 {
		t.Errorf("got model %q, method %q, threshold %v, want m1, psi, 0.01", req.ModelID, req.Method, req.Threshold)
	}
	if len(req.Features) != 2 || req.Features[0].Name != "a" || req.Features[1].Name != "b" {
		t.Fatalf("got features %+v, want a and b in order", req.Features)
	}
	if got, want := string(req.Features[0].Reference), `["x", "y\"z"]`; got != want {
		t.Errorf("a's reference array: got %s, want %s", got, want)
	}
	if got, want := string(req.Features[1].Current), `[3]`; got != want {
		t.Errorf("b's current array: got %s, want %s", got, want)
	}
}

// TestParseRequestRefuses: every refusal names the field (422) or is a
// 400 for JSON that is not well formed.
func TestParseRequestRefuses(t *testing.T) {
	ok := `"model_id": "m1", "reference_data": {"a": [1]}, "current_data": {"a": [2]}`
	for _, tc := range []struct {
		name, body string
		status     int
		field      string
	}{
		{"empty", ``, http.StatusBadRequest, ""},
		{"array", `[1]`, http.StatusBadRequest, ""},
		{"truncated", `{"model_id": "m1", "reference_data": {"a": [1`, http.StatusBadRequest, ""},
		{"unterminated array", `{"reference_data": {"a": [1, 2}`, http.StatusBadRequest, ""},
		{"trailing data", `{` + ok + `} x`, http.StatusBadRequest, ""},
		{"missing colon", `{"model_id" "m1"}`, http.StatusBadRequest, ""},
		{"bad string in a column", `{"reference_data": {"a": ["x` + "\n" + `"]}}`, http.StatusBadRequest, ""},
		{"model_id missing", `{"reference_data": {"a": [1]}, "current_data": {"a": [2]}}`, 422, "model_id"},
		{"model_id a number", `{"model_id": 5, "reference_data": {"a": [1]}, "current_data": {"a": [2]}}`, 422, "model_id"},
		{"model_id with NUL", `{"model_id": "m\u0000", "reference_data": {"a": [1]}, "current_data": {"a": [2]}}`, 422, "model_id"},
		{"unknown field", `{` + ok + `, "org_id": "x"}`, 422, "org_id"},
		{"duplicate field", `{` + ok + `, "model_id": "m2"}`, 422, "model_id"},
		{"reference missing", `{"model_id": "m1", "current_data": {"a": [2]}}`, 422, "reference_data"},
		{"reference null", `{"model_id": "m1", "reference_data": null, "current_data": {"a": [2]}}`, 422, "reference_data"},
		{"reference an array", `{"model_id": "m1", "reference_data": [1], "current_data": {"a": [2]}}`, 422, "reference_data"},
		{"reference empty", `{"model_id": "m1", "reference_data": {}, "current_data": {}}`, 422, "reference_data"},
		{"column not an array", `{"model_id": "m1", "reference_data": {"a": 1}, "current_data": {"a": [2]}}`, 422, "reference_data.a"},
		{"column an object", `{"model_id": "m1", "reference_data": {"a": {"x": 1}}, "current_data": {"a": [2]}}`, 422, "reference_data.a"},
		{"nested array", `{"model_id": "m1", "reference_data": {"a": [[1], "x"]}, "current_data": {"a": [2]}}`, 422, "reference_data.a"},
		{"feature twice", `{"model_id": "m1", "reference_data": {"a": [1], "a": [2]}, "current_data": {"a": [2]}}`, 422, "reference_data.a"},
		{"only in reference", `{"model_id": "m1", "reference_data": {"a": [1], "age": [3]}, "current_data": {"a": [2]}}`, 422, "current_data.age"},
		{"only in current", `{"model_id": "m1", "reference_data": {"a": [1]}, "current_data": {"a": [2], "age": [3]}}`, 422, "reference_data.age"},
		{"unknown method", `{` + ok + `, "config": {"method": "anderson"}}`, 422, "config.method"},
		{"threshold zero", `{` + ok + `, "config": {"threshold": 0}}`, 422, "config.threshold"},
		{"threshold 1 for a test", `{` + ok + `, "config": {"threshold": 1, "method": "ks_test"}}`, 422, "config.threshold"},
		{"threshold 1 without method", `{` + ok + `, "config": {"threshold": 1}}`, 422, "config.threshold"},
		{"threshold 1.5 for js", `{` + ok + `, "config": {"threshold": 1.5, "method": "js_divergence"}}`, 422, "config.threshold"},
		{"threshold 11 for psi", `{` + ok + `, "config": {"threshold": 11, "method": "psi"}}`, 422, "config.threshold"},
		{"threshold a string", `{` + ok + `, "config": {"threshold": "0.05"}}`, 422, "config.threshold"},
		{"unknown config field", `{` + ok + `, "config": {"alpha": 0.05}}`, 422, "config.alpha"},
		{"config an array", `{` + ok + `, "config": [1]}`, 422, "config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseRequest([]byte(tc.body))
			wantProblem(t, err, tc.status, tc.field)
		})
	}
}

// TestParseRequestAccepts: what a client may send besides the plain shape.
func TestParseRequestAccepts(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"config null", `{"model_id": "m1", "reference_data": {"a": [1]}, "current_data": {"a": [2]}, "config": null}`},
		{"psi threshold above 1", `{"model_id": "m1", "reference_data": {"a": [1]}, "current_data": {"a": [2]}, "config": {"threshold": 2, "method": "psi"}}`},
		{"escaped feature name", `{"model_id": "m1", "reference_data": {"\u00e2ge": [1]}, "current_data": {"âge": [2]}}`},
		{"whitespace everywhere", "\n{\t\"model_id\" :\"m1\" ,\"reference_data\":{ \"a\" :[ 1 , 2 ] } ,\"current_data\":{\"a\":[\n2\n]}}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseRequest([]byte(tc.body)); err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
		})
	}
}

// TestParseRequestQuick: the quick reading, which takes a numeric column's
// first ']' as its end, gives the full check's answer on columns where
// that ']' is not the end, or that hold a string, array or object.
func TestParseRequestQuick(t *testing.T) {
	f := func(cur string) {
		t.Helper()
		body := []byte(`{"model_id": "m1", "reference_data": {"a": [1, 2], "b": [3]}, "current_data": {"a": ` + cur + `, "b": [4]}}`)
		got, gotErr := ParseRequest(body)
		full := scanner{b: body}
		want, wantErr := full.parse()
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("current a = %s: got %+v, %v, want %+v, %v", cur, got, gotErr, want, wantErr)
		}
	}
	f(`[1, 2]`)
	f(`[1, "x]y"]`)
	f(`[1, "x]y", 2]`)
	f(`[1, [2], 3]`)
	f(`[1, [2]]`)
	f(`[1, {"c": [2]}]`)
	f(`[1, {"c": 2}]`)
	f(`[null, "]", "[", 1]`)
	f(`[1, 2`)
	f(`[ "s", 1]`)
}

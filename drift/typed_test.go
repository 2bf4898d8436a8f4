package drift

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/web"
)

// typedModels are the models sameAsChecked knows: m1 with the default
// configuration, skip with feature b left out; any other is a 404.
func typedConfig(_ context.Context, model string) (Config, error) {
	switch model {
	case "m1":
		return Default("o", model), nil
	case "skip":
		cfg := Default("o", model)
		off := false
		cfg.Features = map[string]FeatureConfig{"b": {Enabled: &off}}
		return cfg, nil
	}
	return Config{}, web.NotFound("model")
}

// typedDetector is the detector of the typed tests: a fixed clock, and a
// limit of 40 values that the long bodies pass (413).
var typedDetector = Detector{MaxValues: 40, Clock: func() time.Time { return time.Unix(1e9, 0).UTC() }}

// checked is the answer to body as it was before the route was TypedBody:
// the generic check (web.CheckJSON) first, then ParseRequest, the
// configuration and Detect.
func checked(ctx context.Context, body []byte) (Result, error) {
	if err := web.CheckJSON(body, true); err != nil {
		return Result{}, err
	}
	req, err := ParseRequest(body)
	if err != nil {
		return Result{}, err
	}
	return typedDetector.configured(ctx, req, typedConfig)
}

// sameAsChecked fails the test unless answer gives body the answer
// checked gives it: the same status, code, message and details, or the
// same result.
func sameAsChecked(t *testing.T, body []byte) {
	t.Helper()
	want, wantErr := checked(t.Context(), body)
	got, gotErr := typedDetector.answer(t.Context(), body, typedConfig)
	if a, b := describe(t, want, wantErr), describe(t, got, gotErr); a != b {
		t.Fatalf("%q:\ngot  %s\nwant %s (the generic check first)", body, b, a)
	}
}

// describe writes an answer for comparison: a web.Error's status, code,
// message and details, or the result's JSON.
func describe(t *testing.T, res Result, err error) string {
	t.Helper()
	if err != nil {
		var e *web.Error
		if !errors.As(err, &e) {
			return "error " + err.Error()
		}
		details, _ := json.Marshal(e.Details)
		return fmt.Sprintf("%d %s %q %s", e.Status, e.Code, e.Message, details)
	}
	out, err := json.Marshal(res)
	if err != nil {
		return "unencodable result: " + err.Error()
	}
	return string(out)
}

// typedBodies are well-formed detect bodies that the typed reading takes
// whole (numbers, NaN, null, booleans and strings; a skipped feature),
// and one for each way it may doubt a body.
var typedBodies = []string{
	`{"model_id": "m1", "reference_data": {"a": [1.5, 2, -3e-2, NaN, null, 0], "b": [true, false, true], "c": ["x", "y", ""]},` +
		` "current_data": {"a": [ 2.25 ,-1E+2,	4 ], "b": [false], "c": ["y\u00e9", "x"]}, "config": {"threshold": 0.05}}`,
	`{"model_id": "skip", "reference_data": {"a": [1, 2, 3], "b": [1, 2, 3]}, "current_data": {"a": [4, 5], "b": [6]}}`,
	`{"model_id": "skip", "reference_data": {"a": [1, 2, 3], "b": ["x", "y"]}, "current_data": {"a": [4, 5], "b": [true]}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, 2, 3]}, "current_data": {"a": [4, 5, 6]}, "config": {"method": "psi"}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, "x"]}, "current_data": {"a": [4, 5, 6]}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, 2, Infinity]}, "current_data": {"a": [4, 5, 6]}}`,
	`{"model_id": "m1", "reference_data": {"a": [null, NaN]}, "current_data": {"a": [4, 5, 6]}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, 2]}, "current_data": {"a": [true, false]}}`,
	`{"model_id": "nobody", "reference_data": {"a": [1, 2]}, "current_data": {"a": [3, 4]}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, 2]}, "current_data": {"a": [3, 4], "z": [1]}}`,
	`{"model_id": "m1", "reference_data": {"a": [` + strings.Repeat("1, ", 30) + `2]}, "current_data": {"a": [` + strings.Repeat("3, ", 30) + `4]}}`,
	`{"model_id": "skip", "reference_data": {"a": [1], "b": [` + strings.Repeat("1, ", 50) + `2]}, "current_data": {"a": [2], "b": [2]}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, [2]]}, "current_data": {"a": [3, 4]}}`,
	`{"model_id": "m1", "reference_data": {"a": [1, {"x": 1}]}, "current_data": {"a": [3, 4]}}`,
	`[{"model_id": "m1"}]`,
}

// TestTypedDetectAnswersAsChecked: POST /drift/detect, whose body no
// generic check reads first (TypedBody), answers every body as the check
// followed by the handler did: each of typedBodies, then each of them
// spoilt in every way below (the malformed ones get the check's 400 or
// 422, a well-formed one the handler's answer, an unknown model's
// malformed body the 400 and not the 404).
func TestTypedDetectAnswersAsChecked(t *testing.T) {
	spoilt := func(body string) []string {
		var out []string
		for i := range len(body) + 1 {
			out = append(out, body[:i]) // truncated
		}
		for _, tail := range []string{" x", "}", "]", ",", " {}", "\x00", "\xff", " \v"} {
			out = append(out, body+tail) // trailing garbage
		}
		// A number, a name or a string at each place of the first column.
		for _, v := range []string{"01", "1.", ".5", "+1", "1e", "1e+", "--1", "-", "1e400", "-1e309", "1e-400",
			"Infinity", "-Infinity", "-NaN", "Nan", "nul", "tru", "1 2", `"\ud800"`, "\"\xff\"", `"\u0000"`, "1\x00",
			"0x10", "1_000", "\u00a01", "\f1", "[]", "{}", `"a]"`, "1,]"} {
			out = append(out, strings.Replace(body, "[", "["+v+", ", 1), strings.Replace(body, "]", ", "+v+"]", 1))
		}
		// Keys twice, at each depth; names that are not UTF-8 or hold a
		// lone surrogate.
		out = append(out,
			strings.Replace(body, `"model_id"`, `"model_id": "m1", "model_id"`, 1),
			strings.Replace(body, `"reference_data": {`, `"reference_data": {"a": [1], `, 1),
			strings.Replace(body, `"current_data": {`, `"current_data": {"zz": [1], "zz": [2], `, 1),
			strings.Replace(body, `}}`, `}, "config": {"method": "psi", "method": "psi"}}`, 1),
			strings.Replace(body, `"model_id": "`, "\"model_id\": \"\xff", 1),
			strings.Replace(body, `"model_id": "`, `"model_id": "\udc00`, 1),
			strings.Replace(body, `"reference_data": {"`, "\"reference_data\": {\"\xc3", 1),
			strings.Replace(body, `"current_data": {"`, `"current_data": {"\ud800`, 1),
			strings.Replace(body, `}}`, `}, "config": {"threshold": 1e999}}`, 1),
			strings.Replace(body, `}}`, `}, "config": {"threshold": [[[[1]]]]}}`, 1),
		)
		// Every byte of the body replaced by a structural or odd one, and
		// every byte left out.
		for i := range len(body) {
			for _, b := range []byte{'[', ']', '{', '}', ',', '"', ':', ' ', '1', '-', 'e', '.', 'N', 'n', 0, 0xff, '\\'} {
				out = append(out, body[:i]+string([]byte{b})+body[i+1:])
			}
			out = append(out, body[:i]+body[i+1:])
		}
		return out
	}
	n := 0
	for _, body := range typedBodies {
		sameAsChecked(t, []byte(body))
		for _, s := range spoilt(body) {
			sameAsChecked(t, []byte(s))
			n++
		}
	}
	t.Logf("%d spoilt bodies answered as checked", n)
}

// TestTypedDetectReadsOnce: a well-formed body of plain number columns is
// taken whole by the typed reading (the generic check reads only what is
// not a column), which is what makes the route TypedBody worth it.
func TestTypedDetectReadsOnce(t *testing.T) {
	body := []byte(`{"model_id": "m1", "reference_data": {"a": [1, 2, 3], "b": [true, null]}, "current_data": {"a": [4, 5], "b": [false]}}`)
	s := scanner{b: body, quick: true}
	if _, err := s.parse(); err != nil || !s.confirm() {
		t.Fatalf("quick parse: got %v, want a body it takes", err)
	}
	if len(s.holes) != 4 {
		t.Fatalf("got %d columns located, want 4", len(s.holes))
	}
	for _, h := range s.holes {
		if body[h[0]] != '[' || body[h[1]-1] != ']' {
			t.Errorf("hole %v is %q, want a column with its brackets", h, body[h[0]:h[1]])
		}
	}
	// The holes are stepped over: a column the check would refuse passes
	// when it is a hole, so the check does not read them.
	spoilt := []byte(strings.Replace(string(body), "[1, 2, 3]", "[1, 2, x]", 1))
	if err := web.CheckJSON(spoilt, true, s.holes...); err != nil {
		t.Errorf("CheckJSON with the columns as holes: got %v, want nil (the holes unread)", err)
	}
	if err := web.CheckJSON(spoilt, true); err == nil {
		t.Errorf("CheckJSON of the whole spoilt body: got nil, want a 400")
	}
	res, err := typedDetector.answer(t.Context(), body, typedConfig)
	if err != nil || len(res.Features) != 2 {
		t.Fatalf("answer: got %v, %v, want two features", res.Features, err)
	}
	if !reflect.DeepEqual(res.Skipped, []string{}) {
		t.Errorf("skipped: got %v, want none", res.Skipped)
	}
}

// FuzzTypedDetect: any body gets the answer the generic check followed by
// the handler gave it.
func FuzzTypedDetect(f *testing.F) {
	for _, body := range typedBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, body []byte) { sameAsChecked(t, body) })
}

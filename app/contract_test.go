package app

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestContractValidation sends what the document declares invalid, and
// what it declares valid, for each kind of rule the Schemathesis run found
// the server and the document disagreeing on: a format (date-time, uuid),
// a type, a property the document forbids, an integer written as 247.0,
// and the cross-field rules the descriptions state. It is the same check
// as the fuzzer's, case by case, so a regression shows here first.
func TestContractValidation(t *testing.T) {
	s := start(t, testConfig(t))
	token := s.admin()
	model := s.model(token, "contract", "1")
	userID := s.do("GET", "/auth/me", token, nil).want(t, 200).str("user.id")

	cases := []struct {
		what, method, path string
		body               any
		status             int
		field              string // the field a 422's details must name
	}{
		// format date-time, in the query and in a body.
		{"a date, no time", "GET", "/predictions/export?model_id=" + model + "&start_time=2026-01-31", nil, 422, "start_time"},
		{"a comma before the fraction", "GET", "/predictions/models/" + model + "/stats?end_time=2026-01-31T12:00:00,5Z", nil, 422, "end_time"},
		{"an offset of 24 hours", "GET", "/metrics/aggregate?model_id=" + model + "&metric_type=accuracy&start_date=2026-01-31T12:00:00%2B24:00", nil, 422, "start_date"},
		{"words", "GET", "/llm/metrics?start_date=yesterday", nil, 422, "start_date"},
		{"a space for the T", "GET", "/drift/reports?model_id=" + model + "&start_date=2026-01-31%2012:00:00Z", nil, 422, "start_date"},
		{"no offset, in a body", "POST", "/bias/audit", map[string]any{"model_id": model, "start_date": "2026-01-31T12:00:00"}, 422, "start_date"},
		{"a date-time in lower case", "GET", "/llm/metrics?start_date=2026-01-31t12:00:00z", nil, 200, ""},
		{"a date-time in a body", "POST", "/predictions/query", map[string]any{"start_time": "2026-01-31T12:00:00+01:00"}, 200, ""},
		// A parameter sent empty is a value, and not one of its format or enum.
		{"start_date sent empty", "GET", "/llm/metrics?start_date=", nil, 422, "start_date"},
		{"owner_id sent empty", "GET", "/models?owner_id=", nil, 422, "owner_id"},
		{"limit sent empty", "GET", "/models?limit=", nil, 422, "limit"},
		{"severity sent empty", "GET", "/drift/reports?model_id=" + model + "&severity=", nil, 422, "severity"},
		{"format sent empty", "GET", "/predictions/export?model_id=" + model + "&format=", nil, 422, "format"},
		{"end_time empty in a body", "POST", "/predictions/query", map[string]any{"end_time": ""}, 422, "end_time"},
		{"a parameter twice", "GET", "/predictions/models/" + model + "/recent?limit=5&limit=x", nil, 422, "limit"},
		// format uuid.
		{"an owner_id that is not a uuid", "GET", "/models?owner_id=admin", nil, 422, "owner_id"},
		{"an owner_id without hyphens", "GET", "/models?owner_id=0190c6a27b1e7c3a9f0e2d4b6a8c0e1f", nil, 422, "owner_id"},
		{"an owner_id", "GET", "/models?owner_id=" + userID, nil, 200, ""},
		// types.
		{"metadata an array", "POST", "/models", map[string]any{"name": "m1", "model_type": "llm", "metadata": []int{1}}, 422, "metadata"},
		{"tags a string", "POST", "/models", map[string]any{"name": "m2", "model_type": "llm", "tags": "churn"}, 422, "tags"},
		{"tags holding a number", "PATCH", "/models/" + model, map[string]any{"tags": []any{1}}, 422, "tags"},
		{"metadata and tags null, as absent", "POST", "/models", map[string]any{"name": "m3", "model_type": "llm", "metadata": nil, "tags": nil}, 201, ""},
		{"a null metric", "PUT", "/models/" + model + "/baseline", `{"baseline_metrics": {"accuracy": 0.9, "f1": null}}`, 422, "baseline_metrics"},
		{"a null feature", "PATCH", "/models/" + model, `{"features": ["age", null]}`, 422, "features"},
		{"a batch item's model_id empty, as left out", "POST", "/metrics/batch", map[string]any{"model_id": model,
			"metrics": []any{map[string]any{"model_id": "", "metric_type": "accuracy", "value": 0.9}}}, 201, ""},
		{"integer-valued token counts", "POST", "/llm/completions", `{"model_id": "` + model + `", "provider": "openai", "model_name": "gpt",
			"tokens": {"prompt_tokens": 3.0, "completion_tokens": 4}}`, 201, ""},
		{"an llm model_id sent empty", "GET", "/llm/metrics?model_id=", nil, 422, "model_id"},
		{"a null body", "PATCH", "/models/" + model, "null", 400, ""},
		// properties the document forbids (additionalProperties: false).
		{"an unknown property", "POST", "/models", map[string]any{"name": "m4", "model_type": "llm", "colour": "red"}, 422, "colour"},
		{"an unknown nested property", "POST", "/drift/detect", map[string]any{"model_id": model,
			"reference_data": map[string]any{"x": []int{1}}, "current_data": map[string]any{"x": []int{1}},
			"config": map[string]any{"method": "psi", "colour": 1}}, 422, "config.colour"},
		// type integer takes an integer-valued number.
		{"expires_in_days 247.0", "POST", "/api-keys", `{"name": "k1", "expires_in_days": 247.0}`, 201, ""},
		{"expires_in_days 2.47e2", "POST", "/api-keys", `{"name": "k2", "expires_in_days": 2.47e2}`, 201, ""},
		{"expires_in_days 247.5", "POST", "/api-keys", `{"name": "k3", "expires_in_days": 247.5}`, 422, "expires_in_days"},
		{"limit 10.0", "POST", "/predictions/query", `{"limit": 10.0}`, 200, ""},
		{"offset 5114.0", "POST", "/predictions/query", `{"offset": 5114.0, "limit": null}`, 200, ""},
		{"offset 5114", "POST", "/predictions/query", `{"offset": 5114}`, 200, ""},
		{"a cost beyond 1e9", "POST", "/llm/completions", `{"model_id": "` + model + `", "provider": "openai", "model_name": "gpt", "cost": 1.7e308}`, 422, "cost"},
		// cross-field rules the descriptions state.
		{"start after end", "GET", "/predictions/export?model_id=" + model + "&start_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z", nil, 422, "end_time"},
		{"start after end, dates", "GET", "/llm/metrics?start_date=2026-02-01T00:00:00Z&end_date=2026-01-01T00:00:00Z", nil, 422, "end_date"},
		{"start after end, in a body", "POST", "/bias/audit", map[string]any{"model_id": model,
			"start_date": "2026-02-01T00:00:00Z", "end_date": "2026-01-01T00:00:00Z"}, 422, "end_date"},
		{"y_true shorter than y_pred", "POST", "/bias/audit", map[string]any{"model_id": model, "sensitive_attributes": []string{"g"},
			"y_pred": []int{1, 0}, "y_true": []int{1}, "group_data": map[string]any{"g": []string{"a", "b"}}}, 422, "y_true"},
	}
	for _, c := range cases {
		r := s.do(c.method, c.path, token, c.body)
		if c.status == 400 {
			if r.status != 400 || r.str("error.code") != "BAD_REQUEST" {
				t.Errorf("%s: %s %s answers %d %s, want 400 BAD_REQUEST", c.what, c.method, c.path, r.status, r.raw)
			}
			continue
		}
		if c.field != "" {
			if r.status != http.StatusUnprocessableEntity || r.str("error.code") != "VALIDATION_ERROR" {
				t.Errorf("%s: %s %s answers %d %s, want 422 VALIDATION_ERROR naming %s", c.what, c.method, c.path, r.status, r.raw, c.field)
				continue
			}
			if details, _ := r.at("error.details").(map[string]any); details[c.field] == nil {
				t.Errorf("%s: got details %v, want one naming %q", c.what, r.at("error.details"), c.field)
			}
			continue
		}
		if r.status != c.status {
			t.Errorf("%s: %s %s answers %d %s, want %d", c.what, c.method, c.path, r.status, r.raw, c.status)
		}
	}
}

// TestQueryMethod: QUERY, a method no route takes, answers 405 in the
// envelope with Allow, as the document says of every method it does not
// list, not Fiber's bare 400 "Invalid http method".
func TestQueryMethod(t *testing.T) {
	s := start(t, testConfig(t))
	r := s.do("QUERY", "/models", s.admin(), nil)
	if r.status != http.StatusMethodNotAllowed || r.str("error.code") != "METHOD_NOT_ALLOWED" {
		t.Fatalf("QUERY /models: got %d %s, want 405 METHOD_NOT_ALLOWED", r.status, r.raw)
	}
	if got := r.header.Get("Allow"); got != "GET, POST" {
		t.Errorf("QUERY /models: got Allow %q, want %q", got, "GET, POST")
	}
}

// TestRequestIDReplaced: an X-Request-ID outside the pattern is not
// refused but replaced, as the document says; one within it is kept.
func TestRequestIDReplaced(t *testing.T) {
	s := start(t, testConfig(t))
	pattern := regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	f := func(sent string, kept bool) {
		t.Helper()
		req, err := http.NewRequest("GET", s.base+"/openapi.json", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Request-ID", sent)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := res.Header.Get("X-Request-ID")
		switch {
		case res.StatusCode != 200:
			t.Errorf("X-Request-ID %q: got status %d, want 200", sent, res.StatusCode)
		case kept && got != sent:
			t.Errorf("X-Request-ID %q: got %q back, want it kept", sent, got)
		case !kept && (got == sent || !pattern.MatchString(got)):
			t.Errorf("X-Request-ID %q: got %q back, want a generated id matching %s", sent, got, pattern)
		}
	}
	f("req-1.a_B", true)
	f("has space", false)
	f("ü", false)
	f(strings.Repeat("a", 65), false)
}

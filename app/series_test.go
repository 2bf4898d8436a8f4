package app

import (
	"fmt"
	"testing"
)

func TestMetricAndLLMReads(t *testing.T) {
	eachPipeline(t, testMetricAndLLMReads)
}

// testMetricAndLLMReads logs metrics and completions and reads them back
// through aggregate, trend and llm/metrics, which sum the rollups.
func testMetricAndLLMReads(t *testing.T, s *server) {
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "assistant", "1")
	var metrics []any
	for _, v := range []float64{0.5, 0.75, 1, 0.25} {
		metrics = append(metrics, map[string]any{"metric_type": "accuracy", "value": v})
	}
	metrics = append(metrics, map[string]any{"metric_type": "f1_score", "value": 100})
	s.do("POST", "/metrics/batch", key, map[string]any{"model_id": model, "metrics": metrics}).want(t, 201)
	for i, c := range []struct {
		name           string
		prompt, answer int
		latency, cost  float64
	}{{"gpt-4o", 10, 20, 100, 0.5}, {"gpt-4o", 30, 40, 300, 0.25}, {"claude", 1, 2, 50, 0.125}} {
		s.do("POST", "/llm/completions", key, map[string]any{"model_id": model, "provider": "p", "model_name": c.name,
			"prompt": fmt.Sprint(i), "completion": "c", "tokens": map[string]any{"prompt_tokens": c.prompt, "completion_tokens": c.answer},
			"latency_ms": c.latency, "cost": c.cost}).want(t, 201)
	}
	q := "?model_id=" + model + "&metric_type=accuracy&time_window=1h&aggregation="
	waitFor(t, "the metrics counted", func() bool {
		return s.do("GET", "/metrics/aggregate"+q+"count", key, nil).at("value") == 4.0
	})
	for agg, want := range map[string]float64{"avg": 0.625, "min": 0.25, "max": 1, "sum": 2.5, "count": 4} {
		r := s.do("GET", "/metrics/aggregate"+q+agg, key, nil).want(t, 200)
		if r.at("value") != want || r.at("data_points") != 4.0 || r.str("aggregation") != agg || r.str("time_window") != "1h" {
			t.Errorf("aggregation %s: got %s, want value %v of 4 data points", agg, r.raw, want)
		}
	}
	empty := s.do("GET", "/metrics/aggregate?model_id="+model+"&metric_type=none&time_window=24h&aggregation=avg", key, nil).want(t, 200)
	if empty.at("value") != nil || empty.at("data_points") != 0.0 {
		t.Errorf("got %s for a metric never logged, want value null and 0 data points", empty.raw)
	}
	tr := s.do("GET", "/metrics/trend?model_id="+model+"&metric_type=accuracy&interval=hour&days=1", key, nil).want(t, 200)
	var n float64
	for _, p := range tr.at("data").([]any) {
		n += p.(map[string]any)["data_points"].(float64)
	}
	if n != 4 || tr.str("interval") != "hour" || tr.str("aggregation") != "avg" {
		t.Errorf("got trend %s, want 4 data points in hourly buckets of averages", tr.raw)
	}

	var llm response
	waitFor(t, "the completions counted", func() bool {
		llm = s.do("GET", "/llm/metrics?model_id="+model, key, nil).want(t, 200)
		return llm.at("totals.completions") == 3.0
	})
	for path, want := range map[string]any{"totals.total_tokens": 103.0, "totals.prompt_tokens": 41.0,
		"totals.completion_tokens": 62.0, "totals.total_cost": 0.875, "totals.avg_latency_ms": 150.0,
		"by_model.gpt-4o.completions": 2.0, "by_model.gpt-4o.cost": 0.75, "by_model.claude.completions": 1.0,
		"model_id": model, "totals.p50_latency_ms": 100.0, "totals.p95_latency_ms": 280.0, "totals.p99_latency_ms": 296.0,
		"totals.errors": 0.0, "totals.error_rate": 0.0, "by_provider.p.completions": 3.0, "by_provider.p.total_tokens": 103.0,
		"by_model.gpt-4o.p50_latency_ms": 200.0, "trend.interval": "hour", "totals.toxicity_rate": nil} {
		if got := llm.at(path); got != want {
			t.Errorf("got %s %v, want %v", path, got, want)
		}
	}
	var points float64
	for _, p := range llm.at("trend.points").([]any) {
		points += p.(map[string]any)["completions"].(float64)
	}
	if points != 3 {
		t.Errorf("got trend %v, want its points to add up to the 3 completions", llm.at("trend"))
	}
	if org := s.do("GET", "/llm/metrics", key, nil).want(t, 200); org.at("totals.completions") != 3.0 || org.at("model_id") != nil {
		t.Errorf("got %s for the organization, want its 3 completions and model_id null", org.raw)
	}
}

func TestMetricReadValidation(t *testing.T) {
	s := start(t, testConfig(t))
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "m", "1")
	ok := "/metrics/aggregate?model_id=" + model + "&metric_type=a&aggregation=avg&time_window=1h"
	s.do("GET", ok, key, nil).want(t, 200)
	for field, path := range map[string]string{
		"model_id":    "/metrics/aggregate?metric_type=a&aggregation=avg&time_window=1h",
		"metric_type": "/metrics/aggregate?model_id=" + model + "&aggregation=avg&time_window=1h",
		"aggregation": "/metrics/aggregate?model_id=" + model + "&metric_type=a&aggregation=median&time_window=1h",
		"time_window": "/metrics/aggregate?model_id=" + model + "&metric_type=a&aggregation=avg",
		"start_date":  ok + "&start_date=yesterday",
		"end_date":    ok + "&start_date=2026-01-02T00:00:00Z&end_date=2026-01-01T00:00:00Z",
		"interval":    "/metrics/trend?model_id=" + model + "&metric_type=a&interval=week",
		"days":        "/metrics/trend?model_id=" + model + "&metric_type=a&days=0",
	} {
		s.do("GET", path, key, nil).wantField(t, field)
	}
	other := s.signUp("other")
	otherKey, _ := s.key(other, "read", "write")
	for _, path := range []string{ok, "/metrics/trend?model_id=" + model + "&metric_type=a", "/llm/metrics?model_id=" + model} {
		s.do("GET", path, otherKey, nil).wantError(t, 404, "MODEL_NOT_FOUND")
	}
}

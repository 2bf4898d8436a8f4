package app

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// waitFor polls until ok holds: the time from a 2xx on ingest to the
// event being queryable. The bound is far above the lag measured in
// benchmarks/ (a test asserts what is stored, not how fast), so that a
// loaded CI machine does not fail it.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	waitWithin(t, what, 30*time.Second, ok)
}

// waitWithin is waitFor with a limit of its own, for what takes longer
// than 30 s by nature (a minute to close, say).
func waitWithin(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	// The pause grows, so that slow pipelines are not polled past the
	// API's rate limit (1,000 requests a minute).
	for pause := 5 * time.Millisecond; !ok(); pause = min(2*pause, 250*time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		time.Sleep(pause)
	}
}

// waitStored waits until the model's stats count n predictions of any
// time (clocks may be skewed forward).
func (s *server) waitStored(t *testing.T, key, model string, n float64) {
	t.Helper()
	waitFor(t, fmt.Sprint(n, " predictions stored"), func() bool {
		return s.do("GET", "/predictions/models/"+model+"/stats?start_time=2000-01-01T00:00:00Z&end_time=2100-01-01T00:00:00Z",
			key, nil).at("total_predictions") == n
	})
}

func TestLogBatchThenQuery(t *testing.T) {
	eachPipeline(t, testLogBatchThenQuery)
}

func testLogBatchThenQuery(t *testing.T, s *server) {
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")

	items := make([]map[string]any, 1000)
	for i := range items {
		items[i] = map[string]any{"prediction_id": fmt.Sprintf("p-%04d", i), "input_data": map[string]any{"age": i % 90},
			"output_data": map[string]any{"churn": i%3 == 0}, "latency_ms": float64(i%50 + 1)}
	}
	r := s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
	if r.at("logged") != 1000.0 || r.at("total") != 1000.0 || r.at("failed") != 0.0 {
		t.Fatalf("got %s, want 1000 logged of 1000", r.raw)
	}
	var stats response
	waitFor(t, "stats counting the batch", func() bool {
		stats = s.do("GET", "/predictions/models/"+model+"/stats", key, nil).want(t, 200)
		return stats.at("total_predictions") == 1000.0
	})
	if stats.at("min_latency_ms") != 1.0 || stats.at("max_latency_ms") != 50.0 || stats.at("avg_latency_ms") != 25.5 {
		t.Fatalf("got %s, want latency min 1, max 50, avg 25.5", stats.raw)
	}
	// Latencies 1..50, twenty of each: p50 25.5 and p99 50 by linear
	// interpolation (numpy.quantile), within the sketch's 1% beyond 256.
	if p50, _ := stats.at("p50_latency_ms").(float64); p50 < 25.5*0.99 || p50 > 25.5*1.01 {
		t.Fatalf("got p50 %v, want 25.5 within 1%%", stats.at("p50_latency_ms"))
	}
	if p99, _ := stats.at("p99_latency_ms").(float64); p99 < 50*0.99 || p99 > 50*1.01 {
		t.Fatalf("got p99 %v, want 50 within 1%%", stats.at("p99_latency_ms"))
	}
	// churn is true for i%3 == 0: 334 of 1000.
	if yes, no := stats.at("output_distribution.churn.values.true"), stats.at("output_distribution.churn.values.false"); yes != 334.0 || no != 666.0 {
		t.Fatalf("got churn true %v, false %v in output_distribution, want 334 and 666", yes, no)
	}
	q := s.do("POST", "/predictions/query", key, map[string]any{"model_id": model, "limit": 1000}).want(t, 200)
	if len(q.list) != 1000 {
		t.Fatalf("got %d predictions from query, want 1000", len(q.list))
	}
	one := s.do("GET", "/predictions/models/"+model+"/predictions/p-0042", key, nil).want(t, 200)
	if one.at("input_data.age") != 42.0 || one.str("prediction_id") != "p-0042" {
		t.Fatalf("got %s, want prediction p-0042", one.raw)
	}
	if n := len(s.do("GET", "/predictions/models/"+model+"/recent?limit=5", key, nil).want(t, 200).list); n != 5 {
		t.Fatalf("got %d recent, want 5", n)
	}
	m := s.do("GET", "/models/"+model, key, nil).want(t, 200)
	if m.at("prediction_count") != 1000.0 || m.str("last_prediction_at") == "" {
		t.Fatalf("got prediction_count %v, last_prediction_at %v, want 1000 and a time", m.at("prediction_count"), m.at("last_prediction_at"))
	}
	if listed := s.do("GET", "/models", key, nil).want(t, 200).list[0].(map[string]any); listed["prediction_count"] != 1000.0 {
		t.Fatalf("got prediction_count %v in the list, want 1000", listed["prediction_count"])
	}

	// The same batch again (a client retry) counts nothing twice.
	s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "prediction_id": "p-new",
		"input_data": map[string]any{}, "output_data": map[string]any{}}).want(t, 201)
	waitFor(t, "the single prediction after the replayed batch", func() bool {
		return s.do("GET", "/predictions/models/"+model+"/stats", key, nil).at("total_predictions") == 1001.0
	})
}

func TestLogValidation(t *testing.T) {
	s := start(t, testConfig(t))
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	ok := map[string]any{"input_data": map[string]any{"x": 1}, "output_data": map[string]any{"y": 0}}
	for _, c := range []struct {
		field string
		body  map[string]any
	}{
		{"inputs", map[string]any{"model_id": model, "inputs": map[string]any{}, "output_data": map[string]any{}}},
		{"input_data", map[string]any{"model_id": model, "output_data": map[string]any{}}},
		{"output_data", map[string]any{"model_id": model, "input_data": map[string]any{}}},
		{"input_data", map[string]any{"model_id": model, "input_data": []any{1}, "output_data": map[string]any{}}},
		{"metadata", map[string]any{"model_id": model, "input_data": map[string]any{}, "output_data": map[string]any{}, "metadata": "x"}},
		{"input_data.x", map[string]any{"model_id": model, "input_data": json.RawMessage("{\"x\": \"\xff\"}"), "output_data": map[string]any{}}},
		{"output_data", map[string]any{"model_id": model, "input_data": map[string]any{}, "output_data": nil}},
		{"latency_ms", map[string]any{"model_id": model, "input_data": map[string]any{}, "output_data": map[string]any{}, "latency_ms": -1}},
		{"model_id", map[string]any{"input_data": map[string]any{}, "output_data": map[string]any{}}},
		{"org_id", map[string]any{"model_id": model, "input_data": map[string]any{}, "output_data": map[string]any{}, "org_id": "x"}},
	} {
		s.do("POST", "/predictions/log", key, c.body).wantField(t, c.field)
	}
	// Latencies near the largest float64 would overflow a minute's sum.
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "input_data": map[string]any{},
		"output_data": map[string]any{}, "latency_ms": 1e300}).wantField(t, "latency_ms")
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": "00000000-0000-0000-0000-000000000000",
		"input_data": map[string]any{}, "output_data": map[string]any{}}).wantError(t, 404, "MODEL_NOT_FOUND")

	items := []any{ok, map[string]any{"input_data": map[string]any{}}, ok, map[string]any{"output": 1}}
	r := s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
	if r.at("logged") != 2.0 || r.at("failed") != 2.0 {
		t.Fatalf("got %s, want 2 logged and 2 failed", r.raw)
	}
	errs := r.at("errors").([]any)
	if first := errs[0].(map[string]any); first["index"] != 1.0 || first["field"] != "output_data" {
		t.Fatalf("got errors %v, want index 1 naming output_data first", errs)
	}
	big := make([]any, 1001)
	for i := range big {
		big[i] = ok
	}
	s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": big}).wantField(t, "predictions")
	s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": []any{map[string]any{}}}).
		wantError(t, 422, "VALIDATION_ERROR")
	s.do("POST", "/models/"+model+"/archive", key, nil).want(t, 200)
	time.Sleep(2100 * time.Millisecond) // the ingest side trusts a model lookup for 2 s
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "input_data": map[string]any{},
		"output_data": map[string]any{}}).wantError(t, 409, "RESOURCE_CONFLICT")
}

func TestMetricsAndCompletionsLogged(t *testing.T) {
	eachPipeline(t, testMetricsAndCompletionsLogged)
}

func testMetricsAndCompletionsLogged(t *testing.T, s *server) {
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "assistant", "1")
	r := s.do("POST", "/metrics", key, map[string]any{"model_id": model, "metric_type": "accuracy", "value": 0.91}).want(t, 201)
	if r.str("id") == "" || r.at("value") != 0.91 || r.str("timestamp") == "" {
		t.Fatalf("got %s, want the metric echoed with id and timestamp", r.raw)
	}
	r = s.do("POST", "/metrics/batch", key, map[string]any{"model_id": model, "metrics": []any{
		map[string]any{"metric_type": "f1_score", "value": 0.8}, map[string]any{"metric_type": "f1_score"}}}).want(t, 201)
	if r.at("logged") != 1.0 || r.at("failed") != 1.0 {
		t.Fatalf("got %s, want 1 logged and 1 failed", r.raw)
	}
	r = s.do("POST", "/llm/completions", key, map[string]any{"model_id": model, "provider": "openai", "model_name": "gpt-4o",
		"prompt": "hi", "completion": "hello", "tokens": map[string]any{"prompt_tokens": 3, "completion_tokens": 5},
		"latency_ms": 420, "cost": 0.0002}).want(t, 201)
	if r.at("tokens.total_tokens") != 8.0 {
		t.Fatalf("got %s, want total_tokens 8", r.raw)
	}
	s.do("POST", "/llm/completions", key, map[string]any{"model_id": model, "provider": "openai"}).wantField(t, "model_name")
}

func TestMetricsCalculate(t *testing.T) {
	s := start(t, testConfig(t))
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	r := s.do("POST", "/metrics/calculate", key, map[string]any{"model_id": model, "y_true": []int{1, 0, 1, 1, 0, 1},
		"y_pred": []int{1, 0, 0, 1, 1, 1}, "metric_types": []string{"accuracy", "precision", "recall", "f1_score"}}).want(t, 200)
	// By hand: tp 3, fp 1, fn 1, tn 1.
	want := map[string]float64{"accuracy": 4.0 / 6, "precision": 0.75, "recall": 0.75, "f1_score": 0.75}
	for k, w := range want {
		if got := r.at("metrics." + k); got != w {
			t.Errorf("got %s %v, want %v", k, got, w)
		}
	}
	if r.str("model_id") != model || r.str("calculated_at") == "" {
		t.Fatalf("got %s, want model_id and calculated_at", r.raw)
	}
	s.do("POST", "/metrics/calculate", key, map[string]any{"model_id": model, "y_true": []int{1, 0}, "y_pred": []int{1},
		"metric_types": []string{"accuracy"}}).wantField(t, "y_pred")
	s.do("POST", "/metrics/calculate", key, map[string]any{"model_id": model, "y_true": []int{1}, "y_pred": []int{1},
		"metric_types": []string{"accuracy"}, "extra": 1}).wantField(t, "extra")
	s.do("POST", "/metrics/calculate", key, map[string]any{"model_id": "nope", "y_true": []int{1}, "y_pred": []int{1},
		"metric_types": []string{"accuracy"}}).wantError(t, 404, "MODEL_NOT_FOUND")
}

// TestAccounting sends 100,000 predictions at a steady pace and proves
// every acknowledged one is stored exactly once, on both pipelines.
func TestAccounting(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			cfg := p.cfg(t)
			cfg.Limits.Batch = 1 << 20
			s := start(t, cfg)
			key, _ := s.key(s.admin(), "read", "write")
			l := newLedger(s, key, s.model(key, "steady", "1"))
			for range 100 {
				if status := l.send(t, 1000); status != 201 {
					t.Fatalf("got %d, want 201", status)
				}
			}
			l.check(t, 2*time.Minute)
			if len(l.acked) != 100_000 {
				t.Fatalf("got %d acknowledged, want 100000", len(l.acked))
			}
		})
	}
}

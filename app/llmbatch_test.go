package app

import (
	"fmt"
	"testing"
)

// TestCompletionBatch logs completions in a batch with per-index errors,
// then sends the batch and one of its completions again: every
// completion_id is counted once, on both pipelines (embedded; Kafka with ClickHouse).
func TestCompletionBatch(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "assistant", "1")
		item := func(id string, prompt int) map[string]any {
			return map[string]any{"completion_id": id, "provider": "openai", "model_name": "gpt-4o",
				"tokens": map[string]any{"prompt_tokens": prompt, "completion_tokens": 1}, "latency_ms": 10, "cost": 0.5}
		}
		items := []any{item("c-1", 1), item("c-2", 2), item("c-3", 3),
			map[string]any{"provider": "openai", "model_name": "gpt-4o", "tokens": map[string]any{"prompt_tokens": -1}}}
		batch := map[string]any{"model_id": model, "completions": items}
		for range 2 {
			r := s.do("POST", "/llm/completions/batch", key, batch).want(t, 201)
			if r.at("logged") != 3.0 || r.at("failed") != 1.0 || r.at("total") != 4.0 ||
				fmt.Sprint(r.at("errors")) != "[map[field:tokens index:3 message:counts must not be negative]]" {
				t.Fatalf("got %s, want 3 logged and item 3's tokens refused", r.raw)
			}
		}
		one := item("c-2", 2)
		one["model_id"] = model
		if r := s.do("POST", "/llm/completions", key, one).want(t, 201); r.str("id") != "c-2" {
			t.Errorf("got id %q, want the completion_id c-2", r.str("id"))
		}
		// A new completion after the replays, on the same model (one
		// partition, in order): once it is counted, so are they.
		marker := item("c-4", 4)
		marker["model_id"] = model
		marker["error"] = "timeout"
		s.do("POST", "/llm/completions", key, marker).want(t, 201)
		var m response
		waitFor(t, "the marker counted", func() bool {
			m = s.do("GET", "/llm/metrics?model_id="+model, key, nil).want(t, 200)
			return m.at("totals.prompt_tokens") != nil && m.at("totals.prompt_tokens").(float64) >= 10
		})
		if m.at("totals.completions") != 4.0 || m.at("totals.prompt_tokens") != 10.0 || m.at("totals.total_cost") != 2.0 ||
			m.at("totals.errors") != 1.0 || m.at("totals.error_rate") != 0.25 || m.at("by_provider.openai.completions") != 4.0 {
			t.Errorf("got %s, want 4 completions of 10 prompt tokens costing 2, one failed: each id counted once", m.raw)
		}
		s.do("POST", "/llm/completions/batch", key, map[string]any{"model_id": model, "completions": []any{}}).wantField(t, "completions")
		other := item("c-5", 1)
		other["model_id"] = "another"
		r := s.do("POST", "/llm/completions/batch", key, map[string]any{"model_id": model, "completions": []any{other}})
		r.wantError(t, 422, "VALIDATION_ERROR")
	})
}

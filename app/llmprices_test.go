package app

import (
	"testing"
)

// TestLLMPrices: GET /llm/prices answers the built-in defaults; a PUT that
// breaks a rule answers 422 naming the field and changes nothing; a valid
// one replaces the table; completions logged without a cost are priced by
// it (a dated model name by its base name's price, provider * for any
// provider, the built-in default where the organization sets none, 0 for
// a model nobody prices), those with a cost keep theirs; on both pipelines.
func TestLLMPrices(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "assistant", "1")
		r := s.do("GET", "/llm/prices", key, nil).want(t, 200)
		if r.str("unit") != "USD per 1,000,000 tokens" || len(r.at("prices").([]any)) != 0 || len(r.at("defaults").([]any)) == 0 {
			t.Fatalf("got %s, want no own prices over the defaults", r.raw)
		}
		bad := []struct {
			body  any
			field string
		}{
			{map[string]any{"prices": []any{map[string]any{"provider": "openai", "model": "gpt-4o", "input_per_million": -1, "output_per_million": 1}}},
				"prices[0].input_per_million"},
			{map[string]any{"prices": []any{map[string]any{"provider": "openai", "model": "gpt-4o", "input_per_million": 1}}},
				"prices[0].output_per_million"},
			{map[string]any{"prices": []any{map[string]any{"provider": "", "model": "x", "input_per_million": 1, "output_per_million": 1}}},
				"prices[0].provider"},
			{map[string]any{"prices": []any{
				map[string]any{"provider": "openai", "model": "gpt-4o", "input_per_million": 1, "output_per_million": 1},
				map[string]any{"provider": "OpenAI", "model": "GPT-4o", "input_per_million": 2, "output_per_million": 2}}},
				"prices[1].model"},
			{map[string]any{}, "prices"},
		}
		for _, b := range bad {
			s.do("PUT", "/llm/prices", key, b.body).wantField(t, b.field)
		}
		own := map[string]any{"prices": []any{
			map[string]any{"provider": "OpenAI", "model": "gpt-4o", "input_per_million": 1, "output_per_million": 2},
			map[string]any{"provider": "*", "model": "llama-3", "input_per_million": 0.5, "output_per_million": 0.5},
		}}
		r = s.do("PUT", "/llm/prices", key, own).want(t, 200)
		if got := r.at("prices").([]any); len(got) != 2 || got[0].(map[string]any)["provider"] != "openai" {
			t.Fatalf("got %s, want the two prices, provider in lower case", r.raw)
		}
		if g := s.do("GET", "/llm/prices", key, nil).want(t, 200); len(g.at("prices").([]any)) != 2 {
			t.Fatalf("got %s, want the two prices stored", g.raw)
		}
		item := func(provider, name string, in, out int, cost any) map[string]any {
			m := map[string]any{"provider": provider, "model_name": name,
				"tokens": map[string]any{"prompt_tokens": in, "completion_tokens": out}}
			if cost != nil {
				m["cost"] = cost
			}
			return m
		}
		batch := map[string]any{"model_id": model, "completions": []any{
			item("openai", "gpt-4o-2024-08-06", 1_000_000, 500_000, nil), // 1 + 1
			item("meta", "llama-3-8b", 1_000_000, 1_000_000, nil),        // 0.5 + 0.5
			item("anthropic", "claude-3-5-haiku", 1_000_000, 0, nil),     // default 0.80
			item("acme", "house-model", 1_000_000, 1_000_000, nil),       // no price: 0
			item("openai", "gpt-4o", 10, 10, 0.25),                       // its own cost
		}}
		s.do("POST", "/llm/completions/batch", key, batch).want(t, 201)
		var m response
		waitFor(t, "the five completions counted", func() bool {
			m = s.do("GET", "/llm/metrics?model_id="+model, key, nil).want(t, 200)
			return m.at("totals.completions") == 5.0
		})
		for _, c := range []struct {
			path string
			want float64
		}{{"by_model.gpt-4o-2024-08-06.cost", 2}, {"by_model.llama-3-8b.cost", 1}, {"by_model.claude-3-5-haiku.cost", 0.8},
			{"by_model.house-model.cost", 0}, {"by_model.gpt-4o.cost", 0.25}} {
			if got, _ := m.at(c.path).(float64); !near(got, c.want) {
				t.Errorf("%s: got %v, want %v; metrics %s", c.path, m.at(c.path), c.want, m.raw)
			}
		}
	})
}

// near reports whether a and b agree to 1e-9, relatively.
func near(a, b float64) bool {
	d := a - b
	if d < 0 {
		d = -d
	}
	return d <= 1e-9*(1+max(a, -a, b, -b))
}

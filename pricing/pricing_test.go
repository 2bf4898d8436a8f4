package pricing

import "testing"

func TestLookup(t *testing.T) {
	table := NewTable([]Price{
		{Provider: "OpenAI", Model: "GPT-4o", InputPerMillion: 1, OutputPerMillion: 2},
		{Provider: "*", Model: "llama-3", InputPerMillion: 0.5, OutputPerMillion: 0.5},
		{Provider: "meta", Model: "llama-3-70b", InputPerMillion: 3, OutputPerMillion: 3},
	})
	for _, c := range []struct {
		provider, model string
		want            float64 // the input price; -1: none
	}{
		{"openai", "gpt-4o", 1},            // own over the default
		{"OPENAI", "gpt-4o-2024-08-06", 1}, // dated name, any case
		{"openai", "gpt-4o-mini", 0.15},    // the longer default wins over own gpt-4o
		{"openai", "gpt-4o-mini-2024-07-18", 0.15},
		{"meta", "llama-3-70b-instruct", 3}, // own provider over *
		{"meta", "llama-3-8b", 0.5},         // * when the provider has none
		{"groq", "llama-3", 0.5},
		{"anthropic", "claude-3-5-haiku@20241022", 0.80},
		{"acme", "house-model", -1},
		{"openai", "gpt", -1}, // a prefix of a priced name is not priced
	} {
		p, ok := table.Lookup(c.provider, c.model)
		got := p.InputPerMillion
		if !ok {
			got = -1
		}
		if got != c.want {
			t.Errorf("Lookup(%q, %q): got input price %v, want %v", c.provider, c.model, got, c.want)
		}
	}
	if got := (Price{InputPerMillion: 2.5, OutputPerMillion: 10}).Cost(1000, 200); got != 0.0045 {
		t.Errorf("got cost %v, want 0.0045", got)
	}
}

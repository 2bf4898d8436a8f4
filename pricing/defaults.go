package pricing

// Defaults are the built-in prices, as the providers published them for
// their standard (not batch, not cached-input) tier in 2025. They are a
// starting point, not a promise: an organization sets its own with
// PUT /llm/prices, which override these entry by entry.
var Defaults = []Price{
	{"openai", "gpt-4o", 2.50, 10.00},
	{"openai", "gpt-4o-mini", 0.15, 0.60},
	{"openai", "gpt-4.1", 2.00, 8.00},
	{"openai", "gpt-4.1-mini", 0.40, 1.60},
	{"openai", "gpt-4.1-nano", 0.10, 0.40},
	{"openai", "gpt-4-turbo", 10.00, 30.00},
	{"openai", "gpt-3.5-turbo", 0.50, 1.50},
	{"openai", "o1", 15.00, 60.00},
	{"openai", "o3-mini", 1.10, 4.40},
	{"anthropic", "claude-3-5-sonnet", 3.00, 15.00},
	{"anthropic", "claude-3-7-sonnet", 3.00, 15.00},
	{"anthropic", "claude-sonnet-4", 3.00, 15.00},
	{"anthropic", "claude-3-5-haiku", 0.80, 4.00},
	{"anthropic", "claude-3-haiku", 0.25, 1.25},
	{"anthropic", "claude-3-opus", 15.00, 75.00},
	{"anthropic", "claude-opus-4", 15.00, 75.00},
	{"gcp.gemini", "gemini-1.5-flash", 0.075, 0.30},
	{"gcp.gemini", "gemini-1.5-pro", 1.25, 5.00},
	{"gcp.gemini", "gemini-2.0-flash", 0.10, 0.40},
	{"mistral_ai", "mistral-large", 2.00, 6.00},
	{"mistral_ai", "mistral-small", 0.20, 0.60},
}

package app

import (
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/export"
)

// TestReportCategoryData: each built-in category shows its own data. The
// bias audit report lists the fairness results of the audits of its
// period; the LLM monitoring report of a model with logged completions
// shows their count, tokens, cost and latency, in its summary and by LLM
// model.
func TestReportCategoryData(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "assistant", "1")
		fairAudit(t, s, admin, model)
		item := func(name string, in, out, latency int, cost float64) map[string]any {
			return map[string]any{"provider": "openai", "model_name": name, "latency_ms": latency, "cost": cost,
				"tokens": map[string]any{"prompt_tokens": in, "completion_tokens": out}}
		}
		s.do("POST", "/llm/completions/batch", admin, map[string]any{"model_id": model, "completions": []any{
			item("gpt-4o", 100, 50, 200, 0.5), item("gpt-4o", 300, 150, 400, 1.5)}}).want(t, 201)
		waitFor(t, "the two completions counted", func() bool {
			return s.do("GET", "/llm/metrics?model_id="+model, admin, nil).want(t, 200).at("totals.completions") == 2.0
		})
		today := time.Now().UTC()

		audit := reportSections(t, s, admin, builtinOf(t, export.CategoryBiasAudit), []string{model}, today.AddDate(0, 0, -1), today)
		rows, _ := audit["fairness_results"]["table"].(map[string]any)["rows"].([]any)
		if len(rows) != 1 || !strings.Contains(rows[0].([]any)[7].(string), "passed") || rows[0].([]any)[4] != "1" {
			t.Errorf("got the fairness results %v, want the fair audit, score 1, its metrics passed", audit["fairness_results"])
		}

		llm := reportSections(t, s, admin, builtinOf(t, export.CategoryLLMMonitoring), []string{model}, today.AddDate(0, 0, -1), today)
		rows, _ = llm["llm_usage"]["table"].(map[string]any)["rows"].([]any)
		want := []any{"assistant", "gpt-4o", "2", "400", "200", "600", "2", "300"}
		if len(rows) != 1 || strings.Join(strs(rows[0].([]any)), ",") != strings.Join(strs(want), ",") {
			t.Errorf("got the LLM usage %v, want %v", llm["llm_usage"], want)
		}
		figures := map[string]any{}
		for _, f := range llm["executive_summary"]["figures"].([]any) {
			figures[f.(map[string]any)["label"].(string)] = f.(map[string]any)["value"]
		}
		if figures["Completions"] != "2" || figures["Tokens"] != "600" || figures["LLM cost (USD)"] != "2.0000" ||
			figures["Mean completion latency (ms)"] != "300.0" {
			t.Errorf("got the summary %v, want the completions, tokens, cost and latency", figures)
		}

		before := reportSections(t, s, admin, builtinOf(t, export.CategoryLLMMonitoring), []string{model}, today.AddDate(0, 0, -40),
			today.AddDate(0, 0, -30))
		if before["llm_usage"]["empty"] != true {
			t.Errorf("got the LLM usage %v of a period before any completion, want it empty", before["llm_usage"])
		}
	})
}

// strs is each value's text.
func strs(vs []any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i], _ = v.(string)
	}
	return out
}

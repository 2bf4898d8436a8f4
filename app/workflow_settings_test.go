package app

import (
	"net/url"
	"testing"
)

// TestWorkflowSettings: PUT /webhooks/workflow-tool/config changes what
// later reports log: without track_all_nodes only AI nodes, and with
// min_execution_time_ms only executions that took that long, failed ones
// kept whatever their time; GET config answers the settings; bad values
// answer 422 naming the field and change nothing.
func TestWorkflowSettings(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		if c := s.do("GET", "/webhooks/workflow-tool/config", key, nil).want(t, 200); c.at("track_all_nodes") != true ||
			c.at("min_execution_time_ms") != 0.0 {
			t.Fatalf("got %s, want the defaults: every node, whatever its time", c.raw)
		}
		s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"min_execution_time_ms": -1}).wantField(t, "min_execution_time_ms")
		s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"min_execution_time_ms": 86400001}).wantField(t, "min_execution_time_ms")
		s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"track_all_nodes": "no"}).wantField(t, "track_all_nodes")
		s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"track_all": false}).wantField(t, "track_all")
		viewer := s.user(admin, "vic", "viewer")
		s.do("PUT", "/webhooks/workflow-tool/config", viewer, map[string]any{"track_all_nodes": false}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if c := s.do("GET", "/webhooks/workflow-tool/config", key, nil).want(t, 200); c.at("track_all_nodes") != true {
			t.Fatalf("got %s after refused changes, want the defaults kept", c.raw)
		}

		put := s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"track_all_nodes": false}).want(t, 200)
		if put.at("track_all_nodes") != false || put.at("min_execution_time_ms") != 0.0 {
			t.Fatalf("got %s, want track_all_nodes false, the time kept", put.raw)
		}
		put = s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"min_execution_time_ms": 100}).want(t, 200)
		if put.at("track_all_nodes") != false || put.at("min_execution_time_ms") != 100.0 {
			t.Fatalf("got %s, want both settings", put.raw)
		}
		if c := s.do("GET", "/webhooks/workflow-tool/config", key, nil).want(t, 200); c.at("track_all_nodes") != false ||
			c.at("min_execution_time_ms") != 100.0 {
			t.Fatalf("got %s, want the settings stored", c.raw)
		}
		// Webhook (utility, 4 ms): left out; Classify (AI, 812 ms): kept;
		// Notify (AI by its type, 30 ms, failed): kept; Quick (AI, 10 ms):
		// left out.
		r := workflowReport("2001", "success", true)
		r["nodes"] = append(r["nodes"].([]any), map[string]any{"node_name": "Quick", "node_type": "n8n-nodes-base.openAiChat",
			"execution_time_ms": 10, "status": "success"})
		id := s.do("POST", executionPath, key, r).want(t, 200).str("workflow_id")
		w := s.do("GET", "/workflows/"+id, admin, nil).want(t, 200)
		if w.at("agent_count") != 2.0 || w.at("execution_count") != 2.0 {
			t.Fatalf("got %s, want 2 agents and 2 executions", w.raw)
		}
		execs := s.do("GET", "/workflows/"+id+"/executions", admin, nil).want(t, 200).at("executions").([]any)
		got := map[string]float64{}
		for _, e := range execs {
			e := e.(map[string]any)
			got[e["agent_name"].(string)] = e["position"].(float64)
		}
		if len(got) != 2 || got["Classify"] != 1 || got["Notify"] != 2 {
			t.Errorf("got executions %v, want Classify at 1 and Notify at 2 (positions of the report)", got)
		}
		s.do("PUT", "/webhooks/workflow-tool/config", admin, map[string]any{"track_all_nodes": true, "min_execution_time_ms": 0}).want(t, 200)
		again := s.do("POST", executionPath, key, r).want(t, 200)
		if w := s.do("GET", "/workflows/"+again.str("workflow_id"), admin, nil).want(t, 200); w.at("execution_count") != 4.0 {
			t.Errorf("got %s after the defaults are back, want all 4 executions", w.raw)
		}
	})
}

// TestWorkflowLLMMetrics: the AI nodes whose output reports token counts
// (OpenAI's usage, the LangChain nodes' tokenUsage) count in GET
// /llm/metrics as completions of the tool workflow's model; a redelivered
// report counts them once. On both pipelines (embedded, Kafka with
// ClickHouse).
func TestWorkflowLLMMetrics(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		r := workflowReport("3001", "success", true)
		nodes := r["nodes"].([]any)
		nodes[1].(map[string]any)["output_data"] = map[string]any{"label": "billing", "model": "gpt-4o-mini",
			"usage": map[string]any{"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42}}
		// A utility node's usage does not count.
		nodes[0].(map[string]any)["output_data"] = map[string]any{"usage": map[string]any{"prompt_tokens": 1000}}
		r["nodes"] = append(nodes, map[string]any{"node_name": "Agent", "node_type": "@n8n/n8n-nodes-langchain.lmChatOpenAi",
			"output_data":       map[string]any{"tokenUsage": map[string]any{"promptTokens": 5, "completionTokens": 3}},
			"execution_time_ms": 300, "status": "success"})
		s.do("POST", executionPath, key, r).want(t, 200)
		s.do("POST", executionPath, key, r).want(t, 200)

		models := s.do("GET", "/models?search="+url.QueryEscape("workflow-tool:wf-1"), admin, nil).want(t, 200)
		list := models.list
		if len(list) != 1 {
			t.Fatalf("got %s, want the workflow's one model", models.raw)
		}
		model := list[0].(map[string]any)
		if model["model_type"] != "llm" || model["name"] != "workflow-tool:wf-1" {
			t.Fatalf("got %v, want the llm model workflow-tool:wf-1", model)
		}
		id := model["id"].(string)
		// A completion logged after the reports, for the same model, is
		// read only once everything before it is: then the count is final.
		s.do("POST", "/llm/completions", admin, map[string]any{"model_id": id, "provider": "sentinel", "model_name": "s"}).want(t, 201)
		metrics := "/llm/metrics?model_id=" + id + "&start_time=2000-01-01T00:00:00Z&end_time=2100-01-01T00:00:00Z"
		waitFor(t, "the sentinel completion counted", func() bool {
			return s.do("GET", metrics, admin, nil).at("by_provider.sentinel.completions") == 1.0
		})
		m := s.do("GET", metrics, admin, nil).want(t, 200)
		for path, want := range map[string]float64{"totals.completions": 3, "totals.total_tokens": 50, "totals.prompt_tokens": 35,
			"by_provider.openai.completions": 2, "by_provider.openai.total_tokens": 50} {
			if got := m.at(path); got != want {
				t.Errorf("%s: got %v, want %v (%s)", path, got, want, m.raw)
			}
		}
	})
}

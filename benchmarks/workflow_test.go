package benchmarks

import (
	"fmt"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// workflowRun is an execution report of run exec with nodes node records
// of about 200 bytes of input and output each.
func workflowRun(exec string, nodes int) map[string]any {
	ns := make([]any, nodes)
	for i := range ns {
		ns[i] = map[string]any{"node_name": fmt.Sprintf("node-%d", i), "node_type": "n8n-nodes-base.openAi",
			"input_data":  map[string]any{"prompt": "classify the ticket text that the customer wrote", "i": i},
			"output_data": map[string]any{"label": "billing", "confidence": 0.93, "tokens": 120}, "execution_time_ms": 40 + i,
			"status": "success"}
	}
	return map[string]any{"workflow_id": "wf-bench", "execution_id": exec, "status": "success",
		"started_at": "2026-01-31T12:00:00Z", "finished_at": "2026-01-31T12:00:03Z", "mode": "trigger", "nodes": ns}
}

// BenchmarkWorkflowReceiver measures POST /webhooks/workflow-tool/execution
// through a real server, one client: a new run of 20 nodes, the same run
// delivered again (the record and its 20 agents and executions replaced),
// and, as the baseline of the same run, POST /models (one transactional
// row and its tags).
func BenchmarkWorkflowReceiver(b *testing.B) {
	for _, e := range []struct {
		name  string
		tweak func(b *testing.B) func(*config.Config)
	}{
		{"sqlite", func(*testing.B) func(*config.Config) { return nil }},
		{"postgres", func(b *testing.B) func(*config.Config) {
			url := testenv.PostgresSchema(b)
			return func(c *config.Config) { c.PostgresURL = url }
		}},
	} {
		b.Run(e.name, func(b *testing.B) {
			base := server(b, e.tweak(b))
			key := apiKey(b, base)
			url := base + "/webhooks/workflow-tool/execution"
			// n names every run and model apart, across the rounds that
			// the benchmark runs each case in.
			n := 0
			b.Run("new-run-20-nodes", func(b *testing.B) {
				for range b.N {
					n++
					post(b, url, key, workflowRun(fmt.Sprintf("new-%d", n), 20))
				}
			})
			b.Run("redelivery-20-nodes", func(b *testing.B) {
				run := workflowRun("again", 20)
				for range b.N {
					post(b, url, key, run)
				}
			})
			b.Run("baseline-create-model", func(b *testing.B) {
				for range b.N {
					n++
					post(b, base+"/models", key, map[string]any{"name": fmt.Sprintf("m-%d", n), "model_type": "classification",
						"tags": []string{"a", "b"}})
				}
			})
		})
	}
}

package app

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// workflowReport is an execution report of run exec of the tool's
// workflow wf-1 in status, finished or not, with three nodes: a webhook, an
// OpenAI call and a failed e-mail step.
func workflowReport(exec, status string, finished bool) map[string]any {
	r := map[string]any{"workflow_id": "wf-1", "workflow_name": "Support triage", "execution_id": exec,
		"status": status, "started_at": "2026-01-31T12:00:00Z", "mode": "trigger", "meta_data": map[string]any{"instance": "prod"},
		"nodes": []any{
			map[string]any{"node_name": "Webhook", "node_type": "n8n-nodes-base.webhook", "input_data": map[string]any{},
				"output_data": map[string]any{"text": "help"}, "execution_time_ms": 4, "status": "success"},
			map[string]any{"node_name": "Classify", "node_type": "n8n-nodes-base.openAi", "input_data": map[string]any{"prompt": "help"},
				"output_data": map[string]any{"label": "billing"}, "execution_time_ms": 812, "status": "success"},
			map[string]any{"node_name": "Notify", "node_type": "n8n-nodes-base.emailSend", "input_data": map[string]any{"to": "ops"},
				"execution_time_ms": 30, "status": "error", "error": "SMTP refused"},
		}}
	if finished {
		r["finished_at"] = "2026-01-31T12:00:03Z"
	}
	return r
}

const executionPath = "/webhooks/workflow-tool/execution"

// TestWorkflowReceiver: a run reported running, then finished, is one
// record whose state follows the status; its nodes are agents with their
// executions; a late running report changes nothing.
func TestWorkflowReceiver(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		first := s.do("POST", executionPath, key, workflowReport("1001", "running", false)).want(t, 200)
		id := first.str("workflow_id")
		if first.str("status") != "success" || id == "" || first.str("received_at") == "" {
			t.Fatalf("got %s, want status success with a workflow_id and received_at", first.raw)
		}
		if w := s.do("GET", "/workflows/"+id, admin, nil).want(t, 200); w.str("state") != "running" ||
			w.str("external_id") != "workflow-tool:wf-1:1001" || w.str("framework") != "workflow-tool" {
			t.Fatalf("got %s, want a running record workflow-tool:wf-1:1001", w.raw)
		}
		agentsBefore := s.do("GET", "/workflows/"+id+"/agents", admin, nil).want(t, 200)

		again := s.do("POST", executionPath, key, workflowReport("1001", "success", true)).want(t, 200)
		if again.str("workflow_id") != id {
			t.Fatalf("got workflow_id %s on the second delivery, want %s", again.str("workflow_id"), id)
		}
		w := s.do("GET", "/workflows/"+id, admin, nil).want(t, 200)
		if w.str("state") != "completed" || w.str("finished_at") != "2026-01-31T12:00:03Z" || w.at("agent_count") != float64(3) ||
			w.at("execution_count") != float64(3) || w.at("metadata.instance") != "prod" || w.str("name") != "Support triage" {
			t.Fatalf("got %s, want the completed record with 3 agents and 3 executions", w.raw)
		}
		agents := s.do("GET", "/workflows/"+id+"/agents", admin, nil).want(t, 200)
		if string(agents.raw) != string(agentsBefore.raw) {
			t.Errorf("agents changed on redelivery:\n got %s\nwant %s", agents.raw, agentsBefore.raw)
		}
		want := map[string][2]string{"Classify": {"n8n-nodes-base.openAi", "ai"}, "Notify": {"n8n-nodes-base.emailSend", "ai"},
			"Webhook": {"n8n-nodes-base.webhook", "utility"}}
		agentID := map[string]string{}
		for _, a := range agents.at("agents").([]any) {
			a := a.(map[string]any)
			name := a["name"].(string)
			if w := want[name]; a["role"] != w[0] || a["agent_type"] != w[1] {
				t.Errorf("agent %s: got role %v and type %v, want %v", name, a["role"], a["agent_type"], w)
			}
			agentID[name] = a["id"].(string)
		}
		if agents.at("total") != float64(3) || len(agentID) != 3 {
			t.Fatalf("got %s, want three agents", agents.raw)
		}
		execs := s.do("GET", "/workflows/"+id+"/executions?status=error", admin, nil).want(t, 200)
		list := execs.at("executions").([]any)
		if len(list) != 1 {
			t.Fatalf("got %s, want the one failed execution", execs.raw)
		}
		e := list[0].(map[string]any)
		if e["agent_id"] != agentID["Notify"] || e["error"] != "SMTP refused" || e["execution_time_ms"] != float64(30) ||
			e["position"] != float64(2) || e["input_data"].(map[string]any)["to"] != "ops" || len(e["output_data"].(map[string]any)) != 0 {
			t.Errorf("got %v, want Notify's failed execution with its input, time and error", e)
		}
		one := s.do("GET", "/workflows/"+id+"/agents/"+agentID["Classify"]+"/executions", admin, nil).want(t, 200)
		if one.at("total") != float64(1) || one.at("executions").([]any)[0].(map[string]any)["output_data"].(map[string]any)["label"] != "billing" {
			t.Errorf("got %s, want Classify's execution and its output", one.raw)
		}

		late := s.do("POST", executionPath, key, workflowReport("1001", "running", false)).want(t, 200)
		if late.str("workflow_id") != id || s.do("GET", "/workflows/"+id, admin, nil).str("state") != "completed" {
			t.Errorf("a late running report: got %s, want the record kept completed", late.raw)
		}
		failed := s.do("POST", executionPath, key, workflowReport("1002", "error", true)).want(t, 200)
		if s.do("GET", "/workflows/"+failed.str("workflow_id"), admin, nil).str("state") != "failed" {
			t.Error("a run reported error with finished_at: got another state, want failed")
		}
		unfinished := s.do("POST", executionPath, key, workflowReport("1003", "success", false)).want(t, 200)
		if s.do("GET", "/workflows/"+unfinished.str("workflow_id"), admin, nil).str("state") != "running" {
			t.Error("a success report without finished_at: got another state, want running")
		}
		page := s.do("GET", "/workflows?page_size=2", admin, nil).want(t, 200)
		if page.at("total") != float64(3) || len(page.at("workflows").([]any)) != 2 || page.at("has_next") != true {
			t.Errorf("got %s, want page 1 of 2 of three records", page.raw)
		}
		if r := s.do("GET", "/workflows?state=failed", admin, nil).want(t, 200); r.at("total") != float64(1) {
			t.Errorf("got %s, want one failed record", r.raw)
		}
		s.do("GET", "/workflows?state=done", admin, nil).wantField(t, "state")
		s.do("GET", "/workflows/"+id+"/agents/"+failed.str("workflow_id")+"/executions", admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("GET", "/workflows/"+id+"/executions?status=done", admin, nil).wantField(t, "status")
		if r := s.do("GET", "/workflows?tool_workflow=wf-1", admin, nil).want(t, 200); r.at("total") != float64(3) {
			t.Errorf("got %s, want the three runs of wf-1", r.raw)
		}
	})
}

// TestWorkflowReceiverConcurrent: one run delivered many times at once is
// one record.
func TestWorkflowReceiverConcurrent(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		const n = 10
		ids := make([]string, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r := s.do("POST", executionPath, key, workflowReport("2001", "success", true))
				if r.status != 200 {
					t.Errorf("delivery %d: got status %d, want 200; body %s", i, r.status, r.raw)
				}
				ids[i] = r.str("workflow_id")
			}()
		}
		wg.Wait()
		for i := range ids {
			if ids[i] != ids[0] || ids[i] == "" {
				t.Fatalf("got workflow ids %v, want one id", ids)
			}
		}
		list := s.do("GET", "/workflows", admin, nil).want(t, 200)
		if list.at("total") != float64(1) {
			t.Fatalf("got %s, want one record", list.raw)
		}
		if r := s.do("GET", "/workflows/"+ids[0]+"/executions", admin, nil).want(t, 200); r.at("total") != float64(3) {
			t.Fatalf("got %s, want the run's three executions once", r.raw)
		}
	})
}

// TestWorkflowReceiverAuth: no key, a login token, an unknown or revoked
// key answer 401; a key without webhooks:write 403.
func TestWorkflowReceiverAuth(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		report := workflowReport("3001", "success", true)
		s.do("POST", executionPath, "", report).wantError(t, 401, "AUTHENTICATION_FAILED")
		s.do("POST", executionPath, admin, report).wantError(t, 401, "AUTHENTICATION_FAILED")
		s.do("POST", executionPath, "vgl_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA000000", report).wantError(t, 401, "AUTHENTICATION_FAILED")
		revoked, revokedID := s.key(admin, "webhooks:write")
		s.do("POST", executionPath, revoked, report).want(t, 200)
		s.do("DELETE", "/api-keys/"+revokedID, admin, nil).want(t, 204)
		s.do("POST", executionPath, revoked, report).wantError(t, 401, "AUTHENTICATION_FAILED")
		reader, _ := s.key(admin, "read")
		r := s.do("POST", executionPath, reader, report).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		if r.at("error.details.required_permission") != "webhooks:write" {
			t.Errorf("got details %v, want required_permission webhooks:write", r.at("error.details"))
		}
		// A key acts with its creator's current role: vera's, once a viewer,
		// lacks webhooks:write.
		vera := s.user(admin, "vera", "admin")
		viewerKey, _ := s.key(vera, "write")
		s.do("PUT", "/users/"+s.do("GET", "/auth/me", vera, nil).str("user.id")+"/role", admin, map[string]any{"role": "viewer"}).want(t, 200)
		s.do("POST", executionPath, viewerKey, report).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("GET", "/webhooks/workflow-tool/config", viewerKey, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("POST", "/webhooks/workflow-tool/test", viewerKey, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("GET", "/webhooks/workflow-tool/config", admin, nil).wantError(t, 401, "AUTHENTICATION_FAILED")
	})
}

// TestWorkflowReceiverUnlimited (issue 41, point 4; spec 2: no rate
// limit on the workflow receiver): once the organization's standard
// bucket is spent, the receiver still takes every report, with no
// X-RateLimit headers; the other routes answer 429.
func TestWorkflowReceiverUnlimited(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.Limits.Standard = 3 }, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		for i := 0; s.do("GET", "/models", admin, nil).status != 429; i++ {
			if i > 3 {
				t.Fatal("the standard bucket of 3 is not spent after 4 requests")
			}
		}
		for i := range 5 {
			r := s.do("POST", executionPath, key, workflowReport(fmt.Sprint("4", i), "success", true)).want(t, 200)
			if h := r.header.Get("X-RateLimit-Limit"); h != "" {
				t.Errorf("report %d: got X-RateLimit-Limit %s, want none", i, h)
			}
		}
		s.do("GET", "/webhooks/workflow-tool/config", key, nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		if r := s.do("GET", "/workflows", admin, nil); r.status != 429 {
			t.Errorf("got %d for GET /workflows, want 429 with the bucket spent", r.status)
		}
	})
}

// TestWorkflowReceiverBodyCap: a report of exactly 10 MiB is taken and one
// byte more answers 413, whatever the server's own body limit (here 32
// MiB, so that the server reads the body and the receiver's cap answers).
func TestWorkflowReceiverBodyCap(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.BodyLimit = 32 << 20 }, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		body := func(exec string, size int) string {
			head := `{"workflow_id":"wf-1","execution_id":"` + exec + `","status":"running","started_at":"2026-01-31T12:00:00Z","meta_data":{"pad":"`
			return head + strings.Repeat("x", size-len(head)-3) + `"}}`
		}
		s.do("POST", executionPath, key, body("big", 10<<20+1)).wantError(t, 413, "PAYLOAD_TOO_LARGE")
		s.do("POST", executionPath, key, body("fits", 10<<20)).want(t, 200)
		r := s.do("GET", "/workflows", admin, nil).want(t, 200)
		if r.at("total") != float64(1) || r.at("workflows").([]any)[0].(map[string]any)["tool_execution_id"] != "fits" {
			t.Errorf("got %s, want only the record of the report that fits", r.raw)
		}
	})
}

// TestWorkflowReceiverValidation: each bad report answers 422 naming the
// field and stores nothing.
func TestWorkflowReceiverValidation(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		f := func(field string, change func(r map[string]any)) {
			t.Helper()
			r := workflowReport("4001", "success", true)
			change(r)
			s.do("POST", executionPath, key, r).wantField(t, field)
		}
		node := func(r map[string]any) map[string]any { return r["nodes"].([]any)[1].(map[string]any) }
		f("workflow_id", func(r map[string]any) { delete(r, "workflow_id") })
		f("workflow_id", func(r map[string]any) { r["workflow_id"] = "a:b" })
		f("execution_id", func(r map[string]any) { r["execution_id"] = "  " })
		f("status", func(r map[string]any) { r["status"] = "done" })
		f("started_at", func(r map[string]any) { delete(r, "started_at") })
		f("started_at", func(r map[string]any) { r["started_at"] = "yesterday" })
		f("finished_at", func(r map[string]any) { r["finished_at"] = "2026-01-31T11:59:59Z" })
		f("mode", func(r map[string]any) { r["mode"] = "" })
		f("nodes[1].node_name", func(r map[string]any) { delete(node(r), "node_name") })
		f("nodes[1].node_type", func(r map[string]any) { node(r)["node_type"] = "" })
		f("nodes[1].status", func(r map[string]any) { node(r)["status"] = "ok" })
		f("nodes[1].execution_time_ms", func(r map[string]any) { node(r)["execution_time_ms"] = -1 })
		f("nodes.execution_time_ms", func(r map[string]any) { node(r)["execution_time_ms"] = 1.5 }) // the decoder's naming
		f("org_id", func(r map[string]any) { r["org_id"] = "00000000-0000-0000-0000-000000000000" })
		s.do("POST", "/webhooks/workflow-tool/test", key, `{"x":1}`).wantField(t, "x")
		if r := s.do("GET", "/workflows", admin, nil).want(t, 200); r.at("total") != float64(0) {
			t.Errorf("got %s, want nothing stored", r.raw)
		}
	})
}

// TestWorkflowTenancy: another organization's record answers 404 on every
// read, and the same tool ids in another organization are another record.
func TestWorkflowTenancy(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		id := s.do("POST", executionPath, key, workflowReport("5001", "success", true)).want(t, 200).str("workflow_id")
		other := s.signUp("otherorg")
		agent := s.do("GET", "/workflows/"+id+"/agents", admin, nil).at("agents").([]any)[0].(map[string]any)["id"].(string)
		for _, path := range []string{"/workflows/" + id, "/workflows/" + id + "/agents", "/workflows/" + id + "/executions",
			"/workflows/" + id + "/agents/" + agent + "/executions"} {
			mine := s.do("GET", path, other, nil).wantError(t, 404, "NOT_FOUND")
			missing := s.do("GET", strings.Replace(path, id, "0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f", 1), other, nil).wantError(t, 404, "NOT_FOUND")
			if mine.str("error.message") != missing.str("error.message") {
				t.Errorf("%s: got %q, want the missing id's %q", path, mine.str("error.message"), missing.str("error.message"))
			}
		}
		if r := s.do("GET", "/workflows", other, nil).want(t, 200); r.at("total") != float64(0) {
			t.Errorf("got %s, want another organization's records hidden", r.raw)
		}
		otherKey, _ := s.key(other, "webhooks:write")
		theirs := s.do("POST", executionPath, otherKey, workflowReport("5001", "success", true)).want(t, 200).str("workflow_id")
		if theirs == id {
			t.Fatal("the same tool ids in another organization: got the first organization's record, want a record of its own")
		}
	})
}

// TestWorkflowToolConfigAndTest: the config names the receiver's URL and
// the key's hint, never the key; the test stores one record per key.
func TestWorkflowToolConfigAndTest(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "webhooks:write")
		c := s.do("GET", "/webhooks/workflow-tool/config", key, nil).want(t, 200)
		if c.str("webhook_url") != s.base+executionPath || c.at("track_all_nodes") != true || c.at("min_execution_time_ms") != float64(0) {
			t.Errorf("got %s, want the receiver's URL %s and every node tracked", c.raw, s.base+executionPath)
		}
		if hint := c.str("api_key"); strings.Contains(string(c.raw), key) || !strings.HasPrefix(hint, "vgl_live_") || !strings.HasSuffix(hint, key[len(key)-4:]) {
			t.Errorf("got api_key %q, want the key's hint and never the key", hint)
		}
		first := s.do("POST", "/webhooks/workflow-tool/test", key, nil).want(t, 200)
		second := s.do("POST", "/webhooks/workflow-tool/test", key, nil).want(t, 200)
		if first.str("status") != "test_successful" || first.str("workflow_id") == "" || first.str("workflow_id") != second.str("workflow_id") {
			t.Fatalf("got %s and %s, want test_successful with one record", first.raw, second.raw)
		}
		w := s.do("GET", "/workflows/"+first.str("workflow_id"), admin, nil).want(t, 200)
		if w.str("state") != "completed" || !strings.HasPrefix(w.str("external_id"), "workflow-tool:connection-test:") {
			t.Errorf("got %s, want the completed connection-test record", w.raw)
		}
	})
}

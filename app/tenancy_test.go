package app

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/schemas"
)

// tenancyBodies are valid bodies for the {id} routes that take one, so that
// validation cannot answer before the lookup does.
var tenancyBodies = map[string]any{
	"PATCH /models/:model_id":        map[string]any{"description": "changed by another organization"},
	"PATCH /models/:model_id/status": map[string]any{"status": "inactive"},
	"PUT /models/:model_id/baseline": map[string]any{"baseline_metrics": map[string]any{"accuracy": 0.1}},
	"PUT /models/:model_id/artifact": map[string]any{"kind": "linear", "features": []any{"a"}, "coefficients": []any{1},
		"intercept": 0, "link": "identity"},
	"PUT /models/:model_id/serving":          map[string]any{"protocol": "mlflow", "url": "https://models.example.com", "features": []any{"a"}},
	"PUT /users/:user_id/role":               map[string]any{"role": "viewer"},
	"PUT /drift/reference/:model_id":         map[string]any{"reference_data": map[string]any{"x": []any{1, 2}}},
	"POST /drift/reference/:model_id/append": map[string]any{"reference_data": map[string]any{"x": []any{1, 2}}},
	"PATCH /risk-register/:entry_id":         map[string]any{"title": "changed by another organization"},
	"PATCH /export/templates/:template_id":   map[string]any{"name": "renamed by another organization"},
	"PUT /export/templates/:template_id": map[string]any{"name": "replaced by another organization", "report_category": "custom",
		"sections": []any{"trust_score"}},
	"PUT /export/configs/:config_id":        map[string]any{"name": "renamed by another organization"},
	"PATCH /organizations/:org_id/branding": map[string]any{"primary_color": "#000000"},
	"POST /export/exports/:export_id/share": map[string]any{"recipient_email": "mallory@example.com"},
	"PUT /export/integrations/:integration_id": map[string]any{"name": "renamed by another organization", "type": "email",
		"settings": map[string]any{"recipients": []string{"mallory@example.com"}}},

	// Review boards.
	"PUT /governance/review-boards/:board_id":                       map[string]any{"name": "renamed by another organization"},
	"POST /governance/review-boards/:board_id/members":              map[string]any{"user_id": "x", "role": "voter"},
	"POST /governance/review-boards/requests/:request_id/decisions": map[string]any{"decision": "approve"},

	// Code-host automation.
	"POST /codehost/automation/repositories/:repository_id/branch-protection/enable":                  map[string]any{"branches": []string{"main"}},
	"POST /codehost/automation/repositories/:repository_id/branch-protection/:branch/required-checks": map[string]any{"check_context": "ci"},
	"POST /codehost/automation/repositories/:repository_id/checks/validation": map[string]any{"head_sha": strings.Repeat("a", 40),
		"model_name": "m", "validation_passed": true},
	"POST /codehost/automation/repositories/:repository_id/checks/comparison": map[string]any{"head_sha": strings.Repeat("a", 40),
		"model_name": "m", "comparison_passed": true},
	"POST /codehost/automation/repositories/:repository_id/pr-comments/:pr_number/validation": map[string]any{"model_name": "m", "validation_passed": true},
	"POST /codehost/automation/repositories/:repository_id/pr-comments/:pr_number/comparison": map[string]any{"model_name": "m", "comparison_passed": true},
	"PUT /codehost/automation/repositories/:repository_id/pr-comments/:pr_number":             map[string]any{"comment_body": "x", "comment_identifier": "a"},

	// Alerts.
	"PATCH /alerts/rules/:rule_id":            map[string]any{"name": "changed by another organization"},
	"POST /alerts/instances/:alert_id/snooze": map[string]any{"until": time.Now().Add(time.Hour).UTC().Format(time.RFC3339)},
}

// TestCrossOrganization: organization B calls every route that takes an id
// with organization A's ids, on every verb. Each answers exactly as a
// random id does, and A's records are unchanged afterwards.
func TestCrossOrganization(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		a := s.admin()
		model := s.model(a, "secret-model", "1")
		s.user(a, "alice", "editor")
		aliceID := s.do("GET", "/users?page_size=10", a, nil).at("users").([]any)[1].(map[string]any)["id"].(string)
		role := s.do("POST", "/roles", a, map[string]any{"name": "auditor", "permissions": []string{"models:read"}}).want(t, 201).str("id")
		keyRaw, keyID := s.key(a, "read")

		s.do("POST", "/predictions/log", a, map[string]any{"model_id": model, "prediction_id": "secret-prediction",
			"input_data": map[string]any{}, "output_data": map[string]any{}}).want(t, 201)
		waitFor(t, "A's prediction stored", func() bool {
			return s.do("GET", "/predictions/models/"+model+"/predictions/secret-prediction", a, nil).status == 200
		})
		orgA := s.do("GET", "/auth/me", a, nil).want(t, 200).str("user.organization_id")
		report := drift.Report{ID: uuid.NewString(), OrgID: orgA, ModelID: model, DriftType: drift.TypeData, Severity: drift.Low,
			CreatedAt: time.Now()}
		if err := s.app.store.CreateDriftReport(t.Context(), report); err != nil {
			t.Fatalf("CreateDriftReport: %v", err)
		}
		audit := s.do("POST", "/bias/audit", a, map[string]any{"model_id": model, "sensitive_attributes": []string{"g"},
			"y_pred": []int{1, 0}, "group_data": map[string]any{"g": []string{"x", "y"}}}).want(t, 202).str("id")
		pollAudit(t, s, a, audit, "completed")
		entry := s.do("POST", "/risk-register", a, riskEntry(map[string]any{"model_ids": []string{model}})).want(t, 201).str("id")
		hookKey, _ := s.key(a, "webhooks:write")
		flow := s.do("POST", "/webhooks/workflow-tool/execution", hookKey, workflowReport("1", "success", true)).want(t, 200).str("workflow_id")
		agent := s.do("GET", "/workflows/"+flow+"/agents", a, nil).want(t, 200).at("agents").([]any)[0].(map[string]any)["id"].(string)
		repo := tracked(t, s, a, "secret")
		conn, err := s.app.store.WebhookRepository(t.Context(), repo)
		if err != nil {
			t.Fatal(err)
		}
		rule := s.do("POST", "/alerts/rules", a, slowRule(model)).want(t, 201).str("id")
		alert := s.fire(t, a, rule, model)
		me := s.do("GET", "/auth/me", a, nil).want(t, 200).str("user.id")
		board := s.do("POST", "/governance/review-boards", a, map[string]any{"name": "secret board",
			"members": []map[string]any{{"user_id": me, "role": "chair"}}}).want(t, 201)
		request := s.do("POST", "/governance/review-boards/requests", a, reviewRequest(board.str("id"), model, nil)).want(t, 201).str("id")
		s.do("POST", "/governance/review-boards/requests/"+request+"/submit", a, nil).want(t, 200)
		requestBefore := s.do("GET", "/governance/review-boards/requests/"+request+"/status", a, nil).want(t, 200)
		s.do("PUT", "/models/"+model+"/artifact", a, tenancyBodies["PUT /models/:model_id/artifact"]).want(t, 200)
		explained := s.do("POST", "/explanations/generate", a, map[string]any{"model_id": model, "instance": map[string]any{"a": 2},
			"background": []any{map[string]any{"a": 1}}}).want(t, 202).str("explanation_id")
		template := s.do("POST", "/export/templates", a, map[string]any{"name": "secret template", "report_category": "custom",
			"sections": []string{"trust_score"}}).want(t, 201)
		exported := s.do("POST", "/export/exports", a, map[string]any{"template_id": template.str("id"), "model_ids": []string{model},
			"format": "csv", "start": "2026-01-01", "end": "2026-01-02"}).want(t, 202).str("export_id")
		exportConfig := s.do("POST", "/export/configs", a, configBody(model)).want(t, 201)
		s.exportDone(t, a, exported)
		integration := s.do("POST", "/export/integrations", a, map[string]any{"name": "auditors", "type": "email",
			"settings": map[string]any{"recipients": []string{"auditor@example.com"}}}).want(t, 201)
		shared := s.do("POST", "/export/exports/"+exported+"/share", a, map[string]any{"recipient_email": "auditor@example.com"}).
			want(t, 201).str("share_slug")
		before := s.do("GET", "/models/"+model, a, nil).want(t, 200)
		entryBefore := s.do("GET", "/risk-register/"+entry, a, nil).want(t, 200)
		b := s.signUp("mallory")
		ids := map[string]string{"model_id": model, "model_name": "secret-model", "user_id": aliceID, "role_id": role,
			"key_id": keyID, "prediction_id": "secret-prediction", "preset": "high", "report_id": report.ID, "audit_id": audit,
			"entry_id": entry, "workflow_id": flow, "agent_id": agent, "connection_id": conn.ConnectionID, "repository_id": repo, "branch": "main", "pr_number": "7",
			"rule_id": rule, "alert_id": alert, "board_id": board.str("id"), "request_id": request,
			"explanation_id": explained, "template_id": template.str("id"), "export_id": exported,
			"config_id": exportConfig.str("id"), "org_id": orgA, "share_slug": shared, "integration_id": integration.str("id")}
		routes := allRoutes()
		checked := 0
		for _, r := range routes {
			// A preset is no organization's, nor a public share link
			// (TestExportShares: it answers alike for every slug).
			if !strings.Contains(r.Path, ":") || r.Path == "/drift-config/presets/:preset_name" || r.Public {
				continue
			}
			checked++
			name := r.Method + " " + r.Path
			t.Run(name, func(t *testing.T) {
				theirs, random := r.Path, r.Path
				for param, id := range ids {
					theirs = strings.ReplaceAll(theirs, ":"+param, id)
					random = strings.ReplaceAll(random, ":"+param, uuid.NewString())
				}
				if strings.Contains(theirs, ":") {
					t.Fatalf("no id of organization A for %s; add it to the test", r.Path)
				}
				body := tenancyBodies[name]
				if body == nil && (r.Method == "POST" || r.Method == "PUT" || r.Method == "PATCH") {
					body = map[string]any{}
				}
				got := s.do(r.Method, theirs, b, body)
				want := s.do(r.Method, random, b, body)
				if got.status != 404 || got.status != want.status || got.str("error.code") != want.str("error.code") ||
					got.str("error.message") != want.str("error.message") {
					t.Fatalf("got %d %s for A's id, want 404 exactly like a random id's %d %s", got.status, got.raw, want.status, want.raw)
				}
			})
		}
		if checked < 10 {
			t.Fatalf("checked %d routes with ids, want every one of them", checked)
		}
		after := s.do("GET", "/models/"+model, a, nil).want(t, 200)
		if string(after.raw) != string(before.raw) {
			t.Fatalf("got model %s after B's calls, want it unchanged: %s", after.raw, before.raw)
		}
		if after := s.do("GET", "/risk-register/"+entry, a, nil).want(t, 200); string(after.raw) != string(entryBefore.raw) {
			t.Fatalf("got risk entry %s after B's calls, want it unchanged: %s", after.raw, entryBefore.raw)
		}
		if n := len(s.do("GET", "/risk-register/"+entry+"/history", a, nil).want(t, 200).at("events").([]any)); n != 1 {
			t.Fatalf("got %d events in the entry's history after B's calls, want only its create", n)
		}
		if total := s.do("GET", "/risk-register", b, nil).want(t, 200).at("total"); total != float64(0) {
			t.Fatalf("got %v risk entries in B's register, want 0", total)
		}
		if after := s.do("GET", "/governance/review-boards/"+board.str("id"), a, nil).want(t, 200); string(after.raw) != string(board.raw) {
			t.Fatalf("got board %s after B's calls, want it unchanged: %s", after.raw, board.raw)
		}
		if after := s.do("GET", "/governance/review-boards/requests/"+request+"/status", a, nil).want(t, 200); string(after.raw) != string(requestBefore.raw) {
			t.Fatalf("got request %s after B's calls, want it unchanged: %s", after.raw, requestBefore.raw)
		}
		if after := s.do("GET", "/export/templates/"+template.str("id"), a, nil).want(t, 200); string(after.raw) != string(template.raw) {
			t.Fatalf("got template %s after B's calls, want it unchanged: %s", after.raw, template.raw)
		}
		if r := s.do("GET", "/organizations/"+orgA+"/branding", a, nil).want(t, 200); r.at("default_color") != true || r.at("logo") != nil {
			t.Fatalf("got A's branding %s after B's calls, want it untouched", r.raw)
		}
		if after := s.do("GET", "/export/configs/"+exportConfig.str("id"), a, nil).want(t, 200); string(after.raw) != string(exportConfig.raw) {
			t.Fatalf("got configuration %s after B's calls, want it unchanged: %s", after.raw, exportConfig.raw)
		}
		if after := s.do("GET", "/export/integrations/"+integration.str("id"), a, nil).want(t, 200); string(after.raw) != string(integration.raw) {
			t.Fatalf("got integration %s after B's calls, want it unchanged: %s", after.raw, integration.raw)
		}
		if r := s.do("GET", "/export/shares/"+shared, a, nil).want(t, 200); r.str("status") != "pending" {
			t.Fatalf("got A's share %s after B's calls, want it pending", r.raw)
		}
		s.do("GET", "/models", keyRaw, nil).want(t, 200)
		s.do("GET", "/roles/"+role, a, nil).want(t, 200)
		if list := s.do("GET", "/codehost/connections", a, nil).want(t, 200); len(list.list) != 1 {
			t.Fatalf("got connections %s after B's calls, want A's one kept", list.raw)
		}
		s.do("GET", "/workflows/"+flow, a, nil).want(t, 200)
		if r := s.do("GET", "/alerts/rules/"+rule, a, nil).want(t, 200); r.str("name") != "slow predictions" {
			t.Fatalf("got A's rule named %q after B's calls, want it unchanged", r.str("name"))
		}
		if r := s.do("GET", "/alerts/instances/"+alert, a, nil).want(t, 200); r.str("status") != "open" {
			t.Fatalf("got A's alert %s after B's calls, want it open", r.str("status"))
		}
		if r := s.do("GET", "/users/"+aliceID, a, nil).want(t, 200); r.str("role") != "editor" {
			t.Fatalf("got alice's role %q, want editor", r.str("role"))
		}
		// Lists never show A's records (TestForeignIDFilters: nor filters).
		if total := s.do("GET", "/users", b, nil).at("total"); total != float64(1) {
			t.Fatalf("got %v users in B's organization, want 1", total)
		}
		if n := len(s.do("GET", "/api-keys", b, nil).at("api_keys").([]any)); n != 0 {
			t.Fatalf("got %d keys in B's list, want 0", n)
		}
	})
}

// idFilter is a read that takes an id to filter by: in its query, or in
// its JSON body for a read sent as POST.
type idFilter struct {
	op, param string
	// rest is the other parameters the read requires: query text, or
	// the rest of the body.
	rest   string
	body   map[string]any
	inBody bool
}

// idFilters are every read with an id filter. TestIDFiltersListed keeps
// the table whole.
var idFilters = []idFilter{
	{op: "GET /alerts/instances", param: "model_id"},
	{op: "GET /alerts/instances", param: "rule_id"},
	{op: "GET /alerts/rules", param: "model_id"},
	{op: "GET /alerts/statistics", param: "model_id"},
	{op: "GET /bias/audits", param: "model_id"},
	{op: "GET /explanations", param: "model_id"},
	{op: "GET /explanations/stats", param: "model_id"},
	{op: "GET /drift/reports", param: "model_id"},
	{op: "GET /drift/trend", param: "model_id"},
	{op: "GET /llm/metrics", param: "model_id"},
	{op: "GET /metrics/aggregate", param: "model_id", rest: "metric_type=accuracy&aggregation=avg&time_window=24h"},
	{op: "GET /metrics/trend", param: "model_id", rest: "metric_type=accuracy&interval=day"},
	{op: "GET /models", param: "owner_id"},
	{op: "GET /predictions/export", param: "model_id"},
	{op: "GET /risk-register", param: "model_id"},
	{op: "GET /risk-register", param: "owner_id"},
	{op: "POST /predictions/query", param: "model_id", inBody: true, body: map[string]any{}},
	{op: "POST /governance/review-boards/archive/search", param: "model_id", inBody: true, body: map[string]any{}},
	{op: "POST /governance/review-boards/archive/search", param: "board_id", inBody: true, body: map[string]any{}},
	{op: "POST /governance/review-boards/archive/export", param: "model_id", inBody: true, body: map[string]any{}},
	{op: "POST /governance/review-boards/archive/export", param: "board_id", inBody: true, body: map[string]any{}},
	{op: "POST /metrics/calculate", param: "model_id", inBody: true,
		body: map[string]any{"y_true": []int{1, 0}, "y_pred": []int{1, 1}, "metric_types": []string{"accuracy"}}},
}

// request sends the read with id as its filter.
func (f idFilter) request(s *server, token, id string) response {
	method, path, _ := strings.Cut(f.op, " ")
	if !f.inBody {
		q := f.param + "=" + id
		if f.rest != "" {
			q += "&" + f.rest
		}
		return s.do(method, path+"?"+q, token, nil)
	}
	body := map[string]any{f.param: id}
	for k, v := range f.body {
		body[k] = v
	}
	return s.do(method, path, token, body)
}

// TestForeignIDFilters: organization B filters every read by organization
// A's ids. Each answers 404 exactly as a random id does (status, code and
// message), never an empty 200 that tells A's ids from made-up ones; A
// reads its own with the same filter.
func TestForeignIDFilters(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		a := s.admin()
		model := s.model(a, "secret-model", "1")
		owner := s.do("GET", "/auth/me", a, nil).want(t, 200).str("user.id")
		audit := s.do("POST", "/bias/audit", a, map[string]any{"model_id": model, "sensitive_attributes": []string{"g"},
			"y_pred": []int{1, 0}, "group_data": map[string]any{"g": []string{"x", "y"}}}).want(t, 202).str("id")
		pollAudit(t, s, a, audit, "completed")
		rule := s.do("POST", "/alerts/rules", a, slowRule(model)).want(t, 201).str("id")
		board := s.do("POST", "/governance/review-boards", a, map[string]any{"name": "secret board"}).want(t, 201).str("id")
		b := s.signUp("mallory")
		ids := map[string]string{"model_id": model, "owner_id": owner, "rule_id": rule, "board_id": board}
		for _, f := range idFilters {
			t.Run(f.op+"?"+f.param, func(t *testing.T) {
				if got := f.request(s, a, ids[f.param]); got.status != 200 {
					t.Fatalf("got %d %s for A's own id, want 200", got.status, got.raw)
				}
				got, want := f.request(s, b, ids[f.param]), f.request(s, b, uuid.NewString())
				if got.status != 404 || got.status != want.status || got.str("error.code") != want.str("error.code") ||
					got.str("error.message") != want.str("error.message") {
					t.Fatalf("got %d %s for A's id, want 404 exactly like a random id's %d %s", got.status, got.raw, want.status, want.raw)
				}
			})
		}
	})
}

// TestIDFiltersListed fails when the OpenAPI document declares a read
// with an id filter (a query parameter, or a property of a read's JSON
// body, ending in _id) that idFilters leaves out, or idFilters names one
// the document does not declare.
func TestIDFiltersListed(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(schemas.OpenAPI, &doc); err != nil {
		t.Fatalf("parse openapi.json: %v", err)
	}
	resolve := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		for m != nil && m["$ref"] != nil {
			var target any = doc
			for _, part := range strings.Split(strings.TrimPrefix(m["$ref"].(string), "#/"), "/") {
				target = target.(map[string]any)[part]
			}
			m, _ = target.(map[string]any)
		}
		return m
	}
	declared := map[string]bool{}
	for path, item := range doc["paths"].(map[string]any) {
		item := item.(map[string]any)
		shared, _ := item["parameters"].([]any)
		for method, op := range item {
			op, ok := op.(map[string]any)
			if method == "parameters" || !ok {
				continue
			}
			name := strings.ToUpper(method) + " " + path
			params, _ := op["parameters"].([]any)
			for _, p := range append(slices.Clone(shared), params...) {
				if p := resolve(p); p["in"] == "query" && strings.HasSuffix(p["name"].(string), "_id") {
					declared[name+"?"+p["name"].(string)] = true
				}
			}
			if perm, _ := op["x-permission"].(string); !strings.HasSuffix(perm, ":read") || op["requestBody"] == nil {
				continue
			}
			content, _ := resolve(op["requestBody"])["content"].(map[string]any)
			props, _ := resolve(content["application/json"].(map[string]any)["schema"])["properties"].(map[string]any)
			for p := range props {
				if strings.HasSuffix(p, "_id") {
					declared[name+"?"+p] = true
				}
			}
		}
	}
	listed := map[string]bool{}
	for _, f := range idFilters {
		listed[f.op+"?"+f.param] = true
	}
	for op := range declared {
		if !listed[op] {
			t.Errorf("%s filters by an id but is missing from idFilters: add it, answering 404 for another organization's id", op)
		}
	}
	for op := range listed {
		if !declared[op] {
			t.Errorf("%s is in idFilters but not declared in schemas/openapi.json", op)
		}
	}
	if len(declared) < 9 {
		t.Fatalf("got %d id filters from the document, want every one of them", len(declared))
	}
}

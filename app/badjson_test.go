package app

import (
	"database/sql"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// badJSONBody is a write route's body with a hole, %s, for members of an
// object: key with value, a valid body together; field is the JSON path
// of key in the body.
type badJSONBody struct {
	tmpl, key, value, field string
	// emptyBatch, for a batch route, is the path of its array of items.
	emptyBatch string
}

// badJSONBodies has a body for every route that takes one (POST, PUT,
// PATCH), keyed as "METHOD /path"; :model_id and the other ids are filled
// in. The hole is inside a free-form object where the route has one.
var badJSONBodies = map[string]badJSONBody{
	"POST /auth/login":         {`{%s,"password":"wrong password"}`, "username", `"admin"`, "username", ""},
	"POST /auth/register":      {`{%s,"email":"newbie@example.com","password":"` + adminPassword + `","full_name":"N"}`, "username", `"newbie"`, "username", ""},
	"POST /users":              {`{%s,"email":"bob@example.com","password":"` + adminPassword + `","full_name":"Bob","role":"viewer"}`, "username", `"bob"`, "username", ""},
	"PUT /users/:user_id/role": {`{%s}`, "role", `"viewer"`, "role", ""},
	"POST /roles":              {`{%s,"permissions":["models:read"]}`, "name", `"auditor"`, "name", ""},
	"POST /api-keys":           {`{%s,"scopes":["read"]}`, "name", `"pipeline"`, "name", ""},
	"POST /models": {`{"name":"other","version":"1","model_type":"classification","framework":"sklearn","metadata":{%s}}`,
		"team", `"risk"`, "metadata.team", ""},
	"PATCH /models/:model_id":                          {`{"protected_groups":{%s}}`, "gender", `["f"]`, "protected_groups.gender", ""},
	"PATCH /models/:model_id/status":                   {`{%s}`, "status", `"inactive"`, "status", ""},
	"POST /models/:model_id/archive":                   {`{%s}`, "reason", `"old"`, "reason", ""},
	"POST /models/:model_id/restore":                   {`{%s}`, "reason", `"back"`, "reason", ""},
	"PUT /models/:model_id/baseline":                   {`{"baseline_metrics":{%s}}`, "accuracy", `0.9`, "baseline_metrics.accuracy", ""},
	"POST /explanations/generate":                      {`{"model_id":":model_id","instance":{%s}}`, "x", `1`, "instance.x", ""},
	"PUT /explanations/config/:model_id":               {`{%s}`, "default_method", `"lime"`, "default_method", ""},
	"POST /explanations/bulk":                          {`{"model_id":":model_id","instances":[{%s}]}`, "x", `1`, "instances[0].x", "instances"},
	"POST /explanations/compare":                       {`{"explanation_ids":["a","b"],%s}`, "comparison_type", `"method_agreement"`, "comparison_type", ""},
	"POST /explanations/:explanation_id/cancel":        {`{%s}`, "x", `1`, "x", ""},
	"POST /explanations/visualization":                 {`{"explanation_ids":["a"],%s}`, "plot_type", `"summary"`, "plot_type", ""},
	"PUT /models/:model_id/artifact":                   {`{%s,"features":["a","b"],"coefficients":[1,2],"intercept":0.5,"link":"identity"}`, "kind", `"linear"`, "kind", ""},
	"PUT /models/:model_id/serving":                    {`{%s,"url":"https://models.example.com","model_name":"m","features":["a"]}`, "protocol", `"kserve_v2"`, "protocol", ""},
	"POST /drift/detect":                               {`{"model_id":":model_id","reference_data":{%s},"current_data":{"x":[1,2,3,5]}}`, "x", `[1,2,3,4]`, "reference_data.x", ""},
	"PUT /drift/reference/:model_id":                   {`{"reference_data":{%s}}`, "x", `[1,2]`, "reference_data.x", ""},
	"POST /drift/reference/:model_id/append":           {`{"reference_data":{%s}}`, "x", `[1,2]`, "reference_data.x", ""},
	"POST /drift-config/:model_id/default":             {`{%s}`, "reason", `"reset"`, "reason", ""},
	"POST /drift-config/:model_id/sensitivity/:preset": {`{%s}`, "reason", `"tighter"`, "reason", ""},
	"PUT /drift-config/:model_id":                      {`{"feature_configs":{%s}}`, "x", `{"method":"psi"}`, "feature_configs.x", ""},
	"POST /bias/audit": {`{"model_id":":model_id","sensitive_attributes":["g"],"y_pred":[1,0],"group_data":{%s}}`,
		"g", `["a","b"]`, "group_data.g", ""},
	"POST /bias/audits/:audit_id/cancel": {`{%s}`, "reason", `"stop"`, "reason", ""},
	"POST /predictions/log": {`{"model_id":":model_id","input_data":{%s},"output_data":{"y":1}}`,
		"x", `1`, "input_data.x", ""},
	"POST /predictions/log/batch": {`{"model_id":":model_id","predictions":[{"input_data":{},"output_data":{"y":1}},{"input_data":{%s},"output_data":{"y":1}}]}`,
		"x", `1`, "predictions[1].input_data.x", "predictions"},
	"POST /metrics": {`{"model_id":":model_id","metric_type":"f1","value":0.8,"metadata":{%s}}`,
		"x", `1`, "metadata.x", ""},
	"POST /metrics/batch": {`{"model_id":":model_id","metrics":[{"metric_type":"f1","value":0.8,"metadata":{%s}}]}`,
		"x", `1`, "metrics[0].metadata.x", "metrics"},
	"POST /llm/completions": {`{"model_id":":model_id","provider":"openai","model_name":"gpt","prompt":"hi","completion":"hello","metadata":{%s}}`,
		"x", `1`, "metadata.x", ""},
	"POST /llm/completions/batch": {`{"model_id":":model_id","completions":[{"provider":"openai","model_name":"gpt","metadata":{%s}}]}`,
		"x", `1`, "completions[0].metadata.x", "completions"},
	"POST /llm/toxicity":  {`{%s}`, "text", `"hello"`, "text", ""},
	"POST /kserve/events": {`{"instances":[{%s}]}`, "x", `1`, "instances[0].x", ""},
	"PUT /llm/prices": {`{"prices":[{"provider":"openai","model":"gpt-4o","input_per_million":1,%s}]}`,
		"output_per_million", `2`, "prices[0].output_per_million", ""},
	"POST /predictions/query": {`{%s}`, "model_id", `":model_id"`, "model_id", ""},
	"POST /metrics/calculate": {`{"model_id":":model_id","y_true":[1,0],"y_pred":[1,1],"metric_types":["accuracy"],%s}`, "average", `"binary"`, "average", ""},

	// The risk register's bodies have no free-form object.
	"POST /risk-register":            {`{"title":"t","category":"drift","likelihood":3,%s}`, "impact", `4`, "impact", ""},
	"PUT /risk-register/config":      {`{%s}`, "category_taxonomy", `["privacy"]`, "category_taxonomy", ""},
	"PATCH /risk-register/:entry_id": {`{%s}`, "title", `"t"`, "title", ""},
	// Nor have the trust score's weights.
	"PUT /trust-score/config": {`{"fairness_weight":0.5,%s}`, "drift_weight", `0.3`, "drift_weight", ""},
	"POST /webhooks/workflow-tool/execution": {`{"workflow_id":"wf","execution_id":"e","status":"running","started_at":"2026-01-31T12:00:00Z","meta_data":{%s}}`,
		"x", `1`, "meta_data.x", ""},
	"POST /webhooks/workflow-tool/test":                {`{%s}`, "x", `1`, "x", ""},
	"PUT /webhooks/workflow-tool/config":               {`{%s}`, "track_all_nodes", `true`, "track_all_nodes", ""},
	"POST /codehost/connect/pat":                       {`{%s}`, "personal_access_token", `"ghp_x"`, "personal_access_token", ""},
	"POST /codehost/connections/:connection_id/verify": {`{%s}`, "x", `1`, "x", ""},
	"POST /codehost/repositories/track": {`{"connection_id":"0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f","owner":"octo","name":"m",%s}`,
		"tracked_branches", `["main"]`, "tracked_branches", ""},
	"PATCH /codehost/repositories/:repository_id":                                                     {`{%s}`, "tracked_tags", `false`, "tracked_tags", ""},
	"POST /codehost/repositories/:repository_id/webhook":                                              {`{%s}`, "x", `1`, "x", ""},
	"POST /codehost/automation/repositories/:repository_id/branch-protection/enable":                  {`{%s}`, "strict", `true`, "strict", ""},
	"POST /codehost/automation/repositories/:repository_id/branch-protection/:branch/required-checks": {`{%s}`, "check_context", `"ci"`, "check_context", ""},
	"POST /codehost/automation/repositories/:repository_id/checks/validation": {`{"head_sha":"x","model_name":"m","validation_details":{%s}}`,
		"x", `1`, "validation_details.x", ""},
	"POST /codehost/automation/repositories/:repository_id/checks/comparison": {`{"head_sha":"x","model_name":"m","validation_details":{%s}}`,
		"x", `1`, "validation_details.x", ""},
	"POST /codehost/automation/repositories/:repository_id/pr-comments/:pr_number/validation": {`{"model_name":"m","validation_details":{%s}}`,
		"x", `1`, "validation_details.x", ""},
	"POST /codehost/automation/repositories/:repository_id/pr-comments/:pr_number/comparison": {`{"model_name":"m","validation_details":{%s}}`,
		"x", `1`, "validation_details.x", ""},
	"PUT /codehost/automation/repositories/:repository_id/pr-comments/:pr_number": {`{%s}`, "comment_body", `"x"`, "comment_body", ""},
	// Alerts.
	"POST /alerts/rules": {`{"name":"r","alert_type":"performance","severity":"high","conditions":[{%s,"operator":"gt","threshold":1}]}`,
		"metric_name", `"prediction_count"`, "conditions[0].metric_name", ""},
	"PATCH /alerts/rules/:rule_id":                 {`{%s}`, "name", `"renamed"`, "name", ""},
	"POST /alerts/rules/:rule_id/evaluate":         {`{%s}`, "reason", `"try"`, "reason", ""},
	"POST /alerts/instances/:alert_id/acknowledge": {`{%s}`, "note", `"on it"`, "note", ""},
	"POST /alerts/instances/:alert_id/resolve":     {`{%s}`, "note", `"fixed"`, "note", ""},
	"POST /alerts/instances/:alert_id/snooze":      {`{%s}`, "until", `"2030-01-01T00:00:00Z"`, "until", ""},
	"POST /alerts/webhook-secret/rotate":           {`{%s}`, "overlap_hours", `1`, "overlap_hours", ""},

	// Review boards.
	"POST /governance/review-boards":                                {`{%s}`, "name", `"b"`, "name", ""},
	"PUT /governance/review-boards/:board_id":                       {`{%s}`, "name", `"b"`, "name", ""},
	"POST /governance/review-boards/:board_id/members":              {`{"role":"voter",%s}`, "user_id", `"u"`, "user_id", ""},
	"POST /governance/review-boards/requests":                       {`{"board_id":"b","model_id":":model_id","requested_decision":"other",%s}`, "title", `"t"`, "title", ""},
	"POST /governance/review-boards/requests/:request_id/submit":    {`{%s}`, "x", `1`, "x", ""},
	"POST /governance/review-boards/requests/:request_id/decisions": {`{"decision":"approve",%s}`, "comment", `"ok"`, "comment", ""},
	"POST /governance/review-boards/requests/:request_id/finalize":  {`{%s}`, "x", `1`, "x", ""},
	"POST /governance/review-boards/archive/search":                 {`{%s}`, "text", `"t"`, "text", ""},
	"POST /governance/review-boards/archive/export":                 {`{%s}`, "text", `"t"`, "text", ""},
	"POST /export/templates":                                        {`{"report_category":"custom","sections":["trust_score"],%s}`, "name", `"t"`, "name", ""},
	"PATCH /export/templates/:template_id":                          {`{%s}`, "name", `"t"`, "name", ""},
	"PUT /export/templates/:template_id":                            {`{"report_category":"custom","sections":["trust_score"],%s}`, "name", `"t"`, "name", ""},
	"POST /export/exports": {`{"model_ids":[":model_id"],"format":"csv","start":"2026-01-01","end":"2026-01-02",%s}`,
		"template_id", `"00000000-0000-4000-8000-000000000001"`, "template_id", ""},
	"POST /export/exports/:export_id/cancel": {`{%s}`, "x", `1`, "x", ""},
	"POST /export/exports/bulk": {`{"exports":[{"model_ids":[":model_id"],"format":"csv","start":"2026-01-01","end":"2026-01-02",%s}]}`,
		"template_id", `"00000000-0000-4000-8000-000000000001"`, "exports[0].template_id", ""},
	"PATCH /organizations/:org_id/branding": {`{%s}`, "primary_color", `"#112233"`, "primary_color", ""},
	"POST /export/evidence-pack":            {`{"model_ids":[":model_id"],%s}`, "format", `"json"`, "format", ""},
	"POST /export/configs": {`{"template_id":"00000000-0000-4000-8000-000000000001","model_ids":[":model_id"],"format":"csv","date_range":"last_7_days",%s}`,
		"name", `"c"`, "name", ""},
	"PUT /export/configs/:config_id": {`{"template_id":"00000000-0000-4000-8000-000000000001","model_ids":[":model_id"],"format":"csv","date_range":"last_7_days",%s}`,
		"name", `"c"`, "name", ""},
	"POST /export/configs/:config_id/run":    {`{%s}`, "deliveries", `[]`, "deliveries", ""},
	"POST /export/exports/:export_id/share":  {`{%s}`, "recipient_email", `"auditor@example.com"`, "recipient_email", ""},
	"POST /export/shares/:share_slug/revoke": {`{%s}`, "x", `1`, "x", ""},
	"POST /share/:share_slug/passcode":       {`{%s}`, "x", `1`, "x", ""},
	"POST /share/:share_slug/verify":         {`{%s}`, "passcode", `"12345678"`, "passcode", ""},
	"POST /export/scheduled-reports": {`{"template_id":"00000000-0000-4000-8000-000000000001","format":"csv","cron_expression":"0 9 * * 1","model_ids":[":model_id"],%s}`,
		"name", `"weekly"`, "name", ""},
	"PUT /export/scheduled-reports/:report_id": {`{"template_id":"00000000-0000-4000-8000-000000000001","format":"csv","cron_expression":"0 9 * * 1","model_ids":[":model_id"],%s}`,
		"name", `"weekly"`, "name", ""},
	"POST /export/scheduled-reports/:report_id/run": {`{%s}`, "x", `1`, "x", ""},
	"POST /export/integrations":                     {`{"type":"email","settings":{"recipients":["a@example.com"]},%s}`, "name", `"auditors"`, "name", ""},
	"PUT /export/integrations/:integration_id":      {`{"type":"email","settings":{"recipients":["a@example.com"]},%s}`, "name", `"auditors"`, "name", ""},
}

// TestBadJSON: every route that takes a body refuses, whole, a number
// beyond float64, a lone surrogate, bytes that are not UTF-8 and a key
// twice, wherever they are in the body (422 naming the value's path); a
// body that is not declared as JSON (415); and an empty batch (422 naming
// the array). Afterwards the transactional store is as it was, row for
// row, and the analytical store holds only what was logged after, as the
// processors read it.
func TestBadJSON(t *testing.T) {
	// Several bad bodies go to each report-generating route, more than the
	// hour's report quota (10): the quota is TestExportRateLimit's.
	lift := func(c *config.Config) { c.Limits.Reports = 1 << 20 }
	eachPipelineWith(t, lift, func(t *testing.T, s *server) {
		admin := s.admin()
		model := s.model(admin, "churn", "1")
		s.user(admin, "alice", "editor")
		alice := s.do("GET", "/users?page_size=10", admin, nil).at("users").([]any)[1].(map[string]any)["id"].(string)
		ids := strings.NewReplacer(":model_id", model, ":user_id", alice, ":audit_id", uuid.NewString(), ":preset", "high")
		before := storeRows(t, s)

		type input struct{ name, members, field string }
		var checked int
		for _, r := range allRoutes() {
			if r.Method != "POST" && r.Method != "PUT" && r.Method != "PATCH" {
				continue
			}
			name := r.Method + " " + r.Path
			if r.RawBody {
				continue // a signed delivery: its signature answers first (TestCodehostWebhookSignature); an OTLP export (TestOTLPTraces)
			}
			b, ok := badJSONBodies[name]
			if !ok {
				t.Errorf("no body for %s in badJSONBodies; add one", name)
				continue
			}
			checked++
			path := ids.Replace(r.Path)
			member := func(v string) string { return fmt.Sprintf("%q:%s", b.key, v) }
			inputs := []input{
				{"beyond float64", member("1e400"), b.field},
				{"beyond float64 nested", member(`{"deep":[0,-1e309]}`), b.field + ".deep[1]"},
				{"lone surrogate", member(`"\ud800"`), b.field},
				{"not UTF-8", member("\"\xff\""), b.field},
				{"key twice", member(b.value) + "," + member(b.value), b.field},
			}
			for _, in := range inputs {
				t.Run(name+"/"+in.name, func(t *testing.T) {
					body := ids.Replace(fmt.Sprintf(b.tmpl, in.members))
					s.raw(r.Method, path, admin, "application/json", body).wantField(t, in.field)
				})
			}
			valid := ids.Replace(fmt.Sprintf(b.tmpl, member(b.value)))
			for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/jsonx"} {
				t.Run(name+"/"+ct, func(t *testing.T) {
					s.raw(r.Method, path, admin, ct, valid).wantError(t, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
				})
			}
			if b.emptyBatch != "" {
				t.Run(name+"/empty batch", func(t *testing.T) {
					body := ids.Replace(fmt.Sprintf(`{"model_id":":model_id",%q:[]}`, b.emptyBatch))
					s.raw(r.Method, path, admin, "application/json", body).wantField(t, b.emptyBatch)
				})
			}
		}
		if checked != len(badJSONBodies) {
			t.Errorf("got %d routes with a body, want the %d of badJSONBodies: remove the routes that are gone", checked, len(badJSONBodies))
		}

		if after := storeRows(t, s); !slices.Equal(before, after) {
			t.Errorf("the transactional store changed:\n%s", diffRows(before, after))
		}
		// What the log carried reaches the analytical store in order: once
		// one event of each kind logged now is read, nothing came before.
		s.raw("POST", "/predictions/log", admin, "application/json; charset=utf-8",
			fmt.Sprintf(`{"model_id":%q,"input_data":{"x":1e308},"output_data":{"y":-1.7976931348623157e308}}`, model)).want(t, 201)
		s.raw("POST", "/metrics", admin, "application/vnd.vigil+json",
			fmt.Sprintf(`{"model_id":%q,"metric_type":"f1","value":0.8}`, model)).want(t, 201)
		s.do("POST", "/llm/completions", admin, map[string]any{"model_id": model, "provider": "openai", "model_name": "gpt"}).want(t, 201)
		s.waitStored(t, admin, model, 1)
		waitFor(t, "the metric stored", func() bool {
			return s.do("GET", "/metrics/aggregate?model_id="+model+"&metric_type=f1&time_window=1h&aggregation=count", admin, nil).at("value") == 1.0
		})
		waitFor(t, "the completion stored", func() bool {
			return s.do("GET", "/llm/metrics?model_id="+model+"&start_time=2000-01-01T00:00:00Z&end_time=2100-01-01T00:00:00Z",
				admin, nil).at("totals.completions") == 1.0
		})
		if dead := s.do("GET", "/dead-letters", admin, nil).want(t, 200); len(dead.list) != 0 {
			t.Errorf("got dead letters %s, want none", dead.raw)
		}
		// A page of large but finite numbers reads back.
		for _, page := range []response{
			s.do("POST", "/predictions/query", admin, map[string]any{"model_id": model}).want(t, 200),
			s.do("GET", "/predictions/models/"+model+"/recent", admin, nil).want(t, 200),
		} {
			if got := []any{page.body, page.list}; !holds(got, 1e308) || !holds(got, -math.MaxFloat64) {
				t.Errorf("got page %s, want the prediction's 1e308 and -1.7976931348623157e308", page.raw)
			}
		}
	})
}

// holds reports whether the decoded JSON v holds the number f.
func holds(v any, f float64) bool {
	switch v := v.(type) {
	case float64:
		return v == f
	case []any:
		return slices.ContainsFunc(v, func(e any) bool { return holds(e, f) })
	case map[string]any:
		for _, e := range v {
			if holds(e, f) {
				return true
			}
		}
	}
	return false
}

// raw sends body as is with contentType.
func (s *server) raw(method, path, token, contentType, body string) response {
	s.t.Helper()
	req, err := http.NewRequest(method, s.base+path, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", "Bearer "+token)
	return s.send(req)
}

// storeRows returns every row of every table of the transactional store,
// as "table: values", sorted.
func storeRows(t *testing.T, s *server) []string {
	t.Helper()
	driver, dsn, list := "pgx", s.app.cfg.PostgresURL,
		`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
	if dsn == "" {
		driver, dsn, list = "sqlite", "file:"+filepath.Join(s.app.cfg.DataDir, sqlitestore.FileName)+"?mode=ro",
			`SELECT name FROM sqlite_master WHERE type = 'table'`
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var tables []string
	rows, err := db.QueryContext(t.Context(), list)
	if err != nil {
		t.Fatalf("list tables: %v", err)
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, table := range tables {
		rows, err := db.QueryContext(t.Context(), `SELECT * FROM "`+table+`"`)
		if err != nil {
			t.Fatalf("read %s: %v", table, err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if b, ok := v.([]byte); ok {
					vals[i] = string(b)
				}
			}
			all = append(all, fmt.Sprintf("%s: %v", table, vals))
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)
	return all
}

// diffRows lists the rows only before has (-) and only after has (+), each
// cut to 200 bytes.
func diffRows(before, after []string) string {
	var d []string
	for _, r := range before {
		if !slices.Contains(after, r) {
			d = append(d, "- "+r[:min(len(r), 200)])
		}
	}
	for _, r := range after {
		if !slices.Contains(before, r) {
			d = append(d, "+ "+r[:min(len(r), 200)])
		}
	}
	return strings.Join(d, "\n")
}

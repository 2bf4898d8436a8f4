package app

import (
	"net/url"
	"testing"
)

func TestModelCreate(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		r := s.do("POST", "/models", admin, map[string]any{"name": "fraud", "description": "card fraud", "model_type": "classification",
			"framework": "xgboost", "version": "2024.1", "metadata": map[string]any{"algorithm": "gbt", "training_samples": 1000},
			"baseline_metrics": map[string]any{"accuracy": 0.93}}).want(t, 201)
		for _, f := range []string{"id", "name", "model_type", "framework", "version", "status", "created_at"} {
			if r.str(f) == "" {
				t.Errorf("got no %s in %s, want it", f, r.raw)
			}
		}
		if r.str("status") != "active" || r.at("monitoring_enabled") != true {
			t.Fatalf("got %s, want status active and monitoring enabled", r.raw)
		}
		got := s.do("GET", "/models/"+r.str("id"), admin, nil).want(t, 200)
		if got.at("metadata.algorithm") != "gbt" || got.at("baseline_metrics.accuracy") != 0.93 || got.str("description") != "card fraud" {
			t.Fatalf("got %s, want the registered fields back", got.raw)
		}
		s.do("POST", "/models", admin, map[string]any{"name": "fraud", "version": "2024.1", "model_type": "classification"}).
			wantError(t, 409, "RESOURCE_CONFLICT")

		bad := []struct {
			body  any
			field string
		}{
			{map[string]any{"model_type": "classification"}, "name"},
			{map[string]any{"name": "x"}, "model_type"},
			{map[string]any{"name": "x", "model_type": "forecasting"}, "model_type"},
			{map[string]any{"name": "x", "model_type": "llm", "org_id": "00000000-0000-0000-0000-000000000000"}, "org_id"},
			{map[string]any{"name": "x", "model_type": "llm", "status": "archived"}, "status"},
			{map[string]any{"name": 7, "model_type": "llm"}, "name"},
			{map[string]any{"name": "x", "model_type": "llm", "baseline_metrics": map[string]any{"accuracy": "high"}}, "baseline_metrics"},
		}
		for _, b := range bad {
			s.do("POST", "/models", admin, b.body).wantField(t, b.field)
		}
		if n := len(s.do("GET", "/models", admin, nil).list); n != 1 {
			t.Fatalf("got %d models after rejected requests, want 1", n)
		}
	})
}

func TestModelList(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		mk := func(name, typ, desc string, tags ...string) string {
			return s.do("POST", "/models", admin, map[string]any{"name": name, "model_type": typ, "description": desc, "tags": tags}).
				want(t, 201).str("id")
		}
		mk("churn", "classification", "Predicts customer churn", "prod", "team-a")
		price := mk("price", "regression", "House prices", "prod")
		mk("chat", "llm", "Support 100%_bot", "team-a")
		s.do("POST", "/models/"+price+"/archive", admin, nil).want(t, 200)

		names := func(q string) []string {
			t.Helper()
			r := s.do("GET", "/models?"+q, admin, nil).want(t, 200)
			var out []string
			for _, m := range r.list {
				out = append(out, m.(map[string]any)["name"].(string))
			}
			return out
		}
		cases := []struct {
			query string
			want  []string
		}{
			{"", []string{"chat", "price", "churn"}},
			{"status_filter=ACTIVE", []string{"chat", "churn"}},
			{"status_filter=ARCHIVED", []string{"price"}},
			{"model_type=llm", []string{"chat"}},
			{"tags=prod", []string{"price", "churn"}},
			{"tags=prod,team-a", []string{"churn"}},
			{"search=CUSTOMER", []string{"churn"}},
			{"search=" + url.QueryEscape("100%_"), []string{"chat"}},
			{"search=" + url.QueryEscape("%"), []string{"chat"}},
			{"skip=1&limit=1", []string{"price"}},
		}
		for _, c := range cases {
			if got := names(c.query); !equal(got, c.want) {
				t.Errorf("GET /models?%s: got %v, want %v", c.query, got, c.want)
			}
		}
		// An owner nobody is answers 404, as one of another organization
		// does (TestForeignIDFilters).
		s.do("GET", "/models?owner_id=0190c6a2-7b1e-7c3a-9f0e-2d4b6a8c0e1f", admin, nil).want(t, 404)
		for q, field := range map[string]string{
			"limit=0": "limit", "limit=1001": "limit", "skip=-1": "skip", "limit=x": "limit",
			"status_filter=active": "status_filter", "status_filter=GONE": "status_filter", "model_type=x": "model_type",
		} {
			s.do("GET", "/models?"+q, admin, nil).wantField(t, field)
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestModelUpdate(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		id := s.model(admin, "churn", "1")
		r := s.do("PATCH", "/models/"+id, admin, map[string]any{"description": "v2", "features": []string{"age", "plan"},
			"target_variable": "churned", "model_framework": "lightgbm", "fairness_attributes": []string{"gender"},
			"protected_groups": map[string]any{"gender": []string{"female"}}, "tags": []string{"prod"},
			"baseline_metrics": map[string]any{"f1_score": 0.8}}).want(t, 200)
		if r.str("description") != "v2" || r.str("framework") != "lightgbm" || r.str("target_variable") != "churned" ||
			r.at("baseline_metrics.f1_score") != 0.8 || len(r.at("features").([]any)) != 2 || r.at("tags").([]any)[0] != "prod" {
			t.Fatalf("got %s, want every updated field", r.raw)
		}
		if len(s.do("GET", "/models?tags=prod", admin, nil).list) != 1 {
			t.Fatalf("got no model for the tag set by update, want one")
		}
		for _, field := range []string{"name", "version", "model_type", "metadata", "org_id", "id", "prediction_count", "owner_id"} {
			s.do("PATCH", "/models/"+id, admin, map[string]any{field: "x"}).wantField(t, field)
		}
		s.do("PATCH", "/models/"+id, admin, map[string]any{"status": "retired"}).wantField(t, "status")
		if got := s.do("GET", "/models/"+id, admin, nil).str("name"); got != "churn" {
			t.Fatalf("got name %q after rejected updates, want churn", got)
		}
	})
}

func TestModelLifecycle(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		id := s.model(admin, "churn", "1")
		status := func(want string, monitoring bool) {
			t.Helper()
			r := s.do("GET", "/models/"+id, admin, nil).want(t, 200)
			if r.str("status") != want || r.at("monitoring_enabled") != monitoring {
				t.Fatalf("got status %q monitoring %v, want %q %v", r.str("status"), r.at("monitoring_enabled"), want, monitoring)
			}
		}
		s.do("PATCH", "/models/"+id+"/status", admin, map[string]any{"status": "DEPRECATED"}).want(t, 200)
		status("deprecated", true)
		s.do("POST", "/models/"+id+"/archive", admin, nil).want(t, 200)
		status("archived", false)
		s.do("POST", "/models/"+id+"/archive", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", "/models/"+id+"/restore", admin, nil).want(t, 200)
		status("deprecated", true)
		s.do("POST", "/models/"+id+"/restore", admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("PATCH", "/models/"+id+"/status", admin, map[string]any{"status": "bogus"}).wantField(t, "status")

		s.do("PUT", "/models/"+id+"/baseline", admin, map[string]any{"baseline_metrics": map[string]any{"accuracy": 0.9}}).want(t, 200)
		if got := s.do("GET", "/models/"+id, admin, nil).at("baseline_metrics.accuracy"); got != 0.9 {
			t.Fatalf("got baseline accuracy %v, want 0.9", got)
		}
		s.do("PUT", "/models/"+id+"/baseline", admin, map[string]any{}).wantField(t, "baseline_metrics")

		s.do("DELETE", "/models/"+id, admin, nil).want(t, 204)
		s.do("GET", "/models/"+id, admin, nil).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("DELETE", "/models/"+id, admin, nil).wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

func TestModelVersions(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		for _, v := range []string{"1.0", "1.1", "2.0-rc"} {
			s.model(admin, "churn", v)
		}
		s.model(admin, "other", "9")
		r := s.do("GET", "/models/churn/versions", admin, nil).want(t, 200)
		var got []string
		for _, m := range r.list {
			got = append(got, m.(map[string]any)["version"].(string))
		}
		if !equal(got, []string{"2.0-rc", "1.1", "1.0"}) {
			t.Fatalf("got versions %v, want newest first", got)
		}
		if v := s.do("GET", "/models/churn/latest", admin, nil).want(t, 200).str("version"); v != "2.0-rc" {
			t.Fatalf("got latest %q, want 2.0-rc", v)
		}
		s.model(admin, "fraud v2/eu é", "1")
		if v := s.do("GET", "/models/"+url.PathEscape("fraud v2/eu é")+"/latest", admin, nil).want(t, 200).str("name"); v != "fraud v2/eu é" {
			t.Fatalf("got %q, want the model whose name needs escaping", v)
		}
		s.do("GET", "/models/nothing/versions", admin, nil).wantError(t, 404, "MODEL_NOT_FOUND")
		s.do("GET", "/models/nothing/latest", admin, nil).wantError(t, 404, "MODEL_NOT_FOUND")
	})
}

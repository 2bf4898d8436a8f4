package app

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/integrations/codehost"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
)

// TestCodehostRepositories: the host's listing pages with page and
// per_page; tracking checks the repository with the host and stores the
// options of spec 2 with their defaults; list, get, update and untrack;
// webhook setup creates the hook on the host (JSON, TLS verification on,
// push, release and create) with a generated secret that the delivery
// endpoint then verifies, stored sealed, and moves webhook_status to
// active; untracking removes the hook.
func TestCodehostRepositories(t *testing.T) {
	f := newForge(t)
	f.addRepo("octo", "models", true, true)
	f.addRepo("octo", "readonly", false, false)
	for i := range 33 {
		f.addRepo("octo", fmt.Sprintf("filler-%02d", i), false, false)
	}
	eachBackend(t, f.config, func(t *testing.T, s *server) {
		admin := s.admin()
		token := "ghp_" + rand.Text()
		f.set(token, "repo, read:org")
		conn := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token}).want(t, 201).str("id")
		base := "/codehost/connections/" + conn + "/repositories"

		first := s.do("GET", base, admin, nil).want(t, 200)
		top := nth(first.at("repositories"), 0)
		if n := len(first.at("repositories").([]any)); n != 30 || top["full_name"] != "octo/models" || top["private"] != true ||
			top["default_branch"] != "main" || top["id"] == nil {
			t.Fatalf("got %d repositories %s, want the first 30 with octo/models first", n, first.raw)
		}
		if n := len(s.do("GET", base+"?page=2", admin, nil).want(t, 200).at("repositories").([]any)); n != 5 {
			t.Errorf("page 2: got %d repositories, want 5", n)
		}
		if n := len(s.do("GET", base+"?page=3&per_page=10", admin, nil).want(t, 200).at("repositories").([]any)); n != 10 {
			t.Errorf("page 3 of 10: got %d repositories, want 10", n)
		}
		s.do("GET", base+"?per_page=101", admin, nil).wantField(t, "per_page")
		s.do("GET", base+"?page=0", admin, nil).wantField(t, "page")
		s.do("GET", "/codehost/connections/"+uuid.NewString()+"/repositories", admin, nil).wantError(t, 404, "NOT_FOUND")

		track := func(body map[string]any) response {
			t.Helper()
			full := map[string]any{"connection_id": conn}
			for k, v := range body {
				full[k] = v
			}
			return s.do("POST", "/codehost/repositories/track", admin, full)
		}
		r := track(map[string]any{"owner": "octo", "name": "models"}).want(t, 201)
		id := r.str("id")
		if r.str("full_name") != "octo/models" || r.at("is_private") != true || r.str("default_branch") != "main" ||
			len(r.at("tracked_branches").([]any)) != 0 || r.at("tracked_tags") != true || r.at("tracked_releases") != true ||
			r.at("auto_register_enabled") != false || r.str("webhook_status") != "inactive" ||
			r.at("total_commits_processed") != float64(0) || r.at("total_models_registered") != float64(0) {
			t.Fatalf("got %s, want octo/models tracked with the defaults of spec 2", r.raw)
		}
		var patterns []string
		for _, p := range r.at("model_path_patterns").([]any) {
			patterns = append(patterns, p.(string))
		}
		if !slices.Equal(patterns, codehost.DefaultModelPatterns) {
			t.Errorf("got patterns %v, want %v", patterns, codehost.DefaultModelPatterns)
		}
		track(map[string]any{"owner": "octo", "name": "models"}).wantError(t, 409, "RESOURCE_CONFLICT")
		track(map[string]any{"owner": "octo", "name": "ghost"}).wantField(t, "name")
		track(map[string]any{"owner": "-octo", "name": "models"}).wantField(t, "owner")
		track(map[string]any{"owner": "octo", "name": ".hidden"}).wantField(t, "name")
		track(map[string]any{"owner": "octo", "name": "readonly", "tracked_branches": []string{"-x"}}).wantField(t, "tracked_branches")
		track(map[string]any{"owner": "octo", "name": "readonly", "model_path_patterns": []string{}}).wantField(t, "model_path_patterns")
		track(map[string]any{"owner": "octo", "name": "readonly", "model_path_patterns": []string{"[x"}}).wantField(t, "model_path_patterns")
		s.do("POST", "/codehost/repositories/track", admin, map[string]any{"connection_id": uuid.NewString(), "owner": "octo",
			"name": "models"}).wantError(t, 404, "NOT_FOUND")
		ro := track(map[string]any{"owner": "octo", "name": "readonly", "tracked_branches": []string{"main", "release/1.0"},
			"tracked_tags": false, "auto_register_enabled": true, "model_path_patterns": []string{"models/*.pkl"}}).want(t, 201)
		if ro.at("tracked_tags") != false || ro.at("auto_register_enabled") != true || ro.at("tracked_branches").([]any)[1] != "release/1.0" ||
			ro.at("model_path_patterns").([]any)[0] != "models/*.pkl" || ro.at("tracked_releases") != true {
			t.Errorf("got %s, want the options as sent", ro.raw)
		}

		list := s.do("GET", "/codehost/repositories", admin, nil).want(t, 200)
		if list.at("total") != float64(2) || nth(list.at("repositories"), 0)["id"] != id {
			t.Errorf("got %s, want both, oldest first", list.raw)
		}
		if got := s.do("GET", "/codehost/repositories/"+id, admin, nil).want(t, 200); string(got.raw) != string(r.raw) {
			t.Errorf("got %s, want %s", got.raw, r.raw)
		}
		u := s.do("PATCH", "/codehost/repositories/"+id, admin, map[string]any{"tracked_branches": []string{"main"},
			"auto_register_enabled": true}).want(t, 200)
		if u.at("tracked_branches").([]any)[0] != "main" || u.at("auto_register_enabled") != true || u.at("tracked_tags") != true {
			t.Errorf("got %s, want branches and auto-register changed, the rest kept", u.raw)
		}
		s.do("PATCH", "/codehost/repositories/"+id, admin, map[string]any{"tracked_branches": []string{"/main"}}).wantField(t, "tracked_branches")
		if got := s.do("GET", "/codehost/repositories/"+id, admin, nil).want(t, 200); string(got.raw) != string(u.raw) {
			t.Errorf("after a refused update: got %s, want %s", got.raw, u.raw)
		}

		w := s.do("POST", "/codehost/repositories/"+id+"/webhook", admin, nil).want(t, 200)
		if w.str("webhook_status") != "active" || w.str("webhook_id") == "" {
			t.Fatalf("got %s, want an active webhook", w.raw)
		}
		f.mu.Lock()
		hooks := maps(f.hooks)
		f.mu.Unlock()
		if len(hooks) != 1 {
			t.Fatalf("got %d hooks on the host, want 1", len(hooks))
		}
		h := hooks[0]
		if !strings.HasSuffix(h.URL, "/api/v1/codehost/webhooks?repository="+id) || h.ContentType != "json" || h.InsecureSSL != "0" ||
			!slices.Equal(h.Events, []string{"push", "release", "create"}) || len(h.Secret) < 32 {
			t.Fatalf("got hook %+v, want a JSON hook of push, release and create with TLS verification and a long secret", h)
		}
		if s.do("GET", "/codehost/repositories/"+id, admin, nil).str("webhook_status") != "active" {
			t.Error("got the repository's webhook inactive after setup")
		}
		for _, row := range storeRows(t, s) {
			if strings.Contains(row, h.Secret) {
				t.Fatalf("the store holds the webhook secret in plaintext: %s", row)
			}
		}
		body := `{"ref":"refs/heads/main"}`
		s.delivery(id, body, map[string]string{webhook.SignatureHeader: webhook.Sign([]byte(h.Secret), []byte(body)),
			webhook.DeliveryHeader: uuid.NewString(), webhook.EventHeader: "push"}).want(t, 202)

		s.do("POST", "/codehost/repositories/"+ro.str("id")+"/webhook", admin, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		viewer := s.user(admin, "vic", "viewer")
		s.do("GET", "/codehost/repositories/"+id, viewer, nil).want(t, 200)
		s.do("DELETE", "/codehost/repositories/"+id, viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")

		s.do("DELETE", "/codehost/repositories/"+id, admin, nil).want(t, 204)
		s.do("GET", "/codehost/repositories/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("DELETE", "/codehost/repositories/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		f.mu.Lock()
		left := len(f.hooks)
		f.mu.Unlock()
		if left != 0 {
			t.Errorf("got %d hooks on the host after untracking, want 0", left)
		}

		// The host's rate limit spent: 503 until its reset, and no more
		// calls reach it meanwhile.
		f.mu.Lock()
		f.limited = true
		f.mu.Unlock()
		busy := s.do("GET", base, admin, nil).wantError(t, 503, "SERVICE_UNAVAILABLE")
		if ra, _ := strconv.Atoi(busy.header.Get("Retry-After")); ra < 41*60 || ra > 43*60 {
			t.Errorf("got Retry-After %q, want the 42 minutes until the host's X-RateLimit-Reset", busy.header.Get("Retry-After"))
		}
		f.mu.Lock()
		f.limited = false
		before := f.calls
		f.mu.Unlock()
		s.do("GET", base, admin, nil).wantError(t, 503, "SERVICE_UNAVAILABLE")
		f.mu.Lock()
		after := f.calls
		f.mu.Unlock()
		if after != before {
			t.Errorf("got %d calls to the host while its rate limit is spent, want none", after-before)
		}
	})
}

func maps(m map[int64]forgeHook) []forgeHook {
	var out []forgeHook
	for _, h := range m {
		out = append(out, h)
	}
	return out
}

// nth is item i of a JSON array of objects; nil when there is none.
func nth(list any, i int) map[string]any {
	l, _ := list.([]any)
	if i >= len(l) {
		return nil
	}
	m, _ := l[i].(map[string]any)
	return m
}

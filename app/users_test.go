package app

import (
	"strings"
	"testing"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/config"
)

// TestRoleRouteMatrix calls every authenticated route as each built-in role
// and a custom role: a route answers 403 exactly when the role lacks its
// permission.
func TestRoleRouteMatrix(t *testing.T) {
	// Every report-generating route is called once per role, more than
	// the hour's report quota (10): the quota is TestExportRateLimit's.
	lift := func(c *config.Config) { c.Limits.Reports = 1 << 20 }
	eachBackend(t, lift, func(t *testing.T, s *server) {
		admin := s.admin()
		s.do("POST", "/roles", admin, map[string]any{"name": "dashboards", "permissions": []string{"dashboard:read"}}).want(t, 201)
		tokens := map[string]string{
			"editor":     s.user(admin, "eddie", "editor"),
			"viewer":     s.user(admin, "vivian", "viewer"),
			"dashboards": s.user(admin, "dana", "dashboards"),
		}
		perms := map[string][]string{"dashboards": {"dashboard:read"}}
		for _, r := range identity.BuiltInRoles() {
			perms[r.Name] = r.Permissions
		}
		for _, r := range allRoutes() {
			if r.Public || r.Permission == "" {
				continue
			}
			path := strings.NewReplacer(":model_id", "m", ":model_name", "m", ":user_id", "u", ":role_id", "r", ":key_id", "k",
				":entry_id", "e", ":rule_id", "x", ":alert_id", "y", ":board_id", "b", ":request_id", "q").Replace(r.Path)
			for role, tok := range tokens {
				allowed := (&identity.Principal{Permissions: perms[role]}).Can(r.Permission)
				got := s.do(r.Method, path, tok, map[string]any{})
				if !allowed {
					got.wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
					if got.at("error.details.required_permission") != r.Permission {
						t.Errorf("%s %s as %s: got details %v, want required_permission %s", r.Method, r.Path, role, got.at("error.details"), r.Permission)
					}
				} else if got.status == 403 {
					t.Errorf("%s %s as %s: got 403, want the role's %s to let it through", r.Method, r.Path, role, r.Permission)
				}
			}
		}
	})
}

func TestUsers(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		r := s.do("POST", "/users", admin, map[string]any{"username": "bob", "email": "bob@example.com", "password": "long enough password",
			"full_name": "Bob", "role": "editor"}).want(t, 201)
		if r.str("role") != "editor" || r.at("is_active") != true || strings.Contains(string(r.raw), "password") {
			t.Fatalf("got %s, want an active editor without password material", r.raw)
		}
		bob := r.str("id")
		s.do("GET", "/users/"+bob, admin, nil).want(t, 200)
		for i := 0; i < 3; i++ {
			s.do("POST", "/users", admin, map[string]any{"username": "user" + string(rune('a'+i)), "email": "u@example.com", "password": "long enough password"}).want(t, 201)
		}
		page := s.do("GET", "/users?page=2&page_size=2", admin, nil).want(t, 200)
		if page.at("total") != float64(5) || page.at("total_pages") != float64(3) || page.at("has_next") != true ||
			page.at("has_prev") != true || page.at("next_page") != float64(3) || page.at("prev_page") != float64(1) ||
			len(page.at("users").([]any)) != 2 {
			t.Fatalf("got %s, want page 2 of 3 with two users", page.raw)
		}
		s.do("GET", "/users?page_size=0", admin, nil).wantField(t, "page_size")
		s.do("PUT", "/users/"+bob+"/role", admin, map[string]any{"role": "viewer"}).want(t, 200)
		bobToken := s.login("bob", "long enough password")
		s.do("POST", "/models", bobToken, map[string]any{"name": "m", "model_type": "llm"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("PUT", "/users/"+bob+"/role", admin, map[string]any{"role": "nonexistent"}).wantField(t, "role")
		s.do("PUT", "/users/"+bob+"/role", admin, map[string]any{}).wantField(t, "role")
		s.do("POST", "/users", admin, map[string]any{"username": "bob", "email": "b@example.com", "password": "long enough password"}).
			wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("POST", "/users", admin, map[string]any{"username": "eve", "email": "e@example.com", "password": "long enough password", "is_admin": true}).
			wantField(t, "is_admin")

		// Usernames are case-insensitive.
		s.do("POST", "/users", admin, map[string]any{"username": "BOB", "email": "b@example.com", "password": "long enough password"}).
			wantError(t, 409, "RESOURCE_CONFLICT")
		s.login("Bob", "long enough password")

		// The last admin keeps the role.
		adminID := s.do("GET", "/auth/me", admin, nil).str("user.id")
		s.do("PUT", "/users/"+adminID+"/role", admin, map[string]any{"role": "viewer"}).wantError(t, 409, "RESOURCE_CONFLICT")
		s.do("PUT", "/users/"+bob+"/role", admin, map[string]any{"role": "admin"}).want(t, 200)
		s.do("PUT", "/users/"+adminID+"/role", admin, map[string]any{"role": "viewer"}).want(t, 200)

		// Deactivation: bob's token and keys stop at once; the username stays taken.
		bobToken = s.login("bob", "long enough password")
		bobKey, _ := s.key(bobToken, "read")
		s.do("GET", "/models", bobKey, nil).want(t, 200)
		s.do("DELETE", "/users/"+bob, bobToken, nil).wantError(t, 409, "RESOURCE_CONFLICT") // himself, the last admin
		carol := s.do("POST", "/users", bobToken, map[string]any{"username": "carol", "email": "c@example.com", "password": "long enough password", "role": "admin"}).want(t, 201).str("id")
		carolToken := s.login("carol", "long enough password")
		s.do("DELETE", "/users/"+bob, carolToken, nil).want(t, 204)
		s.do("GET", "/models", bobKey, nil).wantError(t, 401, "AUTHENTICATION_FAILED")
		s.do("GET", "/models", bobToken, nil).wantError(t, 401, "AUTHENTICATION_FAILED")
		s.do("POST", "/auth/login", "", map[string]any{"username": "bob", "password": "long enough password"}).wantError(t, 401, "AUTHENTICATION_FAILED")
		if r := s.do("GET", "/users/"+bob, carolToken, nil).want(t, 200); r.at("is_active") != false {
			t.Fatalf("got %s, want bob kept as inactive", r.raw)
		}
		s.do("DELETE", "/users/"+carol, carolToken, nil).wantError(t, 409, "RESOURCE_CONFLICT")
	})
}

func TestRoles(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		r := s.do("POST", "/roles", admin, map[string]any{"name": "auditor", "description": "reads models and users",
			"permissions": []string{"models:read", "users:read", "users:write"}}).want(t, 201)
		id := r.str("id")
		s.do("GET", "/roles/"+id, admin, nil).want(t, 200)
		list := s.do("GET", "/roles", admin, nil).want(t, 200)
		if list.at("total") != float64(4) {
			t.Fatalf("got %s, want admin, editor, viewer and auditor", list.raw)
		}
		s.do("POST", "/roles", admin, map[string]any{"name": "auditor", "permissions": []string{"models:read"}}).wantError(t, 409, "RESOURCE_CONFLICT")
		for name, perms := range map[string][]string{
			"bad-perm":  {"models:delete"},
			"keys":      {"api_keys:write"},
			"wildcard":  {"*:write"},
			"empty":     {},
			"Bad Name!": {"models:read"},
		} {
			field := "permissions"
			if name == "Bad Name!" {
				field = "name"
			}
			s.do("POST", "/roles", admin, map[string]any{"name": name, "permissions": perms}).wantField(t, field)
		}

		// No escalation: an auditor may manage users but not hand out roles
		// with permissions it lacks.
		auditor := s.user(admin, "audrey", "auditor")
		s.do("POST", "/users", auditor, map[string]any{"username": "xavier1", "email": "x@example.com", "password": "long enough password", "role": "admin"}).
			wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("POST", "/users", auditor, map[string]any{"username": "xavier2", "email": "x@example.com", "password": "long enough password", "role": "auditor"}).want(t, 201)

		// Nor can a narrowly scoped key of an admin.
		usersKey, _ := s.key(admin, "users:write", "users:read")
		s.do("POST", "/users", usersKey, map[string]any{"username": "xavier3", "email": "x@example.com", "password": "long enough password", "role": "admin"}).
			wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		rolesKey, _ := s.key(admin, "roles:write")
		s.do("POST", "/roles", rolesKey, map[string]any{"name": "sneaky", "permissions": []string{"users:write"}}).
			wantError(t, 403, "INSUFFICIENT_PERMISSIONS")

		s.do("DELETE", "/roles/"+id, admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		viewerID := ""
		for _, r := range list.at("roles").([]any) {
			if m := r.(map[string]any); m["name"] == "viewer" {
				viewerID = m["id"].(string)
			}
		}
		s.do("DELETE", "/roles/"+viewerID, admin, nil).wantError(t, 409, "RESOURCE_CONFLICT")
		empty := s.do("POST", "/roles", admin, map[string]any{"name": "unused", "permissions": []string{"models:read"}}).want(t, 201).str("id")
		s.do("DELETE", "/roles/"+empty, admin, nil).want(t, 204)
		s.do("GET", "/roles/"+empty, admin, nil).wantError(t, 404, "NOT_FOUND")
	})
}

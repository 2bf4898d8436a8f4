package app

import (
	"strings"
	"testing"

	"github.com/google/uuid"
)

// TestSecurityHeaders: every answer, from every route of the table with
// and without a token, from the operational endpoints, unknown routes,
// wrong methods and oversized bodies, carries X-Content-Type-Options:
// nosniff and Cache-Control: no-store.
func TestSecurityHeaders(t *testing.T) {
	cfg := testConfig(t)
	cfg.BodyLimit = 1 << 10
	s := start(t, cfg)
	token := s.admin()
	f := func(method, path, token string, body any) {
		t.Helper()
		r := s.do(method, path, token, body)
		for name, want := range map[string]string{"X-Content-Type-Options": "nosniff", "Cache-Control": "no-store"} {
			if got := r.header.Get(name); got != want {
				t.Errorf("%s %s (status %d): got %s %q, want %q", method, path, r.status, name, got, want)
			}
		}
	}
	id := uuid.NewString()
	for _, r := range allRoutes() {
		parts := strings.Split(r.Path, "/")
		for i, p := range parts {
			if strings.HasPrefix(p, ":") {
				parts[i] = id
			}
		}
		path := strings.Join(parts, "/")
		var body any
		if r.Method != "GET" && r.Method != "DELETE" {
			body = map[string]any{}
		}
		f(r.Method, path, token, body)
		f(r.Method, path, "", body)
	}
	f("POST", "/auth/login", "", map[string]any{"username": "admin", "password": adminPassword})
	f("POST", "/api-keys", token, map[string]any{"name": "headers", "scopes": []string{"read"}})
	for _, path := range []string{"root:/healthz", "root:/readyz", "root:/metrics", "root:/nowhere", "/nowhere", "/openapi.json"} {
		f("GET", path, "", nil)
	}
	f("PATCH", "/openapi.json", "", nil)
	f("POST", "/models", token, strings.Repeat(" ", 4<<10))
}

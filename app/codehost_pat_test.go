package app

import (
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

// forge is a stand-in for the code host's GET /user until a real forge
// runs in the tests: it knows tokens and the scopes each carries, and
// refuses every other request.
type forge struct {
	mu     sync.Mutex
	tokens map[string]string // token -> X-OAuth-Scopes
	srv    *httptest.Server
}

func newForge(t *testing.T) *forge {
	f := &forge{tokens: map[string]string{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		scopes, ok := f.tokens[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if r.Method != "GET" || r.URL.Path != "/user" {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": "Not Found"})
			return
		}
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]string{"message": "Bad credentials"})
			return
		}
		w.Header().Set("X-OAuth-Scopes", scopes)
		_ = json.NewEncoder(w).Encode(map[string]any{"login": "octo", "id": 1, "email": "octo@example.com"})
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *forge) set(token, scopes string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if scopes == "" {
		delete(f.tokens, token)
		return
	}
	f.tokens[token] = scopes
}

// TestCodehostPAT: a token the host accepts with repo and read:org
// connects, one it refuses or that lacks a scope does not; the token is
// stored sealed (no table holds it in plaintext); verify follows the
// host's answer; remove deletes the connection.
func TestCodehostPAT(t *testing.T) {
	f := newForge(t)
	eachBackend(t, func(c *config.Config) { c.CodehostAPIURL = f.srv.URL + "/" }, func(t *testing.T, s *server) {
		admin := s.admin()
		token := "ghp_" + rand.Text()
		f.set(token, "repo, read:org, gist")
		f.set("ghp_narrow", "repo")
		r := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token}).want(t, 201)
		id := r.str("id")
		if r.str("auth_type") != "pat" || r.str("status") != "active" || r.str("codehost_username") != "octo" ||
			r.str("codehost_email") != "octo@example.com" || len(r.at("scopes").([]any)) != 0 || r.str("created_at") == "" {
			t.Fatalf("got %s, want an active pat connection of octo with no scopes listed", r.raw)
		}
		if strings.Contains(string(r.raw), token) {
			t.Fatal("the connection's answer holds the token")
		}
		s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": "ghp_unknown"}).wantField(t, "personal_access_token")
		narrow := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": "ghp_narrow"})
		narrow.wantField(t, "personal_access_token")
		if !strings.Contains(string(narrow.raw), "read:org") {
			t.Errorf("got %s, want the missing scope read:org named", narrow.raw)
		}
		s.do("POST", "/codehost/connect/pat", admin, map[string]any{}).wantField(t, "personal_access_token")
		s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": token, "org_id": "x"}).wantField(t, "org_id")

		list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200)
		if len(list.list) != 1 || strings.Contains(string(list.raw), token) {
			t.Fatalf("got %s, want the one connection without its token", list.raw)
		}
		for _, row := range storeRows(t, s) {
			if strings.Contains(row, token) {
				t.Fatalf("the store holds the token in plaintext: %s", row)
			}
		}
		if v := s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200); v.at("valid") != true {
			t.Errorf("got %s, want valid", v.raw)
		}
		f.set(token, "repo")
		if v := s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200); v.at("valid") != false ||
			v.at("missing_scopes").([]any)[0] != "read:org" {
			t.Errorf("got %s, want invalid for lacking read:org", v.raw)
		}
		f.set(token, "")
		if v := s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).want(t, 200); v.at("valid") != false {
			t.Errorf("got %s, want invalid once the host refuses the token", v.raw)
		}
		viewer := s.user(admin, "vic", "viewer")
		s.do("GET", "/codehost/connections", viewer, nil).want(t, 200)
		s.do("DELETE", "/codehost/connections/"+id, viewer, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("DELETE", "/codehost/connections/"+id, admin, nil).want(t, 204)
		s.do("DELETE", "/codehost/connections/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("POST", "/codehost/connections/"+id+"/verify", admin, nil).wantError(t, 404, "NOT_FOUND")
		if list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200); len(list.list) != 0 {
			t.Errorf("got %s, want no connection", list.raw)
		}
	})
}

// TestCodehostHostDown: a host that does not answer makes connect answer
// 503 with Retry-After, storing nothing.
func TestCodehostHostDown(t *testing.T) {
	f := newForge(t)
	f.srv.Close()
	eachBackend(t, func(c *config.Config) { c.CodehostAPIURL = f.srv.URL + "/" }, func(t *testing.T, s *server) {
		admin := s.admin()
		r := s.do("POST", "/codehost/connect/pat", admin, map[string]any{"personal_access_token": "ghp_x"}).wantError(t, 503, "SERVICE_UNAVAILABLE")
		if r.header.Get("Retry-After") == "" {
			t.Error("got no Retry-After, want one")
		}
		if list := s.do("GET", "/codehost/connections", admin, nil).want(t, 200); len(list.list) != 0 {
			t.Errorf("got %s, want no connection", list.raw)
		}
	})
}

package app

import (
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/config"
)

func TestQuickstart(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		r := s.do("POST", "/auth/login", "", map[string]any{"username": "admin", "password": adminPassword}).want(t, 200)
		if r.at("expires_in") != float64(1800) || r.str("token_type") != "bearer" || r.str("user.role") != "admin" ||
			r.str("user.username") != "admin" || r.str("user.id") == "" {
			t.Fatalf("got login %s, want a bearer token for 1800 s and user {id, username admin, role admin}", r.raw)
		}
		key, _ := s.key(r.str("access_token"), "read", "write")
		if !strings.HasPrefix(key, "vgl_live_") {
			t.Fatalf("got key %q, want prefix vgl_live_", key)
		}
		id := s.model(key, "churn", "1.0.0")
		list := s.do("GET", "/models", key, nil).want(t, 200)
		if len(list.list) != 1 || list.list[0].(map[string]any)["id"] != id {
			t.Fatalf("got models %s, want the one registered", list.raw)
		}
	})
}

func TestBearerTokens(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		key, _ := s.key(admin, "read")
		box, err := s.app.masterKey()
		if err != nil {
			t.Fatal(err)
		}
		secret, err := identity.SigningSecret(context.Background(), s.app.store, "", box)
		if err != nil {
			t.Fatal(err)
		}
		adminUser := s.do("GET", "/auth/me", admin, nil).want(t, 200).str("user.id")
		orgID := s.do("GET", "/auth/me", admin, nil).str("user.organization_id")
		at := func(d time.Duration) string {
			tok, err := (&identity.Tokens{Secret: secret, Now: func() time.Time { return time.Now().Add(d) }}).
				Issue(identity.User{ID: adminUser, OrgID: orgID})
			if err != nil {
				t.Fatal(err)
			}
			return tok
		}
		tampered := []byte(admin)
		tampered[len(tampered)-3] ^= 1
		payload := strings.Split(admin, ".")[1]
		none := base64.RawURLEncoding.EncodeToString([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + payload + "."
		otherSecret := func() string {
			tok, _ := (&identity.Tokens{Secret: []byte("another-secret-of-at-least-32-bytes!")}).Issue(identity.User{ID: adminUser, OrgID: orgID})
			return tok
		}()
		// Validly signed, with a year's lifetime: refused whatever it says.
		now := time.Now()
		yearLong, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "vigil", "sub": adminUser, "org": orgID,
			"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(365 * 24 * time.Hour).Unix()}).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		last := byte('a')
		if key[len(key)-1] == last {
			last = 'b'
		}
		badChecksum := key[:len(key)-1] + string(last)
		cases := []struct {
			name, token string
			status      int
			code        string
		}{
			{"valid token", admin, 200, ""},
			{"valid key", key, 200, ""},
			{"no token", "", 401, "AUTHENTICATION_FAILED"},
			{"garbage", "not-a-token", 401, "AUTHENTICATION_FAILED"},
			{"tampered signature", string(tampered), 401, "AUTHENTICATION_FAILED"},
			{"alg none", none, 401, "AUTHENTICATION_FAILED"},
			{"other secret", otherSecret, 401, "AUTHENTICATION_FAILED"},
			{"expired", at(-31 * time.Minute), 401, "TOKEN_EXPIRED"},
			{"issued 29 minutes ago", at(-29 * time.Minute), 200, ""},
			{"signed, a year long", yearLong, 401, "AUTHENTICATION_FAILED"},
			{"key with bad checksum", badChecksum, 401, "AUTHENTICATION_FAILED"},
			{"well-formed unknown key", mustKey(t), 401, "AUTHENTICATION_FAILED"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				r := s.do("GET", "/models", c.token, nil)
				if c.code == "" {
					r.want(t, c.status)
					return
				}
				r.wantError(t, c.status, c.code)
			})
		}
	})
}

func mustKey(t *testing.T) string {
	k, err := identity.NewKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestAPIKeys(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		r := s.do("POST", "/api-keys", admin, map[string]any{"name": "pipeline", "scopes": []string{"write"}, "expires_in_days": 30}).want(t, 201)
		raw, id := r.str("raw_key"), r.str("id")
		if r.str("key_hint") == "" || !strings.HasPrefix(raw, r.str("key_hint")[:13]) || r.str("expires_at") == "" {
			t.Fatalf("got %s, want raw_key, a hint of it and expires_at", r.raw)
		}
		s.do("GET", "/models", raw, nil).want(t, 200)

		list := s.do("GET", "/api-keys", admin, nil).want(t, 200)
		if strings.Contains(string(list.raw), raw) || strings.Contains(string(list.raw), identity.HashKey(raw)) ||
			strings.Contains(string(list.raw), "raw_key") {
			t.Fatalf("got list %s, want no key material", list.raw)
		}
		keys := list.at("api_keys").([]any)
		if len(keys) != 1 || list.at("total") != float64(1) {
			t.Fatalf("got %s, want one key in the pagination envelope", list.raw)
		}
		k := s.do("GET", "/api-keys/"+id, admin, nil).want(t, 200)
		if k.str("last_used_at") == "" || k.at("scopes").([]any)[0] != "write" {
			t.Fatalf("got %s, want last_used_at set by the use above and scopes [write]", k.raw)
		}

		s.do("DELETE", "/api-keys/"+id, admin, nil).want(t, 204)
		s.do("GET", "/models", raw, nil).wantError(t, 401, "AUTHENTICATION_FAILED")
		s.do("DELETE", "/api-keys/"+id, admin, nil).wantError(t, 404, "NOT_FOUND")

		bad := []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"scopes": []string{"read"}}, "name"},
			{map[string]any{"name": "x", "scopes": []string{"everything"}}, "scopes"},
			{map[string]any{"name": "x", "scopes": []string{}}, "scopes"},
			{map[string]any{"name": "x", "expires_in_days": 0}, "expires_in_days"},
			{map[string]any{"name": "x", "org_id": "other"}, "org_id"},
			{map[string]any{"name": "x", "revoked_at": "2020-01-01T00:00:00Z"}, "revoked_at"},
		}
		for _, b := range bad {
			s.do("POST", "/api-keys", admin, b.body).wantField(t, b.field)
		}
	})
}

func TestKeyScopes(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		admin := s.admin()
		read, _ := s.key(admin, "read")
		write, _ := s.key(admin, "write")
		users, _ := s.key(admin, "users:read")
		s.do("GET", "/models", read, nil).want(t, 200)
		s.do("POST", "/models", read, map[string]any{"name": "m", "model_type": "regression"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("POST", "/models", write, map[string]any{"name": "m", "model_type": "regression"}).want(t, 201)
		// Admin resources need a scope that names them.
		s.do("GET", "/users", write, nil).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		s.do("GET", "/users", users, nil).want(t, 200)
		s.do("POST", "/api-keys", write, map[string]any{"name": "x"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
		// A key acts with its creator's current role.
		s.user(admin, "second-admin", "admin")
		adminID := s.do("GET", "/auth/me", admin, nil).str("user.id")
		s.do("PUT", "/users/"+adminID+"/role", admin, map[string]any{"role": "viewer"}).want(t, 200)
		s.do("POST", "/models", write, map[string]any{"name": "m2", "model_type": "regression"}).wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	})
}

func TestLoginLockout(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		var last response
		for i := 0; i < 6; i++ {
			last = s.do("POST", "/auth/login", "", map[string]any{"username": "admin", "password": "wrong password"})
			if last.status == http.StatusTooManyRequests {
				break
			}
			last.wantError(t, 401, "AUTHENTICATION_FAILED")
		}
		last.wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		if last.header.Get("Retry-After") == "" {
			t.Fatalf("got no Retry-After, want one on a locked-out login")
		}
		// Even the right password waits until the delay is over.
		s.do("POST", "/auth/login", "", map[string]any{"username": "admin", "password": adminPassword}).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		// But only for this client: the admin logging in from elsewhere is
		// not locked out by someone else's failures.
		if status, _ := loginFrom(t, s, "127.0.0.2", adminPassword); status != http.StatusOK {
			t.Fatalf("login from another address: got status %d, want 200", status)
		}
		// Another account is not affected.
		s.signUp("other-admin")
	})
}

func TestRegister(t *testing.T) {
	body := map[string]any{"username": "newbie", "email": "n@example.com", "password": "long enough password", "full_name": "New Bie"}
	t.Run("admin mode", func(t *testing.T) {
		cfg := testConfig(t)
		cfg.Registration = config.RegistrationAdmin
		s := start(t, cfg)
		s.do("POST", "/auth/register", "", body).wantError(t, 401, "AUTHENTICATION_FAILED")
		admin := s.admin()
		r := s.do("POST", "/auth/register", admin, body).want(t, 201)
		me := s.do("GET", "/auth/me", admin, nil)
		if r.str("role") != "viewer" || r.str("organization_id") != me.str("user.organization_id") {
			t.Fatalf("got %s, want a viewer in the admin's organization", r.raw)
		}
		if strings.Contains(string(r.raw), "password") {
			t.Fatalf("got %s, want no password material", r.raw)
		}
		viewer := s.login("newbie", "long enough password")
		s.do("POST", "/auth/register", viewer, map[string]any{"username": "x2", "email": "x@example.com", "password": "long enough password"}).
			wantError(t, 403, "INSUFFICIENT_PERMISSIONS")
	})
	t.Run("open mode", func(t *testing.T) {
		s := start(t, testConfig(t))
		r := s.do("POST", "/auth/register", "", body).want(t, 201)
		admin := s.admin()
		if r.str("role") != "admin" || r.str("organization_id") == s.do("GET", "/auth/me", admin, nil).str("user.organization_id") {
			t.Fatalf("got %s, want the admin of a new organization", r.raw)
		}
		s.do("POST", "/auth/register", "", body).wantError(t, 409, "RESOURCE_CONFLICT")
		for field, b := range map[string]map[string]any{
			"role":     {"username": "u1", "email": "u@example.com", "password": "long enough password", "role": "admin"},
			"password": {"username": "u2", "email": "u@example.com", "password": "short"},
			"username": {"username": "a b", "email": "u@example.com", "password": "long enough password"},
			"email":    {"username": "u3", "password": "long enough password"},
		} {
			s.do("POST", "/auth/register", "", b).wantField(t, field)
		}
	})
}

// TestPasswordPolicy: self-registration, registration by an admin and user
// creation refuse a password that is short, common or holds the username,
// with the rule in the 422's message and the field in its details, and
// store nothing.
func TestPasswordPolicy(t *testing.T) {
	s := start(t, testConfig(t))
	admin := s.admin()
	for _, pw := range []string{"fourteen chars", "manchesterunited", "passwordpassword", "I am Carol and this is mine"} {
		for _, route := range []struct{ path, token string }{{"/auth/register", ""}, {"/auth/register", admin}, {"/users", admin}} {
			r := s.do("POST", route.path, route.token, map[string]any{"username": "carol", "email": "c@example.com", "password": pw})
			r.wantField(t, "password")
			if msg := r.str("error.message"); !strings.Contains(msg, identity.PasswordRule) {
				t.Errorf("POST %s with %q: got message %q, want the rule %q", route.path, pw, msg, identity.PasswordRule)
			}
		}
	}
	s.do("POST", "/auth/login", "", map[string]any{"username": "carol", "password": "fourteen chars"}).wantError(t, 401, "AUTHENTICATION_FAILED")
	s.do("POST", "/users", admin, map[string]any{"username": "carol", "email": "c@example.com", "password": "a fine long passphrase"}).want(t, 201)

	// Spaces alone make a password as the document says (15 to 256 of
	// any characters): it is taken at creation and at login alike.
	// (Not one space repeated: a repeated listed password is refused.)
	spaces := " \t  \n \t\t  \u00a0 \t \n   \t"
	s.do("POST", "/users", admin, map[string]any{"username": "dave", "email": "d@example.com", "password": spaces}).want(t, 201)
	s.login("dave", spaces)
	s.do("POST", "/auth/login", "", map[string]any{"username": "carol", "password": spaces}).wantError(t, 401, "AUTHENTICATION_FAILED")
	s.do("POST", "/auth/login", "", map[string]any{"username": "carol", "password": ""}).wantField(t, "password")
}

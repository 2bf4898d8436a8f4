package identity

import "testing"

func TestPrincipalCan(t *testing.T) {
	roles := map[string][]string{}
	for _, r := range BuiltInRoles() {
		roles[r.Name] = r.Permissions
	}
	cases := []struct {
		name   string
		p      Principal
		perm   string
		allows bool
	}{
		{"admin anything", Principal{Permissions: roles[RoleAdmin]}, "api_keys:write", true},
		{"editor writes models", Principal{Permissions: roles[RoleEditor]}, "models:write", true},
		{"editor no users", Principal{Permissions: roles[RoleEditor]}, "users:write", false},
		{"editor no keys", Principal{Permissions: roles[RoleEditor]}, "api_keys:read", false},
		{"viewer reads", Principal{Permissions: roles[RoleViewer]}, "drift:read", true},
		{"viewer cannot write", Principal{Permissions: roles[RoleViewer]}, "models:write", false},
		{"custom exact", Principal{Permissions: []string{"models:read"}}, "models:read", true},
		{"custom other resource", Principal{Permissions: []string{"models:read"}}, "metrics:read", false},
		{"resource wildcard", Principal{Permissions: []string{"models:*"}}, "models:write", true},
		{"read key", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{ScopeRead}}, "models:read", true},
		{"read key cannot write", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{ScopeRead}}, "models:write", false},
		{"write key writes", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{ScopeWrite}}, "models:write", true},
		{"write key no admin resources", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{ScopeWrite}}, "api_keys:write", false},
		{"read key no users", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{ScopeRead}}, "users:read", false},
		{"named scope", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{"webhooks:write"}}, "webhooks:write", true},
		{"named scope only", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{"webhooks:write"}}, "models:read", false},
		{"admin configures", Principal{Permissions: roles[RoleAdmin]}, "risk:configure", true},
		{"editor cannot configure", Principal{Permissions: roles[RoleEditor]}, "risk:configure", false},
		{"write key cannot configure", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{ScopeWrite}}, "risk:configure", false},
		{"configure scope", Principal{Permissions: roles[RoleAdmin], KeyID: "k", Scopes: []string{"risk:configure"}}, "risk:configure", true},
		{"editor reviews", Principal{Permissions: roles[RoleEditor]}, "governance:review", true},
		{"viewer cannot review", Principal{Permissions: roles[RoleViewer]}, "governance:review", false},
		{"editor reviews governance only", Principal{Permissions: roles[RoleEditor]}, "risk:review", false},
		{"write key cannot review", Principal{Permissions: roles[RoleEditor], KeyID: "k", Scopes: []string{ScopeWrite}}, "governance:review", false},
		{"review scope", Principal{Permissions: roles[RoleEditor], KeyID: "k", Scopes: []string{"governance:review"}}, "governance:review", true},
		{"scope cannot exceed role", Principal{Permissions: roles[RoleViewer], KeyID: "k", Scopes: []string{ScopeWrite}}, "models:write", false},
	}
	for _, c := range cases {
		if got := c.p.Can(c.perm); got != c.allows {
			t.Errorf("%s: Can(%s) got %v, want %v", c.name, c.perm, got, c.allows)
		}
	}
	var nobody *Principal
	if nobody.Can("models:read") {
		t.Errorf("nil principal: got allowed, want denied")
	}
}

func TestValidPermissionAndScope(t *testing.T) {
	for p, want := range map[string]bool{
		"models:read": true, "*:read": true, "models:*": true, "*:*": true,
		"risk:configure": true, "governance:review": true, "models": false, "models:delete": false, "unknown:read": false, ":read": false, "": false,
	} {
		if got := ValidPermission(p); got != want {
			t.Errorf("ValidPermission(%q) got %v, want %v", p, got, want)
		}
	}
	for s, want := range map[string]bool{"read": true, "write": true, "webhooks:write": true, "*:*": false, "models:*": false, "admin": false} {
		if got := ValidScope(s); got != want {
			t.Errorf("ValidScope(%q) got %v, want %v", s, got, want)
		}
	}
}

func TestPassword(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	for pw, want := range map[string]bool{"correct horse battery": true, "correct horse batterY": false, "": false} {
		if ok, err := CheckPassword(h, pw); err != nil || ok != want {
			t.Errorf("CheckPassword(%q) got %v %v, want %v", pw, ok, err, want)
		}
	}
	if h2, _ := HashPassword("correct horse battery"); h2 == h {
		t.Errorf("got the same hash twice, want a fresh salt each time")
	}
}

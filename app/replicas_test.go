package app

import "testing"

// TestTwoReplicas runs two API processes on one PostgreSQL and one Redis:
// a key revoked through one is refused by the other on its very next
// request, and both count against one rate limit.
func TestTwoReplicas(t *testing.T) {
	cfg := engineConfig(t)
	cfg.Limits.Standard = 8
	one := start(t, cfg)
	cfg.DataDir = t.TempDir()
	two := start(t, cfg)

	token := one.admin()
	key, id := one.key(token, "read")
	two.do("GET", "/models", key, nil).want(t, 200)
	one.do("DELETE", "/api-keys/"+id, token, nil).want(t, 204)
	two.do("GET", "/models", key, nil).wantError(t, 401, "AUTHENTICATION_FAILED")

	// Spend the organization's quota on replica one; replica two refuses.
	for one.do("GET", "/models", token, nil).want(t, 200).header.Get("X-RateLimit-Remaining") != "0" {
	}
	two.do("GET", "/models", token, nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
}

package app

import (
	"testing"
	"time"
)

// TestTwoReplicas runs two API processes on one PostgreSQL and one Redis:
// a key revoked through one is refused by it on the very next request and
// by the other within a second, and both count against one rate limit.
func TestTwoReplicas(t *testing.T) {
	cfg := engineConfig(t)
	cfg.Limits.Standard = 8
	// Only the invalidation through Redis, not the cache's lifetime, can
	// make replica two refuse the revoked key in time.
	cfg.AuthCacheTTL = time.Hour
	one := start(t, cfg)
	cfg.DataDir = t.TempDir()
	two := start(t, cfg)

	token := one.admin()
	key, id := one.key(token, "read")
	two.do("GET", "/models", key, nil).want(t, 200)
	one.do("GET", "/models", key, nil).want(t, 200) // cached on both replicas now
	one.do("DELETE", "/api-keys/"+id, token, nil).want(t, 204)
	one.do("GET", "/models", key, nil).wantError(t, 401, "AUTHENTICATION_FAILED")
	revoked := time.Now()
	for two.do("GET", "/models", key, nil).status != 401 {
		if time.Since(revoked) > time.Second {
			t.Fatalf("replica two still accepts the key a second after its revocation")
		}
	}

	// Spend the organization's quota on replica one; replica two refuses.
	for one.do("GET", "/models", token, nil).want(t, 200).header.Get("X-RateLimit-Remaining") != "0" {
	}
	two.do("GET", "/models", token, nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
}

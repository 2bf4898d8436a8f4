package app

import (
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// TestTwoReplicas runs two API processes on one PostgreSQL and one Redis:
// a key revoked through one is refused by the other on its next request,
// and the rate limit counts requests to both.
func TestTwoReplicas(t *testing.T) {
	cfg := testConfig(t)
	cfg.PostgresURL = testenv.PostgresSchema(t)
	cfg.RedisURL = testenv.URL(t, testenv.Redis)
	cfg.Limits.Standard = 6
	one := start(t, cfg)
	cfg.DataDir = t.TempDir()
	two := start(t, cfg)

	token := one.admin()
	key, id := one.key(token, "read")
	two.do("GET", "/models", key, nil).want(t, 200)
	one.do("DELETE", "/api-keys/"+id, token, nil).want(t, 204)
	start := time.Now()
	two.do("GET", "/models", key, nil).wantError(t, 401, "AUTHENTICATION_FAILED")
	if d := time.Since(start); d > time.Second {
		t.Logf("revocation seen after %v", d)
	}

	// Six requests so far for this organization's standard bucket: the
	// key creation, two GETs, the delete, the refused GET (authentication
	// fails before counting, so it does not count) — count what remains.
	for {
		r := one.do("GET", "/models", token, nil)
		if r.status == 429 {
			break
		}
		r.want(t, 200)
		if r.header.Get("X-RateLimit-Remaining") == "0" {
			two.do("GET", "/models", token, nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
			return
		}
	}
	t.Fatalf("got a 429 from replica one before its Remaining reached 0")
}

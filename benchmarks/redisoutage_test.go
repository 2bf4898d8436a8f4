package benchmarks

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// BenchmarkRedisOutage is BenchmarkSingleEvent's 32 clients on the
// embedded pipeline with its limits in Redis, reached through a proxy:
// "reachable" forwards to Redis; "unreachable" hangs every connection
// (testenv.Proxy's Hang) and one request opens the breaker before the
// clients start, so that the limits hold in the process
// (ratelimit.Failover). The ratio of the two req/s is what an outage of
// Redis costs ingest once it is noticed.
func BenchmarkRedisOutage(b *testing.B) {
	for _, down := range []bool{false, true} {
		name := "reachable"
		if down {
			name = "unreachable"
		}
		b.Run(name, func(b *testing.B) {
			proxy, url := testenv.Proxied(b, testenv.URL(b, testenv.Redis))
			base := server(b, func(c *config.Config) { c.RedisURL, c.RedisPrefix = url, "vigil-bench:"+b.Name()+":" })
			key := apiKey(b, base)
			model := modelID(b, base, key)
			if down {
				// The first request after the hang waits for Redis's
				// timeout and opens the breaker; the clients measure the
				// requests after it.
				proxy.Hang()
				body := fmt.Appendf(nil, `{"model_id":%q,"input_data":{"age":1},"output_data":{"churn":true}}`, model)
				if status := postRaw(http.DefaultClient, base+"/predictions/log", key, body); status != http.StatusCreated {
					b.Fatalf("first request of the outage: got %d, want 201", status)
				}
			}
			singleEvents(b, base, key, model, 32)
		})
	}
}

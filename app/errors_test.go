package app

import (
	"net/http"
	"strings"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
)

func TestErrorEnvelope(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.BodyLimit = 4096 }, func(t *testing.T, s *server) {
		admin := s.admin()
		s.do("GET", "/reports", admin, nil).wantError(t, 404, "NOT_FOUND")
		s.do("GET", "/reports", "", nil).wantError(t, 404, "NOT_FOUND")
		s.do("PUT", "/models", admin, "{}").wantError(t, 405, "METHOD_NOT_ALLOWED")
		s.do("POST", "/models", admin, `{"name": "x",`).wantError(t, 400, "BAD_REQUEST")
		s.do("POST", "/models", admin, `{"name": "x"} {"name": "y"}`).wantError(t, 400, "BAD_REQUEST")
		s.do("POST", "/models", admin, ``).wantError(t, 400, "BAD_REQUEST")
		s.do("POST", "/models", admin, `[1, 2]`).wantError(t, 400, "BAD_REQUEST")
		big := `{"name": "x", "model_type": "llm", "description": "` + strings.Repeat("a", 5000) + `"}`
		s.do("POST", "/models", admin, big).wantError(t, 413, "PAYLOAD_TOO_LARGE")
		if n := len(s.do("GET", "/models", admin, nil).list); n != 0 {
			t.Fatalf("got %d models after rejected requests, want none", n)
		}
	})
}

func TestRequestID(t *testing.T) {
	s := start(t, testConfig(t))
	req, _ := http.NewRequest("GET", s.base+"/models", nil)
	req.Header.Set("X-Request-ID", "trace-123")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("X-Request-ID"); got != "trace-123" {
		t.Fatalf("got X-Request-ID %q, want the caller's trace-123", got)
	}
	req.Header.Set("X-Request-ID", "bad id with spaces")
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := res.Header.Get("X-Request-ID"); got == "" || strings.Contains(got, " ") {
		t.Fatalf("got X-Request-ID %q, want a fresh id instead of an unsafe one", got)
	}
}

func TestRateLimits(t *testing.T) {
	eachBackend(t, func(c *config.Config) { c.Limits.Standard = 5 }, func(t *testing.T, s *server) {
		a, b := s.admin(), s.signUp("second")
		for i := 1; i <= 5; i++ {
			r := s.do("GET", "/models", a, nil).want(t, 200)
			if r.header.Get("X-RateLimit-Limit") != "5" || r.header.Get("X-RateLimit-Remaining") == "" || r.header.Get("X-RateLimit-Reset") == "" {
				t.Fatalf("got headers %v, want X-RateLimit-Limit/Remaining/Reset", r.header)
			}
		}
		r := s.do("GET", "/models", a, nil).wantError(t, 429, "RATE_LIMIT_EXCEEDED")
		if r.header.Get("Retry-After") == "" || r.header.Get("X-RateLimit-Remaining") != "0" {
			t.Fatalf("got headers %v, want Retry-After and X-RateLimit-Remaining 0", r.header)
		}
		// Another organization has its own quota.
		s.do("GET", "/models", b, nil).want(t, 200)
		metrics := s.do("GET", "root:/metrics", "", nil).want(t, 200)
		if !strings.Contains(string(metrics.raw), `vigil_rate_limit_rejections_total{bucket="standard"} 1`) {
			t.Fatalf("got metrics without the rejection counted, want vigil_rate_limit_rejections_total{bucket=\"standard\"} 1")
		}
	})
}

func TestOperationalEndpoints(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		s.do("GET", "/models", s.admin(), nil)
		m := string(s.do("GET", "root:/metrics", "", nil).want(t, 200).raw)
		for _, want := range []string{
			`vigil_http_requests_total{method="GET",route="/api/v1/models",status="200"}`,
			`vigil_http_request_duration_seconds_bucket{method="GET",route="/api/v1/models"`,
			`vigil_rate_limit_rejections_total`,
			// The processor's counters, before anything is counted.
			`vigil_processor_dead_letters_total{kind="predictions"} 0`,
			`vigil_processor_dropped_events_total{kind="predictions",reason="model_deleted"} 0`,
		} {
			if !strings.Contains(m, want) {
				t.Errorf("got /metrics without %s", want)
			}
		}
	})
}

func TestRestart(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := b.cfg(t)
			s := start(t, cfg)
			token := s.admin()
			id := s.model(token, "kept", "1")
			s.shutdown()

			s = start(t, cfg)
			// The token survives: the signing secret is kept in the store.
			s.do("GET", "/models/"+id, token, nil).want(t, 200)
			if total := s.do("GET", "/users", token, nil).at("total"); total != float64(1) {
				t.Fatalf("got %v users after a restart, want the one admin", total)
			}
		})
	}
}

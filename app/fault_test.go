//go:build fault

package app

import (
	"os/exec"
	"testing"
	"time"
)

// Fault tests stop and start the shared engines, so they run apart from the
// other suites, one package at a time (make test's second pass:
// go test -tags fault -p 1 -run '^TestFault').

// engines runs deploy/testenv/engines.sh with args.
func engines(t *testing.T, args ...string) {
	t.Helper()
	out, err := exec.Command("../deploy/testenv/engines.sh", args...).CombinedOutput()
	if err != nil {
		t.Fatalf("engines.sh %v: %v\n%s", args, err, out)
	}
}

// TestFaultPostgresRestart: while PostgreSQL is down, requests answer 503
// with Retry-After and change nothing; once it is back, the same process
// serves again without a restart.
func TestFaultPostgresRestart(t *testing.T) {
	for _, how := range []string{"stop", "kill"} {
		t.Run(how, func(t *testing.T) {
			s := start(t, engineConfig(t))
			token := s.admin()
			key, _ := s.key(token, "read", "write")
			s.model(key, "before", "1")

			engines(t, how, "postgres")
			t.Cleanup(func() { engines(t, "start", "postgres") })
			for _, r := range []response{
				s.do("GET", "/models", key, nil),
				s.do("POST", "/models", key, map[string]any{"name": "during", "model_type": "llm"}),
				s.do("POST", "/auth/login", "", map[string]any{"username": "admin", "password": adminPassword}),
			} {
				r.wantError(t, 503, "SERVICE_UNAVAILABLE")
				if r.header.Get("Retry-After") == "" {
					t.Fatalf("got no Retry-After on a 503, want one")
				}
			}
			s.do("GET", "root:/readyz", "", nil).want(t, 503)

			engines(t, "start", "postgres")
			deadline := time.Now().Add(time.Minute)
			var r response
			for {
				if r = s.do("GET", "/models", key, nil); r.status == 200 || time.Now().After(deadline) {
					break
				}
				time.Sleep(200 * time.Millisecond)
			}
			r.want(t, 200)
			if len(r.list) != 1 || r.list[0].(map[string]any)["name"] != "before" {
				t.Fatalf("got %s after recovery, want only the model created before the outage", r.raw)
			}
			s.do("GET", "root:/readyz", "", nil).want(t, 200)
		})
	}
}

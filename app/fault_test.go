//go:build fault

package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Fault tests stop and start the shared engines, so they run apart from the
// other suites, one package at a time (make test's second pass:
// go test -tags fault -p 1 -run '^TestFault'). The process-fault tests
// (kill_test.go, drain_test.go) run in that pass too, for their length;
// they kill only the Vigil processes they start.

// engines runs platform/testenv/engines.sh with args on the shared
// engines.
func engines(t *testing.T, args ...string) {
	t.Helper()
	enginesIn(t, nil, args...)
}

// enginesIn runs platform/testenv/engines.sh with args, the variables env
// added to the test's environment, and returns what it printed.
func enginesIn(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("../platform/testenv/engines.sh", args...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("engines.sh %v %v: %v\n%s", env, args, err, out)
	}
	return string(out)
}

// privateEngines starts the named engines of a set of the test's own
// (engines.sh with VIGIL_ENGINES_DIR and VIGIL_ENGINES_PORT_OFFSET: by
// default $HOME/.cache/vigil-engines-pipeline and 1000, or
// VIGIL_PRIVATE_ENGINES_DIR and VIGIL_PRIVATE_ENGINES_PORT_OFFSET), so
// that stopping one leaves the shared engines to the other suites, and
// points the test's engine variables (VIGIL_TEST_...) of those engines at
// it. It returns engines.sh on the set. The set keeps running for the next
// test; `engines.sh down` with the same variables stops it.
func privateEngines(t *testing.T, names ...string) func(args ...string) {
	t.Helper()
	home, err := os.UserHomeDir()
	if err != nil {
		t.Fatal(err)
	}
	dir, offset := filepath.Join(home, ".cache", "vigil-engines-pipeline"), "1000"
	if v := os.Getenv("VIGIL_PRIVATE_ENGINES_DIR"); v != "" {
		dir = v
	}
	if v := os.Getenv("VIGIL_PRIVATE_ENGINES_PORT_OFFSET"); v != "" {
		offset = v
	}
	env := []string{"VIGIL_ENGINES_DIR=" + dir, "VIGIL_ENGINES_PORT_OFFSET=" + offset}
	run := func(args ...string) { enginesIn(t, env, args...) }
	for _, name := range names {
		run("start", name)
	}
	for _, line := range strings.Split(enginesIn(t, env, "env"), "\n") {
		name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok || !strings.HasPrefix(name, "VIGIL_TEST_") {
			continue
		}
		for _, engine := range names {
			if strings.HasPrefix(name, "VIGIL_TEST_"+strings.ToUpper(engine)+"_") {
				t.Setenv(name, strings.Trim(value, "'"))
			}
		}
	}
	return run
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

// TestFaultClickHouseDown: with ClickHouse stopped, ingest keeps accepting
// into Kafka; once it is back, the backlog drains and every acknowledged
// prediction is stored once.
func TestFaultClickHouseDown(t *testing.T) {
	cfg := kafkaConfig(t)
	cfg.Limits.Batch = 1 << 20
	s := start(t, cfg)
	key, _ := s.key(s.admin(), "read", "write")
	l := newLedger(s, key, s.model(key, "churn", "1"))
	for range 4 {
		l.send(t, 50)
	}
	engines(t, "stop", "clickhouse")
	t.Cleanup(func() { engines(t, "start", "clickhouse") })
	for range 6 {
		if status := l.send(t, 50); status != 201 {
			t.Fatalf("got %d while ClickHouse is down, want 201: ingest must keep accepting", status)
		}
	}
	time.Sleep(3 * time.Second) // the processor retries meanwhile, committing nothing
	engines(t, "start", "clickhouse")
	l.check(t, time.Minute)
	if len(l.acked) != 500 {
		t.Fatalf("got %d acknowledged, want 500", len(l.acked))
	}
}

// TestFaultKafkaDown: with Kafka stopped, ingest answers 503 with
// Retry-After and acknowledges nothing it could lose; once Kafka is back,
// ingest resumes and every acknowledged prediction is stored once.
func TestFaultKafkaDown(t *testing.T) {
	cfg := kafkaConfig(t)
	cfg.Limits.Batch = 1 << 20
	s := start(t, cfg)
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	l := newLedger(s, key, model)
	l.send(t, 100)
	engines(t, "stop", "kafka")
	t.Cleanup(func() { engines(t, "start", "kafka") })
	for range 3 {
		if status := l.send(t, 20); status == 201 {
			t.Fatalf("got 201 while Kafka is down, want 503")
		}
	}
	r := s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "input_data": map[string]any{}, "output_data": map[string]any{}})
	r.wantError(t, 503, "SERVICE_UNAVAILABLE")
	if r.header.Get("Retry-After") == "" {
		t.Fatalf("got no Retry-After on the 503, want one")
	}
	engines(t, "start", "kafka")
	deadline := time.Now().Add(time.Minute)
	for l.send(t, 20) != 201 {
		if time.Now().After(deadline) {
			t.Fatalf("ingest did not recover within a minute of Kafka's restart")
		}
		time.Sleep(time.Second)
	}
	l.send(t, 100)
	l.check(t, time.Minute)
}

// TestFaultClickHouseReads: with ClickHouse stopped, every analytical read
// answers 503 with Retry-After; once it is back, 200, and nothing
// acknowledged is lost. (TestOutageClickHouse runs the same with the
// connection cut instead.)
func TestFaultClickHouseReads(t *testing.T) {
	clickHouseOutage(t, start(t, kafkaConfig(t)),
		func() { engines(t, "stop", "clickhouse") }, func() { engines(t, "start", "clickhouse") })
}

// TestFaultPostgresIngest: with PostgreSQL stopped or killed, ingest with
// keys and models read before goes on, and every acknowledged prediction
// is stored once; what the store must answer answers 503. (TestOutagePostgres
// runs the same with the connection cut instead.)
func TestFaultPostgresIngest(t *testing.T) {
	for _, how := range []string{"stop", "kill"} {
		t.Run(how, func(t *testing.T) {
			postgresOutage(t, start(t, engineConfig(t)),
				func() { engines(t, how, "postgres") }, func() { engines(t, "start", "postgres") })
		})
	}
}

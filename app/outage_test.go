package app

import (
	"net/http"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// The outage tests take an engine away from Vigil and check what users
// meet meanwhile and afterwards. Here the engine is cut off behind a TCP
// proxy (testenv.Proxied), so that the engines other tests share keep
// running; fault_test.go runs the same scenarios with the engine stopped
// and killed.

// TestOutageClickHouse: while ClickHouse is unreachable, every analytical
// read answers 503 with Retry-After; once it is back they answer 200 and
// every acknowledged prediction is stored once.
func TestOutageClickHouse(t *testing.T) {
	cfg := kafkaConfig(t)
	proxy, url := testenv.Proxied(t, cfg.ClickHouseURL)
	cfg.ClickHouseURL = url
	clickHouseOutage(t, start(t, cfg), proxy.Cut, proxy.Restore)
}

// TestOutagePostgres: while PostgreSQL is unreachable, ingest with keys
// and models read before goes on; anything the store must answer answers
// 503 with Retry-After.
func TestOutagePostgres(t *testing.T) {
	cfg := engineConfig(t)
	proxy, url := testenv.Proxied(t, cfg.PostgresURL)
	cfg.PostgresURL = url
	postgresOutage(t, start(t, cfg), proxy.Cut, proxy.Restore)
}

// wantUnavailable fails the test unless r is a 503 SERVICE_UNAVAILABLE
// with Retry-After.
func (r response) wantUnavailable(t *testing.T, what string) {
	t.Helper()
	if r.status != http.StatusServiceUnavailable || r.str("error.code") != "SERVICE_UNAVAILABLE" || r.header.Get("Retry-After") == "" {
		t.Fatalf("%s: got %d %s (Retry-After %q), want 503 SERVICE_UNAVAILABLE with Retry-After",
			what, r.status, r.raw, r.header.Get("Retry-After"))
	}
}

// clickHouseOutage runs the ClickHouse outage on s (Kafka and ClickHouse),
// which down and up take away and bring back.
func clickHouseOutage(t *testing.T, s *server, down, up func()) {
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	l := newLedger(s, key, model)
	l.send(t, 50)
	l.check(t, time.Minute)
	reads := []struct {
		method, path string
		body         any
	}{
		{"GET", "/predictions/models/" + model + "/stats", nil},
		{"GET", "/predictions/models/" + model + "/recent", nil},
		{"GET", "/predictions/models/" + model + "/predictions/e-000000", nil},
		{"POST", "/predictions/query", map[string]any{"model_id": model}},
		{"GET", "/predictions/export?format=csv&model_id=" + model, nil},
		{"GET", "/metrics/aggregate?model_id=" + model + "&metric_type=accuracy&time_window=1h&aggregation=avg", nil},
		{"GET", "/metrics/trend?model_id=" + model + "&metric_type=accuracy&interval=hour&days=1", nil},
		{"GET", "/llm/metrics?model_id=" + model, nil},
		{"GET", "/dead-letters", nil},
		{"GET", "/models", nil},
	}

	t.Cleanup(up) // a no-op once up has run; registered first, so that the engine comes back however the test ends
	down()
	for _, r := range reads {
		s.do(r.method, r.path, key, r.body).wantUnavailable(t, r.method+" "+r.path)
	}
	for range 2 {
		if status := l.send(t, 50); status != http.StatusCreated {
			t.Fatalf("got %d for a batch while ClickHouse is down, want 201: the log takes it", status)
		}
	}

	up()
	for _, r := range reads {
		waitFor(t, r.method+" "+r.path+" answering 200", func() bool {
			return s.do(r.method, r.path, key, r.body).status == http.StatusOK
		})
	}
	l.check(t, time.Minute)
	if len(l.acked) != 150 {
		t.Fatalf("got %d acknowledged, want 150", len(l.acked))
	}
}

// postgresOutage runs the PostgreSQL outage on s, which down and up take
// away and bring back. The process's clock is moved past every cache
// lifetime after down, so that only stale-if-error serves what ingest
// reads, and then past the stale bound.
func postgresOutage(t *testing.T, s *server, down, up func()) {
	token := s.admin()
	key, keyID := s.key(token, "read", "write")
	unused, _ := s.key(token, "write")
	revoked, revokedID := s.key(token, "write")
	model := s.model(key, "churn", "1")
	other := s.model(key, "other", "1")
	spare := s.model(key, "spare", "1")
	l := newLedger(s, key, model)
	l.send(t, 20)
	prediction := map[string]any{"model_id": model, "input_data": map[string]any{}, "output_data": map[string]any{}}
	s.do("POST", "/predictions/log", revoked, map[string]any{"model_id": spare, "input_data": map[string]any{},
		"output_data": map[string]any{}}).want(t, http.StatusCreated)
	s.do("DELETE", "/api-keys/"+revokedID, token, nil).want(t, http.StatusNoContent)
	// The revocation forgot the organization's cached principals: key is
	// read again before the outage.
	l.send(t, 20)

	t.Cleanup(up)
	down()
	s.app.skew.Store(int64(3 * time.Second)) // past the key's (1 s) and the model's (2 s) lifetimes
	for range 3 {
		if status := l.send(t, 20); status != http.StatusCreated {
			t.Fatalf("got %d for a batch with a known key and model while PostgreSQL is down, want 201", status)
		}
	}
	for _, c := range []struct {
		what string
		r    response
	}{
		{"a key not used before the outage", s.do("POST", "/predictions/log", unused, prediction)},
		{"a key revoked before the outage", s.do("POST", "/predictions/log", revoked, prediction)},
		{"a model not logged for before the outage", s.do("POST", "/predictions/log", key,
			map[string]any{"model_id": other, "input_data": map[string]any{}, "output_data": map[string]any{}})},
		{"login", s.do("POST", "/auth/login", "", map[string]any{"username": "admin", "password": adminPassword})},
		{"key creation", s.do("POST", "/api-keys", token, map[string]any{"name": "during", "scopes": []string{"write"}})},
		{"model registration", s.do("POST", "/models", key, map[string]any{"name": "during", "model_type": "llm"})},
	} {
		c.r.wantUnavailable(t, c.what)
	}
	s.app.skew.Store(int64(s.app.cfg.StaleIfError + 3*time.Second))
	if status := l.send(t, 20); status != http.StatusServiceUnavailable {
		t.Fatalf("got %d for a batch past the stale bound, want 503", status)
	}
	s.app.skew.Store(0) // so that stats count what comes next, and no entry is read in the future

	up()
	waitFor(t, "ingest answering 201 again", func() bool { return l.send(t, 20) == http.StatusCreated })
	l.check(t, time.Minute)
	s.do("POST", "/predictions/log", revoked, prediction).wantError(t, http.StatusUnauthorized, "AUTHENTICATION_FAILED")
	s.do("DELETE", "/api-keys/"+keyID, token, nil).want(t, http.StatusNoContent)
	s.do("POST", "/predictions/log", key, prediction).wantError(t, http.StatusUnauthorized, "AUTHENTICATION_FAILED")
}

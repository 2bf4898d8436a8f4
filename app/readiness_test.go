package app

import (
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/testenv"
)

// checkStates reads /readyz?verbose's checks as name: state, and the
// reason of each that did not pass.
func checkStates(t *testing.T, r response) (states, reasons map[string]string) {
	t.Helper()
	list, ok := r.at("checks").([]any)
	if !ok {
		t.Fatalf("got %s, want a list of checks", r.raw)
	}
	states, reasons = map[string]string{}, map[string]string{}
	for _, v := range list {
		c := v.(map[string]any)
		name, _ := c["name"].(string)
		states[name], _ = c["state"].(string)
		reasons[name], _ = c["reason"].(string)
	}
	return states, reasons
}

// TestReadiness: on every backend, /livez and /readyz answer 200, and the
// verbose answer lists each role and backend as ok.
func TestReadiness(t *testing.T) {
	eachBackend(t, nil, func(t *testing.T, s *server) {
		s.do("GET", "root:/livez", "", nil).want(t, 200)
		s.do("GET", "root:/healthz", "", nil).want(t, 200)
		r := s.do("GET", "root:/readyz", "", nil).want(t, 200)
		if r.str("status") != "ready" || r.at("checks") != nil {
			t.Fatalf("got %s, want status ready and no checks unless verbose", r.raw)
		}
		states, _ := checkStates(t, s.do("GET", "root:/readyz?verbose", "", nil).want(t, 200))
		for name, state := range states {
			if state != "ok" {
				t.Errorf("got check %s = %s, want ok", name, state)
			}
		}
		if states["role:api"] == "" || states["role:processor"] == "" || states["event-log:embedded"] == "" ||
			(states["store:sqlite"] == "" && states["store:postgres"] == "") {
			t.Fatalf("got checks %v, want each role, the event log and the store", states)
		}
	})
}

// TestReadinessDegraded: with ClickHouse unreachable from the start and
// Redis cut while serving, an API replica still ingests into Kafka, so
// /readyz stays 200 and names both as degraded, and vigil_engine_up says
// which engines are down.
func TestReadinessDegraded(t *testing.T) {
	cfg := kafkaConfig(t)
	cfg.Roles = []string{config.RoleAPI}
	cfg.ClickHouseURL = "clickhouse://" + closedPort(t) + "/default"
	u, err := url.Parse(testenv.URL(t, testenv.Redis))
	if err != nil {
		t.Fatal(err)
	}
	redis := newCutProxy(t, u.Host)
	cfg.RedisURL = "redis://" + redis.addr()
	s := start(t, cfg)
	key, _ := s.key(s.admin(), "read", "write")
	model := s.model(key, "churn", "1")
	redis.cut()

	r := s.do("GET", "root:/readyz?verbose", "", nil).want(t, 200)
	if r.str("status") != "degraded" {
		t.Fatalf("got status %q, want degraded", r.str("status"))
	}
	states, reasons := checkStates(t, r)
	for name, want := range map[string]string{"analytics:clickhouse": "degraded", "limits:redis": "degraded", "cache:redis": "degraded",
		"event-log:kafka": "ok", "store:postgres": "ok", "role:api": "ok"} {
		if states[name] != want {
			t.Errorf("got %s = %q (%s), want %s", name, states[name], reasons[name], want)
		}
		if want == "degraded" && reasons[name] == "" {
			t.Errorf("got no reason for %s, want the engine's error", name)
		}
	}
	s.do("POST", "/predictions/log", key, map[string]any{"model_id": model, "input_data": map[string]any{"x": 1},
		"output_data": map[string]any{"y": 1}}).want(t, 201)
	m := string(s.do("GET", "root:/metrics", "", nil).want(t, 200).raw)
	for _, want := range []string{`vigil_engine_up{engine="analytics:clickhouse"} 0`, `vigil_engine_up{engine="limits:redis"} 0`, `vigil_engine_up{engine="cache:redis"} 0`,
		`vigil_engine_up{engine="event-log:kafka"} 1`, `vigil_engine_up{engine="store:postgres"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("got /metrics without %s", want)
		}
	}
}

// TestReadinessFailing: with the event log unreachable the API cannot
// ingest, and with PostgreSQL cut it can check no key: /readyz answers
// 503 naming the check failing, while /livez still answers 200.
func TestReadinessFailing(t *testing.T) {
	for _, c := range []struct {
		name, check string
		setup       func(t *testing.T) (config.Config, func())
	}{
		{"kafka unreachable", "event-log:kafka", func(t *testing.T) (config.Config, func()) {
			cfg := testConfig(t)
			cfg.KafkaBrokers = []string{closedPort(t)}
			return cfg, func() {}
		}},
		{"postgres cut", "store:postgres", func(t *testing.T) (config.Config, func()) {
			cfg := engineConfig(t)
			u, err := url.Parse(cfg.PostgresURL)
			if err != nil {
				t.Fatal(err)
			}
			p := newCutProxy(t, u.Host)
			u.Host = p.addr()
			cfg.PostgresURL = u.String()
			cfg.Roles = []string{config.RoleAPI}
			return cfg, p.cut
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, cut := c.setup(t)
			s := start(t, cfg)
			cut()
			s.do("GET", "root:/livez", "", nil).want(t, 200)
			r := s.do("GET", "root:/readyz?verbose", "", nil).want(t, 503)
			states, reasons := checkStates(t, r)
			if r.str("status") != "not ready" || states[c.check] != "failing" || reasons[c.check] == "" {
				t.Fatalf("got %s, want not ready with %s failing and why", r.raw, c.check)
			}
			if want := `vigil_engine_up{engine="` + c.check + `"} 0`; !strings.Contains(string(s.do("GET", "root:/metrics", "", nil).raw), want) {
				t.Errorf("got /metrics without %s", want)
			}
		})
	}
}

// TestReadinessOnEngines points a server at every real engine: each is
// ok in /readyz?verbose and up in /metrics.
func TestReadinessOnEngines(t *testing.T) {
	s := start(t, kafkaConfig(t))
	r := s.do("GET", "root:/readyz?verbose", "", nil).want(t, 200)
	states, reasons := checkStates(t, r)
	for _, name := range []string{"store:postgres", "limits:redis", "cache:redis", "event-log:kafka", "analytics:clickhouse", "role:api", "role:processor"} {
		if states[name] != "ok" {
			t.Errorf("got %s = %q (%s), want ok", name, states[name], reasons[name])
		}
	}
	m := string(s.do("GET", "root:/metrics", "", nil).raw)
	for _, name := range []string{"store:postgres", "limits:redis", "cache:redis", "event-log:kafka", "analytics:clickhouse"} {
		if want := `vigil_engine_up{engine="` + name + `"} 1`; !strings.Contains(m, want) {
			t.Errorf("got /metrics without %s", want)
		}
	}
}

// closedPort is a loopback address nothing listens on: a listener's,
// closed again.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// cutProxy forwards loopback connections to an engine until cut, which
// closes its listener and every connection: the engine's outage as the
// process sees it, without stopping the engine the other tests share.
type cutProxy struct {
	ln     net.Listener
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				in.Close()
				out.Close()
				return
			}
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	return p
}

func (p *cutProxy) addr() string { return p.ln.Addr().String() }

// cut closes the listener and every connection made through it.
func (p *cutProxy) cut() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

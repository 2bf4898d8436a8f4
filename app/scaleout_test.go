//go:build fault

package app

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/platform/config"
)

// fleet is Vigil scaled out: API and processor processes apart, each
// restartable on its own address.
type fleet struct {
	t        *testing.T
	bin, dir string
	mu       sync.Mutex
	procs    map[string]*child
	env      map[string][]string
	addr     map[string]string
}

func newFleet(t *testing.T) *fleet {
	f := &fleet{t: t, bin: buildVigil(t), dir: t.TempDir(),
		procs: map[string]*child{}, env: map[string][]string{}, addr: map[string]string{}}
	t.Cleanup(func() {
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, c := range f.procs {
			c.kill()
		}
	})
	return f
}

// start starts the process name with env on a free address it keeps
// across restarts.
func (f *fleet) start(name string, env []string) {
	f.t.Helper()
	f.env[name], f.addr[name] = env, freeAddr(f.t)
	c, err := spawn(f.bin, f.addr[name], f.dir, env)
	if err != nil {
		f.t.Fatalf("%s: %v", name, err)
	}
	f.mu.Lock()
	f.procs[name] = c
	f.mu.Unlock()
}

// restart stops name (SIGKILL, or SIGTERM when graceful) and starts it
// again on its address. It reports errors rather than failing, so that a
// goroutine may call it.
func (f *fleet) restart(name string, graceful bool) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if graceful {
		if err := f.procs[name].terminate(time.Minute); err != nil {
			return err
		}
	} else {
		f.procs[name].kill()
	}
	c, err := spawn(f.bin, f.addr[name], f.dir, f.env[name])
	if err != nil {
		return err
	}
	f.procs[name] = c
	return nil
}

// TestFaultScaleOut (issue 20, point 4): two API and two processor
// processes on Kafka, ClickHouse, PostgreSQL and Redis. Predictions are
// sent to both APIs in turn while one API is SIGKILLed, one processor is
// SIGKILLed and the other API is stopped by SIGTERM, each restarted:
// every acknowledged prediction is stored exactly once and counted once.
// The hour's prediction quota holds across the two APIs (Redis), and a
// breaking minute opens one alert and one notification, not one per
// processor.
func TestFaultScaleOut(t *testing.T) {
	cfg := kafkaConfig(t)
	cfg.Limits.Batch = 1 << 20
	f := newFleet(t)
	hook := newHookReceiver(t)
	role := func(r string, extra ...string) []string {
		c := cfg
		c.Roles = []string{r}
		return vigilEnv(c, append([]string{"VIGIL_RATE_LIMIT_PREDICTIONS=40", "VIGIL_RATE_LIMIT_STANDARD=1000000", "VIGIL_ALERT_TICK=200ms",
			"VIGIL_OUTBOUND_ALLOW=127.0.0.1"}, extra...)...)
	}
	// The first API creates the admin; the second starts on a store that has one.
	f.start("api-0", role(config.RoleAPI))
	f.start("api-1", role(config.RoleAPI))
	f.start("processor-0", role(config.RoleProcessor, "VIGIL_KAFKA_INSTANCE_ID=processor-0"))
	f.start("processor-1", role(config.RoleProcessor, "VIGIL_KAFKA_INSTANCE_ID=processor-1"))
	apis := []*server{clientOf(t, f.addr["api-0"]), clientOf(t, f.addr["api-1"])}
	key, _ := apis[0].key(apis[0].admin(), "read", "write")

	// Exactly once through kills, across both APIs.
	const total = 60_000
	faults := []struct {
		at       int
		name     string
		graceful bool
	}{{15_000, "api-1", false}, {30_000, "processor-1", false}, {45_000, "api-0", true}}
	l := newLedger(apis[0], key, apis[0].model(key, "scaled", "1"))
	errs := make(chan error, len(faults))
	var wg sync.WaitGroup
	for batch := 0; l.next < total; batch++ {
		if len(faults) > 0 && l.next >= faults[0].at {
			fault := faults[0]
			faults = faults[1:]
			wg.Go(func() { errs <- f.restart(fault.name, fault.graceful) })
		}
		l.s = apis[batch%2]
		if status := l.send(t, 500); status == 0 {
			health := strings.TrimSuffix(l.s.base, "/api/v1") + "/healthz"
			waitFor(t, health+" answering again", func() bool { return answers(health) })
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("restart: %v", err)
		}
	}
	l.s = apis[0]
	l.check(t, 3*time.Minute)

	// The hour's single-prediction quota is the organization's, whichever
	// API answers.
	single := apis[0].model(key, "quota", "1")
	var created, limited int
	for i := range 60 {
		status, err := apis[i%2].post("/predictions/log", key, map[string]any{"model_id": single,
			"input_data": map[string]any{"x": i}, "output_data": map[string]any{"y": 1}})
		switch {
		case err != nil:
			t.Fatal(err)
		case status == http.StatusCreated:
			created++
		case status == http.StatusTooManyRequests:
			limited++
		default:
			t.Fatalf("single prediction %d: got %d, want 201 or 429", i, status)
		}
	}
	if created != 40 || limited != 20 {
		t.Fatalf("got %d created and %d limited across two APIs, want 40 and 20: the quota is per organization", created, limited)
	}

	// A breaking minute opens one alert and pages once, with two processors
	// evaluating.
	slow := apis[0].model(key, "slow", "1")
	rule := slowRule(slow)
	rule["notification_channels"] = []any{map[string]any{"type": "webhook", "target": hook.URL + "/vigil"}}
	ruleID := apis[0].do("POST", "/alerts/rules", key, rule).want(t, 201).str("id")
	for i := range 2 {
		items := make([]map[string]any, 25)
		for j := range items {
			items[j] = map[string]any{"input_data": map[string]any{"x": j}, "output_data": map[string]any{"y": 1}, "latency_ms": 900}
		}
		apis[i].do("POST", "/predictions/log/batch", key, map[string]any{"model_id": slow, "predictions": items}).want(t, 201)
	}
	var alertID string
	// The breaking minute is evaluated once it has closed: up to a minute and a half.
	waitWithin(t, "the alert opened and paged", 3*time.Minute, func() bool {
		r := apis[1].do("GET", "/alerts/instances?rule_id="+ruleID, key, nil).want(t, 200)
		if list, _ := r.at("alerts").([]any); len(list) > 0 {
			alertID = list[0].(map[string]any)["id"].(string)
		}
		return alertID != "" && hook.mentions(alertID) > 0
	})
	// Fast predictions in a later minute resolve the alert; by then every
	// evaluation of the breaking minute, by either processor, is over.
	waitWithin(t, "the alert resolved", 3*time.Minute, func() bool {
		time.Sleep(time.Second) // one fast prediction a second, not a flood
		items := []map[string]any{{"input_data": map[string]any{"x": 1}, "output_data": map[string]any{"y": 1}, "latency_ms": 5}}
		apis[0].do("POST", "/predictions/log/batch", key, map[string]any{"model_id": slow, "predictions": items}).want(t, 201)
		return apis[0].do("GET", "/alerts/instances/"+alertID, key, nil).want(t, 200).str("status") == "resolved"
	})
	if r := apis[0].do("GET", "/alerts/instances?rule_id="+ruleID, key, nil).want(t, 200); r.at("total") != 1.0 {
		t.Fatalf("got %s, want one alert of the rule with two processors", r.raw)
	}
	deliveries := apis[1].do("GET", "/alerts/instances/"+alertID+"/deliveries", key, nil).want(t, 200)
	var opened int
	for _, d := range deliveries.at("deliveries").([]any) {
		if d.(map[string]any)["event"] == alerts.EventOpened {
			opened++
		}
	}
	if opened != 1 || hook.mentions(alertID) != 1 {
		t.Fatalf("got %d deliveries of the opening (%s) and %d notifications, want 1 and 1", opened, deliveries.raw, hook.mentions(alertID))
	}
}

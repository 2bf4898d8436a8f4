package app

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// Readiness, as Kubernetes means it: /livez answers while the process
// can serve; /readyz fails only when a role the process runs can do
// nothing useful. The checks in App.checks are critical (a failure is
// "failing": 503), those in App.degradable are not (a failure is
// "degraded": still 200, an engine the roles work around):
//
//	check          api role                      processor role
//	event-log:*    critical (cannot ingest)      critical (cannot consume)
//	store:*        critical (no key, no login)   critical (no model lookups)
//	analytics:*    degraded (still ingests)      degraded (retries, commits nothing)
//	limits:redis   degraded (limits let through) (not used)
//	cache:redis    degraded (cached in process)  (not used)
//	role:*         critical (the role runs)      critical (the role runs)
//	pipeline:*     (not used)                    critical (a batch failing past VIGIL_PROCESSOR_STUCK_AFTER)
//
// The event log and the store are critical in both roles, the analytical
// store and Redis degraded in both, so one classification serves a
// process whatever roles it runs.

// checkTimeout bounds each check of one readiness answer or scrape.
const checkTimeout = 2 * time.Second

// Check states, as /readyz?verbose names them.
const (
	stateOK       = "ok"
	stateDegraded = "degraded"
	stateFailing  = "failing"
)

// checkResult is one check's outcome.
type checkResult struct {
	Name   string `json:"name"`
	State  string `json:"state"`
	Reason string `json:"reason,omitempty"`
	engine bool
}

// runChecks runs every check at once, each within checkTimeout, and
// returns their results by name.
func (a *App) runChecks(ctx context.Context) []checkResult {
	all := append(slices.Clone(a.checks), a.degradable...)
	out := make([]checkResult, len(all))
	var wg sync.WaitGroup
	for i, ch := range all {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, checkTimeout)
			defer cancel()
			r := checkResult{Name: ch.name, State: stateOK, engine: isEngine(ch.name)}
			if err := ch.fn(ctx); err != nil {
				r.State, r.Reason = stateFailing, err.Error()
				if i >= len(a.checks) {
					r.State = stateDegraded
				}
			}
			out[i] = r
		})
	}
	wg.Wait()
	slices.SortFunc(out, func(x, y checkResult) int { return strings.Compare(x.Name, y.Name) })
	return out
}

// isEngine tells whether a check asks an engine, rather than whether a
// role runs (role:*) or a pipeline keeps up (pipeline:*).
func isEngine(check string) bool {
	return !strings.HasPrefix(check, "role:") && !strings.HasPrefix(check, "pipeline:")
}

// livez answers 200 while the process can serve HTTP at all.
func (a *App) livez(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz answers 200 "ready" when every check passes, 200 "degraded"
// when only checks the roles work around fail, and 503 "not ready" when a
// critical one fails. With ?verbose it lists every check with its state
// and the reason of each that did not pass.
func (a *App) readyz(c *fiber.Ctx) error {
	results := a.runChecks(c.UserContext())
	status, code := "ready", fiber.StatusOK
	for _, r := range results {
		switch {
		case r.State == stateFailing:
			status, code = "not ready", fiber.StatusServiceUnavailable
		case r.State == stateDegraded && code == fiber.StatusOK:
			status = "degraded"
		}
	}
	body := fiber.Map{"status": status}
	if c.Request().URI().QueryArgs().Has("verbose") {
		body["checks"] = results
	}
	return c.Status(code).JSON(body)
}

// engineUp is vigil_engine_up{engine}: 1 when an engine's check passes,
// 0 when not, asked at each scrape.
type engineUp struct {
	app  *App
	desc *prometheus.Desc
}

func newEngineUp(a *App) *engineUp {
	return &engineUp{app: a, desc: prometheus.NewDesc("vigil_engine_up",
		"Whether each engine the process uses answers its check (1) or not (0), by check name.", []string{"engine"}, nil)}
}

// Describe implements prometheus.Collector.
func (e *engineUp) Describe(ch chan<- *prometheus.Desc) { ch <- e.desc }

// Collect implements prometheus.Collector.
func (e *engineUp) Collect(ch chan<- prometheus.Metric) {
	for _, r := range e.app.runChecks(context.Background()) {
		if !r.engine {
			continue
		}
		v := 0.0
		if r.State == stateOK {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(e.desc, prometheus.GaugeValue, v, r.Name)
	}
}

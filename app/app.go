// Package app wires Vigil's backends and roles into one process. Each
// backend and role is a module that names what it needs (modules.go); the
// module manager (platform/modules) starts the roles the process runs
// after their dependencies, the way Loki and Tempo assemble their targets.
// The roles run as services until the process is told to stop or one of
// them fails.
//
// It is the only package that imports the engines; nothing imports it but
// cmd/vigil and the benchmarks.
package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/alerts/channels"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/modules"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/telemetry"
	"github.com/vigilhq/vigil/pricing"
	"github.com/vigilhq/vigil/processors/alerting"
	"github.com/vigilhq/vigil/sqlstore"
	"github.com/vigilhq/vigil/toxicity"
)

// App is one Vigil process: its backends, its roles and the HTTP server
// that carries the API and the operational endpoints.
type App struct {
	cfg     config.Config
	log     *slog.Logger
	metrics *telemetry.Metrics

	store  *sqlstore.DB
	limits ratelimit.Store
	redis  redis.UniversalClient
	auth   *identity.Authenticator
	tokens *identity.Tokens
	// box seals the secrets kept in the store (the master key ring).
	box *secretbox.Keyring
	// apis are the route tables of the API role's concerns, by concern
	// (concerns.go); toxicity and prices are the concerns ingest uses.
	apis     map[string][]Router
	toxicity *toxicity.API
	prices   *pricing.API
	// explainCache holds computed explanations (explanationCache).
	explainCache kvcache.Cache

	events        eventlog.Log
	source        func() (eventlog.Source, error)
	draftSource   func() (eventlog.Source, error) // a member of the risk drafter's group
	explainSource func() (eventlog.Source, error) // a member of the auto-explainer's group
	// landing tells when the processors have landed what the log held.
	landing      *alerting.Landing
	groupPrefix  string                          // before the consumer groups' names on the log (Kafka's topic prefix)
	ensureTopics func(ctx context.Context) error // nil for the embedded log
	analytics    analyticalStore

	http     *fiber.App
	listener net.Listener
	// metricsListener serves /metrics alone, when configured.
	metricsListener net.Listener

	// checks are the critical readiness checks, degradable those whose
	// failure the roles work around (readiness.go).
	checks     []check
	degradable []check
	services   []service
	closers    []func() error

	// skew moves the process's clock (nanoseconds ahead of the system
	// clock): always 0 outside this package's tests, which set it to move
	// time for ingest and the drift schedule.
	skew atomic.Int64
}

// clock is the process's clock: the system clock plus skew.
func (a *App) clock() clock.Clock {
	return func() time.Time { return time.Now().Add(time.Duration(a.skew.Load())) }
}

// check is one readiness probe, reported by /readyz under its name.
type check struct {
	name string
	fn   func(ctx context.Context) error
}

// service is a role's lifetime: run blocks until ctx ends (returning nil)
// or the role fails (returning why).
type service struct {
	name string
	run  func(ctx context.Context) error
}

// New opens the configured backends and prepares the configured roles. On
// error, whatever was opened is closed again.
func New(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	a := &App{cfg: cfg, log: log, metrics: telemetry.NewMetrics()}
	a.metrics.Registry.MustRegister(newEngineUp(a))
	a.metrics.BuildInfo(cmp.Or(cfg.Version, "dev"))
	a.metrics.DeclareOutcomes(alerts.ChannelTypes, channels.Outcomes, []string{export.StatusCompleted, export.StatusFailed, export.StatusCancelled})
	// The addresses are held before anything is created: a start that
	// fails on a busy port leaves no data folder and no admin behind.
	if err := a.bind(); err != nil {
		return nil, err
	}
	var m modules.Manager
	a.register(&m)
	if err := m.Init(ctx, cfg.Roles...); err != nil {
		a.Close()
		a.unbind()
		return nil, err
	}
	return a, nil
}

// bind listens on the HTTP address and, when configured, the metrics one.
func (a *App) bind() error {
	ln, err := net.Listen("tcp", a.cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", a.cfg.Addr, err)
	}
	a.listener = ln
	if a.cfg.MetricsAddr == "" {
		return nil
	}
	if a.metricsListener, err = net.Listen("tcp", a.cfg.MetricsAddr); err != nil {
		a.unbind()
		return fmt.Errorf("listen on %s: %w", a.cfg.MetricsAddr, err)
	}
	return nil
}

// unbind closes the listeners of a start that failed.
func (a *App) unbind() {
	for _, ln := range []net.Listener{a.listener, a.metricsListener} {
		if ln != nil {
			ln.Close()
		}
	}
}

// Addr is the address the HTTP server listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// MetricsAddr is the address of /metrics' own listener, empty when
// /metrics is served on Addr.
func (a *App) MetricsAddr() string {
	if a.metricsListener == nil {
		return ""
	}
	return a.metricsListener.Addr().String()
}

// Run runs every role until ctx ends or one of them fails; a role that
// fails stops the others and its error is returned.
func (a *App) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errc := make(chan error, len(a.services))
	for _, s := range a.services {
		go func() {
			err := s.run(ctx)
			if err == nil && ctx.Err() == nil {
				err = errors.New("stopped unexpectedly")
			}
			if err != nil {
				err = fmt.Errorf("%s: %w", s.name, err)
			}
			errc <- err
		}()
	}
	var first error
	for range a.services {
		if err := <-errc; err != nil && first == nil {
			first = err
			a.log.Error("role failed; stopping", "err", err)
		}
		cancel()
	}
	return first
}

// Close releases the backends, last opened first.
func (a *App) Close() error {
	var errs []error
	for i := len(a.closers) - 1; i >= 0; i-- {
		errs = append(errs, a.closers[i]())
	}
	a.closers = nil
	return errors.Join(errs...)
}

package app

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/export"
	"github.com/vigilhq/vigil/export/bucket"
	"github.com/vigilhq/vigil/export/delivery"
	"github.com/vigilhq/vigil/export/reportschedule"
	"github.com/vigilhq/vigil/export/share"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/breaker"
	"github.com/vigilhq/vigil/platform/config"
	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/modules"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/ratelimit/redisstore"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/telemetry"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/report"
	"github.com/vigilhq/vigil/schemas"
	"github.com/vigilhq/vigil/sqlstore/postgres"
	"github.com/vigilhq/vigil/sqlstore/sqlitestore"
)

// Module names of the backends; the roles' are config.RoleAPI and
// config.RoleProcessor.
const (
	moduleStore     = "store"
	moduleLimits    = "limits"
	moduleEventLog  = "event-log"
	moduleAnalytics = "analytics"
	moduleHTTP      = "http"
)

// register declares every backend, every concern of the API role
// (concerns.go) and both roles with what each needs; the manager computes
// the start order from the roles the process runs. Each backend chooses
// its engine from the configuration.
func (a *App) register(m *modules.Manager) {
	m.Register(moduleStore, a.initStore)
	m.Register(moduleLimits, a.initLimits)
	m.Register(moduleEventLog, a.initEventLog)
	m.Register(moduleAnalytics, a.initAnalytics)
	m.Register(moduleHTTP, a.initHTTP)
	names := make([]string, len(concerns))
	for i, c := range concerns {
		m.Register(c.name, func(ctx context.Context) error { return c.init(a, ctx) }, c.needs...)
		names[i] = c.name
	}
	m.Register(config.RoleAPI, a.initAPI, append([]string{moduleHTTP}, names...)...)
	m.Register(config.RoleProcessor, a.initProcessor, moduleStore, moduleEventLog, moduleAnalytics, moduleHTTP)
}

// initStore opens the transactional store, applies migrations and creates
// the first admin on an empty store.
func (a *App) initStore(ctx context.Context) error {
	var err error
	name := "store:sqlite"
	if a.cfg.PostgresURL != "" {
		name = "store:postgres"
		a.store, err = postgres.Open(ctx, a.cfg.PostgresURL)
	} else {
		a.store, err = sqlitestore.Open(ctx, a.cfg.DataDir)
	}
	if err != nil {
		return err
	}
	a.closers = append(a.closers, a.store.Close)
	a.checks = append(a.checks, check{name, a.store.Ping})
	return identity.Bootstrap(ctx, a.store, a.cfg.AdminUsername, a.cfg.AdminPassword, a.log)
}

// initLimits chooses where rate-limit counters live: in-process, or in
// Redis so that every replica shares them.
func (a *App) initLimits(ctx context.Context) error {
	if a.cfg.RedisURL == "" {
		a.limits = &ratelimit.Memory{}
		return nil
	}
	client, err := redisstore.Open(a.cfg.RedisURL)
	if err != nil {
		return err
	}
	a.redis = client
	a.closers = append(a.closers, client.Close)
	if err := a.pingRedis(ctx); err != nil {
		return err
	}
	a.degradable = append(a.degradable, check{"limits:redis", a.pingRedis})
	// While Redis does not answer, the limits hold in process: the first
	// failure opens the breaker, the requests after it never wait for
	// Redis, and a probe in the background goes back to it.
	a.limits = &ratelimit.Failover{Primary: redisstore.New(client, a.cfg.RedisPrefix), Fallback: &ratelimit.Memory{},
		Probe: a.pingRedis, OnChange: func(up bool, err error) {
			if up {
				a.log.Info("redis answers again; rate limits and lockouts are shared again")
				return
			}
			a.metrics.LimitError()
			a.log.Warn("redis unreachable; rate limits and lockouts hold in process until it answers", "err", err)
		}}
	return nil
}

// pingRedis checks the Redis that the limits and caches share.
func (a *App) pingRedis(ctx context.Context) error { return a.redis.Ping(ctx).Err() }

// explanationCache is where explanations are cached: in process, or in
// Redis when configured, so that replicas share it. While Redis does not
// answer, they are cached in process as the limits are counted (a breaker:
// no request waits for Redis), and the API role's check "cache:redis"
// says the cache is degraded.
func (a *App) explanationCache() kvcache.Cache {
	memory := &kvcache.Memory{Clock: a.clock()}
	if a.redis == nil {
		return memory
	}
	a.degradable = append(a.degradable, check{"cache:redis", a.pingRedis})
	return &kvcache.Failover{Primary: &kvcache.Redis{Client: a.redis, Prefix: a.cfg.RedisPrefix}, Fallback: memory,
		Breaker: breaker.Breaker{Probe: a.pingRedis, OnChange: func(up bool, err error) {
			if up {
				a.log.Info("redis answers again; the explanation cache is shared again")
				return
			}
			a.log.Warn("redis unreachable; explanations are cached in process until it answers", "err", err)
		}}}
}

// initAnalytics opens the analytical store: ClickHouse when configured,
// else the embedded store in the data folder.
func (a *App) initAnalytics(ctx context.Context) error {
	if a.cfg.ClickHouseURL != "" {
		return a.initClickHouse(ctx)
	}
	return a.initEmbeddedAnalytics(ctx)
}

func (a *App) initClickHouse(context.Context) error {
	conn, err := clickhouse.Open(a.cfg.ClickHouseURL)
	if err != nil {
		return err
	}
	store := clickhouse.New(conn)
	store.IDFilterBytes = a.cfg.ClickHouseIDFilterMB << 20
	if a.cfg.ClickHouseIDFilterMB == 0 {
		store.IDFilterBytes = -1 // none
	}
	a.analytics = store
	a.closers = append(a.closers, conn.Close)
	a.degradable = append(a.degradable, check{"analytics:clickhouse", func(ctx context.Context) error { return clickhouse.Check(ctx, conn) }})
	return nil
}

// initHTTP builds the HTTP server with the operational endpoints, which
// every process serves whatever its roles, on the address New bound. /metrics
// is served there to loopback clients or the metrics token, or on a
// listener of its own (config.Config.MetricsAddr).
func (a *App) initHTTP(context.Context) error {
	opts := web.Options{BodyLimit: a.cfg.BodyLimit, Timeout: a.cfg.RequestTimeout, Logger: a.log}
	a.http = web.NewApp(opts)
	a.http.Use(a.metrics.Middleware(a.log))
	a.http.Get("/livez", a.livez)
	a.http.Get("/healthz", a.livez) // the name before /livez
	a.http.Get("/readyz", a.readyz)
	access := telemetry.Access{Token: a.cfg.MetricsToken}
	if a.cfg.MetricsAddr == "" {
		a.http.Get("/metrics", a.metrics.Handler(access))
	}
	a.services = append(a.services, service{"http", a.serveHTTP(a.http, a.listener)})
	if a.metricsListener == nil {
		return nil
	}
	access.Open = true
	scrapes := web.NewApp(opts)
	scrapes.Get("/metrics", a.metrics.Handler(access))
	a.services = append(a.services, service{"metrics-http", a.serveHTTP(scrapes, a.metricsListener)})
	return nil
}

// serveHTTP serves h on ln until ctx ends, then drains in-flight requests
// for up to the shutdown grace.
func (a *App) serveHTTP(h *fiber.App, ln net.Listener) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		errc := make(chan error, 1)
		go func() { errc <- h.Listener(ln) }()
		select {
		case err := <-errc:
			return err
		case <-ctx.Done():
		}
		a.log.Info("draining HTTP requests", "addr", ln.Addr().String(), "grace", config.Duration(a.cfg.ShutdownGrace))
		return h.ShutdownWithTimeout(a.cfg.ShutdownGrace)
	}
}

// lockouts is where login back-offs live: in Redis when configured,
// shared by every replica, else in the transactional store; in both they
// survive a restart, unlike the in-process request counters.
func (a *App) lockouts() ratelimit.Store {
	if a.redis != nil {
		return a.limits
	}
	return a.store.Limits()
}

// masterKey loads the master key ring that seals stored secrets, creating
// the key file, and saying so loudly, on a first start.
func (a *App) masterKey() (*secretbox.Keyring, error) {
	box, created, err := secretbox.Load(a.cfg.MasterKey, a.cfg.MasterKeyFile)
	if err != nil {
		return nil, fmt.Errorf("master key (VIGIL_MASTER_KEY or VIGIL_MASTER_KEY_FILE): %w", err)
	}
	if created {
		a.log.Warn("created a new master key file: BACK IT UP apart from the data; without it the stored secrets "+
			"cannot be opened and every login token is invalid", "file", a.cfg.MasterKeyFile, "key_id", box.Current())
	}
	return box, nil
}

// initAPI mounts the REST API under /api/v1: the route tables the API
// role's concerns added (concerns.go), in the concerns' order, after the
// OpenAPI document.
func (a *App) initAPI(context.Context) error {
	a.metrics.DeclareBuckets(web.BucketStandard, web.BucketPredictions, web.BucketBatch, web.BucketReports)
	var apis []Router
	for _, c := range concerns {
		apis = append(apis, a.apis[c.name]...)
	}
	web.Mount(a.http.Group("/api/v1"), Routes(apis...), a.guard)
	a.checks = append(a.checks, check{"role:api", func(context.Context) error { return nil }})
	return nil
}

// exportAPI serves /export. Export jobs are rendered in the API process
// into the data folder's exports folder, or into the S3 bucket that
// VIGIL_EXPORT_S3_* configure; owed ones are read from the store, so
// that a restart loses none.
func (a *App) exportAPI() (*export.API, error) {
	dir := filepath.Join(a.cfg.DataDir, "exports")
	var files export.Files = export.Folder{Dir: dir}
	if c := a.cfg.ExportS3; c.Endpoint != "" {
		b, err := bucket.New(bucket.Config(c))
		if err != nil {
			return nil, err
		}
		files = b
	}
	runner := &export.Runner{Jobs: a.store, Branding: a.store, Files: files, Scratch: dir, Retention: a.cfg.ExportRetention, Clock: a.clock(), Log: a.log, Finished: a.metrics.Export, Sources: report.Sources{
		Analytics: a.analytics, Drift: a.store, Alerts: a.store, Risks: a.store, Trust: a.store, Audits: a.store, Completions: a.analytics,
		Explanations: explanationWeights{a.store}},
		Evidence: export.Evidence{Risks: a.store, Reviews: a.store}}
	a.services = append(a.services, service{"exports", runner.Run})
	return &export.API{Templates: a.store, Jobs: a.store, Models: a.store, Configs: a.store, Branding: a.store, Quota: a.reportQuota,
		Runner: runner, Files: files, Clock: a.clock()}, nil
}

// reportQuota takes one more unit of the organization's report-generation
// quota, for each export of a bulk request beyond the first (the request
// took that one): the 429 of the guard once the quota is spent. Should
// the limits store fail, the export goes through, as in the guard.
func (a *App) reportQuota(ctx context.Context, orgID string) error {
	rule := a.rule(web.BucketReports)
	d, err := (&ratelimit.Limiter{Store: a.limits}).Allow(ctx, rule, "org:"+orgID)
	if err != nil {
		a.metrics.LimitError()
		a.log.Warn("rate limit check failed; letting the export through", "bucket", rule.Name, "err", err)
		return nil
	}
	if !d.Allowed {
		a.metrics.RateLimited(rule.Name)
		return &web.Error{Status: fiber.StatusTooManyRequests, Code: web.CodeRateLimitExceeded,
			Message: "rate limit exceeded for the " + rule.Name + " bucket", RetryAfter: d.RetryAfter}
	}
	return nil
}

// shareAPI serves the shares of exports; passcodes go out through the
// alerts' SMTP relay, the recipient side's caps count in the limits store.
func (a *App) shareAPI(exports *export.API) (*share.API, error) {
	relay, err := a.smtpRelay()
	if err != nil {
		return nil, err
	}
	return &share.API{Store: a.store, Jobs: a.store, Files: exports.Files, Limits: a.limits, Relay: relay, Clock: a.clock(), Log: a.log}, nil
}

// scheduleAPI serves the scheduled reports; their Scheduler runs in the
// API role beside the export runner it wakes.
func (a *App) scheduleAPI(exports *export.API) *reportschedule.API {
	sched := &reportschedule.Scheduler{Store: a.store, Templates: a.store, Models: a.store, Runner: exports.Runner, Clock: a.clock(), Log: a.log}
	a.services = append(a.services, service{"report-schedules", sched.Run})
	return &reportschedule.API{Store: a.store, Templates: a.store, Models: a.store, Integrations: a.store, Runner: exports.Runner,
		Clock: a.clock()}
}

// deliveryAPI serves the delivery integrations and an export's
// deliveries; their Deliverer runs in the API role, where the export
// files are.
func (a *App) deliveryAPI(exports *export.API, box *secretbox.Keyring, guard *outbound.Guard) (*delivery.API, error) {
	relay, err := a.smtpRelay()
	if err != nil {
		return nil, err
	}
	d := &delivery.Deliverer{Deliveries: a.store, Integrations: a.store, Jobs: a.store, Files: exports.Files, Box: box, Guard: guard,
		Relay: relay, Clock: a.clock(), Log: a.log}
	a.services = append(a.services, service{"export-deliveries", d.Run})
	exports.Delivering = &delivery.Queue{Integrations: a.store, Deliveries: a.store, Clock: a.clock()}
	return &delivery.API{Store: a.store, Deliveries: a.store, Jobs: a.store, Box: box, Targets: guard, Clock: a.clock()}, nil
}

// listenInvalidations applies other replicas' cache invalidations. Should
// the subscription drop, it subscribes again after a pause; meanwhile the
// cache's lifetime bounds how stale this replica can be.
func (a *App) listenInvalidations(cache *identity.PrincipalCache) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		for {
			err := <-cache.Listen(ctx)
			if ctx.Err() != nil {
				return nil
			}
			a.log.Warn("cache invalidation subscription ended; subscribing again", "err", err)
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(time.Second):
			}
		}
	}
}

// A Router is one package's API: its route table.
type Router interface {
	Routes() []web.Route
}

// Routes is the REST API: every package's route table, in the order
// given, after the OpenAPI document.
func Routes(apis ...Router) []web.Route {
	routes := []web.Route{{Method: fiber.MethodGet, Path: "/openapi.json", Public: true, Handler: func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(schemas.OpenAPI)
	}}}
	for _, api := range apis {
		routes = append(routes, api.Routes()...)
	}
	return routes
}

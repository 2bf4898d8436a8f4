package app

import (
	"context"
	"time"

	"github.com/vigilhq/vigil/bias"
	"github.com/vigilhq/vigil/dashboard"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/explanation/explainjob"
	"github.com/vigilhq/vigil/explanation/view"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/governance/review"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/governance/trust"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/integrations/codehost/automation"
	"github.com/vigilhq/vigil/integrations/codehost/connection"
	"github.com/vigilhq/vigil/integrations/codehost/tracking"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
	"github.com/vigilhq/vigil/integrations/workflow"
	"github.com/vigilhq/vigil/platform/fanout"
	"github.com/vigilhq/vigil/platform/ratelimit"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/processors/schedule"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/web"
)

// Module name of the keys and the authenticator every concern's routes
// are guarded by.
const moduleAuth = "auth"

// A concern is one module of the API role: init builds the concern's
// API, adds its route tables to a.apis under the concern's name (the API
// role mounts them, guarded) and its background work to a.services; needs
// names the modules it uses. A concern that mounts routes of its own at
// the root needs auth and limits, which its guard uses.
type concern struct {
	name  string
	init  func(a *App, ctx context.Context) error
	needs []string
}

// concerns are the API role's modules; their routes are mounted in this
// order. A concern's needs may come later in the list: the manager starts
// every module after what it needs.
var concerns = []concern{
	{"identity", (*App).initIdentity, []string{moduleAuth, moduleLimits}},
	{"registry", (*App).initRegistry, []string{moduleStore, moduleAnalytics}},
	{"drift", (*App).initDrift, []string{moduleAuth, moduleStore, moduleEventLog}},
	{"bias", (*App).initBias, []string{moduleStore, moduleAnalytics, moduleEventLog}},
	{"ingest", (*App).initIngest, []string{moduleAuth, moduleLimits, moduleStore, moduleEventLog, moduleHTTP, "toxicity", "pricing"}},
	{"query", (*App).initQuery, []string{moduleStore, moduleAnalytics}},
	{"governance", (*App).initGovernance, []string{moduleStore, moduleEventLog}},
	{"workflow", (*App).initWorkflow, []string{moduleStore, moduleEventLog}},
	{"codehost", (*App).initCodehost, []string{moduleAuth, moduleStore}},
	{"alerts", (*App).initAlerts, []string{moduleAuth, moduleStore, moduleAnalytics}},
	{"dashboard", (*App).initDashboard, []string{moduleAuth, moduleLimits, moduleStore, moduleAnalytics, moduleHTTP}},
	{"explanation", (*App).initExplanation, []string{moduleAuth, moduleStore, moduleAnalytics, moduleLimits}},
	{"exports", (*App).initExports, []string{moduleAuth, moduleStore, moduleAnalytics, moduleLimits, moduleHTTP}},
	{"toxicity", (*App).initToxicity, []string{moduleStore}},
	{"pricing", (*App).initPricing, []string{moduleStore}},
	{"kserve", (*App).initKServe, []string{moduleStore, moduleEventLog}},
	{"webui", (*App).initWebUI, []string{moduleHTTP}},
	{moduleAuth, (*App).initAuth, []string{moduleStore, moduleLimits}},
}

// addAPI adds a concern's route tables, mounted by the API role.
func (a *App) addAPI(concern string, apis ...Router) {
	if a.apis == nil {
		a.apis = map[string][]Router{}
	}
	a.apis[concern] = append(a.apis[concern], apis...)
}

// initAuth opens the master key ring and the login tokens' signing
// secret, and makes the authenticator that guards every route, with its
// cache of principals (invalidated across replicas through Redis).
func (a *App) initAuth(ctx context.Context) error {
	box, err := a.masterKey()
	if err != nil {
		return err
	}
	a.box = box
	secret, err := identity.SigningSecret(ctx, a.store, a.cfg.JWTSecret, box)
	if err != nil {
		return err
	}
	a.tokens = &identity.Tokens{Secret: secret}
	a.auth = &identity.Authenticator{Store: a.store, Tokens: a.tokens, Now: a.clock()}
	if a.cfg.AuthCacheTTL > 0 {
		cache := &identity.PrincipalCache{TTL: a.cfg.AuthCacheTTL, StaleIfError: a.cfg.StaleIfError}
		if a.redis != nil {
			cache.Invalidations = &fanout.Redis{Client: a.redis, Prefix: a.cfg.RedisPrefix}
		}
		a.auth.Cache = cache
		a.services = append(a.services, service{"principal-cache", a.listenInvalidations(cache)})
	}
	return nil
}

// initIdentity serves users, logins and API keys.
func (a *App) initIdentity(context.Context) error {
	a.addAPI("identity", &identity.API{Store: a.store, Tokens: a.tokens, Authenticator: a.auth,
		Lockout:      &ratelimit.Lockout{Store: a.lockouts()},
		NameProbes:   &ratelimit.Lockout{Store: a.lockouts(), Name: "taken-username", FreeAttempts: 5, BaseDelay: time.Minute},
		Registration: a.cfg.Registration})
	return nil
}

// initRegistry serves the model registry, each model with its activity
// and health.
func (a *App) initRegistry(context.Context) error {
	a.addAPI("registry", &registry.API{Store: a.store, Users: a.store, Activities: activities{a.analytics}, Healths: modelHealth{a.store}})
	return nil
}

// initDrift serves drift detection. A report POST /drift/detect stores at
// high severity owes a governance event, sent at once as the stream's are.
func (a *App) initDrift(context.Context) error {
	a.addAPI("drift", &drift.API{Store: a.store, Reports: a.store, References: a.store, Clock: a.clock(), Box: a.box,
		Govern: governance.Outbox[drift.Report]{Log: a.events, Event: schedule.GovernanceEvent,
			Pending: a.store.GovernancePending, Sent: a.store.GovernanceSent}.Send})
	return nil
}

// initBias serves bias audits. Audits run in the API process; those
// completed at high or critical severity owe a governance event, which the
// Runner appends, and appends again on its refreshes while the log
// refuses it.
func (a *App) initBias(context.Context) error {
	runner := &bias.Runner{Store: a.store, Predictions: a.analytics, Events: a.events, Log: a.log,
		Workers: a.cfg.Bias.Workers, Queue: a.cfg.Bias.Queue, MaxRows: a.cfg.Bias.MaxRows}
	a.services = append(a.services, service{"bias-audits", runner.Run})
	a.addAPI("bias", &bias.API{Store: a.store, Runner: runner})
	return nil
}

// initIngest serves the ingest endpoints: each completion checked for
// toxicity on arrival and priced, the OTLP receiver also at the root
// (exporters post to /v1/traces at the root of the endpoint they are
// given).
func (a *App) initIngest(context.Context) error {
	events := a.ingestAPI()
	events.Toxicity = a.toxicity.Checker.OnArrival
	events.Cost = completionCost(a.prices)
	a.addAPI("ingest", events)
	web.Mount(a.http, events.TraceRoutes(), a.guard)
	return nil
}

// initQuery serves the read API.
func (a *App) initQuery(context.Context) error {
	a.addAPI("query", a.queryAPI())
	return nil
}

// initGovernance serves the risk register, the trust score and the review
// boards. A request finalized denied or sent back owes a governance event,
// appended after the finalize commits; the resender appends again what
// the log refused.
func (a *App) initGovernance(context.Context) error {
	resender := &review.Resender{Store: a.store, Events: a.events, Log: a.log}
	a.services = append(a.services, service{"review-outbox", resender.Run})
	a.addAPI("governance", &risk.API{Store: a.store, Clock: a.clock()}, &trust.API{Store: a.store, Clock: a.clock()},
		&review.API{Store: a.store, Events: a.events, Clock: a.clock(), Log: a.log})
	return nil
}

// initWorkflow serves the workflow receiver.
func (a *App) initWorkflow(context.Context) error {
	a.addAPI("workflow", &workflow.API{Store: a.store, LLM: &workflowLLM{models: a.store, log: a.events, clock: a.clock()}, Clock: a.clock()})
	return nil
}

// initCodehost serves the code-host connection and its webhooks.
func (a *App) initCodehost(context.Context) error {
	host, err := a.codehostAPI()
	if err != nil {
		return err
	}
	oauth := a.codehostOAuth(host)
	tokens := &connection.Tokens{Store: a.store, Box: a.box, OAuth: oauth, Clock: a.clock()}
	a.addAPI("codehost",
		&connection.API{Store: a.store, Box: a.box, Host: host, OAuth: oauth, Tokens: tokens, Clock: a.clock()},
		&tracking.API{Store: a.store, Queue: a.store, Box: a.box, Host: host, Tokens: tokens, Clock: a.clock()},
		&automation.API{Host: host, Tokens: tokens},
		&webhook.API{Store: a.store, Box: a.box, Clock: a.clock()})
	return nil
}

// initAlerts serves alert rules, instances and channels.
func (a *App) initAlerts(context.Context) error {
	rules, err := a.alertsAPI(a.box)
	if err != nil {
		return err
	}
	a.addAPI("alerts", rules)
	return nil
}

// initDashboard serves the dashboard's figures and, at the root as spec 3
// places it, its live channel.
func (a *App) initDashboard(context.Context) error {
	figures := &dashboard.API{Store: a.store, Predictions: a.analytics, Clock: a.clock(), Tokens: a.auth,
		Interval: a.cfg.DashboardInterval}
	a.services = append(a.services, service{"dashboard-live", figures.Run})
	a.addAPI("dashboard", figures)
	web.Mount(a.http, figures.LiveRoutes(), a.guard)
	return nil
}

// initExplanation serves explanations and model servings. Explanations
// are computed in the API process; pending ones are read from the store,
// so that a restart loses none.
func (a *App) initExplanation(context.Context) error {
	a.explainCache = a.explanationCache()
	servings, access, err := a.explanationAccess(a.box)
	if err != nil {
		return err
	}
	var explainer *explainjob.Runner
	if a.cfg.ExplainWorkers >= 0 {
		explainer = &explainjob.Runner{Store: a.store, Artifacts: a.store, Access: access, Cache: a.explainCache, Workers: a.cfg.ExplainWorkers,
			Clock: a.clock(), Log: a.log}
		a.services = append(a.services, service{"explanations", explainer.Run})
	}
	a.addAPI("explanation", &artifact.API{Models: a.store, Artifacts: a.store, Clock: a.clock()}, &explanation.API{Models: a.store, Artifacts: a.store, Jobs: a.store, Runner: explainer,
		Predictions: predictionInputs{a.analytics}, Configs: a.store, Access: access, Cache: a.explainCache, Clock: a.clock()}, servings,
		&view.API{Models: a.store, Jobs: a.store, Clock: a.clock()})
	return nil
}

// initExports serves exports, their shares (whose link opens the
// recipient's page, outside /api/v1), scheduled reports and delivery
// integrations.
func (a *App) initExports(context.Context) error {
	exports, err := a.exportAPI()
	if err != nil {
		return err
	}
	shares, err := a.shareAPI(exports)
	if err != nil {
		return err
	}
	a.http.Get("/share/:share_slug", shares.Page)
	guard, err := a.outboundGuard()
	if err != nil {
		return err
	}
	integrations, err := a.deliveryAPI(exports, a.box, guard)
	if err != nil {
		return err
	}
	a.addAPI("exports", exports, shares, a.scheduleAPI(exports), integrations)
	return nil
}

// initToxicity serves toxicity checks; ingest checks completions with it.
func (a *App) initToxicity(context.Context) error {
	toxic, err := a.toxicityAPI()
	if err != nil {
		return err
	}
	a.toxicity = toxic
	a.addAPI("toxicity", toxic)
	return nil
}

// initPricing serves the LLM price table; ingest prices completions by it.
func (a *App) initPricing(context.Context) error {
	a.prices = a.pricingAPI()
	a.addAPI("pricing", a.prices)
	return nil
}

// initKServe serves KServe payload logging.
func (a *App) initKServe(context.Context) error {
	a.addAPI("kserve", a.kserveAPI())
	return nil
}

// initWebUI serves the web dashboard: its page at / and its versioned
// assets.
func (a *App) initWebUI(context.Context) error {
	site, err := webui.New()
	if err != nil {
		return err
	}
	a.http.Get("/", site.Index)
	a.http.Get(webui.Prefix+":version/*", site.Asset)
	return nil
}

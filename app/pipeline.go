package app

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/eventlog/embeddedlog"
	"github.com/vigilhq/vigil/eventlog/kafka"
	"github.com/vigilhq/vigil/explanation/autoexplain"
	"github.com/vigilhq/vigil/explanation/coverage"
	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/ingest/backlog"
	"github.com/vigilhq/vigil/integrations/codehost/webhook"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/processors/alerting"
	"github.com/vigilhq/vigil/processors/drafting"
	"github.com/vigilhq/vigil/processors/explaining"
	"github.com/vigilhq/vigil/processors/schedule"
	"github.com/vigilhq/vigil/query"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// analyticalStore is the analytical store as both roles use it: the processors
// write it, the query API reads it.
type analyticalStore interface {
	analytics.Store
	analytics.Sink
	analytics.DeadLetters
	analytics.ProfileStore
	analytics.Checks
	schedule.Profiles
}

// processorGroup is the processors' consumer group on the event log
// (after the topic prefix on Kafka).
const processorGroup = "processors"

// kafkaPartitions is the partition count of the event log's topics when
// Vigil creates them; the replication factor is the brokers' default.
const kafkaPartitions = 6

// initEventLog opens the event log: Kafka when brokers are configured,
// else the embedded log in the data folder.
func (a *App) initEventLog(ctx context.Context) error {
	if len(a.cfg.KafkaBrokers) > 0 {
		return a.initKafka(ctx)
	}
	return a.initEmbeddedLog(ctx)
}

// initKafka makes Kafka the event log: an idempotent acks=all producer for
// the API, a consumer-group member per processor. The topics are created
// when missing; with the brokers down at start that waits for the
// processor role, which retries, and /readyz reports the outage.
func (a *App) initKafka(ctx context.Context) error {
	p, err := kafka.NewProducer(a.cfg.KafkaBrokers, kafka.ProducerOptions{Prefix: a.cfg.KafkaTopicPrefix, Clients: a.cfg.KafkaProducers})
	if err != nil {
		return err
	}
	a.events = p
	a.closers = append(a.closers, func() error { p.Close(); return nil })
	a.checks = append(a.checks, check{"event-log:kafka", func(ctx context.Context) error { return kafka.Check(ctx, p.Client()) }})
	a.ensureTopics = func(ctx context.Context) error {
		return kafka.EnsureTopics(ctx, p.Client(), p.Prefix(), kafkaPartitions, -1)
	}
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := a.ensureTopics(tctx); err != nil {
		a.log.Warn("could not create the event log's topics yet; the processor role will retry", "err", err)
	}
	a.source = func() (eventlog.Source, error) {
		return kafka.New(kafka.Options{Brokers: a.cfg.KafkaBrokers, Group: p.Prefix() + processorGroup,
			Prefix: p.Prefix(), InstanceID: a.cfg.KafkaInstanceID, Logger: a.log})
	}
	a.landing = &alerting.Landing{Progress: kafka.NewProgress(p.Client(), p.Prefix()), Group: p.Prefix() + processorGroup}
	a.groupPrefix = p.Prefix()
	a.draftSource = func() (eventlog.Source, error) {
		return kafka.New(kafka.Options{Brokers: a.cfg.KafkaBrokers, Group: p.Prefix() + drafting.Group,
			Prefix: p.Prefix(), Kinds: []string{eventlog.KindGovernance}, InstanceID: a.cfg.KafkaInstanceID, Logger: a.log})
	}
	a.explainSource = func() (eventlog.Source, error) {
		return kafka.New(kafka.Options{Brokers: a.cfg.KafkaBrokers, Group: p.Prefix() + explaining.Group,
			Prefix: p.Prefix(), Kinds: []string{eventlog.KindPrediction}, InstanceID: a.cfg.KafkaInstanceID, Logger: a.log})
	}
	return nil
}

// initEmbeddedLog opens the embedded event log in the data folder.
func (a *App) initEmbeddedLog(ctx context.Context) error {
	l, err := embeddedlog.Open(ctx, a.cfg.DataDir)
	if err != nil {
		return err
	}
	a.events = l
	a.source = func() (eventlog.Source, error) { return l.Consumer(processorGroup), nil }
	a.draftSource = func() (eventlog.Source, error) { return l.Consumer(drafting.Group, eventlog.KindGovernance), nil }
	a.landing = &alerting.Landing{Progress: l, Group: processorGroup}
	a.explainSource = func() (eventlog.Source, error) { return l.Consumer(explaining.Group, eventlog.KindPrediction), nil }
	a.closers = append(a.closers, l.Close)
	a.checks = append(a.checks, check{"event-log:embedded", func(context.Context) error { return nil }})
	return nil
}

// initEmbeddedAnalytics opens the embedded analytical store.
func (a *App) initEmbeddedAnalytics(ctx context.Context) error {
	s, err := sqlite.Open(ctx, a.cfg.DataDir)
	if err != nil {
		return err
	}
	a.analytics = s
	a.closers = append(a.closers, s.Close)
	a.degradable = append(a.degradable, check{"analytics:sqlite", s.Ping})
	return nil
}

// initProcessor runs the processor role: it reads the event log and lands
// events in the analytical store, committing only after each write.
func (a *App) initProcessor(context.Context) error {
	p := &processors.Processor{Sink: a.analytics, DeadLetters: a.analytics, Profiles: a.analytics, Models: registeredModels{a.store},
		Metrics: processors.NewMetrics(a.metrics.Registry), Log: a.log, Grace: a.cfg.ShutdownGrace,
		Pipeline: processors.DefaultPipeline, StuckAfter: a.cfg.ProcessorStuckAfter, Clock: a.clock()}
	a.checks = append(a.checks, check{"role:processor", func(context.Context) error { return nil }},
		check{"pipeline:" + p.Pipeline, p.Check})
	a.metrics.Registry.MustRegister(newConsumerLag(a.landing.Progress, a.groupPrefix))
	a.services = append(a.services, service{"processor", func(ctx context.Context) error {
		if !a.topicsReady(ctx) {
			return nil
		}
		src, err := a.source()
		if err != nil {
			return err
		}
		defer src.Close()
		p.Source = src
		return p.Run(ctx)
	}})
	// Code-host deliveries are queued in the transactional store by the
	// API and worked here: leased, retried with backoff, never lost.
	box, err := a.masterKey()
	if err != nil {
		return err
	}
	host, err := a.codehostAPI()
	if err != nil {
		return err
	}
	deliveries := &webhook.Processor{Queue: a.store, Repos: a.store, Models: a.store, Box: box, Clock: a.clock(), Log: a.log,
		Host: host, OAuth: a.codehostOAuth(host), Poll: time.Second}
	a.services = append(a.services, service{"codehost-deliveries", deliveries.Run})
	sched := &schedule.Scheduler{Store: a.store, Profiles: a.analytics, Metrics: a.analytics, Log: a.events, Clock: a.clock(), Tick: a.cfg.DriftTick,
		Rules: a.store, Logger: a.log}
	a.services = append(a.services, service{"drift-schedule", sched.Run})
	// The risk drafter reads the governance events with a group of its
	// own, so it neither waits for nor holds back the analytical writes.
	a.services = append(a.services, service{"risk-drafting", func(ctx context.Context) error {
		if !a.topicsReady(ctx) {
			return nil
		}
		src, err := a.draftSource()
		if err != nil {
			return err
		}
		defer src.Close()
		d := &drafting.Drafter{Source: src, Store: a.store, Log: a.log, Clock: a.clock()}
		return d.Run(ctx)
	}})
	a.initAutoExplain()
	return a.initAlerting()
}

// initAutoExplain runs the auto-explainer: it reads the predictions with
// a group of its own, so that explaining neither waits for nor holds back
// the analytical writes, and keeps each model's explained ratio for the
// trust score.
func (a *App) initAutoExplain() {
	ae := a.cfg.AutoExplain
	a.services = append(a.services, service{"auto-explain", func(ctx context.Context) error {
		if !a.topicsReady(ctx) {
			return nil
		}
		src, err := a.explainSource()
		if err != nil {
			return err
		}
		defer src.Close()
		rate := float64(ae.Percent) / 100
		if rate == 0 {
			rate = -1 // none: the explainer's zero is its default
		}
		s := &explaining.Service{Source: src, Refresh: ae.Refresh, Log: a.log,
			Explain: &autoexplain.Explainer{Store: a.store, DefaultRate: rate, PerSecond: float64(ae.PerSecond),
				Clock: a.clock(), Log: a.log},
			Coverage: &coverage.Coverer{Store: a.store, Logged: loggedCounts{a.analytics}, Clock: a.clock()}}
		return s.Run(ctx)
	}})
}

// loggedCounts adapts the analytical store's rollups to
// coverage.LoggedCounts.
type loggedCounts struct{ analyticalStore }

// LoggedCounts implements coverage.LoggedCounts.
func (s loggedCounts) LoggedCounts(ctx context.Context, orgID string, modelIDs []string, from, to time.Time) (map[string]int64, error) {
	return s.PredictionCounts(ctx, orgID, modelIDs, analytics.Range{From: from, To: to})
}

// topicsReady creates the event log's topics (Kafka), retrying until it
// succeeds; false when ctx ends first.
func (a *App) topicsReady(ctx context.Context) bool {
	for a.ensureTopics != nil {
		err := a.ensureTopics(ctx)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		a.log.Warn("creating the event log's topics failed; retrying", "err", err)
		if !clock.Sleep(ctx, 5*time.Second) {
			return false
		}
	}
	return ctx.Err() == nil
}

// registeredModels answers the processors' question, whether a model
// still exists, from the model registry.
type registeredModels struct{ store registry.Store }

// ModelExists implements processors.Models.
func (m registeredModels) ModelExists(ctx context.Context, orgID, modelID string) (bool, error) {
	_, err := m.store.Model(ctx, orgID, modelID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// activities reads the registry's prediction counts from the analytical
// store.
type activities struct{ analyticalStore }

// Activities implements registry.Activities.
func (s activities) Activities(ctx context.Context, orgID string, ids []string) (map[string]registry.Activity, error) {
	act, err := s.Activity(ctx, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]registry.Activity, len(act))
	for id, a := range act {
		out[id] = registry.Activity{Predictions: a.Predictions, Last: a.Last}
	}
	return out, nil
}

// ingestAPI is the ingest API, held back by the processors' backlog.
func (a *App) ingestAPI() *ingest.API {
	return &ingest.API{Log: a.events, Models: a.store, Registry: a.store, Clock: a.clock(), StaleIfError: a.cfg.StaleIfError,
		Backlog: a.backlogGate()}
}

// queryAPI is the read API.
func (a *App) queryAPI() *query.API {
	return &query.API{Store: a.analytics, Models: a.store, Log: a.log, WriteTimeout: a.cfg.RequestTimeout}
}

// backlogGate holds ingest back while the processors have more than
// VIGIL_INGEST_MAX_BACKLOG records left to store and are storing them,
// so that clients send at the rate the processors keep up with; nil when
// the bound is 0. vigil_ingest_held is 1 while it does.
func (a *App) backlogGate() *backlog.Gate {
	if a.cfg.IngestMaxBacklog <= 0 {
		return nil
	}
	g := &backlog.Gate{Progress: a.landing.Progress, Group: a.landing.Group, Max: a.cfg.IngestMaxBacklog, Clock: a.clock(),
		OnChange: func(held bool, records int64) {
			if held {
				a.log.Info("ingest waits for the processors", "backlog", records, "max", a.cfg.IngestMaxBacklog)
				return
			}
			a.log.Info("ingest goes on", "backlog", records)
		}}
	a.metrics.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "vigil_ingest_held",
		Help: "1 while ingest requests wait for the processors' backlog to come down to VIGIL_INGEST_MAX_BACKLOG."},
		func() float64 {
			if g.Closed() {
				return 1
			}
			return 0
		}))
	a.services = append(a.services, service{"ingest-backlog", g.Run})
	return g
}

// predictionInputs adapts the analytical store to explanation.Predictions.
type predictionInputs struct{ analyticalStore }

// PredictionInput implements explanation.Predictions.
func (s predictionInputs) PredictionInput(ctx context.Context, orgID, modelID, predictionID string) (json.RawMessage, error) {
	p, err := s.Prediction(ctx, orgID, modelID, predictionID)
	if err != nil {
		return nil, err
	}
	return p.InputData, nil
}

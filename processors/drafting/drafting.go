// Package drafting is the processor-role service that drafts risk entries
// from governance events: it reads eventlog.KindGovernance records (drift
// reports and bias audits at high or critical severity, review-board
// outcomes) with a consumer group of its own, drafts each by spec 1's
// table (risk.Draft) and commits the offsets only after the batch is
// stored: the entries of one polled batch in one transaction
// (CreateRiskEntries), with each model and organization's configuration
// read once; should that transaction fail, each event of the batch is
// drafted alone, as before, and retried.
//
// Exactly once per source record: the store keeps one entry per
// organization, source type and source id (CreateRiskEntries), so
// a replayed or duplicated event, two replicas reading the same partition
// during a rebalance, or a restart between the insert and the commit
// create nothing more. The first entry holds the source for good: a repeat
// trigger creates nothing whether that entry is still open or was closed.
// And one open entry per model and source type for drift reports and bias
// audits: while a drafted one is open, a later qualifying result of the
// model is added to its trail (and raises its likelihood if higher)
// instead of opening another, so that persistent drift does not flood the
// register.
// An event of a model deleted since, or one no rule drafts, is skipped
// and logged; an unreadable record is skipped and logged, as it would be
// on every replay. Any other failure (the store unreachable) is retried
// with a growing pause and the batch is not committed meanwhile.
//
// It imports the eventlog contract, governance and governance/risk, the
// registry (the model's name), the platform and the store errors; it must
// not import an engine, the API packages or the analytical store.
package drafting

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/governance/risk"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Group is the drafter's consumer group on the event log (after the topic
// prefix on Kafka).
const Group = "risk-drafting"

// MaxTransaction is the most entries one transaction stores, so that a
// large polled batch holds the store's write lock (the whole file, on
// SQLite) a short while at a time.
const MaxTransaction = 500

// Store is what drafting needs of the transactional store.
type Store interface {
	registry.Finder
	RiskConfig(ctx context.Context, orgID string) (risk.Override, error)
	// CreateRiskEntries stores a batch in one transaction, each entry at
	// most once per source (a drift report's or bias audit's added to
	// the trail of its model's open entry of that source type instead),
	// and reports which were created; on an error nothing is stored.
	CreateRiskEntries(ctx context.Context, ds []risk.Drafted) ([]bool, error)
}

// Drafter drafts risk entries from the governance events of Source.
type Drafter struct {
	Source eventlog.Source
	Store  Store
	Log    *slog.Logger
	// Clock defaults to the system clock.
	Clock clock.Clock
	// MaxBackoff caps the pause between retries of a failed write
	// (default 30 s).
	MaxBackoff time.Duration
}

// Run drafts until ctx ends. A batch cut short by the end is not
// committed; it is read again, and drafts nothing twice, on the next
// start.
func (d *Drafter) Run(ctx context.Context) error {
	for {
		msgs, err := d.Source.Poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			d.Log.Warn("risk drafting: event log poll failed; retrying", "err", err)
			if !clock.Sleep(ctx, time.Second) {
				return nil
			}
			continue
		}
		if !d.batch(ctx, msgs) {
			return nil
		}
		if err := d.Source.Commit(ctx); err != nil && ctx.Err() == nil {
			d.Log.Warn("risk drafting: committing offsets failed; the batch will be read again and draft nothing twice", "err", err)
		}
	}
}

// batch drafts the governance events of msgs: their entries in one
// transaction when it can, else each event alone, retried until it is
// done. false when ctx ended first.
func (d *Drafter) batch(ctx context.Context, msgs []eventlog.Message) bool {
	var gov []eventlog.Message
	for _, m := range msgs {
		if m.Kind == eventlog.KindGovernance {
			gov = append(gov, m)
		}
	}
	if len(gov) == 0 {
		return true
	}
	if len(gov) > 1 {
		err := d.draftAll(ctx, gov)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		d.Log.Warn("risk drafting: drafting the batch at once failed; drafting its events one by one", "events", len(gov), "err", err)
	}
	for _, m := range gov {
		if !d.retry(ctx, m) {
			return false
		}
	}
	return true
}

// draftAll stores the entries msgs' events draft in one transaction,
// reading each organization's configuration and each model once.
func (d *Drafter) draftAll(ctx context.Context, msgs []eventlog.Message) error {
	r := reads{d: d, models: map[[2]string]*registry.Model{}, configs: map[string]risk.Override{}}
	var ds []risk.Drafted
	var srcs []governance.Event
	for _, m := range msgs {
		dr, ev, err := d.prepare(ctx, m, r.model, r.config)
		if err != nil {
			return err
		}
		if dr != nil {
			ds, srcs = append(ds, *dr), append(srcs, ev)
		}
	}
	for start := 0; start < len(ds); start += MaxTransaction {
		end := min(start+MaxTransaction, len(ds))
		created, err := d.Store.CreateRiskEntries(ctx, ds[start:end])
		if err != nil {
			return fmt.Errorf("store %d drafted entries: %w", end-start, err)
		}
		for i, ok := range created {
			if ok {
				e, src := ds[start+i].Entry, srcs[start+i]
				d.Log.Info("risk drafting: drafted a risk entry", "entry_id", e.ID, "source_type", src.SourceType, "source_id", src.SourceID)
			}
		}
	}
	return nil
}

// reads keeps the models and configurations one batch has read.
type reads struct {
	d       *Drafter
	models  map[[2]string]*registry.Model
	configs map[string]risk.Override
}

// model is Store.Model, read once per batch; a missing model is
// remembered as such.
func (r reads) model(ctx context.Context, orgID, id string) (registry.Model, error) {
	k := [2]string{orgID, id}
	if m, ok := r.models[k]; ok {
		if m == nil {
			return registry.Model{}, store.ErrNotFound
		}
		return *m, nil
	}
	m, err := r.d.Store.Model(ctx, orgID, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		r.models[k] = nil
	case err == nil:
		r.models[k] = &m
	}
	return m, err
}

// config is Store.RiskConfig, read once per batch.
func (r reads) config(ctx context.Context, orgID string) (risk.Override, error) {
	if o, ok := r.configs[orgID]; ok {
		return o, nil
	}
	o, err := r.d.Store.RiskConfig(ctx, orgID)
	if err == nil {
		r.configs[orgID] = o
	}
	return o, err
}

// retry drafts m until it is done or ctx ends (false).
func (d *Drafter) retry(ctx context.Context, m eventlog.Message) bool {
	max := d.MaxBackoff
	if max <= 0 {
		max = 30 * time.Second
	}
	for pause := 100 * time.Millisecond; ; pause = min(2*pause, max) {
		err := d.draft(ctx, m)
		if err == nil {
			return true
		}
		if ctx.Err() != nil {
			return false
		}
		d.Log.Warn("risk drafting: drafting failed; retrying", "partition", m.Partition, "offset", m.Offset, "err", err)
		if !clock.Sleep(ctx, pause) {
			return false
		}
	}
}

// draft stores the entry m's event drafts; nil when it is stored, was
// stored before, or there is nothing to draft.
func (d *Drafter) draft(ctx context.Context, m eventlog.Message) error {
	dr, ev, err := d.prepare(ctx, m, d.Store.Model, d.Store.RiskConfig)
	if err != nil || dr == nil {
		return err
	}
	created, err := d.Store.CreateRiskEntries(ctx, []risk.Drafted{*dr})
	e := dr.Entry
	switch {
	case errors.Is(err, store.ErrNotFound):
		d.Log.Info("risk drafting: the event's model was deleted; nothing drafted", "source_type", ev.SourceType, "source_id", ev.SourceID)
		return nil
	case err != nil:
		return fmt.Errorf("store the drafted entry: %w", err)
	case created[0]:
		d.Log.Info("risk drafting: drafted a risk entry", "entry_id", e.ID, "source_type", ev.SourceType, "source_id", ev.SourceID)
	}
	return nil
}

// prepare drafts the entry of m's event, reading the model and the
// scoring configuration through model and config; nil when there is
// nothing to draft (an unreadable event, a model gone, no rule), an
// error when a read failed.
func (d *Drafter) prepare(ctx context.Context, m eventlog.Message,
	model func(ctx context.Context, orgID, id string) (registry.Model, error),
	config func(ctx context.Context, orgID string) (risk.Override, error)) (*risk.Drafted, governance.Event, error) {
	var ev governance.Event
	if err := eventlog.DecodeEvent(m.Value, &ev); err != nil {
		d.Log.Error("risk drafting: unreadable governance event skipped", "partition", m.Partition, "offset", m.Offset, "err", err)
		return nil, ev, nil
	}
	mod, err := model(ctx, ev.OrgID, ev.ModelID)
	if errors.Is(err, store.ErrNotFound) {
		d.Log.Info("risk drafting: the event's model is gone; nothing drafted", "source_type", ev.SourceType, "source_id", ev.SourceID)
		return nil, ev, nil
	} else if err != nil {
		return nil, ev, fmt.Errorf("look up the model: %w", err)
	}
	cfg, err := config(ctx, ev.OrgID)
	if err != nil {
		return nil, ev, fmt.Errorf("read the scoring configuration: %w", err)
	}
	t := cfg.Apply().Thresholds
	e, err := risk.Draft(ev, mod.Name+" (version "+mod.Version+")", t, d.Clock.Now())
	if errors.Is(err, risk.ErrNoRule) {
		d.Log.Info("risk drafting: no rule drafts the event", "event_id", ev.EventID, "err", err)
		return nil, ev, nil
	} else if err != nil {
		return nil, ev, err
	}
	return &risk.Drafted{Entry: e, Event: risk.CreateEvent(e, "", risk.SystemUser), Thresholds: t}, ev, nil
}

// Package drafting is the processor-role service that drafts risk entries
// from governance events: it reads eventlog.KindGovernance records (drift
// reports and bias audits at high or critical severity, review-board
// outcomes) with a consumer group of its own, drafts each by spec 1's
// table (risk.Draft) and commits the offsets only after the batch is
// stored.
//
// Exactly once per source record: the store keeps one entry per
// organization, source type and source id (risk.Store.CreateRiskEntry), so
// a replayed or duplicated event, two replicas reading the same partition
// during a rebalance, or a restart between the insert and the commit
// create nothing more. The first entry holds the source for good: a repeat
// trigger creates nothing whether that entry is still open or was closed.
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

// Store is what drafting needs of the transactional store.
type Store interface {
	registry.Finder
	RiskConfig(ctx context.Context, orgID string) (risk.Override, error)
	CreateRiskEntry(ctx context.Context, e risk.Entry, ev risk.Event) (bool, error)
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
		for _, m := range msgs {
			if m.Kind != eventlog.KindGovernance {
				continue
			}
			if !d.retry(ctx, m) {
				return nil
			}
		}
		if err := d.Source.Commit(ctx); err != nil && ctx.Err() == nil {
			d.Log.Warn("risk drafting: committing offsets failed; the batch will be read again and draft nothing twice", "err", err)
		}
	}
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
	var ev governance.Event
	if err := eventlog.DecodeEvent(m.Value, &ev); err != nil {
		d.Log.Error("risk drafting: unreadable governance event skipped", "partition", m.Partition, "offset", m.Offset, "err", err)
		return nil
	}
	model, err := d.Store.Model(ctx, ev.OrgID, ev.ModelID)
	if errors.Is(err, store.ErrNotFound) {
		d.Log.Info("risk drafting: the event's model is gone; nothing drafted", "source_type", ev.SourceType, "source_id", ev.SourceID)
		return nil
	} else if err != nil {
		return fmt.Errorf("look up the model: %w", err)
	}
	cfg, err := d.Store.RiskConfig(ctx, ev.OrgID)
	if err != nil {
		return fmt.Errorf("read the scoring configuration: %w", err)
	}
	e, err := risk.Draft(ev, model.Name+" (version "+model.Version+")", cfg.Apply().Thresholds, d.Clock.Now())
	if errors.Is(err, risk.ErrNoRule) {
		d.Log.Info("risk drafting: no rule drafts the event", "event_id", ev.EventID, "err", err)
		return nil
	} else if err != nil {
		return err
	}
	created, err := d.Store.CreateRiskEntry(ctx, e, risk.CreateEvent(e, "", risk.SystemUser))
	switch {
	case errors.Is(err, store.ErrNotFound):
		d.Log.Info("risk drafting: the event's model was deleted; nothing drafted", "source_type", ev.SourceType, "source_id", ev.SourceID)
		return nil
	case err != nil:
		return fmt.Errorf("store the drafted entry: %w", err)
	case created:
		d.Log.Info("risk drafting: drafted a risk entry", "entry_id", e.ID, "source_type", ev.SourceType, "source_id", ev.SourceID)
	}
	return nil
}

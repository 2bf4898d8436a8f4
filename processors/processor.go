package processors

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/clock"
)

// Processor moves events from the log into the analytical store: poll a
// batch, write it, then commit it. A write that fails for a retryable
// reason is retried with backoff and nothing is committed meanwhile, so an
// analytical store that is down for a while leaves a backlog in the log
// that drains once it is back. A write refused for good (IsPermanent) is
// split in halves until the refused events are alone; those are set aside
// as dead letters, the rest is stored, and the batch is committed.
type Processor struct {
	Source eventlog.Source
	Sink   analytics.Sink
	// DeadLetters keeps the events Sink refuses for good. Without it, such
	// a refusal stops Run with an error.
	DeadLetters analytics.DeadLetters
	// Models, when set, is asked whether each event's model still exists;
	// the events of a deleted model are dropped and counted.
	Models Models
	// ModelTTL is how long an answer of Models is trusted
	// (DefaultModelTTL).
	ModelTTL time.Duration
	// Profiles, when set, keeps each model's hourly feature profiles of
	// the predictions stored, folded in before the batch is committed.
	Profiles analytics.ProfileStore
	// Metrics counts dead letters and dropped events; nil counts nothing.
	Metrics *Metrics
	Log     *slog.Logger
	// Grace bounds how long a batch in flight may take to finish once Run's
	// context ends (default 30s). A batch not written by then is left
	// uncommitted and read again after the restart.
	Grace time.Duration
	// MaxBackoff caps the pause between retries of a failing write
	// (default 10s).
	MaxBackoff time.Duration
	// Pipeline names the processor in its metrics, log lines and
	// readiness check (DefaultPipeline).
	Pipeline string
	// StuckAfter is how long the processor may fail without finishing a
	// batch before Check fails and it logs an error, once per StuckAfter
	// (DefaultStuckAfter).
	StuckAfter time.Duration
	// Clock times the failures (the system clock when nil).
	Clock clock.Clock

	cache *modelCache
	// profiles keeps the profile snapshots saved last (profileCache).
	profiles profileCache
	// stall keeps how long the batch in hand has failed.
	stall stall
}

// Run processes batches until ctx ends, finishing the batch in flight.
// With a Source that commits part of what it returned
// (eventlog.PrefixCommitter), the next batch is read, decoded and filtered
// while the one before is stored and the one before that profiled
// (runAhead); otherwise one batch at a time.
func (p *Processor) Run(ctx context.Context) error {
	p.Metrics.declare(p.pipeline())
	if pc, ok := p.Source.(eventlog.PrefixCommitter); ok {
		return p.runAhead(ctx, pc)
	}
	for {
		msgs, ok := p.poll(ctx)
		if !ok {
			return nil
		}
		b, err := p.prepare(ctx, msgs)
		if ctx.Err() != nil {
			return nil // the batch is read again after the restart
		}
		if err == nil {
			err = p.write(ctx, b, p.Source.Commit)
		}
		if err != nil || ctx.Err() != nil {
			return err
		}
		p.finished()
	}
}

// poll returns the next batch, retrying a failed Poll each second; false
// when ctx ended.
func (p *Processor) poll(ctx context.Context) ([]eventlog.Message, bool) {
	for {
		msgs, err := p.Source.Poll(ctx)
		if ctx.Err() != nil {
			return nil, false
		}
		if err == nil {
			return msgs, true
		}
		p.Log.Warn("event log poll failed; retrying", "err", err)
		if !clock.Sleep(ctx, time.Second) {
			return nil, false
		}
	}
}

// prepare decodes msgs and drops the events of deleted models.
func (p *Processor) prepare(ctx context.Context, msgs []eventlog.Message) (analytics.Batch, error) {
	return p.live(ctx, p.decode(msgs))
}

// write stores one batch, folds it into the profiles, then commits it. It
// keeps going after ctx ends, for up to Grace, so that a shutdown does not
// cut a batch in half.
func (p *Processor) write(ctx context.Context, b analytics.Batch, commit func(context.Context) error) error {
	wctx, cancel := p.graceful(ctx)
	defer cancel()
	aside, err := p.storeAll(wctx, b)
	if err == nil {
		err = p.profile(wctx, b, aside)
	}
	if err != nil {
		return p.shutdownError(wctx, err)
	}
	commitFailed(p.Log, commit(wctx))
	return nil
}

// commitFailed logs a failed commit of offsets: the batch is stored, so
// it is only read again and skipped as a replay.
func commitFailed(log *slog.Logger, err error) {
	if err != nil {
		log.Warn("committing offsets failed; the batch will be replayed and deduplicated", "err", err)
	}
}

// graceful returns a context that ends Grace (default 30s) after ctx does.
func (p *Processor) graceful(ctx context.Context) (context.Context, context.CancelFunc) {
	grace := p.Grace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(grace, cancel)
	})
	return wctx, func() {
		stop()
		cancel()
	}
}

// shutdownError says that err came from the grace running out.
func (p *Processor) shutdownError(wctx context.Context, err error) error {
	if err != nil && wctx.Err() != nil {
		return fmt.Errorf("batch not written within the shutdown grace: %w", err)
	}
	return err
}

// storeAll stores b and returns the events it set aside as dead letters.
func (p *Processor) storeAll(ctx context.Context, b analytics.Batch) (aside map[analytics.EventKey]bool, err error) {
	aside = map[analytics.EventKey]bool{}
	return aside, p.store(ctx, b, aside)
}

// profile folds the stored events of b, all but those set aside, into
// the profiles.
func (p *Processor) profile(ctx context.Context, b analytics.Batch, aside map[analytics.EventKey]bool) error {
	if p.Profiles == nil {
		return nil
	}
	ps := p.profiled(b, aside)
	return p.retry(ctx, "profiling predictions", len(ps), func() error { return profileBatch(ctx, p.Profiles, ps, &p.profiles) })
}

// live drops the events of deleted models from b, asking the registry
// again while it cannot answer.
func (p *Processor) live(ctx context.Context, b analytics.Batch) (analytics.Batch, error) {
	if p.Models == nil {
		return b, nil
	}
	if p.cache == nil {
		ttl := p.ModelTTL
		if ttl <= 0 {
			ttl = DefaultModelTTL
		}
		p.cache = &modelCache{models: p.Models, ttl: ttl}
	}
	var out analytics.Batch
	var dropped map[string]int
	err := p.retry(ctx, "model registry lookup", b.Len(), func() (err error) {
		out, dropped, err = p.cache.filter(ctx, b, time.Now())
		return err
	})
	for kind, n := range dropped {
		p.Metrics.drop(kind, DropModelDeleted, n)
		if n > 0 {
			p.Log.Info("dropping events of a deleted model", "kind", kind, "events", n)
		}
	}
	return out, err
}

// store writes b. Refused for good, b is written in halves, down to single
// events, and each event refused alone is set aside (and added to aside).
func (p *Processor) store(ctx context.Context, b analytics.Batch, aside map[analytics.EventKey]bool) error {
	err := p.retry(ctx, "analytical store write", b.Len(), func() error { return p.Sink.Write(ctx, b) })
	if err == nil {
		p.Metrics.wrote(b)
	}
	if !analytics.IsPermanent(err) {
		return err
	}
	if b.Len() > 1 {
		first, second := split(b)
		if err := p.store(ctx, first, aside); err != nil {
			return err
		}
		return p.store(ctx, second, aside)
	}
	return p.setAside(ctx, b, err, aside)
}

// setAside keeps b's events as dead letters refused with cause.
func (p *Processor) setAside(ctx context.Context, b analytics.Batch, cause error, aside map[analytics.EventKey]bool) error {
	if p.DeadLetters == nil {
		return fmt.Errorf("analytical store refused an event and no dead-letter store is set: %w", cause)
	}
	dls := deadLetters(b, cause.Error(), time.Now().UTC())
	for _, d := range dls {
		if d.Kind != eventlog.KindPrediction {
			continue
		}
		aside[analytics.EventKey{OrgID: d.OrgID, ModelID: d.ModelID, ID: d.EventID}] = true
	}
	if err := p.retry(ctx, "setting dead letters aside", len(dls), func() error { return p.DeadLetters.SetAside(ctx, dls) }); err != nil {
		return fmt.Errorf("set aside dead letters: %w", err)
	}
	for _, d := range dls {
		p.Metrics.deadLettered(d.Kind)
		p.Log.Error("analytical store refused an event; set aside as a dead letter", "org_id", d.OrgID, "kind", d.Kind,
			"model_id", d.ModelID, "event_id", d.EventID, "reason", d.Reason)
	}
	return nil
}

// retry runs op until it succeeds, fails permanently or ctx ends, pausing
// with exponential backoff between attempts; it returns op's last error.
func (p *Processor) retry(ctx context.Context, what string, events int, op func() error) error {
	backoff := 100 * time.Millisecond
	for {
		err := op()
		if err == nil || analytics.IsPermanent(err) || ctx.Err() != nil {
			return err
		}
		p.failed(what, events, err)
		if !clock.Sleep(ctx, backoff) {
			return err
		}
		backoff = min(backoff*2, p.maxBackoff())
	}
}

func (p *Processor) maxBackoff() time.Duration {
	if p.MaxBackoff > 0 {
		return p.MaxBackoff
	}
	return 10 * time.Second
}

// decode turns messages into events, with the log position of each
// prediction. A message that does not decode (it cannot have come from the
// ingest API) is logged and skipped rather than blocking the log forever.
func (p *Processor) decode(msgs []eventlog.Message) analytics.Batch {
	p.Metrics.read(msgs)
	predictions := 0
	for _, m := range msgs {
		if m.Kind == eventlog.KindPrediction {
			predictions++
		}
	}
	b := analytics.Batch{
		Predictions: make([]eventlog.Prediction, 0, predictions),
		Positions:   make(map[analytics.EventKey]analytics.Position, predictions),
	}
	for _, m := range msgs {
		var err error
		switch m.Kind {
		case eventlog.KindPrediction:
			var e eventlog.Prediction
			if err = eventlog.DecodeEvent(m.Value, &e); err == nil {
				e.Parse() // once: the store's output counts, the profiles and the labels read the fields
				b.Predictions = append(b.Predictions, e)
				// A prediction_id repeated within the batch (a client's
				// retry) keeps the position of its first record, the one
				// stored: positions then grow along the batch, as sinks
				// and profiles that keep offsets need.
				if k := (analytics.EventKey{OrgID: e.OrgID, ModelID: e.ModelID, ID: e.PredictionID}); !hasKey(b.Positions, k) {
					b.Positions[k] = analytics.Position{Partition: m.Partition, Offset: m.Offset, Epoch: m.Epoch}
				}
			}
		case eventlog.KindMetric:
			var e eventlog.Metric
			if err = eventlog.DecodeEvent(m.Value, &e); err == nil {
				b.Metrics = append(b.Metrics, e)
			}
		case eventlog.KindCompletion:
			var e eventlog.Completion
			if err = eventlog.DecodeEvent(m.Value, &e); err == nil {
				b.Completions = append(b.Completions, e)
			}
		case eventlog.KindGovernance:
			// For the risk register, not the analytical store.
			continue
		default:
			err = fmt.Errorf("unknown kind %q", m.Kind)
		}
		if err != nil {
			p.Metrics.drop(m.Kind, DropUndecodable, 1)
			p.Log.Error("skipping an undecodable event", "kind", m.Kind, "partition", m.Partition, "offset", m.Offset, "err", err)
		}
	}
	return b
}

// profiled is the stored predictions of b (those not set aside) with
// their log positions.
func (p *Processor) profiled(b analytics.Batch, aside map[analytics.EventKey]bool) []positioned {
	out := make([]positioned, 0, len(b.Predictions))
	for _, e := range b.Predictions {
		k := analytics.EventKey{OrgID: e.OrgID, ModelID: e.ModelID, ID: e.PredictionID}
		if !aside[k] {
			out = append(out, positioned{e, b.Positions[k]})
		}
	}
	return out
}

func hasKey(m map[analytics.EventKey]analytics.Position, k analytics.EventKey) bool {
	_, ok := m[k]
	return ok
}

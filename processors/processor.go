package processors

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/platform/clock"
)

// Processor moves events from the log into the analytical store: poll a
// batch, write it, then commit it. A failing write is retried with backoff
// and nothing is committed meanwhile, so an analytical store that is down
// for a while leaves a backlog in the log that drains once it is back.
type Processor struct {
	Source Source
	Sink   Sink
	Log    *slog.Logger
	// Grace bounds how long a batch in flight may take to finish once Run's
	// context ends (default 30s). A batch not written by then is left
	// uncommitted and read again after the restart.
	Grace time.Duration
	// MaxBackoff caps the pause between retries of a failing write
	// (default 10s).
	MaxBackoff time.Duration
}

// Run processes batches until ctx ends, finishing the batch in flight.
func (p *Processor) Run(ctx context.Context) error {
	for {
		msgs, err := p.Source.Poll(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			p.Log.Warn("event log poll failed; retrying", "err", err)
			if !clock.Sleep(ctx, time.Second) {
				return nil
			}
			continue
		}
		if err := p.process(ctx, msgs); err != nil {
			return err
		}
	}
}

// process writes and commits one batch. It keeps going after ctx ends, for
// up to Grace, so that a shutdown does not cut a batch in half.
func (p *Processor) process(ctx context.Context, msgs []Message) error {
	b := p.decode(msgs)
	grace := p.Grace
	if grace <= 0 {
		grace = 30 * time.Second
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	defer cancel()
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(grace, cancel)
	})
	defer stop()

	backoff := 100 * time.Millisecond
	for {
		err := p.Sink.Write(wctx, b)
		if err == nil {
			break
		}
		if wctx.Err() != nil {
			return fmt.Errorf("batch not written within the shutdown grace: %w", err)
		}
		p.Log.Warn("analytical store write failed; retrying, offsets stay uncommitted", "events", b.Len(), "err", err)
		if !clock.Sleep(wctx, backoff) {
			return fmt.Errorf("batch not written within the shutdown grace: %w", err)
		}
		backoff = min(backoff*2, p.maxBackoff())
	}
	if err := p.Source.Commit(wctx); err != nil {
		// The batch is stored; a failed commit only means it is read again
		// and skipped as a replay.
		p.Log.Warn("committing offsets failed; the batch will be replayed and deduplicated", "err", err)
	}
	return nil
}

func (p *Processor) maxBackoff() time.Duration {
	if p.MaxBackoff > 0 {
		return p.MaxBackoff
	}
	return 10 * time.Second
}

// decode turns messages into events. A message that does not decode (it
// cannot have come from the ingest API) is logged and skipped rather than
// blocking the log forever.
func (p *Processor) decode(msgs []Message) Batch {
	var b Batch
	for _, m := range msgs {
		var err error
		switch m.Kind {
		case ingest.KindPrediction:
			var e ingest.Prediction
			if err = json.Unmarshal(m.Value, &e); err == nil {
				b.Predictions = append(b.Predictions, e)
			}
		case ingest.KindMetric:
			var e ingest.Metric
			if err = json.Unmarshal(m.Value, &e); err == nil {
				b.Metrics = append(b.Metrics, e)
			}
		case ingest.KindCompletion:
			var e ingest.Completion
			if err = json.Unmarshal(m.Value, &e); err == nil {
				b.Completions = append(b.Completions, e)
			}
		default:
			err = fmt.Errorf("unknown kind %q", m.Kind)
		}
		if err != nil {
			p.Log.Error("skipping an undecodable event", "kind", m.Kind, "partition", m.Partition, "offset", m.Offset, "err", err)
		}
	}
	return b
}

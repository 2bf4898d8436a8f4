package processors

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultPipeline names the processor that lands events in the
// analytical store, in its metrics, readiness check and log lines.
const DefaultPipeline = "analytics"

// DefaultStuckAfter is how long a processor may fail without finishing a
// batch before it says it is stuck (Processor.StuckAfter).
const DefaultStuckAfter = time.Minute

// stall keeps how long a processor has been failing without finishing a
// batch: a batch retried on and on (an analytical store that refuses it
// as too large, a registry that cannot answer) holds the log behind it
// while ingest goes on, which nothing else shows (issue 33).
type stall struct {
	mu sync.Mutex
	// since is the first failure after the last batch finished; zero
	// when none failed since.
	since time.Time
	// last is the latest failure's error.
	last error
	// logged is when the processor last logged that it is stuck.
	logged time.Time
}

// failed records a failed attempt at the batch in hand (op, of events)
// with err: it counts it, moves the failing-seconds gauge, and logs it,
// as an error once per StuckAfter once the processor is stuck.
func (p *Processor) failed(op string, events int, err error) {
	now, bound := p.Clock.Now(), p.stuckAfter()
	p.stall.mu.Lock()
	if p.stall.since.IsZero() {
		p.stall.since = now
	}
	p.stall.last = err
	failing := now.Sub(p.stall.since)
	stuck := failing >= bound && now.Sub(p.stall.logged) >= bound
	if stuck {
		p.stall.logged = now
	}
	p.stall.mu.Unlock()
	p.Metrics.batchFailed(p.pipeline(), failing)
	if stuck {
		p.Log.Error("processor stuck: its batch has failed for longer than the bound; offsets stay uncommitted",
			"pipeline", p.pipeline(), "op", op, "events", events, "failing_for", failing.Round(time.Second).String(),
			"bound", bound.String(), "err", err)
		return
	}
	p.Log.Warn(op+" failed; retrying, offsets stay uncommitted", "pipeline", p.pipeline(), "events", events, "err", err)
}

// finished records that a batch was written and committed: whatever
// failed before is over.
func (p *Processor) finished() {
	p.stall.mu.Lock()
	p.stall.since, p.stall.last, p.stall.logged = time.Time{}, nil, time.Time{}
	p.stall.mu.Unlock()
	p.Metrics.batchFailing(p.pipeline(), 0)
}

// Failing returns how long the processor has been failing without
// finishing a batch (0 when its last attempt succeeded) and the last
// error.
func (p *Processor) Failing() (time.Duration, error) {
	p.stall.mu.Lock()
	defer p.stall.mu.Unlock()
	if p.stall.since.IsZero() {
		return 0, nil
	}
	return p.Clock.Now().Sub(p.stall.since), p.stall.last
}

// Check is the processor's readiness check: it fails once the processor
// has failed for StuckAfter or longer without finishing a batch, naming
// the pipeline, for how long, and the last error. It also brings the
// failing-seconds gauge up to date.
func (p *Processor) Check(context.Context) error {
	failing, err := p.Failing()
	p.Metrics.batchFailing(p.pipeline(), failing)
	if failing < p.stuckAfter() {
		return nil
	}
	return fmt.Errorf("processor %s stuck: its batch has failed for %s: %w", p.pipeline(), failing.Round(time.Second), err)
}

func (p *Processor) pipeline() string {
	if p.Pipeline == "" {
		return DefaultPipeline
	}
	return p.Pipeline
}

func (p *Processor) stuckAfter() time.Duration {
	if p.StuckAfter > 0 {
		return p.StuckAfter
	}
	return DefaultStuckAfter
}

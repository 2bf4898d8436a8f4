package processors

import (
	"context"
	"log/slog"
	"sync"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// prepared is a batch read and decoded, on its way to the store.
type prepared struct {
	msgs []eventlog.Message
	b    analytics.Batch
	err  error // from prepare
}

// stored is a batch written to the store, on its way to the profiles and
// the commit.
type stored struct {
	prepared
	aside map[analytics.EventKey]bool
}

// runAhead is Run over a source that commits a prefix, in three stages of
// their own goroutines, each at most one batch ahead of the next: reading
// (poll, decode, filter), storing, and profiling. A batch is committed
// through its own messages once its profiles are saved, by a committer
// beside the stages, so a crash or a shutdown replays the batches behind
// it rather than losing them. Stages run in log order, so the store and
// the profiles see the batches as Run does.
//
// On a shutdown the batch being stored and the one being profiled are
// finished, each within Grace, and committed; the batch read ahead is left
// to the next Run.
func (p *Processor) runAhead(ctx context.Context, pc eventlog.PrefixCommitter) error {
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	errs := make(chan error, 2)
	fail := func(err error) {
		errs <- err
		stop()
	}
	read := make(chan prepared) // unbuffered: one batch ahead of the store
	written := make(chan stored)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		defer close(read)
		p.readAhead(rctx, read)
	}()
	go func() {
		defer wg.Done()
		defer close(written)
		for batch := range read {
			if rctx.Err() != nil {
				return // read again after the restart
			}
			if batch.err != nil {
				fail(batch.err)
				return
			}
			wctx, cancel := p.graceful(rctx)
			aside, err := p.storeAll(wctx, batch.b)
			err = p.shutdownError(wctx, err)
			cancel()
			if err != nil {
				fail(err)
				return
			}
			written <- stored{batch, aside}
			if rctx.Err() != nil {
				return
			}
		}
	}()
	commits := &committer{pc: pc, log: p.Log, signal: make(chan struct{}, 1)}
	wg.Add(1)
	go func() {
		defer wg.Done()
		wctx, cancel := p.graceful(rctx)
		defer cancel()
		commits.run(wctx)
	}()
	failed := false
	for batch := range written {
		if failed {
			continue // drained, so that the storing stage ends
		}
		wctx, cancel := p.graceful(rctx)
		err := p.shutdownError(wctx, p.profile(wctx, batch.b, batch.aside))
		cancel()
		if err != nil {
			fail(err)
			failed = true
			continue
		}
		commits.finished(batch.msgs)
		p.finished()
	}
	close(commits.signal)
	wg.Wait()
	select {
	case err := <-errs:
		return err
	default:
		return nil
	}
}

// readAhead sends each batch polled and prepared to out until ctx ends.
func (p *Processor) readAhead(ctx context.Context, out chan<- prepared) {
	for {
		msgs, ok := p.poll(ctx)
		if !ok {
			return
		}
		b, err := p.prepare(ctx, msgs)
		if ctx.Err() != nil {
			return // the batch is read again after the restart
		}
		select {
		case out <- prepared{msgs, b, err}:
		case <-ctx.Done():
			return
		}
	}
}

// committer commits through the last batch finished, in the background:
// the batches finished while a commit is in flight are committed by the
// next one, together. A commit waits for the log's writer, which is busy
// with appends under load; the stages need not wait with it.
type committer struct {
	pc     eventlog.PrefixCommitter
	log    *slog.Logger
	signal chan struct{} // a batch finished; closed after the last

	mu     sync.Mutex
	latest []eventlog.Message // the last batch finished, not yet committed
}

// finished records that msgs are stored and profiled; it never waits.
func (c *committer) finished(msgs []eventlog.Message) {
	c.mu.Lock()
	c.latest = msgs
	c.mu.Unlock()
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

// run commits after each signal until signal is closed; the last signal
// before the close is served, so everything finished is committed.
func (c *committer) run(ctx context.Context) {
	for range c.signal {
		c.mu.Lock()
		msgs := c.latest
		c.latest = nil
		c.mu.Unlock()
		if msgs == nil {
			continue
		}
		if err := c.pc.CommitThrough(ctx, msgs); err != nil {
			// A later commit may still cover it.
			commitFailed(c.log, err)
			c.mu.Lock()
			if c.latest == nil {
				c.latest = msgs
			}
			c.mu.Unlock()
		}
	}
}

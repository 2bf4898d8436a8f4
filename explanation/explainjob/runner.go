package explainjob

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/vigilhq/vigil/explanation"
	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/store"
)

// Defaults of a Runner's zero fields.
const (
	defaultWorkers = 2
	defaultPoll    = 5 * time.Second
)

// Runner computes pending explanations in the API role, Workers at a
// time. The store is its queue: on start and then on every Poll tick (or
// at once when Wake is called) it reads the oldest pending explanations
// and runs those it is not already running. A job therefore outlives a
// restart (it is still pending in the store and is picked up by the next
// Runner) and a full runner loses nothing (the job waits in the store).
// Two replicas may compute the same job; the first outcome stored wins,
// and both are the same values (the sampling seed is the request's).
type Runner struct {
	Store     explanation.Store
	Artifacts artifact.Store
	// Access explains the models without an artifact (served, surrogate).
	Access *explanation.Access
	// Cache, when set, keeps the outcomes of the requests that ask for it.
	Cache kvcache.Cache
	// Workers (default 2) explanations run at a time; Poll (default 5 s)
	// is how often the store is read for pending jobs.
	Workers int
	Poll    time.Duration
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger

	wake clock.Waker
	mu   sync.Mutex
	busy map[string]bool // the jobs this Runner is running
}

func (r *Runner) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

// Wake asks the Runner to read the store for pending jobs now.
func (r *Runner) Wake() {
	if r != nil {
		r.wake.Wake()
	}
}

// Run runs pending explanations until ctx ends. A job cut short by the
// end of ctx stays pending for the next start.
func (r *Runner) Run(ctx context.Context) error {
	workers := r.Workers
	if workers <= 0 {
		workers = defaultWorkers
	}
	poll := r.Poll
	if poll <= 0 {
		poll = defaultPoll
	}
	jobs := make(chan explanation.Explanation)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for e := range jobs {
				r.run(ctx, e)
			}
		})
	}
	t := time.NewTicker(poll)
	defer t.Stop()
	for ctx.Err() == nil {
		r.dispatch(ctx, jobs, workers)
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-r.wake.C():
		}
	}
	close(jobs)
	wg.Wait()
	return nil
}

// dispatch hands the oldest pending jobs this Runner is not running to
// the workers, waiting for a free one each time.
func (r *Runner) dispatch(ctx context.Context, jobs chan<- explanation.Explanation, workers int) {
	pending, err := r.Store.PendingExplanations(ctx, 4*workers)
	if err != nil {
		if ctx.Err() == nil {
			r.log().Warn("reading pending explanations failed", "err", err)
		}
		return
	}
	for _, e := range pending {
		r.mu.Lock()
		if r.busy == nil {
			r.busy = map[string]bool{}
		}
		taken := r.busy[e.ID]
		r.busy[e.ID] = true
		r.mu.Unlock()
		if taken {
			continue
		}
		select {
		case jobs <- e:
		case <-ctx.Done():
			r.release(e.ID)
			return
		}
	}
}

// progressEvery is the least time between two progress writes of a job.
const progressEvery = time.Second

// progress stores e's progress: the first report, then at most one per
// progressEvery, and the last (all done). A failed write is logged and
// the computation goes on.
func (r *Runner) progress(ctx context.Context, e explanation.Explanation) func(artifact.Progress) {
	var last time.Time
	return func(p artifact.Progress) {
		now := r.Clock.Now()
		if !last.IsZero() && now.Sub(last) < progressEvery && p.Done < p.Total {
			return
		}
		last = now
		if err := r.Store.ExplanationProgress(ctx, e.OrgID, e.ID, p); err != nil && ctx.Err() == nil {
			r.log().Warn("storing an explanation's progress failed", "explanation_id", e.ID, "err", err)
		}
	}
}

func (r *Runner) release(id string) {
	r.mu.Lock()
	delete(r.busy, id)
	r.mu.Unlock()
}

// run computes one job and stores its outcome: completed, or failed with
// the reason. Nothing is stored when ctx ended meanwhile.
func (r *Runner) run(ctx context.Context, e explanation.Explanation) {
	defer r.Wake()
	defer r.release(e.ID)
	out, err := explanation.Execute(ctx, r.Artifacts, r.Access, r.Cache, e, r.progress(ctx, e))
	if ctx.Err() != nil {
		return
	}
	now := r.Clock.Now()
	e.UpdatedAt, e.CompletedAt = now, &now
	if err != nil {
		e.Status, e.Error = explanation.StatusFailed, err.Error()
	} else {
		e.Status, e.Outcome = explanation.StatusCompleted, out
	}
	err = r.Store.FinishExplanation(ctx, e)
	if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) && ctx.Err() == nil {
		r.log().Error("storing an explanation failed", "explanation_id", e.ID, "err", err)
	}
}

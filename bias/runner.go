package bias

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/query"
	"github.com/vigilhq/vigil/store"
)

// Defaults of a Runner's zero fields.
const (
	defaultWorkers    = 2
	defaultQueue      = 64
	defaultStaleAfter = 2 * time.Minute
)

// Reasons given to audits that did not run to the end.
const (
	reasonInterrupted = "interrupted: the server stopped before the audit finished; submit it again"
	reasonStale       = "interrupted: the server running the audit stopped (no heartbeat); submit it again"
	reasonQueueFull   = "not run: too many audits were queued; submit it again later"
)

// Runner runs accepted audits in the API process: Workers at a time, up
// to Queue waiting. It keeps updated_at of the audits it holds fresh (a
// heartbeat every StaleAfter/4), and on start and every heartbeat marks
// failed any pending or running audit, of any replica, whose heartbeat is
// older than StaleAfter: the audits of a process that stopped without
// finishing them. A process that stops cleanly marks its own at once.
// The zero value works once Store (and, for the logged-predictions form,
// Predictions) is set; Run must be running for audits to progress.
type Runner struct {
	Store Store
	// Predictions is the analytical store read by the logged-predictions form.
	Predictions query.Store
	// Governance, when set, receives completed audits that draft a risk entry.
	Governance Governance
	// Workers (default 2), Queue (default 64), StaleAfter (default 2 min).
	Workers    int
	Queue      int
	StaleAfter time.Duration
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger

	once  sync.Once
	jobs  chan job
	mu    sync.Mutex
	owned map[string]Audit
}

// job is an accepted audit and its checked request.
type job struct {
	audit Audit
	plan  Plan
}

func (r *Runner) init() {
	r.once.Do(func() {
		r.jobs = make(chan job, orDefault(r.Queue, defaultQueue))
		r.owned = map[string]Audit{}
	})
}

// orDefault is v, or def when v is not positive.
func orDefault[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

func (r *Runner) log() *slog.Logger {
	if r.Log == nil {
		return slog.Default()
	}
	return r.Log
}

// Submit queues an audit stored as pending; false when the queue is full.
func (r *Runner) Submit(a Audit, p Plan) bool {
	r.init()
	r.mu.Lock()
	defer r.mu.Unlock()
	select {
	case r.jobs <- job{audit: a, plan: p}:
		r.owned[a.ID] = a
		return true
	default:
		return false
	}
}

// Run runs queued audits until ctx ends, then marks the audits it still
// holds failed.
func (r *Runner) Run(ctx context.Context) error {
	r.init()
	stale := orDefault(r.StaleAfter, defaultStaleAfter)
	r.sweep(ctx, stale)
	var wg sync.WaitGroup
	for range orDefault(r.Workers, defaultWorkers) {
		wg.Go(func() {
			for {
				select {
				case <-ctx.Done():
					return
				case j := <-r.jobs:
					r.run(ctx, j)
				}
			}
		})
	}
	t := time.NewTicker(stale / 4)
	defer t.Stop()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-t.C:
			r.heartbeat(ctx)
			r.sweep(ctx, stale)
		}
	}
	wg.Wait()
	r.abandon()
	return nil
}

// heartbeat refreshes updated_at of the audits this process holds.
func (r *Runner) heartbeat(ctx context.Context) {
	r.mu.Lock()
	ids := make([]string, 0, len(r.owned))
	for id := range r.owned {
		ids = append(ids, id)
	}
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	if err := r.Store.TouchBiasAudits(ctx, ids, r.Clock.Now()); err != nil && ctx.Err() == nil {
		r.log().Warn("bias audit heartbeat failed", "err", err)
	}
}

// sweep fails the audits whose heartbeat stopped.
func (r *Runner) sweep(ctx context.Context, stale time.Duration) {
	now := r.Clock.Now()
	n, err := r.Store.FailStaleBiasAudits(ctx, now.Add(-stale), now, reasonStale)
	switch {
	case err != nil && ctx.Err() == nil:
		r.log().Warn("marking stale bias audits failed", "err", err)
	case n > 0:
		r.log().Warn("marked bias audits failed after their runner stopped", "audits", n)
	}
}

// abandon marks the audits still held (queued or cut short) failed.
func (r *Runner) abandon() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	r.mu.Lock()
	held := make([]Audit, 0, len(r.owned))
	for _, a := range r.owned {
		held = append(held, a)
	}
	r.mu.Unlock()
	for _, a := range held {
		r.finish(ctx, &a, nil, reasonInterrupted)
	}
}

// run executes one audit and stores its outcome. An audit cut short by
// the end of ctx is left to abandon.
func (r *Runner) run(ctx context.Context, j job) {
	a := j.audit
	a.Status, a.UpdatedAt = StatusRunning, r.Clock.Now()
	if err := r.Store.UpdateBiasAudit(ctx, a); err != nil {
		r.drop(ctx, a, err)
		return
	}
	r.hold(a)
	res, rep, err := Execute(ctx, r.Predictions, a.OrgID, j.plan, &a.Request)
	if ctx.Err() != nil {
		return
	}
	reason := ""
	if err != nil {
		reason = err.Error()
	}
	if !r.finish(ctx, &a, res, reason) {
		return
	}
	if err == nil && rep.Severity.DraftsRisk() && r.Governance != nil {
		if gerr := r.Governance.BiasAuditFinding(ctx, a); gerr != nil {
			r.log().Error("recording a bias audit finding for governance failed", "audit_id", a.ID, "err", gerr)
		}
	}
}

// hold records the audit's latest state as held by this process.
func (r *Runner) hold(a Audit) {
	r.mu.Lock()
	r.owned[a.ID] = a
	r.mu.Unlock()
}

// drop forgets an audit that could not be started: gone (its model was
// deleted) or unwritable, in which case the stale sweep fails it later.
func (r *Runner) drop(ctx context.Context, a Audit, err error) {
	if !errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
		r.log().Error("starting a bias audit failed", "audit_id", a.ID, "err", err)
	}
	r.mu.Lock()
	delete(r.owned, a.ID)
	r.mu.Unlock()
}

// finish stores a's outcome: completed with res, or failed with reason
// when res is nil. It reports whether the outcome was stored.
func (r *Runner) finish(ctx context.Context, a *Audit, res *Result, reason string) bool {
	now := r.Clock.Now()
	a.Status, a.Result, a.Error, a.UpdatedAt, a.CompletedAt = StatusCompleted, res, "", now, &now
	if res == nil {
		a.Status, a.Error = StatusFailed, reason
	}
	err := r.Store.UpdateBiasAudit(ctx, *a)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		r.log().Error("storing a bias audit's outcome failed", "audit_id", a.ID, "err", err)
	}
	r.mu.Lock()
	delete(r.owned, a.ID)
	r.mu.Unlock()
	return err == nil
}

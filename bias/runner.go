package bias

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/clock"
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
// refresh every StaleAfter/4), and on start and every refresh marks failed
// any pending or running audit, of any replica, whose heartbeat is older
// than StaleAfter: the audits of a process that stopped without finishing
// them. A process that stops cleanly marks its own at once. On start and
// every refresh it also appends the governance events that completed
// audits still owe (see Events). The zero value works once Store (and, for
// the logged-predictions form, Predictions) is set; Run must be running
// for audits to progress.
//
// pending (stored and queued) → running → completed, failed or cancelled;
// the last three are final: the store writes no finished audit again. The
// Runner runs Workers audits at a time with Queue more waiting
// (VIGIL_BIAS_WORKERS, default 2; VIGIL_BIAS_QUEUE, default 64); a full
// queue answers 503 and stores the audit failed. It refreshes updated_at
// of the audits it holds every StaleAfter/4 and, on start and on each
// refresh, fails every pending or running audit whose updated_at is older
// than StaleAfter (2 minutes): those of a process that died. A process
// that stops cleanly fails its own at once. Failed audits are not re-run
// (the label-supplied arrays are not stored); the reason asks to resubmit.
type Runner struct {
	Store Store
	// Predictions is the analytical store read by the logged-predictions form.
	Predictions analytics.Store
	// Events, when set, receives the governance event of every audit
	// completed at high or critical severity. The audit is stored owing
	// it (GovernancePending) in the write that completes it; the event is
	// appended, then the debt cleared, and what is still owed is appended
	// again on every refresh, by whichever replica's Runner gets to it
	// (the event's id is the audit's, so one appended twice is one event).
	Events eventlog.Log
	// Workers (default 2) run at a time, Queue (default 64) more wait;
	// MaxRows (default MaxRows) bounds the rows of one audit;
	// StaleAfter (default 2 min) is when an audit without heartbeat is
	// failed. Zero or negative values take the defaults.
	Workers    int
	Queue      int
	MaxRows    int
	StaleAfter time.Duration
	// Clock defaults to the system clock; Log to slog.Default().
	Clock clock.Clock
	Log   *slog.Logger

	once  sync.Once
	jobs  chan job
	mu    sync.Mutex
	owned map[string]held
}

// held is an audit this process has accepted and not finished: its latest
// state and, once it runs, what stops its computation.
type held struct {
	audit Audit
	stop  context.CancelFunc
}

// job is an accepted audit and its checked request.
type job struct {
	audit Audit
	plan  Plan
}

func (r *Runner) init() {
	r.once.Do(func() {
		r.jobs = make(chan job, orDefault(r.Queue, defaultQueue))
		r.owned = map[string]held{}
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
		r.owned[a.ID] = held{audit: a}
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
	r.resend(ctx)
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
			r.resend(ctx)
		}
	}
	wg.Wait()
	r.abandon()
	return nil
}

// heartbeat refreshes updated_at of the audits this process holds, and
// stops those of its running audits that were cancelled or deleted
// through another replica.
func (r *Runner) heartbeat(ctx context.Context) {
	r.mu.Lock()
	ids := make([]string, 0, len(r.owned))
	var running []Audit
	for id, h := range r.owned {
		ids = append(ids, id)
		if h.stop != nil {
			running = append(running, h.audit)
		}
	}
	r.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	if err := r.Store.TouchBiasAudits(ctx, ids, r.Clock.Now()); err != nil && ctx.Err() == nil {
		r.log().Warn("bias audit heartbeat failed", "err", err)
	}
	for _, a := range running {
		if got, err := r.Store.BiasAudit(ctx, a.OrgID, a.ID); errors.Is(err, store.ErrNotFound) || err == nil && got.Status.Done() {
			r.Cancel(a.ID)
		}
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
	audits := make([]Audit, 0, len(r.owned))
	for _, h := range r.owned {
		audits = append(audits, h.audit)
	}
	r.mu.Unlock()
	for _, a := range audits {
		r.finish(ctx, &a, nil, reasonInterrupted)
	}
}

// maxRows is the rows one audit may hold: r.MaxRows, or the package's
// MaxRows when that is not positive (or there is no Runner).
func (r *Runner) maxRows() int {
	if r == nil {
		return MaxRows
	}
	return orDefault(r.MaxRows, MaxRows)
}

// run executes one audit and stores its outcome. An audit cut short by
// the end of ctx is left to abandon; one cancelled meanwhile is dropped.
func (r *Runner) run(ctx context.Context, j job) {
	a := j.audit
	a.Status, a.UpdatedAt = StatusRunning, r.Clock.Now()
	if err := r.Store.UpdateBiasAudit(ctx, a); err != nil {
		r.drop(ctx, a, err)
		return
	}
	jctx, stop := context.WithCancel(ctx)
	defer stop()
	if !r.hold(a, stop) {
		return
	}
	j.plan.MaxRows = r.maxRows()
	res, rep, err := Execute(jctx, r.Predictions, a.OrgID, j.plan, &a.Request)
	if ctx.Err() != nil {
		return
	}
	if jctx.Err() != nil {
		r.Cancel(a.ID)
		return
	}
	reason := ""
	if err != nil {
		reason = err.Error()
	}
	a.GovernancePending = err == nil && rep.Severity.DraftsRisk()
	if r.finish(ctx, &a, res, reason) && a.GovernancePending {
		r.govern(ctx, a)
	}
}

// hold records the audit's latest state as held by this process and what
// stops it; false when the audit was cancelled since it was queued.
func (r *Runner) hold(a Audit, stop context.CancelFunc) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.owned[a.ID]; !ok {
		return false
	}
	r.owned[a.ID] = held{audit: a, stop: stop}
	return true
}

// drop forgets an audit that could not be started: gone (its model was
// deleted), cancelled, or unwritable, in which case the stale sweep fails
// it later.
func (r *Runner) drop(ctx context.Context, a Audit, err error) {
	if !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) && ctx.Err() == nil {
		r.log().Error("starting a bias audit failed", "audit_id", a.ID, "err", err)
	}
	r.mu.Lock()
	delete(r.owned, a.ID)
	r.mu.Unlock()
}

// finish stores a's outcome: completed with res, or failed with reason
// when res is nil. It reports whether the outcome was stored: not when
// the audit was cancelled or deleted meanwhile.
func (r *Runner) finish(ctx context.Context, a *Audit, res *Result, reason string) bool {
	now := r.Clock.Now()
	a.Status, a.Result, a.Error, a.UpdatedAt, a.CompletedAt = StatusCompleted, res, "", now, &now
	if res == nil {
		a.Status, a.Error = StatusFailed, reason
	}
	err := r.Store.UpdateBiasAudit(ctx, *a)
	if err != nil && !errors.Is(err, store.ErrNotFound) && !errors.Is(err, store.ErrConflict) {
		r.log().Error("storing a bias audit's outcome failed", "audit_id", a.ID, "err", err)
	}
	r.mu.Lock()
	delete(r.owned, a.ID)
	r.mu.Unlock()
	return err == nil
}

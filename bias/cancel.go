package bias

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// reasonCancelled is the error of an audit cancelled through the API.
const reasonCancelled = "cancelled on request (POST /bias/audits/{audit_id}/cancel)"

// cancel answers POST /bias/audits/{audit_id}/cancel: a pending or running
// audit is stored cancelled and the Runner stops or discards its work
// (200, the audit). Cancelling a cancelled audit answers the same, so a
// retried request succeeds; a completed or failed one is a 409 naming its
// status.
//
// POST /bias/audits/{audit_id}/cancel stores a pending or running audit
// cancelled and answers it (200; again 200 for a cancelled one, so a
// retry succeeds); a completed or failed audit answers 409 naming its
// status in details.status. DELETE /bias/audits/{audit_id} answers 204
// whatever the status: users deleting an audit want it gone, so a pending
// or running one is deleted at once, as if cancelled, rather than refused.
// Either way the Runner of the process serving the call stops the work
// (a queued audit never starts, a running one's read is cut short); a
// replica running it stops it at its next heartbeat (StaleAfter/4), and
// discards the outcome should it finish first, since the store completes
// no audit that is cancelled or gone. Another
// organization's audit answers 404 like a missing one.
func (a *API) cancel(c *fiber.Ctx) error {
	ctx, org := c.UserContext(), identity.OrgID(c)
	id, err := web.PathParam(c, "audit_id")
	if err != nil {
		return err
	}
	au, err := a.Store.BiasAudit(ctx, org, id)
	if err == nil && !au.Status.Done() {
		now := a.Clock.Now()
		au.Status, au.Error, au.UpdatedAt, au.CompletedAt = StatusCancelled, reasonCancelled, now, &now
		if err = a.Store.UpdateBiasAudit(ctx, au); errors.Is(err, store.ErrConflict) {
			// It finished meanwhile: answer with its final status.
			au, err = a.Store.BiasAudit(ctx, org, id)
		}
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("bias audit")
	case err != nil:
		return err
	case au.Status != StatusCancelled:
		e := web.Conflict(fmt.Sprintf("bias audit %s is %s: only a pending or running audit can be cancelled", id, au.Status))
		e.Details = map[string]any{"status": string(au.Status)}
		return e
	}
	a.Runner.stop(id)
	return c.JSON(newView(au))
}

// remove answers DELETE /bias/audits/{audit_id} with 204, whatever the
// audit's status: a pending or running audit is deleted at once and its
// work stopped or discarded, as if cancelled. An audit that still owes its
// governance event has it appended first, so deleting an audit never
// loses a finding (503 while the event log refuses it).
func (a *API) remove(c *fiber.Ctx) error {
	ctx, org := c.UserContext(), identity.OrgID(c)
	id, err := web.PathParam(c, "audit_id")
	if err != nil {
		return err
	}
	err = a.Store.DeleteBiasAudit(ctx, org, id, a.Clock.Now())
	if errors.Is(err, store.ErrConflict) {
		err = a.removeOwing(ctx, org, id)
	}
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("bias audit")
	} else if err != nil {
		return err
	}
	a.Runner.stop(id)
	return c.SendStatus(http.StatusNoContent)
}

// removeOwing appends the governance event an audit owes, then deletes it.
func (a *API) removeOwing(ctx context.Context, org, id string) error {
	au, err := a.Store.BiasAudit(ctx, org, id)
	if err != nil {
		return err
	}
	if a.Runner == nil || a.Runner.Events == nil {
		return web.Unavailable("the audit's governance event is not on the event log yet, and this server cannot append it; retry shortly", 30*time.Second, nil)
	}
	if err := a.Runner.outbox().Send(ctx, au); err != nil {
		return web.Unavailable("the audit's governance event is not on the event log yet; retry shortly", 30*time.Second, err)
	}
	return a.Store.DeleteBiasAudit(ctx, org, id, a.Clock.Now())
}

// Cancel stops this process's work on an audit whose cancellation or
// deletion is stored: a queued audit does not start, a running one's
// computation is cut short and nothing more is written. An audit another
// replica runs is stopped by that replica's next heartbeat, and its
// outcome discarded should it finish first: the store completes no audit
// that is finished (cancelled) or gone.
func (r *Runner) Cancel(id string) {
	r.init()
	r.mu.Lock()
	defer r.mu.Unlock()
	if h, ok := r.owned[id]; ok && h.stop != nil {
		h.stop()
	}
	delete(r.owned, id)
}

// stop is Cancel on a Runner that may be nil.
func (r *Runner) stop(id string) {
	if r != nil {
		r.Cancel(id)
	}
}

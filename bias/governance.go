package bias

import (
	"context"
	"fmt"
	"strings"

	"github.com/vigilhq/vigil/governance"
)

// GovernanceEvent is the governance event of an audit completed at high
// or critical severity, for the risk register. Its id is the audit's, so
// an event appended twice is one event to its readers.
//
// An audit completed at high or critical severity owes a governance event
// (governance.Event, event id and source id the audit's id) for the risk
// register: the write that completes it sets GovernancePending, the
// Runner then appends the event to Runner.Events and clears the flag, and
// on start and every refresh (StaleAfter/4, 30 s) appends again whatever
// is still owed (governance.Outbox, shared with drift reports). The refresh
// loop is the Runner's because it runs wherever audits run (the api role);
// every replica's Runner resends, and a double append is one event to its
// readers. Deleting an audit that still owes its event appends it first
// (503 while the log refuses it), so no finding is lost.
func GovernanceEvent(a Audit) governance.Event {
	e := governance.Event{EventID: a.ID, OrgID: a.OrgID, ModelID: a.ModelID, SourceType: governance.SourceBiasAudit,
		SourceID: a.ID, Timestamp: a.UpdatedAt}
	if a.CompletedAt != nil {
		e.Timestamp = *a.CompletedAt
	}
	if a.Result == nil {
		e.Summary = "bias audit"
		return e
	}
	e.Severity, e.Summary = a.Result.Severity, fmt.Sprintf("bias audit at %s severity", a.Result.Severity)
	if len(a.Result.Recommendations) > 0 {
		e.Summary += ": " + strings.SplitN(a.Result.Recommendations[0], "; ", 2)[0]
	}
	return e
}

// outbox delivers the governance events that audits owe to Events.
func (r *Runner) outbox() governance.Outbox[Audit] {
	return governance.Outbox[Audit]{Log: r.Events, Event: GovernanceEvent, Pending: r.Store.BiasGovernancePending, Sent: r.Store.BiasGovernanceSent}
}

// govern appends the governance event a completed audit owes and clears
// the debt; a failure is logged and left to the next refresh.
func (r *Runner) govern(ctx context.Context, a Audit) {
	if r.Events == nil {
		return
	}
	if err := r.outbox().Send(ctx, a); err != nil && ctx.Err() == nil {
		r.log().Warn("governance event of a bias audit not appended; appended again on a later refresh", "audit_id", a.ID, "err", err)
	}
}

// resend appends the governance events that completed audits still owe.
func (r *Runner) resend(ctx context.Context) {
	if r.Events == nil {
		return
	}
	if err := r.outbox().Resend(ctx); err != nil && ctx.Err() == nil {
		r.log().Warn("owed governance events of bias audits not appended; trying again on the next refresh", "err", err)
	}
}

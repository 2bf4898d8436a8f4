package review

import (
	"context"
	"log/slog"
	"time"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/governance"
	"github.com/vigilhq/vigil/platform/clock"
)

// GovernanceEvent is the governance event of a request finalized denied
// or sent back, for the risk register: its severity is the outcome, its
// summary the request's title. Its id is the request's, so an event
// appended twice is one event to its readers.
//
// A request finalized denied or changes_requested owes a governance event
// (governance.Event, source_type governance_review, severity the outcome,
// summary the title, event and source id the request's): the write that
// finalizes it sets governance_pending in the same transaction, the API
// appends the event after the commit and clears the debt, and Resender
// appends whatever is still owed (governance.Outbox). processors/drafting
// drafts one operational risk entry, likelihood 3 and impact 3, per request.
func GovernanceEvent(r Request) governance.Event {
	e := governance.Event{EventID: r.ID, OrgID: r.OrgID, ModelID: r.ModelID, SourceType: governance.SourceGovernanceReview,
		SourceID: r.ID, Severity: r.Outcome, Summary: r.Title, Timestamp: r.UpdatedAt}
	if r.FinalizedAt != nil {
		e.Timestamp = *r.FinalizedAt
	}
	return e
}

// outbox delivers the events that finalized requests owe to log.
func outbox(s Store, log eventlog.Log) governance.Outbox[Request] {
	return governance.Outbox[Request]{Log: log, Event: GovernanceEvent, Pending: s.ReviewGovernancePending, Sent: s.ReviewGovernanceSent}
}

// govern appends the event a request just finalized owes and clears the
// debt; a failure is left to the Resender.
func (a *API) govern(ctx context.Context, r Request) {
	if a.Events == nil {
		return
	}
	if err := outbox(a.Store, a.Events).Send(ctx, r); err != nil && ctx.Err() == nil {
		a.log().Warn("governance event of a review request not appended; appended again by the resender", "request_id", r.ID, "err", err)
	}
}

// Resender appends the governance events that finalized requests still
// owe (the log refused the first append, or the process stopped between
// the finalize and the append), on start and every Every (default 30 s),
// whichever replica gets to them first.
type Resender struct {
	Store  Store
	Events eventlog.Log
	Every  time.Duration
	// Log defaults to slog.Default().
	Log *slog.Logger
}

// Run resends until ctx ends.
func (r *Resender) Run(ctx context.Context) error {
	if r.Events == nil {
		return nil
	}
	every, log := r.Every, r.Log
	if every <= 0 {
		every = 30 * time.Second
	}
	if log == nil {
		log = slog.Default()
	}
	clock.Every(ctx, every, outbox(r.Store, r.Events).Resend, func(err error) {
		log.Warn("owed governance events of review requests not appended; trying again later", "err", err)
	})
	return nil
}

func (a *API) log() *slog.Logger {
	if a.Log != nil {
		return a.Log
	}
	return slog.Default()
}

package governance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vigilhq/vigil/eventlog"
)

// OutboxBatch is how many owed events one Outbox.Resend appends at most.
const OutboxBatch = 100

// Outbox delivers the governance events that stored records (drift
// reports, bias audits) owe. A record is stored owing its event, in the
// same write that creates or completes it; Send appends the event and then
// records it sent, and Resend appends what is still owed, so an append
// that fails is retried later instead of lost. Event must give each event
// its record's id, so that an event appended twice (the append succeeded,
// recording it did not; or two replicas resent it) is one event to its
// readers.
type Outbox[T any] struct {
	// Log receives the events.
	Log eventlog.Log
	// Event is the governance event a record owes.
	Event func(T) Event
	// Pending returns up to limit records, of every organization, that owe
	// their event, oldest first.
	Pending func(ctx context.Context, limit int) ([]T, error)
	// Sent records that the event of the organization's record id is on
	// the log.
	Sent func(ctx context.Context, orgID, id string) error
}

// Send appends the event rec owes, then records it sent.
func (o Outbox[T]) Send(ctx context.Context, rec T) error {
	e := o.Event(rec)
	what := strings.ReplaceAll(e.SourceType, "_", " ")
	r, err := EventRecord(e)
	if err != nil {
		return fmt.Errorf("encode governance event of %s %s: %w", what, e.SourceID, err)
	}
	if err := o.Log.Append(ctx, []eventlog.Record{r}); err != nil {
		return fmt.Errorf("append governance event of %s %s: %w", what, e.SourceID, err)
	}
	if err := o.Sent(ctx, e.OrgID, e.SourceID); err != nil {
		return fmt.Errorf("record governance event of %s %s sent: %w", what, e.SourceID, err)
	}
	return nil
}

// Resend sends the events still owed, oldest first, up to OutboxBatch of
// them; the rest wait for the next call. The errors are returned joined.
func (o Outbox[T]) Resend(ctx context.Context) error {
	owed, err := o.Pending(ctx, OutboxBatch)
	if err != nil {
		return fmt.Errorf("list owed governance events: %w", err)
	}
	var errs []error
	for _, rec := range owed {
		if err := o.Send(ctx, rec); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

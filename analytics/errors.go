package analytics

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// ErrPermanent marks a Sink.Write error that no retry can cure: the batch
// holds data the store will never take. Every other error is retryable
// (the store is down, the network failed, a timeout expired), so an error
// a sink does not classify is retried rather than dropped. On a permanent
// error the processor isolates the offending events by writing halves of
// the batch, sets each one aside as a dead letter and moves on.
var ErrPermanent = errors.New("permanent write error")

// Permanent wraps err so that IsPermanent reports it; nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %w", ErrPermanent, err)
}

// IsPermanent reports whether err says that retrying the write is useless.
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }

// Oldest and Newest bound the event times an analytical store holds: its
// rollups are by minute from the Unix epoch and ClickHouse 18.16's
// DateTime, by which its tables are partitioned, ends early in 2106.
var (
	Oldest = time.Unix(0, 0).UTC()
	Newest = time.Unix(1<<32-1, 0).UTC()
)

// CheckEvent returns a permanent error when an event cannot be stored
// whatever the store's state: every event needs an organization, a model
// and an id (replays are deduplicated by it), and a time in [Oldest,
// Newest]. The ingest API never logs such an event; a foreign producer or
// a corrupted log can.
func CheckEvent(orgID, modelID, eventID string, ts time.Time) error {
	switch {
	case orgID == "":
		return Permanent(errors.New("event without an organization"))
	case modelID == "":
		return Permanent(errors.New("event without a model"))
	case eventID == "":
		return Permanent(errors.New("event without an id"))
	case ts.Before(Oldest) || ts.After(Newest):
		return Permanent(fmt.Errorf("event time %s outside [%s, %s]", ts.Format(time.RFC3339), Oldest.Format(time.RFC3339), Newest.Format(time.RFC3339)))
	}
	return nil
}

// CheckBatch returns CheckEvent's error for the first event of b that no
// store can hold, nil when there is none. Sinks call it before writing.
func CheckBatch(b Batch) error {
	for _, e := range b.Predictions {
		if err := CheckEvent(e.OrgID, e.ModelID, e.PredictionID, e.Timestamp); err != nil {
			return err
		}
	}
	for _, e := range b.Metrics {
		if err := CheckEvent(e.OrgID, e.ModelID, e.ID, e.Timestamp); err != nil {
			return err
		}
	}
	for _, e := range b.Completions {
		if err := CheckEvent(e.OrgID, e.ModelID, e.ID, e.Timestamp); err != nil {
			return err
		}
	}
	return nil
}

// Unencodable reports whether err comes from encoding an event as JSON
// (a value JSON has no spelling for, such as NaN): a permanent refusal,
// which sinks wrap with Permanent.
func Unencodable(err error) bool {
	var v *json.UnsupportedValueError
	var ty *json.UnsupportedTypeError
	return errors.As(err, &v) || errors.As(err, &ty)
}

// WriteChecked is a Sink's Write around the engine's own write: CheckBatch
// first, then write, whose error is wrapped with Permanent when refused
// says the batch's data is at fault, and left retryable otherwise.
func WriteChecked(ctx context.Context, b Batch, write func(context.Context, Batch) error, refused func(error) bool) error {
	if err := CheckBatch(b); err != nil {
		return err
	}
	if err := write(ctx, b); err != nil {
		if refused(err) {
			return Permanent(err)
		}
		return err
	}
	return nil
}

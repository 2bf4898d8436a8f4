package eventlog

import (
	"context"
	"errors"
)

// Kinds of event, each its own topic of the log.
const (
	KindPrediction = "predictions"
	KindMetric     = "metrics"
	KindCompletion = "completions"
	// KindGovernance carries governance events (governance.Event) from the
	// processors to the risk register; the processors themselves skip it.
	KindGovernance = "governance"
)

// Kinds lists every kind of event.
var Kinds = []string{KindPrediction, KindMetric, KindCompletion, KindGovernance}

// Record is one event on its way into the log.
type Record struct {
	// Kind is the event's kind, one of Kinds: its topic.
	Kind string
	// Key keeps one model's events in order: organization id, "/", model id.
	Key string
	// Value is the encoded event. It carries the event's id, by which the
	// processors store a record appended twice only once.
	Value []byte
}

// ErrUnavailable reports that the log cannot take records now: nothing of
// the failed Append was acknowledged, and retrying later may succeed. The
// API answers 503 with Retry-After.
var ErrUnavailable = errors.New("event log unavailable")

// Log is the durable event log between the ingest endpoints and the
// processors: Kafka (eventlog/kafka) or the embedded log (eventlog/embeddedlog).
type Log interface {
	// Append writes recs and returns nil only once every one of them is
	// durable: acknowledged by every in-sync replica (Kafka, acks=all,
	// idempotent producer) or fsynced (embedded). On error some records
	// may have been written; the caller acknowledges none, the client
	// retries, and the processors drop the duplicates by event id.
	Append(ctx context.Context, recs []Record) error
}

package analytics

import (
	"context"
	"time"
)

// DeadLetter is an event the analytical store refused for good, set aside
// so that the log keeps moving. It belongs to the event's organization and
// keeps the event as logged, so that an operator can count, inspect and
// replay it. Each analytical store keeps them in its dead_letters table;
// GET /api/v1/dead-letters lists an organization's (predictions:read),
// and vigil_processor_dead_letters_total counts them.
type DeadLetter struct {
	OrgID   string
	Kind    string // one of eventlog.Kinds
	ModelID string
	EventID string
	// Event is the event as JSON, as the log carried it.
	Event []byte
	// Reason is the store's error.
	Reason   string
	FailedAt time.Time
}

// DeadLetters is where refused events go. SetAside is idempotent: a dead
// letter set aside again (a replay after a crash) is kept once, by
// organization, kind, model and event id. Durable before nil; an error is
// retried like a failed write.
type DeadLetters interface {
	SetAside(ctx context.Context, dls []DeadLetter) error
}

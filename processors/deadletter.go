package processors

import (
	"context"
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/eventlog"
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

// deadLetters turns the events of b into dead letters refused for reason.
func (b Batch) deadLetters(reason string, at time.Time) []DeadLetter {
	var out []DeadLetter
	add := func(kind, org, model, id string, e any) {
		j, err := json.Marshal(e)
		if err != nil {
			// What does not encode is what the store refused: keep
			// the reason, and the event as far as it goes.
			j = []byte("null")
		}
		out = append(out, DeadLetter{OrgID: org, Kind: kind, ModelID: model, EventID: id, Event: j, Reason: reason, FailedAt: at})
	}
	for _, e := range b.Predictions {
		add(eventlog.KindPrediction, e.OrgID, e.ModelID, e.PredictionID, e)
	}
	for _, e := range b.Metrics {
		add(eventlog.KindMetric, e.OrgID, e.ModelID, e.ID, e)
	}
	for _, e := range b.Completions {
		add(eventlog.KindCompletion, e.OrgID, e.ModelID, e.ID, e)
	}
	return out
}

// split cuts b into two halves of (almost) equal length, keeping the
// order of events within each kind.
func (b Batch) split() (first, second Batch) {
	n := b.Len() / 2
	first.Predictions, second.Predictions, n = cut(b.Predictions, n)
	first.Metrics, second.Metrics, n = cut(b.Metrics, n)
	first.Completions, second.Completions, _ = cut(b.Completions, n)
	first.Positions, second.Positions = b.Positions, b.Positions
	return first, second
}

// cut takes up to n events off the front of es and returns what is left
// of n.
func cut[E any](es []E, n int) (head, tail []E, left int) {
	k := min(n, len(es))
	return es[:k:k], es[k:], n - k
}

package processors

import (
	"encoding/json"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// deadLetters turns the events of b into dead letters refused for reason.
func deadLetters(b analytics.Batch, reason string, at time.Time) []analytics.DeadLetter {
	var out []analytics.DeadLetter
	add := func(kind, org, model, id string, e any) {
		j, err := json.Marshal(e)
		if err != nil {
			// What does not encode is what the store refused: keep
			// the reason, and the event as far as it goes.
			j = []byte("null")
		}
		out = append(out, analytics.DeadLetter{OrgID: org, Kind: kind, ModelID: model, EventID: id, Event: j, Reason: reason, FailedAt: at})
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
func split(b analytics.Batch) (first, second analytics.Batch) {
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

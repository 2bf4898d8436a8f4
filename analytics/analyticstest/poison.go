package analyticstest

import (
	"context"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// testRefused: events no store can hold fail the write with a permanent
// error, and store nothing.
func testRefused(t *testing.T, s Store) {
	for _, c := range []struct {
		name string
		bad  func(p *eventlog.Prediction)
	}{
		{"time past the store's range", func(p *eventlog.Prediction) { p.Timestamp = analytics.Newest.Add(time.Hour) }},
		{"time before 1970", func(p *eventlog.Prediction) { p.Timestamp = time.Time{} }},
		{"no id", func(p *eventlog.Prediction) { p.PredictionID = "" }},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := Prediction("o1", "m1", 1, 1)
			c.bad(&p)
			err := s.Write(context.Background(), analytics.Batch{Predictions: []eventlog.Prediction{Prediction("o1", "m1", 2, 1), p}})
			if !analytics.IsPermanent(err) {
				t.Fatalf("Write: got %v, want a permanent error", err)
			}
		})
	}
	if st := Stats(t, s, "o1", "m1"); st.TotalPredictions != 0 {
		t.Fatalf("got %d predictions counted after refused writes, want 0", st.TotalPredictions)
	}
}

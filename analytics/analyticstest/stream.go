package analyticstest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// ids ranges over seq and returns the prediction ids in order, failing
// the test on an error.
func ids(t *testing.T, s Store, f analytics.PredictionFilter) []string {
	t.Helper()
	var got []string
	for p, err := range s.EachPrediction(context.Background(), f) {
		if err != nil {
			t.Fatalf("EachPrediction(%+v): %v", f, err)
		}
		if p.OrgID != f.OrgID {
			t.Fatalf("got a prediction of organization %q, want %q", p.OrgID, f.OrgID)
		}
		got = append(got, p.PredictionID)
	}
	return got
}

// testStream writes predictions with replays and client retries, and
// another model's and organization's: the stream yields each of the
// model's once, in the order asked for, with no limit unless one is set,
// and exactly what Predictions returns.
func testStream(t *testing.T, s Store) {
	var ps, retries []eventlog.Prediction
	for i := range 1500 { // 25 minutes
		ps = append(ps, Prediction("o1", "m1", i, float64(i%7)))
		if i%10 == 0 {
			r := ps[i]
			r.Timestamp = r.Timestamp.Add(time.Hour)
			retries = append(retries, r)
		}
	}
	for lo := 0; lo < len(ps); lo += 500 {
		write(t, s, ps[lo:lo+500]...)
	}
	write(t, s, ps[100:700]...)
	write(t, s, retries...)
	write(t, s, Prediction("o1", "m2", 5, 1), Prediction("o2", "m1", 5, 1))

	var want []string
	for _, p := range ps {
		want = append(want, p.PredictionID)
	}
	all := analytics.PredictionFilter{OrgID: "o1", ModelID: "m1", Oldest: true}
	if got := ids(t, s, all); !slices.Equal(got, want) {
		t.Fatalf("got %d predictions oldest first (first %v), want each of the 1500 once in order", len(got), got[:min(len(got), 3)])
	}
	slices.Reverse(want)
	if got := ids(t, s, analytics.PredictionFilter{OrgID: "o1", ModelID: "m1"}); !slices.Equal(got, want) {
		t.Fatalf("got %d predictions newest first, want each of the 1500 once in order", len(got))
	}
	if got := ids(t, s, analytics.PredictionFilter{OrgID: "o1"}); len(got) != 1501 {
		t.Fatalf("got %d predictions of o1's models, want 1501", len(got))
	}

	page := analytics.PredictionFilter{OrgID: "o1", ModelID: "m1", Limit: 5, Offset: 10,
		Range: analytics.Range{From: base.Add(time.Minute), To: base.Add(2 * time.Minute)}}
	listed, err := s.Predictions(context.Background(), page)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range listed {
		got = append(got, p.PredictionID)
	}
	if want := []string{"p0109", "p0108", "p0107", "p0106", "p0105"}; !slices.Equal(got, want) || !slices.Equal(ids(t, s, page), want) {
		t.Fatalf("got page %v from Predictions and %v streamed, want %v from both", got, ids(t, s, page), want)
	}
	page.Oldest = true
	if got, want := ids(t, s, page), []string{"p0070", "p0071", "p0072", "p0073", "p0074"}; !slices.Equal(got, want) {
		t.Fatalf("got page %v oldest first, want %v", got, want)
	}
}

// testStreamStopsEarly stops ranging after a few predictions, more times
// than a store's pool has connections: each stop releases the read, and
// the store goes on answering.
func testStreamStopsEarly(t *testing.T, s Store) {
	var ps []eventlog.Prediction
	for i := range 100 {
		ps = append(ps, Prediction("o1", "m1", i, 1))
	}
	write(t, s, ps...)
	for round := range 20 {
		n := 0
		for _, err := range s.EachPrediction(context.Background(), analytics.PredictionFilter{OrgID: "o1"}) {
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			if n++; n == 3 {
				break
			}
		}
	}
	write(t, s, Prediction("o1", "m1", 100, 1))
	if got := ids(t, s, analytics.PredictionFilter{OrgID: "o1", Limit: 1}); fmt.Sprint(got) != "[p0100]" {
		t.Fatalf("got %v after the early stops, want [p0100]", got)
	}
}

// testStreamCancelled: a cancelled context ends the stream with an error
// rather than silently yielding nothing.
func testStreamCancelled(t *testing.T, s Store) {
	write(t, s, Prediction("o1", "m1", 1, 1))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var failed bool
	for _, err := range s.EachPrediction(ctx, analytics.PredictionFilter{OrgID: "o1"}) {
		failed = failed || err != nil
	}
	if !failed {
		t.Fatal("got no error from a cancelled stream, want one")
	}
}

package analyticstest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// testWindowBoundaries puts predictions exactly on both ends of a range
// and a microsecond either side: every read of rows (a page, the stream,
// newest and oldest first) keeps [From, To), the row at From and not the
// one at To. Times are compared to the microsecond, as they are stored:
// digits below it, in the rows and in the range, are dropped.
func testWindowBoundaries(t *testing.T, s Store) {
	from := base.Add(10*time.Minute + 123456*time.Microsecond)
	to := from.Add(5 * time.Minute)
	at := map[string]time.Time{
		"before-start": from.Add(-time.Microsecond), "start": from, "after-start": from.Add(time.Microsecond),
		"before-end": to.Add(-time.Microsecond), "end": to, "after-end": to.Add(time.Microsecond),
		"start+999ns": from.Add(999 * time.Nanosecond), // stored as the start's microsecond
	}
	var ps []eventlog.Prediction
	for id, ts := range at {
		p := Prediction("o1", "m1", 0, 1)
		p.PredictionID, p.Timestamp = id, ts
		ps = append(ps, p)
	}
	write(t, s, ps...)
	f := func(r analytics.Range, want ...string) {
		t.Helper()
		slices.Sort(want)
		for _, oldest := range []bool{false, true} {
			filter := analytics.PredictionFilter{OrgID: "o1", ModelID: "m1", Range: r, Oldest: oldest}
			streamed := ids(t, s, filter)
			page, err := s.Predictions(context.Background(), filter)
			if err != nil {
				t.Fatalf("Predictions: %v", err)
			}
			var paged []string
			for _, p := range page {
				paged = append(paged, p.PredictionID)
			}
			for name, got := range map[string][]string{"stream": streamed, "page": paged} {
				if slices.Sort(got); !slices.Equal(got, want) {
					t.Errorf("[%v, %v) %s, oldest %v: got %v, want %v", r.From, r.To, name, oldest, got, want)
				}
			}
		}
	}
	f(analytics.Range{From: from, To: to}, "start", "start+999ns", "after-start", "before-end")
	f(analytics.Range{From: from.Add(time.Microsecond), To: to.Add(time.Microsecond)}, "after-start", "before-end", "end")
	f(analytics.Range{From: from.Add(-time.Microsecond), To: from}, "before-start")
	f(analytics.Range{From: from.Add(500 * time.Nanosecond), To: to.Add(500 * time.Nanosecond)}, "start", "start+999ns", "after-start", "before-end")
	f(analytics.Range{From: from}, "start", "start+999ns", "after-start", "before-end", "end", "after-end")
	f(analytics.Range{To: from}, "before-start")
}

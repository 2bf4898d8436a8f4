package analyticstest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
)

// testStatsByModel: one read summarises the predictions of several models
// (latencies, percentiles, outputs) over ranges that start and end
// anywhere, equal to PredictionStats model by model, with batches
// replayed; a model without predictions has the empty summary, another
// organization's predictions and a model not asked for are absent.
func testStatsByModel(t *testing.T, s Store) {
	spreadOverHours(t, s, 3, "s")
	models := []string{"m1", "m2", "m4"}
	f := func(from, to time.Time) {
		t.Helper()
		rg := analytics.Range{From: from, To: to}
		got, err := s.PredictionStatsByModel(context.Background(), "o1", models, rg)
		if err != nil {
			t.Fatalf("PredictionStatsByModel(%v, %v): %v", from, to, err)
		}
		want := map[string]analytics.PredictionStats{}
		for _, m := range models {
			if want[m], err = s.PredictionStats(context.Background(), "o1", m, rg); err != nil {
				t.Fatalf("PredictionStats(%s, %v, %v): %v", m, from, to, err)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("[%v, %v): got stats %+v, want %+v", from, to, got, want)
		}
	}
	f(base, base.Add(4*time.Hour))
	f(base.Add(17*time.Minute), base.Add(3*time.Hour+41*time.Minute))
	f(base.Add(5*time.Minute), base.Add(6*time.Minute))
	f(base.Add(5*time.Hour), base.Add(6*time.Hour))
	got, err := s.PredictionStatsByModel(context.Background(), "o1", nil, analytics.Range{From: base, To: base.Add(time.Hour)})
	if err != nil || len(got) != 0 {
		t.Fatalf("PredictionStatsByModel of no model: got %v, %v, want none", got, err)
	}
	all, err := s.PredictionStatsByModel(context.Background(), "o1", []string{"m1", "m2", "m3"}, analytics.Range{From: base, To: base.Add(4 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if n := all["m1"].TotalPredictions + all["m2"].TotalPredictions + all["m3"].TotalPredictions; n != 810 {
		t.Fatalf("got %d predictions of o1 over the whole range, want 810", n)
	}
}

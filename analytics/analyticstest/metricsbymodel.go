package analyticstest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// testMetricsByModel: one read summarises one metric type of several
// models over ranges that start and end anywhere, equal to MetricSeries
// model by model over one bucket, with batches replayed; a model without
// values, another type, another organization and a model not asked for
// are absent.
func testMetricsByModel(t *testing.T, s Store) {
	var ms []eventlog.Metric
	for i := range 300 { // m1 and m2 alternate, one value a minute over five hours
		model := []string{"m1", "m2"}[i%2]
		ms = append(ms, metric("o1", model, "accuracy", i, time.Duration(i)*time.Minute, float64(i%97)/4)) // quarters: sums exact in any order
	}
	others := []eventlog.Metric{metric("o1", "m1", "f1", 0, 0, 1000), metric("o1", "m3", "accuracy", 0, 0, 1000),
		metric("o2", "m1", "accuracy", 0, 0, 1000)}
	for _, b := range [][]eventlog.Metric{append(ms[:150:150], others...), ms[100:], ms[:20]} {
		if err := s.Write(context.Background(), analytics.Batch{Metrics: b}); err != nil {
			t.Fatalf("Write: %v", err)
		}
	}
	models := []string{"m1", "m2", "m4"}
	f := func(from, to time.Time) {
		t.Helper()
		rg := analytics.Range{From: from, To: to}
		got, err := s.MetricSummariesByModel(context.Background(), "o1", "accuracy", models, rg)
		if err != nil {
			t.Fatalf("MetricSummariesByModel(%v, %v): %v", from, to, err)
		}
		want := map[string]analytics.Summary{}
		for _, m := range models {
			sums, err := s.MetricSeries(context.Background(), analytics.MetricFilter{OrgID: "o1", ModelID: m, MetricType: "accuracy", Range: rg},
				analytics.Buckets{Range: rg})
			if err != nil {
				t.Fatalf("MetricSeries(%s): %v", m, err)
			}
			if len(sums) > 0 {
				want[m] = sums[0]
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("[%v, %v): got %+v, want %+v", from, to, got, want)
		}
	}
	f(base, base.Add(5*time.Hour))
	f(base.Add(17*time.Minute), base.Add(3*time.Hour+41*time.Minute))
	f(base.Add(5*time.Minute), base.Add(6*time.Minute))
	f(base.Add(6*time.Hour), base.Add(7*time.Hour))
	if got, err := s.MetricSummariesByModel(context.Background(), "o1", "accuracy", nil, analytics.Range{From: base, To: base.Add(time.Hour)}); err != nil || len(got) != 0 {
		t.Fatalf("MetricSummariesByModel of no model: got %v, %v, want none", got, err)
	}
}

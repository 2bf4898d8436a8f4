package alerts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
)

// observed is what a test store holds for model m of organization o in
// the hour before end, and the value each metric of the catalogue reads
// from it (nil: no value). Another organization's prediction and events
// after end count nowhere. drift_score and fairness_score have no
// Findings here and observe no value; their values are tested with the
// transactional stores in processors/alerting.
var observed = map[string]*float64{
	"prediction_count":   num(3),
	"latency_avg_ms":     num(30),
	"latency_p50_ms":     num(20),
	"latency_p95_ms":     num(56),   // linear between the ranks: 20 + 0.9·40
	"latency_p99_ms":     num(59.2), // 20 + 0.98·40
	"metric:accuracy":    num(0.85),
	"metric:f1":          nil,
	"drift_score":        nil,
	"drift_score:age":    nil,
	"fairness_score":     nil,
	"llm_completions":    num(2),
	"llm_cost":           num(0.75),
	"llm_tokens":         num(150),
	"llm_latency_avg_ms": num(100),
	"dead_letters":       num(2),
	"toxicity_rate":      nil,
}

func num(v float64) *float64 { return &v }

// TestObserveCatalogue observes every metric of the catalogue from a real
// (SQLite) analytical store: over the hour the events were logged in, each
// reads its value; over the hour before, each reads what its entry's
// empty_window says.
func TestObserveCatalogue(t *testing.T) {
	end := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	st := observedStore(t, end.Add(-30*time.Minute))
	f := func(name string, end time.Time, want *float64) {
		t.Helper()
		rule := alerts.Rule{Conditions: []alerts.Condition{{MetricName: name, Operator: "gte", Threshold: 0, WindowMinutes: 60}}}
		obs, _, err := alerts.Observe(context.Background(), st, rule, "o", "m", end)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := obs[0].Value
		if (got == nil) != (want == nil) || got != nil && math.Abs(*got-*want) > 1e-9 {
			t.Errorf("%s at %s: got %s, want %s", name, end.Format(time.TimeOnly), show(got), show(want))
		}
	}
	for _, m := range alerts.Catalogue {
		name := m.Name
		switch name {
		case alerts.MetricPrefix:
			name += "accuracy"
		case alerts.DriftFeaturePrefix:
			name += "age"
		}
		want, ok := observed[name]
		if !ok {
			t.Errorf("%s: the test observes no value of it: add it to observed", name)
			continue
		}
		f(name, end, want)
		f(name, end.Add(-time.Hour), map[string]*float64{"zero": num(0), "no value": nil}[m.Empty])
	}
	f("metric:f1", end, observed["metric:f1"])
}

// observedStore is a SQLite analytical store holding, at the time at, the
// events that observed's values are read from.
func observedStore(t *testing.T, at time.Time) *sqlite.Store {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	var b analytics.Batch
	prediction := func(org, id string, latency float64, at time.Time) {
		b.Predictions = append(b.Predictions, eventlog.Prediction{OrgID: org, ModelID: "m", PredictionID: id,
			InputData: json.RawMessage(`{}`), OutputData: json.RawMessage(`{}`), Metadata: json.RawMessage(`{}`),
			LatencyMS: &latency, Timestamp: at})
	}
	for i, l := range []float64{10, 20, 60} {
		prediction("o", fmt.Sprint("p", i), l, at)
	}
	prediction("other", "p0", 1000, at)
	prediction("o", "late", 1000, at.Add(time.Hour))
	for i, v := range []float64{0.8, 0.9} {
		b.Metrics = append(b.Metrics, eventlog.Metric{OrgID: "o", ModelID: "m", ID: fmt.Sprint("a", i),
			MetricType: "accuracy", Value: v, Metadata: map[string]any{}, Timestamp: at})
	}
	b.Completions = []eventlog.Completion{
		{OrgID: "o", ModelID: "m", ID: "c0", Provider: "p", ModelName: "n", Tokens: eventlog.Tokens{TotalTokens: 100},
			LatencyMS: num(100), Cost: 0.5, Metadata: map[string]any{}, Timestamp: at},
		{OrgID: "o", ModelID: "m", ID: "c1", Provider: "p", ModelName: "n", Tokens: eventlog.Tokens{TotalTokens: 50},
			Cost: 0.25, Metadata: map[string]any{}, Timestamp: at},
	}
	if err := st.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	var dls []analytics.DeadLetter
	for i, failed := range []time.Time{at, at, at.Add(time.Hour)} {
		dls = append(dls, analytics.DeadLetter{OrgID: "o", Kind: "prediction", ModelID: "m", EventID: fmt.Sprint("d", i),
			Event: []byte(`{}`), Reason: "refused", FailedAt: failed})
	}
	if err := st.SetAside(ctx, dls); err != nil {
		t.Fatal(err)
	}
	return st
}

func show(v *float64) string {
	if v == nil {
		return "no value"
	}
	return fmt.Sprint(*v)
}

// TestPredictionMetric: the metrics read from the prediction summary,
// which an evaluation reads for many models at once, are those the
// catalogue reads from it.
func TestPredictionMetric(t *testing.T) {
	for name, want := range map[string]bool{"prediction_count": true, "latency_avg_ms": true, "latency_p99_ms": true,
		"metric:accuracy": false, "llm_latency_avg_ms": false, "drift_score": false, "dead_letters": false, "latency_p42_ms": false} {
		if got := alerts.PredictionMetric(name); got != want {
			t.Errorf("PredictionMetric(%q): got %v, want %v", name, got, want)
		}
	}
}

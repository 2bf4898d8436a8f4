package schedule

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
)

// fakeMetrics holds logged values of one metric type: before is the
// value of every hour in the first 24 hours from t0's hour, after of
// every later one.
type fakeMetrics struct {
	metric        string
	before, after float64
}

func (f fakeMetrics) MetricSeries(_ context.Context, flt analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error) {
	var sum analytics.Summary
	if flt.MetricType != f.metric {
		return nil, nil
	}
	start := t0.Truncate(time.Hour)
	for h := b.Range.From; h.Before(b.Range.To) && h.Before(start.Add(27*time.Hour)); h = h.Add(time.Hour) {
		v := f.before
		if !h.Before(start.Add(24 * time.Hour)) {
			v = f.after
		}
		sum.Count++
		sum.Sum += v
	}
	if sum.Count == 0 {
		return nil, nil
	}
	return []analytics.Summary{sum}, nil
}

// configStore is fakeStore with a configuration on file.
type configStore struct {
	fakeStore
	cfg drift.Config
}

func (c *configStore) DriftConfig(context.Context, string, string) (drift.Config, error) {
	return c.cfg, nil
}

func TestConcept(t *testing.T) {
	f := func(name string, change func(*drift.Config), baseline map[string]float64, metrics Metrics, want *drift.Concept) {
		t.Helper()
		cfg := drift.Default("o", "m")
		change(&cfg)
		st := &configStore{fakeStore: fakeStore{baseline: baseline}, cfg: cfg}
		s := &Scheduler{Store: st, Profiles: fakeProfiles{n: 60}, Metrics: metrics, Log: &fakeLog{},
			Clock: func() time.Time { return t0.Add(25 * time.Hour) }}
		got, err := s.RunOnce(context.Background())
		if err != nil {
			t.Fatalf("%s: RunOnce: %v", name, err)
		}
		var c *drift.Concept
		for _, r := range got {
			if r.DriftType == drift.TypeConcept {
				c = r.Concept
				if r.OverallDriftScore != c.Degradation || r.Severity != c.Severity || r.DriftDetected != c.DriftDetected {
					t.Errorf("%s: got report score %v, severity %s, detected %v; want the concept's %+v", name, r.OverallDriftScore, r.Severity, r.DriftDetected, c)
				}
			}
		}
		switch {
		case want == nil && c != nil:
			t.Fatalf("%s: got concept %+v, want no concept report", name, c)
		case want == nil:
			return
		case c == nil:
			t.Fatalf("%s: got no concept report, want %+v", name, want)
		}
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }
		if c.Metric != want.Metric || c.Current.Source != want.Current.Source || c.Baseline.Source != want.Baseline.Source ||
			c.Current.Samples != want.Current.Samples || !near(c.Current.Value, want.Current.Value) ||
			!near(c.Baseline.Value, want.Baseline.Value) || !near(c.Degradation, want.Degradation) ||
			c.DriftDetected != want.DriftDetected || c.Severity != want.Severity {
			t.Errorf("%s: got %+v, want %+v", name, *c, *want)
		}
	}
	same := func(*drift.Config) {}
	metric := func(m string) func(*drift.Config) {
		return func(c *drift.Config) {
			c.ConceptDrift.Metric, c.ConceptDrift.HigherIsBetter = m, ptr(drift.HigherIsBetter(m))
		}
	}
	fig := func(v float64, source string, n int64) drift.Figure {
		return drift.Figure{Value: v, Source: source, Samples: n}
	}
	// The window is the 2 hours after the reference: 120 labelled rows.
	f("labels against the reference window", same, nil, nil, &drift.Concept{Metric: "accuracy",
		Current: fig(0.5, drift.SourceLabels, 120), Baseline: fig(0.9, drift.SourceLabels, 1440),
		Degradation: 0.4 / 0.9, DriftDetected: true, Severity: drift.High})
	f("baseline_metrics first", same, map[string]float64{"accuracy": 0.52}, nil, &drift.Concept{Metric: "accuracy",
		Current: fig(0.5, drift.SourceLabels, 120), Baseline: fig(0.52, drift.SourceBaseline, 0),
		Degradation: 0.02 / 0.52, Severity: drift.Low})
	f("lower is better", metric("rmse"), nil, nil, &drift.Concept{Metric: "rmse",
		Current: fig(math.Sqrt(0.5), drift.SourceLabels, 120), Baseline: fig(math.Sqrt(0.1), drift.SourceLabels, 1440),
		Degradation: math.Sqrt(5) - 1, DriftDetected: true, Severity: drift.High})
	f("f1 from labels", metric("f1_score"), nil, nil, &drift.Concept{Metric: "f1_score",
		Current: fig(2.0/3, drift.SourceLabels, 120), Baseline: fig(2592.0/2736, drift.SourceLabels, 1440),
		Degradation: 1 - (2.0/3)/(2592.0/2736), DriftDetected: true, Severity: drift.Medium})
	f("logged metric values", metric("auc"), nil, fakeMetrics{"auc", 0.8, 0.7}, &drift.Concept{Metric: "auc",
		Current: fig(0.7, drift.SourceMetrics, 2), Baseline: fig(0.8, drift.SourceMetrics, 24),
		Degradation: 0.125, DriftDetected: true, Severity: drift.Medium})
	f("too few labels, logged values instead", func(c *drift.Config) { c.ConceptDrift.MinSamples = 1000 }, nil,
		fakeMetrics{"accuracy", 0.9, 0.9}, &drift.Concept{Metric: "accuracy",
			Current: fig(0.9, drift.SourceMetrics, 2), Baseline: fig(0.9, drift.SourceMetrics, 24), Severity: drift.Low})
	f("neither labels nor values", metric("auc"), nil, fakeMetrics{"r2", 0.8, 0.7}, nil)
	f("off", func(c *drift.Config) { c.ConceptDrift.Enabled = false }, nil, nil, nil)
}

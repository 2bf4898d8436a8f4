package schedule

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
	"github.com/vigilhq/vigil/stats/profile"
)

// Metrics reads the metric values logged with POST /metrics: the
// analytical store (analytics.Series).
type Metrics interface {
	// MetricSeries summarises f's values bucket by bucket.
	MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error)
}

// concept writes the concept report of plan (drift.ConceptDriftConfig
// says where its figures come from); nil, with the reason logged, when
// the metric cannot be had.
func (s *Scheduler) concept(ctx context.Context, d drift.Due, cfg drift.Config, plan Plan, now time.Time) (*drift.Report, error) {
	cc := cfg.ConceptDrift
	window, err := plan.ConceptWindow(cc)
	if err != nil {
		s.skip(d, drift.TypeConcept, err.Error())
		return nil, nil
	}
	cur, ok, err := s.figure(ctx, d, cc, window, "")
	if err != nil {
		return nil, err
	}
	if !ok {
		s.skip(d, drift.TypeConcept, fmt.Sprintf("no %s in the window: fewer than %d labelled predictions and no logged values", cc.Metric, cc.MinSamples))
		return nil, nil
	}
	base, ok, err := s.baseline(ctx, d, cc, plan, cur.Source)
	if err != nil {
		return nil, err
	}
	if !ok {
		s.skip(d, drift.TypeConcept, fmt.Sprintf("no baseline of %s: not in the model's baseline_metrics, and not in the reference window from %s", cc.Metric, cur.Source))
		return nil, nil
	}
	c, err := drift.JudgeConcept(cc.Metric, *cc.HigherIsBetter, cur, base, cfg.Thresholds)
	if err != nil {
		s.skip(d, drift.TypeConcept, err.Error())
		return nil, nil
	}
	r := newReport(d, drift.TypeConcept, plan, now)
	r.WindowStart = window.From
	r.DriftDetected, r.OverallDriftScore, r.Severity, r.Concept = c.DriftDetected, c.Degradation, c.Severity, &c
	return s.write(ctx, r)
}

// figure computes the metric over r: from labelled predictions when the
// metric is one profile.Quality computes and r holds at least MinSamples
// of them, else as the mean of the logged values; only from source when
// source is set. ok is false when neither has enough.
func (s *Scheduler) figure(ctx context.Context, d drift.Due, cc drift.ConceptDriftConfig, r analytics.Range, source string) (drift.Figure, bool, error) {
	if (source == "" || source == drift.SourceLabels) && slices.Contains(profile.QualityMetrics, cc.Metric) {
		p, err := s.Profiles.MergedProfile(ctx, d.OrgID, d.ModelID, analytics.SideOutput, r)
		if err != nil {
			return drift.Figure{}, false, err
		}
		if v, n, ok := p.Quality.Metric(cc.Metric); ok && n >= int64(cc.MinSamples) {
			return drift.Figure{Value: v, Source: drift.SourceLabels, Samples: n}, true, nil
		}
	}
	if (source == "" || source == drift.SourceMetrics) && s.Metrics != nil {
		sums, err := s.Metrics.MetricSeries(ctx, analytics.MetricFilter{OrgID: d.OrgID, ModelID: d.ModelID, MetricType: cc.Metric, Range: r},
			analytics.Buckets{Range: r})
		if err != nil {
			return drift.Figure{}, false, fmt.Errorf("read logged %s values: %w", cc.Metric, err)
		}
		var total analytics.Summary
		for _, b := range sums {
			total.Count += b.Count
			total.Sum += b.Sum
		}
		if total.Count > 0 {
			return drift.Figure{Value: total.Sum / float64(total.Count), Source: drift.SourceMetrics, Samples: total.Count}, true, nil
		}
	}
	return drift.Figure{}, false, nil
}

// baseline is the model's baseline_metrics value of the metric, else the
// figure over a reference window from the current figure's source (an
// uploaded reference has no labels or metric values).
func (s *Scheduler) baseline(ctx context.Context, d drift.Due, cc drift.ConceptDriftConfig, plan Plan, source string) (drift.Figure, bool, error) {
	m, err := s.Store.Model(ctx, d.OrgID, d.ModelID)
	if err != nil {
		return drift.Figure{}, false, fmt.Errorf("read model: %w", err)
	}
	if v, ok := m.BaselineMetrics[cc.Metric]; ok {
		return drift.Figure{Value: v, Source: drift.SourceBaseline}, true, nil
	}
	if plan.Uploaded != nil {
		return drift.Figure{}, false, nil
	}
	return s.figure(ctx, d, cc, plan.Reference, source)
}

package alerting_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/vigilhq/vigil/alerts"
	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/processors/alerting"
	"github.com/vigilhq/vigil/registry"
)

// countingReadings counts the prediction and metric reads an evaluation
// makes, model by model and batched.
type countingReadings struct {
	alerts.Readings
	byModel, batched             atomic.Int64
	metricByModel, metricBatched atomic.Int64
}

func (c *countingReadings) MetricSeries(ctx context.Context, f analytics.MetricFilter, b analytics.Buckets) ([]analytics.Summary, error) {
	c.metricByModel.Add(1)
	return c.Readings.MetricSeries(ctx, f, b)
}

func (c *countingReadings) MetricSummariesByModel(ctx context.Context, orgID, metricType string, modelIDs []string,
	r analytics.Range) (map[string]analytics.Summary, error) {
	c.metricBatched.Add(1)
	return c.Readings.(alerts.ReadingsByModel).MetricSummariesByModel(ctx, orgID, metricType, modelIDs, r)
}

func (c *countingReadings) PredictionStats(ctx context.Context, orgID, modelID string, r analytics.Range) (analytics.PredictionStats, error) {
	c.byModel.Add(1)
	return c.Readings.PredictionStats(ctx, orgID, modelID, r)
}

func (c *countingReadings) PredictionStatsByModel(ctx context.Context, orgID string, modelIDs []string,
	r analytics.Range) (map[string]analytics.PredictionStats, error) {
	c.batched.Add(1)
	return c.Readings.(alerts.ReadingsByModel).PredictionStatsByModel(ctx, orgID, modelIDs, r)
}

// TestBatchedTick: a tick over many models reads each window's prediction
// summaries in one read for all of them (none model by model), and writes
// more holding rules than one batch holds, each alert opened once.
func TestBatchedTick(t *testing.T) {
	const models, rulesPerModel, holdingPerModel = 22, 25, 24
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			ids := []string{f.model}
			for i := 1; i < models; i++ {
				id := uuid.NewString()
				if err := s.CreateModel(t.Context(), registry.Model{ID: id, OrgID: f.orgID, Name: fmt.Sprint("m", i), Version: "1",
					ModelType: "classification", Status: registry.StatusActive, CreatedAt: base, UpdatedAt: base}); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			for _, id := range ids {
				f.model = id
				f.log(0, 600, 700, 800)
				for k := range rulesPerModel {
					threshold := float64(3) // holds: 3 predictions
					if k >= holdingPerModel {
						threshold = 4
					}
					r := alerts.Rule{ID: uuid.NewString(), OrgID: f.orgID, Name: fmt.Sprint("r", k), AlertType: "performance", Severity: "high",
						ModelID: id, Enabled: true, CreatedAt: base, UpdatedAt: base,
						Conditions: []alerts.Condition{{MetricName: "prediction_count", Operator: "gte", Threshold: threshold, WindowMinutes: 1},
							{MetricName: "latency_p50_ms", Operator: "gt", Threshold: 500, WindowMinutes: 5}}}
					if err := s.CreateAlertRule(t.Context(), r); err != nil {
						t.Fatal(err)
					}
				}
			}
			if holding := models * holdingPerModel; holding <= alerting.FireBatch {
				t.Fatalf("the test holds %d pairs, want more than a batch (%d)", holding, alerting.FireBatch)
			}
			rd := &countingReadings{Readings: an}
			e := &alerting.Evaluator{Ledger: s, Readings: rd, Clock: f.clock}
			f.at(0)
			// The fixture's own rule watches every model (p95 over 500 with 3 or more predictions):
			// it holds on each, one more pair per model.
			got, err := e.RunOnce(t.Context())
			if err != nil {
				t.Fatalf("RunOnce: %v", err)
			}
			want := alerting.Result{Evaluated: models*rulesPerModel + models, Fired: models*holdingPerModel + models}
			if got != want {
				t.Fatalf("RunOnce: got %+v, want %+v", got, want)
			}
			if n := rd.byModel.Load(); n != 0 {
				t.Errorf("prediction reads model by model: got %d, want 0", n)
			}
			if n := rd.batched.Load(); n != 2 {
				t.Errorf("batched prediction reads: got %d, want 2 (one per window length)", n)
			}
			_, open, err := s.AlertInstances(t.Context(), f.orgID, alerts.InstanceFilter{Status: alerts.StatusOpen})
			if err != nil {
				t.Fatal(err)
			}
			if open != int64(want.Fired) {
				t.Errorf("open alerts: got %d, want %d", open, want.Fired)
			}
		})
	}
}

// TestBatchedMetricTick: metric:<type> conditions over many models read
// each type and window once for all of them, and hold on the models whose
// mean breaks the threshold alone.
func TestBatchedMetricTick(t *testing.T) {
	for _, eng := range engines {
		t.Run(eng.name, func(t *testing.T) {
			s, an := eng.open(t)
			f := newFixture(t, s, an)
			var b analytics.Batch
			for i := range 5 {
				id := uuid.NewString()
				if err := s.CreateModel(t.Context(), registry.Model{ID: id, OrgID: f.orgID, Name: fmt.Sprint("m", i), Version: "1",
					ModelType: "classification", Status: registry.StatusActive, CreatedAt: base, UpdatedAt: base}); err != nil {
					t.Fatal(err)
				}
				accuracy := 0.9
				if i >= 3 {
					accuracy = 0.3
				}
				for j := range 3 {
					b.Metrics = append(b.Metrics, eventlog.Metric{OrgID: f.orgID, ModelID: id, ID: fmt.Sprint(i, "-", j), MetricType: "accuracy",
						Value: accuracy + float64(j)/100, Metadata: map[string]any{}, Timestamp: base.Add(time.Duration(j) * time.Second)})
				}
				if err := s.CreateAlertRule(t.Context(), alerts.Rule{ID: uuid.NewString(), OrgID: f.orgID, Name: fmt.Sprint("accuracy ", i),
					AlertType: "performance", Severity: "high", ModelID: id, Enabled: true, CreatedAt: base, UpdatedAt: base,
					Conditions: []alerts.Condition{{MetricName: "metric:accuracy", Operator: "lt", Threshold: 0.5, WindowMinutes: 1}}}); err != nil {
					t.Fatal(err)
				}
			}
			if err := an.Write(t.Context(), b); err != nil {
				t.Fatal(err)
			}
			rd := &countingReadings{Readings: an}
			e := &alerting.Evaluator{Ledger: s, Readings: rd, Clock: f.clock}
			f.at(0)
			got, err := e.RunOnce(t.Context())
			if err != nil {
				t.Fatalf("RunOnce: %v", err)
			}
			// Six models (the fixture's own has no prediction), five metric rules, two of them holding.
			if want := (alerting.Result{Evaluated: 6 + 5, Fired: 2}); got != want {
				t.Fatalf("RunOnce: got %+v, want %+v", got, want)
			}
			if n, m := rd.metricByModel.Load(), rd.metricBatched.Load(); n != 0 || m != 1 {
				t.Errorf("metric reads: got %d model by model and %d batched, want 0 and 1", n, m)
			}
			list, _, err := s.AlertInstances(t.Context(), f.orgID, alerts.InstanceFilter{Status: alerts.StatusOpen})
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range list {
				if v := in.Observations[0].Value; v == nil || *v > 0.32 || *v < 0.30 {
					t.Errorf("alert %s: got observed accuracy %v, want the mean 0.31", in.ID, v)
				}
			}
		})
	}
}

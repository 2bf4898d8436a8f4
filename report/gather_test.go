package report_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/testenv"
	"github.com/vigilhq/vigil/report"
)

// analyticsStore is an engine as the test writes and Gather reads it.
type analyticsStore interface {
	analytics.Sink
	analytics.Store
}

// TestGather reads three days of predictions and accuracy values back
// from the rollups of each analytical engine, day by day; a source not
// given leaves its sections empty, saying so.
func TestGather(t *testing.T) {
	engines := map[string]func(t *testing.T) analyticsStore{
		"sqlite": func(t *testing.T) analyticsStore {
			s, err := sqlite.Open(context.Background(), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			return s
		},
		"clickhouse": func(t *testing.T) analyticsStore {
			conn, err := clickhouse.Open(testenv.ClickHouseDatabase(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close() })
			return clickhouse.New(conn)
		},
	}
	for name, open := range engines {
		t.Run(name, func(t *testing.T) {
			s := open(t)
			day0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
			var b analytics.Batch
			// Day i holds 10*(i+1) predictions at 01:00 + i minutes apart, day
			// 2 none of model m1 but one of another organization.
			for d := range 2 {
				for i := range 10 * (d + 1) {
					lat := float64(i)
					b.Predictions = append(b.Predictions, eventlog.Prediction{OrgID: "org", ModelID: "m1", PredictionID: fmt.Sprintf("p%d-%d", d, i),
						InputData: json.RawMessage(`{"x":1}`), OutputData: json.RawMessage(fmt.Sprintf(`{"label":"c%d"}`, i%2)), LatencyMS: &lat,
						Metadata: json.RawMessage(`{}`), Timestamp: day0.AddDate(0, 0, d).Add(time.Hour + time.Duration(i)*time.Minute)})
				}
				for i, v := range []float64{0.8, 0.9} {
					b.Metrics = append(b.Metrics, eventlog.Metric{OrgID: "org", ID: fmt.Sprintf("a%d-%d", d, i), ModelID: "m1", MetricType: report.MetricAccuracy,
						Value: v - 0.1*float64(d), Timestamp: day0.AddDate(0, 0, d).Add(3 * time.Hour)})
				}
			}
			b.Predictions = append(b.Predictions, eventlog.Prediction{OrgID: "other", ModelID: "m1", PredictionID: "x",
				InputData: json.RawMessage(`{}`), OutputData: json.RawMessage(`{}`), Metadata: json.RawMessage(`{}`), Timestamp: day0.AddDate(0, 0, 2)})
			if err := s.Write(context.Background(), b); err != nil {
				t.Fatal(err)
			}
			q := report.Request{OrgID: "org", Models: []report.Model{{ID: "m1", Name: "churn"}}, From: day0, To: day0.AddDate(0, 0, 2)}
			d, err := report.Gather(context.Background(), report.Sources{Analytics: s}, q)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []int64{10, 20, 0} {
				if got := d.Stats["m1"][i].TotalPredictions; got != want {
					t.Errorf("day %d: got %d predictions, want %d", i, got, want)
				}
			}
			acc := d.Metrics["m1"][report.MetricAccuracy]
			for i, want := range []float64{0.85, 0.75} {
				if acc[i] == nil || *acc[i] < want-1e-9 || *acc[i] > want+1e-9 {
					t.Errorf("day %d: got accuracy %v, want %v", i, acc[i], want)
				}
			}
			if acc[2] != nil {
				t.Errorf("day 2: got accuracy %v, want none", *acc[2])
			}
			r := report.Build(d, report.Spec{Title: "t", GeneratedAt: day0})
			for _, sec := range r.Sections {
				switch sec.ID {
				case report.SectionDailyMetrics:
					if sec.Empty || len(sec.Table.Rows) != 3 || sec.Table.Rows[1][2] != "20" || sec.Table.Rows[1][5] != "0.75" {
						t.Errorf("daily metrics: got %+v, want 3 days, 20 predictions and accuracy 0.75 on the second", sec.Table)
					}
				case report.SectionDistribution:
					if sec.Empty || len(sec.Chart.Labels) != 2 || *sec.Chart.Series[0].Values[0] != 15 {
						t.Errorf("distribution: got %+v, want c0 and c1 at 15 each", sec.Chart)
					}
				case report.SectionAlertHistory, report.SectionRiskRegister, report.SectionTrustScore, report.SectionDriftReports:
					if !sec.Empty || sec.Note == "" {
						t.Errorf("%s: got empty %v note %q, want empty: its store was not given", sec.ID, sec.Empty, sec.Note)
					}
				}
			}
		})
	}
}

// TestGatherBounds: a period runs 1 to MaxDays days over at most
// MaxModels models.
func TestGatherBounds(t *testing.T) {
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for _, to := range []time.Time{from.AddDate(0, 0, -1), from.AddDate(0, 0, report.MaxDays)} {
		if _, err := report.Gather(context.Background(), report.Sources{}, report.Request{OrgID: "org", From: from, To: to}); err == nil {
			t.Errorf("period %s to %s: got no error, want one", from, to)
		}
	}
	q := report.Request{OrgID: "org", From: from, To: from, Models: make([]report.Model, report.MaxModels+1)}
	if _, err := report.Gather(context.Background(), report.Sources{}, q); err == nil {
		t.Errorf("%d models: got no error, want one", len(q.Models))
	}
}

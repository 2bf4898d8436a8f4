package benchmarks

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/clickhouse"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/testenv"
)

// Stored predictions of BenchmarkStats: 10M of one model over 30 days
// from statsStart, written once through the processors' Sink and kept
// (SQLite under VIGIL_BENCH_DIR or ~/.cache/vigil-bench, ClickHouse in the
// database vigil_bench_10m) so that later runs measure reads only.
const (
	statsPredictions = 10_000_000
	statsDays        = 30
	statsOrg         = "bench-org"
	statsModel       = "bench-model"
)

var statsStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// statsStore is what BenchmarkStats reads and fills.
type statsStore interface {
	analytics.Store
	analytics.Sink
}

// BenchmarkStats measures GET .../stats' read, PredictionStats, over 10M
// stored predictions: over the last day of them (1,440 minute rollups,
// 333k predictions) and over all 30 days (43,200 minute rollups, 10M
// predictions); and the metric trend's read over 10M metric values by hour
// and by day. On SQLite and ClickHouse.
func BenchmarkStats(b *testing.B) {
	for _, s := range []struct {
		name string
		open func(b *testing.B) statsStore
	}{{"sqlite", openSQLiteStats}, {"clickhouse", openClickHouseStats}} {
		b.Run(s.name, func(b *testing.B) {
			st := s.open(b)
			fill(b, st)
			end := statsStart.Add(statsDays * 24 * time.Hour)
			for _, r := range []struct {
				name string
				from time.Time
			}{{"stats-1d", end.Add(-24 * time.Hour)}, {"stats-30d", statsStart}} {
				b.Run(r.name, func(b *testing.B) {
					for b.Loop() {
						got, err := st.PredictionStats(context.Background(), statsOrg, statsModel, analytics.Range{From: r.from, To: end})
						if err != nil || got.TotalPredictions == 0 || got.P99LatencyMS == nil {
							b.Fatalf("got %+v, %v; want predictions with a p99", got, err)
						}
					}
				})
			}
			all := analytics.Range{From: statsStart, To: end}
			for _, w := range []struct {
				name  string
				width time.Duration
			}{{"trend-30d-hourly", time.Hour}, {"trend-30d-daily", 24 * time.Hour}} {
				b.Run(w.name, func(b *testing.B) {
					f := analytics.MetricFilter{OrgID: statsOrg, ModelID: statsModel, MetricType: "accuracy", Range: all}
					for b.Loop() {
						got, err := st.MetricSeries(context.Background(), f, analytics.Buckets{Range: all, Width: w.width})
						if err != nil || len(got) != int(all.To.Sub(all.From)/w.width) {
							b.Fatalf("got %d buckets, %v; want every %v of 30 days", len(got), err, w.width)
						}
					}
				})
			}
		})
	}
}

func openSQLiteStats(b *testing.B) statsStore {
	dir := os.Getenv("VIGIL_BENCH_DIR")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			b.Fatal(err)
		}
		dir = filepath.Join(home, ".cache", "vigil-bench")
	}
	s, err := sqlite.Open(context.Background(), filepath.Join(dir, "stats-10m"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

func openClickHouseStats(b *testing.B) statsStore {
	base := testenv.URL(b, testenv.ClickHouse)
	conn, err := clickhouse.Open(base)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if err := conn.Exec(context.Background(), "CREATE DATABASE IF NOT EXISTS vigil_bench_10m"); err != nil {
		b.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/vigil_bench_10m"
	db, err := clickhouse.Open(u.String())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return clickhouse.New(db)
}

// fill writes what is missing of the 10M predictions and 10M metric
// values in time order, 20,000 a batch, resuming after the last stored.
func fill(b *testing.B, s statsStore) {
	all := analytics.Range{From: statsStart, To: statsStart.Add(statsDays * 24 * time.Hour)}
	st, err := s.PredictionStats(context.Background(), statsOrg, statsModel, all)
	if err != nil {
		b.Fatal(err)
	}
	f := analytics.MetricFilter{OrgID: statsOrg, ModelID: statsModel, MetricType: "accuracy", Range: all}
	sums, err := s.MetricSeries(context.Background(), f, analytics.Buckets{Range: all})
	if err != nil {
		b.Fatal(err)
	}
	var metrics int64
	if len(sums) == 1 {
		metrics = sums[0].Count
	}
	done := min(st.TotalPredictions, metrics)
	if done >= statsPredictions {
		return
	}
	b.Logf("filling %d predictions and metric values from %d (once; kept for later runs)", statsPredictions, done)
	step := time.Duration(statsDays) * 24 * time.Hour / statsPredictions
	began := time.Now()
	for lo := int(done) - int(done)%20_000; lo < statsPredictions; lo += 20_000 {
		var batch analytics.Batch
		for i := lo; i < lo+20_000; i++ {
			at := statsStart.Add(time.Duration(i) * step)
			latency := 1 + float64(i*7919%1000)/10
			batch.Predictions = append(batch.Predictions, eventlog.Prediction{OrgID: statsOrg, ModelID: statsModel,
				PredictionID: fmt.Sprintf("p%08d", i), InputData: json.RawMessage(fmt.Sprintf(`{"x":%d}`, i%100)),
				OutputData: json.RawMessage(`{"y":1}`), LatencyMS: &latency, Metadata: json.RawMessage(`{}`), Timestamp: at})
			batch.Metrics = append(batch.Metrics, eventlog.Metric{OrgID: statsOrg, ModelID: statsModel, ID: fmt.Sprintf("m%08d", i),
				MetricType: "accuracy", Value: float64(i%1000) / 1000, Metadata: map[string]any{}, Timestamp: at})
		}
		if err := s.Write(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
		if lo%1_000_000 == 0 {
			b.Logf("%d written, %.0f/s", lo+20_000, float64(lo+20_000-int(done))/time.Since(began).Seconds())
		}
	}
}

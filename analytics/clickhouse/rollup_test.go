package clickhouse

import (
	"context"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// TestReplayRepairsRollup stores events without their rollups, as a crash
// between the two steps of a write leaves them, then replays the batch:
// the rows are not stored again and the rollups count each event once.
// Then a client's retry of the prediction (another log record, same id)
// is neither stored nor counted.
func TestReplayRepairsRollup(t *testing.T) {
	conn := openConn(t)
	s, ctx := New(conn), context.Background()
	if err := s.ensure(ctx); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	latency := 5.0
	b := analytics.Batch{
		Predictions: []eventlog.Prediction{{OrgID: "o1", ModelID: "m1", PredictionID: "p1", InputData: []byte(`{}`),
			OutputData: []byte(`{}`), Metadata: []byte(`{}`), LatencyMS: &latency, Timestamp: at}},
		Metrics: []eventlog.Metric{{OrgID: "o1", ModelID: "m1", ID: "e1", MetricType: "accuracy", Value: 0.5,
			Metadata: map[string]any{}, Timestamp: at}},
		Completions: []eventlog.Completion{{OrgID: "o1", ModelID: "m1", ID: "c1", Provider: "p", ModelName: "llm", Cost: 2,
			Metadata: map[string]any{}, Timestamp: at}},
	}
	b.Positions = map[analytics.EventKey]analytics.Position{{OrgID: "o1", ModelID: "m1", ID: "p1"}: {Partition: 2, Offset: 7}}
	if err := s.insertPredictions(ctx, b.Predictions, b.Positions); err != nil {
		t.Fatal(err)
	}
	if err := s.insertMetrics(ctx, b.Metrics); err != nil {
		t.Fatal(err)
	}
	if err := s.insertCompletions(ctx, b.Completions); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	r := analytics.Range{From: at, To: at.Add(time.Hour)}
	st, err := s.PredictionStats(ctx, "o1", "m1", r)
	if err != nil || st.TotalPredictions != 1 {
		t.Errorf("got %d predictions (%v), want 1", st.TotalPredictions, err)
	}
	ms, err := s.MetricSeries(ctx, analytics.MetricFilter{OrgID: "o1", ModelID: "m1", MetricType: "accuracy", Range: r}, analytics.Buckets{Range: r})
	if err != nil || len(ms) != 1 || ms[0].Count != 1 {
		t.Errorf("got metric series %v (%v), want one value", ms, err)
	}
	cs, err := s.CompletionGroups(ctx, "o1", "m1", r)
	if err != nil || len(cs) != 1 || cs[0].Completions != 1 || cs[0].Cost != 2 {
		t.Errorf("got completion groups %v (%v), want one completion costing 2", cs, err)
	}
	// The log replays the whole batch again (a crash after the rollups,
	// before the commit): the offsets skip it.
	if err := s.Write(ctx, b); err != nil {
		t.Fatal(err)
	}
	if st, err := s.PredictionStats(ctx, "o1", "m1", r); err != nil || st.TotalPredictions != 1 {
		t.Errorf("got %d predictions (%v) after a second replay, want 1", st.TotalPredictions, err)
	}
	// A batch holding a replay stored but not counted (p2, offset 8) and a
	// fresh prediction after it (p3, offset 9) counts both.
	p2, p3 := b.Predictions[0], b.Predictions[0]
	p2.PredictionID, p3.PredictionID = "p2", "p3"
	mixed := analytics.Batch{Predictions: []eventlog.Prediction{p2, p3}, Positions: map[analytics.EventKey]analytics.Position{
		{OrgID: "o1", ModelID: "m1", ID: "p2"}: {Partition: 2, Offset: 8}, {OrgID: "o1", ModelID: "m1", ID: "p3"}: {Partition: 2, Offset: 9}}}
	if err := s.insertPredictions(ctx, mixed.Predictions[:1], mixed.Positions); err != nil {
		t.Fatal(err)
	}
	if err := s.Write(ctx, mixed); err != nil {
		t.Fatal(err)
	}
	if st, err := s.PredictionStats(ctx, "o1", "m1", r); err != nil || st.TotalPredictions != 3 {
		t.Errorf("got %d predictions (%v) after a replay and a fresh prediction in one batch, want 3", st.TotalPredictions, err)
	}
	retry := b
	retry.Metrics, retry.Completions = nil, nil
	retry.Positions = map[analytics.EventKey]analytics.Position{{OrgID: "o1", ModelID: "m1", ID: "p1"}: {Partition: 2, Offset: 9}}
	if err := s.Write(ctx, retry); err != nil {
		t.Fatal(err)
	}
	if st, err := s.PredictionStats(ctx, "o1", "m1", r); err != nil || st.TotalPredictions != 3 {
		t.Errorf("got %d predictions (%v) after a client's retry, want 3", st.TotalPredictions, err)
	}
	for table, want := range map[string]uint64{"metrics": 1, "predictions": 3} {
		var rows uint64
		if err := conn.QueryRow(ctx, `SELECT count() FROM `+table+` FINAL`).Scan(&rows); err != nil || rows != want {
			t.Errorf("got %d %s rows (%v), want %d", rows, table, err, want)
		}
	}
}

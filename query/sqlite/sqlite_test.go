package sqlite

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/ingest"
	"github.com/vigilhq/vigil/processors"
	"github.com/vigilhq/vigil/query"
)

func open(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func prediction(org, model string, i int, latency float64) ingest.Prediction {
	return ingest.Prediction{OrgID: org, ModelID: model, PredictionID: fmt.Sprintf("p%d", i),
		InputData: map[string]any{"x": float64(i)}, OutputData: map[string]any{"y": 1.0},
		LatencyMS: &latency, Metadata: map[string]any{}, Timestamp: base.Add(time.Duration(i) * time.Second)}
}

// TestReplayCountsOnce writes a batch, then the same events again, whole
// and in part: rows and rollups count each event once.
func TestReplayCountsOnce(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	var ps []ingest.Prediction
	for i := range 150 { // spans three minutes
		ps = append(ps, prediction("o1", "m1", i, float64(i%10)))
	}
	for _, b := range [][]ingest.Prediction{ps, ps, ps[40:90], ps[:1]} {
		if err := s.Write(ctx, processors.Batch{Predictions: b}); err != nil {
			t.Fatal(err)
		}
	}
	all := query.Range{From: base, To: base.Add(time.Hour)}
	st, err := s.PredictionStats(ctx, "o1", "m1", all)
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalPredictions != 150 || *st.MinLatencyMS != 0 || *st.MaxLatencyMS != 9 || *st.AvgLatencyMS != 4.5 {
		t.Fatalf("got %d predictions, latency min %v max %v avg %v; want 150, 0, 9, 4.5",
			st.TotalPredictions, *st.MinLatencyMS, *st.MaxLatencyMS, *st.AvgLatencyMS)
	}
	rows, err := s.Predictions(ctx, query.PredictionFilter{OrgID: "o1", ModelID: "m1", Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 150 || rows[0].PredictionID != "p149" {
		t.Fatalf("got %d rows, first %s; want 150 newest first", len(rows), rows[0].PredictionID)
	}
	// Another organization sees nothing of it.
	if st, _ := s.PredictionStats(ctx, "o2", "m1", all); st.TotalPredictions != 0 {
		t.Fatalf("got %d predictions for another organization, want 0", st.TotalPredictions)
	}
	if _, err := s.Prediction(ctx, "o2", "m1", "p1"); err == nil {
		t.Fatalf("got another organization's prediction, want not found")
	}
}

func TestRoundTrip(t *testing.T) {
	s := open(t)
	ctx := context.Background()
	p := prediction("o1", "m1", 7, 12.5)
	p.Metadata = map[string]any{"region": "eu"}
	if err := s.Write(ctx, processors.Batch{Predictions: []ingest.Prediction{p}}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Prediction(ctx, "o1", "m1", "p7")
	if err != nil {
		t.Fatal(err)
	}
	if got.InputData["x"] != 7.0 || got.Metadata["region"] != "eu" || *got.LatencyMS != 12.5 || !got.Timestamp.Equal(p.Timestamp) {
		t.Fatalf("got %+v, want %+v", got, p)
	}
}

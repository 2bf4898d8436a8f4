package analyticstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// The large batch: what a processor polls from a backlog after an outage
// (issue 33), of one model, each kind with its own ids and spread over
// its own minutes, so that every list a store's write takes (the ids it
// looks up, the minutes it rolls up) is longer than ClickHouse's
// max_query_size (256 KiB) if it were written into a query's text.
const (
	largePredictions = 50_000
	largeSeries      = 20_000 // metrics, and completions
)

// largeBatch is the large batch, each prediction with its log position
// in epoch, one a record of partition 3.
func largeBatch(epoch uint64) analytics.Batch {
	latency := 2.5
	b := analytics.Batch{Positions: map[analytics.EventKey]analytics.Position{}}
	for i := range largePredictions {
		p := Prediction("o1", "m1", i, latency)
		p.PredictionID = fmt.Sprintf("backlog-prediction-%08d", i)
		p.Timestamp = base.Add(time.Duration(i) * 30 * time.Second)
		b.Predictions = append(b.Predictions, p)
		b.Positions[analytics.EventKey{OrgID: "o1", ModelID: "m1", ID: p.PredictionID}] = analytics.Position{
			Partition: 3, Offset: int64(1000 + i), Epoch: epoch}
	}
	for i := range largeSeries {
		at := time.Duration(i) * time.Minute
		b.Metrics = append(b.Metrics, metric("o1", "m1", "accuracy", i, at, 1))
		b.Completions = append(b.Completions, eventlog.Completion{OrgID: "o1", ModelID: "m1",
			ID: fmt.Sprintf("backlog-completion-%08d", i), Provider: "openai", ModelName: "gpt", Prompt: "p",
			Completion: "c", Cost: 1, Metadata: map[string]any{}, Timestamp: base.Add(at)})
	}
	return b
}

// testLargeBatch writes the large batch, then again as the log replays
// it (the same records, in the same consumer epoch and in the next one,
// as after a restart): every event is stored and counted once.
func testLargeBatch(t *testing.T, s Store) {
	ctx := context.Background()
	for _, epoch := range []uint64{1, 1, 2} {
		if err := s.Write(ctx, largeBatch(epoch)); err != nil {
			t.Fatalf("Write of the large batch (epoch %d): %v", epoch, err)
		}
	}
	all := analytics.Range{From: base, To: base.Add(30 * 24 * time.Hour)}
	st, err := s.PredictionStats(ctx, "o1", "m1", all)
	if err != nil {
		t.Fatal(err)
	}
	if st.TotalPredictions != largePredictions {
		t.Errorf("got %d predictions counted, want %d", st.TotalPredictions, largePredictions)
	}
	seen := map[string]bool{}
	for _, id := range ids(t, s, analytics.PredictionFilter{OrgID: "o1", ModelID: "m1"}) {
		if seen[id] {
			t.Fatalf("got prediction %s twice", id)
		}
		seen[id] = true
	}
	if len(seen) != largePredictions {
		t.Errorf("got %d predictions stored, want %d", len(seen), largePredictions)
	}
	ms, err := s.MetricSeries(ctx, analytics.MetricFilter{OrgID: "o1", ModelID: "m1", MetricType: "accuracy", Range: all},
		analytics.Buckets{Range: all})
	if err != nil || len(ms) != 1 || ms[0].Count != largeSeries {
		t.Errorf("got metric series %v (%v), want one summary of %d values", ms, err, largeSeries)
	}
	cs, err := s.CompletionGroups(ctx, "o1", "m1", all)
	if err != nil || len(cs) != 1 || cs[0].Completions != largeSeries || cs[0].Cost != largeSeries {
		t.Errorf("got completion groups %v (%v), want one of %d completions", cs, err, largeSeries)
	}
}

// testManyModels reads what 20,000 models add up to, one of which has
// predictions and metrics: a list that long fits no query's text.
func testManyModels(t *testing.T, s Store) {
	ctx := context.Background()
	write(t, s, Prediction("o1", "m1", 1, 2), Prediction("o1", "m1", 2, 4))
	if err := s.Write(ctx, analytics.Batch{Metrics: []eventlog.Metric{metric("o1", "m1", "accuracy", 0, 0, 0.5)}}); err != nil {
		t.Fatal(err)
	}
	models := make([]string, 20_000)
	for i := range models {
		models[i] = fmt.Sprintf("00000000-0000-7000-8000-%012d", i)
	}
	models[len(models)/2] = "m1"
	r := analytics.Range{From: base, To: base.Add(time.Hour)}
	counts, err := s.PredictionCounts(ctx, "o1", models, r)
	if err != nil || len(counts) != 1 || counts["m1"] != 2 {
		t.Errorf("PredictionCounts: got %v (%v), want m1: 2", counts, err)
	}
	stats, err := s.PredictionStatsByModel(ctx, "o1", models, r)
	if err != nil || len(stats) != len(models) || stats["m1"].TotalPredictions != 2 {
		t.Errorf("PredictionStatsByModel: got %d models, m1 %d predictions (%v); want %d models, m1 2 predictions",
			len(stats), stats["m1"].TotalPredictions, err, len(models))
	}
	sums, err := s.MetricSummariesByModel(ctx, "o1", "accuracy", models, r)
	if err != nil || sums["m1"].Count != 1 {
		t.Errorf("MetricSummariesByModel: got m1 %+v (%v), want one value", sums["m1"], err)
	}
	act, err := s.Activity(ctx, "o1", models)
	if err != nil || len(act) != 1 || act["m1"].Predictions != 2 {
		t.Errorf("Activity: got %v (%v), want m1 with 2 predictions", act, err)
	}
}

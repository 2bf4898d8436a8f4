package clickhouse

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/platform/testenv"
)

// BenchmarkWrite writes 1000-prediction batches of one model into one
// minute, as a processor does under steady load: each op is one batch, and
// the minute grows with every op, so the per-batch cost of recomputing it
// shows.
func BenchmarkWrite(b *testing.B) {
	conn, err := Open(testenv.ClickHouseDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	s, ctx := New(conn), context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	latency := 5.0
	n := 0
	for b.Loop() {
		ps := make([]eventlog.Prediction, 1000)
		for i := range ps {
			ps[i] = eventlog.Prediction{OrgID: "o1", ModelID: "m1", PredictionID: fmt.Sprintf("p%08d", n),
				InputData: json.RawMessage(`{"a":1}`), OutputData: json.RawMessage(`{"y":1}`), Metadata: json.RawMessage(`{}`),
				LatencyMS: &latency, Timestamp: at.Add(time.Duration(n%60_000) * time.Millisecond)}
			n++
		}
		if err := s.Write(ctx, analytics.Batch{Predictions: ps}); err != nil {
			b.Fatal(err)
		}
	}
}

package sqlite

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// BenchmarkWriteCompletions writes 5000-completion batches of one model,
// the embedded log's largest poll, as the processor does while OTLP spans
// arrive: ids are trace and span ids (random), texts about 200 characters,
// and the minutes fill as they would at 20,000 completions a second. Each
// op is one batch.
func BenchmarkWriteCompletions(b *testing.B) {
	s, err := Open(context.Background(), b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	n := 0
	for b.Loop() {
		b.StopTimer()
		cs := make([]eventlog.Completion, 5000)
		for i := range cs {
			id := make([]byte, 24)
			_, _ = rand.Read(id)
			latency := float64(200 + n%300)
			cs[i] = eventlog.Completion{OrgID: "o1", ModelID: "m1", ID: hex.EncodeToString(id[:16]) + "-" + hex.EncodeToString(id[16:]),
				Provider: "openai", ModelName: "gpt-4o-mini",
				Prompt:     fmt.Sprintf("Summarise ticket %d: ", n) + strings.Repeat("the customer cannot log in after the update. ", 4),
				Completion: fmt.Sprintf("Ticket %d: ", n) + strings.Repeat("reset the session token and retry the login. ", 4),
				Tokens:     eventlog.Tokens{PromptTokens: int64(120 + n%50), CompletionTokens: int64(40 + n%20), TotalTokens: int64(160 + n%50 + n%20)},
				LatencyMS:  &latency, Cost: 0.0001,
				Metadata:  map[string]any{"source": "otlp", "otel.span_name": "chat gpt-4o-mini", "otel.service_name": "bench-app"},
				Timestamp: at.Add(time.Duration(n) * 50 * time.Microsecond)}
			n++
		}
		b.StartTimer()
		if err := s.Write(context.Background(), analytics.Batch{Completions: cs}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "completions/s")
}

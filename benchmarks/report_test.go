package benchmarks

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/analytics/sqlite"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/report"
)

// BenchmarkReport writes VIGIL_BENCH_REPORT_ROWS predictions (default
// 200,000) and an accuracy value an hour, spread over 30 days, into the
// embedded analytical store, then measures a 30-day model_performance
// report of the model: "gather" reads the rollups alone (the baseline of
// the run), each format gathers, builds and renders. The report reads
// about 720 hour rows whatever the predictions' number. With
// VIGIL_REPORT_OUT set, the PDF is also written there as report.pdf.
func BenchmarkReport(b *testing.B) {
	rows := 200_000
	if v, err := strconv.Atoi(os.Getenv("VIGIL_BENCH_REPORT_ROWS")); err == nil && v > 0 {
		rows = v
	}
	ctx := context.Background()
	s, err := sqlite.Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	from := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	span := 30 * 24 * time.Hour
	const batch = 5000
	seeded := time.Now()
	for i := 0; i < rows; i += batch {
		var bt analytics.Batch
		for j := i; j < min(i+batch, rows); j++ {
			lat := float64(j % 97)
			bt.Predictions = append(bt.Predictions, eventlog.Prediction{OrgID: "org", ModelID: "m", PredictionID: "p" + strconv.Itoa(j),
				InputData: json.RawMessage(`{"x":1}`), OutputData: json.RawMessage(fmt.Sprintf(`{"label":"c%d"}`, j%3)), LatencyMS: &lat,
				Metadata: json.RawMessage(`{}`), Timestamp: from.Add(time.Duration(int64(span) / int64(rows) * int64(j)))})
		}
		if err := s.Write(ctx, bt); err != nil {
			b.Fatal(err)
		}
	}
	if b.N == 1 { // the first of the benchmark's calls: say how fast the store took them
		el := time.Since(seeded)
		b.Logf("seeded %d predictions through analytics.Sink.Write in batches of %d in %s (%.0f rows/s)", rows, batch,
			el.Round(time.Second), float64(rows)/el.Seconds())
	}
	var mt analytics.Batch
	for h := range 30 * 24 {
		mt.Metrics = append(mt.Metrics, eventlog.Metric{OrgID: "org", ID: "a" + strconv.Itoa(h), ModelID: "m", MetricType: report.MetricAccuracy,
			Value: 0.9, Timestamp: from.Add(time.Duration(h) * time.Hour)})
	}
	if err := s.Write(ctx, mt); err != nil {
		b.Fatal(err)
	}
	q := report.Request{OrgID: "org", Models: []report.Model{{ID: "m", Name: "churn"}}, From: from, To: from.AddDate(0, 0, 29)}
	spec := report.Spec{Title: "Model performance", Category: "model_performance", GeneratedAt: from.AddDate(0, 0, 30)}
	gather := func(b *testing.B) report.Data {
		d, err := report.Gather(ctx, report.Sources{Analytics: s}, q)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	if got := gather(b); got.Stats["m"][0].TotalPredictions == 0 {
		b.Fatal("got no predictions on the first day")
	}
	if dir := os.Getenv("VIGIL_REPORT_OUT"); dir != "" { // to look at the report by hand
		var pdf bytes.Buffer
		if err := report.Render(&pdf, report.Build(gather(b), spec), report.FormatPDF); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "report.pdf"), pdf.Bytes(), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("gather", func(b *testing.B) {
		b.ReportAllocs()
		resetPeakRSS(b)
		for b.Loop() {
			gather(b)
		}
		b.ReportMetric(peakRSS(b), "peak-rss-MB")
	})
	for _, f := range report.Formats {
		b.Run(f, func(b *testing.B) {
			b.ReportAllocs()
			resetPeakRSS(b)
			for b.Loop() {
				if err := report.Render(io.Discard, report.Build(gather(b), spec), f); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(peakRSS(b), "peak-rss-MB")
		})
	}
}

// resetPeakRSS returns the freed heap to the system and resets the
// process's peak resident set (Linux: clear_refs 5), so that peakRSS
// then reports the peak of what runs in between.
func resetPeakRSS(b *testing.B) {
	b.Helper()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		b.Fatalf("reset the peak RSS: %v", err)
	}
}

// peakRSS is the process's peak resident set (VmHWM) in megabytes.
func peakRSS(b *testing.B) float64 {
	b.Helper()
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			if err != nil {
				b.Fatal(err)
			}
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmHWM in /proc/self/status")
	return 0
}

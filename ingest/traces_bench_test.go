package ingest

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/ingest/otlp"
	"github.com/vigilhq/vigil/ingest/otlp/otlptest"
	"github.com/vigilhq/vigil/platform/web"
)

// BenchmarkOTLPExport times POST /v1/traces of one protobuf export of 512
// GenAI spans (otlptest's, as the OpenTelemetry SDK's BatchSpanProcessor
// sends them) through the handler: decode, mapping, completions, their
// encoding for a log that keeps nothing. It reports the allocations, and
// the wall and CPU nanoseconds per span (the CPU time counts the GC's work
// too, and is what a loaded machine distorts least).
func BenchmarkOTLPExport(b *testing.B) {
	const spans = 512
	e, err := otlptest.Encode(benchModel, 1, 0, spans)
	if err != nil {
		b.Fatal(err)
	}
	app := web.NewApp(web.Options{})
	web.Mount(app, (&API{Log: discardLog{}, Models: activeModels{}}).TraceRoutes(), nil)
	send := func() int {
		req := httptest.NewRequest(http.MethodPost, TracesPath, bytes.NewReader(e.Body))
		req.Header.Set("Content-Type", otlp.Protobuf)
		res, err := app.Test(req, -1)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	if status := send(); status != http.StatusOK {
		b.Fatalf("got %d, want 200", status)
	}
	b.SetBytes(int64(len(e.Body)))
	b.ReportAllocs()
	cpu0 := cpuTime(b)
	for b.Loop() {
		send()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*spans), "ns/span")
	b.ReportMetric(float64((cpuTime(b)-cpu0).Nanoseconds())/float64(b.N*spans), "cpu-ns/span")
}

// cpuTime is the CPU time the process has used (user and system), which a
// loaded machine does not inflate as it does the wall time.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

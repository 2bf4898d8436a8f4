package benchmarks

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// BenchmarkOTLPMemory sends VIGIL_BENCH_OTLP_MEMORY_SPANS GenAI spans
// (default 300,000) to `vigil serve` (embedded default, a child process)
// from the Go client (4 connections, exports of 512 encoded ahead in
// slices of 20,000) and samples the server's RSS each second: it reports
// the RSS after the first fifth of the spans was queryable and at the
// end, the peak (VmHWM) and spans/s until queryable, so that a memory that
// grows with the spans sent shows as end >> first; it logs the RSS after
// each slice.
func BenchmarkOTLPMemory(b *testing.B) {
	n := 300_000
	if s := os.Getenv("VIGIL_BENCH_OTLP_MEMORY_SPANS"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	v := &vigilServer{bin: testenv.Build(b, "../cmd/vigil"), dir: b.TempDir()}
	cmd := v.start(b)
	defer stopChild(cmd, syscall.SIGTERM)
	pid := cmd.Process.Pid
	root := "http://127.0.0.1:" + v.port
	for range b.N {
		base, start := v.count(b), time.Now()
		var first int
		var series []string
		const slice = 20_000
		for lo := 0; lo < n; lo += slice {
			exports := otlpBodies(b, v.model, min(slice, n-lo), 512, uint64(start.UnixNano())+uint64(lo))
			if rejected := exportOTLP(b, root, v.key, exports, otlpConns); rejected != 0 {
				b.Fatalf("%d spans rejected", rejected)
			}
			series = append(series, fmt.Sprintf("%dk:%dMB", (lo+slice)/1000, rss(pid, "VmRSS:")/1024))
			if first == 0 && lo+slice >= n/5 {
				for v.count(b) < base+lo+slice {
					time.Sleep(100 * time.Millisecond)
				}
				first = rss(pid, "VmRSS:")
			}
		}
		for v.count(b) < base+n {
			time.Sleep(100 * time.Millisecond)
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "spans-e2e/s")
		b.Logf("RSS after each slice accepted: %s", strings.Join(series, " "))
		b.ReportMetric(float64(first)/1024, "fifth-RSS-MB")
		b.ReportMetric(float64(rss(pid, "VmRSS:"))/1024, "end-RSS-MB")
		b.ReportMetric(float64(rss(pid, "VmHWM:"))/1024, "peak-RSS-MB")
	}
}

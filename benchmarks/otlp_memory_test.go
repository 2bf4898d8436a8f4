package benchmarks

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// BenchmarkOTLPMemory sends VIGIL_BENCH_OTLP_MEMORY_SPANS GenAI spans
// (default 3,000,000) to `vigil serve` (embedded default, a child process)
// from the Go client (4 connections, exports of 512 encoded ahead in
// slices of 20,000). After the first slice and after each 500,000 spans it
// waits until they are queryable and logs a memory sample: VmRSS, its
// anonymous and file-backed parts (/proc/<pid>/status), and the Go
// runtime's own share (heap in use; everything it holds from the OS less
// what it gave back) read from the server's /metrics, so that the
// anonymous memory that is not Go's (SQLite's page caches, which the
// modernc.org C runtime maps outside the Go heap) shows apart; the file
// part is mostly the binary's own pages. It reports the first and the
// last sample's RSS, the peak (VmHWM) and spans/s until queryable.
func BenchmarkOTLPMemory(b *testing.B) {
	n := 3_000_000
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
		var samples []memSample
		const slice, every = 20_000, 500_000
		for lo := 0; lo < n; lo += slice {
			exports := otlpBodies(b, v.model, min(slice, n-lo), 512, uint64(start.UnixNano())+uint64(lo))
			if rejected := exportOTLP(b, root, v.key, exports, otlpConns); rejected != 0 {
				b.Fatalf("%d spans rejected", rejected)
			}
			if sent := min(lo+slice, n); sent == slice || sent%every == 0 || sent == n {
				for v.count(b) < base+sent {
					time.Sleep(100 * time.Millisecond)
				}
				s := sampleMemory(b, pid, root, sent)
				b.Logf("%s", s)
				samples = append(samples, s)
			}
		}
		b.ReportMetric(float64(n)/time.Since(start).Seconds(), "spans-e2e/s")
		b.ReportMetric(float64(samples[0].rss)/1024, "first-RSS-MB")
		b.ReportMetric(float64(samples[len(samples)-1].rss)/1024, "end-RSS-MB")
		b.ReportMetric(float64(rss(pid, "VmHWM:"))/1024, "peak-RSS-MB")
	}
}

// memSample is the server's memory once sent spans were queryable, in kB.
type memSample struct {
	sent                    int
	rss, anon, file         int
	goHeapInuse, goResident int
}

func (s memSample) String() string {
	return fmt.Sprintf("%dk spans: RSS %d MB (anon %d, file %d), Go heap in use %d MB, Go's memory %d MB, "+
		"anon not Go's %d MB", s.sent/1000, s.rss/1024, s.anon/1024, s.file/1024, s.goHeapInuse/1024, s.goResident/1024,
		(s.anon-s.goResident)/1024)
}

func sampleMemory(b *testing.B, pid int, root string, sent int) memSample {
	b.Helper()
	m := goMetrics(b, root+"/metrics")
	return memSample{sent: sent, rss: rss(pid, "VmRSS:"), anon: rss(pid, "RssAnon:"), file: rss(pid, "RssFile:") + rss(pid, "RssShmem:"),
		goHeapInuse: int(m["go_memstats_heap_inuse_bytes"] / 1024),
		goResident:  int((m["go_memstats_sys_bytes"] - m["go_memstats_heap_released_bytes"]) / 1024)}
}

// goMetrics reads the unlabelled samples of a Prometheus text page.
func goMetrics(b *testing.B, url string) map[string]float64 {
	b.Helper()
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if f, err := strconv.ParseFloat(val, 64); err == nil {
			out[name] = f
		}
	}
	if len(out) == 0 {
		b.Fatalf("no metrics at %s (status %d)", url, resp.StatusCode)
	}
	return out
}

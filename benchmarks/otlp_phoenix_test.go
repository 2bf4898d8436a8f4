package benchmarks

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// BenchmarkOTLPPhoenix runs Vigil (`vigil serve`, embedded default) and
// Arize Phoenix (`phoenix serve`, its default SQLite storage; installed by
// phoenix.sh) side by side in one run, each a child process, each fed the
// same GenAI spans by the same OpenTelemetry Python SDK exporter
// (otlp_spans.py: protobuf, batches of 512, one thread). For each server:
// spans/s accepted and until queryable (Vigil: GET /llm/metrics; Phoenix:
// its GraphQL project span count), its peak RSS (VmHWM) and its RSS after
// the run, then the spans lost when it is stopped mid-load, by SIGTERM and
// by SIGKILL: the exporter streams, the server is stopped once half the
// spans were answered with success, started again on the same data, and
// the spans answered with success are compared with those queryable once
// the count settles. VIGIL_BENCH_OTLP_SPANS sets the spans of each phase
// (default 5,000: Phoenix makes tens of spans a second queryable here).
func BenchmarkOTLPPhoenix(b *testing.B) {
	py := testenv.URL(b, testenv.OTelPython)
	out, err := exec.Command("./phoenix.sh").Output()
	if err != nil {
		b.Fatalf("phoenix.sh: %v", err)
	}
	phoenixPy := strings.TrimSpace(string(out))
	n := 5000
	if s := os.Getenv("VIGIL_BENCH_OTLP_SPANS"); s != "" {
		if n, err = strconv.Atoi(s); err != nil {
			b.Fatal(err)
		}
	}
	vigilBin := testenv.Build(b, "../cmd/vigil")
	b.Run("vigil", func(b *testing.B) { measureSpans(b, py, n, &vigilServer{bin: vigilBin, dir: b.TempDir()}) })
	b.Run("phoenix", func(b *testing.B) { measureSpans(b, py, n, &phoenixServer{py: phoenixPy, dir: b.TempDir()}) })
}

// spanServer is a server under BenchmarkOTLPPhoenix.
type spanServer interface {
	// start starts the server on its data and returns once it answers.
	start(b *testing.B) *exec.Cmd
	// env is the exporter's environment: endpoint, headers, model.
	env() []string
	// count is how many spans are queryable.
	count(b *testing.B) int
}

func measureSpans(b *testing.B, py string, n int, s spanServer) {
	cmd := s.start(b)
	defer func() { stopChild(cmd, syscall.SIGKILL) }()
	peak := sampleRSS(cmd.Process.Pid)
	for range b.N {
		// Throughput: n spans, exported, then waited for.
		base := s.count(b)
		export := exec.Command(py, "otlp_spans.py")
		export.Env = append(append(os.Environ(), s.env()...), "SPANS="+strconv.Itoa(n))
		out, err := export.Output()
		if err != nil {
			b.Fatalf("otlp_spans.py: %v %s", err, out)
		}
		var begin, end float64
		if _, err := fmt.Sscan(string(out), &begin, &end); err != nil {
			b.Fatalf("otlp_spans.py printed %q: %v", out, err)
		}
		for deadline := time.Now().Add(30 * time.Minute); s.count(b) < base+n; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%d of %d spans queryable after 30 minutes", s.count(b)-base, n)
			}
		}
		queryable := time.Since(time.Unix(0, int64(begin*1e9)))
		b.ReportMetric(float64(n)/(end-begin), "spans/s")
		b.ReportMetric(float64(n)/queryable.Seconds(), "spans-e2e/s")
	}
	b.ReportMetric(float64(peak.max())/1024, "peak-RSS-MB")
	b.ReportMetric(float64(rss(cmd.Process.Pid, "VmRSS:"))/1024, "end-RSS-MB")
	peak.stop()
	// Stops mid-load.
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		before := s.count(b)
		accepted := 0
		export := exec.Command(py, "otlp_spans.py")
		export.Env = append(append(os.Environ(), s.env()...), "SPANS="+strconv.Itoa(n), "STREAM=1")
		stdout, err := export.StdoutPipe()
		if err != nil {
			b.Fatal(err)
		}
		if err := export.Start(); err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			k, ok := strings.CutPrefix(sc.Text(), "ok ")
			if !ok {
				break
			}
			m, _ := strconv.Atoi(k)
			accepted += m
			if accepted >= n/2 && cmd != nil {
				stopChild(cmd, sig)
				cmd = nil
			}
		}
		if err := export.Wait(); err != nil {
			b.Fatalf("otlp_spans.py: %v", err)
		}
		if cmd != nil {
			stopChild(cmd, sig)
		}
		cmd = s.start(b)
		// The count settles: every accepted span, or no change for 30 s.
		got, last := s.count(b), time.Now()
		for got < before+accepted && time.Since(last) < 30*time.Second {
			time.Sleep(200 * time.Millisecond)
			if c := s.count(b); c != got {
				got, last = c, time.Now()
			}
		}
		name := map[syscall.Signal]string{syscall.SIGTERM: "term", syscall.SIGKILL: "kill"}[sig]
		b.ReportMetric(float64(accepted), name+"-accepted")
		b.ReportMetric(float64(max(before+accepted-got, 0)), name+"-lost")
	}
}

// stopChild sends sig and waits up to a minute for the exit (then kills).
func stopChild(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	_ = cmd.Process.Signal(sig)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		_ = cmd.Process.Kill()
		<-done
	}
}

// rssSampler keeps the highest VmHWM of a process, read every 200 ms
// (VmHWM is the kernel's own peak; sampling keeps it after the exit).
type rssSampler struct {
	mu   sync.Mutex
	kb   int
	quit chan struct{}
}

func sampleRSS(pid int) *rssSampler {
	s := &rssSampler{quit: make(chan struct{})}
	go func() {
		for {
			kb := rss(pid, "VmHWM:")
			s.mu.Lock()
			s.kb = max(s.kb, kb)
			s.mu.Unlock()
			select {
			case <-s.quit:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
	return s
}

func (s *rssSampler) max() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kb
}

func (s *rssSampler) stop() { close(s.quit) }

// rss reads a line of /proc/<pid>/status (VmHWM:, VmRSS:) in kB; 0 when
// the process is gone.
func rss(pid int, field string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return kb
		}
	}
	return 0
}

// freePort is a loopback port nothing listens on.
func freePort(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// waitUp waits for GET url to answer 200.
func waitUp(b *testing.B, url string, cmd *exec.Cmd) {
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(200 * time.Millisecond) {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		if time.Now().After(deadline) {
			stopChild(cmd, syscall.SIGKILL)
			b.Fatalf("%s does not answer after 5 minutes", url)
		}
	}
}

// vigilServer is `vigil serve` on the embedded default.
type vigilServer struct {
	bin, dir, port, key, model string
}

func (v *vigilServer) start(b *testing.B) *exec.Cmd {
	if v.port == "" {
		v.port = freePort(b)
	}
	cmd := exec.Command(v.bin, "serve", "--addr", "127.0.0.1:"+v.port, "--data-dir", v.dir,
		"--master-key-file", v.dir+"/master.key", "--rate-limit-predictions", "1000000000", "--rate-limit-batch", "1000000000",
		"--rate-limit-standard", "1000000000", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "VIGIL_ADMIN_PASSWORD="+password)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	waitUp(b, "http://127.0.0.1:"+v.port+"/healthz", cmd)
	if v.key == "" {
		base := "http://127.0.0.1:" + v.port + "/api/v1"
		v.key = apiKey(b, base)
		v.model = post(b, base+"/models", v.key, map[string]any{"name": "spans", "model_type": "llm"})["id"].(string)
	}
	return cmd
}

func (v *vigilServer) env() []string {
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + v.port, "MODEL_ID=" + v.model,
		"OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20" + v.key, "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
}

func (v *vigilServer) count(b *testing.B) int {
	req, _ := http.NewRequest("GET", "http://127.0.0.1:"+v.port+"/api/v1/llm/metrics?model_id="+v.model, nil)
	req.Header.Set("Authorization", "Bearer "+v.key)
	var m struct {
		Totals struct {
			Completions float64 `json:"completions"`
		} `json:"totals"`
	}
	decodeAnswer(b, req, &m)
	return int(m.Totals.Completions)
}

// phoenixServer is `phoenix serve` with its default SQLite storage in dir.
type phoenixServer struct {
	py, dir, port, grpc string
}

func (p *phoenixServer) start(b *testing.B) *exec.Cmd {
	if p.port == "" {
		p.port, p.grpc = freePort(b), freePort(b)
	}
	cmd := exec.Command(p.py, "-m", "phoenix.server.main", "serve")
	cmd.Env = append(os.Environ(), "PHOENIX_WORKING_DIR="+p.dir, "PHOENIX_HOST=127.0.0.1", "PHOENIX_PORT="+p.port,
		"PHOENIX_GRPC_PORT="+p.grpc, "PHOENIX_TELEMETRY_ENABLED=false")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	waitUp(b, "http://127.0.0.1:"+p.port+"/healthz", cmd)
	return cmd
}

func (p *phoenixServer) env() []string {
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:" + p.port, "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1"}
}

func (p *phoenixServer) count(b *testing.B) int {
	body, _ := json.Marshal(map[string]string{"query": "{ projects { edges { node { recordCount } } } }"})
	req, _ := http.NewRequest("POST", "http://127.0.0.1:"+p.port+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	var m struct {
		Data struct {
			Projects struct {
				Edges []struct {
					Node struct {
						RecordCount int `json:"recordCount"`
					} `json:"node"`
				} `json:"edges"`
			} `json:"projects"`
		} `json:"data"`
	}
	decodeAnswer(b, req, &m)
	n := 0
	for _, e := range m.Data.Projects.Edges {
		n += e.Node.RecordCount
	}
	return n
}

// decodeAnswer sends req and decodes its 200 answer into v.
func decodeAnswer(b *testing.B, req *http.Request, v any) {
	b.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("%s %s answered %d", req.Method, req.URL, res.StatusCode)
	}
	if err := json.NewDecoder(res.Body).Decode(v); err != nil {
		b.Fatal(err)
	}
}

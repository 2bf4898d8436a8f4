package benchmarks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// loadBatch is the number of predictions in each request of a load run.
const loadBatch = 200

// BenchmarkIngestLoad offers a constant load to a Vigil in this process,
// on the embedded default and on Kafka with ClickHouse: batches of 200
// predictions at VIGIL_BENCH_LOAD_RATE predictions/s (default 20,000)
// until VIGIL_BENCH_LOAD_TOTAL predictions (default 3,600,000, three
// minutes at the default rate, after one batch of warm-up) were answered 201, whatever the answers'
// latency (open loop: up to 256 requests in flight). Meanwhile it reads
// the model's stats every 100 ms. The lag of the n-th accepted prediction
// is the time from the 201 that made the accepted count reach n to the
// first stats answer counting n: it reports its p50/p95/p99/max, the load
// really offered, the process CPU seconds per million predictions (client
// and server share the process), the peak RSS and, every 500,000 accepted
// predictions, the RSS and the live heap (logged, so that a memory that
// grows with the predictions shows). With VIGIL_BENCH_HEAP_DIR set it
// writes a heap profile there at each of those points.
func BenchmarkIngestLoad(b *testing.B) {
	rate, n := envInt(b, "VIGIL_BENCH_LOAD_RATE", 20_000), envInt(b, "VIGIL_BENCH_LOAD_TOTAL", 3_600_000)
	eachPipeline(b, func(b *testing.B, base string) {
		for range b.N {
			runLoad(b, base, rate, n/loadBatch*loadBatch)
		}
	})
}

func envInt(b *testing.B, name string, def int) int {
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil {
		b.Fatalf("%s: %v", name, err)
	}
	return v
}

// stamp is a count of predictions seen at a time.
type stamp struct {
	at time.Time
	n  int
}

func runLoad(b *testing.B, base string, rate, n int) {
	key := apiKey(b, base)
	model := modelID(b, base, key)
	prefix := fmt.Sprintf("l%d-", time.Now().UnixNano())
	// Warm up: one batch counted, so that the consumers have joined.
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	if code := postRaw(client, base+"/predictions/log/batch", key, loadBody(model, prefix+"w", 0)); code != http.StatusCreated {
		b.Fatalf("warm-up batch: got %d, want 201", code)
	}
	for c, _ := countPredictions(base, key, model); c < loadBatch; c, _ = countPredictions(base, key, model) {
		time.Sleep(100 * time.Millisecond)
	}
	bodies := make(chan []byte, 64)
	go func() {
		defer close(bodies)
		for i := range n / loadBatch {
			bodies <- loadBody(model, prefix, i)
		}
	}()
	var (
		mu      sync.Mutex
		acks    []time.Time // one per batch answered 201, in the order answered
		failed  int
		memLog  []string
		nextMem = 500_000
	)
	heapDir := os.Getenv("VIGIL_BENCH_HEAP_DIR")
	sampleMem := func(accepted int) {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		memLog = append(memLog, fmt.Sprintf("%dk:rss=%dMB,heap=%dMB", accepted/1000, rss(os.Getpid(), "VmRSS:")/1024, ms.HeapInuse>>20))
		if heapDir != "" {
			f, err := os.Create(filepath.Join(heapDir, fmt.Sprintf("%s-%08d.heap", strings.ReplaceAll(b.Name(), "/", "_"), accepted)))
			if err == nil {
				_ = pprof.Lookup("heap").WriteTo(f, 0)
				_ = f.Close()
			}
		}
	}
	// The stats sampler.
	var samples []stamp
	quit, sampled := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			c, err := countPredictions(base, key, model)
			c -= loadBatch // the warm-up
			if err == nil {
				samples = append(samples, stamp{time.Now(), c})
				if c >= n {
					return
				}
			}
			select {
			case <-quit:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	work := make(chan []byte)
	var wg sync.WaitGroup
	for range 256 {
		wg.Go(func() {
			for body := range work {
				code := postRaw(client, base+"/predictions/log/batch", key, body)
				mu.Lock()
				if code == http.StatusCreated {
					acks = append(acks, time.Now())
					if len(acks)*loadBatch >= nextMem {
						sampleMem(len(acks) * loadBatch)
						nextMem += 500_000
					}
				} else {
					failed++
				}
				mu.Unlock()
			}
		})
	}
	b.ResetTimer()
	cpu := readCPU(b)
	start := time.Now()
	period := time.Duration(float64(time.Second) * loadBatch / float64(rate))
	i := 0
	for body := range bodies {
		time.Sleep(time.Until(start.Add(time.Duration(i) * period)))
		work <- body
		i++
	}
	close(work)
	wg.Wait()
	offered := time.Since(start)
	select {
	case <-sampled:
	case <-time.After(10 * time.Minute):
		close(quit)
		<-sampled
		b.Logf("accepted and counted every 20 s: %s", progress(start, acks, samples, 20*time.Second))
		b.Fatalf("not every prediction counted 10 minutes after the last was accepted")
	}
	b.StopTimer()
	end := readCPU(b)
	b.Logf("process CPU %.1f s per million predictions", (end.process-cpu.process).Seconds()*1e6/float64(n))
	reportCPUPerMillion(b, cpu, float64(n))
	if failed > 0 {
		b.Fatalf("%d batches not answered 201", failed)
	}
	lags := lagsOf(acks, samples)
	// Logged too: a failing cleanup (an engine slow to drop the test's
	// database) drops a failed benchmark's metrics from the output.
	b.Logf("offered %.0f/s; lag p50 %v p95 %v p99 %v max %v; peak RSS %d MB", float64(n)/offered.Seconds(),
		quantile(lags, 0.5), quantile(lags, 0.95), quantile(lags, 0.99), quantile(lags, 1), rss(os.Getpid(), "VmHWM:")/1024)
	b.ReportMetric(float64(n)/offered.Seconds(), "offered/s")
	for _, q := range []struct {
		name string
		q    float64
	}{{"p50", 0.5}, {"p95", 0.95}, {"p99", 0.99}, {"max", 1}} {
		b.ReportMetric(quantile(lags, q.q).Seconds(), "lag-"+q.name+"-s")
	}
	b.ReportMetric(float64(rss(os.Getpid(), "VmHWM:"))/1024, "peak-RSS-MB")
	b.Logf("every 500k accepted: %s", strings.Join(memLog, " "))
	b.Logf("accepted and counted every 20 s: %s", progress(start, acks, samples, 20*time.Second))
}

// lagsOf is, for each batch answered (acks, in the order answered), the
// time from its answer to the first sample counting as many predictions
// as had been accepted by then.
func lagsOf(acks []time.Time, samples []stamp) []time.Duration {
	lags := make([]time.Duration, 0, len(acks))
	j := 0
	for i, at := range acks {
		want := (i + 1) * loadBatch
		for j < len(samples) && samples[j].n < want {
			j++
		}
		if j == len(samples) {
			break
		}
		lags = append(lags, max(samples[j].at.Sub(at), 0))
	}
	return slices.Clip(lags)
}

// progress lists, every step from start, the predictions accepted and
// counted by then.
func progress(start time.Time, acks []time.Time, samples []stamp, step time.Duration) string {
	var out []string
	i, j := 0, 0
	for at := start.Add(step); j < len(samples); at = at.Add(step) {
		for i < len(acks) && !acks[i].After(at) {
			i++
		}
		for j < len(samples) && !samples[j].at.After(at) {
			j++
		}
		counted := 0
		if j > 0 {
			counted = samples[j-1].n
		}
		out = append(out, fmt.Sprintf("%ds:%dk/%dk", int(at.Sub(start).Seconds()), i*loadBatch/1000, counted/1000))
	}
	return strings.Join(out, " ")
}

// countPredictions is the model's total_predictions in its stats.
func countPredictions(base, key, model string) (int, error) {
	req, _ := http.NewRequest("GET", base+"/predictions/models/"+model+"/stats?start_time=2000-01-01T00:00:00Z", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	var s struct {
		Total float64 `json:"total_predictions"`
	}
	if err := json.NewDecoder(res.Body).Decode(&s); err != nil {
		return 0, err
	}
	return int(s.Total), nil
}

// loadBody is the i-th batch of a load run, shaped as batchBody's
// predictions, with ids starting with prefix.
func loadBody(model, prefix string, i int) []byte {
	var sb strings.Builder
	sb.Grow(loadBatch * 110)
	sb.WriteString(`{"model_id":"` + model + `","predictions":[`)
	for j := range loadBatch {
		if j > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"prediction_id":"%s%d-%d","input_data":{"age":%d,"plan":"pro"},"output_data":{"churn":%t},"latency_ms":%d}`,
			prefix, i, j, j%90, j%3 == 0, j%50+1)
	}
	sb.WriteString("]}")
	return []byte(sb.String())
}

package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/config"
)

// BenchmarkBatchIngest logs b.N batches of 1000 predictions from 4
// parallel clients, then waits until stats count all of them. It reports
// accepted/s (predictions answered 201 per second of sending) and e2e/s
// (predictions per second from the first request until all are
// queryable), on the embedded default and on Kafka with ClickHouse, and
// the CPU seconds spent per million predictions (see reportCPUPerMillion).
func BenchmarkBatchIngest(b *testing.B) {
	eachPipeline(b, func(b *testing.B, base string) { benchmarkIngest(b, base, 1000) })
}

// BenchmarkKeepUp is BenchmarkBatchIngest at the load of issue 33: 4
// clients sending 500 predictions a request as fast as they are answered,
// b.N requests, with ingest held back at the default backlog bound and,
// for comparison, unbounded (VIGIL_INGEST_MAX_BACKLOG 0). Besides its
// figures it reports e2e/accepted, the share of the acknowledged rate the
// processors store end to end, and catchup-s, how long after the last 201
// the last prediction was queryable (an upper bound of the lag once the
// burst is over).
func BenchmarkKeepUp(b *testing.B) {
	for _, bound := range []struct {
		name string
		max  int64
	}{{"backlog-100k", 100_000}, {"unbounded", 0}} {
		b.Run(bound.name, func(b *testing.B) {
			eachPipelineWith(b, func(c *config.Config) { c.IngestMaxBacklog = bound.max },
				func(b *testing.B, base string) { benchmarkIngest(b, base, 500) })
		})
	}
}

// benchmarkIngest logs b.N batches of size predictions from 4 parallel
// clients, then waits until stats count all of them.
func benchmarkIngest(b *testing.B, base string, size int) {
	key := apiKey(b, base)
	model := modelID(b, base, key)
	bodies := make(chan []byte, 8)
	go func() {
		defer close(bodies)
		for i := range b.N {
			bodies <- batchBodyOf(model, "b", i, size)
		}
	}()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
	var failed atomic.Int64
	b.ResetTimer()
	cpu := readCPU(b)
	start := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for body := range bodies {
				if code := postRaw(client, base+"/predictions/log/batch", key, body); code != http.StatusCreated {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	accepted := time.Since(start)
	want := float64(b.N * size)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if total(b, base, key, model) >= want {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("not every prediction stored within 5 minutes")
		}
	}
	e2e := time.Since(start)
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d batches failed", failed.Load())
	}
	b.ReportMetric(want/accepted.Seconds(), "accepted/s")
	b.ReportMetric(want/e2e.Seconds(), "e2e/s")
	b.ReportMetric(accepted.Seconds()/e2e.Seconds(), "e2e/accepted")
	b.ReportMetric((e2e - accepted).Seconds(), "catchup-s")
	reportCPUPerMillion(b, cpu, want)
}

// batchBody is the i-th batch of 1000 predictions of model, whose ids
// start with prefix: the bytes encoding/json writes for
// batchDocument(model, prefix, i) (TestBatchBody), appended by hand so
// that the client, which shares the cores with the server, spends little
// on them (encoding/json over maps took 2.2 µs a prediction).
func batchBody(model, prefix string, i int) []byte { return batchBodyOf(model, prefix, i, 1000) }

// batchBodyOf is batchBody of n predictions: the first n of batchBody's.
func batchBodyOf(model, prefix string, i, n int) []byte {
	body := make([]byte, 0, 128*n)
	body = append(body, `{"model_id":`...)
	body = strconv.AppendQuote(body, model)
	body = append(body, `,"predictions":[`...)
	for j := range n {
		if j > 0 {
			body = append(body, ',')
		}
		body = append(body, `{"input_data":{"age":`...)
		body = strconv.AppendInt(body, int64(j%90), 10)
		body = append(body, `,"plan":"pro"},"latency_ms":`...)
		body = strconv.AppendInt(body, int64(j%50+1), 10)
		body = append(body, `,"output_data":{"churn":`...)
		body = strconv.AppendBool(body, j%3 == 0)
		body = append(body, `},"prediction_id":"`...)
		body = append(body, prefix...)
		body = strconv.AppendInt(body, int64(i), 10)
		body = append(body, '-')
		body = strconv.AppendInt(body, int64(j), 10)
		body = append(body, `"}`...)
	}
	return append(body, "]}"...)
}

// batchDocument is the document batchBody encodes.
func batchDocument(model, prefix string, i int) map[string]any {
	items := make([]map[string]any, 1000)
	for j := range items {
		items[j] = map[string]any{"prediction_id": fmt.Sprintf("%s%d-%d", prefix, i, j),
			"input_data": map[string]any{"age": j % 90, "plan": "pro"}, "output_data": map[string]any{"churn": j%3 == 0},
			"latency_ms": float64(j%50 + 1)}
	}
	return map[string]any{"model_id": model, "predictions": items}
}

func postRaw(client *http.Client, url, key string, body []byte) int {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return res.StatusCode
}

func modelID(b *testing.B, base, key string) string {
	b.Helper()
	req, _ := http.NewRequest("GET", base+"/models/bench/latest", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var m struct{ ID string }
	if err := json.NewDecoder(res.Body).Decode(&m); err != nil {
		b.Fatal(err)
	}
	return m.ID
}

func total(b *testing.B, base, key, model string) float64 {
	b.Helper()
	req, _ := http.NewRequest("GET", base+"/predictions/models/"+model+"/stats?start_time=2000-01-01T00:00:00Z", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	var s struct {
		Total float64 `json:"total_predictions"`
	}
	_ = json.NewDecoder(res.Body).Decode(&s)
	return s.Total
}

package benchmarks

import (
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// singleClients are the client counts BenchmarkSingleEvent measures.
var singleClients = []int{32, 256}

// BenchmarkSingleEvent sends b.N single predictions (POST
// /predictions/log) from 32 and from 256 clients over keep-alive
// connections and reports requests/s and the p50 and p99 of the request
// latency as the clients see it, on both pipelines and, as the baseline of
// the same run, on a bare Fiber handler that reads the body and answers
// 201 (no authentication, validation, rate limit or log).
func BenchmarkSingleEvent(b *testing.B) {
	for _, clients := range singleClients {
		b.Run(fmt.Sprintf("clients=%d", clients), func(b *testing.B) {
			b.Run("bare-fiber", func(b *testing.B) { singleEvents(b, bareServer(b), "key", "model", clients) })
			eachPipeline(b, func(b *testing.B, base string) {
				key := apiKey(b, base)
				singleEvents(b, base, key, modelID(b, base, key), clients)
			})
		})
	}
}

// singleEvents is BenchmarkSingleEvent against base with clients clients.
func singleEvents(b *testing.B, base, key, model string, clients int) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}}
	var next, failed atomic.Int64
	lat := make([][]time.Duration, clients)
	b.ResetTimer()
	start, cpu := time.Now(), readCPU(b)
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			for i := next.Add(1); i <= int64(b.N); i = next.Add(1) {
				body := fmt.Appendf(nil, `{"model_id":%q,"prediction_id":"s%d","input_data":{"age":%d,"plan":"pro"},`+
					`"output_data":{"churn":%t},"latency_ms":%d}`, model, i, i%90, i%3 == 0, i%50+1)
				t := time.Now()
				if postRaw(client, base+"/predictions/log", key, body) != http.StatusCreated {
					failed.Add(1)
				}
				lat[c] = append(lat[c], time.Since(t))
			}
		})
	}
	wg.Wait()
	elapsed, used := time.Since(start), readCPU(b)
	b.StopTimer()
	if failed.Load() > 0 {
		b.Fatalf("%d requests failed", failed.Load())
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	reportLatency(b, all, "request")
	// Whether the rate is bound by the cores or by waiting (a commit, a
	// broker's ack): the process's CPU (server and clients) per request and
	// the cores it kept busy; the machine's (engines too) beside them.
	process, machine := used.process-cpu.process, used.machine-cpu.machine
	b.ReportMetric(float64(process.Microseconds())/float64(b.N), "process-cpu-µs/req")
	b.ReportMetric(process.Seconds()/elapsed.Seconds(), "process-cores")
	if machine > 0 {
		b.ReportMetric(machine.Seconds()/elapsed.Seconds(), "machine-cores")
	}
}

// bareServer serves POST /predictions/log with a bare Fiber handler that
// reads the body and answers 201, and returns its base URL.
func bareServer(b *testing.B) string {
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Post("/predictions/log", func(c *fiber.Ctx) error {
		if len(c.Body()) == 0 {
			return c.SendStatus(http.StatusBadRequest)
		}
		return c.SendStatus(http.StatusCreated)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	b.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

// lagLoad is the background load, in predictions per second, under which
// BenchmarkLag measures: 100-prediction batches at a steady pace.
// VIGIL_BENCH_LAG_RATE sets another.
func lagLoad(b *testing.B) int {
	if v := os.Getenv("VIGIL_BENCH_LAG_RATE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 100 {
			b.Fatalf("VIGIL_BENCH_LAG_RATE=%q: want a whole number of predictions a second, at least 100", v)
		}
		return n
	}
	return 10_000
}

// BenchmarkLag measures freshness: the time from the 201 of a logged
// prediction until GET .../predictions/{id} finds it (polled every 2 ms),
// for b.N probes one after another while other clients keep logging
// lagLoad predictions a second. Reports the p50 and p99 lag, and the load
// the clients reached (load-pred/s: predictions answered 201 a second).
func BenchmarkLag(b *testing.B) {
	eachPipeline(b, func(b *testing.B, base string) {
		key := apiKey(b, base)
		model := modelID(b, base, key)
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var logged atomic.Int64
		rate := lagLoad(b)
		wg.Go(func() { steadyLoad(client, base, key, model, rate, &logged, stop) })
		defer func() { close(stop); wg.Wait() }()
		time.Sleep(time.Second) // the load reaches its pace
		lags := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		start, before := time.Now(), logged.Load()
		for i := range b.N {
			id := fmt.Sprintf("probe-%d", i)
			body := fmt.Appendf(nil, `{"model_id":%q,"prediction_id":%q,"input_data":{},"output_data":{}}`, model, id)
			if code := postRaw(client, base+"/predictions/log", key, body); code != http.StatusCreated {
				b.Fatalf("probe: got %d, want 201", code)
			}
			acked := time.Now()
			for deadline := acked.Add(time.Minute); getStatus(client, base+"/predictions/models/"+model+"/predictions/"+id, key) != http.StatusOK; {
				if time.Now().After(deadline) {
					b.Fatalf("probe %s not queryable within a minute", id)
				}
				time.Sleep(2 * time.Millisecond)
			}
			lags = append(lags, time.Since(acked))
		}
		b.StopTimer()
		b.ReportMetric(float64(logged.Load()-before)/time.Since(start).Seconds(), "load-pred/s")
		reportLatency(b, lags, "lag")
	})
}

// steadyLoad logs rate predictions a second in 100-prediction batches
// until stop closes, counting those answered 201 in logged.
func steadyLoad(client *http.Client, base, key, model string, rate int, logged *atomic.Int64, stop <-chan struct{}) {
	const perBatch = 100
	tick := time.NewTicker(time.Second * perBatch / time.Duration(rate))
	defer tick.Stop()
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		body := fmt.Appendf(nil, `{"model_id":%q,"predictions":[`, model)
		for j := range perBatch {
			if j > 0 {
				body = append(body, ',')
			}
			body = fmt.Appendf(body, `{"prediction_id":"l%d-%d","input_data":{"age":%d},"output_data":{"churn":true},"latency_ms":3}`, n, j, j)
		}
		body = append(body, "]}"...)
		if postRaw(client, base+"/predictions/log/batch", key, body) == http.StatusCreated {
			logged.Add(perBatch)
		}
	}
}

func getStatus(client *http.Client, url, key string) int {
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}

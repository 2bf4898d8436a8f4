package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/config"
)

// Shape of BenchmarkAlertDelivery.
const (
	deliveryModels = 100   // models, one p95-latency rule each
	deliveryLoad   = 10000 // background predictions a second
)

// BenchmarkAlertDelivery measures how long an alert takes to page: per
// round (b.N rounds of two minutes), every one of deliveryModels models
// gets a burst of slow predictions at a random second of the first minute,
// which breaks its rule (p95 latency over 500 ms in a 1-minute window),
// and a burst of fast ones in the second minute, which resolves the alert
// so that the next round opens a new one; all the while a background model
// receives deliveryLoad predictions a second. A webhook receiver on
// loopback notes when each alert.opened arrives. It reports, p50 and p99:
//   - event: from sending the slow burst to the delivery; at least the
//     rest of the burst's minute, since a 1-minute window is judged once
//     the minute has ended;
//   - close: from the end of that minute to the delivery: Vigil's own
//     delay (settle, the wait for the processors to land the minute,
//     evaluation, outbox, dispatch);
//   - land: from sending one prediction of a probe model (one a second) to
//     stats counting it: how far the processors lag under this load, the
//     baseline of close's wait for a minute to land, in the same run;
//   - bare-webhook: a POST of the same payload straight to the receiver
//     from this process, the floor of the last step, in the same run;
//
// the means of the evaluator's own histograms, delay-mean-s (minute end
// to evaluation start: settle plus the wait for the processors) and
// pass-mean-s (evaluation), and load/s, the background rate achieved.
func BenchmarkAlertDelivery(b *testing.B) {
	rec := &deliveries{arrived: map[string]time.Time{}}
	hook := httptest.NewServer(rec)
	b.Cleanup(hook.Close)
	eachPipelineWith(b, func(c *config.Config) { c.OutboundAllow = []string{"127.0.0.1"} }, func(b *testing.B, base string) {
		benchAlertDelivery(b, base, hook.URL, rec)
	})
}

// deliveries is the webhook receiver: the arrival of each alert.opened,
// by model and window end.
type deliveries struct {
	mu      sync.Mutex
	arrived map[string]time.Time
	body    []byte // one payload, for the bare baseline
}

func (d *deliveries) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	now := time.Now()
	body, _ := io.ReadAll(r.Body)
	var p struct {
		Event string `json:"event"`
		Alert struct {
			ModelID   string    `json:"model_id"`
			WindowEnd time.Time `json:"window_end"`
		} `json:"alert"`
	}
	if json.Unmarshal(body, &p) == nil && p.Event == "alert.opened" {
		d.mu.Lock()
		k := p.Alert.ModelID + "@" + p.Alert.WindowEnd.UTC().Format(time.RFC3339)
		if _, ok := d.arrived[k]; !ok {
			d.arrived[k] = now
		}
		d.body = body
		d.mu.Unlock()
	}
	w.WriteHeader(http.StatusNoContent)
}

func (d *deliveries) at(model string, windowEnd time.Time) (time.Time, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t, ok := d.arrived[model+"@"+windowEnd.UTC().Format(time.RFC3339)]
	return t, ok
}

func benchAlertDelivery(b *testing.B, base, hookURL string, rec *deliveries) {
	key := apiKey(b, base)
	background := modelID(b, base, key)
	models := make([]string, deliveryModels)
	for i := range models {
		models[i] = post(b, base+"/models", key, map[string]any{"name": fmt.Sprint("paged-", i), "model_type": "classification"})["id"].(string)
		post(b, base+"/alerts/rules", key, map[string]any{"name": fmt.Sprint("slow ", i), "alert_type": "performance", "severity": "high",
			"model_id": models[i], "cooldown_minutes": 0,
			"conditions":            []map[string]any{{"metric_name": "latency_p95_ms", "operator": "gt", "threshold": 500, "window_minutes": 1}},
			"notification_channels": []map[string]any{{"type": "webhook", "target": hookURL + "/vigil"}}})
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	stop := make(chan struct{})
	var sent atomic.Int64
	loadDone := make(chan struct{})
	go func() { // deliveryLoad a second, in batches of 1000
		defer close(loadDone)
		tick := time.NewTicker(time.Second * 1000 / deliveryLoad)
		defer tick.Stop()
		var wg sync.WaitGroup
		for i := 0; ; i++ {
			select {
			case <-stop:
				wg.Wait()
				return
			case <-tick.C:
			}
			wg.Go(func() {
				if postRaw(client, base+"/predictions/log/batch", key, batchBody(background, "load", i)) == http.StatusCreated {
					sent.Add(1000)
				}
			})
		}
	}()
	probe := post(b, base+"/models", key, map[string]any{"name": "probe", "model_type": "classification"})["id"].(string)
	var land []time.Duration
	probeDone := make(chan struct{})
	go func() { // one prediction a second, timed until stats count it
		defer close(probeDone)
		stored := 0
		for i := 1; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(time.Second):
			}
			body, _ := json.Marshal(map[string]any{"model_id": probe, "predictions": []map[string]any{{"prediction_id": fmt.Sprint("probe-", i),
				"input_data": map[string]any{"age": i}, "output_data": map[string]any{"churn": true}, "latency_ms": 1}}})
			t := time.Now()
			if postRaw(client, base+"/predictions/log/batch", key, body) != http.StatusCreated {
				continue
			}
			stored++
			for total(b, base, key, probe) < float64(stored) {
				time.Sleep(20 * time.Millisecond)
			}
			land = append(land, time.Since(t))
		}
	}()
	var event, closed []time.Duration
	b.ResetTimer()
	start := time.Now()
	for round := range b.N {
		minute := time.Now().Truncate(time.Minute).Add(time.Minute)
		sentAt := burstAll(b, client, base, key, models, minute, fmt.Sprint("slow", round), 900)
		burstAll(b, client, base, key, models, minute.Add(time.Minute), fmt.Sprint("fast", round), 5)
		end := minute.Add(time.Minute)
		for i, m := range models {
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
				if at, ok := rec.at(m, end); ok {
					event, closed = append(event, at.Sub(sentAt[i])), append(closed, at.Sub(end))
					break
				}
				if time.Now().After(deadline) {
					b.Fatalf("round %d: model %d's alert for the minute ending %v not delivered within 2 minutes", round, i, end)
				}
			}
		}
	}
	elapsed := time.Since(start)
	close(stop)
	<-loadDone
	<-probeDone
	b.StopTimer()
	reportLatency(b, land, "land")
	reportLatency(b, event, "event")
	reportLatency(b, closed, "close")
	reportLatency(b, bareWebhook(b, client, hookURL+"/vigil", rec), "bare-webhook")
	b.ReportMetric(float64(sent.Load())/elapsed.Seconds(), "load/s")
	metrics := scrape(b, strings.TrimSuffix(base, "/api/v1")+"/metrics")
	for name, unit := range map[string]string{"vigil_alert_minute_delay_seconds": "delay-mean-s", "vigil_alert_evaluation_seconds": "pass-mean-s"} {
		if n := metrics[name+"_count"]; n > 0 {
			b.ReportMetric(metrics[name+"_sum"]/n, unit)
		}
	}
}

// scrape reads the unlabelled samples of a Prometheus text page.
func scrape(b *testing.B, url string) map[string]float64 {
	res, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	out := map[string]float64{}
	for line := range strings.Lines(string(body)) {
		name, value, ok := strings.Cut(strings.TrimSpace(line), " ")
		if ok && !strings.HasPrefix(name, "#") && !strings.Contains(name, "{") {
			if v, err := strconv.ParseFloat(value, 64); err == nil {
				out[name] = v
			}
		}
	}
	return out
}

// burstAll sends each model a burst of 5 predictions of latency ms at a
// random second of the minute starting at minute, and returns when each
// burst was sent; it returns once every burst is sent.
func burstAll(b *testing.B, client *http.Client, base, key string, models []string, minute time.Time, prefix string, latency float64) []time.Time {
	sentAt := make([]time.Time, len(models))
	var wg sync.WaitGroup
	for i, m := range models {
		at := minute.Add(time.Duration(rand.IntN(50_000)) * time.Millisecond)
		wg.Go(func() {
			time.Sleep(time.Until(at))
			items := make([]map[string]any, 5)
			for j := range items {
				items[j] = map[string]any{"prediction_id": fmt.Sprintf("%s-%d-%d", prefix, i, j), "input_data": map[string]any{"age": j},
					"output_data": map[string]any{"churn": true}, "latency_ms": latency}
			}
			body, _ := json.Marshal(map[string]any{"model_id": m, "predictions": items})
			sentAt[i] = time.Now()
			if code := postRaw(client, base+"/predictions/log/batch", key, body); code != http.StatusCreated {
				b.Errorf("burst of model %d: got status %d, want 201", i, code)
			}
		})
	}
	wg.Wait()
	return sentAt
}

// bareWebhook posts a delivered payload straight to url 200 times.
func bareWebhook(b *testing.B, client *http.Client, url string, rec *deliveries) []time.Duration {
	rec.mu.Lock()
	body := rec.body
	rec.mu.Unlock()
	out := make([]time.Duration, 200)
	for i := range out {
		t := time.Now()
		res, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		res.Body.Close()
		out[i] = time.Since(t)
	}
	return out
}

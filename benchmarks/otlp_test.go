package benchmarks

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/platform/testenv"
)

// otlpSpans is how many spans one iteration of BenchmarkOTLPIngest sends.
const otlpSpans = 20_000

// otlpConns is how many connections the Go client exports from at once.
const otlpConns = 4

// BenchmarkOTLPIngest measures the OTLP/HTTP trace receiver on the
// embedded default: otlp_spans.py exports otlpSpans GenAI spans with the
// OpenTelemetry Python SDK's exporter (protobuf, batches of 512, one
// thread), and the benchmark waits until GET /llm/metrics counts them all.
// It reports spans/s accepted (answered 200, durable in the log, per second
// of exporting) and spans/s until queryable (from the first export until
// all are counted). The baseline, in the same run on the same server: the
// same completions sent as POST /llm/completions/batch of 512 from one
// client (batch/s and batch-e2e/s, completions per second).
func BenchmarkOTLPIngest(b *testing.B) {
	py := testenv.URL(b, testenv.OTelPython)
	base := server(b, nil)
	key := apiKey(b, base)
	root := strings.TrimSuffix(base, "/api/v1")
	var accepted, queryable, goAccepted, goQueryable, batchAccepted, batchQueryable time.Duration
	for i := range b.N {
		model := post(b, base+"/models", key, map[string]any{"name": fmt.Sprintf("otlp-%d", i), "model_type": "llm"})["id"].(string)
		cmd := exec.Command(py, "otlp_spans.py")
		cmd.Env = append(os.Environ(), "SPANS="+strconv.Itoa(otlpSpans), "MODEL_ID="+model,
			"OTEL_EXPORTER_OTLP_ENDPOINT="+root, "OTEL_EXPORTER_OTLP_HEADERS=Authorization=Bearer%20"+key,
			"NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1")
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("otlp_spans.py: %v %s", err, out)
		}
		var begin, end float64
		if _, err := fmt.Sscan(string(out), &begin, &end); err != nil {
			b.Fatalf("otlp_spans.py printed %q: %v", out, err)
		}
		waitCompletions(b, base, key, model, otlpSpans)
		start := time.Unix(0, int64(begin*1e9))
		accepted += time.Duration((end - begin) * 1e9)
		queryable += time.Since(start)

		gomodel := post(b, base+"/models", key, map[string]any{"name": fmt.Sprintf("otlp-go-%d", i), "model_type": "llm"})["id"].(string)
		bodies := otlpBodies(b, gomodel, otlpSpans, 512, uint64(time.Now().UnixNano()))
		start = time.Now()
		if rejected := exportOTLP(b, root, key, bodies, otlpConns); rejected != 0 {
			b.Fatalf("%d spans rejected", rejected)
		}
		goAccepted += time.Since(start)
		waitCompletions(b, base, key, gomodel, otlpSpans)
		goQueryable += time.Since(start)

		batch := post(b, base+"/models", key, map[string]any{"name": fmt.Sprintf("batch-%d", i), "model_type": "llm"})["id"].(string)
		client := &http.Client{}
		start = time.Now()
		for j := 0; j < otlpSpans; j += 512 {
			if code := postRaw(client, base+"/llm/completions/batch", key, completionBatch(batch, j, min(512, otlpSpans-j))); code != http.StatusCreated {
				b.Fatalf("batch answered %d", code)
			}
		}
		batchAccepted += time.Since(start)
		waitCompletions(b, base, key, batch, otlpSpans)
		batchQueryable += time.Since(start)
	}
	n := float64(b.N * otlpSpans)
	b.ReportMetric(n/accepted.Seconds(), "spans/s")
	b.ReportMetric(n/queryable.Seconds(), "spans-e2e/s")
	b.ReportMetric(n/goAccepted.Seconds(), "go-spans/s")
	b.ReportMetric(n/goQueryable.Seconds(), "go-spans-e2e/s")
	b.ReportMetric(n/batchAccepted.Seconds(), "batch/s")
	b.ReportMetric(n/batchQueryable.Seconds(), "batch-e2e/s")
}

// completionBatch is the body of n completions like otlp_spans.py's from
// the i-th on, for model.
func completionBatch(model string, i, n int) []byte {
	items := make([]map[string]any, n)
	for j := range items {
		k := i + j
		items[j] = map[string]any{"completion_id": fmt.Sprintf("c-%d", k), "provider": "openai", "model_name": "gpt-4o-mini",
			"prompt":     fmt.Sprintf("Summarise ticket %d: ", k) + strings.Repeat("the customer cannot log in after the update. ", 4),
			"completion": fmt.Sprintf("Ticket %d: ", k) + strings.Repeat("reset the session token and retry the login. ", 4),
			"tokens":     map[string]any{"prompt_tokens": 120 + k%50, "completion_tokens": 40 + k%20},
			"latency_ms": 200 + k%300}
	}
	body, _ := json.Marshal(map[string]any{"model_id": model, "completions": items})
	return body
}

// waitCompletions waits until GET /llm/metrics counts n completions of model.
func waitCompletions(b *testing.B, base, key, model string, n int) {
	b.Helper()
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
		req, _ := http.NewRequest("GET", base+"/llm/metrics?model_id="+model, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		var m struct {
			Totals struct {
				Completions float64 `json:"completions"`
			} `json:"totals"`
		}
		_ = json.NewDecoder(res.Body).Decode(&m)
		res.Body.Close()
		if m.Totals.Completions >= float64(n) {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("%v of %d completions counted after 5 minutes", m.Totals.Completions, n)
		}
	}
}

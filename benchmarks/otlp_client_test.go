package benchmarks

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpBodies are n spans like otlp_spans.py's for model, as OTLP/HTTP
// protobuf exports of batch spans each (the BatchSpanProcessor's 512),
// encoded before anything is timed. seed keeps trace ids apart between
// runs.
func otlpBodies(b *testing.B, model string, n, batch int, seed uint64) [][]byte {
	b.Helper()
	str := func(k, v string) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
	}
	num := func(k string, v int) *commonpb.KeyValue {
		return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(v)}}}
	}
	res := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "bench-app"), str("vigil.model_id", model)}}
	t0 := uint64(time.Now().UnixNano())
	var out [][]byte
	for lo := 0; lo < n; lo += batch {
		var spans []*tracepb.Span
		for i := lo; i < min(lo+batch, n); i++ {
			trace, span := make([]byte, 16), make([]byte, 8)
			binary.BigEndian.PutUint64(trace, seed)
			binary.BigEndian.PutUint64(trace[8:], uint64(i))
			binary.BigEndian.PutUint64(span, uint64(i)+1)
			start := t0 + uint64(i)*1e6
			spans = append(spans, &tracepb.Span{TraceId: trace, SpanId: span, Name: "chat gpt-4o-mini",
				Kind: tracepb.Span_SPAN_KIND_CLIENT, StartTimeUnixNano: start, EndTimeUnixNano: start + uint64(200+i%300)*1e6,
				Attributes: []*commonpb.KeyValue{str("gen_ai.system", "openai"), str("gen_ai.operation.name", "chat"),
					str("gen_ai.request.model", "gpt-4o-mini"), num("gen_ai.usage.input_tokens", 120+i%50),
					num("gen_ai.usage.output_tokens", 40+i%20),
					str("gen_ai.prompt", fmt.Sprintf("Summarise ticket %d: ", i)+strings.Repeat("the customer cannot log in after the update. ", 4)),
					str("gen_ai.completion", fmt.Sprintf("Ticket %d: ", i)+strings.Repeat("reset the session token and retry the login. ", 4))}})
		}
		body, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
			Resource: res, ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "bench"}, Spans: spans}}}}})
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, body)
	}
	return out
}

// exportOTLP posts bodies to the OTLP/HTTP traces endpoint at root from
// conns connections at once, and returns how many spans the server
// rejected (partial_success); any answer but 200 fails the benchmark.
func exportOTLP(b *testing.B, root, key string, bodies [][]byte, conns int) int64 {
	b.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}}
	next := make(chan []byte)
	var mu sync.Mutex
	var rejected int64
	var failure error
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for body := range next {
				n, err := postOTLP(client, root+"/v1/traces", key, body)
				mu.Lock()
				rejected += n
				if err != nil && failure == nil {
					failure = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, body := range bodies {
		next <- body
	}
	close(next)
	wg.Wait()
	if failure != nil {
		b.Fatal(failure)
	}
	return rejected
}

// postOTLP sends one protobuf export and returns its rejected spans.
func postOTLP(client *http.Client, url, key string, body []byte) (int64, error) {
	req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, err
	}
	if res.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("POST /v1/traces answered %d: %s", res.StatusCode, out)
	}
	var resp coltracepb.ExportTraceServiceResponse
	if err := proto.Unmarshal(out, &resp); err != nil {
		return 0, err
	}
	return resp.GetPartialSuccess().GetRejectedSpans(), nil
}

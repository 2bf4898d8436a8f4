// Package otlptest makes OTLP/HTTP trace exports of GenAI chat spans and
// sends them, for the tests and benchmarks that load the OTLP receiver:
// span i of a run (a seed) has its own trace and span id, so that a
// caller can tell which spans of those it sent were stored.
//
// It imports the OTLP protobuf types and nothing of Vigil.
package otlptest

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Export is one OTLP/HTTP protobuf export of the spans From..From+N-1.
type Export struct {
	From, N int
	Body    []byte
}

// Exports encodes spans 0..n-1 of run seed for the Vigil model (its
// vigil.model_id resource attribute) in exports of batch spans each.
func Exports(model string, seed uint64, n, batch int) ([]Export, error) {
	var out []Export
	for lo := 0; lo < n; lo += batch {
		e, err := Encode(model, seed, lo, min(batch, n-lo))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Encode makes the export of spans from..from+n-1 of run seed for model:
// GenAI chat spans of gpt-4o-mini from openai with tokens, a prompt and a
// completion of about 200 characters, 200-499 ms long, as otlp_spans.py's.
func Encode(model string, seed uint64, from, n int) (Export, error) {
	res := &resourcepb.Resource{Attributes: []*commonpb.KeyValue{str("service.name", "bench-app"), str("vigil.model_id", model)}}
	t0 := uint64(time.Now().UnixNano())
	spans := make([]*tracepb.Span, 0, n)
	for i := from; i < from+n; i++ {
		trace, span := ids(seed, i)
		start := t0 + uint64(i-from)*1e6
		spans = append(spans, &tracepb.Span{TraceId: trace, SpanId: span, Name: "chat gpt-4o-mini",
			Kind: tracepb.Span_SPAN_KIND_CLIENT, StartTimeUnixNano: start, EndTimeUnixNano: start + uint64(200+i%300)*1e6,
			Attributes: []*commonpb.KeyValue{str("gen_ai.system", "openai"), str("gen_ai.operation.name", "chat"),
				str("gen_ai.request.model", "gpt-4o-mini"), num("gen_ai.usage.input_tokens", 120+i%50),
				num("gen_ai.usage.output_tokens", 40+i%20),
				str("gen_ai.prompt", fmt.Sprintf("Summarise ticket %d: ", i)+strings.Repeat("the customer cannot log in after the update. ", 4)),
				str("gen_ai.completion", fmt.Sprintf("Ticket %d: ", i)+strings.Repeat("reset the session token and retry the login. ", 4))}})
	}
	body, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: []*tracepb.ResourceSpans{{
		Resource: res, ScopeSpans: []*tracepb.ScopeSpans{{Scope: &commonpb.InstrumentationScope{Name: "otlptest"}, Spans: spans}}}}})
	if err != nil {
		return Export{}, fmt.Errorf("encode spans %d-%d: %w", from, from+n-1, err)
	}
	return Export{From: from, N: n, Body: body}, nil
}

// CompletionID is the completion id Vigil logs span i of run seed under:
// its trace id and span id in hex.
func CompletionID(seed uint64, i int) string {
	trace, span := ids(seed, i)
	return hex.EncodeToString(trace) + "-" + hex.EncodeToString(span)
}

func ids(seed uint64, i int) (trace, span []byte) {
	trace, span = make([]byte, 16), make([]byte, 8)
	binary.BigEndian.PutUint64(trace, seed)
	binary.BigEndian.PutUint64(trace[8:], uint64(i))
	binary.BigEndian.PutUint64(span, uint64(i)+1)
	return trace, span
}

// Post sends one export to url (a server's /v1/traces) with key as its
// bearer token. It returns the status (0 when no answer came: the export
// may or may not have been taken) and, on a 200, how many spans the answer's
// partial_success rejected.
func Post(client *http.Client, url, key string, body []byte) (status int, rejected int64, err error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("Authorization", "Bearer "+key)
	res, err := client.Do(req)
	if err != nil {
		return 0, 0, err
	}
	defer res.Body.Close()
	out, err := io.ReadAll(res.Body)
	if err != nil {
		return 0, 0, err
	}
	if res.StatusCode != http.StatusOK {
		return res.StatusCode, 0, fmt.Errorf("POST %s answered %d: %s", url, res.StatusCode, out)
	}
	var resp coltracepb.ExportTraceServiceResponse
	if err := proto.Unmarshal(out, &resp); err != nil {
		return res.StatusCode, 0, fmt.Errorf("POST %s: the answer is not an OTLP response: %w", url, err)
	}
	return res.StatusCode, resp.GetPartialSuccess().GetRejectedSpans(), nil
}

func str(k, v string) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v}}}
}

func num(k string, v int) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: k, Value: &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: int64(v)}}}
}

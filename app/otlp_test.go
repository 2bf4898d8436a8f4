package app

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// otlpSpan is one span of an OTLP JSON export: ids in hex, times as
// decimal strings, attributes as OTLP's key-value list.
func otlpSpan(trace, span string, startMS, durMS int, attrs map[string]any, status int) map[string]any {
	var kvs []any
	for k, v := range attrs {
		var val map[string]any
		switch v := v.(type) {
		case string:
			val = map[string]any{"stringValue": v}
		case int:
			val = map[string]any{"intValue": fmt.Sprint(v)}
		}
		kvs = append(kvs, map[string]any{"key": k, "value": val})
	}
	start := int64(1_700_000_000_000+startMS) * 1e6
	return map[string]any{"traceId": trace, "spanId": span, "name": "chat", "kind": 3,
		"startTimeUnixNano": fmt.Sprint(start), "endTimeUnixNano": fmt.Sprint(start + int64(durMS)*1e6),
		"attributes": kvs, "status": map[string]any{"code": status}}
}

// otlpExport is an export of resources, each its resource attributes and
// spans.
func otlpExport(resources ...[2]any) []byte {
	var rs []any
	for _, r := range resources {
		var kvs []any
		for k, v := range r[0].(map[string]string) {
			kvs = append(kvs, map[string]any{"key": k, "value": map[string]any{"stringValue": v}})
		}
		rs = append(rs, map[string]any{"resource": map[string]any{"attributes": kvs},
			"scopeSpans": []any{map[string]any{"scope": map[string]any{"name": "test"}, "spans": r[1]}}})
	}
	b, _ := json.Marshal(map[string]any{"resourceSpans": rs})
	return b
}

// postOTLP posts body to path (root: for the server's root) as ctype,
// gzipped when zip is true.
func (s *server) postOTLP(path, key, ctype string, body []byte, zip bool) response {
	s.t.Helper()
	url := s.base + path
	if root, ok := strings.CutPrefix(path, "root:"); ok {
		url = strings.TrimSuffix(s.base, "/api/v1") + root
	}
	if zip {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		_, _ = w.Write(body)
		_ = w.Close()
		body = b.Bytes()
	}
	req, err := http.NewRequest("POST", url, bytes.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", ctype)
	if zip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	req.Header.Set("Authorization", "Bearer "+key)
	return s.send(req)
}

// TestOTLPTraces posts an OTLP JSON export, gzipped, at the server's root:
// the GenAI spans of service "chatbot" become completions of a model
// registered under that name, the OpenInference span of a resource naming
// vigil.model_id one of that model, the HTTP span is ignored and the span
// with a negative token count is rejected in partial_success. Sent again
// under /api/v1, nothing is counted twice. A key that may not write models
// cannot register one; other media types answer 415, a body that is no
// export 400. On both pipelines.
func TestOTLPTraces(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		own := s.model(key, "rag", "1")
		const trace = "5b8efff798038103d269b633813fc60c"
		genai := func(span string, start, dur, in, out int, status int) map[string]any {
			return otlpSpan(trace, span, start, dur, map[string]any{"gen_ai.system": "openai", "gen_ai.operation.name": "chat",
				"gen_ai.request.model": "gpt-4o", "gen_ai.usage.input_tokens": in, "gen_ai.usage.output_tokens": out,
				"gen_ai.input.messages": `[{"role":"user","content":"hi"}]`}, status)
		}
		export := otlpExport(
			[2]any{map[string]string{"service.name": "chatbot"}, []any{
				genai("eee19b7ec3c1b174", 0, 100, 1000, 100, 0),
				genai("eee19b7ec3c1b175", 10, 300, 2000, 200, 2),
				otlpSpan(trace, "eee19b7ec3c1b176", 0, 500, map[string]any{"http.request.method": "POST"}, 0),
				genai("eee19b7ec3c1b177", 20, 50, -5, 1, 0),
			}},
			[2]any{map[string]string{"service.name": "ignored-name", "vigil.model_id": own}, []any{
				otlpSpan(trace, "eee19b7ec3c1b178", 0, 200, map[string]any{"openinference.span.kind": "LLM",
					"llm.model_name": "llama-3", "llm.provider": "meta", "llm.token_count.prompt": 30,
					"llm.token_count.completion": 20, "llm.token_count.total": 50, "input.value": "question",
					"output.value": "answer"}, 1),
			}})
		r := s.postOTLP("root:/v1/traces", key, "application/json", export, true).want(t, 200)
		if r.header.Get("Content-Type") != "application/json" || r.at("partialSuccess.rejectedSpans") != "1" ||
			!strings.Contains(r.str("partialSuccess.errorMessage"), "tokens") {
			t.Fatalf("got %s (%s), want one span rejected for its tokens", r.raw, r.header.Get("Content-Type"))
		}
		r = s.postOTLP("/v1/traces", key, "application/json; charset=utf-8", export, false).want(t, 200)
		if r.at("partialSuccess.rejectedSpans") != "1" {
			t.Fatalf("got %s, want the same answer again", r.raw)
		}
		models := s.do("GET", "/models?search=chatbot", key, nil).want(t, 200)
		if len(models.list) != 1 {
			t.Fatalf("got %s, want the model chatbot registered once", models.raw)
		}
		chatbot := models.list[0].(map[string]any)
		if chatbot["model_type"] != "llm" || chatbot["version"] != "1" {
			t.Errorf("got %v, want an llm model of version 1", chatbot)
		}
		var m response
		waitFor(t, "the chatbot's two completions", func() bool {
			m = s.do("GET", "/llm/metrics?model_id="+chatbot["id"].(string), key, nil).want(t, 200)
			return m.at("totals.completions") == 2.0
		})
		// gpt-4o's built-in price: 2.50 and 10.00 per million.
		if m.at("totals.prompt_tokens") != 3000.0 || m.at("totals.completion_tokens") != 300.0 || m.at("totals.errors") != 1.0 ||
			!near(m.at("totals.total_cost").(float64), 3000*2.5/1e6+300*10/1e6) || m.at("by_provider.openai.completions") != 2.0 {
			t.Errorf("got %s, want 3000 + 300 tokens at gpt-4o's default price, one error", m.raw)
		}
		if avg, _ := m.at("totals.avg_latency_ms").(float64); !near(avg, 200) {
			t.Errorf("got mean latency %v, want 200 (100 and 300 ms spans)", m.at("totals.avg_latency_ms"))
		}
		waitFor(t, "the OpenInference completion", func() bool {
			m = s.do("GET", "/llm/metrics?model_id="+own, key, nil).want(t, 200)
			return m.at("totals.completions") == 1.0
		})
		if m.at("by_model.llama-3.total_tokens") != 50.0 || m.at("by_provider.meta.completions") != 1.0 || m.at("totals.errors") != 0.0 {
			t.Errorf("got %s, want the llama-3 call of 50 tokens from meta", m.raw)
		}

		writer, _ := s.key(s.admin(), "llm:write")
		r = s.postOTLP("root:/v1/traces", writer, "application/json", otlpExport(
			[2]any{map[string]string{"service.name": "newcomer"}, []any{genai("eee19b7ec3c1b179", 0, 10, 1, 1, 0)}}), false).want(t, 200)
		if r.at("partialSuccess.rejectedSpans") != "1" || !strings.Contains(r.str("partialSuccess.errorMessage"), "models:write") {
			t.Errorf("got %s, want the span rejected: the key may not register the model", r.raw)
		}
		s.postOTLP("root:/v1/traces", key, "text/plain", export, false).wantError(t, 415, "UNSUPPORTED_MEDIA_TYPE")
		s.postOTLP("root:/v1/traces", key, "application/x-protobuf", []byte("\xff\xff\xff"), false).wantError(t, 400, "BAD_REQUEST")
		s.postOTLP("root:/v1/traces", "", "application/json", export, false).wantError(t, 401, "AUTHENTICATION_FAILED")
		r = s.postOTLP("root:/v1/traces", key, "application/json", []byte(`{}`), false).want(t, 200)
		if string(r.raw) != "{}" {
			t.Errorf("got %s, want an empty response", r.raw)
		}
	})
}

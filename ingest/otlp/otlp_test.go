package otlp

import (
	"bytes"
	"compress/gzip"
	"errors"
	"testing"
)

const export = `{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"chat"}}]},
 "scopeSpans":[{"scope":{"name":"x"},"unknownMember":1,"spans":[
  {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b174","name":"chat gpt-4o","kind":3,
   "startTimeUnixNano":"1700000000000000000","endTimeUnixNano":"1700000000250000000",
   "attributes":[{"key":"gen_ai.system","value":{"stringValue":"openai"}},
     {"key":"gen_ai.request.model","value":{"stringValue":"gpt-4o"}},
     {"key":"gen_ai.response.model","value":{"stringValue":"gpt-4o-2024-08-06"}},
     {"key":"gen_ai.usage.input_tokens","value":{"intValue":"12"}},
     {"key":"gen_ai.usage.output_tokens","value":{"intValue":3}},
     {"key":"gen_ai.input.messages","value":{"arrayValue":{"values":[{"kvlistValue":{"values":[
        {"key":"role","value":{"stringValue":"user"}}]}}]}}}],
   "events":[{"name":"gen_ai.content.completion","attributes":[{"key":"gen_ai.completion","value":{"stringValue":"hello"}}]}],
   "status":{"code":2,"message":"rate limited"}},
  {"trace_id":"5b8efff798038103d269b633813fc60c","span_id":"eee19b7ec3c1b175","name":"GET /","attributes":[]},
  {"traceId":"5b8efff798038103d269b633813fc60c","spanId":"eee19b7ec3c1b176","name":"llm",
   "attributes":[{"key":"llm.model_name","value":{"stringValue":"llama-3"}},
     {"key":"llm.token_count.total","value":{"doubleValue":50}},
     {"key":"input.value","value":{"stringValue":"q"}},{"key":"output.value","value":{"stringValue":"a"}}]}
 ]}]}]}`

func TestCallsFromJSON(t *testing.T) {
	format, err := Format("application/json; charset=utf-8")
	if err != nil || format != JSON {
		t.Fatalf("got %q, %v, want JSON", format, err)
	}
	req, err := Decode([]byte(export), format)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	batches, ignored := Calls(req)
	if len(batches) != 1 || ignored != 1 || batches[0].ServiceName != "chat" || len(batches[0].Calls) != 2 {
		t.Fatalf("got %+v and %d ignored, want one resource of two calls, one span ignored", batches, ignored)
	}
	c := batches[0].Calls[0]
	if c.TraceID != "5b8efff798038103d269b633813fc60c" || c.SpanID != "eee19b7ec3c1b174" || c.Provider != "openai" ||
		c.ModelName != "gpt-4o-2024-08-06" || c.InputTokens != 12 || c.OutputTokens != 3 || c.TotalTokens != -1 ||
		c.Prompt != `[{"role":"user"}]` || c.Completion != "hello" || c.LatencyMS == nil || *c.LatencyMS != 250 ||
		c.Error != "rate limited" {
		t.Errorf("got %+v, want the GenAI call mapped", c)
	}
	o := batches[0].Calls[1]
	if o.ModelName != "llama-3" || o.Provider != "" || o.TotalTokens != 50 || o.InputTokens != -1 || o.Prompt != "q" ||
		o.Completion != "a" || o.LatencyMS != nil || o.Error != "" {
		t.Errorf("got %+v, want the OpenInference call mapped", o)
	}
}

func TestDecodeRefuses(t *testing.T) {
	if _, err := Format("text/plain"); !errors.Is(err, ErrMediaType) {
		t.Errorf("got %v for text/plain, want ErrMediaType", err)
	}
	for _, body := range []string{`{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"xyz"}]}]}]}`, `[]`, `{} {}`,
		`{"resourceSpans":5}`} {
		if _, err := Decode([]byte(body), JSON); err == nil {
			t.Errorf("Decode(%s): got no error, want one", body)
		}
	}
	if _, err := Decode([]byte{0xff, 0xff, 0xff}, Protobuf); err == nil {
		t.Error("got no error for a body that is no protobuf message")
	}
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = w.Write(make([]byte, 2000))
	_ = w.Close()
	if _, err := Inflate(b.Bytes(), "gzip", 1000); !errors.Is(err, ErrTooLarge) {
		t.Errorf("got %v, want ErrTooLarge past the limit", err)
	}
	if out, err := Inflate(b.Bytes(), "GZIP", 2000); err != nil || len(out) != 2000 {
		t.Errorf("got %d bytes, %v, want the 2000 bytes inflated", len(out), err)
	}
	if _, err := Inflate([]byte("x"), "br", 10); err == nil {
		t.Error("got no error for Content-Encoding br, want one")
	}
}

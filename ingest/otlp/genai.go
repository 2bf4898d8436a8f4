package otlp

import (
	"encoding/hex"
	"encoding/json"
	"strconv"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// Resource attributes that name a span's Vigil model.
const (
	AttrModelID     = "vigil.model_id"
	AttrServiceName = "service.name"
)

// Call is one LLM call read from a span.
type Call struct {
	// TraceID and SpanID are the span's ids in hex ("" when the span had
	// none of the right length).
	TraceID, SpanID string
	Name            string
	Provider        string
	ModelName       string
	Prompt          string
	Completion      string
	// Tokens are -1 when the span does not say.
	InputTokens, OutputTokens, TotalTokens int64
	// LatencyMS is the span's duration; nil when its times do not give one.
	LatencyMS *float64
	// Error is the span's error status message ("error" when it has none),
	// or its error.type; "" when it succeeded.
	Error string
}

// Batch is the LLM calls of one resource of an export.
type Batch struct {
	// ModelID is the resource's vigil.model_id, ServiceName its
	// service.name.
	ModelID, ServiceName string
	Calls                []Call
}

// Calls returns the LLM calls of req by resource, and how many spans were
// not LLM calls. A span is an LLM call when it names a model: the GenAI
// conventions' gen_ai.response.model or gen_ai.request.model, or
// OpenInference's llm.model_name. Any other span (HTTP, database, an
// OpenInference chain or retriever span) is not.
func Calls(req *coltracepb.ExportTraceServiceRequest) (batches []Batch, ignored int) {
	for _, rs := range req.GetResourceSpans() {
		res := attrs(rs.GetResource().GetAttributes())
		b := Batch{ModelID: res.str(AttrModelID), ServiceName: res.str(AttrServiceName)}
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				c, ok := call(sp)
				if !ok {
					ignored++
					continue
				}
				b.Calls = append(b.Calls, c)
			}
		}
		if len(b.Calls) > 0 {
			batches = append(batches, b)
		}
	}
	return batches, ignored
}

// call maps one span, or reports that it is not an LLM call.
func call(sp *tracepb.Span) (Call, bool) {
	v := span{traceID: sp.GetTraceId(), spanID: sp.GetSpanId(), name: sp.GetName(), attrs: attrs(sp.GetAttributes()),
		start: sp.GetStartTimeUnixNano(), end: sp.GetEndTimeUnixNano(),
		failed: sp.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR, message: sp.GetStatus().GetMessage()}
	for _, ev := range sp.GetEvents() {
		v.events = append(v.events, event{name: ev.GetName(), attrs: attrs(ev.GetAttributes())})
	}
	return v.call()
}

// attrSet is the attributes of a span, event or resource, however read.
type attrSet interface {
	// str is the attribute key as text: a string as it is, a number or
	// bool written out, an array or map as JSON; "" when missing.
	str(key string) string
	// count is the first of keys present as an integer (or an
	// integer-valued double or decimal string), -1 when none is.
	count(keys ...string) int64
}

// span is what the mapping reads of a span, from either decoder.
type span struct {
	traceID, spanID []byte
	name            string
	attrs           attrSet
	events          []event
	start, end      uint64
	// failed is a status code ERROR, message the status message.
	failed  bool
	message string
}

type event struct {
	name  string
	attrs attrSet
}

// call maps the span, or reports that it is not an LLM call.
func (sp span) call() (Call, bool) {
	a := sp.attrs
	c := Call{Name: sp.name,
		ModelName: first(a, "gen_ai.response.model", "gen_ai.request.model", "llm.model_name"),
		Provider:  first(a, "gen_ai.provider.name", "gen_ai.system", "llm.provider", "llm.system"),
		InputTokens: a.count("gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens",
			"llm.token_count.prompt"),
		OutputTokens: a.count("gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens",
			"llm.token_count.completion"),
		TotalTokens: a.count("llm.token_count.total", "gen_ai.usage.total_tokens"),
	}
	if c.ModelName == "" {
		return c, false
	}
	if id := sp.traceID; len(id) == 16 {
		c.TraceID = hex.EncodeToString(id)
	}
	if id := sp.spanID; len(id) == 8 {
		c.SpanID = hex.EncodeToString(id)
	}
	c.Prompt = first(a, "gen_ai.input.messages", "gen_ai.prompt", "input.value")
	c.Completion = first(a, "gen_ai.output.messages", "gen_ai.completion", "output.value")
	for _, ev := range sp.events {
		switch ev.name {
		case "gen_ai.content.prompt":
			if c.Prompt == "" {
				c.Prompt = first(ev.attrs, "gen_ai.prompt", "gen_ai.input.messages")
			}
		case "gen_ai.content.completion":
			if c.Completion == "" {
				c.Completion = first(ev.attrs, "gen_ai.completion", "gen_ai.output.messages")
			}
		}
	}
	if start, end := sp.start, sp.end; start > 0 && end >= start {
		ms := float64(end-start) / 1e6
		c.LatencyMS = &ms
	}
	if sp.failed {
		c.Error = sp.message
		if c.Error == "" {
			c.Error = first(a, "error.type")
		}
		if c.Error == "" {
			c.Error = "error"
		}
	}
	return c, true
}

// attributes is a span's or resource's attributes by key.
type attributes map[string]*commonpb.AnyValue

func attrs(kvs []*commonpb.KeyValue) attributes {
	a := make(attributes, len(kvs))
	for _, kv := range kvs {
		a[kv.GetKey()] = kv.GetValue()
	}
	return a
}

func (a attributes) str(key string) string {
	return text(a[key])
}

func text(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_ArrayValue, *commonpb.AnyValue_KvlistValue:
		b, _ := json.Marshal(plain(v))
		return string(b)
	}
	return ""
}

// plain is v as a JSON value.
func plain(v *commonpb.AnyValue) any {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return x.IntValue
	case *commonpb.AnyValue_DoubleValue:
		return x.DoubleValue
	case *commonpb.AnyValue_BoolValue:
		return x.BoolValue
	case *commonpb.AnyValue_ArrayValue:
		out := []any{}
		for _, e := range x.ArrayValue.GetValues() {
			out = append(out, plain(e))
		}
		return out
	case *commonpb.AnyValue_KvlistValue:
		out := map[string]any{}
		for _, kv := range x.KvlistValue.GetValues() {
			out[kv.GetKey()] = plain(kv.GetValue())
		}
		return out
	}
	return nil
}

// first is the first of keys present in a with a non-empty text.
func first(a attrSet, keys ...string) string {
	for _, k := range keys {
		if s := a.str(k); s != "" {
			return s
		}
	}
	return ""
}

func (a attributes) count(keys ...string) int64 {
	for _, k := range keys {
		switch x := a[k].GetValue().(type) {
		case *commonpb.AnyValue_IntValue:
			return x.IntValue
		case *commonpb.AnyValue_DoubleValue:
			if x.DoubleValue == float64(int64(x.DoubleValue)) {
				return int64(x.DoubleValue)
			}
		case *commonpb.AnyValue_StringValue:
			if n, err := strconv.ParseInt(x.StringValue, 10, 64); err == nil {
				return n
			}
		}
	}
	return -1
}

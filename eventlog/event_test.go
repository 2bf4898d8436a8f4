package eventlog

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"
)

// sameCodec fails t unless EncodeEvent writes event as the bytes
// encoding/json writes, and DecodeEvent decodes those bytes into a value
// deeply equal to encoding/json's.
func sameCodec[E any](t *testing.T, event E) {
	t.Helper()
	if p, ok := any(event).(Prediction); ok {
		samePrediction(t, p)
		return
	}
	want, wantErr := json.Marshal(event)
	got, gotErr := EncodeEvent(event)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("encoding %+v: got error %v, want %v", event, gotErr, wantErr)
	}
	if wantErr != nil {
		return
	}
	if string(got) != string(want) {
		t.Fatalf("encoding %+v:\ngot  %q\nwant %q", event, got, want)
	}
	var std, goccy E
	wantErr, gotErr = json.Unmarshal(want, &std), DecodeEvent(want, &goccy)
	if gotErr != nil || wantErr != nil {
		t.Fatalf("decoding %q: got error %v and %v, want none", want, gotErr, wantErr)
	}
	if !reflect.DeepEqual(goccy, std) {
		t.Fatalf("decoding %q: got %+v, want %+v", want, goccy, std)
	}
}

// codecStrings are strings that encoders have been seen to write apart:
// HTML, invalid UTF-8, line and paragraph separators, controls, NUL.
var codecStrings = []string{
	"", "plain", "<a href=\"x\">&amp;</a>", "\xff\xfe", "a\xc3", "\u2028\u2029", "\x00\x01\x1f\x7f", "é😀\ufffd",
	"tab\tline\nquote\"back\\slash/",
}

// codecNumbers are float64 values at the edges of the two notations
// encoding/json writes, and of the float64 range.
var codecNumbers = []float64{
	0, math.Copysign(0, -1), 1, -1.5, 0.1, 1e-6, 9.99999e-7, 1e20, 1e21, 123456789012345678, 1e300, -1e-300,
	math.MaxFloat64, math.SmallestNonzeroFloat64, 1.0 / 3, 5e-324, 0.000001234,
}

// codecDocuments are JSON texts of documents as callers send them.
var codecDocuments = []string{
	`{}`, `{"a":1}`, ` { "z" : 1E+2 , "a":"\u00e9\/\"<&>" ,"n":[ 1.50, -0, null, true ]} `,
	"{\"k\":\"\u2028\",\"big\":12345678901234567890123,\"neg\":-1e400}", `{"nested":{"deep":[{"x":[]}]}}`,
}

func TestEventCodecSameAsStd(t *testing.T) {
	ts := time.Date(2026, 11, 21, 10, 4, 5, 123456000, time.UTC)
	for i, s := range codecStrings {
		n := codecNumbers[i%len(codecNumbers)]
		doc := json.RawMessage(codecDocuments[i%len(codecDocuments)])
		meta := map[string]any{s: n, "list": []any{s, n, true, nil}, "nested": map[string]any{"<k>": s}}
		sameCodec(t, Prediction{OrgID: s, ModelID: s, PredictionID: s, InputData: doc, OutputData: doc,
			LatencyMS: &n, Metadata: doc, Timestamp: ts})
		sameCodec(t, Metric{OrgID: s, ID: s, ModelID: s, MetricType: s, Value: n, Metadata: meta, Timestamp: ts})
		sameCodec(t, Completion{OrgID: s, ID: s, ModelID: s, Provider: s, ModelName: s, Prompt: s, Completion: s,
			Tokens:    Tokens{PromptTokens: int64(i), CompletionTokens: math.MaxInt64, TotalTokens: math.MinInt64},
			LatencyMS: &n, Cost: n, Metadata: meta, Timestamp: ts.Add(time.Duration(i) * time.Hour)})
	}
	for _, n := range codecNumbers {
		sameCodec(t, Metric{Value: n, Metadata: map[string]any{"n": n}, Timestamp: ts})
	}
	for _, doc := range codecDocuments {
		sameCodec(t, Prediction{InputData: json.RawMessage(doc), OutputData: json.RawMessage(doc), Metadata: json.RawMessage(doc)})
	}
	sameCodec(t, Prediction{})
	sameCodec(t, Metric{})
	sameCodec(t, Completion{})
	sameCodec(t, Prediction{Timestamp: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))})
}

// FuzzEventCodecSameAsStd is TestEventCodecSameAsStd on arbitrary strings,
// numbers and documents (those that are valid JSON: the ingest path
// stores no other). Run it with
//
//	go test -run '^$' -fuzz FuzzEventCodecSameAsStd -fuzztime 3m ./ingest/
func FuzzEventCodecSameAsStd(f *testing.F) {
	for i, s := range codecStrings {
		f.Add(s, codecNumbers[i%len(codecNumbers)], []byte(codecDocuments[i%len(codecDocuments)]))
	}
	f.Fuzz(func(t *testing.T, s string, n float64, doc []byte) {
		if math.IsNaN(n) || math.IsInf(n, 0) {
			n = 0
		}
		if !json.Valid(doc) {
			doc = nil
		}
		ts := time.Unix(int64(n)%(1<<40), int64(len(s))).UTC()
		raw := json.RawMessage(doc)
		meta := map[string]any{s: n, "s": s}
		if doc != nil {
			var v any
			if err := json.Unmarshal(doc, &v); err == nil {
				meta["doc"] = v
			}
		}
		sameCodec(t, Prediction{OrgID: s, ModelID: s, PredictionID: s, InputData: raw, OutputData: raw, LatencyMS: &n,
			Metadata: raw, Timestamp: ts})
		sameCodec(t, Metric{ID: s, MetricType: s, Value: n, Metadata: meta, Timestamp: ts})
		sameCodec(t, Completion{Prompt: s, Completion: s, Tokens: Tokens{PromptTokens: int64(n)}, Cost: n, Metadata: meta,
			Timestamp: ts})
	})
}

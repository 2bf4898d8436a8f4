package ingest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/vigilhq/vigil/eventlog"
)

// BenchmarkEventCodec encodes events for the log and decodes them back,
// with encoding/json (as before) and with eventlog.EncodeEvent and DecodeEvent: a
// prediction of the benchmarks' shape and a metric.
func BenchmarkEventCodec(b *testing.B) {
	var p predictionRequest
	if err := json.Unmarshal([]byte(benchPrediction(1)), &p); err != nil {
		b.Fatal(err)
	}
	ts := time.Date(2026, 11, 21, 10, 4, 5, 123456000, time.UTC)
	prediction := eventlog.Prediction{OrgID: "org", ModelID: benchModel, PredictionID: p.PredictionID, InputData: p.InputData,
		OutputData: p.OutputData, LatencyMS: p.LatencyMS, Metadata: p.Metadata, Timestamp: ts}
	metric := eventlog.Metric{OrgID: "org", ID: "id", ModelID: benchModel, MetricType: "f1_score", Value: 0.8,
		Metadata: map[string]any{"split": "test", "n": 1000.0}, Timestamp: ts}
	codecs := []struct {
		name   string
		encode func(any) ([]byte, error)
		decode func([]byte, any) error
	}{
		{"encoding-json", json.Marshal, json.Unmarshal},
		{"goccy", eventlog.EncodeEvent, eventlog.DecodeEvent},
	}
	for _, c := range codecs {
		b.Run(c.name+"/prediction", func(b *testing.B) { benchmarkCodec(b, prediction, c.encode, c.decode) })
		b.Run(c.name+"/metric", func(b *testing.B) { benchmarkCodec(b, metric, c.encode, c.decode) })
	}
}

// benchmarkCodec times encoding event and decoding it back.
func benchmarkCodec[E any](b *testing.B, event E, encode func(any) ([]byte, error), decode func([]byte, any) error) {
	b.ReportAllocs()
	for b.Loop() {
		v, err := encode(event)
		if err != nil {
			b.Fatal(err)
		}
		var back E
		if err := decode(v, &back); err != nil {
			b.Fatal(err)
		}
	}
}

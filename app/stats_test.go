package app

import (
	"math"
	"testing"
)

// TestStatsPercentiles is issue 11's case through the API on both
// pipelines: latencies 9 and 12 answer p50 10.5, p95 11.85 and p99 11.97,
// as numpy.quantile does, not 9.
func TestStatsPercentiles(t *testing.T) {
	eachPipeline(t, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		model := s.model(key, "churn", "1")
		s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": []any{
			map[string]any{"input_data": map[string]any{}, "output_data": map[string]any{}, "latency_ms": 12},
			map[string]any{"input_data": map[string]any{}, "output_data": map[string]any{}, "latency_ms": 9},
		}}).want(t, 201)
		var st response
		waitFor(t, "both predictions in stats", func() bool {
			st = s.do("GET", "/predictions/models/"+model+"/stats", key, nil).want(t, 200)
			return st.at("total_predictions") == 2.0
		})
		for _, c := range []struct {
			field string
			want  float64
		}{{"avg_latency_ms", 10.5}, {"p50_latency_ms", 10.5}, {"p95_latency_ms", 11.85}, {"p99_latency_ms", 11.97}} {
			if got, ok := st.at(c.field).(float64); !ok || math.Abs(got-c.want) > 1e-9*c.want {
				t.Errorf("got %s %v, want %v", c.field, st.at(c.field), c.want)
			}
		}
	})
}

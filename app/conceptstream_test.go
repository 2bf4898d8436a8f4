package app

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/vigilhq/vigil/governance"
)

// TestConceptDriftOnTheStream: concept drift is reported by the processor
// role's schedule with no endpoint called, from both sources: a model
// whose predictions carry their labels (accuracy 90% in the reference
// day, 50% a day later), and a model whose accuracy is logged with POST
// /metrics and compared with its baseline_metrics.
func TestConceptDriftOnTheStream(t *testing.T) {
	for _, p := range pipelines {
		t.Run(p.name, func(t *testing.T) {
			s := startDrift(t, p.cfg(t))
			admin := s.admin()
			key, _ := s.key(admin, "read", "write")
			labelled, logged := s.model(key, "churn", "1"), s.model(key, "churn", "2")
			s.do("PUT", "/models/"+logged+"/baseline", key, map[string]any{"baseline_metrics": map[string]any{"accuracy": 0.9}}).want(t, 200)
			// Judged once the window holds all 200 labelled predictions.
			s.do("PUT", "/drift-config/"+labelled, key, map[string]any{"concept_drift_config": map[string]any{"enabled": true, "min_samples": 200}}).want(t, 200)
			traffic := func(wrongEvery int) {
				t.Helper()
				for _, model := range []string{labelled, logged} {
					items := make([]map[string]any, 200)
					for i := range items {
						label := i % 2
						if i%wrongEvery == 0 {
							label = 1 - label
						}
						items[i] = map[string]any{"input_data": map[string]any{"x": float64(i)}, "output_data": map[string]any{"prediction": i % 2}}
						if model == labelled {
							items[i]["metadata"] = map[string]any{"label": label}
						}
					}
					s.do("POST", "/predictions/log/batch", key, map[string]any{"model_id": model, "predictions": items}).want(t, 201)
				}
			}
			stored := func(n float64) {
				t.Helper()
				for _, model := range []string{labelled, logged} {
					s.waitStored(t, key, model, n)
				}
			}
			traffic(10)
			stored(200)
			s.app.skew.Store(int64(25 * time.Hour))
			// One value: a second could be counted after the run that reads the first.
			s.do("POST", "/metrics", key, map[string]any{"model_id": logged, "metric_type": "accuracy", "value": 0.61}).want(t, 201)
			traffic(2)
			stored(400)

			concept := func(model string) map[string]any {
				t.Helper()
				var reports []any
				waitFor(t, "a concept report", func() bool {
					reports, _ = s.do("GET", "/drift/reports?model_id="+model+"&drift_type=concept", key, nil).want(t, 200).at("reports").([]any)
					return len(reports) == 1
				})
				return reports[0].(map[string]any)
			}
			check := func(name string, r map[string]any, source, baseSource string, current, baseline, samples float64) {
				t.Helper()
				c, _ := r["concept"].(map[string]any)
				cur, _ := c["current"].(map[string]any)
				base, _ := c["baseline"].(map[string]any)
				deg := (baseline - current) / baseline
				if cur["source"] != source || base["source"] != baseSource || cur["samples"] != samples ||
					math.Abs(cur["value"].(float64)-current) > 1e-12 || math.Abs(base["value"].(float64)-baseline) > 1e-12 ||
					math.Abs(r["overall_drift_score"].(float64)-deg) > 1e-12 || r["severity"] != "high" || r["drift_detected"] != true {
					t.Fatalf("%s: got report %v, want accuracy %v from %s over %v against %v from %s, high severity",
						name, r, current, source, samples, baseline, baseSource)
				}
			}
			// The reference day: 1 in 10 wrong; the window: 1 in 2.
			check("labels", concept(labelled), "labels", "labels", 0.5, 0.9, 200)
			check("logged metric", concept(logged), "logged_metrics", "baseline_metrics", 0.61, 0.9, 1)

			events := governanceEvents(t, s, 2)
			if len(events) != 2 {
				t.Fatalf("got governance events %+v, want the 2 concept reports'", events)
			}
			for _, e := range events {
				if e.SourceType != governance.SourceDriftReport || e.Severity != "high" || !strings.HasPrefix(e.Summary, "concept drift at high severity: accuracy") {
					t.Errorf("got governance event %+v, want a concept report's at high severity", e)
				}
			}
		})
	}
}

package app

import (
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/vigilhq/vigil/platform/config"
)

// scrape reads the server's /metrics as Prometheus does.
func (s *server) scrape(t *testing.T) map[string]*dto.MetricFamily {
	t.Helper()
	r := s.do("GET", "root:/metrics", "", nil).want(t, 200)
	p := expfmt.NewTextParser(model.UTF8Validation)
	families, err := p.TextToMetricFamilies(strings.NewReader(string(r.raw)))
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	return families
}

// sum adds the values of family's series whose labels include want.
func sum(families map[string]*dto.MetricFamily, family string, want map[string]string) (total float64, series int) {
	for _, m := range families[family].GetMetric() {
		labels := map[string]string{}
		for _, l := range m.GetLabel() {
			labels[l.GetName()] = l.GetValue()
		}
		match := true
		for k, v := range want {
			match = match && labels[k] == v
		}
		if match {
			series++
			total += m.GetCounter().GetValue() + m.GetGauge().GetValue()
		}
	}
	return total, series
}

// TestPipelineMetrics: on each pipeline, the predictions a client logs
// are counted as processed and stored, the processors' consumer lag
// falls back to 0 once they are, and the build is named.
func TestPipelineMetrics(t *testing.T) {
	eachPipelineWith(t, func(c *config.Config) { c.Version = "v9.9.9-test" }, func(t *testing.T, s *server) {
		key, _ := s.key(s.admin(), "read", "write")
		l := newLedger(s, key, s.model(key, "churn", "1"))
		if status := l.send(t, 40); status != 201 {
			t.Fatalf("got %d logging predictions, want 201", status)
		}
		l.check(t, time.Minute)
		var f map[string]*dto.MetricFamily
		deadline := time.Now().Add(time.Minute)
		for {
			f = s.scrape(t)
			stored, _ := sum(f, "vigil_processor_events_stored_total", map[string]string{"kind": "predictions"})
			lag, partitions := sum(f, "vigil_consumer_lag_records", map[string]string{"group": processorGroup})
			if (stored >= 40 && partitions > 0 && lag == 0) || time.Now().After(deadline) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		for _, c := range []struct {
			family string
			labels map[string]string
			want   float64
		}{
			{"vigil_processor_events_processed_total", map[string]string{"kind": "predictions"}, 40},
			{"vigil_processor_events_stored_total", map[string]string{"kind": "predictions"}, 40},
			{"vigil_consumer_lag_records", map[string]string{"group": processorGroup}, 0},
			{"vigil_build_info", map[string]string{"version": "v9.9.9-test"}, 1},
			{"vigil_exports_total", map[string]string{"outcome": "failed"}, 0},
			{"vigil_alert_deliveries_total", map[string]string{"channel": "webhook", "outcome": "failed"}, 0},
		} {
			got, series := sum(f, c.family, c.labels)
			if series == 0 || got != c.want {
				t.Errorf("got %s%v = %v over %d series, want %v", c.family, c.labels, got, series, c.want)
			}
		}
	})
}

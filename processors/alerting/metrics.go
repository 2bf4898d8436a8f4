package alerting

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the evaluator's Prometheus metrics: how long after its end
// each minute is taken up, and how long its evaluation takes. A nil
// *Metrics records nothing.
type Metrics struct {
	delay, pass prometheus.Histogram
}

// NewMetrics registers the evaluator's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	buckets := []float64{0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 60, 120, 300}
	m := &Metrics{
		delay: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "vigil_alert_minute_delay_seconds",
			Help:    "From the end of a minute to the start of its alert evaluation: the settle time plus the wait for the processors to land it.",
			Buckets: buckets,
		}),
		pass: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "vigil_alert_evaluation_seconds",
			Help:    "How long evaluating every rule on a newly complete minute takes, writes included.",
			Buckets: buckets,
		}),
	}
	reg.MustRegister(m.delay, m.pass)
	return m
}

// minute records that the minute ending at end was taken up at start and
// evaluated by done.
func (m *Metrics) minute(end, start, done time.Time) {
	if m != nil {
		m.delay.Observe(start.Sub(end).Seconds())
		m.pass.Observe(done.Sub(start).Seconds())
	}
}

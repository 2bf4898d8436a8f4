package processors

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
)

// Metrics counts the events the processor read, stored, and did not
// store, and the failures of the batch in hand. A nil *Metrics counts
// nothing.
type Metrics struct {
	deadLetters *prometheus.CounterVec
	dropped     *prometheus.CounterVec
	processed   *prometheus.CounterVec
	stored      *prometheus.CounterVec
	failures    *prometheus.CounterVec
	failing     *prometheus.GaugeVec
}

// Reasons an event is dropped, the label of vigil_processor_dropped_events_total.
const (
	// DropModelDeleted: the event's model was deleted after the event
	// was logged.
	DropModelDeleted = "model_deleted"
	// DropUndecodable: the message is not an event of a known kind.
	DropUndecodable = "undecodable"
)

// NewMetrics registers the processor's metrics with reg:
// vigil_processor_events_processed_total{kind} (read from the log),
// vigil_processor_events_stored_total{kind} (written to the analytical
// store), vigil_processor_dead_letters_total{kind} and
// vigil_processor_dropped_events_total{kind,reason}, each series of a
// stored kind declared at zero, so that dashboards and alerts see it
// before its first event; and, each series declared when its processor
// runs, vigil_processor_batch_failures_total{pipeline} (failed attempts
// at a batch) and vigil_processor_batch_failing_seconds{pipeline} (how
// long the batch in hand has failed, 0 when none; brought up to date at
// each failed attempt and readiness check).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		deadLetters: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_processor_dead_letters_total",
			Help: "Events the analytical store refused for good, set aside as dead letters, by kind.",
		}, []string{"kind"}),
		dropped: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_processor_dropped_events_total",
			Help: "Events read from the log and deliberately not stored, by kind and reason.",
		}, []string{"kind", "reason"}),
		processed: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_processor_events_processed_total",
			Help: "Events the processor read from the event log, by kind (its pipeline).",
		}, []string{"kind"}),
		stored: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_processor_events_stored_total",
			Help: "Events the processor wrote to the analytical store, by kind (its pipeline); replays count again.",
		}, []string{"kind"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vigil_processor_batch_failures_total",
			Help: "Failed attempts at a batch (a write, a lookup, a profile), retried with offsets uncommitted, by pipeline.",
		}, []string{"pipeline"}),
		failing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "vigil_processor_batch_failing_seconds",
			Help: "How long the pipeline has failed without finishing a batch; 0 when its last attempt succeeded.",
		}, []string{"pipeline"}),
	}
	reg.MustRegister(m.deadLetters, m.dropped, m.processed, m.stored, m.failures, m.failing)
	for _, kind := range []string{eventlog.KindPrediction, eventlog.KindMetric, eventlog.KindCompletion} {
		m.deadLetters.WithLabelValues(kind)
		m.processed.WithLabelValues(kind)
		m.stored.WithLabelValues(kind)
		for _, reason := range []string{DropModelDeleted, DropUndecodable} {
			m.dropped.WithLabelValues(kind, reason)
		}
	}
	return m
}

func (m *Metrics) deadLettered(kind string) {
	if m != nil {
		m.deadLetters.WithLabelValues(kind).Inc()
	}
}

func (m *Metrics) drop(kind, reason string, n int) {
	if m != nil && n > 0 {
		m.dropped.WithLabelValues(kind, reason).Add(float64(n))
	}
}

// read counts the messages of a batch read from the log, by kind.
func (m *Metrics) read(msgs []eventlog.Message) {
	if m == nil {
		return
	}
	n := map[string]int{}
	for _, msg := range msgs {
		if msg.Kind != eventlog.KindGovernance {
			n[msg.Kind]++
		}
	}
	for kind, c := range n {
		m.processed.WithLabelValues(kind).Add(float64(c))
	}
}

// wrote counts the events of b written to the analytical store.
func (m *Metrics) wrote(b analytics.Batch) {
	if m == nil {
		return
	}
	for kind, c := range map[string]int{eventlog.KindPrediction: len(b.Predictions), eventlog.KindMetric: len(b.Metrics),
		eventlog.KindCompletion: len(b.Completions)} {
		if c > 0 {
			m.stored.WithLabelValues(kind).Add(float64(c))
		}
	}
}

// declare shows pipeline's failure series at zero.
func (m *Metrics) declare(pipeline string) {
	if m != nil {
		m.failures.WithLabelValues(pipeline)
		m.failing.WithLabelValues(pipeline)
	}
}

// batchFailed counts a failed attempt at pipeline's batch, failing for
// as long as failing.
func (m *Metrics) batchFailed(pipeline string, failing time.Duration) {
	if m != nil {
		m.failures.WithLabelValues(pipeline).Inc()
		m.failing.WithLabelValues(pipeline).Set(failing.Seconds())
	}
}

// batchFailing brings pipeline's failing gauge up to date.
func (m *Metrics) batchFailing(pipeline string, failing time.Duration) {
	if m != nil {
		m.failing.WithLabelValues(pipeline).Set(failing.Seconds())
	}
}

package alerts

import (
	"strings"
	"unicode/utf8"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/drift"
)

// Metric is one entry of the catalogue of metric names a condition may
// test (GET /alerts/metrics). Every value is read from the rollups the
// processors keep (never from raw rows) over the condition's window.
type Metric struct {
	// Name is the metric_name, or for a family the prefix its names start
	// with (metric:).
	Name string `json:"name"`
	// Family is true when Name is a prefix followed by a free part
	// (Parameter says which): metric:accuracy.
	Family    bool   `json:"family"`
	Parameter string `json:"parameter,omitempty"`
	Unit      string `json:"unit"`
	// Empty is what a window without data observes: "zero" or "no value"
	// (a condition on no value does not hold).
	Empty       string `json:"empty_window"`
	Description string `json:"description"`
	// read observes the metric over a condition's window.
	read reader
}

// MetricPrefix starts the names of logged metric types: metric:accuracy;
// DriftFeaturePrefix those of one feature's drift score:
// drift_score:age.
const (
	MetricPrefix       = "metric:"
	DriftFeaturePrefix = "drift_score:"
)

// Catalogue lists the metric names conditions may test, and how each is
// read.
var Catalogue = []Metric{
	{Name: "prediction_count", Unit: "predictions", Empty: "zero",
		Description: "Predictions logged for the model in the window (prediction volume).",
		read:        fromPredictions(func(st *analytics.PredictionStats) *float64 { return ptr(float64(st.TotalPredictions)) })},
	{Name: "latency_avg_ms", Unit: "ms", Empty: "no value",
		Description: "Mean latency_ms of the window's predictions that reported one.",
		read:        fromPredictions(func(st *analytics.PredictionStats) *float64 { return st.AvgLatencyMS })},
	{Name: "latency_p50_ms", Unit: "ms", Empty: "no value",
		Description: "Median latency_ms of the window's predictions (quantile sketches of the rollups: exact up to the sketch's exact limit, within 1% beyond).",
		read:        fromPredictions(func(st *analytics.PredictionStats) *float64 { return st.P50LatencyMS })},
	{Name: "latency_p95_ms", Unit: "ms", Empty: "no value",
		Description: "95th percentile of latency_ms of the window's predictions.",
		read:        fromPredictions(func(st *analytics.PredictionStats) *float64 { return st.P95LatencyMS })},
	{Name: "latency_p99_ms", Unit: "ms", Empty: "no value",
		Description: "99th percentile of latency_ms of the window's predictions.",
		read:        fromPredictions(func(st *analytics.PredictionStats) *float64 { return st.P99LatencyMS })},
	{Name: MetricPrefix, Family: true, Parameter: "metric_type", Unit: "the metric's", Empty: "no value",
		Description: "Mean value of a logged metric_type in the window: metric:accuracy is the mean of the values logged with metric_type accuracy (POST /metrics).",
		read:        readFunc((*Observer).metricMean)},
	{Name: "drift_score", Unit: "the method's score", Empty: "no value",
		Description: "overall_drift_score of the model's newest data-drift report written in the window (drift reports on the stream or POST /drift/detect); use a window at least the drift schedule's interval.",
		read:        fromReport(func(r *drift.Report, _ string) *float64 { return ptr(r.OverallDriftScore) })},
	{Name: DriftFeaturePrefix, Family: true, Parameter: "feature", Unit: "the method's score", Empty: "no value",
		Description: "drift_score of one feature in the model's newest data-drift report written in the window: drift_score:age.",
		read:        fromReport(featureDrift)},
	{Name: "fairness_score", Unit: "score in [0, 1]", Empty: "no value",
		Description: "overall_fairness_score of the model's newest completed bias audit, when it completed in the window (POST /bias/audit).",
		read:        readFunc((*Observer).fairness)},
	{Name: "llm_completions", Unit: "completions", Empty: "zero",
		Description: "LLM completions logged for the model in the window.",
		read:        fromCompletions(func(g *analytics.CompletionGroup) *float64 { return ptr(float64(g.Completions)) })},
	{Name: "llm_cost", Unit: "the cost's currency", Empty: "zero",
		Description: "Sum of the cost of the window's LLM completions.",
		read:        fromCompletions(func(g *analytics.CompletionGroup) *float64 { return ptr(g.Cost) })},
	{Name: "llm_tokens", Unit: "tokens", Empty: "zero",
		Description: "Sum of total_tokens of the window's LLM completions.",
		read:        fromCompletions(func(g *analytics.CompletionGroup) *float64 { return ptr(float64(g.TotalTokens)) })},
	{Name: "llm_latency_avg_ms", Unit: "ms", Empty: "no value",
		Description: "Mean latency_ms of the window's LLM completions that reported one.",
		read:        fromCompletions(completionLatency)},
	{Name: "dead_letters", Unit: "events", Empty: "zero",
		Description: "Events of the model the analytical store refused for good and set aside in the window (dead letters), from per-minute counts kept as they are set aside.",
		read:        readFunc((*Observer).deadLetters)},
	{Name: "toxicity_rate", Unit: "share in [0, 1]", Empty: "no value",
		Description: "Share of the window's toxicity-checked LLM completions that were flagged (checked on arrival: VIGIL_TOXICITY_SAMPLE_PERCENT).",
		read:        readFunc((*Observer).toxicityRate)},
}

// lookup finds the catalogue's entry for a metric_name and, for a family,
// the free part that follows its prefix.
func lookup(name string) (m Metric, param string, ok bool) {
	for _, m := range Catalogue {
		if !m.Family && m.Name == name {
			return m, "", true
		}
	}
	for _, m := range Catalogue {
		if rest, ok := strings.CutPrefix(name, m.Name); ok && m.Family {
			return m, rest, true
		}
	}
	return Metric{}, "", false
}

// metricProblem says what is wrong with a metric_name, "" when it is in
// the catalogue.
func metricProblem(name string) string {
	m, param, ok := lookup(name)
	switch {
	case !ok:
		return "is not in the metric catalogue (GET /alerts/metrics): one of " + catalogueNames()
	case m.Family && (strings.TrimSpace(param) == "" || utf8.RuneCountInString(param) > 255):
		return m.Name + " must be followed by a name of 1-255 characters, not all spaces"
	}
	return ""
}

// PredictionMetric reports whether the metric is read from the prediction
// summary (analytics.PredictionStats).
func PredictionMetric(name string) bool {
	m, _, ok := lookup(name)
	_, summary := m.read.(fromPredictions)
	return ok && summary
}

// catalogueNames lists the catalogue's names for an error message, a
// family's as its prefix and parameter: metric:<metric_type>.
func catalogueNames() string {
	names := make([]string, 0, len(Catalogue))
	for _, m := range Catalogue {
		if m.Family {
			names = append(names, m.Name+"<"+m.Parameter+">")
			continue
		}
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

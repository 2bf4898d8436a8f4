package alerts

import (
	"strings"
	"unicode/utf8"
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
}

// MetricPrefix starts the names of logged metric types: metric:accuracy;
// DriftFeaturePrefix those of one feature's drift score:
// drift_score:age.
const (
	MetricPrefix       = "metric:"
	DriftFeaturePrefix = "drift_score:"
)

// Catalogue lists the metric names conditions may test.
var Catalogue = []Metric{
	{Name: "prediction_count", Unit: "predictions", Empty: "zero",
		Description: "Predictions logged for the model in the window (prediction volume)."},
	{Name: "latency_avg_ms", Unit: "ms", Empty: "no value",
		Description: "Mean latency_ms of the window's predictions that reported one."},
	{Name: "latency_p50_ms", Unit: "ms", Empty: "no value",
		Description: "Median latency_ms of the window's predictions (quantile sketches of the rollups: exact up to the sketch's exact limit, within 1% beyond)."},
	{Name: "latency_p95_ms", Unit: "ms", Empty: "no value",
		Description: "95th percentile of latency_ms of the window's predictions."},
	{Name: "latency_p99_ms", Unit: "ms", Empty: "no value",
		Description: "99th percentile of latency_ms of the window's predictions."},
	{Name: MetricPrefix, Family: true, Parameter: "metric_type", Unit: "the metric's", Empty: "no value",
		Description: "Mean value of a logged metric_type in the window: metric:accuracy is the mean of the values logged with metric_type accuracy (POST /metrics)."},
	{Name: "drift_score", Unit: "the method's score", Empty: "no value",
		Description: "overall_drift_score of the model's newest data-drift report written in the window (drift reports on the stream or POST /drift/detect); use a window at least the drift schedule's interval."},
	{Name: DriftFeaturePrefix, Family: true, Parameter: "feature", Unit: "the method's score", Empty: "no value",
		Description: "drift_score of one feature in the model's newest data-drift report written in the window: drift_score:age."},
	{Name: "fairness_score", Unit: "score in [0, 1]", Empty: "no value",
		Description: "overall_fairness_score of the model's newest completed bias audit, when it completed in the window (POST /bias/audit)."},
	{Name: "llm_completions", Unit: "completions", Empty: "zero",
		Description: "LLM completions logged for the model in the window."},
	{Name: "llm_cost", Unit: "the cost's currency", Empty: "zero",
		Description: "Sum of the cost of the window's LLM completions."},
	{Name: "llm_tokens", Unit: "tokens", Empty: "zero",
		Description: "Sum of total_tokens of the window's LLM completions."},
	{Name: "llm_latency_avg_ms", Unit: "ms", Empty: "no value",
		Description: "Mean latency_ms of the window's LLM completions that reported one."},
	{Name: "dead_letters", Unit: "events", Empty: "zero",
		Description: "Events of the model the analytical store refused for good and set aside in the window (dead letters), from per-minute counts kept as they are set aside."},
	{Name: "toxicity_rate", Unit: "share in [0, 1]", Empty: "no value",
		Description: "Share of the window's toxicity-checked LLM completions that were flagged (checked on arrival: VIGIL_TOXICITY_SAMPLE_PERCENT)."},
}

// metricProblem says what is wrong with a metric_name, "" when it is in
// the catalogue.
func metricProblem(name string) string {
	for _, prefix := range []string{MetricPrefix, DriftFeaturePrefix} {
		if rest, ok := strings.CutPrefix(name, prefix); ok {
			if strings.TrimSpace(rest) == "" || utf8.RuneCountInString(rest) > 255 {
				return prefix + " must be followed by a name of 1-255 characters, not all spaces"
			}
			return ""
		}
	}
	for _, m := range Catalogue {
		if !m.Family && m.Name == name {
			return ""
		}
	}
	return "is not in the metric catalogue (GET /alerts/metrics): one of " + catalogueNames()
}

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

package ingest

import (
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
)

type metricRequest struct {
	ModelID    string         `json:"model_id"`
	MetricType string         `json:"metric_type"`
	Value      *float64       `json:"value"`
	Metadata   map[string]any `json:"metadata"`
}

func (r *metricRequest) model() string      { return r.ModelID }
func (r *metricRequest) setModel(id string) { r.ModelID = id }

func (r *metricRequest) validate() error {
	var v web.Problems
	v.Required("model_id", r.ModelID)
	v.Required("metric_type", r.MetricType)
	v.MaxLen("metric_type", r.MetricType, 100)
	if r.MetricType != strings.TrimSpace(r.MetricType) {
		v.Add("metric_type", "must not start or end with spaces")
	}
	if r.Value == nil {
		v.Add("value", "is required: a number")
	}
	return v.Err()
}

func (r *metricRequest) event(a *API, c *fiber.Ctx) (eventlog.Metric, error) {
	return eventlog.Metric{OrgID: identity.OrgID(c), ID: uuid.Must(uuid.NewV7()).String(), ModelID: r.ModelID,
		MetricType: r.MetricType, Value: *r.Value, Metadata: orEmpty(r.Metadata), Timestamp: a.Clock.Now()}, nil
}

func (a *API) logMetric(c *fiber.Ctx) error {
	return logOne[metricRequest, eventlog.Metric](a, c, eventlog.KindMetric)
}

func (a *API) logMetrics(c *fiber.Ctx) error {
	return logBatch[metricRequest, eventlog.Metric](a, c, eventlog.KindMetric, "metrics", MaxMetricsPerBatch)
}

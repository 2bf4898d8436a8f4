package query

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/analytics"
	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Models finds the model a query is about.
type Models = registry.Finder

// API serves the analytical reads: predictions and their statistics.
type API struct {
	Store  analytics.Store
	Models Models
	// Clock defaults to the system clock.
	Clock clock.Clock
	// Log receives the errors of exports that fail mid-stream; default
	// slog.Default().
	Log *slog.Logger
	// MaxExports bounds the exports streaming at once, each holding one
	// of the store's connections; more answer 503. Default 4.
	MaxExports int
	// WriteTimeout is how long an export waits for a stalled client
	// before it gives up: the server's write timeout. Default 30s.
	WriteTimeout time.Duration

	once    sync.Once
	exports chan struct{}
}

// Routes lists the operations of this package. The static paths under
// /predictions/models/{model_id} come before the prediction id.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/predictions/query", Permission: "predictions:read", Handler: a.queryPredictions},
		{Method: fiber.MethodGet, Path: "/predictions/export", Permission: "predictions:read", Bucket: web.BucketReports, Handler: a.export},
		{Method: fiber.MethodPost, Path: "/metrics/calculate", Permission: "metrics:read", Handler: a.calculate},
		{Method: fiber.MethodGet, Path: "/metrics/aggregate", Permission: "metrics:read", Handler: a.aggregate},
		{Method: fiber.MethodGet, Path: "/metrics/trend", Permission: "metrics:read", Handler: a.trend},
		{Method: fiber.MethodGet, Path: "/llm/metrics", Permission: "llm:read", Handler: a.llmMetrics},
		{Method: fiber.MethodGet, Path: "/predictions/models/:model_id/stats", Permission: "predictions:read", Handler: a.stats},
		{Method: fiber.MethodGet, Path: "/predictions/models/:model_id/recent", Permission: "predictions:read", Handler: a.recent},
		{Method: fiber.MethodGet, Path: "/predictions/models/:model_id/predictions/:prediction_id", Permission: "predictions:read", Handler: a.prediction},
		{Method: fiber.MethodGet, Path: "/dead-letters", Permission: "predictions:read", Handler: a.deadLetters},
	}
}

// model checks that the model is the caller's: 404 MODEL_NOT_FOUND for a
// missing one and for another organization's alike (registry.Find).
func (a *API) model(c *fiber.Ctx, id string) error {
	_, err := registry.Find(c.UserContext(), a.Models, identity.OrgID(c), id)
	return err
}

type queryRequest struct {
	ModelID   string   `json:"model_id"`
	StartTime *string  `json:"start_time"`
	EndTime   *string  `json:"end_time"`
	Limit     *web.Int `json:"limit"`
	Offset    *web.Int `json:"offset"`
}

// queryPredictions answers POST /predictions/query: the caller's
// predictions, newest first, optionally of one model and within a range,
// in the format asked for (JSON by default).
func (a *API) queryPredictions(c *fiber.Ctx) error {
	var req queryRequest
	if len(c.Body()) > 0 {
		if err := web.Decode(c, &req); err != nil {
			return err
		}
	}
	var v web.Problems
	format, err := outputFormat(c, &v)
	if err != nil {
		return err
	}
	f := analytics.PredictionFilter{OrgID: identity.OrgID(c), ModelID: req.ModelID, Limit: 100}
	f.Range = timeParams.parse(&v, req.StartTime, req.EndTime)
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > 1000 {
			v.Add("limit", "must be between 1 and 1000")
		}
		f.Limit = int(*req.Limit)
	}
	if req.Offset != nil {
		if *req.Offset < 0 {
			v.Add("offset", "must not be negative")
		}
		f.Offset = int(*req.Offset)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if f.ModelID != "" {
		if err := a.model(c, f.ModelID); err != nil {
			return err
		}
	}
	return answer(c, format, f.ModelID, a.Store.EachPrediction(c.UserContext(), f))
}

// rangeParams names the parameters of a time range: start_time and
// end_time on prediction reads, start_date and end_date on the metric and
// LLM reads (the spec's names).
type rangeParams struct{ start, end string }

var (
	timeParams = rangeParams{"start_time", "end_time"}
	dateParams = rangeParams{"start_date", "end_date"}
)

// parse reads an optional [start, end) range, recording malformed or
// reversed times in v under the parameters' names.
func (n rangeParams) parse(v *web.Problems, start, end *string) analytics.Range {
	r := analytics.Range{From: v.Time(n.start, start), To: v.Time(n.end, end)}
	if !r.From.IsZero() && !r.To.IsZero() {
		n.ordered(v, r)
	}
	return r
}

// ordered records a problem unless r starts before it ends.
func (n rangeParams) ordered(v *web.Problems, r analytics.Range) {
	if !r.From.Before(r.To) {
		v.Add(n.end, "must be after "+n.start)
	}
}

// public drops the organization from predictions before they are answered.
func public(ps []eventlog.Prediction) []eventlog.Prediction {
	for i := range ps {
		ps[i].OrgID = ""
	}
	return ps
}

func (a *API) recent(c *fiber.Ctx) error {
	limit, err := web.IntQuery(c, "limit", 10, 1, 100)
	if err != nil {
		return err
	}
	id := c.Params("model_id")
	if err := a.model(c, id); err != nil {
		return err
	}
	ps, err := a.Store.Predictions(c.UserContext(), analytics.PredictionFilter{OrgID: identity.OrgID(c), ModelID: id, Limit: limit})
	if err != nil {
		return err
	}
	return c.JSON(public(ps))
}

func (a *API) prediction(c *fiber.Ctx) error {
	id := c.Params("model_id")
	if err := a.model(c, id); err != nil {
		return err
	}
	pid, err := web.PathParam(c, "prediction_id")
	if err != nil {
		return err
	}
	p, err := a.Store.Prediction(c.UserContext(), identity.OrgID(c), id, pid)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("prediction")
	}
	if err != nil {
		return err
	}
	p.OrgID = ""
	return c.JSON(p)
}

// statsResponse is GET /predictions/models/{model_id}/stats.
type statsResponse struct {
	ModelID            string   `json:"model_id"`
	TotalPredictions   int64    `json:"total_predictions"`
	Period             period   `json:"period"`
	AvgLatencyMS       *float64 `json:"avg_latency_ms"`
	MinLatencyMS       *float64 `json:"min_latency_ms"`
	MaxLatencyMS       *float64 `json:"max_latency_ms"`
	P50LatencyMS       *float64 `json:"p50_latency_ms"`
	P95LatencyMS       *float64 `json:"p95_latency_ms"`
	P99LatencyMS       *float64 `json:"p99_latency_ms"`
	PredictionsPerHour float64  `json:"predictions_per_hour"`
	// OutputDistribution counts the class labels answered (OutputLabels).
	OutputDistribution analytics.OutputDistribution `json:"output_distribution"`
}

type period struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
}

// stats summarises a model's predictions from the rollups; without a
// range, over the last 24 hours.
func (a *API) stats(c *fiber.Ctx) error {
	var v web.Problems
	r := timeParams.parse(&v, web.Query(c, "start_time"), web.Query(c, "end_time"))
	if r.To.IsZero() {
		r.To = a.Clock.Now()
	}
	if r.From.IsZero() {
		r.From = r.To.Add(-24 * time.Hour)
	}
	timeParams.ordered(&v, r)
	if err := v.Err(); err != nil {
		return err
	}
	id := c.Params("model_id")
	if err := a.model(c, id); err != nil {
		return err
	}
	st, err := a.Store.PredictionStats(c.UserContext(), identity.OrgID(c), id, r)
	if err != nil {
		return err
	}
	return c.JSON(statsResponse{ModelID: id, TotalPredictions: st.TotalPredictions, Period: period{r.From, r.To},
		AvgLatencyMS: st.AvgLatencyMS, MinLatencyMS: st.MinLatencyMS, MaxLatencyMS: st.MaxLatencyMS,
		P50LatencyMS: st.P50LatencyMS, P95LatencyMS: st.P95LatencyMS, P99LatencyMS: st.P99LatencyMS,
		PredictionsPerHour: float64(st.TotalPredictions) / r.To.Sub(r.From).Hours(), OutputDistribution: st.Outputs})
}

package ingest

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/eventlog"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/ingest/backlog"
	"github.com/vigilhq/vigil/platform/cache"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// Batch limits of the specification.
const (
	MaxPredictionsPerBatch = 1000
	MaxMetricsPerBatch     = 100
	MaxCompletionsPerBatch = 1000
)

// retryLog is the Retry-After of a 503 when the log is unreachable;
// retryBehind when the processors' backlog held a request back too long.
const (
	retryLog    = 5 * time.Second
	retryBehind = time.Second
)

// Models finds the model an event is logged for.
type Models interface {
	Model(ctx context.Context, orgID, id string) (registry.Model, error)
}

// API serves the ingest endpoints: it validates events, gives each an id
// and its organization, and appends them to the log. A 2xx means every
// accepted event is durable in the log. When the log cannot take them the
// answer is 503 with Retry-After: nothing is acknowledged, though some
// events may have reached the log (an acknowledgement lost on the way), so
// a client retries with the same prediction_id, which is stored once.
type API struct {
	Log    eventlog.Log
	Models Models
	// Registry finds and registers the models of OTLP spans by name
	// (service.name); nil logs only spans whose resource names a
	// vigil.model_id.
	Registry registry.Names
	// Clock defaults to the system clock.
	Clock clock.Clock
	// StaleIfError is how long past its lifetime a model read from Models
	// may serve while Models is unavailable, so that ingest for known
	// models goes on through an outage of the transactional store; zero
	// serves none stale.
	StaleIfError time.Duration
	// Toxicity checks a logged completion's text on arrival, or answers
	// nil (not sampled, or the scorer failed); nil checks none.
	Toxicity func(ctx context.Context, text string) *eventlog.Toxicity
	// Cost prices a completion logged without a cost by the organization's
	// LLM prices (0 for a model they do not price); nil leaves it 0.
	Cost func(ctx context.Context, orgID, provider, model string, t eventlog.Tokens) (float64, error)
	// Backlog holds requests back while the processors are behind; nil
	// never does.
	Backlog *backlog.Gate

	once   sync.Once
	models cache.Cache[modelKey, registry.Model]
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/predictions/log", Permission: "predictions:write", Bucket: web.BucketPredictions, Handler: a.logPrediction},
		{Method: fiber.MethodPost, Path: "/predictions/log/batch", Permission: "predictions:write", Bucket: web.BucketBatch, Handler: a.logPredictions},
		{Method: fiber.MethodPost, Path: "/metrics", Permission: "metrics:write", Handler: a.logMetric},
		{Method: fiber.MethodPost, Path: "/metrics/batch", Permission: "metrics:write", Bucket: web.BucketBatch, Handler: a.logMetrics},
		{Method: fiber.MethodPost, Path: "/llm/completions", Permission: "llm:write", Bucket: web.BucketPredictions, Handler: a.logCompletion},
		{Method: fiber.MethodPost, Path: "/llm/completions/batch", Permission: "llm:write", Bucket: web.BucketBatch, Handler: a.logCompletions},
		a.TraceRoutes()[0],
	}
}

// model returns the caller's model that events are logged for: 404
// MODEL_NOT_FOUND for a missing one or another organization's, 409 for an
// archived one, whose monitoring has stopped.
func (a *API) model(c *fiber.Ctx, id string) (registry.Model, error) {
	orgID := identity.OrgID(c)
	m, err := a.modelCache().Get(modelKey{org: orgID, id: id}, a.Clock.Now(), func() (registry.Model, error) {
		return a.Models.Model(c.UserContext(), orgID, id)
	})
	switch {
	case errors.Is(err, store.ErrNotFound):
		return m, web.NotFound("model")
	case err != nil:
		return m, err
	}
	if m.Status == registry.StatusArchived {
		return m, web.Conflict("the model is archived: monitoring has stopped; restore it to log again")
	}
	return m, nil
}

// appendRecords writes recs durably or answers 503, once the processors'
// backlog admits them.
func (a *API) appendRecords(c *fiber.Ctx, recs []eventlog.Record) error {
	if err := a.Backlog.Admit(c.UserContext()); err != nil {
		return web.Unavailable("the processors are behind: nothing of this request was recorded; retry shortly", retryBehind, err)
	}
	err := a.Log.Append(c.UserContext(), recs)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, eventlog.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		return web.Unavailable("the event log is unavailable: the events were not acknowledged and may or may not "+
			"have been recorded; retry shortly (a prediction sent again with the same prediction_id is stored once)", retryLog, err)
	}
	return err
}

// itemError names what is wrong with one item of a batch.
type itemError struct {
	Index   int    `json:"index"`
	Field   string `json:"field"`
	Message string `json:"message"`
}

// batchResult answers a batch call.
type batchResult struct {
	Logged int         `json:"logged"`
	Total  int         `json:"total"`
	Failed int         `json:"failed"`
	Errors []itemError `json:"errors"`
}

// answerBatch answers 201 when at least one item was logged and 422 when
// none was, both with the per-item errors.
func answerBatch(c *fiber.Ctx, r batchResult) error {
	if r.Errors == nil {
		r.Errors = []itemError{}
	}
	if r.Logged == 0 && r.Total > 0 {
		return &web.Error{Status: http.StatusUnprocessableEntity, Code: web.CodeValidation,
			Message: "no item of the batch is valid", Details: map[string]any{"errors": r.Errors}}
	}
	return c.Status(http.StatusCreated).JSON(r)
}

// itemErrors turns a validation error of item i into batch item errors.
func itemErrors(i int, err error) ([]itemError, error) {
	var e *web.Error
	if !errors.As(err, &e) || (e.Status != http.StatusUnprocessableEntity && e.Status != http.StatusBadRequest) {
		return nil, err
	}
	if len(e.Details) == 0 {
		return []itemError{{Index: i, Field: "", Message: e.Message}}, nil
	}
	var out []itemError
	for f, p := range e.Details {
		msg, _ := p.(string)
		out = append(out, itemError{Index: i, Field: f, Message: msg})
	}
	return out, nil
}

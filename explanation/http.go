package explanation

import (
	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/kvcache"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
)

// API serves /explanations.
type API struct {
	Models    registry.Finder
	Artifacts artifact.Store
	// Jobs keeps explanations; Runner, when set, is woken for each new
	// one (without it they wait for a runner of another replica).
	Jobs   Store
	Runner Waker
	// Predictions reads logged predictions for {prediction_id}
	// requests; without it they are 404.
	Predictions Predictions
	// Access explains models without an artifact: served, or through a
	// surrogate; without it such models answer 422.
	Access *Access
	// Configs keeps per-model configurations.
	Configs ConfigStore
	// Cache, when set, answers requests with use_cache from the outcome
	// of an identical one (explainjob.Runner keeps them in it).
	Cache kvcache.Cache
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// A Waker is told of new pending explanations: explainjob.Runner.
type Waker interface {
	// Wake asks for the store's pending explanations to be read now.
	Wake()
}

// wake tells a.Runner, when set, of a new pending explanation.
func (a *API) wake() {
	if a.Runner != nil {
		a.Runner.Wake()
	}
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPost, Path: "/explanations/generate", Permission: "models:write", Bucket: web.BucketBatch, Handler: a.generate},
		{Method: fiber.MethodGet, Path: "/explanations", Permission: "models:read", Handler: a.listExplanations},
		{Method: fiber.MethodGet, Path: "/explanations/stats", Permission: "models:read", Handler: a.stats},
		{Method: fiber.MethodGet, Path: "/explanations/config/:model_id", Permission: "models:read", Handler: a.getConfig},
		{Method: fiber.MethodPut, Path: "/explanations/config/:model_id", Permission: "models:write", Handler: a.putConfig},
		{Method: fiber.MethodGet, Path: "/explanations/by-prediction/:prediction_id", Permission: "models:read", Handler: a.byPrediction},
		{Method: fiber.MethodPost, Path: "/explanations/bulk", Permission: "models:write", Bucket: web.BucketBatch, Handler: a.bulk},
		{Method: fiber.MethodGet, Path: "/explanations/:explanation_id", Permission: "models:read", Handler: a.getExplanation},
		{Method: fiber.MethodPost, Path: "/explanations/:explanation_id/cancel", Permission: "models:write", Handler: a.cancel},
	}
}

package artifact

import (
	"errors"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/clock"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// API serves /models/{model_id}/artifact.
type API struct {
	Models    registry.Finder
	Artifacts Store
	// Clock defaults to the system clock.
	Clock clock.Clock
}

// Routes lists the operations of this package.
func (a *API) Routes() []web.Route {
	return []web.Route{
		{Method: fiber.MethodPut, Path: "/models/:model_id/artifact", Permission: "models:write", Bucket: web.BucketBatch, Handler: a.putArtifact},
		{Method: fiber.MethodGet, Path: "/models/:model_id/artifact", Permission: "models:read", Handler: a.getArtifact},
	}
}

// artifactView is an artifact as the API answers it: what was uploaded
// and what the parse found, without a tree model's content.
type artifactView struct {
	ModelID      string    `json:"model_id"`
	Kind         string    `json:"kind"`
	Link         string    `json:"link"`
	Features     []string  `json:"features"`
	NumFeatures  int       `json:"num_features"`
	NumTrees     *int      `json:"num_trees"`
	MaxDepth     *int      `json:"max_depth"`
	Coefficients []float64 `json:"coefficients"`
	Intercept    *float64  `json:"intercept"`
	ContentBytes int       `json:"content_bytes"`
	UploadedAt   time.Time `json:"uploaded_at"`
}

// view returns the answer for a.
func view(a Artifact) artifactView {
	v := artifactView{ModelID: a.ModelID, Kind: a.Kind, Link: a.Link, Features: a.Features, NumFeatures: a.NumFeatures,
		ContentBytes: len(a.Content), UploadedAt: a.UploadedAt}
	if v.Features == nil {
		v.Features = []string{}
	}
	if a.Kind == KindLinear {
		v.Coefficients, v.Intercept = a.Coefficients, &a.Intercept
	} else {
		v.NumTrees, v.MaxDepth = &a.NumTrees, &a.MaxDepth
	}
	return v
}

// putArtifact answers PUT /models/{model_id}/artifact: the model first
// (404), then the body (422 naming the field; a tree model is parsed
// here), then the artifact replaces the model's; 200 with its summary.
func (a *API) putArtifact(c *fiber.Ctx) error {
	orgID, modelID := identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(c.UserContext(), a.Models, orgID, modelID); err != nil {
		return err
	}
	var body artifactBody
	if err := web.Decode(c, &body); err != nil {
		return err
	}
	art, err := parseArtifact(&body)
	if err != nil {
		return err
	}
	art.OrgID, art.ModelID, art.UploadedAt = orgID, modelID, a.Clock.Now()
	err = a.Artifacts.PutModelArtifact(c.UserContext(), art)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("model")
	}
	if err != nil {
		return err
	}
	return c.JSON(view(art))
}

// getArtifact answers GET /models/{model_id}/artifact: 404 MODEL_NOT_FOUND
// for no such model, NOT_FOUND when it has no artifact.
func (a *API) getArtifact(c *fiber.Ctx) error {
	orgID, modelID := identity.OrgID(c), c.Params("model_id")
	if _, err := registry.Find(c.UserContext(), a.Models, orgID, modelID); err != nil {
		return err
	}
	art, err := a.Artifacts.ModelArtifact(c.UserContext(), orgID, modelID)
	if errors.Is(err, store.ErrNotFound) {
		return web.NotFound("artifact")
	}
	if err != nil {
		return err
	}
	return c.JSON(view(art))
}

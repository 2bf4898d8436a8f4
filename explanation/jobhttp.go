package explanation

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/identity"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/registry"
	"github.com/vigilhq/vigil/store"
)

// generateBody is the body of POST /explanations/generate.
type generateBody struct {
	ModelID      string           `json:"model_id"`
	PredictionID string           `json:"prediction_id"`
	Instance     map[string]any   `json:"instance"`
	Method       string           `json:"method"`
	Background   []map[string]any `json:"background"`
	// UseCache (default true) takes the outcome from the cache when an
	// identical request was computed within the model's cache_ttl_hours.
	UseCache *bool `json:"use_cache"`
	options
}

// accepted is the 202 body of POST /explanations/generate: the
// asynchronous form's explanation_id, status and message, and spec 3's
// instance form (id, base_value, score, feature_weights, cached,
// computation_time_ms), filled when the answer came from the cache.
type accepted struct {
	ExplanationID  string             `json:"explanation_id"`
	ID             string             `json:"id"`
	ModelID        string             `json:"model_id"`
	PredictionID   *string            `json:"prediction_id"`
	Method         string             `json:"method"`
	Status         string             `json:"status"`
	Cached         bool               `json:"cached"`
	Seed           uint64             `json:"seed"`
	NumSamples     int                `json:"num_samples"`
	NumFeatures    int                `json:"num_features"`
	BaseValue      *float64           `json:"base_value"`
	Score          *float64           `json:"score"`
	FeatureWeights map[string]float64 `json:"feature_weights"`
	ComputationMS  *float64           `json:"computation_time_ms"`
	Message        string             `json:"message"`
	CreatedAt      time.Time          `json:"created_at"`
}

// newAccepted is the 202 body of e, stored with the request req.
func newAccepted(e Explanation, req Request, msg string) accepted {
	a := accepted{ExplanationID: e.ID, ID: e.ID, ModelID: e.ModelID, PredictionID: optional(e.PredictionID), Method: e.Method,
		Status: e.Status, Cached: e.Outcome != nil, Seed: *req.Seed, NumSamples: req.NumSamples, NumFeatures: req.NumFeatures,
		FeatureWeights: map[string]float64{}, Message: msg, CreatedAt: e.CreatedAt}
	if o := e.Outcome; o != nil {
		a.BaseValue, a.Score, a.FeatureWeights, a.ComputationMS = &o.BaseValue, &o.PredictedValue, o.FeatureWeights, &o.ComputationTimeMS
	}
	return a
}

// explanationView is an explanation as the API answers it: spec 3's
// stored record (result, created_at, completed_at) and its instance form
// (base_value, score, feature_weights, cached, computation_time_ms) in
// one, with Vigil's own fields.
type explanationView struct {
	ID           string  `json:"id"`
	ModelID      string  `json:"model_id"`
	PredictionID *string `json:"prediction_id"`
	Method       string  `json:"method"`
	Status       string  `json:"status"`
	// Result is the stored record's result; nil until completed.
	Result *resultView `json:"result"`
	// BaseValue, Score (the explained output: predicted_value) and
	// FeatureWeights are the instance form's.
	BaseValue      *float64           `json:"base_value"`
	Score          *float64           `json:"score"`
	FeatureWeights map[string]float64 `json:"feature_weights"`
	Cached         bool               `json:"cached"`
	ComputationMS  *float64           `json:"computation_time_ms"`
	// Seed, NumSamples and NumFeatures are the request's (or their
	// defaults): the same request with the same seed gives the same
	// values.
	Seed           uint64       `json:"seed"`
	NumSamples     int          `json:"num_samples"`
	NumFeatures    int          `json:"num_features"`
	Algorithm      *string      `json:"algorithm"`
	Exactness      *string      `json:"exactness"`
	Perturbation   *string      `json:"perturbation"`
	PredictedValue *float64     `json:"predicted_value"`
	OutputSpace    *string      `json:"output_space"`
	TopFeatures    []topFeature `json:"top_features"`
	// Progress is the share of the work done while pending (Work's done
	// over total; 0 before the computation reports), 1 once final.
	Progress float64 `json:"progress"`
	// Work is what Progress counts; nil until the computation reports
	// (TreeSHAP and linear SHAP never do: they take one step).
	Work          *workView `json:"progress_detail"`
	ModelAccess   *string   `json:"model_access"`
	ModelRequests *int      `json:"model_requests"`
	Fidelity      *Fidelity `json:"fidelity"`
	// Surrogate is a surrogate's kind and its candidates' fidelities.
	Surrogate *SurrogateChoice `json:"surrogate"`
	// BackgroundSource and BackgroundRows say where the background rows
	// came from and how many; nil while pending and when none was taken.
	BackgroundSource *string        `json:"background_source"`
	BackgroundRows   *int           `json:"background_rows"`
	Error            *string        `json:"error"`
	Instance         map[string]any `json:"instance"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
	CompletedAt      *time.Time     `json:"completed_at"`
}

// resultView is spec 3's result of a stored explanation.
type resultView struct {
	BaseValue            float64            `json:"base_value"`
	PredictedValue       float64            `json:"predicted_value"`
	FeatureContributions map[string]float64 `json:"feature_contributions"`
	TopFeatures          []topFeature       `json:"top_features"`
}

// workView is a job's units of work: done of total, in unit
// (coalitions or rows).
type workView struct {
	Done  int64  `json:"done"`
	Total int64  `json:"total"`
	Unit  string `json:"unit"`
}

// topFeature is one feature of the ranking: its value in the instance and
// its weight.
type topFeature struct {
	Feature string  `json:"feature"`
	Value   any     `json:"value"`
	Impact  float64 `json:"impact"`
}

func newExplanationView(e Explanation) explanationView {
	s := sampling(e)
	v := explanationView{ID: e.ID, ModelID: e.ModelID, PredictionID: optional(e.PredictionID), Method: CanonicalMethod(e.Method),
		Status: e.Status, Instance: e.Request.Instance, FeatureWeights: map[string]float64{}, TopFeatures: []topFeature{},
		Seed: s.Seed, NumSamples: s.Size(), NumFeatures: cmp.Or(e.Request.NumFeatures, DefaultNumFeatures),
		CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt, CompletedAt: e.CompletedAt}
	if v.Instance == nil {
		v.Instance = map[string]any{}
	}
	if p := e.Progress; p.Total > 0 {
		v.Work = &workView{Done: p.Done, Total: p.Total, Unit: p.Unit}
		v.Progress = min(1, float64(p.Done)/float64(p.Total))
	}
	if e.Status != StatusPending {
		v.Progress = 1
	}
	if e.Error != "" {
		v.Error = &e.Error
	}
	if e.Outcome != nil {
		v.outcome(e.Outcome, e.Request.Instance)
	}
	return v
}

// outcome fills v from a computed outcome o of instance.
func (v *explanationView) outcome(o *Outcome, instance map[string]any) {
	v.Algorithm, v.Exactness, v.BaseValue, v.PredictedValue = &o.Algorithm, &o.Exactness, &o.BaseValue, &o.PredictedValue
	v.OutputSpace, v.ComputationMS, v.FeatureWeights, v.Cached = &o.OutputSpace, &o.ComputationTimeMS, o.FeatureWeights, o.Cached
	v.Score = &o.PredictedValue
	if o.Perturbation != "" {
		v.Perturbation = &o.Perturbation
	}
	v.ModelAccess, v.Fidelity = &o.ModelAccess, o.Fidelity
	if o.ModelAccess == "" {
		v.ModelAccess = optional(AccessArtifact)
	}
	if o.ModelAccess == AccessServed {
		v.ModelRequests = &o.ModelRequests
	}
	if v.Surrogate = o.Surrogate; o.ModelAccess == AccessSurrogate && o.Surrogate == nil && o.Fidelity != nil {
		v.Surrogate = &SurrogateChoice{Kind: SurrogateLinear, Fidelities: map[string]float64{SurrogateLinear: o.Fidelity.Value}}
	}
	if o.BackgroundSource != "" {
		v.BackgroundSource, v.BackgroundRows = &o.BackgroundSource, &o.BackgroundRows
	}
	for _, f := range o.Ranking[:min(v.NumFeatures, len(o.Ranking))] {
		v.TopFeatures = append(v.TopFeatures, topFeature{Feature: f, Value: instance[f], Impact: o.FeatureWeights[f]})
	}
	v.Result = &resultView{BaseValue: o.BaseValue, PredictedValue: o.PredictedValue, FeatureContributions: o.FeatureWeights,
		TopFeatures: v.TopFeatures}
}

// generate answers POST /explanations/generate: the body (422 naming the
// field), the model (404), its configuration (409 when explanations are
// disabled; the default method when none is named), the logged prediction when prediction_id is
// sent instead of an instance (404 when the model has none with that id;
// its input_data is the instance), the model's artifact, else its serving
// endpoint, else its surrogate (422 on model_id when it has none of them),
// the instance and background against it (422 naming
// instance.NAME, background[i].NAME or background); the explanation is
// stored pending and the runner woken: 202.
//
// Explanations of spec 3: POST /explanations/generate checks an instance
// (and background rows) against the model's artifact and stores a pending
// Explanation; GET /explanations/{explanation_id} and GET /explanations
// read them. explainjob.Runner computes pending explanations, reading
// them from the Store, so that one accepted before a restart is
// computed after it. Methods: shap (the exact method the artifact
// allows), shap_kernel (spec 3's name; kernel_shap is read as it), lime.
// A request takes spec 3's num_features (top_features' length),
// num_samples (the sampled methods' sample size), config
// (background_samples, max_features) and Vigil's seed (options.go): the
// sampled methods draw from the request's seed, else DefaultSeed of the
// model, so one request and seed give the same values; the record
// answers spec 3's result and instance form. A request may name a logged prediction
// (prediction_id) instead of an instance: its input_data is read through
// Predictions (the analytical store, adapted in app) and the explanation
// keeps the id (GET /explanations/by-prediction/{prediction_id}). Each
// model has a Config (GET/PUT /explanations/config/{model_id}): enabled
// and default_method are applied by generate; GET /explanations/stats
// counts a model's explanations.
func (a *API) generate(c *fiber.Ctx) error {
	var b generateBody
	if err := decodeWithOptions(c, &b); err != nil {
		return err
	}
	var v web.Problems
	v.Required("model_id", b.ModelID)
	v.Text("model_id", b.ModelID)
	v.Text("prediction_id", b.PredictionID)
	switch {
	case b.Instance == nil && b.PredictionID == "":
		v.Add("instance", "is required unless prediction_id names a logged prediction: an object of feature name to number or null")
	case b.Instance != nil && b.PredictionID != "":
		v.Add("instance", "must be absent when prediction_id is sent: the logged prediction's input_data is the instance")
	}
	b.Method = CanonicalMethod(b.Method)
	checkMethod(&v, "method", b.Method)
	req := Request{Background: b.Background}
	b.options.apply(&v, b.ModelID, &req)
	if err := v.Err(); err != nil {
		return err
	}
	ctx, orgID := c.UserContext(), identity.OrgID(c)
	cfg, err := a.enabled(ctx, orgID, b.ModelID, &b.Method)
	if err != nil {
		return err
	}
	if b.PredictionID != "" {
		instance, err := a.predictionInstance(ctx, orgID, b.ModelID, b.PredictionID)
		if err != nil {
			return err
		}
		b.Instance = instance
	}
	req.Instance = b.Instance
	art, err := a.Artifacts.ModelArtifact(ctx, orgID, b.ModelID)
	key := "" // the cache keeps artifacts' explanations alone
	switch {
	case errors.Is(err, store.ErrNotFound):
		req, err = a.Access.check(ctx, orgID, b.ModelID, req, b.Method)
	case err == nil:
		var p plan
		p, err = planFor(&art, req, b.Method, a.Access.fallbacks(ctx, orgID, b.ModelID))
		key = p.cacheKey(&art, req, b.Method)
	}
	if err != nil {
		return err
	}
	e, err := a.enqueue(ctx, cfg, orgID, b.ModelID, key, b.PredictionID, b.Method, req, b.UseCache == nil || *b.UseCache)
	if err != nil {
		return err
	}
	a.wake()
	c.Set(fiber.HeaderLocation, "/api/v1/explanations/"+e.ID)
	msg := "explanation accepted; poll GET /explanations/{explanation_id} until status is not pending"
	if e.Outcome != nil {
		msg = "explanation completed from the cache: an identical request was computed within the model's cache_ttl_hours"
	}
	return c.Status(http.StatusAccepted).JSON(newAccepted(e, req, msg))
}

// enqueue stores a checked request of the model: completed at once from
// the cache (under key; "" for none: a model without an artifact) when
// useCache and the model's cache_enabled allow and an identical request
// was computed, else pending for the Runner (which then keeps its outcome
// in the cache for cache_ttl_hours).
func (a *API) enqueue(ctx context.Context, cfg Config, orgID, modelID, key, predictionID, method string, req Request,
	useCache bool) (Explanation, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return Explanation{}, err
	}
	now := a.Clock.Now()
	e := Explanation{ID: id.String(), OrgID: orgID, ModelID: modelID, PredictionID: predictionID, Method: method,
		Status: StatusPending, CreatedAt: now, UpdatedAt: now}
	if useCache && cfg.CacheEnabled && a.Cache != nil && key != "" {
		if o := cached(ctx, a.Cache, key); o != nil {
			e.Status, e.Outcome, e.CompletedAt = StatusCompleted, o, &now
		}
		req.CacheTTLHours = cfg.CacheTTLHours
	}
	e.Request = req
	if err := a.Jobs.CreateExplanation(ctx, e); errors.Is(err, store.ErrNotFound) {
		return e, web.NotFound("model")
	} else if err != nil {
		return e, err
	}
	return e, nil
}

// predictionInstance reads a logged prediction's input_data as the
// instance: 404 when the model has no such prediction (or the analytical
// store is not wired), 422 on prediction_id when its input is not an
// object of features.
func (a *API) predictionInstance(ctx context.Context, orgID, modelID, predictionID string) (map[string]any, error) {
	if a.Predictions == nil {
		return nil, web.NotFound("prediction")
	}
	raw, err := a.Predictions.PredictionInput(ctx, orgID, modelID, predictionID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, web.NotFound("prediction")
	} else if err != nil {
		return nil, err
	}
	var instance map[string]any
	if err := json.Unmarshal(raw, &instance); err != nil || instance == nil {
		return nil, web.Invalid("prediction_id", "the logged prediction's input_data is not an object of feature values")
	}
	return instance, nil
}

// optional is s, or nil when s is empty.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// byPrediction answers GET /explanations/by-prediction/{prediction_id}:
// the newest explanation of the logged prediction among the
// organization's models; 404 when there is none in the organization.
func (a *API) byPrediction(c *fiber.Ctx) error {
	pid, err := web.PathParam(c, "prediction_id")
	if err != nil {
		return err
	}
	list, _, err := a.Jobs.Explanations(c.UserContext(), identity.OrgID(c), Filter{PredictionID: pid, Limit: 1})
	if err != nil {
		return err
	}
	if len(list) == 0 {
		return web.NotFound("explanation")
	}
	return c.JSON(newExplanationView(list[0]))
}

// getExplanation answers GET /explanations/{explanation_id}; another
// organization's explanation is a 404 like a missing one.
func (a *API) getExplanation(c *fiber.Ctx) error {
	e, err := a.pathExplanation(c)
	if err != nil {
		return err
	}
	return c.JSON(newExplanationView(e))
}

// pathExplanation reads the organization's explanation the path names:
// 404 for another organization's, like a missing one.
func (a *API) pathExplanation(c *fiber.Ctx) (Explanation, error) {
	id, err := web.PathParam(c, "explanation_id")
	if err != nil {
		return Explanation{}, err
	}
	return a.explanation(c.UserContext(), identity.OrgID(c), id)
}

// explanation reads one explanation of the organization: 404 when it has
// none with the id.
func (a *API) explanation(ctx context.Context, orgID, id string) (Explanation, error) {
	return Find(ctx, a.Jobs, orgID, id)
}

// Find reads one explanation of the organization from s: 404 when it has
// none with the id (another organization's included).
func Find(ctx context.Context, s Store, orgID, id string) (Explanation, error) {
	e, err := s.Explanation(ctx, orgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return e, web.NotFound("explanation")
	}
	return e, err
}

// enabled checks the model (404) and that explanations are enabled for it
// (409), and fills *method with its default_method when empty: the
// model's configuration.
func (a *API) enabled(ctx context.Context, orgID, modelID string, method *string) (Config, error) {
	if _, err := registry.Find(ctx, a.Models, orgID, modelID); err != nil {
		return Config{}, err
	}
	cfg, err := a.config(ctx, orgID, modelID)
	if err != nil {
		return cfg, err
	}
	if !cfg.Enabled {
		return cfg, web.Conflict("explanations are disabled for this model: PUT /explanations/config/{model_id} with enabled true")
	}
	if *method == "" {
		*method = CanonicalMethod(cfg.DefaultMethod)
	}
	return cfg, nil
}

// artifact reads the model's artifact: 422 on model_id when it has none.
func (a *API) artifact(ctx context.Context, orgID, modelID string) (artifact.Artifact, error) {
	art, err := a.Artifacts.ModelArtifact(ctx, orgID, modelID)
	if errors.Is(err, store.ErrNotFound) {
		return art, web.Invalid("model_id", "the model has no artifact: upload one at PUT /models/{model_id}/artifact")
	}
	return art, err
}

// listExplanations answers GET /explanations: newest first, filtered by
// model_id, method and status, limit (default 50, at most 50) and offset.
func (a *API) listExplanations(c *fiber.Ctx) error {
	limit, err := web.IntQuery(c, "limit", 50, 1, 50)
	if err != nil {
		return err
	}
	offset, err := web.IntQuery(c, "offset", 0, 0, 1<<30)
	if err != nil {
		return err
	}
	var v web.Problems
	f := Filter{ModelID: c.Query("model_id"), Limit: limit, Offset: offset}
	f.Method = CanonicalMethod(v.EnumQuery(c, "method", "", slices.Concat(RequestMethods, []string{AliasKernelSHAP})...))
	f.Status = v.EnumQuery(c, "status", "", Statuses...)
	v.Text("model_id", f.ModelID)
	if err := v.Err(); err != nil {
		return err
	}
	ctx, orgID := c.UserContext(), identity.OrgID(c)
	if f.ModelID != "" {
		if _, err := registry.Find(ctx, a.Models, orgID, f.ModelID); err != nil {
			return err
		}
	}
	list, total, err := a.Jobs.Explanations(ctx, orgID, f)
	if err != nil {
		return err
	}
	views := make([]explanationView, 0, len(list))
	for _, e := range list {
		views = append(views, newExplanationView(e))
	}
	page := web.NewPage(total, offset/limit+1, limit)
	return c.JSON(explanationPage{Page: page, Limit: limit, Offset: offset, Explanations: views})
}

// explanationPage is the list's pagination envelope.
type explanationPage struct {
	web.Page
	Limit        int               `json:"limit"`
	Offset       int               `json:"offset"`
	Explanations []explanationView `json:"explanations"`
}

// cancel answers POST /explanations/{explanation_id}/cancel: a pending
// explanation becomes cancelled (200 with it; the Runner then neither
// starts it nor stores the outcome of a computation in flight); 409 once
// it is final, 404 for another organization's.
func (a *API) cancel(c *fiber.Ctx) error {
	if err := web.NoBody(c); err != nil {
		return err
	}
	id, err := web.PathParam(c, "explanation_id")
	if err != nil {
		return err
	}
	ctx, orgID := c.UserContext(), identity.OrgID(c)
	err = a.Jobs.CancelExplanation(ctx, orgID, id, a.Clock.Now())
	switch {
	case errors.Is(err, store.ErrNotFound):
		return web.NotFound("explanation")
	case errors.Is(err, store.ErrConflict):
		return web.Conflict("the explanation is final: only a pending one can be cancelled")
	case err != nil:
		return err
	}
	e, err := a.Jobs.Explanation(ctx, orgID, id)
	if err != nil {
		return err
	}
	return c.JSON(newExplanationView(e))
}

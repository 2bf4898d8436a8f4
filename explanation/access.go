package explanation

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/vigilhq/vigil/explanation/artifact"
	"github.com/vigilhq/vigil/explanation/modelserver"
	"github.com/vigilhq/vigil/explanation/serving"
	"github.com/vigilhq/vigil/platform/outbound"
	"github.com/vigilhq/vigil/platform/secretbox"
	"github.com/vigilhq/vigil/platform/web"
	"github.com/vigilhq/vigil/store"
)

// Model access an explanation states: the model's uploaded artifact, its
// serving endpoint, or a surrogate fitted on its logged predictions.
const (
	AccessArtifact  = "artifact"
	AccessServed    = "served"
	AccessSurrogate = "surrogate"
)

// Access explains the models that have no artifact: through their
// serving endpoint when they have one, else through a surrogate fitted on
// their logged predictions. The artifact, when there is one, always wins
// (it is exact).
//
// A model without an artifact is explained through its serving endpoint
// (explanation/serving: PUT, GET and DELETE /models/{model_id}/serving;
// Kernel SHAP and LIME call it through explanation/modelserver, batched,
// within a timeout and a request budget, headers sealed; a V2 answer's output is read by name when the
// endpoint names one) or else through a Surrogate fitted on its logged
// predictions (Logged, adapted in app) when the explanation runs: a
// linear model and a regression tree (forest.FitCART), the one with the
// higher held-out fidelity kept; every outcome states its model access
// (artifact, served, surrogate) and a surrogate its kind and fidelity.
type Access struct {
	Servings serving.Store
	// Guard checks every connection to a served model; Box opens its
	// sealed headers.
	Guard *outbound.Guard
	Box   *secretbox.Keyring
	// Logged reads logged predictions for surrogates and background rows;
	// without it a model with neither artifact nor endpoint cannot be
	// explained.
	Logged PredictionLog
	// References reads the sample of a model's drift reference: the
	// background rows of a request that sends none.
	References ReferenceSample
}

// noAccess is the 422 of a model that can be explained no way.
func noAccess(why string) error {
	return web.Invalid("model_id", "the model has no artifact (PUT /models/{model_id}/artifact) and no serving endpoint "+
		"(PUT /models/{model_id}/serving)"+why)
}

// check is generate's check of a model without an artifact: the request
// against its serving endpoint, else against its surrogate (422 on
// model_id when there are too few logged predictions to fit one). It
// returns the request to store: for a surrogate, without the instance's
// fields it leaves out.
func (a *Access) check(ctx context.Context, orgID, modelID string, req Request, method string) (Request, error) {
	if a == nil {
		return req, noAccess("")
	}
	s, err := a.Servings.ModelServing(ctx, orgID, modelID)
	if err == nil {
		_, err = servedPlan(&s, req, method, a.fallbacks(ctx, orgID, modelID))
		return req, err
	}
	if !errors.Is(err, store.ErrNotFound) {
		return req, err
	}
	sur, err := a.surrogate(ctx, orgID, modelID)
	if err != nil {
		return req, err
	}
	req.Instance = sur.request(req).Instance
	_, err = sur.plan(req, method, a.surrogateFallbacks(ctx, sur))
	return req, err
}

// surrogateFallbacks are the sources of background rows of a request
// to sur that sends none: the drift reference's sample, then sur's
// training rows.
func (a *Access) surrogateFallbacks(ctx context.Context, sur *Surrogate) []fallback {
	return []fallback{a.reference(ctx, sur.Artifact.OrgID, sur.Artifact.ModelID), {source: BackgroundLogged,
		rows: func() ([]map[string]any, error) { return sur.background, nil }}}
}

// execute computes e for a model without an artifact (its endpoint, else
// its surrogate, as they are now): the outcome, or the reason it failed.
func (a *Access) execute(ctx context.Context, e Explanation, rep *artifact.Reporter) (*Outcome, error) {
	if a == nil {
		return nil, errors.New("the model has no artifact any more")
	}
	s, err := a.Servings.ModelServing(ctx, e.OrgID, e.ModelID)
	if err == nil {
		return a.served(ctx, &s, e, rep)
	}
	if !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	sur, err := a.surrogate(ctx, e.OrgID, e.ModelID)
	if err != nil {
		return nil, fmt.Errorf("the model has neither artifact nor serving endpoint, and no surrogate: %w", reason(err))
	}
	p, err := sur.plan(e.Request, e.Method, a.surrogateFallbacks(ctx, sur))
	if err != nil {
		return nil, fmt.Errorf("the request no longer fits the model's surrogate: %w", reason(err))
	}
	began := time.Now()
	res, err := sur.Artifact.ComputeReporting(p.row, p.algorithm, p.background, sampling(e), rep)
	if err != nil {
		return nil, reason(err)
	}
	// Exact for the surrogate, approximate for the model.
	res.Approximation = artifact.Approximate
	o, err := newOutcome(res, began)
	if err != nil {
		return nil, err
	}
	o.ModelAccess, o.Fidelity, o.Surrogate = AccessSurrogate, &sur.Fidelity, &sur.Choice
	o.background(p)
	return o, nil
}

// servedPlan checks req against a served model: every feature a number
// (JSON cannot carry a missing one), background rows required (Kernel
// SHAP's absent features, LIME's sampling scale): without the request's,
// the first of fallbacks with rows holding every feature as a number.
// shap is Kernel SHAP.
func servedPlan(s *serving.Serving, req Request, method string, fallbacks []fallback) (plan, error) {
	p := plan{algorithm: algorithmOf(method)}
	if method == RequestSHAP {
		p.algorithm = artifact.MethodKernelSHAP
	}
	err := p.read(req, s.Features, func(instance map[string]any, field string) ([]float64, error) {
		return numericRow(s.Features, instance, field)
	}, true, nil, fallbacks)
	return p, err
}

// numericRow reads instance in features' order: 422 naming field.NAME for
// an unknown feature, a missing one or one that is not a number.
func numericRow(features []string, instance map[string]any, field string) ([]float64, error) {
	index := make(map[string]int, len(features))
	for i, f := range features {
		index[f] = i
	}
	row := make([]float64, len(features))
	seen := make([]bool, len(features))
	var v web.Problems
	for name, raw := range instance {
		i, ok := index[name]
		if !ok {
			v.Add(field+"."+name, "is not a feature of the model")
			continue
		}
		x, ok := raw.(float64)
		if !ok {
			v.Add(field+"."+name, "must be a number: a served model is called with every feature")
			continue
		}
		row[i], seen[i] = x, true
	}
	for i, f := range features {
		if _, named := instance[f]; !seen[i] && !named {
			v.Add(field+"."+f, "is required: a served model is called with every feature")
		}
	}
	return row, v.Err()
}

// served computes e through the model's endpoint: Kernel SHAP or LIME,
// every call batched and counted against the endpoint's request budget.
func (a *Access) served(ctx context.Context, s *serving.Serving, e Explanation, rep *artifact.Reporter) (*Outcome, error) {
	p, err := servedPlan(s, e.Request, e.Method, a.fallbacks(ctx, e.OrgID, e.ModelID))
	if err != nil {
		return nil, fmt.Errorf("the request no longer fits the model's serving endpoint: %w", reason(err))
	}
	end, err := s.Endpoint(a.Box)
	if err != nil {
		return nil, err
	}
	client, err := modelserver.New(a.Guard, end)
	if err != nil {
		return nil, fmt.Errorf("serving endpoint: %w", err)
	}
	model := func(rows [][]float64) ([]float64, error) { return client.Predict(ctx, rows) }
	began := time.Now()
	res, err := artifact.Agnostic(s.Features, p.row, p.algorithm, p.background, model, sampling(e), rep.Served(s.MaxBatch))
	if err != nil {
		return nil, fmt.Errorf("after %d requests to the model server: %w", client.Requests(), reason(err))
	}
	o, err := newOutcome(res, began)
	if err != nil {
		return nil, err
	}
	o.ModelAccess, o.ModelRequests = AccessServed, client.Requests()
	o.background(p)
	return o, nil
}

// reason is err as a failure reason: a 422's message and details.
func reason(err error) error {
	var invalid *web.Error
	if errors.As(err, &invalid) {
		return fmt.Errorf("%s: %v", invalid.Message, invalid.Details)
	}
	return err
}

// finite reports whether every figure of res is a finite number.
func finite(res artifact.Result) bool {
	ok := !math.IsNaN(res.BaseValue+res.Output) && !math.IsInf(res.BaseValue+res.Output, 0)
	for _, w := range res.FeatureWeights {
		ok = ok && !math.IsNaN(w.Weight) && !math.IsInf(w.Weight, 0)
	}
	return ok
}
